import Foundation

/// Finds faces, with eye and mouth positions, smiles and closed eyes, like Core Image's
/// `CIDetectorTypeFace`: with a HOG detector at `.high` accuracy (the default), with OpenCV's
/// cascade classifiers at `.low` accuracy or when `Configuration.cascade` names one. Every
/// model it needs ships with PixelFlow as a package resource.
///
/// ```swift
/// let detector = try FaceDetector(options: DetectorOptions(accuracy: .high))
/// for face in try detector.features(in: buffer) {
///     print(face.bounds, face.confidence, face.leftEyePosition ?? "no eye", face.hasSmile)
/// }
/// ```
///
/// **Faces at `.high` accuracy** (with `Cascade.default`): dlib's frontal face detector
/// (Felzenszwalb HOG features, an image pyramid, five linear filters, non-maximum
/// suppression; see `Docs/Detectors.md`), reimplemented with its filters exported from dlib:
/// the faces of `dlib.get_frontal_face_detector()(image, 1)`, and `FaceFeature.confidence` its
/// score. Frontal faces and faces turned up to about 45 degrees, of 40 pixels and more.
///
/// **Faces at `.low` accuracy, or with a named cascade**: `CascadeClassifier.detectObjects`
/// with the face cascade (`defaultCascadeName`, `haarcascade_frontalface_alt2.xml`, unless
/// `Configuration.cascade` says otherwise). With `.high` accuracy and a named cascade the boxes
/// are those of OpenCV's `detectMultiScale(gray, scaleFactor: 1.1, minNeighbors: 3, minSize)`
/// on the same image — same windows, same grouping (see `CascadeClassifier.detectObjects`).
/// `.low` accuracy uses a scale step of 1.2 and twice the window stride (about 8x fewer
/// windows, for video) and a third of the neighbour threshold (at least 1); its boxes are no
/// longer OpenCV's `detectMultiScale` defaults (they are OpenCV's with `scaleFactor` 1.2, that
/// threshold, and a doubled stride, which OpenCV has no parameter for).
///
/// **Landmarks at `.high` accuracy** (the HOG detector, when `Configuration.findsLandmarks`):
/// dlib's 5-point face landmark model (an ensemble of regression trees, Kazemi and Sullivan
/// 2014; see `Docs/Detectors.md`) runs on each upright face box and gives
/// `FaceFeature.landmarks` (the corners of both eyes and the base of the nose, dlib's points
/// within 1 pixel). Each eye position is the midpoint of its two corners; the mouth lies on
/// the line from the eyes' midpoint through the base of the nose, 0.4 of that distance beyond
/// the nose. The smile and closed-eye flags come from the cascades below; faces found by a
/// rotated search get the cascades' eyes and mouth.
///
/// **Landmarks with cascades** (when `Configuration.findsLandmarks`). The face box (a HOG box first
/// widened to a cascade's: 1.15 times the side, its centre 7.5% of the side higher) is cut out
/// of the gray image and resized (bilinear) to 120 pixels square, so the landmark cascades see the same
/// scale whatever the face size; positions are mapped back to the image.
/// - Eyes: `haarcascade_eye.xml` (open eyes) on the band 15%...60% of the face height, minimum
///   neighbours 3; detections whose centre is in the left half go to the left eye, the others
///   to the right one, the one nearest the usual eye position (30% or 70% of the width, 38% of
///   the height) winning.
/// - Closed eyes: for a half where the open-eye cascade finds nothing, the 2-split eye
///   cascades (`haarcascade_lefteye_2splits.xml` and `haarcascade_righteye_2splits.xml`,
///   trained on eyes in all states, open or closed) are run; if one of them finds the eye, its
///   position is reported and the eye is flagged closed. When neither finds anything on that
///   side but the other eye is open (a wink), the closed eye is placed by mirroring the open
///   one across the face's vertical centre line and flagged closed. When no eye is found on
///   either side, no eye positions are reported. These are heuristics: an open eye the
///   open-eye cascade misses (glare, glasses, a side glance) is also reported as closed.
/// - Smile and mouth: `haarcascade_smile.xml` on the lowest 45% of the face. OpenCV's data has
///   no mouth cascade, so the mouth is the centre of the smile cascade's best box found with
///   a low neighbour threshold (3); `hasSmile` needs a box with many neighbours
///   (`Configuration.smileNeighbors`, 20 by default: the smile cascade fires on most mouths at
///   low thresholds). When no box is found at all and both eyes are, the mouth is placed
///   below the eyes' midpoint, at 1.1 times the distance between the eyes, perpendicular to
///   the eye line (a typical adult proportion).
///
/// **Rotated faces** (`Configuration.rotationAngles`). The frontal cascades accept faces
/// turned up to about 15° in the image plane. For each extra angle the image is rotated
/// (bilinear, about its centre) by minus that angle and searched again; faces found there are
/// mapped back (the box keeps its size, centred on the mapped centre), and kept unless they
/// overlap (intersection over union > 0.3) a face found upright or at an earlier angle.
/// `faceAngle` is then set on every face (0 for upright ones).
///
/// **Results.** Largest faces first (ties in scan order); at most
/// `DetectorOptions.maximumFeatureCount`. Images smaller than the cascade's window (24x24),
/// uniform images (black, white: the window variance test rejects them) and float images
/// with NaNs (read as 0) give no faces; nothing traps.
///
/// **Progress and cancellation.** `features(in:cancellation:progress:)` reports progress per
/// pyramid level and stops within one band of window rows per worker when cancelled.
///
/// - Complexity: see `CascadeClassifier.detectObjects`; landmarks add a constant cost per face
///   (three to five cascades on a 120x120 crop, and at `.high` accuracy the landmark model's
///   15 x (800 pixel reads + 500 trees of depth 4)). Rotated search multiplies the face search by
///   `1 + rotationAngles.count`.
public struct FaceDetector: Detector {
    /// Which cascade file to use for faces.
    public enum Cascade: Sendable {
        /// The accuracy's detector: the HOG detector at `.high`, the cascade
        /// `FaceDetector.defaultCascadeName` (`haarcascade_frontalface_alt2.xml`) at `.low`.
        case `default`
        /// An installed cascade file by name, e.g. `"lbpcascade_frontalface_improved.xml"`
        /// (looked up with `CascadeClassifier.locate(_:)`).
        case named(String)
        /// A cascade XML file at this path.
        case file(URL)
        /// A cascade already loaded.
        case classifier(CascadeClassifier)
    }

    /// Face-specific settings, beside the shared `DetectorOptions`.
    public struct Configuration: Sendable {
        /// The face cascade.
        public var cascade: Cascade
        /// OpenCV's `minNeighbors` (default 3): a face needs more than this many overlapping raw
        /// windows (with `.low` accuracy, more than a third of it; 0 reports raw windows).
        /// Cascades only.
        public var minimumNeighbors: Int
        /// OpenCV's `scaleFactor`; nil for the accuracy's (1.1 for `.high`, 1.2 for `.low`).
        /// Cascades only (the HOG pyramid's step is 6/5).
        public var scaleFactor: Double?
        /// The smallest face side to look for, in pixels (OpenCV's `minSize`); the larger of this
        /// and `DetectorOptions.minimumFeatureSize` x the image's shorter side applies.
        public var minimumFaceSize: Int
        /// Extra in-plane rotations to search, in degrees (for example `[-30, 30]`); empty
        /// searches upright faces only and leaves `faceAngle` nil.
        public var rotationAngles: [Double]
        /// Look for eyes, mouth, smile and closed eyes inside each face.
        public var findsLandmarks: Bool
        /// The neighbour count a smile needs (see the type's documentation).
        public var smileNeighbors: Int
        /// Worker threads (nil: one per processor); never changes the result.
        public var threadCount: Int?

        /// Settings with OpenCV's defaults for faces; see each property.
        public init(
            cascade: Cascade = .default, minimumNeighbors: Int = 3, scaleFactor: Double? = nil,
            minimumFaceSize: Int = 0, rotationAngles: [Double] = [], findsLandmarks: Bool = true,
            smileNeighbors: Int = 20, threadCount: Int? = nil
        ) {
            self.cascade = cascade
            self.minimumNeighbors = minimumNeighbors
            self.scaleFactor = scaleFactor
            self.minimumFaceSize = minimumFaceSize
            self.rotationAngles = rotationAngles
            self.findsLandmarks = findsLandmarks
            self.smileNeighbors = smileNeighbors
            self.threadCount = threadCount
        }
    }

    /// The shared detector settings: accuracy, minimum face size (fraction of the shorter
    /// side), maximum number of faces.
    public var options: DetectorOptions
    /// The face-specific settings.
    public var configuration: Configuration
    /// The face cascade: the one that finds the faces unless `usesHOG`.
    public let cascade: CascadeClassifier
    let landmarks: _LandmarkCascades?
    let hog: _FaceHOGDetector?
    /// dlib's 5-point landmark model, for the HOG detector's faces.
    let shapePredictor: _FaceShapePredictor?

    /// Loads the cascades (the face cascade, and the eye and smile ones when
    /// `configuration.findsLandmarks`).
    ///
    /// - Throws: `PixelFlowError.io` when a cascade file that does not ship with PixelFlow is not
    ///   installed (the message names the Debian package `opencv-data`), `.decodingFailed`/`.unsupportedFormat` for a bad file,
    ///   `.invalidParameter` for a scale factor not above 1 or negative sizes.
    public init(options: DetectorOptions = DetectorOptions(), configuration: Configuration = Configuration()) throws {
        if let f = configuration.scaleFactor, !(f > 1 && f.isFinite && f <= 4) {
            throw PixelFlowError.invalidParameter(
                filter: "FaceDetector", key: "scaleFactor", reason: "must be in (1, 4], got \(f)")
        }
        guard configuration.minimumNeighbors >= 0, configuration.minimumFaceSize >= 0 else {
            throw PixelFlowError.invalidParameter(
                filter: "FaceDetector", key: "minimumNeighbors/minimumFaceSize", reason: "must not be negative")
        }
        guard configuration.rotationAngles.allSatisfy({ $0.isFinite && abs($0) <= 180 }) else {
            throw PixelFlowError.invalidParameter(
                filter: "FaceDetector", key: "rotationAngles", reason: "must be finite angles within ±180°")
        }
        self.options = options
        self.configuration = configuration
        switch configuration.cascade {
        case .default: cascade = try CascadeClassifier.installed(Self.defaultCascadeName)
        case let .named(name): cascade = try CascadeClassifier.installed(name)
        case let .file(url): cascade = try CascadeClassifier(contentsOf: url)
        case let .classifier(c): cascade = c
        }
        landmarks = configuration.findsLandmarks ? try _LandmarkCascades.load() : nil
        if case .default = configuration.cascade, options.accuracy == .high {
            hog = _FaceHOGDetector(model: try _FaceHOGModel.bundled())
            shapePredictor = configuration.findsLandmarks ? _FaceShapePredictor(model: try _FaceShapeModel.bundled()) : nil
        } else {
            hog = nil
            shapePredictor = nil
        }
    }

    /// The face cascade of `Cascade.default`, for `.low` accuracy: the most accurate of
    /// OpenCV's frontal face cascades on PixelFlow's face set (`scripts/eval_faces.py`).
    public static let defaultCascadeName = "haarcascade_frontalface_alt2.xml"

    /// True when faces are found with the HOG detector (`.high` accuracy with the default
    /// cascade setting), false when with `cascade`.
    public var usesHOG: Bool { hog != nil }

    /// The search parameters this detector uses for an image of the given size.
    public func searchOptions(imageWidth: Int, imageHeight: Int) -> CascadeSearchOptions {
        let low = options.accuracy == .low
        let fraction = options.minimumFeatureSize.isFinite ? min(max(options.minimumFeatureSize, 0), 1) : 0
        let fromFraction = Int((fraction * Double(min(imageWidth, imageHeight))).rounded())
        let minSide = max(configuration.minimumFaceSize, fromFraction)
        // Low accuracy visits about 1/8 of the windows (scale step 1.2 instead of 1.1, twice the
        // stride), so a face gathers about a quarter as many raw windows: the neighbour
        // threshold is divided by 3 (at least 1) to keep the same faces.
        let neighbors = low ? max(1, configuration.minimumNeighbors / 3) : configuration.minimumNeighbors
        return CascadeSearchOptions(
            scaleFactor: configuration.scaleFactor ?? (low ? 1.2 : 1.1),
            minimumNeighbors: configuration.minimumNeighbors == 0 ? 0 : neighbors,
            minimumSize: (minSide, minSide), strideMultiplier: low ? 2 : 1,
            threadCount: configuration.threadCount)
    }

    /// The faces in `buffer`, largest first. See the type's documentation.
    public func features(in buffer: PixelBuffer) throws -> [FaceFeature] {
        let gray = _CascadeKernels.gray(from: buffer)
        return features(gray: gray, rgb: hog == nil ? nil : _RGB8(buffer))
    }

    /// `features(in:)`, watched and cancellable as a render is.
    ///
    /// ```swift
    /// let token = CancellationToken()
    /// let faces = try detector.features(in: buffer, cancellation: token) { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - buffer: the image to search, in any pixel format.
    ///   - cancellation: cancels the detection from any thread; it then throws
    ///     `PixelFlowError.cancelled` within about one unit of work (the scan of one band of
    ///     at most 8 window rows per worker, the resize and integrals of one pyramid level, or
    ///     the landmarks of one face) and returns no faces. The pyramid's planes are freed.
    ///   - progress: fractions of the work done, increasing, in proportion to the windows of
    ///     the pyramid levels scanned (each rotation angle is a pyramid of its own), ending
    ///     with exactly one call with 1 on success, after the landmarks. Calls never overlap.
    public func features(
        in buffer: PixelBuffer, cancellation: CancellationToken? = nil,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> [FaceFeature] {
        let passes = 1 + configuration.rotationAngles.filter { $0 != 0 }.count
        return try RenderControl.run(
            cancellation: cancellation, progress: progress,
            units: passes * CascadeClassifier._progressUnitsPerPass
        ) { control in
            let gray = _CascadeKernels.gray(from: buffer)
            if control.isCancelled { return [] }
            return features(gray: gray, rgb: hog == nil ? nil : _RGB8(buffer), control: control)
        }
    }

    /// The faces in `gray`. With a `control`, advances `_progressUnitsPerPass` units per
    /// pyramid (upright, then one per rotation angle) and stops early once it is cancelled,
    /// returning partial results that the caller must drop.
    func features(gray: _Gray8, rgb: _RGB8? = nil, control: RenderControl? = nil) -> [FaceFeature] {
        guard gray.width > 0, gray.height > 0 else { return [] }
        let options = searchOptions(imageWidth: gray.width, imageHeight: gray.height)
        let threads = max(1, configuration.threadCount ?? ProcessInfo.processInfo.activeProcessorCount)
        // One search: (box, score, raw window count) of each face in `image` (`rgb` is the
        // same image in colour for the HOG detector, when there is one).
        func search(_ image: _Gray8, _ rgb: _RGB8?) -> [(rect: Rect, score: Double, count: Int)] {
            if let hog {
                let colour = rgb ?? _RGB8(gray: image)
                return hog.detect(colour, minimumSide: options.minimumSize.width, threads: threads, control: control)
                    .map { ($0.rect, $0.score, 0) }
            }
            return cascade._detectCounting(image, options: options, control: control)
                .map { ($0.rect.rect, Double($0.count), $0.count) }
        }
        var found: [(rect: Rect, score: Double, count: Int, angle: Double)] = search(gray, rgb).map {
            ($0.rect, $0.score, $0.count, 0)
        }
        for angle in configuration.rotationAngles where angle != 0 {
            if control?.isCancelled == true { return [] }
            let (rotated, back) = _FaceGeometry.rotate(gray, degrees: -angle)
            for hit in search(rotated, nil) {
                let r = hit.rect
                let c = back(Point(x: r.midX, y: r.midY))
                let mapped = Rect(x: c.x - r.width / 2, y: c.y - r.height / 2, width: r.width, height: r.height)
                if found.contains(where: { _FaceGeometry.iou($0.rect, mapped) > 0.3 }) { continue }
                found.append((mapped, hit.score, hit.count, angle))
            }
        }
        // Largest first; the sort is stable, so equal sizes keep scan order.
        var order = Array(found.indices)
        order.sort {
            found[$0].rect.width * found[$0].rect.height > found[$1].rect.width * found[$1].rect.height
                || (found[$0].rect.width * found[$0].rect.height == found[$1].rect.width * found[$1].rect.height && $0 < $1)
        }
        if let cap = self.options.maximumFeatureCount { order = Array(order.prefix(max(0, cap))) }
        let searchesRotations = !configuration.rotationAngles.isEmpty
        let faces = order.map { i in
            FaceFeature(
                bounds: found[i].rect, faceAngle: searchesRotations ? found[i].angle : nil, detectionCount: found[i].count,
                confidence: found[i].score)
        }
        guard let landmarks, !faces.isEmpty, control?.isCancelled != true else { return faces }
        // Landmarks: one face per work item, on all threads (each face's result is its own).
        let angles = order.map { found[$0].angle }
        let results = _FaceSlots(faces)
        let smileNeighbors = configuration.smileNeighbors
        let token = control?.token
        let fromHOG = hog != nil
        let shapePredictor = self.shapePredictor
        let colour = shapePredictor == nil ? nil : (rgb ?? _RGB8(gray: gray))
        _parallelFor(faces.count, threads: threads) { i in
            if token?.isCancelled == true { return }
            var feature = faces[i]
            // The landmark rules are tuned on the cascades' boxes, which reach higher (to the
            // eyebrows) and are wider than the HOG detector's: a HOG box is mapped to the
            // cascade convention for the search (measured on the face set: 1.15x the side,
            // centre 7.5% of the side higher).
            var box = feature.bounds
            if fromHOG {
                let side = 1.15 * box.width
                box = Rect(x: box.midX - side / 2, y: box.midY - 0.075 * box.width - side / 2, width: side, height: side)
            }
            landmarks.locate(in: gray, face: box, angle: angles[i], smileNeighbors: smileNeighbors, into: &feature)
            if let shapePredictor, let colour, angles[i] == 0 {
                _FaceShapePredictor.place(shapePredictor.landmarks(in: colour, box: feature.bounds), into: &feature)
            }
            results.set(i, feature)
        }
        return results.values
    }
}

/// One slot per face for the parallel landmark search; each work item writes only its own.
final class _FaceSlots: Sendable {
    private let slots: Locked<[FaceFeature]>
    init(_ faces: [FaceFeature]) { slots = Locked(faces) }
    func set(_ i: Int, _ f: FaceFeature) { slots.withLock { $0[i] = f } }
    var values: [FaceFeature] { slots.withLock { $0 } }
}
