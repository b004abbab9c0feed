import ExampleSupport
import Foundation
import PixelFlow

// SpookCam: put a ghost at half opacity on a photo, only where the photo has paint (source-
// atop), and make the result grayscale, three ways, and check that they agree. A port of
// the "SpookCam" image-processing tutorial app, whose point is to compare the levels at which
// one can work on pixels, as it does:
//
//   1. raw pixels:  loops over the bytes of PixelBuffers, with the compositing math written out;
//   2. Canvas:      Core Graphics' way: draw the ghost image with alpha 0.5 and the
//                   source-atop blend mode inside a saved state, then store as gray;
//   3. filters:     Core Image's way: a color matrix halves the ghost's alpha, source-atop
//                   compositing, color controls with saturation 0.
//
//     swift run SpookCam                  # the built-in landscape
//     swift run SpookCam photo.jpg --out /tmp/spook

let usage = """
    Usage: SpookCam [IMAGE] [--out DIR] [--size WxH]

    Overlays a ghost, 25% of the photo's width, at (50%, 20%) of IMAGE (default: a
    landscape drawn in code) at half opacity, source-atop, and turns the result grayscale
    three ways (raw pixel loops, Canvas drawing, a filter chain), timing each, then prints
    the largest difference between the results and the tolerance they must meet. Writes to
    DIR (default example-output/SpookCam): 00-photo.png, ghost.png, 1-pixels.png,
    2-canvas.png, 3-filters.png and side-by-side.png (the three in a row).

      --size WxH   Size of the built-in image (default 480x320; ignored with IMAGE).

    Exit status: 0 when the three agree, 1 when they do not or a file cannot be read or
    written, 2 for a wrong command line.
    """

let args = ExampleCommandLine(usage: usage, valueOptions: ["--out", "--size"])

/// Where and how large the ghost is on a `width` x `height` photo: 25% of the width, five
/// quarters as high, its top-left corner at 50% of the width and 20% of the height. Whole
/// pixels, so the three ways place it identically.
func ghostFrame(photoWidth width: Int, photoHeight height: Int) -> (x: Int, y: Int, width: Int, height: Int) {
    let w = max(4, (width + 2) / 4)
    return (width / 2, height / 5, w, w * 5 / 4)
}

/// Draws the ghost into `canvas`, in a 100 x 125 design box mapped onto `frame`: a white
/// body with a round head and a wavy hem at 70% opacity, dark eyes and mouth at 80%.
func drawGhost(on canvas: inout Canvas, in frame: Rect) {
    let saved = canvas.transform
    canvas.transform = AffineTransform(scaleX: frame.width / 100, y: frame.height / 125)
        .concatenating(AffineTransform(translationX: frame.minX, y: frame.minY))
        .concatenating(saved)
    // The body: a half circle on top, straight sides, a hem of three scallops.
    var body: [Point] = []
    for i in 0...24 {
        let angle = Double.pi + Double.pi * Double(i) / 24  // from the left side over the top
        body.append(Point(x: 50 + 45 * cos(angle), y: 50 + 45 * sin(angle)))
    }
    body.append(Point(x: 95, y: 118))
    for i in 1...6 {
        // Scallops: alternate low and high points, right to left.
        body.append(Point(x: 95 - 15 * Double(i), y: i % 2 == 0 ? 118 : 106))
    }
    canvas.fillPolygon(body, color: Color(white: 1, alpha: 0.7))
    let dark = Color(red: 0.05, green: 0.05, blue: 0.12, alpha: 0.8)
    canvas.fillEllipse(in: Rect(x: 28, y: 38, width: 14, height: 20), color: dark)
    canvas.fillEllipse(in: Rect(x: 58, y: 38, width: 14, height: 20), color: dark)
    canvas.fillEllipse(in: Rect(x: 40, y: 68, width: 20, height: 14), color: dark)
    canvas.transform = saved
}

// MARK: 1. Raw pixels

/// The ghost at half opacity composited atop the photo and made gray, computed with loops
/// over the bytes.
///
/// This is what the other two ways do inside PixelFlow, written out: decode the photo's
/// 8-bit sRGB to linear light (the exact 256-entry table), premultiply, halve the ghost's
/// premultiplied linear pixel (`s = ghost x 0.5`), composite it source-atop (`s x photo
/// alpha + photo x (1 - s alpha)`: paint only where the photo has some), unpremultiply, take
/// the Rec. 709 luma `0.2126 R + 0.7152 G + 0.0722 B`, and encode it back to 8-bit sRGB.
///
/// - Parameters:
///   - photo: `.rgba8`, sRGB, straight alpha.
///   - ghost: `.rgbaF32`, linear, premultiplied (a `Canvas` layer), placed at `origin`.
func spookWithPixels(photo: PixelBuffer, ghost: PixelBuffer, origin: (x: Int, y: Int)) throws -> PixelBuffer {
    precondition(photo.format == .rgba8 && ghost.format == .rgbaF32)
    var out = try PixelBuffer(width: photo.width, height: photo.height, format: .rgba8)
    let decode = SRGB.decodeTable
    let photoStride = photo.bytesPerRow, ghostStride = ghost.bytesPerRow, outStride = out.bytesPerRow
    photo.withUnsafeBytes { src in
        ghost.withUnsafeBytes { g in
            out.withUnsafeMutableBytes { dst in
                for y in 0..<photo.height {
                    for x in 0..<photo.width {
                        let p = y * photoStride + 4 * x
                        let alpha = Float(src[p + 3]) / 255
                        // Premultiplied linear photo pixel.
                        var r = decode[Int(src[p])] * alpha, gr = decode[Int(src[p + 1])] * alpha
                        var b = decode[Int(src[p + 2])] * alpha, a = alpha
                        // The ghost pixel over it, when (x, y) is inside the ghost.
                        let gx = x - origin.x, gy = y - origin.y
                        if gx >= 0, gy >= 0, gx < ghost.width, gy < ghost.height {
                            let q = gy * ghostStride + 16 * gx
                            let gh =
                                SIMD4<Float>(
                                    g.load(fromByteOffset: q, as: Float.self),
                                    g.load(fromByteOffset: q + 4, as: Float.self),
                                    g.load(fromByteOffset: q + 8, as: Float.self),
                                    g.load(fromByteOffset: q + 12, as: Float.self)) * 0.5
                            let keep = 1 - gh.w
                            r = gh.x * a + r * keep
                            gr = gh.y * a + gr * keep
                            b = gh.z * a + b * keep
                        }
                        // Gray: the luma of the straight color.
                        let luma = a > 0 ? (0.2126 * r + 0.7152 * gr + 0.0722 * b) / a : 0
                        let o = y * outStride + 4 * x
                        let code = SRGB.encode8(luma)
                        dst[o] = code
                        dst[o + 1] = code
                        dst[o + 2] = code
                        dst[o + 3] = UInt8((a * 255).rounded())
                    }
                }
            }
        }
    }
    return out
}

// MARK: 2. Canvas

/// The photo on a canvas, the ghost image drawn with alpha 0.5 and the source-atop blend
/// mode inside a saved graphics state (as the seed does with `CGContextSetAlpha` and
/// `kCGBlendModeSourceAtop`), then stored as gray: a gray buffer keeps the luma of linear
/// light, as the other two ways take it.
func spookWithCanvas(photo: PixelBuffer, ghost: PixelBuffer, ghostFrame frame: Rect) throws -> PixelBuffer {
    var canvas = Canvas(buffer: photo.converted(to: .rgbaF32, colorEncoding: .linear))
    canvas.saveState()
    canvas.alpha = 0.5
    canvas.blendMode = .sourceAtop
    try canvas.draw(ghost, in: frame, interpolation: .nearest)
    canvas.restoreState()
    return canvas.buffer.converted(to: .gray8, colorEncoding: .sRGB)
}

// MARK: 3. Filters

/// Core Image's way: the ghost moved into place by an affine transform, its alpha halved by
/// a color matrix (`CIColorMatrix` with an alpha vector of 0.5), composited atop the photo
/// (`CISourceAtopCompositing`), and its saturation set to 0 by color controls: a lazy chain
/// that PixelFlow plans and renders in one pass.
func spookWithFilters(photo: PixelBuffer, ghost: PixelBuffer, origin: (x: Int, y: Int), context: RenderContext) throws
    -> PixelBuffer
{
    let placed = try Image(ghost).transformed(by: AffineTransform(translationX: Double(origin.x), y: Double(origin.y)))
    let faded = try placed.colorMatrix(a: SIMD4(0, 0, 0, 0.5))
    let gray = try faded.composited(atop: Image(photo)).colorControls(saturation: 0)
    return try context.makeBuffer(gray.cropped(to: Image(photo).extent), format: .rgba8)
}

/// The largest difference, in 8-bit levels, between the gray values of two images of the
/// same size (each pixel's first channel: red for RGBA, the gray for gray buffers).
func maxDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Int {
    precondition(a.width == b.width && a.height == b.height)
    var worst: Float = 0
    for y in 0..<a.height {
        for x in 0..<a.width { worst = max(worst, abs(a[x, y].x - b[x, y].x)) }
    }
    return Int((worst * 255).rounded())
}

runExample {
    guard args.positionals.count <= 1 else {
        ExampleCommandLine.usageError("give at most one image, got \(args.positionals.count)", usage: usage)
    }
    let out = args.value("--out") ?? "example-output/SpookCam"
    let size = args.size("--size", default: (480, 320))
    let context = RenderContext()
    var photo = try args.positionals.first.map(loadImage) ?? SampleScene.make(width: size.width, height: size.height)
    // SpookCam works on opaque 8-bit photos: anything else is flattened over white first.
    photo = try context.makeBuffer(
        Image(photo).composited(over: Image(color: .white)).cropped(to: Image(photo).extent),
        format: .rgba8)
    try makeOutputFolder(out)
    try photo.write(toFile: outputPath(out, "00-photo.png"))

    let f = ghostFrame(photoWidth: photo.width, photoHeight: photo.height)
    // The ghost as its own transparent layer, for the pixel and filter ways.
    var layer = try Canvas(width: f.width, height: f.height)
    drawGhost(on: &layer, in: Rect(x: 0, y: 0, width: f.width, height: f.height))
    let ghost = layer.buffer
    try context.makeBuffer(Image(ghost), format: .rgba8).write(toFile: outputPath(out, "ghost.png"))
    print("photo \(photo.width)x\(photo.height), ghost \(f.width)x\(f.height) at (\(f.x), \(f.y))")

    let clock = ContinuousClock()
    var results: [(name: String, buffer: PixelBuffer)] = []
    func measure(_ name: String, _ file: String, _ body: () throws -> PixelBuffer) throws {
        let start = clock.now
        let buffer = try body()
        let time = clock.now - start
        let path = outputPath(out, file)
        try buffer.write(toFile: path)
        print("\(name.padding(8)) \(milliseconds(time).padding(10)) -> \(path)")
        results.append((name, buffer))
    }
    try measure("pixels", "1-pixels.png") { try spookWithPixels(photo: photo, ghost: ghost, origin: (f.x, f.y)) }
    try measure("canvas", "2-canvas.png") {
        try spookWithCanvas(photo: photo, ghost: ghost, ghostFrame: Rect(x: f.x, y: f.y, width: f.width, height: f.height))
    }
    try measure("filters", "3-filters.png") {
        try spookWithFilters(photo: photo, ghost: ghost, origin: (f.x, f.y), context: context)
    }

    // The three side by side, with a 4-pixel gap, drawn by a canvas.
    var row = try Canvas(width: 3 * photo.width + 8, height: photo.height)
    row.clear(to: .white)
    for (i, result) in results.enumerated() {
        let x = i * (photo.width + 4)
        try row.draw(result.buffer, in: Rect(x: x, y: 0, width: photo.width, height: photo.height), interpolation: .nearest)
    }
    let side = outputPath(out, "side-by-side.png")
    try context.makeBuffer(row.image, format: .rgba8).write(toFile: side)
    print("side by side -> \(side)")

    // Each way rounds once, to 8 bits at the end; float sums in another order can still
    // land on the other side of a rounding boundary.
    let tolerance = 1
    var worst = 0
    for i in 0..<results.count {
        for j in (i + 1)..<results.count {
            let d = maxDifference(results[i].buffer, results[j].buffer)
            worst = max(worst, d)
            print("max difference \(results[i].name) vs \(results[j].name): \(d)/255")
        }
    }
    guard worst <= tolerance else {
        throw ExampleError("the three ways disagree by \(worst)/255, more than the tolerance of \(tolerance)/255")
    }
    print("the three agree within the tolerance of \(tolerance)/255")
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
