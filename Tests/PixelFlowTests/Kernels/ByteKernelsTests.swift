import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The 8-bit order-statistic kernels (`byteStencilTile` and the C row kernels under it,
/// Sources/CSIMD/include/CSIMDBytes.h, on 16-byte vectors and, through the dispatched
/// `pf_u8_*_run` entry points, on 32-byte AVX2 vectors for rows of 32 bytes or more) against a
/// plain scalar reference. Tolerance 0.
final class ByteKernelsTests: XCTestCase {
    /// Random bytes; `levels` small makes many ties.
    func randomBytes(_ count: Int, seed: UInt64, levels: Int = 256) -> [UInt8] {
        var rng = SeededRandom(seed: seed)
        return (0..<count).map { _ in UInt8(Int(rng.next() % UInt64(levels))) }
    }

    /// The stencil by definition: per channel, the max, min or median over the footprint.
    func reference(_ s: ByteStencil, _ input: [UInt8], stride: Int, width: Int, height: Int, bpp: Int) -> [UInt8] {
        let h = s.halo
        var offsets: [(dx: Int, dy: Int)] = []
        switch s {
        case let .rectangle(_, w, hh):
            for dy in -(hh / 2)...(hh / 2) { for dx in -(w / 2)...(w / 2) { offsets.append((dx, dy)) } }
        case let .spans(_, spans):
            for t in spans { for dx in -t.halfWidth...t.halfWidth { offsets.append((dx, t.dy)) } }
        case let .median(r):
            for dy in -r...r { for dx in -r...r { offsets.append((dx, dy)) } }
        }
        var out = [UInt8](repeating: 0, count: width * height * bpp)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<bpp {
                    let values = offsets.map { input[(y + h.y + $0.dy) * stride + (x + h.x + $0.dx) * bpp + c] }
                    let v: UInt8
                    switch s {
                    case let .rectangle(m, _, _), let .spans(m, _): v = m ? values.max()! : values.min()!
                    case .median: v = values.sorted()[values.count / 2]
                    }
                    out[(y * width + x) * bpp + c] = v
                }
            }
        }
        return out
    }

    func check(
        _ s: ByteStencil, width: Int, height: Int, bpp: Int, seed: UInt64, levels: Int = 256,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let h = s.halo
        let iw = width + 2 * h.x, ih = height + 2 * h.y
        let stride = iw * bpp + 3  // rows not packed
        let input = randomBytes(stride * ih, seed: seed, levels: levels)
        let outStride = width * bpp + 5
        var output = [UInt8](repeating: 0xAB, count: outStride * height)
        let arena = Arena()
        input.withUnsafeBufferPointer { i in
            let rows = (0..<ih).map { Optional(i.baseAddress! + $0 * stride) }
            output.withUnsafeMutableBufferPointer { o in
                byteStencilTile(
                    s, input: rows, output: o.baseAddress!, outputStride: outStride,
                    width: width, height: height, bpp: bpp, arena: arena)
            }
        }
        let expected = reference(s, input, stride: stride, width: width, height: height, bpp: bpp)
        for y in 0..<height {
            for x in 0..<width * bpp where output[y * outStride + x] != expected[y * width * bpp + x] {
                XCTFail(
                    "\(s) \(width)x\(height) bpp \(bpp): byte \(x) of row \(y) is \(output[y * outStride + x]), "
                        + "expected \(expected[y * width * bpp + x])", file: file, line: line)
                return
            }
            // Padding between rows is untouched.
            for x in width * bpp..<outStride where output[y * outStride + x] != 0xAB {
                XCTFail("\(s): wrote past the row end", file: file, line: line); return
            }
        }
    }

    /// Odd sizes, rows shorter and longer than a 16-byte vector, both pixel sizes; rows of 31,
    /// 32 and 64 bytes around the 32-byte vectors of the AVX2 kernels (`pf_u8_*_run` take them
    /// from 32 bytes on; gray rows of 8 pixels and RGBA rows of 8 are 8 and 32 bytes).
    let sizes = [(1, 1), (3, 2), (5, 7), (8, 2), (17, 3), (31, 2), (32, 3), (33, 9), (61, 4), (64, 2)]

    func testRectangleExtremaSmallAndLargeWindows() {
        var seed: UInt64 = 1
        for bpp in [4, 1] {
            for (w, h) in [
                (1, 1), (3, 3), (5, 5), (7, 1), (1, 7), (9, 11), (15, 15), (17, 3), (3, 17), (31, 21), (65, 1), (1, 67),
            ] {
                for (width, height) in sizes {
                    for maximum in [true, false] {
                        check(
                            .rectangle(maximum: maximum, width: w, height: h), width: width, height: height, bpp: bpp, seed: seed)
                        seed += 1
                    }
                }
            }
        }
    }

    /// `byteRectangleTile` reading the source in place through column runs and row pointers
    /// (as the byte path's border tiles do: clamped columns repeat one, transparent columns
    /// and rows are zeros), against the reference on the gathered input.
    func testRectangleTileOverColumnRunsAndZeroRows() {
        var seed: UInt64 = 500
        for bpp in [4, 1] {
            for (w, h) in [(5, 5), (3, 1), (1, 3), (7, 9), (5, 15)] {
                for width in [1, 6, 40] {
                    for maximum in [true, false] {
                        seed += 1
                        let stencil = ByteStencil.rectangle(maximum: maximum, width: w, height: h)
                        let height = 7, sourceWidth = width + 3, sourceHeight = 9
                        let iw = width + w - 1, ih = height + h - 1
                        let source = randomBytes(sourceWidth * sourceHeight * bpp, seed: seed)
                        // Input column i: transparent for the first, clamped to 0 for the next
                        // two, then the source from column 1, clamped at its right end.
                        let columns = (0..<iw).map { i in i == 0 ? -1 : Swift.min(sourceWidth - 1, Swift.max(0, i - 2)) }
                        var runs: [ByteColumnRun] = []
                        for (i, c) in columns.enumerated() {
                            if let last = runs.last, (c < 0) == (last.from < 0), c < 0 || c == last.from + last.count,
                                last.at + last.count == i
                            {
                                runs[runs.count - 1].count += 1
                            } else {
                                runs.append(ByteColumnRun(at: i, from: c, count: 1))
                            }
                        }
                        // Input row j: transparent every fourth row, else source row j mod 9.
                        let rowSources = (0..<ih).map { j in j % 4 == 3 ? -1 : j % sourceHeight }
                        var gathered = [UInt8](repeating: 0, count: iw * ih * bpp)
                        for j in 0..<ih where rowSources[j] >= 0 {
                            for i in 0..<iw where columns[i] >= 0 {
                                for c in 0..<bpp {
                                    gathered[(j * iw + i) * bpp + c] =
                                        source[(rowSources[j] * sourceWidth + columns[i]) * bpp + c]
                                }
                            }
                        }
                        let expected = reference(stencil, gathered, stride: iw * bpp, width: width, height: height, bpp: bpp)
                        let zeros = [UInt8](repeating: 0, count: sourceWidth * bpp)
                        var output = [UInt8](repeating: 0xAB, count: width * height * bpp)
                        source.withUnsafeBufferPointer { src in
                            zeros.withUnsafeBufferPointer { z in
                                let rows: [UnsafePointer<UInt8>?] = rowSources.map {
                                    $0 < 0 ? z.baseAddress! : src.baseAddress! + $0 * sourceWidth * bpp
                                }
                                runs.withUnsafeBufferPointer { r in
                                    output.withUnsafeMutableBufferPointer { o in
                                        byteRectangleTile(
                                            maximum: maximum, width: w, height: h, rows: rows, runs: r,
                                            output: o.baseAddress!, outputStride: width * bpp, outputWidth: width,
                                            outputHeight: height, bpp: bpp, arena: Arena())
                                    }
                                }
                            }
                        }
                        XCTAssertEqual(output, expected, "\(stencil) width \(width) bpp \(bpp), runs \(runs.count)")
                    }
                }
            }
        }
    }

    func testRectangleExtremaLargestSide() {
        check(.rectangle(maximum: true, width: 401, height: 3), width: 5, height: 2, bpp: 4, seed: 7)
        check(.rectangle(maximum: false, width: 3, height: 401), width: 6, height: 3, bpp: 1, seed: 8)
    }

    func testDiscSpans() {
        var seed: UInt64 = 100
        for bpp in [4, 1] {
            for radius in [1.0, 1.5, 2.5, 4, 7.3, 12] {
                for (width, height) in sizes {
                    for maximum in [true, false] {
                        check(
                            .spans(maximum: maximum, spans: discSpans(radius: radius)), width: width, height: height, bpp: bpp,
                            seed: seed)
                        seed += 1
                    }
                }
            }
        }
    }

    func testMediansAllRadiiWithAndWithoutTies() {
        var seed: UInt64 = 500
        for bpp in [4, 1] {
            for r in [1, 2, 3, 4, 6] {
                for (width, height) in sizes {
                    for levels in [256, 3] {
                        check(.median(radius: r), width: width, height: height, bpp: bpp, seed: seed, levels: levels)
                        seed += 1
                    }
                }
            }
        }
        // The filter's largest radius.
        check(.median(radius: 50), width: 3, height: 2, bpp: 4, seed: 9)
    }
}
