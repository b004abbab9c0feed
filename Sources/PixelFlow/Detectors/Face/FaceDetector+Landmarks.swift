import Foundation

/// The eye, closed-eye and smile cascades `FaceDetector` runs inside each face.
struct _LandmarkCascades: Sendable {
    let eye: CascadeClassifier
    let leftEyeSplit: CascadeClassifier
    let rightEyeSplit: CascadeClassifier
    let smile: CascadeClassifier

    /// Side of the square crop the landmark cascades run on.
    static let cropSide = 120

    static func load() throws -> _LandmarkCascades {
        _LandmarkCascades(
            eye: try CascadeClassifier.installed("haarcascade_eye.xml"),
            leftEyeSplit: try CascadeClassifier.installed("haarcascade_lefteye_2splits.xml"),
            rightEyeSplit: try CascadeClassifier.installed("haarcascade_righteye_2splits.xml"),
            smile: try CascadeClassifier.installed("haarcascade_smile.xml"))
    }

    /// Fills the eye, mouth, smile and closed-eye fields of `feature` (see `FaceDetector`).
    func locate(in gray: _Gray8, face: Rect, angle: Double, smileNeighbors: Int, into feature: inout FaceFeature) {
        let n = Self.cropSide
        let crop = _FaceGeometry.crop(gray, face: face, angle: angle, side: n)
        // Crop point (continuous coordinates) -> image point.
        let toImage: (Double, Double) -> Point = { u, v in
            _FaceGeometry.facePoint(face: face, angle: angle, u: u / Double(n), v: v / Double(n))
        }
        let single = CascadeSearchOptions(
            scaleFactor: 1.1, minimumNeighbors: 3, maximumSize: (n * 3 / 4, n * 3 / 8), threadCount: 1)

        // Eyes: the band 15%...60% of the height.
        let bandTop = Int(0.15 * Double(n)), bandBottom = Int(0.60 * Double(n))
        let band = _FaceGeometry.subimage(crop, x: 0, y: bandTop, width: n, height: bandBottom - bandTop)
        let eyes = eye._detectCounting(
            band,
            options: CascadeSearchOptions(
                scaleFactor: 1.1, minimumNeighbors: 3, maximumSize: (n * 2 / 5, n * 2 / 5), threadCount: 1))
        func best(
            _ hits: [(rect: _IntRect, count: Int)], dx: Int, dy: Int, where keep: (Double) -> Bool,
            target: (Double, Double)
        ) -> (Double, Double)? {
            var bestPoint: (Double, Double)?
            var bestDistance = Double.infinity
            for h in hits {
                let cx = Double(dx + h.rect.x) + Double(h.rect.width) / 2
                let cy = Double(dy + h.rect.y) + Double(h.rect.height) / 2
                guard keep(cx) else { continue }
                let d = (cx - target.0) * (cx - target.0) + (cy - target.1) * (cy - target.1)
                if d < bestDistance { bestDistance = d; bestPoint = (cx, cy) }
            }
            return bestPoint
        }
        let half = Double(n) / 2
        let leftTarget = (0.30 * Double(n), 0.38 * Double(n)), rightTarget = (0.70 * Double(n), 0.38 * Double(n))
        var left = best(eyes, dx: 0, dy: bandTop, where: { $0 < half }, target: leftTarget)
        var right = best(eyes, dx: 0, dy: bandTop, where: { $0 >= half }, target: rightTarget)
        // Closed eyes: the 2-split cascades (all eye states) on the half where no open eye was found.
        func closedEye(leftHalf: Bool) -> (Double, Double)? {
            let x0 = leftHalf ? 0 : n / 2
            let sub = _FaceGeometry.subimage(band, x: x0, y: 0, width: n / 2, height: band.height)
            var hits: [(rect: _IntRect, count: Int)] = []
            for c in [leftEyeSplit, rightEyeSplit] {
                hits += c._detectCounting(
                    sub, options: CascadeSearchOptions(scaleFactor: 1.1, minimumNeighbors: 2, threadCount: 1))
            }
            return best(hits, dx: x0, dy: bandTop, where: { _ in true }, target: leftHalf ? leftTarget : rightTarget)
        }
        let leftOpen = left != nil, rightOpen = right != nil
        if !leftOpen, let p = closedEye(leftHalf: true) { left = p; feature.leftEyeClosed = true }
        if !rightOpen, let p = closedEye(leftHalf: false) { right = p; feature.rightEyeClosed = true }
        // A wink: one open eye and nothing at all on the other side. The closed eye is placed by
        // mirroring the open one across the face's vertical centre line.
        if leftOpen, right == nil, let l = left { right = (Double(n) - l.0, l.1); feature.rightEyeClosed = true }
        if rightOpen, left == nil, let r = right { left = (Double(n) - r.0, r.1); feature.leftEyeClosed = true }
        feature.leftEyePosition = left.map { toImage($0.0, $0.1) }
        feature.rightEyePosition = right.map { toImage($0.0, $0.1) }

        // Mouth and smile: the lowest 45%.
        let mouthTop = Int(0.55 * Double(n))
        let lower = _FaceGeometry.subimage(crop, x: 0, y: mouthTop, width: n, height: n - mouthTop)
        let smiles = smile._detectCounting(lower, options: single)
        if let top = smiles.max(by: { $0.count < $1.count || ($0.count == $1.count && $0.rect.y < $1.rect.y) }) {
            let cx = Double(top.rect.x) + Double(top.rect.width) / 2
            let cy = Double(mouthTop + top.rect.y) + Double(top.rect.height) / 2
            feature.mouthPosition = toImage(cx, cy)
            feature.hasSmile = top.count > smileNeighbors
        } else if let l = feature.leftEyePosition, let r = feature.rightEyePosition {
            let ex = r.x - l.x, ey = r.y - l.y
            let d = (ex * ex + ey * ey).squareRoot()
            if d > 0 {
                // Perpendicular to the eye line, towards the chin (y grows downwards).
                feature.mouthPosition = Point(x: (l.x + r.x) / 2 - 1.1 * ey, y: (l.y + r.y) / 2 + 1.1 * ex)
            }
        }
    }
}

/// Geometry helpers for the face detector: crops, rotations, overlap.
enum _FaceGeometry {
    /// The image point at fraction (u, v) of a face box turned clockwise by `angle` degrees
    /// about its centre.
    static func facePoint(face: Rect, angle: Double, u: Double, v: Double) -> Point {
        let fx = (u - 0.5) * face.width, fy = (v - 0.5) * face.height
        let t = angle * .pi / 180
        let c = cos(t), s = sin(t)
        return Point(x: face.midX + c * fx - s * fy, y: face.midY + s * fx + c * fy)
    }

    /// Bilinear sample of `g` at continuous coordinates (pixel centres at +0.5), edges clamped.
    @inline(__always)
    static func sample(_ g: UnsafePointer<UInt8>, _ w: Int, _ h: Int, _ x: Double, _ y: Double) -> UInt8 {
        let sx = min(max(x - 0.5, 0), Double(w - 1)), sy = min(max(y - 0.5, 0), Double(h - 1))
        let x0 = Int(sx), y0 = Int(sy)
        let x1 = min(x0 + 1, w - 1), y1 = min(y0 + 1, h - 1)
        let fx = sx - Double(x0), fy = sy - Double(y0)
        let a = Double(g[y0 * w + x0]) * (1 - fx) + Double(g[y0 * w + x1]) * fx
        let b = Double(g[y1 * w + x0]) * (1 - fx) + Double(g[y1 * w + x1]) * fx
        return UInt8(min(255, max(0, a * (1 - fy) + b * fy + 0.5)))
    }

    /// The face box (turned by `angle`) resampled to `side` x `side` pixels, upright.
    static func crop(_ gray: _Gray8, face: Rect, angle: Double, side: Int) -> _Gray8 {
        var out = [UInt8](repeating: 0, count: side * side)
        guard gray.width > 0, gray.height > 0 else { return _Gray8(width: side, height: side, pixels: out) }
        let t = angle * .pi / 180
        let c = cos(t), s = sin(t)
        gray.pixels.withUnsafeBufferPointer { g in
            for v in 0..<side {
                let fy = ((Double(v) + 0.5) / Double(side) - 0.5) * face.height
                for u in 0..<side {
                    let fx = ((Double(u) + 0.5) / Double(side) - 0.5) * face.width
                    out[v * side + u] = sample(
                        g.baseAddress!, gray.width, gray.height,
                        face.midX + c * fx - s * fy, face.midY + s * fx + c * fy)
                }
            }
        }
        return _Gray8(width: side, height: side, pixels: out)
    }

    /// A copy of a rectangle of `g` (clamped to it).
    static func subimage(_ g: _Gray8, x: Int, y: Int, width: Int, height: Int) -> _Gray8 {
        let x0 = max(0, min(x, g.width)), y0 = max(0, min(y, g.height))
        let w = max(0, min(width, g.width - x0)), h = max(0, min(height, g.height - y0))
        var out = [UInt8]()
        out.reserveCapacity(w * h)
        for row in y0..<(y0 + h) { out += g.pixels[(row * g.width + x0)..<(row * g.width + x0 + w)] }
        return _Gray8(width: w, height: h, pixels: out)
    }

    /// `g` turned clockwise by `degrees` about its centre into a canvas that holds all of it
    /// (bilinear; uncovered corners are the nearest edge pixel), and the map from points of the
    /// turned image back to points of `g`.
    static func rotate(_ g: _Gray8, degrees: Double) -> (_Gray8, @Sendable (Point) -> Point) {
        let t = degrees * .pi / 180
        let c = cos(t), s = sin(t)
        let w = Double(g.width), h = Double(g.height)
        let cw = Int((abs(w * c) + abs(h * s)).rounded(.up)), ch = Int((abs(w * s) + abs(h * c)).rounded(.up))
        let srcCenter = Point(x: w / 2, y: h / 2), dstCenter = Point(x: Double(cw) / 2, y: Double(ch) / 2)
        // Destination -> source: turn back (counterclockwise) by `degrees`.
        let back: @Sendable (Point) -> Point = { p in
            let dx = p.x - dstCenter.x, dy = p.y - dstCenter.y
            return Point(x: srcCenter.x + c * dx + s * dy, y: srcCenter.y - s * dx + c * dy)
        }
        guard g.width > 0, g.height > 0, cw > 0, ch > 0 else { return (g, back) }
        var out = [UInt8](repeating: 0, count: cw * ch)
        g.pixels.withUnsafeBufferPointer { src in
            for v in 0..<ch {
                for u in 0..<cw {
                    let q = back(Point(x: Double(u) + 0.5, y: Double(v) + 0.5))
                    out[v * cw + u] = sample(src.baseAddress!, g.width, g.height, q.x, q.y)
                }
            }
        }
        return (_Gray8(width: cw, height: ch, pixels: out), back)
    }

    /// Intersection over union of two rectangles (0 when either is empty).
    static func iou(_ a: Rect, _ b: Rect) -> Double {
        let ix = max(0, min(a.maxX, b.maxX) - max(a.minX, b.minX))
        let iy = max(0, min(a.maxY, b.maxY) - max(a.minY, b.minY))
        let inter = ix * iy
        let union = a.width * a.height + b.width * b.height - inter
        return union > 0 ? inter / union : 0
    }
}
