import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// A QR code rendered into a scene, with where its corners must be found.
struct QRScene {
    var buffer: PixelBuffer
    /// Expected corners, top-left, top-right, bottom-right, bottom-left of the symbol.
    var corners: [Point]
    var moduleSize: Double
    var message: String
}

/// Deterministic pseudo-random numbers for the test scenes (`SeededRandom`'s SplitMix64).
struct QRTestRandom {
    var source: SeededRandom
    init(seed: UInt64) { source = SeededRandom(seed: seed) }
    mutating func next() -> UInt64 { source.next() }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}

/// The generator -> image -> detector round trips: versions, levels, rotations, perspective,
/// noise, blur, uneven light, inversion, several codes, damage, false positives, segno-made
/// image fixtures. Small scenes keep debug runs fast; PIXELFLOW_SLOW_TESTS=1 adds a sweep.
final class QRCodeDetectorTests: XCTestCase {
    static let slow = ProcessInfo.processInfo.environment["PIXELFLOW_SLOW_TESTS"] == "1"

    // MARK: Scene making

    /// Renders `message` as a symbol with `scale` pixels per module and a 4-module quiet zone,
    /// rotated by `angle` (radians) about its centre, on a white canvas, then optionally
    /// blurred, warped in perspective, lit unevenly, noised and inverted.
    static func scene(
        _ message: String, level: QRErrorCorrectionLevel = .medium, version: Int? = nil,
        mask: Int? = nil, scale: Int = 4, angle: Double = 0, canvas: Int? = nil, offset: Point = .zero,
        blur: Double? = nil, perspective: Double = 0, gradient: Bool = false,
        noise: Int = 0, inverted: Bool = false, seed: UInt64 = 1
    ) throws -> QRScene {
        let symbol = try QRCodeEncoder(correctionLevel: level, version: version.flatMap { QRVersion($0) }, mask: mask).encode(
            message)
        let n = symbol.matrix.size
        let code = try Image.qrCode(symbol, scale: scale, quietZone: 4)
        let side = Double((n + 8) * scale)
        let c = canvas ?? Int(side * 1.45) + 8
        let canvasRect = Rect(x: 0, y: 0, width: c, height: c)
        let t = AffineTransform(translationX: -side / 2, y: -side / 2)
            .concatenating(AffineTransform(rotationAngle: angle))
            .concatenating(AffineTransform(translationX: Double(c) / 2 + offset.x, y: Double(c) / 2 + offset.y))
        var image = try code.transformed(by: t).composited(over: try Image.constantColor(.white))
        if let blur { image = try image.gaussianBlurred(radius: blur) }
        image = image.cropped(to: canvasRect)
        let q = Double(4 * scale), e = Double((4 + n) * scale)
        var corners = [Point(x: q, y: q), Point(x: e, y: q), Point(x: e, y: e), Point(x: q, y: e)].map { t.apply(to: $0) }
        if perspective > 0 {
            let cd = Double(c), k = perspective * cd
            let square = [Point(x: 0, y: 0), Point(x: cd, y: 0), Point(x: cd, y: cd), Point(x: 0, y: cd)]
            let quad = [
                Point(x: k, y: 0.5 * k), Point(x: cd - 0.3 * k, y: k), Point(x: cd, y: cd - 0.2 * k), Point(x: 0.2 * k, y: cd),
            ]
            let forward = try XCTUnwrap(QRPerspectiveTransform(from: square, to: quad))
            let back = try XCTUnwrap(QRPerspectiveTransform(from: quad, to: square))
            image = image.warped(named: "test-perspective", extent: canvasRect, regionOfInterest: { _ in canvasRect }) { x, y in
                back.apply(x, y)
            }.composited(over: try Image.constantColor(.white)).cropped(to: canvasRect)
            corners = corners.map { forward.apply($0) }
        }
        var buffer = try RenderContext().makeBuffer(image, rect: canvasRect, format: .rgba8)
        var rng = QRTestRandom(seed: seed)
        if gradient || noise > 0 || inverted {
            let w = buffer.width, h = buffer.height, stride = buffer.bytesPerRow
            buffer.withUnsafeMutableBytes { raw in
                for y in 0..<h {
                    for x in 0..<w {
                        let o = y * stride + 4 * x
                        for ch in 0..<3 {
                            var v = Double(raw[o + ch])
                            if gradient { v *= 0.3 + 0.7 * Double(x + y) / Double(w + h) }
                            if noise > 0 { v += Double(rng.int(-noise...noise)) }
                            if inverted { v = 255 - v }
                            raw[o + ch] = UInt8(max(0, min(255, v.rounded())))
                        }
                    }
                }
            }
        }
        return QRScene(buffer: buffer, corners: corners, moduleSize: Double(scale), message: message)
    }

    /// Detects in `scene` and checks the message and the corners (within 1.5 modules).
    @discardableResult
    func assertFinds(
        _ scene: QRScene, options: DetectorOptions = DetectorOptions(), _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> QRCodeFeature? {
        let found = try QRCodeDetector(options: options).features(in: scene.buffer)
        guard let f = found.first(where: { $0.message == scene.message }) else {
            XCTFail("\(what): not found (\(found.count) other features)", file: file, line: line)
            return nil
        }
        for (got, want) in zip(f.corners, scene.corners) {
            let d = ((got.x - want.x) * (got.x - want.x) + (got.y - want.y) * (got.y - want.y)).squareRoot()
            XCTAssertLessThanOrEqual(d, 1.5 * scene.moduleSize, "\(what): corner \(got) vs \(want)", file: file, line: line)
        }
        return f
    }

    // MARK: Round trips

    func testVersionsAndLevels() throws {
        let cases: [(version: Int, scale: Int, level: QRErrorCorrectionLevel)] = [
            (1, 4, .low), (2, 3, .medium), (7, 3, .quartile), (10, 2, .high), (25, 2, .medium), (40, 2, .low),
        ]
        for c in cases {
            let s = try Self.scene(
                "PixelFlow v\(c.version) \(c.level.letter)", level: c.level, version: c.version,
                scale: c.scale, canvas: (17 + 4 * c.version + 8) * c.scale + 24)
            let f = try assertFinds(s, "version \(c.version) scale \(c.scale)")
            XCTAssertEqual(f?.version.number, c.version)
            XCTAssertEqual(f?.correctionLevel, c.level)
            XCTAssertEqual(f?.isMirrored, false)
        }
        // Scale 3 for the large versions.
        for v in [25, 40] where Self.slow {
            let s = try Self.scene("large \(v)", version: v, scale: 3, canvas: (25 + 4 * v) * 3 + 24)
            try assertFinds(s, "version \(v) scale 3")
        }
    }

    /// Generator -> pixels -> detector for every version and level, each turned by one of 0,
    /// 90, 180, 270 and 30 degrees in turn, with noise; 2 pixels a module from version 15 up,
    /// 3 below, so that the scenes stay small. The masks take turns (each appears 20 times);
    /// PIXELFLOW_SLOW_TESTS=1 makes it every version, level and mask (1280 symbols, about
    /// 4 CPU minutes in a debug build). Every mask of every version and level is also
    /// round-tripped through the decoder in QRCodeCodecTests.
    func testEveryVersionLevelAndMaskThroughPixels() throws {
        var rng = QRTestRandom(seed: 18004)
        var failures: [String] = []
        var total = 0
        for version in 1...40 {
            for level in QRErrorCorrectionLevel.allCases {
                for mask in 0..<8 where Self.slow || mask == (version + level.rawValue) % 8 {
                    let degrees = [0.0, 90, 180, 270, 30][(version + mask + level.rawValue) % 5]
                    let scale = version >= 15 ? 2 : 3
                    let side = (17 + 4 * version + 8) * scale
                    let canvas = degrees == 30 ? Int(Double(side) * 1.37) + 6 : side + 6
                    // Numeric, to fit version 1-H (17 digits): version, level, mask, then random digits.
                    let message = "\(version * 100 + level.rawValue * 10 + mask)\(rng.next() % 100_000)"
                    let s = try Self.scene(
                        message, level: level, version: version, mask: mask, scale: scale,
                        angle: degrees * .pi / 180, canvas: canvas, noise: 12, seed: rng.next())
                    total += 1
                    let found = try QRCodeDetector().features(in: s.buffer)
                    guard let f = found.first(where: { $0.message == message }) else {
                        failures.append("v\(version) \(level.letter) mask \(mask) \(degrees)°")
                        continue
                    }
                    XCTAssertEqual(f.version.number, version)
                    XCTAssertEqual(f.correctionLevel, level)
                    XCTAssertEqual(f.decoded.mask, mask)
                }
            }
        }
        XCTAssertEqual(total, Self.slow ? 1280 : 160)
        XCTAssertTrue(failures.isEmpty, "\(failures.count) of \(total) not read:\n" + failures.joined(separator: "\n"))
    }

    func testAllLevels() throws {
        for level in QRErrorCorrectionLevel.allCases {
            let s = try Self.scene("https://example.com/\(level.letter)", level: level, scale: 3)
            let f = try assertFinds(s, "level \(level.letter)")
            XCTAssertEqual(f?.correctionLevel, level)
        }
    }

    func testRotations() throws {
        for degrees in [0.0, 90, 180, 270, 30] {
            let s = try Self.scene("rotated \(degrees)", version: 3, scale: 4, angle: degrees * .pi / 180)
            try assertFinds(s, "rotation \(degrees)")
        }
    }

    func testPerspective() throws {
        let s = try Self.scene("perspective", version: 4, scale: 4, perspective: 0.12)
        try assertFinds(s, "perspective")
    }

    /// Version 1 has no alignment pattern: under perspective its grid comes from the finder
    /// patterns' outer edges, whose extensions meet at the bottom-right corner.
    func testVersionOneUnderPerspective() throws {
        for (k, p) in [0.1, 0.16].enumerated() {
            let s = try Self.scene("v1 \(k)", level: .quartile, version: 1, scale: 5, angle: 0.3 + Double(k), perspective: p)
            try assertFinds(s, "version 1, perspective \(p)")
        }
    }

    /// Large modules, blurred and noisy, read at half resolution; 2-pixel modules thinned by
    /// blur, at twice the resolution.
    func testBlurredLargeAndSmallModules() throws {
        let large = try Self.scene("large blurred modules", version: 2, scale: 9, angle: 0.9, blur: 4, noise: 45, seed: 3)
        try assertFinds(large, "9 px modules, blur 4, noise 45")
        let small = try Self.scene("small blurred modules", version: 3, scale: 2, angle: 1.1, blur: 0.7, seed: 5)
        try assertFinds(small, "2 px modules, blur 0.7")
    }

    func testNoiseAndBlur() throws {
        let s = try Self.scene("noise and blur", version: 3, scale: 4, angle: 0.2, blur: 1.2, noise: 40, seed: 7)
        try assertFinds(s, "noise 40, blur 1.2")
    }

    func testUnevenLighting() throws {
        let s = try Self.scene("uneven light", version: 2, scale: 4, gradient: true, noise: 10)
        try assertFinds(s, "gradient")
    }

    func testLightOnDark() throws {
        let s = try Self.scene("light on dark", version: 2, scale: 4, angle: 0.5, inverted: true)
        try assertFinds(s, "inverted")
    }

    func testSmallModulesAndQuietZone() throws {
        // 2 px modules and a 1-module quiet zone at the image edge.
        let symbol = try QRCodeEncoder(correctionLevel: .medium).encode("tight")
        let image = try Image.qrCode(symbol, scale: 2, quietZone: 1)
        let buffer = try RenderContext().makeBuffer(image, format: .rgba8)
        let found = try QRCodeDetector().features(in: buffer)
        XCTAssertEqual(found.map(\.message), ["tight"])
    }

    func testMirrored() throws {
        let s = try Self.scene("mirror", version: 2, scale: 4, canvas: 200)
        let w = s.buffer.width
        var mirrored = s.buffer
        for y in 0..<s.buffer.height {
            for x in 0..<w { mirrored[x, y] = s.buffer[w - 1 - x, y] }
        }
        let f = try XCTUnwrap(QRCodeDetector().features(in: mirrored).first)
        XCTAssertEqual(f.message, "mirror")
        XCTAssertTrue(f.isMirrored)
        // The symbol's top-left corner is still the one by its top-left finder pattern.
        let want = Point(x: Double(w) - s.corners[0].x, y: s.corners[0].y)
        XCTAssertEqual(f.topLeft.x, want.x, accuracy: 1.5 * s.moduleSize)
        XCTAssertEqual(f.topLeft.y, want.y, accuracy: 1.5 * s.moduleSize)
    }

    func testSeveralCodes() throws {
        let messages = ["first code", "second code", "third"]
        var canvas = try Image.constantColor(.white)
        var expected: [String: Point] = [:]
        for (i, m) in messages.enumerated() {
            let code = try Image.qrCode(QRCodeEncoder(correctionLevel: .low, version: QRVersion(2)).encode(m), scale: 3)
            let offset = Point(x: Double(10 + i * 110), y: Double(10 + (i % 2) * 60))
            canvas = try code.transformed(by: AffineTransform(translationX: offset.x, y: offset.y)).composited(over: canvas)
            expected[m] = Point(x: offset.x + 12, y: offset.y + 12)
        }
        let rect = Rect(x: 0, y: 0, width: 350, height: 180)
        let found = try QRCodeDetector().features(in: canvas.cropped(to: rect), context: RenderContext())
        XCTAssertEqual(Set(found.compactMap(\.message)), Set(messages))
        for f in found {
            let want = try XCTUnwrap(expected[f.message ?? ""])
            XCTAssertEqual(f.topLeft.x, want.x, accuracy: 4)
            XCTAssertEqual(f.topLeft.y, want.y, accuracy: 4)
        }
    }

    func testPixelFormats() throws {
        let s = try Self.scene("formats", version: 1, scale: 3, canvas: 120)
        for format in [PixelFormat.gray8, .grayF32, .rgbaF32, .rgba16] {
            let b = s.buffer.converted(to: format)
            XCTAssertEqual(try QRCodeDetector().features(in: b).first?.message, "formats", "\(format)")
        }
        // Transparent background reads as light.
        let symbol = try QRCodeEncoder().encode("alpha")
        var clear = try RenderContext().makeBuffer(try Image.qrCode(symbol, scale: 3), format: .rgba8)
        for y in 0..<clear.height {
            for x in 0..<clear.width where clear[x, y].x > 0.5 { clear[x, y] = SIMD4(0, 0, 0, 0) }
        }
        XCTAssertEqual(try QRCodeDetector().features(in: clear).first?.message, "alpha")
    }

    func testLowAccuracyAndOptions() throws {
        let s = try Self.scene("low accuracy", version: 2, scale: 4)
        try assertFinds(s, options: DetectorOptions(accuracy: .low), "low")
        XCTAssertEqual(try QRCodeDetector(options: DetectorOptions(maximumFeatureCount: 0)).features(in: s.buffer).count, 0)
        XCTAssertEqual(try QRCodeDetector(options: DetectorOptions(minimumFeatureSize: 0.9)).features(in: s.buffer).count, 0)
    }

    // MARK: Robustness

    func testEmptyAndTinyImagesGiveNothing() throws {
        for (w, h) in [(1, 1), (5, 5), (20, 20), (1, 300), (300, 1)] {
            let b = try PixelBuffer(width: w, height: h, format: .rgba8)
            XCTAssertEqual(try QRCodeDetector().features(in: b).count, 0, "\(w)x\(h)")
        }
        if let empty = try? PixelBuffer(width: 0, height: 0, format: .gray8) {
            XCTAssertEqual(try QRCodeDetector().features(in: empty).count, 0)
        }
    }

    func testNoFalsePositivesOnNoiseAndGradients() throws {
        var rng = QRTestRandom(seed: 42)
        for trial in 0..<3 {
            var b = try PixelBuffer(width: 240, height: 180, format: .gray8)
            let stride = b.bytesPerRow
            let blocky = trial > 0
            b.withUnsafeMutableBytes { raw in
                for y in 0..<180 {
                    for x in 0..<240 {
                        let v: Int
                        if blocky {
                            v = (x / (trial * 2) + y / (trial * 3)) % 2 == 0 ? rng.int(0...255) : rng.int(0...60)
                        } else {
                            v = rng.int(0...255)
                        }
                        raw[y * stride + x] = UInt8(v)
                    }
                }
            }
            XCTAssertEqual(
                try QRCodeDetector(options: DetectorOptions(tryHarder: true)).features(in: b).count, 0, "noise \(trial)")
        }
        // A smooth photo-like gradient with soft blobs.
        var g = try PixelBuffer(width: 256, height: 192, format: .gray8)
        let gStride = g.bytesPerRow
        g.withUnsafeMutableBytes { raw in
            for y in 0..<192 {
                for x in 0..<256 {
                    let v = 128 + 60 * sin(Double(x) / 17) * cos(Double(y) / 23) + 40 * sin(Double(x + y) / 41)
                    raw[y * gStride + x] = UInt8(max(0, min(255, v)))
                }
            }
        }
        XCTAssertEqual(try QRCodeDetector(options: DetectorOptions(tryHarder: true)).features(in: g).count, 0)
    }

    func testDamageWithinAndBeyondCapacity() throws {
        let symbol = try QRCodeEncoder(correctionLevel: .high, version: QRVersion(3)).encode("damaged")
        let n = symbol.matrix.size
        func render(flipping count: Int, seed: UInt64) throws -> PixelBuffer {
            var m = symbol.matrix
            var rng = QRTestRandom(seed: seed)
            var flipped = Set<Int>()
            while flipped.count < count {
                let x = rng.int(9...(n - 9)), y = rng.int(9...(n - 1))
                if flipped.insert(y * n + x).inserted { m[x, y].toggle() }
            }
            let damaged = QRCodeSymbol(
                matrix: m, version: symbol.version, correctionLevel: symbol.correctionLevel, mask: symbol.mask,
                segments: symbol.segments, dataCodewords: symbol.dataCodewords)
            return try RenderContext().makeBuffer(try Image.qrCode(damaged, scale: 3), format: .rgba8)
        }
        let light = try QRCodeDetector().features(in: try render(flipping: 6, seed: 3))
        XCTAssertEqual(light.first?.message, "damaged")
        XCTAssertGreaterThan(light.first?.correctedErrors ?? 0, 0)
        for seed in 1...3 {
            let heavy = try QRCodeDetector().features(in: try render(flipping: 150, seed: UInt64(seed)))
            XCTAssertTrue(heavy.allSatisfy { $0.message == "damaged" }, "a wrong message from a ruined symbol: \(heavy)")
            XCTAssertEqual(heavy.count, 0, "seed \(seed)")
        }
    }

    // MARK: Pieces

    func testPerspectiveTransformMapsTheFourPoints() throws {
        let src = [Point(x: 3.5, y: 3.5), Point(x: 21.5, y: 3.5), Point(x: 18.5, y: 18.5), Point(x: 3.5, y: 21.5)]
        let dst = [Point(x: 10, y: 12), Point(x: 200, y: 30), Point(x: 170, y: 190), Point(x: 5, y: 220)]
        let t = try XCTUnwrap(QRPerspectiveTransform(from: src, to: dst))
        for (s, d) in zip(src, dst) {
            let p = t.apply(s)
            XCTAssertEqual(p.x, d.x, accuracy: 1e-6)
            XCTAssertEqual(p.y, d.y, accuracy: 1e-6)
        }
        XCTAssertNil(QRPerspectiveTransform(from: src, to: [dst[0], dst[0], dst[0], dst[0]]))
    }

    func testCoreImageCoordinates() {
        let p = Point(x: 10, y: 30)
        XCTAssertEqual(p.coreImageCoordinates(imageHeight: 100), Point(x: 10, y: 70))
        XCTAssertEqual(p.coreImageCoordinates(imageHeight: 100).coreImageCoordinates(imageHeight: 100), p)
    }

    func testFeatureBoundsAndModuleSize() throws {
        let s = try Self.scene("bounds", version: 1, scale: 5, canvas: 200)
        let f = try XCTUnwrap(try QRCodeDetector().features(in: s.buffer).first)
        XCTAssertEqual(f.bounds.minX, s.corners[0].x, accuracy: 2)
        XCTAssertEqual(f.bounds.width, 21 * 5, accuracy: 3)
        XCTAssertEqual(f.moduleSize, 5, accuracy: 0.2)
    }

    // MARK: segno-made images

    func testSegnoImageFixtures() throws {
        let dir = URL(fileURLWithPath: packageRoot).appendingPathComponent("Tests/PixelFlowTests/Fixtures/QR/images")
        let manifest = try String(contentsOf: dir.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        var checked = 0
        for line in manifest.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard parts.count >= 2 else { continue }
            let buffer = try PixelBuffer(contentsOfFile: dir.appendingPathComponent(parts[0]).path)
            let found = try QRCodeDetector().features(in: buffer)
            let want = parts[1].replacingOccurrences(of: "\\n", with: "\n")
            XCTAssertTrue(found.contains { $0.message == want }, "\(parts[0]): got \(found.map(\.message))")
            checked += 1
        }
        XCTAssertGreaterThanOrEqual(checked, 4)
    }

    // MARK: The sweep (PIXELFLOW_SLOW_TESTS=1)

    func testSweep() throws {
        try XCTSkipUnless(Self.slow, "set PIXELFLOW_SLOW_TESTS=1 for the full sweep")
        var rng = QRTestRandom(seed: 2024)
        var failures: [String] = []
        var total = 0
        for version in [1, 2, 3, 5, 7, 10, 14, 20] {
            for level in QRErrorCorrectionLevel.allCases {
                for degrees in [0.0, 90, 180, 270, 15, 30, 45, 60] {
                    let scale = version >= 14 ? 3 : rng.int(3...6)
                    let blur: Double? = rng.int(0...2) == 0 ? 0.8 : nil
                    let noise = rng.int(0...20)
                    let what = "v\(version) \(level.letter) \(degrees)° scale \(scale) blur \(blur ?? 0) noise \(noise)"
                    let s = try Self.scene(
                        "sweep \(what)", level: level, version: version, scale: scale,
                        angle: degrees * .pi / 180, blur: blur, noise: noise, seed: rng.next())
                    total += 1
                    let found = try QRCodeDetector().features(in: s.buffer)
                    guard let f = found.first(where: { $0.message == s.message }) else { failures.append(what); continue }
                    if zip(f.corners, s.corners).contains(where: { hypot($0.x - $1.x, $0.y - $1.y) > 1.5 * s.moduleSize }) {
                        failures.append(what + " (corners)")
                    }
                }
            }
        }
        XCTAssertTrue(failures.isEmpty, "\(failures.count) of \(total) failed:\n" + failures.joined(separator: "\n"))
    }
}
