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
/// - Complexity: O(pixels) for the features (about 1.5x the pixels of the enlarged image over
///   the whole pyramid), and 5 x 3,100 multiply-adds per cell position for the filters; scratch
///   memory about 130 bytes a cell of the largest layer, plus the layers' pixels.
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
            base = image.resized(width: newWidth, height: newHeight)
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
        var found: [Detection] = []
        var layer = base
        var unitsDone = 0
        for level in 0..<levels {
            if control?.isCancelled == true { return [] }
            if level > 0 {
                let rate = m.pyramidRate
                layer = layer.resized(width: (rate - 1) * layer.width / rate, height: (rate - 1) * layer.height / rate)
            }
            let side = windowSide * pow(n / (n - 1), Double(level)) / (upsample ? 2 : 1)
            let units = (level + 1) * Self.progressUnits / levels - unitsDone
            defer {
                control?.advanceUnlessCancelled(units)
                unitsDone += units
            }
            if side < Double(minimumSide) { continue }
            let features = _HOGFeatures(
                layer, cellSize: m.cellSize, filterRows: m.filterRows, filterColumns: m.filterColumns, threads: threads)
            if features.rows == 0 || features.columns == 0 { continue }
            for d in scan(features, threads: threads, token: control?.token) {
                var box = (Double(d.left), Double(d.top), Double(d.right), Double(d.bottom))
                for _ in 0..<level {
                    box = (
                        box.0 * n / (n - 1) + 0.3, box.1 * n / (n - 1) + 0.3, box.2 * n / (n - 1) + 0.3, box.3 * n / (n - 1) + 0.3
                    )
                }
                func round(_ v: Double) -> Int { Int((v + 0.5).rounded(.down)) }
                found.append(
                    Detection(
                        left: round(box.0), top: round(box.1), right: round(box.2), bottom: round(box.3), score: d.score,
                        filter: d.filter))
            }
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
        let responses = responseRows(f, rows: rows, columns: columns, threads: threads, token: token)
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
            for y in 0..<rows {
                let line = responses[y]
                for x in 0..<columns {
                    let r = line[k * columns + x]
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

    /// The filters' responses, a row of positions at a time: for row y, `filterCount` runs of
    /// `columns` floats. The response at (y, x) of filter k is the sum over the filter's cells
    /// (i, j) of the dot product of its 31 weights with the features of cell (y + i, x + j).
    func responseRows(_ f: _HOGFeatures, rows: Int, columns: Int, threads: Int, token: CancellationToken? = nil) -> [[Float]] {
        let m = model
        let slots = _HOGRows(count: rows)
        let stride = _HOGFeatures.stride
        let paddedColumns = f.paddedColumns
        let fr = m.filterRows, fc = m.filterColumns, count = m.filterCount
        f.values.withUnsafeBufferPointer { valuesBuffer in
            m.weights.withUnsafeBufferPointer { weightsBuffer in
                let values = _UnsafeSendable(valuesBuffer.baseAddress!)
                let weights = _UnsafeSendable(weightsBuffer.baseAddress!)
                _parallelFor(rows, threads: threads) { y in
                    var line = [Float](repeating: 0, count: count * columns)
                    if token?.isCancelled == true {
                        slots.set(y, line)
                        return
                    }
                    line.withUnsafeMutableBufferPointer { out in
                        let v = UnsafeRawPointer(values.value), w = UnsafeRawPointer(weights.value)
                        for k in 0..<count {
                            for x in 0..<columns {
                                var a0 = SIMD8<Float>.zero, a1 = SIMD8<Float>.zero, a2 = SIMD8<Float>.zero, a3 = SIMD8<Float>.zero
                                for i in 0..<fr {
                                    var cellOffset = ((y + i) * paddedColumns + x) * stride * 4
                                    var weightOffset = ((k * fr + i) * fc) * stride * 4
                                    for _ in 0..<fc {
                                        a0 +=
                                            v.loadUnaligned(fromByteOffset: cellOffset, as: SIMD8<Float>.self)
                                            * w.loadUnaligned(fromByteOffset: weightOffset, as: SIMD8<Float>.self)
                                        a1 +=
                                            v.loadUnaligned(fromByteOffset: cellOffset + 32, as: SIMD8<Float>.self)
                                            * w.loadUnaligned(fromByteOffset: weightOffset + 32, as: SIMD8<Float>.self)
                                        a2 +=
                                            v.loadUnaligned(fromByteOffset: cellOffset + 64, as: SIMD8<Float>.self)
                                            * w.loadUnaligned(fromByteOffset: weightOffset + 64, as: SIMD8<Float>.self)
                                        a3 +=
                                            v.loadUnaligned(fromByteOffset: cellOffset + 96, as: SIMD8<Float>.self)
                                            * w.loadUnaligned(fromByteOffset: weightOffset + 96, as: SIMD8<Float>.self)
                                        cellOffset &+= stride * 4
                                        weightOffset &+= stride * 4
                                    }
                                }
                                out[k * columns + x] = ((a0 + a1) + (a2 + a3)).sum()
                            }
                        }
                    }
                    slots.set(y, line)
                }
            }
        }
        return (0..<rows).map { slots.get($0) }
    }
}
