/// Something that finds features of one kind in images: `QRCodeDetector`, `FaceDetector`,
/// `RectangleDetector` (Core Image's `CIDetector` types). Every detector reports in image
/// coordinates, origin at the top-left, y down, in pixels (pixel (i, j) covers
/// [i, i + 1) x [j, j + 1)); `features(in:coordinates:)` with `.coreImage` reports with Core
/// Image's bottom-left origin instead, and `Point.coreImageCoordinates(imageHeight:)`
/// converts one point.
///
/// ```swift
/// let detector = QRCodeDetector(options: DetectorOptions(accuracy: .high))
/// for code in try detector.features(in: buffer) { print(code.message ?? "?", code.corners) }
/// ```
///
/// Generic code reads the settings every detector shares from `detectorOptions`:
///
/// ```swift
/// func count<D: Detector>(_ detector: D, in buffer: PixelBuffer) throws -> Int {
///     print(detector.detectorOptions.accuracy)
///     return try detector.features(in: buffer).count
/// }
/// ```
public protocol Detector: Sendable {
    /// What the detector reports.
    associatedtype Feature: Sendable
    /// The type of `options`: `DetectorOptions`, or a type of the detector's own that adds
    /// settings of its kind (`RectangleDetector.Options`, with the aspect-ratio hint).
    associatedtype Options: Sendable = DetectorOptions
    /// The detector's settings.
    var options: Options { get }
    /// The settings every detector shares (accuracy, minimum feature size, maximum count),
    /// as `options` sets them; `options` itself when it is a `DetectorOptions`.
    var detectorOptions: DetectorOptions { get }
    /// The features found in `buffer`, most prominent (or first found) first; empty when
    /// there are none. Never traps on any buffer, including empty ones.
    func features(in buffer: PixelBuffer) throws -> [Feature]
    /// `features(in:)`, watched and cancellable as a render is (`RenderContext.makeBuffer`).
    ///
    /// - Parameters:
    ///   - buffer: the image to search, in any pixel format.
    ///   - cancellation: cancels the detection from another thread (or from `progress`); it
    ///     then throws `PixelFlowError.cancelled` within about one unit of work (each
    ///     detector says what its unit is) and returns no features, not even partial ones.
    ///   - progress: called with fractions of the work done, increasing, ending with exactly
    ///     one call with 1 when the detection succeeds (never when it is cancelled); calls
    ///     never overlap but may come from any thread.
    func features(
        in buffer: PixelBuffer, cancellation: CancellationToken?,
        progress: (@Sendable (Double) -> Void)?
    ) throws -> [Feature]
}

extension Detector where Options == DetectorOptions {
    /// `options`.
    public var detectorOptions: DetectorOptions { options }
}

extension Detector {
    /// The features found in `image`, rendered over its (finite) extent with `context`.
    /// Coordinates are relative to the extent's top-left corner.
    ///
    /// - Throws: what rendering throws (`PixelFlowError.invalidExtent` for an infinite extent).
    ///
    /// `cancellation` covers the render and the detection; `progress` reports the detection's.
    public func features(
        in image: Image, context: RenderContext = RenderContext(),
        cancellation: CancellationToken? = nil,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> [Feature] {
        let buffer = try context.makeBuffer(image, format: .rgba8, cancellation: cancellation)
        if cancellation == nil && progress == nil { return try features(in: buffer) }
        return try features(in: buffer, cancellation: cancellation, progress: progress)
    }

    /// A default for detectors without finer-grained checks: cancellation is checked before
    /// and after `features(in:)`, and progress jumps from 0 to 1.
    public func features(
        in buffer: PixelBuffer, cancellation: CancellationToken?,
        progress: (@Sendable (Double) -> Void)?
    ) throws -> [Feature] {
        try RenderControl.run(cancellation: cancellation, progress: progress, units: 0) { _ in try features(in: buffer) }
    }
}

/// How hard a detector looks: Core Image's `CIDetectorAccuracyLow` and `...High`.
public enum DetectorAccuracy: String, Sendable, CaseIterable {
    /// Faster: scans fewer rows and gives up sooner.
    case low
    /// Slower: scans every row and tries more candidates.
    case high
}

/// Settings shared by all detectors (Core Image's detector options).
public struct DetectorOptions: Sendable, Hashable {
    /// Speed against thoroughness.
    public var accuracy: DetectorAccuracy
    /// The smallest feature to look for, as a fraction (0...1) of the image's shorter side,
    /// like `CIDetectorMinFeatureSize`. 0 looks for features of any size the detector can find.
    public var minimumFeatureSize: Double
    /// Try the slower fallbacks as well (for QR codes: the inverted image, light modules on a
    /// dark background, even when dark-on-light codes were found).
    public var tryHarder: Bool
    /// An upper bound on the number of features to report (nil: no bound).
    public var maximumFeatureCount: Int?

    /// Options with the given settings; the defaults are high accuracy, features of any size,
    /// no slow fallbacks and no bound on the count.
    public init(
        accuracy: DetectorAccuracy = .high, minimumFeatureSize: Double = 0, tryHarder: Bool = false,
        maximumFeatureCount: Int? = nil
    ) {
        self.accuracy = accuracy
        self.minimumFeatureSize = minimumFeatureSize
        self.tryHarder = tryHarder
        self.maximumFeatureCount = maximumFeatureCount
    }
}

extension Point {
    /// This point in Core Image's coordinates, origin at the bottom-left, y up, for an image
    /// `imageHeight` pixels high: `(x, imageHeight - y)`. Detectors report top-left-origin
    /// coordinates (as image files, UIKit and OpenCV); apply this to port code written
    /// against `CIQRCodeFeature` and friends. The conversion is its own inverse.
    ///
    /// ```swift
    /// let ci = code.topLeft.coreImageCoordinates(imageHeight: Double(buffer.height))
    /// ```
    public func coreImageCoordinates(imageHeight: Double) -> Point {
        Point(x: x, y: imageHeight - y)
    }
}
