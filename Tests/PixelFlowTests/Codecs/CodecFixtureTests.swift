import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Files written by other software (Pillow; see scripts/make_codec_fixtures.py).
final class CodecFixtureTests: XCTestCase {
    typealias S = CodecTestSupport

    private func load(_ name: String, options: DecodeOptions = .default) throws -> PixelBuffer {
        try PixelBuffer(contentsOfFile: S.fixture(name), options: options)
    }

    // MARK: PNG

    func testPalettePNGWithTransparency() throws {
        let b = try load("palette_trns.png")
        XCTAssertEqual(b.format, .rgba8)
        XCTAssertEqual([b.width, b.height], [16, 12])
        let colors = [[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 128], [255, 255, 0, 0]]
        for y in 0..<12 { for x in 0..<16 { XCTAssertEqual(S.pixel(b, x, y), colors[(x / 4 + y / 3) % 4], "(\(x), \(y))") } }
    }

    func testSixteenBitGrayPNG() throws {
        let b = try load("gray16.png")
        XCTAssertEqual(b.format, .rgba16)
        for y in 0..<8 {
            for x in 0..<16 {
                let v = (x * 4096 + y * 257) & 65535
                XCTAssertEqual(S.pixel(b, x, y), [v, v, v, 65535])
            }
        }
    }

    func testGrayAlphaPNG() throws {
        let b = try load("gray_alpha.png")
        XCTAssertEqual(b.format, .rgba8)
        for y in 0..<8 {
            for x in 0..<16 {
                let p = S.fixturePattern(x, y).map(Int.init)
                XCTAssertEqual(S.pixel(b, x, y), [p[0], p[0], p[0], p[1]])
            }
        }
    }

    func testOneBitAndTransparentGrayPNG() throws {
        let mono = try load("gray1.png")
        XCTAssertEqual(mono.format, .gray8)
        let keyed = try load("gray_trns.png")
        XCTAssertEqual(keyed.format, .rgba8)
        for y in 0..<8 {
            for x in 0..<16 {
                let r = Int(S.fixturePattern(x, y)[0])
                XCTAssertEqual(S.pixel(mono, x, y), [r > 128 ? 255 : 0])
                XCTAssertEqual(S.pixel(keyed, x, y), [r, r, r, r == 0 ? 0 : 255])
            }
        }
    }

    // MARK: JPEG

    func testProgressiveJPEG() throws {
        let b = try load("progressive.jpg")
        XCTAssertEqual(b.format, .rgba8)
        XCTAssertEqual([b.width, b.height], [48, 32])
        XCTAssertLessThanOrEqual(S.maximumDifference(b, S.smooth(width: 48, height: 32)), 12)
    }

    func testGrayJPEG() throws {
        let b = try load("gray.jpg")
        XCTAssertEqual(b.format, .gray8)
        XCTAssertEqual([b.width, b.height], [48, 32])
        for y in 0..<32 { for x in 0..<48 { XCTAssertEqual(S.pixel(b, x, y)[0], 60 + 120 * y / 31, accuracy: 6) } }
    }

    func testAdobeCMYKJPEG() throws {
        let b = try load("cmyk.jpg")
        XCTAssertEqual(b.format, .rgba8)
        XCTAssertEqual([b.width, b.height], [24, 16])
        for (x, expected) in [(3, [255, 0, 0, 255]), (18, [127, 127, 127, 255])] {
            for (v, e) in zip(S.pixel(b, x, 8), expected) { XCTAssertEqual(v, e, accuracy: 6, "x \(x)") }
        }
    }

    func testEXIFOrientationSixIsApplied() throws {
        let b = try load("orientation6.jpg")
        XCTAssertEqual([b.width, b.height], [24, 40], "stored 40x24, rotated 90 degrees clockwise")
        let marked = S.pixel(b, 20, 3)  // the red square is now at the top right
        XCTAssertGreaterThan(marked[0], 200); XCTAssertLessThan(marked[1], 60); XCTAssertLessThan(marked[2], 60)
        for (x, y) in [(3, 3), (3, 36), (20, 36)] {
            for v in S.pixel(b, x, y).prefix(3) { XCTAssertEqual(v, 128, accuracy: 6, "(\(x), \(y))") }
        }
    }

    func testEXIFOrientationCanBeIgnored() throws {
        var options = DecodeOptions.default
        options.applyOrientation = false
        let b = try load("orientation6.jpg", options: options)
        XCTAssertEqual([b.width, b.height], [40, 24])
        let marked = S.pixel(b, 3, 3)
        XCTAssertGreaterThan(marked[0], 200); XCTAssertLessThan(marked[1], 60)
    }

    // MARK: BMP

    private func assertPattern(
        _ b: PixelBuffer, alpha: ((Int, Int) -> Int)? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(b.format, .rgba8, file: file, line: line)
        for y in 0..<b.height {
            for x in 0..<b.width {
                let expected = S.fixturePattern(x, y).map(Int.init) + [alpha?(x, y) ?? 255]
                XCTAssertEqual(S.pixel(b, x, y), expected, "(\(x), \(y))", file: file, line: line)
            }
        }
    }

    func testBottomUpAndTopDown24BitBMP() throws {
        let bottomUp = try load("rgb24.bmp"), topDown = try load("rgb24_topdown.bmp")
        XCTAssertEqual([bottomUp.width, bottomUp.height], [13, 7])
        assertPattern(bottomUp)
        assertPattern(topDown)
    }

    func testThirtyTwoBitBMPKeepsItsAlpha() throws {
        assertPattern(try load("rgba32.bmp"), alpha: { x, y in (y * 13 + x) * 3 % 256 })
    }

    func testPaletteBMPMatchesTheSamePixelsAsPNG() throws {
        let bmp = try load("palette8.bmp"), png = try load("palette8_expected.png")
        XCTAssertEqual(bmp, png)
    }

    // MARK: PNM

    func testPGMWithComments() throws {
        let b = try load("gray_comment.pgm")
        XCTAssertEqual(b.format, .gray8)
        for y in 0..<5 { for x in 0..<9 { XCTAssertEqual(S.pixel(b, x, y), [Int(S.fixturePattern(x, y)[0])]) } }
    }

    func testSixteenBitPPM() throws {
        let b = try load("rgb16.ppm")
        XCTAssertEqual(b.format, .rgba16)
        for y in 0..<5 {
            for x in 0..<9 { XCTAssertEqual(S.pixel(b, x, y), S.fixturePattern(x, y).map { Int($0) * 257 } + [65535]) }
        }
    }

    func testPAMWithAlpha() throws {
        let b = try load("rgba.pam")
        XCTAssertEqual(b.format, .rgba8)
        for y in 0..<5 {
            for x in 0..<9 { XCTAssertEqual(S.pixel(b, x, y), S.fixturePattern(x, y).map(Int.init) + [(y * 9 + x) * 5 & 255]) }
        }
    }
}
