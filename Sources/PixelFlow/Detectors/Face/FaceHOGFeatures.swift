import CSIMD
import Foundation

/// An 8-bit RGB image, three bytes a pixel, for the HOG face detector.
struct _RGB8: Sendable {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    /// The RGB bytes of `buffer` (any format; floats clamped and rounded to bytes, gray
    /// repeated in the three channels).
    init(_ buffer: PixelBuffer) {
        width = buffer.width
        height = buffer.height
        let w = width
        var out = [UInt8](repeating: 0, count: 3 * w * height)
        out.withUnsafeMutableBufferPointer { dst in
            buffer.withUnsafeRows { y, row in
                let d = dst.baseAddress! + 3 * w * y
                switch buffer.format {
                case .gray8:
                    let s = row.assumingMemoryBound(to: UInt8.self)
                    for x in 0..<w { d[3 * x] = s[x]; d[3 * x + 1] = s[x]; d[3 * x + 2] = s[x] }
                case .rgba8:
                    let s = row.assumingMemoryBound(to: UInt8.self)
                    for x in 0..<w { d[3 * x] = s[4 * x]; d[3 * x + 1] = s[4 * x + 1]; d[3 * x + 2] = s[4 * x + 2] }
                case .bgra8, .argb8:
                    let s = row.assumingMemoryBound(to: UInt32.self), layout = buffer.format.packedLayout!
                    for x in 0..<w {
                        let p = UInt32(littleEndian: s[x])
                        d[3 * x] = layout.red(p); d[3 * x + 1] = layout.green(p); d[3 * x + 2] = layout.blue(p)
                    }
                case .rgba16:
                    let s = row.assumingMemoryBound(to: UInt16.self)
                    for x in 0..<w {
                        for c in 0..<3 { d[3 * x + c] = UInt8(s[4 * x + c] >> 8) }
                    }
                case .rgbaF32:
                    let s = row.assumingMemoryBound(to: Float.self)
                    for x in 0..<w {
                        for c in 0..<3 { d[3 * x + c] = _CascadeKernels.byteFromUnit(s[4 * x + c]) }
                    }
                case .grayF32:
                    let s = row.assumingMemoryBound(to: Float.self)
                    for x in 0..<w {
                        let v = _CascadeKernels.byteFromUnit(s[x])
                        d[3 * x] = v; d[3 * x + 1] = v; d[3 * x + 2] = v
                    }
                }
            }
        }
        pixels = out
    }

    init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == 3 * width * height)
        self.width = width; self.height = height; self.pixels = pixels
    }

    /// A gray image repeated in the three channels.
    init(gray: _Gray8) {
        width = gray.width; height = gray.height
        var out = [UInt8](repeating: 0, count: 3 * gray.pixels.count)
        for (i, v) in gray.pixels.enumerated() { out[3 * i] = v; out[3 * i + 1] = v; out[3 * i + 2] = v }
        pixels = out
    }

    /// Bilinear resampling to `width` x `height` with the corners of the two images aligned
    /// (source position = destination position x (source size - 1) / (destination size - 1)),
    /// weights in single precision, values truncated: what dlib's `resize_image` does (dlib
    /// weighs the four taps at once, here the rows are blended first, so a value can differ by
    /// one where the exact result is an integer).
    func resized(width newWidth: Int, height newHeight: Int, threads: Int = 1) -> _RGB8 {
        guard newWidth > 0, newHeight > 0, width > 0, height > 0 else {
            return _RGB8(
                width: max(0, newWidth), height: max(0, newHeight),
                pixels: [UInt8](repeating: 0, count: 3 * max(0, newWidth) * max(0, newHeight)))
        }
        let xScale = Double(width - 1) / Double(max(newWidth - 1, 1))
        let yScale = Double(height - 1) / Double(max(newHeight - 1, 1))
        var left = [Int](repeating: 0, count: newWidth), right = left
        var fraction = [Float](repeating: 0, count: newWidth)
        for c in 0..<newWidth {
            let x = Double(c) * xScale
            let l = min(Int(x.rounded(.down)), width - 1)
            left[c] = 3 * l
            right[c] = 3 * min(l + 1, width - 1)
            fraction[c] = Float(x - Double(l))
        }
        var out = [UInt8](repeating: 0, count: 3 * newWidth * newHeight)
        let w = width
        let oldHeight = height
        left.withUnsafeBufferPointer { leftBuffer in
            right.withUnsafeBufferPointer { rightBuffer in
                fraction.withUnsafeBufferPointer { fractionBuffer in
                    pixels.withUnsafeBufferPointer { srcBuffer in
                        out.withUnsafeMutableBufferPointer { dstBuffer in
                            let leftOf = _UnsafeSendable(leftBuffer.baseAddress!),
                                rightOf = _UnsafeSendable(rightBuffer.baseAddress!)
                            let fractionOf = _UnsafeSendable(fractionBuffer.baseAddress!)
                            let src = _UnsafeSendable(srcBuffer.baseAddress!)
                            let dst = _UnsafeMutableSendable(dstBuffer.baseAddress!)
                            let bandRows = 16
                            _parallelFor((newHeight + bandRows - 1) / bandRows, threads: threads) { band in
                                // One source row pair blended vertically (in vector registers),
                                // then two taps a channel along the row.
                                var line = [Float](repeating: 0, count: 3 * w + 8)
                                line.withUnsafeMutableBufferPointer { lineBuffer in
                                    let blended = lineBuffer.baseAddress!
                                    for r in (band * bandRows)..<min(newHeight, (band + 1) * bandRows) {
                                        let y = Double(r) * yScale
                                        let top = min(Int(y.rounded(.down)), oldHeight - 1)
                                        let bottom = min(top + 1, oldHeight - 1)
                                        let fy = Float(y - Double(top)), gy = 1 - fy
                                        let t = src.value + 3 * w * top, b = src.value + 3 * w * bottom
                                        var i = 0
                                        while i + 8 <= 3 * w {
                                            let tv = SIMD8<Float>(
                                                SIMD8<Int32>(
                                                    truncatingIfNeeded: UnsafeRawPointer(t + i).loadUnaligned(
                                                        as: SIMD8<UInt8>.self)))
                                            let bv = SIMD8<Float>(
                                                SIMD8<Int32>(
                                                    truncatingIfNeeded: UnsafeRawPointer(b + i).loadUnaligned(
                                                        as: SIMD8<UInt8>.self)))
                                            UnsafeMutableRawPointer(blended + i).storeBytes(
                                                of: tv * gy + bv * fy, as: SIMD8<Float>.self)
                                            i += 8
                                        }
                                        while i < 3 * w {
                                            blended[i] = Float(t[i]) * gy + Float(b[i]) * fy
                                            i += 1
                                        }
                                        let d = dst.value + 3 * newWidth * r
                                        let line = UnsafeRawPointer(blended)
                                        for c in 0..<newWidth {
                                            let fx = fractionOf.value[c], gx = 1 - fx
                                            // The three channels in one vector (the fourth lane
                                            // reads the next pixel or the slack, and is dropped).
                                            let a = line.loadUnaligned(fromByteOffset: 4 * leftOf.value[c], as: SIMD4<Float>.self)
                                            let b = line.loadUnaligned(
                                                fromByteOffset: 4 * rightOf.value[c], as: SIMD4<Float>.self)
                                            // Between 0 and 255 by construction (convex weights):
                                            // truncated as dlib truncates.
                                            let v = pf_trunc_to_int4(a * gx + b * fx)
                                            d[3 * c] = UInt8(truncatingIfNeeded: v[0])
                                            d[3 * c + 1] = UInt8(truncatingIfNeeded: v[1])
                                            d[3 * c + 2] = UInt8(truncatingIfNeeded: v[2])
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return _RGB8(width: newWidth, height: newHeight, pixels: out)
    }
}

/// Felzenszwalb's HOG features (31 per cell) of an RGB image, laid out for the filter scan:
/// cell by cell, `stride` floats a cell (the 31 features, then zeros), with a border of zero
/// cells around them as wide as the filter needs.
///
/// The features, per cell of 8 x 8 pixels (P. Felzenszwalb, R. Girshick, D. McAllester,
/// D. Ramanan, "Object Detection with Discriminatively Trained Part Based Models", IEEE PAMI
/// 32(9), 2010, as dlib's `extract_fhog_features` computes them):
/// - each pixel's gradient is the central difference in x and y of the channel where it is
///   longest (on a tie the later channel), snapped to the nearest of 18 directions (9 axes,
///   both signs), and its length is spread over the four nearest cells by bilinear weights;
/// - each cell is normalised by the gradient energy of the four 2 x 2 blocks of cells around
///   it (energy: the sum over the 9 axes of the squared sum of both signs, plus 1e-4), each
///   normalised value capped at 0.2;
/// - features 0...17: the 18 directions, summed over the four normalisations and halved;
///   18...26: the 9 axes (both signs added) likewise; 27...30: per normalisation, the sum of
///   the 18 capped values times 0.2357.
/// The outermost ring of cells, whose blocks would leave the image, gives no features: an
/// image of `r` x `c` cells (the size in pixels over 8, rounded) has (r - 2) x (c - 2).
struct _HOGFeatures: Sendable {
    static let planeCount = 31
    /// Floats per cell (31 features padded to a multiple of 8 for the vector loops).
    static let stride = 32

    /// Feature cells (without the border).
    let rows: Int
    let columns: Int
    /// Zero cells above and left of the features; `rows + paddingRows` etc. fit a filter.
    let top: Int
    let left: Int
    /// Cells a row of `values`, borders included.
    let paddedColumns: Int
    let paddedRows: Int
    /// `paddedRows * paddedColumns * stride` floats.
    var values: [Float]

    /// The feature of `plane` in feature cell (`row`, `column`), border excluded.
    func value(plane: Int, row: Int, column: Int) -> Float {
        values[((row + top) * paddedColumns + column + left) * Self.stride + plane]
    }

    /// Computes the features of `image` with `cellSize`-pixel cells, bordered for a filter of
    /// `filterRows` x `filterColumns` cells (dlib's padding: (size - 1) / 2 zero cells before,
    /// size / 2 after). Threads share the work by bands of rows; the values do not depend on
    /// the thread count.
    init(_ image: _RGB8, cellSize: Int, filterRows: Int = 1, filterColumns: Int = 1, threads: Int = 1) {
        let cellRows = Int(Float(image.height) / Float(cellSize) + 0.5)
        let cellColumns = Int(Float(image.width) / Float(cellSize) + 0.5)
        rows = max(cellRows - 2, 0)
        columns = max(cellColumns - 2, 0)
        top = (filterRows - 1) / 2
        left = (filterColumns - 1) / 2
        paddedRows = rows > 0 && columns > 0 ? rows + filterRows - 1 : 0
        paddedColumns = rows > 0 && columns > 0 ? columns + filterColumns - 1 : 0
        values = [Float](repeating: 0, count: paddedRows * paddedColumns * Self.stride)
        guard rows > 0, columns > 0 else { return }
        let histogram = Self.histogram(image, cellSize: cellSize, cellRows: cellRows, cellColumns: cellColumns, threads: threads)
        Self.normalise(
            histogram, cellRows: cellRows, cellColumns: cellColumns, into: &values, rows: rows, columns: columns,
            top: top, left: left, paddedColumns: paddedColumns, threads: threads)
    }

    /// Pixel rows per band of the histogram pass: fixed, so that the sums (and so the
    /// features) are the same whatever the number of threads.
    static let bandRows = 32

    /// The 18-direction histograms of the cells, with one extra cell all around
    /// ((cellRows + 2) x (cellColumns + 2) x 18 floats).
    static func histogram(_ image: _RGB8, cellSize: Int, cellRows: Int, cellColumns: Int, threads: Int) -> [Float] {
        let hw = cellColumns + 2, hh = cellRows + 2
        let visibleRows = min(cellRows * cellSize, image.height) - 1
        let visibleColumns = min(cellColumns * cellSize, image.width) - 1
        var histogram = [Float](repeating: 0, count: hh * hw * 18)
        guard visibleRows > 1, visibleColumns > 1 else { return histogram }
        let width = image.width
        let cell = Float(cellSize)
        // Per column: the left cell (histogram coordinates) and the two weights.
        var cellOfColumn = [Int32](repeating: 0, count: visibleColumns)
        var weightRight = [Float](repeating: 0, count: visibleColumns)
        for x in 1..<visibleColumns {
            let xp = (Float(x) + 0.5) / cell + 0.5
            let ix = Int(xp)
            cellOfColumn[x] = Int32(ix)
            weightRight[x] = xp - Float(ix)
        }
        let bands = (visibleRows - 1 + bandRows - 1) / bandRows
        let partials = _HOGBands(count: bands)
        // The channels one after the other (width x height bytes each), so that eight pixels of
        // a channel are one vector load.
        let plane = image.width * image.height
        var planar = [UInt8](repeating: 0, count: 3 * plane + 8)
        image.pixels.withUnsafeBufferPointer { src in
            for i in 0..<plane {
                planar[i] = src[3 * i]; planar[plane + i] = src[3 * i + 1]; planar[2 * plane + i] = src[3 * i + 2]
            }
        }
        planar.withUnsafeBufferPointer { pixelBuffer in
            Self.directionTable.withUnsafeBufferPointer { directionBuffer in
                let px = _UnsafeSendable(pixelBuffer.baseAddress!)
                let directionsOf = _UnsafeSendable(directionBuffer.baseAddress!)
                let cellOfColumnCopy = cellOfColumn, weightRightCopy = weightRight
                _parallelFor(bands, threads: threads) { band in
                    let y0 = 1 + band * bandRows, y1 = min(y0 + bandRows, visibleRows)
                    // Rows of the histogram this band touches.
                    let firstCell = Int(((Float(y0) + 0.5) / cell - 0.5).rounded(.down)) + 1
                    let lastCell = Int(((Float(y1 - 1) + 0.5) / cell - 0.5).rounded(.down)) + 2
                    var local = [Float](repeating: 0, count: (lastCell - firstCell + 1) * hw * 18)
                    let p = px.value
                    // One pixel row's votes with their column weights only; the row's two cell rows
                    // then take them times the row's weights (two vector passes instead of two more
                    // scattered additions a pixel).
                    let rowLength = hw * 18
                    var rowVotes = [Float](repeating: 0, count: rowLength)
                    local.withUnsafeMutableBufferPointer { h in
                        rowVotes.withUnsafeMutableBufferPointer { votesBuffer in
                            cellOfColumnCopy.withUnsafeBufferPointer { cellOfColumnBuffer in
                                weightRightCopy.withUnsafeBufferPointer { weightRightBuffer in
                                    let cellOf = cellOfColumnBuffer.baseAddress!, weightOf = weightRightBuffer.baseAddress!
                                    let votes = votesBuffer.baseAddress!
                                    let directions = directionsOf.value
                                    for y in y0..<y1 {
                                        let yp = (Float(y) + 0.5) / cell - 0.5
                                        let iy = Int(yp.rounded(.down))
                                        let wy1 = yp - Float(iy), wy0 = 1 - wy1
                                        let rowA = (iy + 1 - firstCell) * hw, rowB = rowA + hw
                                        let row = p + width * y
                                        votes.update(repeating: 0, count: rowLength)
                                        var x = 1
                                        // Eight pixels at a time: gradients, the longest channel and
                                        // the direction in vector registers, then the votes one by one.
                                        while x + 8 <= visibleColumns {
                                            let g = _HOGFeatures.gradients8(row: row, x: x, width: width, plane: plane)
                                            for i in 0..<8 where g.length[i] > 0 {
                                                let ix = Int(cellOf[x + i])
                                                let wx1 = weightOf[x + i]
                                                let v = g.length[i], slot = ix * 18 + Int(directions[Int(g.index[i])])
                                                votes[slot] += (1 - wx1) * v
                                                votes[slot + 18] += wx1 * v
                                            }
                                            x += 8
                                        }
                                        while x < visibleColumns {
                                            let (v, direction) = _HOGFeatures.gradient(row: row, x: x, width: width, plane: plane)
                                            if v > 0 {
                                                let ix = Int(cellOf[x])
                                                let wx1 = weightOf[x]
                                                votes[ix * 18 + direction] += (1 - wx1) * v
                                                votes[(ix + 1) * 18 + direction] += wx1 * v
                                            }
                                            x += 1
                                        }
                                        let a = h.baseAddress! + rowA * 18, b = h.baseAddress! + rowB * 18
                                        var i = 0
                                        while i + 8 <= rowLength {
                                            let vv = UnsafeRawPointer(votes + i).loadUnaligned(as: SIMD8<Float>.self)
                                            let av = UnsafeRawPointer(a + i).loadUnaligned(as: SIMD8<Float>.self) + vv * wy0
                                            let bv = UnsafeRawPointer(b + i).loadUnaligned(as: SIMD8<Float>.self) + vv * wy1
                                            UnsafeMutableRawPointer(a + i).storeBytes(of: av, as: SIMD8<Float>.self)
                                            UnsafeMutableRawPointer(b + i).storeBytes(of: bv, as: SIMD8<Float>.self)
                                            i += 8
                                        }
                                        while i < rowLength {
                                            a[i] += votes[i] * wy0
                                            b[i] += votes[i] * wy1
                                            i += 1
                                        }
                                    }
                                }
                            }
                        }
                    }
                    partials.set(band, first: firstCell, values: local)
                }
            }
        }
        // Bands in order: the sums are the same whatever ran them.
        for band in 0..<bands {
            let (first, local) = partials.get(band)
            let offset = first * hw * 18
            for i in 0..<local.count { histogram[offset + i] += local[i] }
        }
        return histogram
    }

    /// The 9 gradient axes of the 18 directions (dlib's unit vectors, to 4 decimals).
    static let axisX: (Float, Float, Float, Float, Float, Float, Float, Float, Float) = (
        1, 0.9397, 0.7660, 0.5, 0.1736, -0.1736, -0.5, -0.7660, -0.9397
    )
    static let axisY: (Float, Float, Float, Float, Float, Float, Float, Float, Float) = (
        0, 0.3420, 0.6428, 0.8660, 0.9848, 0.9848, 0.8660, 0.6428, 0.3420
    )

    /// The gradient of pixel `x` of `row` (planar bytes: the rows above and below are `width`
    /// bytes away, the next channel `plane` bytes): the length of the longest channel's
    /// central difference (on a tie the later channel) and its direction 0..<18. The scalar
    /// form of `gradients8`.
    @inline(__always)
    static func gradient(row: UnsafePointer<UInt8>, x: Int, width: Int, plane: Int) -> (Float, Int) {
        var gx: Int32 = 0, gy: Int32 = 0, length: Int32 = -1
        for c in 0..<3 {
            let r = row + c * plane
            let cx = Int32(r[x + 1]) - Int32(r[x - 1])
            let cy = Int32(r[x + width]) - Int32(r[x - width])
            let l = cx * cx + cy * cy
            if l >= length { gx = cx; gy = cy; length = l }
        }
        if length == 0 { return (0, 0) }
        let fx = Float(gx), fy = Float(gy)
        var best: Float = 0
        var direction = 0
        withUnsafeBytes(of: axisX) { ax in
            withUnsafeBytes(of: axisY) { ay in
                for d in 0..<9 {
                    let dot =
                        fx * ax.load(fromByteOffset: 4 * d, as: Float.self) + fy * ay.load(fromByteOffset: 4 * d, as: Float.self)
                    if dot > best {
                        best = dot; direction = d
                    } else if -dot > best {
                        best = -dot; direction = d + 9
                    }
                }
            }
        }
        return (Float(length).squareRoot(), direction)
    }

    /// The direction (0..<18) of every integer gradient (gx, gy) in -255...255, at
    /// `(gy + 255) * 511 + gx + 255`: `gradient`'s choice, looked up instead of nine dot
    /// products a pixel. 261 KB, made once.
    static let directionTable: [UInt8] = {
        var table = [UInt8](repeating: 0, count: 511 * 511)
        withUnsafeBytes(of: axisX) { ax in
            withUnsafeBytes(of: axisY) { ay in
                for gy in -255...255 {
                    for gx in -255...255 {
                        let fx = Float(gx), fy = Float(gy)
                        var best: Float = 0
                        var direction = 0
                        for d in 0..<9 {
                            let dot =
                                fx * ax.load(fromByteOffset: 4 * d, as: Float.self) + fy
                                * ay.load(fromByteOffset: 4 * d, as: Float.self)
                            if dot > best {
                                best = dot; direction = d
                            } else if -dot > best {
                                best = -dot; direction = d + 9
                            }
                        }
                        table[(gy + 255) * 511 + gx + 255] = UInt8(direction)
                    }
                }
            }
        }
        return table
    }()

    /// `gradient` of pixels x...x+7 at once, without the direction: the lengths, and each
    /// gradient's index into `directionTable`.
    @inline(__always)
    static func gradients8(row: UnsafePointer<UInt8>, x: Int, width: Int, plane: Int) -> (
        length: SIMD8<Float>, index: SIMD8<Int32>
    ) {
        var bestX = SIMD8<Int32>(), bestY = SIMD8<Int32>(), bestLength = SIMD8<Int32>(repeating: -1)
        for c in 0..<3 {
            let r = UnsafeRawPointer(row + c * plane + x)
            let l = SIMD8<Int32>(truncatingIfNeeded: r.loadUnaligned(fromByteOffset: -1, as: SIMD8<UInt8>.self))
            let rr = SIMD8<Int32>(truncatingIfNeeded: r.loadUnaligned(fromByteOffset: 1, as: SIMD8<UInt8>.self))
            let u = SIMD8<Int32>(truncatingIfNeeded: r.loadUnaligned(fromByteOffset: -width, as: SIMD8<UInt8>.self))
            let d = SIMD8<Int32>(truncatingIfNeeded: r.loadUnaligned(fromByteOffset: width, as: SIMD8<UInt8>.self))
            let gx = rr &- l, gy = d &- u
            let length = gx &* gx &+ gy &* gy
            let longer = length .>= bestLength
            bestX.replace(with: gx, where: longer)
            bestY.replace(with: gy, where: longer)
            bestLength.replace(with: length, where: longer)
        }
        // Square roots through CSIMD: Swift's SIMD8<Float>.squareRoot() is eight scalar calls here.
        let squared = SIMD8<Float>(bestLength)
        let length = SIMD8<Float>(lowHalf: pf_sqrt4(squared.lowHalf), highHalf: pf_sqrt4(squared.highHalf))
        return (length, (bestY &+ 255) &* 511 &+ (bestX &+ 255))
    }

    static func normalise(
        _ histogram: [Float], cellRows: Int, cellColumns: Int, into values: inout [Float], rows: Int, columns: Int,
        top: Int, left: Int, paddedColumns: Int, threads: Int
    ) {
        let hw = cellColumns + 2
        // Energy of each cell (cellRows x cellColumns).
        var energy = [Float](repeating: 0, count: cellRows * cellColumns)
        for r in 0..<cellRows {
            for c in 0..<cellColumns {
                let h = ((r + 1) * hw + c + 1) * 18
                var e: Float = 0
                for o in 0..<9 {
                    let s = histogram[h + o] + histogram[h + o + 9]
                    e += s * s
                }
                energy[r * cellColumns + c] = e
            }
        }
        let stride = Self.stride
        let out = _HOGRows(count: rows)
        let energyCopy = energy
        _parallelFor(rows, threads: threads) { y in
            var line = [Float](repeating: 0, count: columns * stride)
            for x in 0..<columns {
                func e(_ r: Int, _ c: Int) -> Float { energyCopy[r * cellColumns + c] }
                // The four blocks around cell (y + 1, x + 1) of the unpadded grid.
                let z0 = e(y + 1, x + 1) + e(y + 1, x + 2) + e(y + 2, x + 1) + e(y + 2, x + 2)
                let z1 = e(y, x + 1) + e(y, x + 2) + e(y + 1, x + 1) + e(y + 1, x + 2)
                let z2 = e(y + 1, x) + e(y + 1, x + 1) + e(y + 2, x) + e(y + 2, x + 1)
                let z3 = e(y, x) + e(y, x + 1) + e(y + 1, x) + e(y + 1, x + 1)
                let cap = SIMD4<Float>(0.2, 0.2, 0.2, 0.2) * pf_sqrt4(SIMD4<Float>(z0, z1, z2, z3) + 0.0001)
                let scale = SIMD4<Float>(repeating: 0.1) / cap
                let h = ((y + 2) * hw + x + 2) * 18
                var texture = SIMD4<Float>.zero
                let base = x * stride
                for o in 0..<18 {
                    let v = SIMD4<Float>(repeating: histogram[h + o])
                    let n = v.replacing(with: cap, where: cap .< v) * scale
                    line[base + o] = n.sum()
                    texture += n
                }
                for o in 0..<9 {
                    let v = SIMD4<Float>(repeating: histogram[h + o] + histogram[h + o + 9])
                    let n = v.replacing(with: cap, where: cap .< v) * scale
                    line[base + 18 + o] = n.sum()
                }
                texture *= 2 * 0.2357
                line[base + 27] = texture[0]
                line[base + 28] = texture[1]
                line[base + 29] = texture[2]
                line[base + 30] = texture[3]
            }
            out.set(y, line)
        }
        for y in 0..<rows {
            let line = out.get(y)
            let start = ((y + top) * paddedColumns + left) * stride
            for i in 0..<line.count { values[start + i] = line[i] }
        }
    }
}

/// A pointer carried into `_parallelFor`'s closure: the workers only read through it, and the
/// array it points into outlives the loop (the loop runs inside `withUnsafeBufferPointer`).
struct _UnsafeSendable<T>: @unchecked Sendable {
    let value: UnsafePointer<T>
    init(_ value: UnsafePointer<T>) { self.value = value }
}

/// A pointer the workers of `_parallelFor` write through, each to rows of its own; the buffer
/// it points into outlives the loop (the loop runs inside `withUnsafeMutableBufferPointer`).
struct _UnsafeMutableSendable<T>: @unchecked Sendable {
    let value: UnsafeMutablePointer<T>
    init(_ value: UnsafeMutablePointer<T>) { self.value = value }
}

/// One slot per band of the histogram pass; each work item writes only its own.
final class _HOGBands: Sendable {
    private let slots: Locked<[(Int, [Float])]>
    init(count: Int) { slots = Locked(Array(repeating: (0, []), count: count)) }
    func set(_ i: Int, first: Int, values: [Float]) { slots.withLock { $0[i] = (first, values) } }
    func get(_ i: Int) -> (Int, [Float]) { slots.withLock { $0[i] } }
}

/// One slot per feature row; each work item writes only its own.
final class _HOGRows: Sendable {
    private let slots: Locked<[[Float]]>
    init(count: Int) { slots = Locked(Array(repeating: [], count: count)) }
    func set(_ i: Int, _ values: [Float]) { slots.withLock { $0[i] = values } }
    func get(_ i: Int) -> [Float] { slots.withLock { $0[i] } }
}
