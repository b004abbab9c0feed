import CSIMD

// Exact order-statistic stencils on 8-bit pixels (interleaved RGBA8, 4 bytes a pixel, or
// gray8, 1 byte), per channel: the kernels of the engine's byte path (see BytePlan.swift).
// The row kernels are C (Sources/CSIMD/include/CSIMDBytes.h); this file cuts a tile into
// their calls. Tolerance against a scalar reference: 0 (minima, maxima and medians of bytes
// are exact).

/// A stencil that has an exact 8-bit form: a filter declares it on its `StencilKernel` beside
/// the float kernel, and the byte path runs it when rendering bytes to bytes gives the same
/// result as the float path (`BytePlan`).
package enum ByteStencil: Sendable, Hashable, CustomStringConvertible {
    /// The per-channel maximum (dilation) or minimum (erosion) over a `width` x `height`
    /// window centered on the pixel (both odd), as `rectangleExtremumTile`.
    case rectangle(maximum: Bool, width: Int, height: Int)
    /// The per-channel maximum or minimum over a footprint of horizontal spans (a disc: row
    /// `dy` covers `-halfWidth ... halfWidth`), as `discExtremumTile`.
    case spans(maximum: Bool, spans: [SpanTerm])
    /// The per-channel median over a `(2r+1) x (2r+1)` square, as `Image.median(radius:)`.
    case median(radius: Int)

    /// How far the stencil reaches on each side, in pixels.
    package var halo: (x: Int, y: Int) {
        switch self {
        case let .rectangle(_, w, h): return (w / 2, h / 2)
        case let .spans(_, spans):
            return (spans.map(\.halfWidth).max() ?? 0, spans.map { Swift.abs($0.dy) }.max() ?? 0)
        case let .median(r): return (r, r)
        }
    }

    package var description: String {
        switch self {
        case let .rectangle(m, w, h): return "\(m ? "max" : "min") \(w)x\(h) rectangle"
        case let .spans(m, s): return "\(m ? "max" : "min") over \(s.count) spans"
        case let .median(r): return "median \(2 * r + 1)x\(2 * r + 1)"
        }
    }
}

/// Runs `stencil` on a tile of bytes: the input covers the `width` x `height` output grown by
/// `stencil.halo` on every side, and `input[j]` points at the first pixel of its row `j`
/// (`height + 2 * halo.y` rows of `width + 2 * halo.x` pixels; rows may repeat, as clamped
/// borders do); output row `y` is written at `output + y * outputStride`. `bpp` is 4 (RGBA8)
/// or 1 (gray8). Scratch comes from `arena`.
///
/// - Complexity: per pixel and channel, rectangles: up to `width - 1 + height - 1` byte
///   operations per 16 bytes for sides up to 15, else `log2(width) + 1` across (doubling) and 3
///   down (van Herk/Gil-Werman); spans: the same per span row; medians: about 18 (3x3) or 116
///   (5x5) operations per 16 bytes, `4 (2r + 1)` histogram updates above (Huang 1979).
///   Scratch: one row for rectangles up to 15 rows high, else `2 (height + 2 halo)` rows.
package func byteStencilTile(
    _ stencil: ByteStencil, input: UnsafePointer<UnsafePointer<UInt8>?>,
    output: UnsafeMutablePointer<UInt8>, outputStride: Int,
    width: Int, height: Int, bpp: Int, arena: Arena
) {
    if width <= 0 || height <= 0 { return }
    let n = width * bpp
    switch stencil {
    case let .rectangle(maximum, w, h):
        let isMax: Int32 = maximum ? 1 : 0
        let wide = n + (w - 1) * bpp
        let scratch = arena.allocate(wide, of: UInt8.self)
        if h <= 15 {
            // Down the columns first (two output rows at a time), then across.
            let whole = ByteColumnRun(at: 0, from: 0, count: width + w - 1)
            withUnsafePointer(to: whole) { run in
                byteRectangleTile(
                    maximum: maximum, width: w, height: h, rows: input,
                    runs: UnsafeBufferPointer(start: run, count: 1), output: output, outputStride: outputStride,
                    outputWidth: width, outputHeight: height, bpp: bpp, arena: arena)
            }
        } else {
            // Across first, then van Herk down the columns of the intermediate rows.
            let rows = height + h - 1
            let hp = arena.allocate(rows * n, of: UInt8.self)
            for j in 0..<rows {
                pf_u8_extremum_h_run(input[j]!, hp + j * n, n, bpp, Int32(w), isMax, scratch)
            }
            let suffix = arena.allocate(rows * n, of: UInt8.self)
            let prefix = arena.allocate(n, of: UInt8.self)
            pf_u8_extremum_v_vanherk_run(hp, n, rows, n, Int32(h), output, outputStride, suffix, prefix, isMax)
        }
    case let .spans(maximum, spans):
        let isMax: Int32 = maximum ? 1 : 0
        let halo = stencil.halo
        let maxWidth = 2 * halo.x + 1
        let tmp = arena.allocate(n, of: UInt8.self)
        let scratch = arena.allocate(n + (maxWidth - 1) * bpp, of: UInt8.self)
        for y in 0..<height {
            let d = output + y * outputStride
            var first = true
            for t in spans {
                let src = input[y + halo.y + t.dy]! + (halo.x - t.halfWidth) * bpp
                pf_u8_extremum_h_run(src, first ? d : tmp, n, bpp, Int32(2 * t.halfWidth + 1), isMax, scratch)
                if !first { pf_u8_pick_rows_run(d, tmp, d, n, isMax) }
                first = false
            }
            if first { (d).update(repeating: 0, count: n) }
        }
    case let .median(r):
        if r >= 3 {
            pf_u8_median_histogram(input, Int32(r), width, height, bpp, output, outputStride)
            return
        }
        let padded = Swift.max(n, 16) + 4 * bpp
        let scratch = arena.allocate(15 * padded + 6 * (16 + 4 * bpp), of: UInt8.self)
        for y in 0..<height {
            if r == 1 {
                pf_u8_median3x3_row_run(input + y, output + y * outputStride, n, bpp, scratch)
            } else {
                pf_u8_median5x5_row_run(input + y, output + y * outputStride, n, bpp, scratch)
            }
        }
    }
}

/// A run of a tile's input columns: the `count` columns from `at` read the source columns
/// `from ..< from + count` in order, or are transparent (`from` < 0). A clamped column repeats
/// a source column: a run of its own.
package struct ByteColumnRun: Sendable, Equatable {
    package var at: Int
    package var from: Int
    package var count: Int
    package init(at: Int, from: Int, count: Int) {
        self.at = at
        self.from = from
        self.count = count
    }
}

/// The `width` x `height` rectangle extremum (a dilation or erosion, `height` at most 15)
/// of a tile, reading the source in place: input row `j` (of `outputHeight + height - 1`)
/// is `rows[j]`, a source row at its column 0 (or zeros at least as long as every run's end),
/// and the `outputWidth + width - 1` input columns are `runs` of source columns. Output row
/// `y` goes to `output + y * outputStride`. `bpp` is 4 (RGBA8) or 1 (gray8).
///
/// Down the columns first, into two rows that stay in L1 (two output rows share `height - 1`
/// input rows: `pf_u8_extremum_rows2_run`), then across them. A vertical extremum commutes
/// with a clamp or crop of the columns, so the border tiles need no gathered copy of their
/// input: each run of columns is reduced where it lies in the source. Exact: the same bytes
/// as the reference `max`/`min` over the window, for any tile size.
///
/// - Complexity: per 32 bytes of output (16 without AVX2), `height / 2 + width - 1`
///   operations; scratch: three rows.
package func byteRectangleTile(
    maximum: Bool, width w: Int, height h: Int, rows: UnsafePointer<UnsafePointer<UInt8>?>,
    runs: UnsafeBufferPointer<ByteColumnRun>, output: UnsafeMutablePointer<UInt8>, outputStride: Int,
    outputWidth width: Int, outputHeight height: Int, bpp: Int, arena: Arena
) {
    if width <= 0 || height <= 0 { return }
    let isMax: Int32 = maximum ? 1 : 0
    let n = width * bpp
    let wide = n + (w - 1) * bpp
    let scratch = arena.allocate(wide, of: UInt8.self)
    let columns = (arena.allocate(wide, of: UInt8.self), arena.allocate(wide, of: UInt8.self))
    let window = arena.allocate(h + 1, of: UnsafePointer<UInt8>?.self)
    var y = 0
    while y < height {
        let pair = h >= 2 && y + 1 < height
        for run in runs {
            let d0 = columns.0 + run.at * bpp, d1 = columns.1 + run.at * bpp, length = run.count * bpp
            if run.from < 0 {
                d0.update(repeating: 0, count: length)
                if pair { d1.update(repeating: 0, count: length) }
                continue
            }
            for k in 0..<(pair ? h + 1 : h) { window[k] = rows[y + k]! + run.from * bpp }
            if pair {
                pf_u8_extremum_rows2_run(window, Int32(h), d0, d1, length, isMax)
            } else {
                pf_u8_extremum_rows_run(window, Int32(h), d0, length, isMax)
            }
        }
        pf_u8_extremum_h_run(columns.0, output + y * outputStride, n, bpp, Int32(w), isMax, scratch)
        if pair { pf_u8_extremum_h_run(columns.1, output + (y + 1) * outputStride, n, bpp, Int32(w), isMax, scratch) }
        y += pair ? 2 : 1
    }
}
