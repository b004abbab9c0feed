#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finds the most prominent quadrilaterals in an image (documents, cards, screens, signs),
/// like Core Image's `CIDetectorTypeRectangle`.
///
/// ```swift
/// let detector = RectangleDetector(options: .init(accuracy: .high, maximumFeatureCount: 2))
/// for feature in detector.features(in: buffer) {
///     print(feature.topLeft, feature.topRight, feature.bottomRight, feature.bottomLeft)
/// }
/// let flat = try Image(buffer).perspectiveCorrected(feature)   // CIPerspectiveCorrection
/// ```
///
/// It is a `Detector` like the QR code and face detectors, and can be made from the same
/// `DetectorOptions`, with the aspect-ratio hint beside them:
///
/// ```swift
/// let cards = RectangleDetector(options: DetectorOptions(accuracy: .high, maximumFeatureCount: 2),
///                               aspectRatio: 1.586)
/// ```
///
/// **Method** (details in Docs/RectangleDetection.md). A luma copy box-downscaled so its
/// longer side is at most 640 pixels (320 for `.low`) is smoothed (binomial, sigma about 1),
/// differentiated (Sobel), thinned by non-maximum suppression and thresholded with hysteresis
/// (Canny 1986), with thresholds relative to the noise level (4 and 2 times the median
/// gradient magnitude, at least 0.02 and 0.01 luma units per pixel). Quads are sought in two
/// kinds of shapes: connected groups of edge pixels (bridging one-pixel gaps), and the regions
/// that edges enclose. Each shape's convex hull and outer boundary are simplified with
/// Douglas-Peucker; quads bounded by four of the longest simplified segments are snapped to
/// the edges and scored by their *edge support* (the fraction of each side lying within 1.5
/// pixels of an edge pixel whose gradient is perpendicular to the side; every side needs at
/// least 50%, each end quarter 35%, the mean 70%), their area, the calm of their interior
/// (a square full of edges, such as a QR code, ranks below a plain card) and, when given,
/// their closeness to `aspectRatio`. The best quads are then refined on the full-resolution
/// image: along each side, the strongest luma step across it is located to a fraction of a
/// pixel (centroid of the linear-light step), a line is fitted to those points (total least
/// squares, outliers dropped), and each corner is the intersection of its two sides' lines.
///
/// **Results.** Most prominent first; corners in top-left, top-right, bottom-right,
/// bottom-left order (clockwise on screen, starting from the corner with the smallest
/// x + y), in pixels with the origin at the top-left. Images smaller than 16 pixels on a
/// side, uniform images and images without a well-supported convex quad give `[]`. The
/// detector never traps on any input.
///
/// **Threads.** The edge stage runs on fixed bands of rows and the shapes are scored in
/// parallel (`Options.threadCount`); the result is the same, bit for bit, for any count.
/// `features(in:cancellation:progress:)` reports progress per pass and stops within a pass
/// when cancelled.
///
/// - Complexity: O(pixels) for the downscale (one read of the input), O(working pixels) for
///   the edge stage and region labelling, plus O(shapes x 210 x perimeter) for scoring; a few
///   working-size float planes of scratch. About 9 ms for a 1920x1080 frame on one core here.
public struct RectangleDetector: Detector {
    /// Speed against precision, as `CIDetectorAccuracy`: `.low` works on a copy at most 320
    /// pixels on its longer side, `.high` on one at most 640 pixels. The accuracy every
    /// detector takes (this was an enum of its own with the same cases and raw values).
    public typealias Accuracy = DetectorAccuracy

    /// What to look for.
    public struct Options: Sendable, Hashable {
        /// Speed against precision: `.low` searches a copy at most 320 pixels on its longer side,
        /// `.high` (the default) one at most 640.
        public var accuracy: Accuracy
        /// The shortest side a quad may have, as a fraction of the image's smaller side
        /// (0...1; `CIDetectorMinFeatureSize`).
        public var minimumSize: Double
        /// How many quads to return at most (`CIDetectorMaxFeatureCount`).
        public var maximumFeatureCount: Int
        /// The expected width / height of the rectangle, if known (`CIDetectorAspectRatio`);
        /// a hint that ranks quads closer to it higher (either orientation), not a filter.
        public var aspectRatio: Double?
        /// How far from `aspectRatio` a quad may be and still rank as a match: 0.5 accepts
        /// ratios within a factor 1.5 of the hint.
        public var aspectRatioTolerance: Double
        /// How many threads the edge stage and the scoring may use (at least 1; nil: one per
        /// active processor, as `RenderContext`). The result never depends on it.
        public var threadCount: Int?

        /// Options with the given settings; the defaults keep the single most prominent quad with
        /// sides of at least 0.2 of the image's shorter side, at high accuracy, with no aspect-ratio
        /// hint, on one thread per active processor.
        public init(
            accuracy: Accuracy = .high, minimumSize: Double = 0.2, maximumFeatureCount: Int = 1,
            aspectRatio: Double? = nil, aspectRatioTolerance: Double = 0.5, threadCount: Int? = nil
        ) {
            self.accuracy = accuracy
            self.minimumSize = minimumSize
            self.maximumFeatureCount = maximumFeatureCount
            self.aspectRatio = aspectRatio
            self.aspectRatioTolerance = aspectRatioTolerance
            self.threadCount = threadCount
        }

        /// Options from the settings every detector shares (see `detectorOptions`) and the
        /// rectangle detector's own.
        ///
        /// `DetectorOptions()` looks for quads of any size and reports all it finds, where
        /// `Options()` keeps only the most prominent one with sides of at least 0.2 of the
        /// image's shorter side.
        public init(
            _ shared: DetectorOptions, aspectRatio: Double? = nil, aspectRatioTolerance: Double = 0.5,
            threadCount: Int? = nil
        ) {
            self.init(aspectRatio: aspectRatio, aspectRatioTolerance: aspectRatioTolerance, threadCount: threadCount)
            detectorOptions = shared
        }

        /// These options as the settings every detector shares: `accuracy`,
        /// `minimumFeatureSize` (`minimumSize`) and `maximumFeatureCount` (nil, no bound, for
        /// `Int.max`). `tryHarder` has no effect on rectangles: it reads false and setting it
        /// changes nothing.
        public var detectorOptions: DetectorOptions {
            get {
                DetectorOptions(
                    accuracy: accuracy, minimumFeatureSize: minimumSize,
                    maximumFeatureCount: maximumFeatureCount == .max ? nil : maximumFeatureCount)
            }
            set {
                accuracy = newValue.accuracy
                minimumSize = newValue.minimumFeatureSize
                maximumFeatureCount = newValue.maximumFeatureCount ?? .max
            }
        }
    }

    public var options: Options

    /// A detector with the given options (by default: the single most prominent quad).
    public init(options: Options = Options()) { self.options = options }

    /// A detector made as the QR code and face detectors are, from the settings every
    /// detector shares, with the rectangle detector's own beside them (see `Options`).
    ///
    /// ```swift
    /// let detector = RectangleDetector(options: DetectorOptions(accuracy: .low), aspectRatio: 1.414)  // A4
    /// ```
    ///
    /// Where both initializers fit, as for `RectangleDetector(options: .init(accuracy: .low))`
    /// written before this one existed, `init(options: Options)` is chosen (the attribute
    /// below), so such code keeps its meaning; naming `DetectorOptions` picks this one.
    @_disfavoredOverload
    public init(
        options: DetectorOptions, aspectRatio: Double? = nil, aspectRatioTolerance: Double = 0.5,
        threadCount: Int? = nil
    ) {
        self.options = Options(
            options, aspectRatio: aspectRatio, aspectRatioTolerance: aspectRatioTolerance,
            threadCount: threadCount)
    }

    /// `options.detectorOptions`: the settings every detector shares.
    public var detectorOptions: DetectorOptions { options.detectorOptions }

    /// The quads in `buffer`, most prominent first (at most `options.maximumFeatureCount`).
    public func features(in buffer: PixelBuffer) -> [RectangleFeature] {
        _features(in: buffer, control: nil)
    }

    /// `features(in:)`, watched and cancellable as a render is.
    ///
    /// ```swift
    /// let token = CancellationToken()
    /// let quads = try RectangleDetector().features(in: buffer, cancellation: token) { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - buffer: the image to search, in any pixel format.
    ///   - cancellation: cancels the detection from any thread; it then throws
    ///     `PixelFlowError.cancelled` within about one pass (the parallel passes stop taking
    ///     16-row bands or shapes as soon as it is cancelled) and returns no quads.
    ///   - progress: fractions of the work done, increasing, one step per pass (downscale,
    ///     smoothing, edges, components, regions, scoring, refinement), ending with exactly
    ///     one call with 1 on success. Calls never overlap but may come from any thread.
    public func features(
        in buffer: PixelBuffer, cancellation: CancellationToken? = nil,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> [RectangleFeature] {
        try RenderControl.run(cancellation: cancellation, progress: progress, units: 7) { control in
            _features(in: buffer, control: control)
        }
    }

    /// The detection, advancing `control` by one unit per pass (7) and stopping after the
    /// pass during which it was cancelled, with partial results the caller must drop. The
    /// parallel passes stop early through `Scheduler.run` (the control is the thread's).
    func _features(in buffer: PixelBuffer, control: RenderControl?) -> [RectangleFeature] {
        func stop() -> Bool {
            control?.advanceUnlessCancelled(1)
            return control?.isCancelled == true
        }
        let W = buffer.width, H = buffer.height
        guard options.maximumFeatureCount > 0, Swift.min(W, H) >= 16 else { return [] }
        let threads = Swift.max(1, options.threadCount ?? RenderContext.activeProcessorCount)
        let target = options.accuracy == .high ? 640 : 320
        let f = Swift.max(1, (Swift.max(W, H) + target - 1) / target)
        let w = W / f, h = H / f
        guard w >= 16, h >= 16 else { return [] }
        let luma = Self._downscaledLuma(buffer, factor: f, threads: threads)
        if stop() { return [] }
        let gray = Self._smoothed(luma, threads: threads)
        if stop() { return [] }
        let edges = Self._edges(gray, floor: 0.02, threads: threads)
        if stop() { return [] }
        guard edges.edgeCount > 0 else { return [] }
        let minSize = options.minimumSize.isFinite ? Swift.min(Swift.max(options.minimumSize, 0), 1) : 0.2
        let minimumSide = Swift.max(6, minSize * Double(Swift.min(w, h)) * 0.95)
        // Shapes to look for quads in: groups of connected edge pixels, and the regions that
        // edges enclose.
        let components = Array(Self._components(edges, minimumSide: minimumSide).prefix(24))
        if stop() { return [] }
        let comps = components + Self._regions(edges, minimumSide: minimumSide, limit: 16)
        if stop() { return [] }
        let candidates = _rankedCandidates(comps, edges: edges, minimumSide: minimumSide, threads: threads)
        if stop() { return [] }
        // Keep the best candidates that are not near-duplicates of a better one.
        let diag = (Double(w * w + h * h)).squareRoot()
        var chosen: [_QuadCandidate] = []
        for c in candidates {
            if chosen.count >= options.maximumFeatureCount { break }
            let dup = chosen.contains { k in
                (0..<4).allSatisfy { i in (0..<4).contains { j in Self._distance(c.corners[i], k.corners[j]) < 0.06 * diag } }
            }
            if !dup { chosen.append(c) }
        }
        let scale = Double(f)
        return chosen.map { c in
            if control?.isCancelled == true { return Self._feature(c.corners, confidence: 0) }  // dropped by the caller
            let coarse = c.corners.map { Point(x: ($0.x + 0.5) * scale, y: ($0.y + 0.5) * scale) }
            let refined = Self._refined(coarse, in: buffer, searchRadius: 1.5 * scale + 2)
            return Self._feature(refined, confidence: c.support)
        }
    }

    /// The candidates of every component, best first. Components are scored in parallel, each
    /// into its own slot; the slots are joined in component order and sorted by score, ties
    /// broken by that order, so the ranking does not depend on the thread count.
    func _rankedCandidates(_ comps: [[Point]], edges: _EdgeMap, minimumSide: Double, threads: Int) -> [_QuadCandidate] {
        let slots = UnsafeMutablePointer<[_QuadCandidate]>.allocate(capacity: comps.count)
        slots.initialize(repeating: [], count: comps.count)
        defer { slots.deinitialize(count: comps.count); slots.deallocate() }
        let shared = _SharedPlane(base: slots)
        Scheduler.run(count: comps.count, threads: threads) { i, _ in
            shared.base[i] = _candidates(comps[i], edges: edges, minimumSide: minimumSide)
        }
        var all: [(candidate: _QuadCandidate, order: Int)] = []
        for i in 0..<comps.count { for c in slots[i] { all.append((c, all.count)) } }
        all.sort { $0.candidate.score != $1.candidate.score ? $0.candidate.score > $1.candidate.score : $0.order < $1.order }
        return all.map(\.candidate)
    }

    /// The quads in `image`, rendered over its extent with `context`; corners are in the
    /// image's coordinates (the extent's origin added back).
    ///
    /// - Throws: `PixelFlowError.invalidExtent` for an infinite or empty extent, and what
    ///   rendering throws.
    ///
    /// `cancellation` covers the render and the detection; `progress` reports the detection's.
    public func features(
        in image: Image, context: RenderContext = RenderContext(),
        cancellation: CancellationToken? = nil,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> [RectangleFeature] {
        let e = image.extent
        guard !e.isInfinite, !e.isEmpty else {
            throw PixelFlowError.invalidExtent("rectangle detection needs a finite, non-empty extent; crop the image first")
        }
        let r = IntRect(covering: e).rect
        let buffer = try context.makeBuffer(image, rect: r, format: .rgba8, cancellation: cancellation)
        return try features(in: buffer, cancellation: cancellation, progress: progress).map { f in
            let c = f.corners.map { Point(x: $0.x + r.x, y: $0.y + r.y) }
            return RectangleFeature(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3], confidence: f.confidence)
        }
    }

    /// A feature from clockwise-on-screen corners, starting at the corner with the smallest x + y.
    static func _feature(_ q: [Point], confidence: Double) -> RectangleFeature {
        var c = _Flatten.oriented(q)
        var start = 0
        for i in 1..<4 where c[i].x + c[i].y < c[start].x + c[start].y { start = i }
        c = Array(c[start...] + c[..<start])
        return RectangleFeature(topLeft: c[0], topRight: c[1], bottomRight: c[2], bottomLeft: c[3], confidence: confidence)
    }
}
