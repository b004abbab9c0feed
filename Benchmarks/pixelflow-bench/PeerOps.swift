import Foundation
import PixelFlow

// The peer table: the operations of ../shared/peers/bench_peers.py (its OPS table and
// constants), done by PixelFlow with the same sizes, dtypes, alpha conventions, radii and
// border handling, so that records join with the peers' JSON on (variant, threads).
//
// Conventions (see Docs/Performance.md, "What exactly is measured"):
// * f32 images hold v/255 of the u8 image, straight alpha; every f32 op renders with
//   `RenderContext(colorManagement: .none)` so the stored values are used as they are.
// * Point color ops (invert, matrices, gamma, chain5) read and write straight-alpha
//   buffers, as their definitions are on straight RGBA ("a = a").
// * Ops defined on all four channels (blurs, convolutions, resampling, rotation, the u8
//   conversions) read and write buffers tagged `.premultiplied`: the engine then uses the
//   stored four channels as they are, exactly the peers' work, instead of premultiplying.
// * "clamp" edges: `clampedToExtent()` then a crop back, as the peers' BORDER_REPLICATE.
// * Destination buffers are allocated once and rendered into with `render(_:rect:to:)`.

let embossWeights: [Double] = [-2, -1, 0, -1, 1, 1, 0, 1, 2]
let rotateDegrees = 15.0
let thumbnailWidth = 400

/// Inputs shared by the peer ops, built on first use (a child process for peak memory
/// builds only what its op needs).
final class PeerInputs {
    let u8: PixelBuffer
    let bSource: () throws -> PixelBuffer
    let pngPath: String?, jpegPath: String?
    init(u8: PixelBuffer, b: @escaping () throws -> PixelBuffer, png: String?, jpeg: String?) {
        self.u8 = u8; self.bSource = b; self.pngPath = png; self.jpegPath = jpeg
    }
    var W: Int { u8.width }
    var H: Int { u8.height }
    /// v/255, straight alpha, tagged sRGB so that nothing converts it.
    lazy var f32: PixelBuffer = u8.converted(to: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
    lazy var u8B: PixelBuffer = try! bSource()
    lazy var pmA: PixelBuffer = u8.converted(to: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
    lazy var pmB: PixelBuffer = u8B.converted(to: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
    /// The PNG and JPEG to decode: the peers' files (Pillow, level 6 / q90 4:2:0) when given,
    /// else our own encodings of the test image.
    lazy var png: [UInt8] = pngPath.map { try! readBytes($0) } ?? (try! u8.encoded(as: .png))
    lazy var jpeg: [UInt8] = jpegPath.map { try! readBytes($0) } ?? (try! u8.encoded(as: .jpeg, quality: 90))
}

/// One row of the peer table.
struct PeerOp {
    var variant: String
    var op: String
    var dtype: String
    var outWidth: Int, outHeight: Int
    var note: String
    /// Codecs do not use the context's threads: measured once, reported for each count.
    var singleThreaded = false
    /// Allowed max abs difference (0..1 units) from the scalar reference.
    var tolerance: Double = 1e-5
    /// Builds the timed body for a thread count, and a function returning the output for the check.
    var prepare: (_ threads: Int) throws -> (run: () throws -> Void, check: () throws -> Double?)
}

/// Peer ops the library cannot do yet, reported as such.
/// Peer-table operations not implemented yet (none: kept for the report's "missing" column).
let notImplementedOps: [(variant: String, op: String, dtype: String, missing: String)] = []

/// Box holding a destination buffer, so the timed closure and the check share it.
final class OutBox { var buffer: PixelBuffer; init(_ b: PixelBuffer) { buffer = b } }

func rawContext(_ t: Int) -> RenderContext { RenderContext(threadCount: t, colorManagement: .none) }

/// The 64x64 (or smaller) crop of the output checked against the reference: the left edge at
/// mid-height, so clamped edges and the interior are both covered.
func checkRect(width: Int, height: Int) -> (x: Range<Int>, y: Range<Int>) {
    let cw = min(64, width), ch = min(64, height)
    let y0 = max(0, height / 2 - ch / 2)
    return (0..<cw, y0..<(y0 + ch))
}

/// Max abs difference between `out` and `reference(x, y)` over the check crop, in 0..1 units.
func maxAbsDifference(_ out: PixelBuffer, channels: Int = 4, reference: (Int, Int) -> SIMD4<Double>) -> Double {
    let c = checkRect(width: out.width, height: out.height)
    var m = 0.0
    for y in c.y {
        for x in c.x {
            let o = out[x, y], r = reference(x, y)
            for k in 0..<channels { m = max(m, abs(Double(o[k]) - r[k])) }
        }
    }
    return m
}

/// Round half up and clamp to 8 bits, back in 0..1 units.
func q8(_ v: SIMD4<Double>) -> SIMD4<Double> {
    var r = SIMD4<Double>()
    for k in 0..<4 { r[k] = min(255, max(0, (v[k] * 255 + 0.5).rounded(.down))) / 255 }
    return r
}

func pixel(_ b: PixelBuffer, _ x: Int, _ y: Int) -> SIMD4<Double> {
    let v = b[x, y]
    return SIMD4(Double(v.x), Double(v.y), Double(v.z), Double(v.w))
}

func clampedPixel(_ b: PixelBuffer, _ x: Int, _ y: Int) -> SIMD4<Double> {
    pixel(b, min(max(x, 0), b.width - 1), min(max(y, 0), b.height - 1))
}

// MARK: Scalar references of the definitions

func refInvert(_ p: SIMD4<Double>) -> SIMD4<Double> { SIMD4(1 - p.x, 1 - p.y, 1 - p.z, p.w) }

func refMatrix(_ p: SIMD4<Double>, _ rows: [SIMD4<Float>], _ bias: SIMD4<Float>) -> SIMD4<Double> {
    var r = SIMD4<Double>()
    for i in 0..<4 {
        let row = rows[i]
        r[i] = Double(row.x) * p.x + Double(row.y) * p.y + Double(row.z) * p.z + Double(row.w) * p.w + Double(bias[i])
    }
    return r
}

func refColorControls(_ p: SIMD4<Double>, saturation s: Double = 1.2, brightness b: Double = 0.1, contrast c: Double = 1.1)
    -> SIMD4<Double>
{
    let l = 0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z
    var r = p
    for k in 0..<3 { r[k] = ((l + s * (p[k] - l)) + b - 0.5) * c + 0.5 }
    return r
}

func refGamma(_ p: SIMD4<Double>, _ g: Double = 0.75) -> SIMD4<Double> {
    var r = p
    for k in 0..<3 { r[k] = (p[k] < 0 ? -1 : 1) * pow(abs(p[k]), g) }
    return r
}

func refChain5(_ p: SIMD4<Double>) -> SIMD4<Double> {
    var r = refMatrix(refGamma(refColorControls(refInvert(p))), sepiaRows, sepiaBias)
    let e = pow(2, 0.5)
    r.x *= e; r.y *= e; r.z *= e
    return r
}

func gaussianTaps(_ sigma: Double) -> [Double] {
    let r = Int((3 * sigma).rounded(.up))
    let w = (-r...r).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
    let s = w.reduce(0, +)
    return w.map { $0 / s }
}

func refSeparable(_ b: PixelBuffer, _ taps: [Double], _ x: Int, _ y: Int) -> SIMD4<Double> {
    let r = taps.count / 2
    var acc = SIMD4<Double>()
    for (j, wy) in taps.enumerated() {
        var row = SIMD4<Double>()
        for (i, wx) in taps.enumerated() { row += wx * clampedPixel(b, x + i - r, y + j - r) }
        acc += wy * row
    }
    return acc
}

func lanczos3HalfTaps() -> [Double] {
    func sinc(_ t: Double) -> Double { t == 0 ? 1 : sin(.pi * t) / (.pi * t) }
    let w = (0..<12).map { k -> Double in
        let t = (Double(k) - 5.5) / 2
        return abs(t) < 3 ? sinc(t) * sinc(t / 3) : 0
    }
    let s = w.reduce(0, +)
    return w.map { $0 / s }
}

func refLanczosHalf(_ b: PixelBuffer, _ x: Int, _ y: Int) -> SIMD4<Double> {
    let w = lanczos3HalfTaps()
    var acc = SIMD4<Double>()
    for j in 0..<12 {
        var row = SIMD4<Double>()
        for i in 0..<12 { row += w[i] * clampedPixel(b, 2 * x - 5 + i, 2 * y - 5 + j) }
        acc += w[j] * row
    }
    return acc
}

/// cv2.getRotationMatrix2D(((W-1)/2, (H-1)/2), 15, 1), forward, in pixel-index coordinates.
func rotationMatrix(_ w: Int, _ h: Int) -> (a: Double, b: Double, tx: Double, c: Double, d: Double, ty: Double) {
    let ang = rotateDegrees * .pi / 180, al = cos(ang), be = sin(ang)
    let cx = Double(w - 1) / 2, cy = Double(h - 1) / 2
    return (al, be, (1 - al) * cx - be * cy, -be, al, be * cx + (1 - al) * cy)
}

/// The same rotation as a PixelFlow transform (pixel centers at half-integers).
func rotationTransform(_ w: Int, _ h: Int) -> PixelFlow.AffineTransform {
    let m = rotationMatrix(w, h)
    let mt = PixelFlow.AffineTransform(a: m.a, b: m.c, c: m.b, d: m.d, tx: m.tx, ty: m.ty)
    return PixelFlow.AffineTransform(translationX: -0.5, y: -0.5).concatenating(mt).concatenating(
        PixelFlow.AffineTransform(translationX: 0.5, y: 0.5))
}

func refRotate(_ b: PixelBuffer, _ x: Int, _ y: Int) -> SIMD4<Double> {
    let m = rotationMatrix(b.width, b.height)
    // Inverse of [[a b tx] [c d ty]].
    let det = m.a * m.d - m.b * m.c
    let ia = m.d / det, ib = -m.b / det, ic = -m.c / det, id = m.a / det
    let dx = Double(x) - m.tx, dy = Double(y) - m.ty
    let sx = ia * dx + ib * dy, sy = ic * dx + id * dy
    let x0 = Int(sx.rounded(.down)), y0 = Int(sy.rounded(.down))
    let fx = sx - Double(x0), fy = sy - Double(y0)
    func at(_ i: Int, _ j: Int) -> SIMD4<Double> {
        i >= 0 && i < b.width && j >= 0 && j < b.height ? pixel(b, i, j) : .zero
    }
    return at(x0, y0) * ((1 - fx) * (1 - fy)) + at(x0 + 1, y0) * (fx * (1 - fy))
        + at(x0, y0 + 1) * ((1 - fx) * fy) + at(x0 + 1, y0 + 1) * (fx * fy)
}

// MARK: The ops

func makePeerOps(_ inp: PeerInputs) -> [PeerOp] {
    let W = inp.W, H = inp.H
    var ops: [PeerOp] = []

    /// A rendered op: `image` rendered over `rect` into a preallocated buffer of `format`.
    func rendered(
        _ variant: String, _ op: String, _ dtype: String, outW: Int? = nil, outH: Int? = nil,
        format: PixelFormat, alpha: AlphaMode, tolerance: Double = 1e-5, note: String,
        image: @escaping () throws -> Image, reference: ((Int, Int) -> SIMD4<Double>)?, channels: Int = 4
    ) {
        let ow = outW ?? W, oh = outH ?? H
        ops.append(
            PeerOp(
                variant: variant, op: op, dtype: dtype, outWidth: ow, outHeight: oh, note: note,
                tolerance: tolerance
            ) { t in
                let img = try image()
                let box = OutBox(try PixelBuffer(width: ow, height: oh, format: format, colorEncoding: .sRGB, alphaMode: alpha))
                let ctx = rawContext(t)
                let rect = Rect(x: 0, y: 0, width: ow, height: oh)
                return (
                    { try ctx.render(img, rect: rect, to: &box.buffer) },
                    { reference.map { maxAbsDifference(box.buffer, channels: channels, reference: $0) } }
                )
            })
    }
    let u8Tol = 1.0 / 255 + 1e-6

    rendered(
        "u8_to_f32", "u8_to_f32", "u8", format: .rgbaF32, alpha: .premultiplied, tolerance: 1e-6,
        note: "rgba8 source tagged premultiplied -> rgbaF32 buffer, colorManagement .none",
        image: { Image(inp.u8.tagged(.premultiplied)) }, reference: { pixel(inp.u8, $0, $1) })
    rendered(
        "f32_to_u8", "f32_to_u8", "f32", format: .rgba8, alpha: .premultiplied, tolerance: 1e-6,
        note: "rgbaF32 source tagged premultiplied -> rgba8 buffer (round half up, clamp)",
        image: { Image(inp.f32.tagged(.premultiplied)) }, reference: { q8(pixel(inp.f32, $0, $1)) })
    let straightNote = "straight rgbaF32 in and out, colorManagement .none"
    rendered(
        "invert_f32", "invert", "f32", format: .rgbaF32, alpha: .straight, note: "colorInverted(); " + straightNote,
        image: { try Image(inp.f32).colorInverted() }, reference: { refInvert(pixel(inp.f32, $0, $1)) })
    rendered(
        "color_matrix_f32", "color_matrix", "f32", format: .rgbaF32, alpha: .straight,
        note: "colorMatrix(sepia, bias); " + straightNote,
        image: {
            try Image(inp.f32).colorMatrix(r: sepiaRows[0], g: sepiaRows[1], b: sepiaRows[2], a: sepiaRows[3], bias: sepiaBias)
        },
        reference: { refMatrix(pixel(inp.f32, $0, $1), sepiaRows, sepiaBias) })
    rendered(
        "color_controls_f32", "color_controls", "f32", format: .rgbaF32, alpha: .straight,
        note: "colorControls(1.2, 0.1, 1.1), one matrix; " + straightNote,
        image: { try Image(inp.f32).colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1) },
        reference: { refColorControls(pixel(inp.f32, $0, $1)) })
    rendered(
        "gamma_f32", "gamma", "f32", format: .rgbaF32, alpha: .straight, tolerance: 1e-4,
        note: "gammaAdjusted(power: 0.75); " + straightNote,
        image: { try Image(inp.f32).gammaAdjusted(power: 0.75) }, reference: { refGamma(pixel(inp.f32, $0, $1)) })
    rendered(
        "chain5_f32", "chain5", "f32", format: .rgbaF32, alpha: .straight, tolerance: 1e-4,
        note: "5 filters fused into one pass (matrices folded); " + straightNote,
        image: { try chain5(Image(inp.f32)) }, reference: { refChain5(pixel(inp.f32, $0, $1)) })

    for (name, sigma) in [("gaussian_s2", 2.0), ("gaussian_s10", 10.0)] {
        let taps = gaussianTaps(sigma)
        rendered(
            name + "_f32", name, "f32", format: .rgbaF32, alpha: .premultiplied,
            note: "clampedToExtent().gaussianBlurred(radius: \(sigma)).cropped; all 4 channels (tagged premultiplied)",
            image: {
                try Image(inp.f32.tagged(.premultiplied)).clampedToExtent().gaussianBlurred(radius: sigma).cropped(
                    to: inp.u8.bounds)
            },
            reference: { refSeparable(inp.f32, taps, $0, $1) })
        rendered(
            name + "_u8", name, "u8", format: .rgba8, alpha: .premultiplied, tolerance: u8Tol,
            note: "rgba8 tagged premultiplied, float taps, round half up",
            image: {
                try Image(inp.u8.tagged(.premultiplied)).clampedToExtent().gaussianBlurred(radius: sigma).cropped(
                    to: inp.u8.bounds)
            },
            reference: { q8(refSeparable(inp.u8, taps, $0, $1)) })
    }
    rendered(
        "conv3x3_emboss_f32", "conv3x3_emboss", "f32", format: .rgbaF32, alpha: .premultiplied,
        note: "clampedToExtent().convolved3x3(EMBOSS).cropped; all 4 channels",
        image: {
            try Image(inp.f32.tagged(.premultiplied)).clampedToExtent().convolved3x3(weights: embossWeights).cropped(
                to: inp.u8.bounds)
        },
        reference: { x, y in
            var acc = SIMD4<Double>()
            for j in 0..<3 { for i in 0..<3 { acc += embossWeights[j * 3 + i] * clampedPixel(inp.f32, x + i - 1, y + j - 1) } }
            return acc
        })
    for (suffix, dtype) in [("_f32", "f32"), ("_u8", "u8")] {
        let isU8 = dtype == "u8"
        func src() -> PixelBuffer { (isU8 ? inp.u8 : inp.f32).tagged(.premultiplied) }
        let fmt: PixelFormat = isU8 ? .rgba8 : .rgbaF32
        let tol = isU8 ? u8Tol : 1e-5
        rendered(
            "resize_half_bilinear" + suffix, "resize_half_bilinear", dtype, outW: W / 2, outH: H / 2, format: fmt,
            alpha: .premultiplied, tolerance: tol, note: "transformed(by: scale 0.5), bilinear: the 2x2 mean",
            image: { try Image(src()).transformed(by: PixelFlow.AffineTransform(scaleX: 0.5, y: 0.5)) },
            reference: { x, y in
                let s = src()
                let m =
                    (pixel(s, 2 * x, 2 * y) + pixel(s, 2 * x + 1, 2 * y) + pixel(s, 2 * x, 2 * y + 1)
                        + pixel(s, 2 * x + 1, 2 * y + 1)) * 0.25
                return isU8 ? q8(m) : m
            })
        rendered(
            "resize_half_lanczos3" + suffix, "resize_half_lanczos3", dtype, outW: W / 2, outH: H / 2, format: fmt,
            alpha: .premultiplied, tolerance: tol,
            note: "clampedToExtent, crop 6 px outside, lanczosScaled(0.5): 12 taps per axis with clamped edges",
            image: {
                try Image(src()).clampedToExtent().cropped(to: Rect(x: -6, y: -6, width: W + 12, height: H + 12)).lanczosScaled(
                    scale: 0.5)
            },
            reference: { x, y in
                let v = refLanczosHalf(src(), x, y); return isU8 ? q8(v) : v
            })
    }
    let th = Int((Double(H) * Double(thumbnailWidth) / Double(W)).rounded())
    rendered(
        "thumbnail", "thumbnail", "u8", outW: thumbnailWidth, outH: th, format: .rgba8, alpha: .straight,
        note:
            "thumbnail(width: \(thumbnailWidth)) on straight rgba8 (box shrink + Lanczos-3, premultiplied inside), colorManagement .none; no exact reference",
        image: { try Image(inp.u8).thumbnail(width: thumbnailWidth) }, reference: nil)
    for (suffix, dtype) in [("_f32", "f32"), ("_u8", "u8")] {
        let isU8 = dtype == "u8"
        func src() -> PixelBuffer { (isU8 ? inp.u8 : inp.f32).tagged(.premultiplied) }
        rendered(
            "rotate15" + suffix, "rotate15", dtype, format: isU8 ? .rgba8 : .rgbaF32, alpha: .premultiplied,
            tolerance: isU8 ? u8Tol : 1e-5,
            note: "transformed(by: getRotationMatrix2D(center, 15, 1) in pixel-center coordinates), bilinear, outside 0",
            image: { try Image(src()).transformed(by: rotationTransform(W, H)) },
            reference: { x, y in
                let v = refRotate(src(), x, y); return isU8 ? q8(v) : v
            })
    }
    rendered(
        "alpha_blend", "alpha_blend", "f32pm x2", format: .rgbaF32, alpha: .premultiplied,
        note: "A.mixed(with: B, amount: 0.5), premultiplied f32",
        image: { try Image(inp.pmA).mixed(with: Image(inp.pmB), amount: 0.5) },
        reference: { x, y in (pixel(inp.pmA, x, y) + pixel(inp.pmB, x, y)) * 0.5 })
    rendered(
        "source_atop", "source_atop", "f32pm x2", format: .rgbaF32, alpha: .premultiplied,
        note: "A.composited(atop: B), premultiplied f32",
        image: { try Image(inp.pmA).composited(atop: Image(inp.pmB)) },
        reference: { x, y in
            let a = pixel(inp.pmA, x, y), b = pixel(inp.pmB, x, y)
            var r = a * b.w + b * (1 - a.w)
            r.w = b.w
            return r
        })
    rendered(
        "grayscale", "grayscale", "u8", format: .gray8, alpha: .straight, tolerance: u8Tol,
        note: "rgba8 tagged premultiplied rendered into a gray8 buffer (Rec.709 luma of the stored values)",
        image: { Image(inp.u8.tagged(.premultiplied)) },
        reference: { x, y in
            let p = pixel(inp.u8, x, y)
            let g = (0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z) * 255
            return SIMD4(repeating: (g + 0.5).rounded(.down) / 255)
        }, channels: 1)

    // Codecs: libpng / libjpeg-turbo through the shims, single-threaded but for PNG encoding.
    func codec(
        _ variant: String, _ dtype: String, note: String, tolerance: Double = 0,
        _ prepare: @escaping () throws -> (run: () throws -> Void, check: () throws -> Double?)
    ) {
        var o = PeerOp(
            variant: variant, op: variant, dtype: dtype, outWidth: W, outHeight: H, note: note,
            tolerance: tolerance
        ) { _ in try prepare() }
        o.singleThreaded = true
        ops.append(o)
    }
    func roundTripError(_ decoded: PixelBuffer, _ original: PixelBuffer) -> Double {
        maxAbsDifference(decoded) { pixel(original, $0, $1) }
    }
    // PNG encoding compresses its image data on `threadCount` threads (the same bytes for each).
    ops.append(
        PeerOp(
            variant: "png_encode", op: "png_encode", dtype: "u8", outWidth: W, outHeight: H,
            note: "PixelBuffer.encoded(as: .png), level 6 (PixelFlow's deflate), parallel chunks; check: lossless round trip",
            tolerance: 0
        ) { t in
            final class Bytes { var b: [UInt8] = [] }
            let out = Bytes()
            let opts = EncodeOptions(compressionLevel: 6, threadCount: t)
            return (
                { out.b = try inp.u8.encoded(as: .png, options: opts) },
                { roundTripError(try PixelBuffer(encoded: out.b), inp.u8) }
            )
        })
    codec("png_decode", "png", note: "PixelBuffer(encoded:) of the PNG into rgba8") {
        let bytes = inp.png
        let box = OutBox(inp.u8)
        return (
            { box.buffer = try PixelBuffer(encoded: bytes) },
            { box.buffer.width == W && box.buffer.height == H ? roundTripError(box.buffer, inp.u8) : nil }
        )
    }
    // JPEG encoding compresses bands of MCU rows on `threadCount` threads (the same bytes for each).
    ops.append(
        PeerOp(
            variant: "jpeg_encode", op: "jpeg_encode", dtype: "u8rgb", outWidth: W, outHeight: H,
            note:
                "PixelBuffer.encoded(as: .jpeg, quality: 90), baseline 4:2:0, from rgba8 (alpha dropped), parallel bands with restart markers; lossy, no check"
        ) { t in
            final class Bytes { var b: [UInt8] = [] }
            let out = Bytes()
            let opts = EncodeOptions(progressive: false, chromaSubsampling: .yuv420, threadCount: t)
            return ({ out.b = try inp.u8.encoded(as: .jpeg, quality: 90, options: opts) }, { nil })
        })
    // JPEG decoding: libjpeg-turbo's entropy decoding and IDCT on one thread, upsampling and
    // color conversion on the others, with `threadCount` 2 or more (the same bytes for each).
    ops.append(
        PeerOp(
            variant: "jpeg_decode", op: "jpeg_decode", dtype: "jpg", outWidth: W, outHeight: H,
            note:
                "PixelBuffer(encoded:) of the JPEG into rgba8 (there is no 3-channel format), DecodeOptions.threadCount = threads; lossy, no check"
        ) { t in
            let bytes = inp.jpeg
            let box = OutBox(inp.u8)
            var options = DecodeOptions.default
            options.threadCount = t
            return ({ box.buffer = try PixelBuffer(encoded: bytes, options: options) }, { nil })
        })
    // Neighbourhood filters of Catalog II, with the peers' "clamp edges": clampedToExtent(),
    // the filter, then a crop back.
    let f32pm = inp.f32.tagged(.premultiplied)
    rendered(
        "box_r5_f32", "box_r5", "f32", format: .rgbaF32, alpha: .premultiplied, tolerance: 1e-5,
        note: "clampedToExtent().boxBlurred(radius: 5).cropped; 11x11 mean, all 4 channels (running sums)",
        image: { try Image(f32pm).clampedToExtent().boxBlurred(radius: 5).cropped(to: inp.u8.bounds) },
        reference: { refSeparable(inp.f32, [Double](repeating: 1.0 / 11, count: 11), $0, $1) })
    let unsharpTaps = gaussianTaps(2.5)
    rendered(
        "unsharp_f32", "unsharp", "f32", format: .rgbaF32, alpha: .premultiplied, tolerance: 1e-5,
        note: "clampedToExtent().unsharpMasked(radius: 2.5, intensity: 0.5).cropped; all 4 channels",
        image: { try Image(f32pm).clampedToExtent().unsharpMasked(radius: 2.5, intensity: 0.5).cropped(to: inp.u8.bounds) },
        reference: { x, y in
            let p = pixel(inp.f32, x, y)
            return p + 0.5 * (p - refSeparable(inp.f32, unsharpTaps, x, y))
        })
    rendered(
        "dilate5", "dilate5", "u8", format: .rgba8, alpha: .premultiplied, tolerance: 1e-6,
        note: "clampedToExtent().morphologyRectangleMaximum(width: 5, height: 5).cropped; rgba8 tagged premultiplied",
        image: {
            try Image(inp.u8.tagged(.premultiplied)).clampedToExtent().morphologyRectangleMaximum(width: 5, height: 5)
                .cropped(to: inp.u8.bounds)
        },
        reference: { x, y in
            var m = SIMD4<Double>(repeating: -1)
            for j in -2...2 { for i in -2...2 { m = pointwiseMax(m, clampedPixel(inp.u8, x + i, y + j)) } }
            return m
        })
    let sobelX: [Double] = [-1, 0, 1, -2, 0, 2, -1, 0, 1], sobelY: [Double] = [-1, -2, -1, 0, 0, 0, 1, 2, 1]
    rendered(
        "sobel_mag_f32", "sobel_mag", "f32", format: .rgbaF32, alpha: .premultiplied, tolerance: 1e-5,
        note: "two clamped 3x3 convolutions (SOBEL_X, SOBEL_Y) blended by a custom kernel sqrt(gx^2+gy^2); all 4 channels",
        image: {
            let clamped = Image(f32pm).clampedToExtent()
            let gx = try clamped.convolved3x3(weights: sobelX)
            let gy = try clamped.convolved3x3(weights: sobelY)
            return gx.blended(with: gy, named: "sobel-magnitude") { a, b in (a * a + b * b).squareRoot() }
                .cropped(to: inp.u8.bounds)
        },
        reference: { x, y in
            var gx = SIMD4<Double>(), gy = SIMD4<Double>()
            for j in 0..<3 {
                for i in 0..<3 {
                    let p = clampedPixel(inp.f32, x + i - 1, y + j - 1)
                    gx += sobelX[j * 3 + i] * p
                    gy += sobelY[j * 3 + i] * p
                }
            }
            return (gx * gx + gy * gy).squareRoot()
        })
    rendered(
        "median5", "median5", "u8", format: .rgba8, alpha: .premultiplied, tolerance: 1e-6,
        note: "clampedToExtent().median(radius: 2).cropped; 5x5 median per channel, rgba8 tagged premultiplied",
        image: { try Image(inp.u8.tagged(.premultiplied)).clampedToExtent().median(radius: 2).cropped(to: inp.u8.bounds) },
        reference: { x, y in
            var r = SIMD4<Double>()
            for c in 0..<4 {
                var v: [Double] = []
                for j in -2...2 { for i in -2...2 { v.append(clampedPixel(inp.u8, x + i, y + j)[c]) } }
                r[c] = v.sorted()[12]
            }
            return r
        })
    return ops
}
