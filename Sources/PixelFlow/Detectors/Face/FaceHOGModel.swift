import Foundation

/// The linear HOG filters of the face detector `FaceDetector` runs at `.high` accuracy:
/// dlib's frontal face detector (five 10x10-cell filters over 31 HOG features: frontal, turned
/// left, turned right, and frontal turned either way in the image plane), exported from dlib
/// by `scripts/export_dlib_face_hog.py` into the package resource
/// `Resources/HOG/frontal_face.hog` (Boost Software License, `LICENSE.txt` beside it): the
/// weights, and the same filters as the separable terms dlib applies.
///
/// The file's layout is the export script's documentation; every field is checked when it is
/// read, so a damaged file throws `PixelFlowError.decodingFailed` and never traps.
struct _FaceHOGModel: Sendable {
    /// Pixels per HOG cell side (8).
    let cellSize: Int
    /// Filter size in cells (10 x 10).
    let filterRows: Int
    let filterColumns: Int
    /// The number of filters (5).
    let filterCount: Int
    /// The smallest pyramid layer searched, in pixels (64 x 64).
    let minimumLayerWidth: Int
    let minimumLayerHeight: Int
    /// Layers shrink by (rate - 1) / rate (6: by 5/6).
    let pyramidRate: Int
    /// Two detections overlap (and the weaker is dropped) when their intersection is more than
    /// `overlapIoU` of their bounding box, or more than `overlapCovered` of either one.
    let overlapIoU: Double
    let overlapCovered: Double
    /// Each filter's threshold: a window is a face when its response reaches it.
    let thresholds: [Double]
    /// The weights, filter by filter, then filter row, filter column, and the 31 features
    /// padded to `_HOGFeatures.stride` with zeros, so that a filter cell lines up with a
    /// feature cell.
    let weights: [Float]

    /// The filters as dlib applies them: separable terms (a column filter of `filterRows` and a
    /// row filter of `filterColumns` values), term t of filter `termFilter[t]` on feature plane
    /// `termPlane[t]`, its values at `termValues[t * (filterRows + filterColumns)...]` (column
    /// filter first). Their sum is the filter up to singular values below 0.1% of the largest.
    let termFilter: [Int]
    let termPlane: [Int]
    let termValues: [Float]

    static let magic: [UInt8] = Array("PFHOG".utf8) + [2, 0, 0]

    /// Reads and checks a model file's bytes; `source` names it in errors.
    init(data: Data, source: String) throws {
        func bad(_ reason: String) -> PixelFlowError { .decodingFailed(file: source, reason: reason) }
        let bytes = [UInt8](data)
        guard bytes.count >= 64, Array(bytes[0..<8]) == Self.magic else {
            throw bad("not a PixelFlow HOG model (magic PFHOG, version 2)")
        }
        func int32(_ offset: Int) -> Int {
            Int(
                Int32(
                    bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(
                        bytes[offset + 3]) << 24))
        }
        func uint64(_ offset: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in (0..<8).reversed() { v = v << 8 | UInt64(bytes[offset + i]) }
            return v
        }
        let fields = (0..<10).map { int32(8 + 4 * $0) }
        let (cell, rows, cols, planes, count) = (fields[0], fields[1], fields[2], fields[3], fields[4])
        guard (2...64).contains(cell), (1...64).contains(rows), (1...64).contains(cols), planes == _HOGFeatures.planeCount,
            (1...64).contains(count), (1...100_000).contains(fields[7]), (1...100_000).contains(fields[8]),
            (2...64).contains(fields[9])
        else { throw bad("header out of range: \(fields)") }
        let weightCount = count * planes * rows * cols
        let termsStart = 64 + 8 * count + 4 * weightCount
        guard bytes.count > termsStart else { throw bad("\(bytes.count) bytes, expected more than \(termsStart)") }
        let iou = Double(bitPattern: uint64(48)), covered = Double(bitPattern: uint64(56))
        guard iou.isFinite, covered.isFinite, iou > 0, iou <= 1, covered > 0, covered <= 1 else {
            throw bad("overlap thresholds \(iou), \(covered) out of (0, 1]")
        }
        let thresholds = (0..<count).map { Double(bitPattern: uint64(64 + 8 * $0)) }
        guard thresholds.allSatisfy(\.isFinite) else { throw bad("a threshold is not finite") }
        let stride = _HOGFeatures.stride
        var weights = [Float](repeating: 0, count: count * rows * cols * stride)
        let base = 64 + 8 * count
        for k in 0..<count {
            for p in 0..<planes {
                for r in 0..<rows {
                    for c in 0..<cols {
                        let offset = base + 4 * (((k * planes + p) * rows + r) * cols + c)
                        let v = Float(bitPattern: UInt32(int32(offset) & 0xFFFF_FFFF))
                        guard v.isFinite else { throw bad("weight \(k)/\(p)/\(r)/\(c) is not finite") }
                        weights[((k * rows + r) * cols + c) * stride + p] = v
                    }
                }
            }
        }
        // The separable terms.
        var termFilter: [Int] = [], termPlane: [Int] = [], termValues: [Float] = []
        var offset = termsStart
        for k in 0..<count {
            for p in 0..<planes {
                guard offset < bytes.count else { throw bad("the separable terms end early (filter \(k), plane \(p))") }
                let terms = Int(bytes[offset])
                offset += 1
                let length = 4 * terms * (rows + cols)
                guard terms <= min(rows, cols), offset + length <= bytes.count else {
                    throw bad("\(terms) separable terms for filter \(k), plane \(p) do not fit")
                }
                for t in 0..<terms {
                    termFilter.append(k)
                    termPlane.append(p)
                    for i in 0..<(rows + cols) {
                        let v = Float(bitPattern: UInt32(int32(offset + 4 * (t * (rows + cols) + i)) & 0xFFFF_FFFF))
                        guard v.isFinite else { throw bad("separable term \(k)/\(p)/\(t) is not finite") }
                        termValues.append(v)
                    }
                }
                offset += length
            }
        }
        guard offset == bytes.count else { throw bad("\(bytes.count - offset) bytes after the separable terms") }
        self.termFilter = termFilter
        self.termPlane = termPlane
        self.termValues = termValues
        cellSize = cell
        filterRows = rows
        filterColumns = cols
        filterCount = count
        minimumLayerWidth = fields[7]
        minimumLayerHeight = fields[8]
        pyramidRate = fields[9]
        overlapIoU = iou
        overlapCovered = covered
        self.thresholds = thresholds
        self.weights = weights
    }

    /// dlib's frontal face filters, from the package's resources (read once).
    static func bundled() throws -> _FaceHOGModel {
        try _bundledFaceHOGModel.get()
    }
}

private let _bundledFaceHOGModel = Result<_FaceHOGModel, Error> {
    guard let folder = _FaceResources.directory else {
        throw PixelFlowError.io(
            file: "frontal_face.hog",
            reason: "PixelFlow's resource bundle (PixelFlow_PixelFlow.resources) is not beside the executable")
    }
    let url = folder.appendingPathComponent("HOG/frontal_face.hog")
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
        throw PixelFlowError.io(file: url.path, reason: "cannot read the HOG face model: \(error.localizedDescription)")
    }
    return try _FaceHOGModel(data: data, source: url.path)
}
