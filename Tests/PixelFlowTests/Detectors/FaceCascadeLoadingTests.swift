import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Reading cascade XML: the installed files load; malformed, truncated and hostile files
/// throw a `PixelFlowError` that says what is wrong, and never trap.
final class FaceCascadeLoadingTests: XCTestCase {
    /// A tiny valid Haar cascade (one stage, one stump, one upright and one tilted feature).
    static let tinyHaar = """
        <?xml version="1.0"?>
        <opencv_storage>
        <cascade type_id="opencv-cascade-classifier"><stageType>BOOST</stageType>
          <featureType>HAAR</featureType>
          <height>8</height>
          <width>8</width>
          <stageParams><maxWeakCount>2</maxWeakCount></stageParams>
          <featureParams><maxCatCount>0</maxCatCount></featureParams>
          <stageNum>1</stageNum>
          <stages>
            <_>
              <maxWeakCount>2</maxWeakCount>
              <stageThreshold>-1.5</stageThreshold>
              <weakClassifiers>
                <_><internalNodes>0 -1 0 1.0e-02</internalNodes><leafValues>-1. 1.</leafValues></_>
                <_><internalNodes>0 -1 1 -2.0e-02</internalNodes><leafValues>1. -1.</leafValues></_>
              </weakClassifiers></_></stages>
          <features>
            <_><rects><_>0 0 8 4 -1.</_><_>0 4 8 4 1.</_></rects><tilted>0</tilted></_>
            <_><rects><_>4 0 3 3 -1.</_><_>4 1 2 2 2.</_></rects><tilted>1</tilted></_>
          </features></cascade>
        </opencv_storage>
        """

    func load(_ text: String) throws -> CascadeClassifier { try CascadeClassifier(xmlData: Data(text.utf8), source: "test.xml") }

    func assertDecodingError(_ text: String, mentions: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try load(text), file: file, line: line) { error in
            guard let e = error as? PixelFlowError else {
                return XCTFail("not a PixelFlowError: \(error)", file: file, line: line)
            }
            XCTAssertTrue("\(e)".contains(mentions), "\(e) should mention '\(mentions)'", file: file, line: line)
            XCTAssertTrue("\(e)".contains("test.xml"), "\(e) should name the file", file: file, line: line)
        }
    }

    func testEveryInstalledCascadeInTheNewFormatLoads() throws {
        let dirs = ["/usr/share/opencv4/haarcascades", "/usr/share/opencv4/lbpcascades"]
        var loaded = 0
        for dir in dirs {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else {
                XCTFail("\(dir) is missing: run scripts/setup.sh (installs opencv-data)"); continue
            }
            for name in names.sorted() where name.hasSuffix(".xml") {
                do {
                    let c = try CascadeClassifier(contentsOf: URL(fileURLWithPath: dir + "/" + name))
                    XCTAssertGreaterThan(c.stageCount, 0, name)
                    loaded += 1
                } catch PixelFlowError.unsupportedFormat(_, let reason) {
                    // The one old-format file opencv-data still ships.
                    XCTAssertEqual(name, "haarcascade_licence_plate_rus_16stages.xml", reason)
                }
            }
        }
        XCTAssertGreaterThanOrEqual(loaded, 20)
        let eyeglasses = try CascadeClassifier.installed("haarcascade_eye_tree_eyeglasses.xml")
        XCTAssertTrue(eyeglasses.hasTiltedFeatures)
        XCTAssertFalse(eyeglasses.isStumpBased)
        let lbp = try CascadeClassifier.installed("lbpcascade_frontalface_improved.xml")
        XCTAssertEqual(lbp.featureKind, .lbp)
        XCTAssertEqual(lbp.windowWidth, 45)
    }

    func testTinyCascadeLoads() throws {
        let c = try load(Self.tinyHaar)
        XCTAssertEqual(c.windowWidth, 8)
        XCTAssertEqual(c.stageCount, 1)
        XCTAssertTrue(c.hasTiltedFeatures)
        // And runs on an image without trapping.
        let b = TestImages.random(width: 40, height: 30, format: .rgba8, seed: 9, opaque: true)
        _ = c.detectObjects(in: b, options: .init(minimumNeighbors: 0))
    }

    func testMalformedFilesThrowClearErrors() {
        let t = Self.tinyHaar
        assertDecodingError("", mentions: "no root element")
        assertDecodingError("hello", mentions: "text outside the root")
        assertDecodingError("<a><b></a>", mentions: "does not match")
        assertDecodingError("<svg></svg>", mentions: "not <opencv_storage>")
        assertDecodingError("<opencv_storage></opencv_storage>", mentions: "empty")
        assertDecodingError(
            t.replacingOccurrences(of: "<featureType>HAAR</featureType>", with: ""), mentions: "missing <featureType>")
        assertDecodingError(t.replacingOccurrences(of: "0 -1 1 -2.0e-02", with: "0 -1 7 -2.0e-02"), mentions: "uses feature 7")
        assertDecodingError(t.replacingOccurrences(of: "0 4 8 4 1.", with: "0 5 8 4 1."), mentions: "outside the 8x8 window")
        assertDecodingError(t.replacingOccurrences(of: "4 0 3 3 -1.", with: "2 0 3 3 -1."), mentions: "outside the 8x8 window")
        assertDecodingError(
            t.replacingOccurrences(of: "<leafValues>-1. 1.</leafValues>", with: "<leafValues>-1.</leafValues>"),
            mentions: "1 leaves for 1 nodes")
        assertDecodingError(t.replacingOccurrences(of: "0 -1 0 1.0e-02", with: "1 -1 0 1.0e-02"), mentions: "links to 1")
        assertDecodingError(
            t.replacingOccurrences(of: "<stageThreshold>-1.5", with: "<stageThreshold>nan"), mentions: "not a finite number")
        assertDecodingError(
            t.replacingOccurrences(of: "<width>8</width>", with: "<width>100000</width>"), mentions: "window size")
        assertDecodingError(
            t.replacingOccurrences(of: "<stageNum>1</stageNum>", with: "<stageNum>2</stageNum>"), mentions: "truncated")
        XCTAssertThrowsError(try load(t.replacingOccurrences(of: "<featureType>HAAR", with: "<featureType>HOG"))) { error in
            guard case PixelFlowError.unsupportedFormat = error else { return XCTFail("\(error)") }
        }
        let old =
            "<opencv_storage><haarcascade_x type_id=\"opencv-haar-classifier\"><size>20 20</size><stages><_/></stages></haarcascade_x></opencv_storage>"
        XCTAssertThrowsError(try load(old)) { error in
            guard case let PixelFlowError.unsupportedFormat(_, reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("haartraining"), reason)
        }
        // Deep nesting is refused, not recursed into.
        assertDecodingError(String(repeating: "<a>", count: 10_000), mentions: "nested deeper")
    }

    func testTruncatedInstalledCascadeThrowsAtEveryCut() throws {
        let url = try CascadeClassifier.locate("haarcascade_frontalface_alt2.xml")
        let data = try Data(contentsOf: url)
        for fraction in [0.0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.9999] {
            let cut = data.prefix(Int(Double(data.count) * fraction))
            XCTAssertThrowsError(try CascadeClassifier(xmlData: cut, source: "cut.xml"), "cut at \(fraction)") { error in
                guard case let PixelFlowError.decodingFailed(file, reason) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(file, "cut.xml")
                XCTAssertFalse(reason.isEmpty)
            }
        }
    }

    /// Random byte flips, insertions and deletions in the tiny cascade: each either throws or
    /// loads a cascade that then scans an image without trapping.
    func testMutatedFilesNeverTrap() {
        var rng = SeededRandom(seed: 2024)
        let base = Array(Self.tinyHaar.utf8)
        let alphabet = Array("<>/ _-.0123456789e\"=abcdefghijklmnopqrstuvwxyz&;!?[]".utf8)
        let image = TestImages.random(width: 30, height: 20, format: .rgba8, seed: 5, opaque: true)
        var loaded = 0
        for _ in 0..<400 {
            var bytes = base
            for _ in 0..<(1 + Int(rng.next() % 4)) {
                let i = Int(rng.next() % UInt64(bytes.count))
                switch rng.next() % 3 {
                case 0: bytes[i] = alphabet[Int(rng.next() % UInt64(alphabet.count))]
                case 1: bytes.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: i)
                default: bytes.remove(at: i)
                }
            }
            if let c = try? CascadeClassifier(xmlData: Data(bytes)) {
                loaded += 1
                _ = c.detectObjects(in: image, options: .init(minimumNeighbors: 0))
            }
        }
        XCTAssertGreaterThan(loaded, 0, "some mutations (in comments or numbers) still load")
    }
}

/// The pixel kernels against plain references.
final class FaceKernelTests: XCTestCase {
    func randomPlane(_ w: Int, _ h: Int, seed: UInt64) -> [UInt8] {
        var rng = SeededRandom(seed: seed)
        return (0..<(w * h)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    /// SIMD integral (sum and squared sum) against the one-pixel-at-a-time definition; tolerance 0.
    func testIntegralMatchesScalarReference() {
        for (w, h) in [(1, 1), (7, 3), (8, 8), (33, 17), (100, 64), (255, 5)] {
            let src = randomPlane(w, h, seed: UInt64(w * 1000 + h))
            let stride = w + 1
            var sum = [Int32](repeating: -7, count: stride * (h + 1))
            var sq = sum
            src.withUnsafeBufferPointer { s in
                sum.withUnsafeMutableBufferPointer { p in
                    sq.withUnsafeMutableBufferPointer { q in
                        _CascadeKernels.integral(
                            s.baseAddress!, width: w, height: h, sum: p.baseAddress!, squares: q.baseAddress!, stride: stride)
                    }
                }
            }
            let reference = _CascadeKernels.integralScalar(src, width: w, height: h)
            XCTAssertEqual(sum, reference.sum, "\(w)x\(h) sum")
            XCTAssertEqual(sq, reference.squares, "\(w)x\(h) squares")
        }
        // The parallel version (row bands, then column blocks) on planes big enough to split,
        // with a wider row stride than the image.
        for (w, h) in [(64, 64), (300, 97), (513, 200)] {
            let src = randomPlane(w, h, seed: UInt64(w + h))
            let stride = w + 9
            var sum = [Int32](repeating: -7, count: stride * (h + 1)), sq = sum
            src.withUnsafeBufferPointer { s in
                sum.withUnsafeMutableBufferPointer { p in
                    sq.withUnsafeMutableBufferPointer { q in
                        _CascadeKernels.integralParallel(
                            s.baseAddress!, width: w, height: h, sum: p.baseAddress!,
                            squares: q.baseAddress!, stride: stride, threads: 3)
                    }
                }
            }
            let reference = _CascadeKernels.integralScalar(src, width: w, height: h)
            for y in 0...h {
                XCTAssertEqual(
                    Array(sum[(y * stride)..<(y * stride + w + 1)]), Array(reference.sum[(y * (w + 1))..<((y + 1) * (w + 1))]),
                    "\(w)x\(h) row \(y)")
                XCTAssertEqual(
                    Array(sq[(y * stride)..<(y * stride + w + 1)]), Array(reference.squares[(y * (w + 1))..<((y + 1) * (w + 1))]),
                    "\(w)x\(h) squares row \(y)")
            }
        }
    }

    /// The tilted integral's diagonal recurrences against its definition (OpenCV's documented
    /// formula, checked against cv2.integral3 when the kernel was written); tolerance 0.
    func testTiltedIntegralMatchesDefinition() {
        for (w, h) in [(1, 1), (5, 7), (7, 5), (1, 6), (6, 1), (12, 12), (20, 9)] {
            let src = randomPlane(w, h, seed: UInt64(w * 31 + h))
            var tilted = [Int32](repeating: 99, count: (w + 1) * (h + 1))
            src.withUnsafeBufferPointer { s in
                tilted.withUnsafeMutableBufferPointer { t in
                    _CascadeKernels.tiltedIntegral(s.baseAddress!, width: w, height: h, tilted: t.baseAddress!, stride: w + 1)
                }
            }
            XCTAssertEqual(tilted, _CascadeKernels.tiltedIntegralReference(src, width: w, height: h), "\(w)x\(h)")
        }
    }

    func testResizeIsIdentityAtOneAndKeepsConstants() {
        let src = randomPlane(37, 23, seed: 4)
        var out = [UInt8](repeating: 0, count: 37 * 23)
        src.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                _CascadeKernels.resizeLinearExact(
                    s.baseAddress!, width: 37, height: 23, into: d.baseAddress!, width: 37, height: 23)
            }
        }
        XCTAssertEqual(out, src)
        // Banded (threaded) resizing gives the same bytes as one band.
        let big = randomPlane(640, 480, seed: 11)
        var one = [UInt8](repeating: 0, count: 407 * 305), many = one
        big.withUnsafeBufferPointer { s in
            one.withUnsafeMutableBufferPointer { d in
                _CascadeKernels.resizeLinearExact(
                    s.baseAddress!, width: 640, height: 480, into: d.baseAddress!, width: 407, height: 305)
            }
            many.withUnsafeMutableBufferPointer { d in
                _CascadeKernels.resizeLinearExact(
                    s.baseAddress!, width: 640, height: 480, into: d.baseAddress!, width: 407, height: 305, threads: 4)
            }
        }
        XCTAssertEqual(one, many)
        let flat = [UInt8](repeating: 173, count: 50 * 40)
        var small = [UInt8](repeating: 0, count: 17 * 13)
        flat.withUnsafeBufferPointer { s in
            small.withUnsafeMutableBufferPointer { d in
                _CascadeKernels.resizeLinearExact(
                    s.baseAddress!, width: 50, height: 40, into: d.baseAddress!, width: 17, height: 13)
            }
        }
        XCTAssertEqual(Set(small), [173])
        // Taps: weights sum to 256 and indices stay in range, for down- and upscaling.
        for (s, d) in [(100, 37), (37, 100), (5, 5), (1, 9), (1920, 1745)] {
            let (index, weight) = _CascadeKernels.linearExactTaps(source: s, destination: d)
            XCTAssertTrue(index.allSatisfy { $0 >= 0 && Int($0) < s })
            XCTAssertTrue(weight.allSatisfy { $0 <= 256 })
        }
    }

    func testGrayConversionUsesOpenCVWeights() {
        XCTAssertEqual(_CascadeKernels.grayFromRGB(255, 255, 255), 255)
        XCTAssertEqual(_CascadeKernels.grayFromRGB(0, 0, 0), 0)
        // cv2.cvtColor of single BGR pixels: (B, G, R) = (0, 0, 255) -> 76, (0, 255, 0) -> 150, (255, 0, 0) -> 29.
        XCTAssertEqual(_CascadeKernels.grayFromRGB(255, 0, 0), 76)
        XCTAssertEqual(_CascadeKernels.grayFromRGB(0, 255, 0), 150)
        XCTAssertEqual(_CascadeKernels.grayFromRGB(0, 0, 255), 29)
        XCTAssertEqual(_CascadeKernels.byteFromUnit(.nan), 0)
        XCTAssertEqual(_CascadeKernels.byteFromUnit(.infinity), 255)
        XCTAssertEqual(_CascadeKernels.byteFromUnit(0.5), 128)
    }

    /// groupRectangles' rules on hand-made windows.
    func testGroupingFollowsOpenCVRules() {
        func r(_ x: Int, _ y: Int, _ s: Int) -> _IntRect { _IntRect(x: x, y: y, width: s, height: s) }
        // Four similar windows -> one mean; a lone window is dropped at threshold 1.
        let a = [r(10, 10, 40), r(12, 11, 40), r(11, 9, 42), r(9, 10, 40), r(200, 200, 30)]
        XCTAssertEqual(_RectangleGrouping.group(a, threshold: 1, eps: 0.2), [r(10, 10, 40)])
        XCTAssertEqual(_RectangleGrouping.groupCounting(a, threshold: 1, eps: 0.2).map(\.count), [4])
        // Threshold 0 returns the input unchanged.
        XCTAssertEqual(_RectangleGrouping.group(a, threshold: 0, eps: 0.2), a)
        // A small group inside a bigger, better-supported one is dropped.
        let big = Array(repeating: r(100, 100, 80), count: 6)
        let small = Array(repeating: r(120, 120, 30), count: 2)
        XCTAssertEqual(_RectangleGrouping.group(big + small, threshold: 1, eps: 0.2), [r(100, 100, 80)])
        // Means round half to even in single precision: (10 + 11) / 2 = 10.5 -> 10.
        XCTAssertEqual(_RectangleGrouping.group([r(10, 10, 40), r(11, 11, 40)], threshold: 1, eps: 0.2), [r(10, 10, 40)])
    }
}
