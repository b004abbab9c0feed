// CIPerspectiveRotate: the image as a photograph turned in 3D in front of the camera that
// took it. The image lies on the plane z = f (camera at the origin, looking down +z, x right,
// y down), its center on the optical axis, f the focal length in pixels:
// `f = focalLength / 36 * max(width, height)` (a 35 mm equivalent focal length; the frame's
// 36 mm side spans the image's longer side). The plane turns about the image center by
// R = Rz(roll) Ry(yaw) Rx(pitch) (pitch first) and is projected back through the camera:
//
//     P = (0, 0, f) + R (x - cx, y - cy, 0),    output = c + f (P.x, P.y) / P.z
//
// a homography. Each output pixel is inverse-mapped (the ray through it meets the turned plane)
// and sampled bilinearly; rays that meet the plane behind the camera or not at all give
// transparent pixels. Signs (top-left origin, y down): positive pitch brings the top edge
// toward the viewer, positive yaw the right edge, positive roll turns the image clockwise.

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension FilterDescriptor {
    static let perspectiveRotateFilters: [FilterDescriptor] = [perspectiveRotate]

    static func _angleInput(_ key: String, _ summary: String) -> FilterInput {
        .number(
            key, .angle, default: 0, identity: 0, min: -Double.pi, max: Double.pi, sliderMin: -Double.pi / 2,
            sliderMax: Double.pi / 2,
            summary: summary)
    }

    static let perspectiveRotate = FilterDescriptor(
        name: "CIPerspectiveRotate", displayName: "Perspective Rotate",
        summary:
            "Turns the image in 3D about its center (pitch, then yaw, then roll) as seen by a camera of the given 35 mm equivalent focal length.",
        categories: [.geometryAdjustment],
        inputs: [
            .image(),
            .number(
                "inputFocalLength", default: 28, min: 1, max: 2000, sliderMin: 10, sliderMax: 200,
                summary: "The 35 mm equivalent focal length of the camera, in millimetres (36 mm spans the image's longer side)."),
            _angleInput(
                "inputPitch", "Rotation about the horizontal axis, in radians; positive brings the top edge toward the viewer."),
            _angleInput(
                "inputYaw", "Rotation about the vertical axis, in radians; positive brings the right edge toward the viewer."),
            _angleInput("inputRoll", "Rotation in the image plane, in radians; positive turns the image clockwise."),
        ]
    ) { a in
        let image = try a.image()
        let focal = try a.number("inputFocalLength")
        let pitch = try a.number("inputPitch"), yaw = try a.number("inputYaw"), roll = try a.number("inputRoll")
        if pitch == 0 && yaw == 0 && roll == 0 { return image }
        let e = image.extent
        guard !e.isInfinite, !e.isEmpty else {
            throw PixelFlowError.invalidExtent(
                "CIPerspectiveRotate needs a finite, non-empty extent (it turns about the image's center); crop the image first")
        }
        let f = focal / 36 * Swift.max(e.width, e.height)
        let forward = _perspectiveRotation(
            center: Point(x: e.midX, y: e.midY), focalPixels: f, pitch: pitch, yaw: yaw, roll: roll)
        let limit = e.insetBy(dx: -4 * Swift.max(e.width, e.height), dy: -4 * Swift.max(e.width, e.height))
        guard let inverse = forward.inverted() else {
            // The plane is seen edge-on: nothing of it is visible.
            return .empty
        }
        let backward = inverse._inFront(of: Point(x: e.midX, y: e.midY))
        var extent = forward.mappedBounds(of: e).map { $0.intersection(limit) } ?? limit
        if extent.isEmpty { extent = limit }
        return image.warped(
            named: "perspectiveRotate f\(f) p\(pitch) y\(yaw) r\(roll)", sampling: .bilinear, extent: extent,
            regionOfInterest: { r in backward.mappedBounds(of: r) ?? e }
        ) { x, y in
            backward.apply(to: Point(x: x, y: y)) ?? Point(x: .nan, y: .nan)
        }
    }

    /// The homography taking image points to their position after the plane turns by
    /// Rz(roll) Ry(yaw) Rx(pitch) about `center` at distance `focalPixels` from the camera.
    static func _perspectiveRotation(center c: Point, focalPixels f: Double, pitch: Double, yaw: Double, roll: Double)
        -> Homography
    {
        let (sp, cp) = (sin(pitch), cos(pitch)), (sy, cy) = (sin(yaw), cos(yaw)), (sr, cr) = (sin(roll), cos(roll))
        let rx: [Double] = [1, 0, 0, 0, cp, -sp, 0, sp, cp]
        let ry: [Double] = [cy, 0, sy, 0, 1, 0, -sy, 0, cy]
        let rz: [Double] = [cr, -sr, 0, sr, cr, 0, 0, 0, 1]
        // R = rz * ry * rx: Homography.concatenating(t) is "self, then t" (t * self).
        let r = Homography(matrix: rx).concatenating(Homography(matrix: ry)).concatenating(Homography(matrix: rz)).matrix
        // (u, v, 1) -> (f P.x, f P.y, P.z) with P = (0, 0, f) + R (u, v, 0).
        let project = Homography(matrix: [f * r[0], f * r[1], 0, f * r[3], f * r[4], 0, r[6], r[7], f])
        return Homography(matrix: [1, 0, -c.x, 0, 1, -c.y, 0, 0, 1]).concatenating(project)
            .concatenating(Homography(matrix: [1, 0, c.x, 0, 1, c.y, 0, 0, 1]))
    }
}

extension Image {
    /// Turns the image in 3D about its center (`CIPerspectiveRotate`): by `pitch` about the
    /// horizontal axis, then `yaw` about the vertical one, then `roll` in the plane (radians;
    /// positive pitch brings the top edge toward the viewer, positive yaw the right edge,
    /// positive roll turns clockwise), as seen by a camera of 35 mm equivalent `focalLength`
    /// (default 28 mm; the longer side spans 36 mm). Parts of the plane turned behind the camera
    /// are transparent; when the turned plane reaches the horizon, the output is limited to
    /// the image's extent grown by four times its longer side.
    ///
    /// - Throws: `invalidExtent` for an infinite or empty extent (the center is undefined).
    /// - Complexity: one homography and one bilinear sample per pixel.
    public func perspectiveRotated(
        pitch: Double? = nil, yaw: Double? = nil, roll: Double? = nil,
        focalLength: Double? = nil
    ) throws -> Image {
        try FilterDescriptor.perspectiveRotate.apply([
            "inputImage": .image(self), "inputPitch": pitch.map(FilterValue.number),
            "inputYaw": yaw.map(FilterValue.number), "inputRoll": roll.map(FilterValue.number),
            "inputFocalLength": focalLength.map(FilterValue.number),
        ])
    }
}
