import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The three detectors through the `Detector` protocol, the rectangle detector made from the
/// shared `DetectorOptions`, and Core Image's feature spellings.
final class DetectorProtocolTests: XCTestCase {
    /// Features through the protocol only, as generic ported code gets them.
    func detect<D: Detector>(_ detector: D, _ buffer: PixelBuffer) throws -> [D.Feature] {
        try detector.features(in: buffer)
    }

    func sharedOptions<D: Detector>(_ detector: D) -> DetectorOptions { detector.detectorOptions }

    /// Two cards, wide and tall, on a plain background.
    func twoCards() -> (PixelBuffer, wide: [Point]) { RectangleScenes.twoCards() }

    func testRectangleDetectorIsADetector() throws {
        let (buffer, _) = twoCards()
        let detector = RectangleDetector(options: DetectorOptions(accuracy: .high, maximumFeatureCount: 2))
        let generic = try detect(detector, buffer)
        XCTAssertEqual(generic.count, 2)
        XCTAssertEqual(generic, detector.features(in: buffer))
        XCTAssertEqual(sharedOptions(detector), DetectorOptions(accuracy: .high, maximumFeatureCount: 2))
        // The protocol's cancellable form, through the protocol.
        func cancellable<D: Detector>(_ d: D) throws -> [D.Feature] {
            try d.features(in: buffer, cancellation: CancellationToken(), progress: nil)
        }
        XCTAssertEqual(try cancellable(detector), generic)
    }

    func testSharedOptionsAndTheAspectRatioHintMakeTheSameDetectorAsItsOwnOptions() throws {
        let shared = RectangleDetector(
            options: DetectorOptions(accuracy: .low, minimumFeatureSize: 0.25, maximumFeatureCount: 2),
            aspectRatio: 1.9, aspectRatioTolerance: 0.2, threadCount: 2)
        let own = RectangleDetector(
            options: .init(
                accuracy: .low, minimumSize: 0.25, maximumFeatureCount: 2, aspectRatio: 1.9,
                aspectRatioTolerance: 0.2, threadCount: 2))
        XCTAssertEqual(shared.options, own.options)
        let (buffer, wide) = twoCards()
        let found = shared.features(in: buffer)
        XCTAssertEqual(found, own.features(in: buffer))
        XCTAssertEqual(found.count, 2)
        // The hint is kept: the wide card ranks first.
        let first = try XCTUnwrap(found.first)
        XCTAssertLessThan(zip(first.corners, wide).map { RectangleDetector._distance($0, $1) }.max()!, 8)
    }

    func testDetectorOptionsMapping() {
        var options = RectangleDetector.Options()
        XCTAssertEqual(options.detectorOptions, DetectorOptions(accuracy: .high, minimumFeatureSize: 0.2, maximumFeatureCount: 1))
        // No bound is Int.max, and back.
        options.detectorOptions = DetectorOptions(accuracy: .low, minimumFeatureSize: 0.1, tryHarder: true)
        XCTAssertEqual(options.maximumFeatureCount, .max)
        XCTAssertEqual(options.minimumSize, 0.1)
        XCTAssertEqual(options.accuracy, .low)
        XCTAssertEqual(options.detectorOptions, DetectorOptions(accuracy: .low, minimumFeatureSize: 0.1), "tryHarder reads false")
        // The rectangle detector's own settings are untouched by the shared ones.
        options.aspectRatio = 1.5
        options.threadCount = 3
        options.detectorOptions = DetectorOptions()
        XCTAssertEqual([options.aspectRatio, options.aspectRatioTolerance], [1.5, 0.5])
        XCTAssertEqual(options.threadCount, 3)
        // A detector from DetectorOptions() looks for every quad of any size.
        let all = RectangleDetector(options: DetectorOptions())
        XCTAssertEqual(all.options.maximumFeatureCount, .max)
        XCTAssertEqual(all.options.minimumSize, 0)
        XCTAssertNil(all.options.aspectRatio)
        XCTAssertEqual(all.detectorOptions, DetectorOptions())
    }

    /// The spellings that worked before the conformance still mean the rectangle detector's
    /// own options (one quad, 0.2 of the shorter side by default).
    func testExistingSpellingsKeepTheirMeaning() {
        let spellings = [
            RectangleDetector(), RectangleDetector(options: .init()), RectangleDetector(options: .init(accuracy: .low)),
            RectangleDetector(options: .init(aspectRatio: 1.586)), RectangleDetector(options: RectangleDetector.Options()),
        ]
        for (i, d) in spellings.enumerated() {
            XCTAssertEqual(d.options.maximumFeatureCount, 1, "\(i)")
            XCTAssertEqual(d.options.minimumSize, 0.2, "\(i)")
        }
        XCTAssertEqual(spellings[2].options.accuracy, RectangleDetector.Accuracy.low)
        XCTAssertEqual(RectangleDetector.Accuracy(rawValue: "high"), .high)
        XCTAssertEqual(RectangleDetector.Accuracy.allCases, [.low, .high])
        // Arguments only DetectorOptions takes pick the shared options.
        XCTAssertEqual(RectangleDetector(options: .init(minimumFeatureSize: 0.3)).options.maximumFeatureCount, .max)
        var d = RectangleDetector()
        d.options.aspectRatio = 2
        XCTAssertEqual(d.options.aspectRatio, 2)
    }

    func testQRCodeDetectorThroughTheProtocolAndMessageString() throws {
        let scene = try QRCodeDetectorTests.scene("PixelFlow ports Core Image", scale: 3)
        let detector = QRCodeDetector(options: DetectorOptions(accuracy: .high))
        let codes = try detect(detector, scene.buffer)
        XCTAssertEqual(codes.count, 1)
        XCTAssertEqual(codes.first?.messageString, "PixelFlow ports Core Image")
        XCTAssertEqual(codes.first?.messageString, codes.first?.message)
        XCTAssertEqual(sharedOptions(detector), detector.options)
    }

    func testFaceDetectorSharedOptions() throws {
        let options = DetectorOptions(accuracy: .low, minimumFeatureSize: 0.1)
        guard let detector = try? FaceDetector(options: options) else {
            throw XCTSkip("no face cascade installed (scripts/setup.sh installs opencv-data)")
        }
        XCTAssertEqual(sharedOptions(detector), options)
    }
}
