import CCodecShims
import XCTest
@testable import PixelFlow

/// The JPEG encoder's 4:2:0 color conversion (`pf_jpeg_ycc420_rows`: RGBX rows to the YCbCr
/// planes libjpeg-turbo gets as raw data). Checked against the integer formulas it states,
/// written here one pixel at a time (tolerance 0, AVX2 body and scalar edges alike, every width
/// from 1 to 70 and the padding), against the JFIF formulas in double precision (luma within
/// 0.5 + 0.001 of the exact value, chroma within 0.5 + 0.02 of the exact mean of the block's
/// four values, the 15-bit coefficients' error), and through whole files: decoded, they
/// stay near the source, up to the last row and column of sizes off the MCU grid.
final class JPEGPlanesTests: XCTestCase {
    /// The stated formulas, one pixel at a time.
    private func referenceLuma(_ p: ArraySlice<UInt8>) -> UInt8 {
        let i = p.startIndex
        let r: Int = 19595 * Int(p[i]), g: Int = 38470 * Int(p[i + 1]), b: Int = 7471 * Int(p[i + 2])
        return UInt8((r + g + b + 32768) >> 16)
    }

    private func referenceChroma(_ sums: (Int, Int, Int), _ c: (Int, Int, Int)) -> UInt8 {
        let products: Int = c.0 * sums.0 + c.1 * sums.1 + c.2 * sums.2
        return UInt8(min(255, (products + (128 << 17) + (1 << 16)) >> 17))
    }

    private struct Planes {
        var y0: [UInt8], y1: [UInt8], cb: [UInt8], cr: [UInt8]
    }

    private func convert(_ r0: [UInt8], _ r1: [UInt8], width: Int) -> Planes {
        let luma = (width + 15) & ~15, chroma = luma / 2
        var p = Planes(
            y0: .init(repeating: 0xEE, count: luma + 1), y1: .init(repeating: 0xEE, count: luma + 1),
            cb: .init(repeating: 0xEE, count: chroma + 1), cr: .init(repeating: 0xEE, count: chroma + 1))
        pf_jpeg_ycc420_rows(r0, r1, UInt32(width), &p.y0, &p.y1, &p.cb, &p.cr, UInt32(luma), UInt32(chroma))
        XCTAssertEqual([p.y0[luma], p.y1[luma], p.cb[chroma], p.cr[chroma]], [0xEE, 0xEE, 0xEE, 0xEE], "wrote past")
        return p
    }

    private func randomRow(_ width: Int, _ rng: inout SeededRandom) -> [UInt8] {
        (0..<4 * width).map { _ in UInt8(truncatingIfNeeded: rng.next() >> 29) }
    }

    func testConversionMatchesTheStatedFormulas() {
        var rng = SeededRandom(seed: 42)
        var rows: [(Int, [UInt8], [UInt8])] = []
        for width in 1...70 {
            let a = randomRow(width, &rng), b = randomRow(width, &rng)
            rows += [(width, a, b), (width, a, a)]
        }
        // The extremes: black, white, pure primaries (blue and red saturate chroma at 255).
        for pixel: [UInt8] in [[0, 0, 0, 9], [255, 255, 255, 0], [0, 0, 255, 255], [255, 0, 0, 255], [0, 255, 0, 1]] {
            let row = Array([[UInt8]](repeating: pixel, count: 37).joined())
            rows.append((37, row, row))
        }
        for (width, r0, r1) in rows {
            let p = convert(r0, r1, width: width)
            let luma = (width + 15) & ~15
            for x in 0..<luma {
                let s = 4 * min(x, width - 1)
                XCTAssertEqual(p.y0[x], referenceLuma(r0[s..<s + 4]), "width \(width) luma x \(x)")
                XCTAssertEqual(p.y1[x], referenceLuma(r1[s..<s + 4]), "width \(width) luma row 1 x \(x)")
            }
            for c in 0..<luma / 2 {
                let a = 4 * min(2 * c, width - 1), b = 4 * min(2 * c + 1, width - 1)
                let sums = (0..<3).map { k in Int(r0[a + k]) + Int(r0[b + k]) + Int(r1[a + k]) + Int(r1[b + k]) }
                XCTAssertEqual(
                    p.cb[c], referenceChroma((sums[0], sums[1], sums[2]), (-5529, -10855, 16384)), "width \(width) Cb \(c)")
                XCTAssertEqual(
                    p.cr[c], referenceChroma((sums[0], sums[1], sums[2]), (16384, -13720, -2664)), "width \(width) Cr \(c)")
            }
        }
    }

    /// JFIF (ITU-T T.871): Y = 0.299 R + 0.587 G + 0.114 B, Cb = 128 - 0.168736 R - 0.331264 G
    /// + 0.5 B, Cr = 128 + 0.5 R - 0.418688 G - 0.081312 B, in double precision.
    func testConversionIsTheJFIFFormulaRoundedOnce() {
        var rng = SeededRandom(seed: 5)
        var worstLuma = 0.0, worstChroma = 0.0
        for width in [1, 2, 15, 16, 17, 33, 64, 200] {
            for _ in 0..<20 {
                let r0 = randomRow(width, &rng), r1 = randomRow(width, &rng)
                let p = convert(r0, r1, width: width)
                func rgb(_ row: [UInt8], _ x: Int) -> (Double, Double, Double) {
                    let s = 4 * min(x, width - 1)
                    return (Double(row[s]), Double(row[s + 1]), Double(row[s + 2]))
                }
                for x in 0..<width {
                    let (r, g, b) = rgb(r0, x)
                    worstLuma = max(worstLuma, abs(Double(p.y0[x]) - (0.299 * r + 0.587 * g + 0.114 * b)))
                }
                for c in 0..<(width + 1) / 2 {
                    var cb = 0.0, cr = 0.0
                    for (row, x) in [(r0, 2 * c), (r0, 2 * c + 1), (r1, 2 * c), (r1, 2 * c + 1)] {
                        let (r, g, b) = rgb(row, x)
                        cb += 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
                        cr += 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
                    }
                    worstChroma = max(
                        worstChroma, abs(Double(p.cb[c]) - min(255, cb / 4)), abs(Double(p.cr[c]) - min(255, cr / 4)))
                }
            }
        }
        XCTAssertLessThanOrEqual(worstLuma, 0.501, "luma")
        XCTAssertLessThanOrEqual(worstChroma, 0.52, "chroma")
    }

    /// Whole files at 4:2:0, decoded by libjpeg-turbo: a flat color stays that color to the
    /// last row and column (the padding repeats the edge), and a photo-like image's error is
    /// close to the same image's at 4:4:4, whose conversion is libjpeg's own.
    func testFilesDecodeNearTheSource() throws {
        for (width, height) in [(1, 1), (2, 3), (33, 17), (17, 33), (31, 1), (250, 161)] {
            var flat = try PixelBuffer(width: width, height: height, format: .rgba8)
            for y in 0..<height { for x in 0..<width { flat[x, y] = SIMD4(200, 30, 90, 255) / 255 } }
            let decoded = try PixelBuffer(encoded: try flat.encoded(as: .jpeg, quality: 95))
            for y in 0..<height {
                for x in 0..<width {
                    let d = abs(decoded[x, y] - flat[x, y]) * 255
                    XCTAssertLessThanOrEqual(d.max(), 3, "\(width)x\(height) flat at (\(x), \(y))")
                }
            }
        }
        var rng = SeededRandom(seed: 9)
        var photo = try PixelBuffer(width: 301, height: 203, format: .rgba8)
        for y in 0..<photo.height {
            for x in 0..<photo.width {
                let u = Float(x) / 301, v = Float(y) / 203
                let noise = SIMD4<Float>(rng.unit(), rng.unit(), rng.unit(), 0) * 0.04
                let base = SIMD4<Float>(0.5 + 0.4 * sin(9 * u + 3 * v), v, 0.5 + 0.3 * cos(7 * u * v), 1)
                photo[x, y] = base + noise
            }
        }
        func meanError(_ chroma: EncodeOptions.ChromaSubsampling) throws -> Double {
            let bytes = try photo.encoded(as: .jpeg, quality: 90, options: EncodeOptions(chromaSubsampling: chroma))
            let decoded = try PixelBuffer(encoded: bytes)
            var sum = 0.0
            for y in 0..<photo.height {
                for x in 0..<photo.width {
                    let d = abs(decoded[x, y] - photo[x, y]) * 255
                    sum += Double(d.x + d.y + d.z)
                }
            }
            return sum / Double(3 * photo.width * photo.height)
        }
        let subsampled = try meanError(.yuv420), full = try meanError(.yuv444)
        XCTAssertLessThan(subsampled, 2.5)
        XCTAssertLessThan(subsampled, full + 0.5, "4:2:0 \(subsampled) against 4:4:4 \(full)")
    }
}
