import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

final class QRCodeGeneratorTests: XCTestCase {
    /// Reads the modules back from a rendered code: `scale` pixels per module, 4-module quiet zone.
    func modules(of image: Image, scale: Int = 1, file: StaticString = #filePath, line: UInt = #line) throws -> QRBitMatrix {
        let b = try RenderContext().makeBuffer(image)
        XCTAssertEqual(b.width, b.height, file: file, line: line)
        XCTAssertEqual(b.width % scale, 0, file: file, line: line)
        let n = b.width / scale - 8
        // Every pixel is opaque black or opaque white; the quiet zone is white.
        for y in 0..<b.height {
            for x in 0..<b.width {
                let p = b[x, y]
                XCTAssertTrue(
                    p == SIMD4(0, 0, 0, 1) || p == SIMD4(1, 1, 1, 1), "pixel (\(x), \(y)) is \(p)", file: file, line: line)
                let mx = x / scale - 4, my = y / scale - 4
                if mx < 0 || my < 0 || mx >= n || my >= n { XCTAssertEqual(p, SIMD4(1, 1, 1, 1), file: file, line: line) }
                // Nearest-neighbour scaling: each module is a uniform square.
                XCTAssertEqual(p, b[x - x % scale, y - y % scale], file: file, line: line)
            }
        }
        return QRBitMatrix(size: n) { x, y in b[(x + 4) * scale, (y + 4) * scale].x == 0 }
    }

    func testFilterIsRegistered() throws {
        let d = try XCTUnwrap(FilterRegistry.descriptor(named: "CIQRCodeGenerator"))
        XCTAssertTrue(d.categories.contains(.generator))
        XCTAssertEqual(d.inputKeys, ["inputMessage", "inputCorrectionLevel"])
        XCTAssertEqual(d.input("inputMessage")?.valueClass, .data)
        XCTAssertEqual(d.input("inputCorrectionLevel")?.defaultValue, .string("M"))
        XCTAssertTrue(FilterRegistry.filterNames(inCategories: [.generator]).contains("CIQRCodeGenerator"))
        XCTAssertNotNil(FilterRegistry.descriptor(named: "QRCodeGenerator"))
    }

    func testFilterOutputDecodes() throws {
        for (level, letter) in [(QRErrorCorrectionLevel.low, "L"), (.medium, "M"), (.quartile, "Q"), (.high, "H")] {
            let image = try FilterRegistry.apply(
                "CIQRCodeGenerator",
                [
                    "inputMessage": .data(Array("Hello, PixelFlow".utf8)),
                    "inputCorrectionLevel": .string(letter),
                ])
            let n = try QRCodeEncoder(correctionLevel: level).encode(bytes: Array("Hello, PixelFlow".utf8)).size
            XCTAssertEqual(n, [21, 25, 25, 29][level.rawValue])
            XCTAssertEqual(image.extent, Rect(x: 0, y: 0, width: n + 8, height: n + 8))
            let d = try QRCodeDecoder().decode(try modules(of: image))
            XCTAssertEqual(d.message, "Hello, PixelFlow")
            XCTAssertEqual(d.correctionLevel, level)
        }
    }

    func testStringMessageIsItsUTF8Bytes() throws {
        let text = "Grüße, 東京 0123456789"
        let fromString = try FilterRegistry.apply("CIQRCodeGenerator", ["inputMessage": .string(text)])
        let fromData = try FilterRegistry.apply("CIQRCodeGenerator", ["inputMessage": .data(Array(text.utf8))])
        let typed = try Image.qrCode(message: text)
        let a = try RenderContext().makeBuffer(fromString), b = try RenderContext().makeBuffer(fromData)
        XCTAssertTrue(a == b)
        XCTAssertTrue(a == (try RenderContext().makeBuffer(typed)))
        let d = try QRCodeDecoder().decode(try modules(of: typed))
        XCTAssertEqual(d.message, text)
        XCTAssertEqual(d.correctionLevel, .medium, "Core Image's default level")
        // The Filter object takes a string for the data input too.
        let filter = try XCTUnwrap(Filter(named: "CIQRCodeGenerator"))
        try filter.setValue(.string("via Filter"), forKey: "inputMessage")
        XCTAssertEqual(filter.value(forKey: "inputMessage"), .data(Array("via Filter".utf8)))
    }

    func testEmptyDefaultMessage() throws {
        let image = try FilterRegistry.apply("CIQRCodeGenerator", [:])
        let d = try QRCodeDecoder().decode(try modules(of: image))
        XCTAssertEqual(d.message, "")
        XCTAssertEqual(d.version.number, 1)
    }

    func testScaleAndVersion() throws {
        let image = try Image.qrCode(message: "scaled", correctionLevel: .high, version: QRVersion(7), scale: 3)
        XCTAssertEqual(image.extent.width, Double((45 + 8) * 3))
        let d = try QRCodeDecoder().decode(try modules(of: image, scale: 3))
        XCTAssertEqual(d.message, "scaled")
        XCTAssertEqual(d.version.number, 7)
        XCTAssertEqual(d.correctionLevel, .high)
        let symbol = try QRCodeEncoder().encode("no margin")
        let bare = try RenderContext().makeBuffer(try Image.qrCode(symbol, scale: 2, quietZone: 0))
        XCTAssertEqual(bare.width, symbol.size * 2)
        XCTAssertEqual(bare[0, 0], SIMD4(0, 0, 0, 1), "the finder pattern's corner")
        XCTAssertThrowsError(try Image.qrCode(message: "x", scale: 0))
        XCTAssertThrowsError(try Image.qrCode(symbol, quietZone: -1))
    }

    func testBadParametersThrow() {
        XCTAssertThrowsError(try FilterRegistry.apply("CIQRCodeGenerator", ["inputCorrectionLevel": .string("X")])) { error in
            XCTAssertEqual(
                error as? PixelFlowError,
                .invalidParameter(
                    filter: "CIQRCodeGenerator", key: "inputCorrectionLevel", reason: "must be L, M, Q or H, got 'X'"))
        }
        XCTAssertThrowsError(try FilterRegistry.apply("CIQRCodeGenerator", ["inputMessage": .number(3)])) { error in
            guard case let .invalidParameter(_, key, _)? = error as? PixelFlowError else { return XCTFail("\(error)") }
            XCTAssertEqual(key, "inputMessage")
        }
        let tooLong = [UInt8](repeating: 0xAB, count: 2332)
        XCTAssertThrowsError(try FilterRegistry.apply("CIQRCodeGenerator", ["inputMessage": .data(tooLong)])) { error in
            guard case let .invalidParameter(filter, key, reason)? = error as? PixelFlowError else { return XCTFail("\(error)") }
            XCTAssertEqual(filter, "CIQRCodeGenerator")
            XCTAssertEqual(key, "inputMessage")
            XCTAssertTrue(reason.contains("too long"), reason)
        }
        XCTAssertNoThrow(
            try FilterRegistry.apply("CIQRCodeGenerator", ["inputMessage": .data(Array(tooLong.dropLast()))]),
            "2331 bytes is version 40-M's byte capacity")
    }

    // MARK: Agreement with segno

    /// The segments segno was asked to make for a fixture, built independently of our decoder
    /// (except structured append, whose split segno chose).
    static func segments(for f: QRFixture) throws -> [QRSegment] {
        if f.header["sa_index"] != nil {
            return try QRCodeDecoder().decode(f.matrix).segments
        }
        var segments: [QRSegment] = f.eci ? [try .eci(26)] : []
        switch f.mode {
        case "numeric": segments.append(try .numeric(f.text))
        case "alphanumeric": segments.append(try .alphanumeric(f.text))
        case "kanji": segments.append(try .kanji(f.text))
        default:
            switch f.encoding {
            case "utf-8": segments.append(.bytes(Array(f.text.utf8)))
            default: segments.append(.bytes(f.text.unicodeScalars.map { UInt8($0.value) }))  // ISO-8859-1
            }
        }
        return segments
    }

    /// The data codewords segno writes for the same segments: ours, except that segno 1.6.6
    /// appends a whole 0x00 codeword when the bit stream ends on a codeword boundary after the
    /// terminator (ISO/IEC 18004 §7.4.10 adds no padding bits there), and then restarts the
    /// 0xEC 0x11 pad codewords.
    static func segnoDataCodewords(_ segments: [QRSegment], version v: QRVersion, level: QRErrorCorrectionLevel) -> [UInt8] {
        let ours = try! QRCodeEncoder(correctionLevel: level, version: v, mask: 0).encode(segments: segments).dataCodewords
        let bits = QRSegment.bitLength(of: segments, version: v)!
        let capacity = v.dataCapacityBits(for: level)
        let terminated = bits + min(4, capacity - bits)
        guard terminated % 8 == 0, terminated < capacity else { return ours }
        var data = Array(ours[0..<(terminated / 8)]) + [0]
        var pad: UInt8 = 0xEC
        while data.count < ours.count {
            data.append(pad)
            pad ^= 0xEC ^ 0x11
        }
        return data
    }

    /// N3 patterns (dark-light-dark-dark-dark-light-dark with four light modules on a side)
    /// that we count and segno does not: segno resumes its search 7 modules after a counted
    /// pattern, so it misses one that overlaps it (starting 4 or 6 modules later). PixelFlow,
    /// like ZXing, counts every occurrence.
    static func n3OccurrencesSegnoSkips(_ m: QRBitMatrix) -> Int {
        let n = m.size
        var skipped = 0
        for direction in 0..<2 {
            for a in 0..<n {
                let line = (0..<n).map { direction == 0 ? m[$0, a] : m[a, $0] }
                func isPattern(_ i: Int) -> Bool {
                    i + 7 <= n && line[i] && !line[i + 1] && line[i + 2] && line[i + 3] && line[i + 4] && !line[i + 5]
                        && line[i + 6]
                }
                func light(_ r: Range<Int>) -> Bool { r.allSatisfy { $0 < 0 || $0 >= n || !line[$0] } }
                func counts(_ i: Int) -> Bool { isPattern(i) && (light((i - 4)..<i) || light((i + 7)..<(i + 11))) }
                let all = (0..<n).filter(counts).count
                var segno = 0
                var i = 0
                while i < n {
                    if !isPattern(i) { i += 1; continue }
                    if counts(i) { segno += 1; i += 7 } else { i += 4 }
                }
                skipped += all - segno
            }
        }
        return skipped
    }

    /// Given segno's choices of version, level, mode and mask, our encoder makes the very same
    /// matrix, and scores each of the 8 masks as segno does.
    func testMatricesMatchSegno() throws {
        var compared = 0, scored = 0, quirks = 0
        for f in try QRFixture.all() {
            let segments = try Self.segments(for: f)
            let v = QRVersion(f.version)!
            let data = Self.segnoDataCodewords(segments, version: v, level: f.level)
            let ours = try QRCodeEncoder(correctionLevel: f.level, version: v).encode(segments: segments).dataCodewords
            if data != ours { quirks += 1 }
            XCTAssertEqual(try QRCodeDecoder().decode(f.matrix).dataCodewords, data, "\(f.name): data codewords")
            let symbol = QRCodeEncoder.makeSymbol(
                dataCodewords: data, segments: segments, version: v, level: f.level, mask: f.mask)
            if symbol.matrix != f.matrix {
                let diff = zip(symbol.matrix.modules, f.matrix.modules).filter { $0 != $1 }.count
                XCTFail("\(f.name): \(diff) modules differ from segno's")
            }
            compared += 1
            if data == ours {
                let direct = try QRCodeEncoder(correctionLevel: f.level, version: v, mask: f.mask).encode(segments: segments)
                XCTAssertEqual(direct.matrix, f.matrix, f.name)
            }
            guard let penalties = f.header["penalties"]?.split(separator: ",").compactMap({ Int($0) }) else { continue }
            XCTAssertEqual(penalties.count, 8)
            for m in 0..<8 {
                let s = QRCodeEncoder.makeSymbol(dataCodewords: data, segments: segments, version: v, level: f.level, mask: m)
                let skipped = Self.n3OccurrencesSegnoSkips(s.matrix)
                XCTAssertEqual(QRMask.penalty(s.matrix.modules, size: s.size), penalties[m] + 40 * skipped, "\(f.name) mask \(m)")
            }
            // With every mask scored alike, the automatic choice is the lowest score. (segno's own
            // choice can differ: it scores before placing the format information.)
            let auto = QRCodeEncoder.makeSymbol(dataCodewords: data, segments: segments, version: v, level: f.level, mask: nil)
            XCTAssertEqual(auto.mask, penalties.firstIndex(of: penalties.min()!), f.name)
            scored += 1
        }
        XCTAssertGreaterThanOrEqual(compared, 12)
        XCTAssertGreaterThanOrEqual(scored, 10)
        XCTAssertGreaterThan(quirks, 0, "the fixtures exercise segno's extra 0x00 codeword")
        XCTAssertLessThan(quirks, compared, "and cases without it")
    }
}
