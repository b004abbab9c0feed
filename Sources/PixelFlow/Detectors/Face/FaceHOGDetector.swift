import CSIMD
import Foundation

/// The HOG face detector of `FaceDetector` at `.high` accuracy: dlib's frontal face detector
/// (`dlib.get_frontal_face_detector()(image, 1)`) reimplemented, with its filters read from
/// the package's resources (`_FaceHOGModel`).
///
/// The image is first enlarged 2x (dlib's `pyramid_up`: bilinear, corners aligned, to
/// (2w + 2) x (2h + 1) pixels), then searched on a pyramid of layers each 5/6 the size of the
/// one before, down to 64 pixels. On each layer the HOG features (`_HOGFeatures`) are scanned
/// with the five linear filters (10 x 10 cells, one position per cell): a position whose
/// response reaches a filter's threshold is a detection with score response - threshold, its
/// box the filter's window (80 x 80 pixels of the layer, placed as dlib places it) mapped back
/// to the image. Non-maximum suppression keeps the best-scoring detections and drops any that
/// overlaps a kept one (intersection over the two boxes' bounding box above 0.33, or above 0.79
/// of either box).
///
/// - Complexity: O(pixels) for the features (about 3.3x the pixels of the enlarged image over
///   the whole pyramid), and about 6,100 multiply-adds per cell position for the five filters
///   (305 separable terms); scratch memory about 260 bytes a cell of the largest layer, plus the
///   layers' pixels.
struct _FaceHOGDetector: Sendable {
    let model: _FaceHOGModel

    /// A face found: its box in the searched image's pixels, the score and which filter.
    struct Detection: Sendable, Equatable {
        var left: Int
        var top: Int
        var right: Int
        var bottom: Int
        var score: Double
        var filter: Int
        var rect: Rect {
            Rect(x: Double(left), y: Double(top), width: Double(right - left + 1), height: Double(bottom - top + 1))
        }
        var area: Int { max(0, right - left + 1) * max(0, bottom - top + 1) }
    }

    /// Work units reported to a `RenderControl` per search.
    static let progressUnits = 1000

    /// The faces in `image`, best score first. Layers whose window would be smaller than
    /// `minimumSide` pixels in `image` are skipped.
    func detect(_ image: _RGB8, upsample: Bool = true, minimumSide: Int = 0, threads: Int, control: RenderControl? = nil)
        -> [Detection]
    {
        guard image.width > 2, image.height > 2 else {
            control?.advanceUnlessCancelled(Self.progressUnits)
            return []
        }
        let m = model
        let base: _RGB8
        if upsample {
            // dlib's pyramid_up: pyramid_down<2>.rect_up of the image's rectangle.
            let newWidth = Int(((Double(image.width - 1) + 1.25) * 2 + 0.5).rounded(.down)) + 1
            let newHeight = Int(((Double(image.height - 1) + 0.75) * 2 + 0.5).rounded(.down)) + 1
            base = image.resized(width: newWidth, height: newHeight, threads: threads)
        } else {
            base = image
        }
        // The number of layers: dlib counts the rectangle's shrinks until one is below the
        // minimum layer size.
        let n = Double(m.pyramidRate)
        var corners = (0, 0, base.width - 1, base.height - 1)
        var levels = 0
        repeat {
            func down(_ v: Int) -> Int { Int(((Double(v) - 0.3) * (n - 1) / n + 0.5).rounded(.down)) }
            corners = (down(corners.0), down(corners.1), down(corners.2), down(corners.3))
            levels += 1
        } while corners.2 - corners.0 + 1 >= m.minimumLayerWidth && corners.3 - corners.1 + 1 >= m.minimumLayerHeight
            && levels < 1000
        // Window side of each layer in the original image's pixels, to skip layers below the
        // minimum face size.
        let windowSide = Double(m.cellSize * (m.filterRows - 2) + 2 * m.cellSize)  // 80 for dlib's model
        // The layers first (each from the one before), then the layers' features and filters
        // as independent work items, largest first: one synchronisation per layer instead of
        // one per pass, which matters on a shared machine.
        var layers = [base]
        for level in 1..<max(levels, 1) {
            if control?.isCancelled == true { return [] }
            let previous = layers[level - 1], rate = m.pyramidRate
            layers.append(
                previous.resized(
                    width: (rate - 1) * previous.width / rate, height: (rate - 1) * previous.height / rate, threads: threads))
        }
        let perLevel = _HOGLevelSlots(count: levels)
        // Progress: each layer's share of the pixels, the shares adding up to `progressUnits`.
        let allPixels = max(layers.reduce(0) { $0 + $1.width * $1.height }, 1)
        var before = 0
        let units = layers.map { layer -> Int in
            let start = Self.progressUnits * before / allPixels
            before += layer.width * layer.height
            return Self.progressUnits * before / allPixels - start
        }
        let token = control?.token
        let frozenLayers = layers
        _parallelFor(levels, threads: threads) { level in
            let layer = frozenLayers[level]
            defer { control?.advanceUnlessCancelled(units[level]) }
            if token?.isCancelled == true { return }
            let side = windowSide * pow(n / (n - 1), Double(level)) / (upsample ? 2 : 1)
            if side < Double(minimumSide) { return }
            let features = _HOGFeatures(layer, cellSize: m.cellSize, filterRows: m.filterRows, filterColumns: m.filterColumns)
            if features.rows == 0 || features.columns == 0 { return }
            var mapped: [Detection] = []
            for d in scan(features, threads: 1, token: token) {
                var box = (Double(d.left), Double(d.top), Double(d.right), Double(d.bottom))
                for _ in 0..<level {
                    box = (
                        box.0 * n / (n - 1) + 0.3, box.1 * n / (n - 1) + 0.3, box.2 * n / (n - 1) + 0.3, box.3 * n / (n - 1) + 0.3
                    )
                }
                func round(_ v: Double) -> Int { Int((v + 0.5).rounded(.down)) }
                mapped.append(
                    Detection(
                        left: round(box.0), top: round(box.1), right: round(box.2), bottom: round(box.3), score: d.score,
                        filter: d.filter))
            }
            perLevel.set(level, mapped)
        }
        if control?.isCancelled == true { return [] }
        // Filter by filter, each in layer order: the order one pass would find them in.
        let byLevel = (0..<levels).map { perLevel.get($0) }
        var found: [Detection] = []
        for k in 0..<m.filterCount {
            for detections in byLevel { found += detections.filter { $0.filter == k } }
        }
        // Best first; ties in the order found (filter, then layer, then position).
        let order = found.indices.sorted { found[$0].score > found[$1].score || (found[$0].score == found[$1].score && $0 < $1) }
        var kept: [Detection] = []
        for i in order where !kept.contains(where: { overlaps($0, found[i]) }) {
            kept.append(found[i])
        }
        if upsample {
            // dlib's pyramid_down<2>.rect_down.
            func round(_ v: Double) -> Int { Int((v + 0.5).rounded(.down)) }
            kept = kept.map { d in
                Detection(
                    left: round(Double(d.left) / 2 - 1.25), top: round(Double(d.top) / 2 - 0.75),
                    right: round(Double(d.right) / 2 - 1.25), bottom: round(Double(d.bottom) / 2 - 0.75), score: d.score,
                    filter: d.filter)
            }
        }
        return kept
    }

    /// dlib's `test_box_overlap`: the intersection against the two boxes' bounding box and
    /// against each box.
    func overlaps(_ a: Detection, _ b: Detection) -> Bool {
        let inner = Detection(
            left: max(a.left, b.left), top: max(a.top, b.top), right: min(a.right, b.right), bottom: min(a.bottom, b.bottom),
            score: 0, filter: 0
        ).area
        if inner == 0 { return false }
        let outer = Detection(
            left: min(a.left, b.left), top: min(a.top, b.top), right: max(a.right, b.right), bottom: max(a.bottom, b.bottom),
            score: 0, filter: 0
        ).area
        let i = Double(inner)
        return i / Double(outer) > model.overlapIoU || i / Double(a.area) > model.overlapCovered
            || i / Double(b.area) > model.overlapCovered
    }

    /// The detections of one layer, in the layer's pixels: every filter position whose response
    /// reaches the filter's threshold.
    func scan(_ f: _HOGFeatures, threads: Int, token: CancellationToken? = nil) -> [Detection] {
        let m = model
        let rows = f.paddedRows - m.filterRows + 1, columns = f.paddedColumns - m.filterColumns + 1
        guard rows > 0, columns > 0 else { return [] }
        let responses = self.responses(f, rows: rows, columns: columns, threads: threads, token: token)
        if token?.isCancelled == true { return [] }
        var out: [Detection] = []
        let cell = m.cellSize
        // dlib's fhog_to_image: a cell index to the centre of that cell in the layer's pixels.
        func pixel(_ p: Int, padding: Int) -> Int {
            let v = (p + 1 - (padding - 1) / 2) * cell + 1
            return v >= 0 ? v + cell / 2 : v - cell / 2
        }
        for k in 0..<m.filterCount {
            let threshold = m.thresholds[k]
            let response = responses[k]
            for y in 0..<rows {
                for x in 0..<columns {
                    let r = response[y * columns + x]
                    if Double(r) >= threshold {
                        out.append(
                            Detection(
                                left: pixel(x, padding: m.filterColumns), top: pixel(y, padding: m.filterRows),
                                right: pixel(x + m.filterColumns - 1, padding: m.filterColumns),
                                bottom: pixel(y + m.filterRows - 1, padding: m.filterRows), score: Double(r) - threshold,
                                filter: k))
                    }
                }
            }
        }
        return out
    }

    /// Output rows per work item of `responses`: fixed, so that the values do not depend on
    /// the thread count.
    static let bandRows = 48

    /// The filters' responses: for filter k, `rows` x `columns` floats, the response at (y, x)
    /// being the sum over the filter's cells (i, j) of the dot product of its 31 weights with
    /// the features of cell (y + i, x + j) of the padded feature image. Computed as dlib does,
    /// with the separable terms: per term, a horizontal pass of its row filter over the feature
    /// plane, then a vertical pass of its column filter added into the filter's response
    /// (about 6,100 multiply-adds a position instead of 15,500). Both passes run in CSIMD's
    /// `pf_correlate_v_run` (eight sums at a time, AVX2 where the processor has it), which sums
    /// the taps in order without contraction: the same floats as a plain loop.
    func responses(_ f: _HOGFeatures, rows: Int, columns: Int, threads: Int, token: CancellationToken? = nil) -> [[Float]] {
        let m = model
        let fr = m.filterRows, fc = m.filterColumns, count = m.filterCount
        let pr = f.paddedRows, pc = f.paddedColumns
        // The features one plane after the other, each pr x pc floats, 8 floats of slack.
        var planar = [Float](repeating: 0, count: _HOGFeatures.planeCount * pr * pc + 8)
        f.values.withUnsafeBufferPointer { v in
            for cell in 0..<(pr * pc) {
                for p in 0..<_HOGFeatures.planeCount { planar[p * pr * pc + cell] = v[cell * _HOGFeatures.stride + p] }
            }
        }
        let bands = (rows + Self.bandRows - 1) / Self.bandRows
        let slots = _HOGRows(count: bands)
        let termCount = m.termFilter.count
        planar.withUnsafeBufferPointer { planarBuffer in
            m.termValues.withUnsafeBufferPointer { termBuffer in
                let features = _UnsafeSendable(planarBuffer.baseAddress!)
                let terms = _UnsafeSendable(termBuffer.baseAddress!)
                _parallelFor(bands, threads: threads) { band in
                    let y0 = band * Self.bandRows, bandHeight = min(Self.bandRows, rows - y0)
                    var out = [Float](repeating: 0, count: count * bandHeight * columns)
                    if token?.isCancelled == true {
                        slots.set(band, out)
                        return
                    }
                    let inputRows = bandHeight + fr - 1
                    // Both passes on the band as one flat row of `pc`-float rows (the feature
                    // plane's stride), so each is one call of the vectorised correlation
                    // (AVX2 where the processor has it); the floats past `columns` in each row
                    // mix two rows and are never read.
                    var horizontal = [Float](repeating: 0, count: inputRows * pc)
                    var bandOut = [Float](repeating: 0, count: count * bandHeight * pc)
                    var taps = [Float](repeating: 1, count: fr + 1)
                    var sources = [UnsafePointer<Float>?](repeating: nil, count: max(fc, fr + 1))
                    bandOut.withUnsafeMutableBufferPointer { o in
                        horizontal.withUnsafeMutableBufferPointer { h in
                            taps.withUnsafeMutableBufferPointer { tapBuffer in
                                sources.withUnsafeMutableBufferPointer { rowsBuffer in
                                    let hp = h.baseAddress!, rowsOf = rowsBuffer.baseAddress!
                                    for t in 0..<termCount {
                                        let term = terms.value + t * (fr + fc)
                                        let column = term, row = term + fr
                                        let plane = features.value + m.termPlane[t] * pr * pc + y0 * pc
                                        // Horizontal: h[i] = sum_j row[j] * plane[i + j].
                                        for j in 0..<fc { rowsOf[j] = plane + j }
                                        pf_correlate_v_run(rowsOf, row, Int32(fc), inputRows * pc - fc + 1, hp)
                                        // Vertical, added into the term's filter's responses:
                                        // r[x] = (sum_i column[i] * h[x + i * pc]) + 1 * r[x], the
                                        // taps summed from 0 then added to r as before.
                                        let response = o.baseAddress! + m.termFilter[t] * bandHeight * pc
                                        for i in 0..<fr {
                                            rowsOf[i] = UnsafePointer(hp + i * pc)
                                            tapBuffer[i] = column[i]
                                        }
                                        rowsOf[fr] = UnsafePointer(response)
                                        pf_correlate_v_run(
                                            rowsOf, tapBuffer.baseAddress!, Int32(fr + 1), (bandHeight - 1) * pc + columns,
                                            response)
                                    }
                                }
                            }
                        }
                    }
                    for k in 0..<count {
                        for y in 0..<bandHeight {
                            let from = (k * bandHeight + y) * pc, to = (k * bandHeight + y) * columns
                            out.replaceSubrange(to..<(to + columns), with: bandOut[from..<(from + columns)])
                        }
                    }
                    slots.set(band, out)
                }
            }
        }
        // Bands back into one image per filter.
        var result = [[Float]](repeating: [Float](repeating: 0, count: rows * columns), count: count)
        for band in 0..<bands {
            let y0 = band * Self.bandRows, bandHeight = min(Self.bandRows, rows - y0)
            let part = slots.get(band)
            for k in 0..<count {
                result[k].replaceSubrange(
                    (y0 * columns)..<((y0 + bandHeight) * columns),
                    with: part[(k * bandHeight * columns)..<((k + 1) * bandHeight * columns)])
            }
        }
        return result
    }
}

/// One slot per pyramid layer for the layer-parallel search; each work item writes only its own.
final class _HOGLevelSlots: Sendable {
    private let slots: Locked<[[_FaceHOGDetector.Detection]]>
    init(count: Int) { slots = Locked(Array(repeating: [], count: count)) }
    func set(_ i: Int, _ values: [_FaceHOGDetector.Detection]) { slots.withLock { $0[i] = values } }
    func get(_ i: Int) -> [_FaceHOGDetector.Detection] { slots.withLock { $0[i] } }
}
