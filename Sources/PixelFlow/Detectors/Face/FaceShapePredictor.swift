import Foundation

/// dlib's 5-point face landmark model (an ensemble of regression trees: Kazemi and Sullivan,
/// "One Millisecond Face Alignment with an Ensemble of Regression Trees", CVPR 2014), exported
/// from `shape_predictor_5_face_landmarks.dat` by `scripts/export_dlib_shape_predictor.py` into
/// the package resource `Resources/Landmarks/face_5_points.shape` (CC0 / public domain,
/// `LICENSE.txt` beside it). The file's layout is the export script's documentation; every
/// field is checked when it is read, so a damaged file throws `PixelFlowError.decodingFailed`
/// and never traps.
///
/// The landmarks, in the order of the model (image sides: "left" is nearer the image's left
/// edge): 0 and 1 the outer and inner corners of the right eye, 2 and 3 the outer and inner
/// corners of the left eye, 4 the base of the nose (below its tip).
struct _FaceShapeModel: Sendable {
    /// Landmarks (5).
    let landmarkCount: Int
    /// Cascades (15), each a forest of `treeCount` trees.
    let cascadeCount: Int
    let treeCount: Int
    /// Every tree has `2^depth - 1` splits and `2^depth` leaves (depth 4).
    let depth: Int
    /// Feature pixels per cascade (800).
    let pixelCount: Int
    /// The mean shape, x then y per landmark, in the face box's unit square.
    let initialShape: [Float]
    /// Per cascade and feature pixel: its anchor landmark, and its offset (x, y) from that
    /// landmark in the mean shape's frame.
    let anchors: [Int]
    let deltas: [Float]
    /// Per cascade, tree and split (breadth-first; node i's children are 2i+1 and 2i+2), packed
    /// in one word so that a tree's splits share two cache lines: the first feature pixel (bits
    /// 0-15), the second (16-31) and the threshold (32-47, a signed 16-bit integer); the first
    /// child is taken when `intensity[first] - intensity[second] > threshold`.
    let splits: [UInt64]
    /// Per cascade, tree and leaf: the shape increment (2 x `landmarkCount` values), as the
    /// file's 16-bit integers, in units of the tree's `leafScales` entry (kept so: the leaves
    /// are read at random, and half the bytes is fewer cache misses).
    let leaves: [Int16]
    let leafScales: [Float]

    static let magic: [UInt8] = Array("PFSHAPE".utf8) + [1]

    /// The arrays the predictor's loops read, as buffer pointers (no reference counting or
    /// copy-on-write checks per access), valid inside `body` only.
    struct _Arrays {
        let anchors: UnsafeBufferPointer<Int>
        let deltas: UnsafeBufferPointer<Float>
        let splits: UnsafeBufferPointer<UInt64>
        let leaves: UnsafeBufferPointer<Int16>
        let leafScales: UnsafeBufferPointer<Float>
    }

    func withUnsafeArrays<R>(_ body: (_Arrays) -> R) -> R {
        anchors.withUnsafeBufferPointer { a in
            deltas.withUnsafeBufferPointer { d in
                splits.withUnsafeBufferPointer { s in
                    leaves.withUnsafeBufferPointer { l in
                        leafScales.withUnsafeBufferPointer { ls in
                            body(_Arrays(anchors: a, deltas: d, splits: s, leaves: l, leafScales: ls))
                        }
                    }
                }
            }
        }
    }

    /// Reads and checks a model file's bytes; `source` names it in errors.
    init(data: Data, source: String) throws {
        func bad(_ reason: String) -> PixelFlowError { .decodingFailed(file: source, reason: reason) }
        let bytes = [UInt8](data)
        guard bytes.count >= 28, Array(bytes[0..<8]) == Self.magic else {
            throw bad("not a PixelFlow shape model (magic PFSHAPE, version 1)")
        }
        func uint16(_ o: Int) -> UInt16 { UInt16(bytes[o]) | UInt16(bytes[o + 1]) << 8 }
        func uint32(_ o: Int) -> UInt32 {
            UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16 | UInt32(bytes[o + 3]) << 24
        }
        let header = (0..<5).map { Int(Int32(bitPattern: uint32(8 + 4 * $0))) }
        let (n, cascades, trees, depth, pixels) = (header[0], header[1], header[2], header[3], header[4])
        guard (1...1000).contains(n), (1...100).contains(cascades), (1...10_000).contains(trees),
            (1...10).contains(depth), (1...Int(UInt16.max)).contains(pixels)
        else { throw bad("header out of range: \(header)") }
        let splits = (1 << depth) - 1, leafCount = 1 << depth
        let perCascade = 2 * pixels + 8 * pixels + trees * (6 * splits + 4 + 2 * leafCount * 2 * n)
        let expected = 28 + 8 * n + cascades * perCascade
        guard bytes.count == expected else { throw bad("\(bytes.count) bytes, expected \(expected)") }
        var offset = 28
        var initial: [Float] = []
        for _ in 0..<(2 * n) {
            initial.append(Float(bitPattern: uint32(offset)))
            offset += 4
        }
        guard initial.allSatisfy(\.isFinite) else { throw bad("the initial shape is not finite") }
        var anchors: [Int] = [], deltas: [Float] = []
        var splitWords: [UInt64] = [], leaves: [Int16] = [], scales: [Float] = []
        anchors.reserveCapacity(cascades * pixels)
        splitWords.reserveCapacity(cascades * trees * splits)
        scales.reserveCapacity(cascades * trees)
        leaves.reserveCapacity(cascades * trees * leafCount * 2 * n)
        for c in 0..<cascades {
            for _ in 0..<pixels {
                let a = Int(uint16(offset))
                guard a < n else { throw bad("cascade \(c): anchor \(a) is not a landmark") }
                anchors.append(a)
                offset += 2
            }
            for _ in 0..<(2 * pixels) {
                let v = Float(bitPattern: uint32(offset))
                guard v.isFinite else { throw bad("cascade \(c): a pixel offset is not finite") }
                deltas.append(v)
                offset += 4
            }
            for t in 0..<trees {
                for _ in 0..<splits {
                    let i1 = uint16(offset), i2 = uint16(offset + 2)
                    guard Int(i1) < pixels, Int(i2) < pixels else {
                        throw bad("cascade \(c), tree \(t): a split names pixel \(max(i1, i2)) of \(pixels)")
                    }
                    splitWords.append(UInt64(i1) | UInt64(i2) << 16 | UInt64(uint16(offset + 4)) << 32)
                    offset += 6
                }
                let scale = Float(bitPattern: uint32(offset))
                guard scale.isFinite, scale > 0 else { throw bad("cascade \(c), tree \(t): leaf scale \(scale)") }
                offset += 4
                scales.append(scale)
                for _ in 0..<(leafCount * 2 * n) {
                    leaves.append(Int16(bitPattern: uint16(offset)))
                    offset += 2
                }
            }
        }
        landmarkCount = n
        cascadeCount = cascades
        treeCount = trees
        self.depth = depth
        pixelCount = pixels
        initialShape = initial
        self.anchors = anchors
        self.deltas = deltas
        self.splits = splitWords
        self.leaves = leaves
        leafScales = scales
    }

    /// dlib's 5-point face landmark model, from the package's resources (read once).
    static func bundled() throws -> _FaceShapeModel {
        try _bundledFaceShapeModel.get()
    }
}

private let _bundledFaceShapeModel = Result<_FaceShapeModel, Error> {
    guard let folder = _FaceResources.directory else {
        throw PixelFlowError.io(
            file: "face_5_points.shape",
            reason: "PixelFlow's resource bundle (PixelFlow_PixelFlow.resources) is not beside the executable")
    }
    let url = folder.appendingPathComponent("Landmarks/face_5_points.shape")
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
        throw PixelFlowError.io(file: url.path, reason: "cannot read the face landmark model: \(error.localizedDescription)")
    }
    return try _FaceShapeModel(data: data, source: url.path)
}

/// Places a face's landmarks with `_FaceShapeModel`, as dlib's `shape_predictor` does.
///
/// The shape starts as the model's mean shape mapped into the face box (the unit square onto
/// the box's corners: x = left + u (right - left), y = top + v (bottom - top), with dlib's
/// inclusive right and bottom). Each cascade then reads its feature pixels: a pixel sits at
/// its anchor landmark of the current shape plus its offset turned and scaled by the
/// least-squares similarity transform from the mean shape to the current shape (Umeyama's
/// closed form), mapped into the box and rounded to the nearest pixel; its value is the
/// pixel's intensity, (R + G + B) / 3 in integers as dlib computes it for RGB images, 0 outside
/// the image. Each tree of the cascade walks its splits on differences of two feature pixels
/// and adds its leaf to the shape. Positions are computed in double precision (dlib uses
/// single): with the file's 16-bit leaves, that keeps every point within dlib's own rounding
/// (0.502 pixels at most on the fixtures of `FaceLandmarkTests`), where single precision
/// moved a few feature pixels across pixel boundaries and one face's points by 0.8 pixels.
///
/// - Complexity: per face, `cascadeCount x (pixelCount + treeCount x depth)` lookups
///   (15 x (800 + 500 x 4)), independent of the face's size; no allocation per tree.
struct _FaceShapePredictor: Sendable {
    let model: _FaceShapeModel

    /// The landmarks (image coordinates, top-left origin, pixel centres at integers as in
    /// dlib) of the face in `box` (a HOG box: `x`, `y` its left and top pixel, `width` and
    /// `height` in pixels) of `image`.
    func landmarks(in image: _RGB8, box: Rect) -> [Point] {
        let m = model
        let n = m.landmarkCount
        let meanShape = m.initialShape.map(Double.init)
        let left = box.x, top = box.y
        let spanX = box.width - 1, spanY = box.height - 1
        var shape = m.initialShape.map(Double.init)
        var values = [Float](repeating: 0, count: m.pixelCount)
        let splitsPerTree = (1 << m.depth) - 1, leafStride = 2 * n
        let w = image.width, h = image.height
        image.pixels.withUnsafeBufferPointer { px in
            values.withUnsafeMutableBufferPointer { values in
                m.withUnsafeArrays { p in
                    for c in 0..<m.cascadeCount {
                        // The 2x2 part of the similarity transform from the mean shape to the current one.
                        let (a, b) = Self.similarity(from: meanShape, to: shape, count: n)
                        for i in 0..<m.pixelCount {
                            let k = c * m.pixelCount + i
                            let anchor = p.anchors[k]
                            let dx = Double(p.deltas[2 * k]), dy = Double(p.deltas[2 * k + 1])
                            let u = a * dx - b * dy + shape[2 * anchor]
                            let v = b * dx + a * dy + shape[2 * anchor + 1]
                            let x = (left + u * spanX + 0.5).rounded(.down)
                            let y = (top + v * spanY + 0.5).rounded(.down)
                            if x >= 0, y >= 0, x < Double(w), y < Double(h) {
                                let o = 3 * (Int(y) * w + Int(x))
                                values[i] = Float((Int(px[o]) + Int(px[o + 1]) + Int(px[o + 2])) / 3)
                            } else {
                                values[i] = 0
                            }
                        }
                        for t in 0..<m.treeCount {
                            let tree = c * m.treeCount + t
                            let base = tree * splitsPerTree
                            // A fixed number of levels without branches, so that the processor walks
                            // the next trees while this one's loads are on their way.
                            var node = 0
                            for _ in 0..<m.depth {
                                let s = p.splits[base + node]
                                let d = values[Int(s & 0xFFFF)] - values[Int((s >> 16) & 0xFFFF)]
                                let threshold = Float(Int16(truncatingIfNeeded: s >> 32))
                                node = 2 &* node &+ (d > threshold ? 1 : 2)
                            }
                            let leaf = (tree * (splitsPerTree + 1) + node - splitsPerTree) * leafStride
                            let scale = p.leafScales[tree]
                            for j in 0..<leafStride { shape[j] += Double(Float(p.leaves[leaf + j]) * scale) }
                        }
                    }
                }
            }
        }
        return (0..<n).map { Point(x: left + shape[2 * $0] * spanX, y: top + shape[2 * $0 + 1] * spanY) }
    }

    /// The rotation-and-scale part [[a, -b], [b, a]] of the least-squares similarity transform
    /// taking the points `from` to the points `to` (x, y interleaved, `count` points).
    static func similarity(from: [Double], to: [Double], count: Int) -> (Double, Double) {
        var mfx = 0.0, mfy = 0.0, mtx = 0.0, mty = 0.0
        for i in 0..<count {
            mfx += from[2 * i]; mfy += from[2 * i + 1]
            mtx += to[2 * i]; mty += to[2 * i + 1]
        }
        let inv = 1 / Double(count)
        mfx *= inv; mfy *= inv; mtx *= inv; mty *= inv
        var norm = 0.0, dot = 0.0, cross = 0.0
        for i in 0..<count {
            let fx = from[2 * i] - mfx, fy = from[2 * i + 1] - mfy
            let tx = to[2 * i] - mtx, ty = to[2 * i + 1] - mty
            norm += fx * fx + fy * fy
            dot += fx * tx + fy * ty
            cross += fx * ty - fy * tx
        }
        guard norm > 0 else { return (1, 0) }
        return (dot / norm, cross / norm)
    }
}

extension _FaceShapePredictor {
    /// How far below the base of the nose the mouth's centre lies, as a fraction of the
    /// distance from the eyes' midpoint down to the base of the nose (see `place`).
    static let mouthBelowNose = 0.4

    /// Sets `feature`'s landmarks, eye positions (each the midpoint of the eye's two corners)
    /// and mouth position from the model's five points. The model has no mouth point: the
    /// mouth is placed on the line from the eyes' midpoint through the base of the nose,
    /// `mouthBelowNose` of that distance beyond the nose.
    static func place(_ points: [Point], into feature: inout FaceFeature) {
        guard points.count == 5 else { return }
        let right = Point(x: (points[0].x + points[1].x) / 2, y: (points[0].y + points[1].y) / 2)
        let left = Point(x: (points[2].x + points[3].x) / 2, y: (points[2].y + points[3].y) / 2)
        let nose = points[4]
        let middle = Point(x: (left.x + right.x) / 2, y: (left.y + right.y) / 2)
        feature.landmarks = points
        feature.leftEyePosition = left
        feature.rightEyePosition = right
        feature.mouthPosition = Point(
            x: nose.x + mouthBelowNose * (nose.x - middle.x), y: nose.y + mouthBelowNose * (nose.y - middle.y))
    }
}
