import Foundation
import PixelFlow

/// `--task byte-color`: the byte path's color forms against the float path, in the same run,
/// rounds alternating between `usesBytePath` on and off so drift hits both alike.
///
/// Cases (rgba8 in, rgba8 or gray8 out, `makeTestImage` and a second seed as the background):
/// - `source_atop`, `mix_0.5`, `multiply`, `screen`: blends of two premultiplied rgba8 sources
///   into premultiplied rgba8, `colorManagement: .none`;
/// - `unpremultiply`: premultiplied rgba8 into a straight rgba8 buffer, `.none`;
/// - `sepia_linear`: the peer SEPIA matrix on straight rgba8 into straight rgba8, in linear
///   light (the default context);
/// - `gray_linear`: premultiplied rgba8 into gray8 in linear light;
/// - `over_linear`, `atop_linear`, `screen_linear`, `mix_linear`: the blends in linear light
///   (premultiplied sRGB rgba8 into premultiplied rgba8);
/// - `premul_linear`, `unpremul_linear`: straight into premultiplied rgba8 and back, in linear light.
///
/// Prints each case's median time on and off and the ratio off / on (the speed-up), and the
/// same for the best times (less sensitive to other processes on a shared machine).
func runByteColorTask(width: Int, height: Int, threads: Int, rounds: Int) throws {
    let a = try makeTestImage(width: width, height: height).converted(
        to: .rgba8, colorEncoding: .sRGB, alphaMode: .premultiplied)
    let b = try makeTestImage(width: width, height: height, seed: 7).converted(
        to: .rgba8, colorEncoding: .sRGB, alphaMode: .premultiplied)
    let straight = try makeTestImage(width: width, height: height)
    let sepia = ColorMatrix(rows: sepiaRows[0], sepiaRows[1], sepiaRows[2], sepiaRows[3], bias: sepiaBias)
    func context(_ raw: Bool, _ bytes: Bool) -> RenderContext {
        var o = RenderContext.Options(threadCount: threads, colorManagement: raw ? .none : .linear)
        o.usesBytePath = bytes
        return RenderContext(options: o)
    }
    var pm = try PixelBuffer(width: width, height: height, format: .rgba8, alphaMode: .premultiplied)
    var st = try PixelBuffer(width: width, height: height, format: .rgba8, alphaMode: .straight)
    var gray = try PixelBuffer(width: width, height: height, format: .gray8)
    typealias Case = (name: String, raw: Bool, run: (RenderContext) throws -> Void)
    let atop = try Image(a).composited(atop: Image(b)), mix = try Image(a).mixed(with: Image(b), amount: 0.5)
    let multiply = try Image(a).blended(over: Image(b), mode: .multiply)
    let screen = try Image(a).blended(over: Image(b), mode: .screen)
    let sepiaImage = try Image(straight).colorMatrix(
        r: sepia.row(0), g: sepia.row(1), b: sepia.row(2), a: sepia.row(3), bias: sepia.bias)
    let over = Image(a).composited(over: Image(b))
    let straightBytes = straight
    let cases: [Case] = [
        ("source_atop", true, { c in try c.render(atop, to: &pm) }),
        ("mix_0.5", true, { c in try c.render(mix, to: &pm) }),
        ("multiply", true, { c in try c.render(multiply, to: &pm) }),
        ("screen", true, { c in try c.render(screen, to: &pm) }),
        ("unpremultiply", true, { c in try c.render(Image(a), to: &st) }),
        ("sepia_linear", false, { c in try c.render(sepiaImage, to: &st) }),
        ("gray_linear", false, { c in try c.render(Image(a), to: &gray) }),
        ("over_linear", false, { c in try c.render(over, to: &pm) }),
        ("atop_linear", false, { c in try c.render(atop, to: &pm) }),
        ("screen_linear", false, { c in try c.render(screen, to: &pm) }),
        ("mix_linear", false, { c in try c.render(mix, to: &pm) }),
        ("premul_linear", false, { c in try c.render(Image(straightBytes), to: &pm) }),
        ("unpremul_linear", false, { c in try c.render(Image(a), to: &st) }),
    ]
    print("byte color forms: \(width)x\(height), \(threads) thread(s), \(rounds) alternating rounds, median ms")
    for c in cases {
        let on = context(c.raw, true), off = context(c.raw, false)
        let (tOn, tOff) = try alternatingTimes(rounds: rounds, { try c.run(on) }, { try c.run(off) })
        let mOn = Measurement(times: tOn).median, mOff = Measurement(times: tOff).median
        let bOn = tOn.min()!, bOff = tOff.min()!
        print(
            String(
                format: "  %@ bytes %.2f  float %.2f  float/bytes %.2f  (best %.2f / %.2f: %.2f)",
                c.name.padding(toLength: 14, withPad: " ", startingAt: 0), mOn * 1000, mOff * 1000, mOff / mOn, bOn * 1000,
                bOff * 1000, bOff / bOn))
    }
}

/// The times of `first` and `second` run in `rounds` alternating rounds after one warm-up run
/// of each, so drift on a shared machine hits both alike.
func alternatingTimes(rounds: Int, _ first: () throws -> Void, _ second: () throws -> Void) throws -> (
    first: [Double], second: [Double]
) {
    try first()
    try second()
    var a: [Double] = [], b: [Double] = []
    for _ in 0..<rounds {
        var t0 = now()
        try first()
        a.append(now() - t0)
        t0 = now()
        try second()
        b.append(now() - t0)
    }
    return (a, b)
}

/// The test images of the byte-form tasks at `width` x `height`: `makeTestImage` as opaque
/// straight rgba8, as premultiplied rgba8 and as gray8, and destinations of each format.
struct ByteTaskImages {
    let opaque: PixelBuffer
    let premultiplied: PixelBuffer
    let gray: PixelBuffer
    var straightOut: PixelBuffer
    var premultipliedOut: PixelBuffer
    var grayOut: PixelBuffer

    init(width: Int, height: Int) throws {
        var opaque = try makeTestImage(width: width, height: height).converted(
            to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
        let bpr = opaque.bytesPerRow
        opaque.withUnsafeMutableBytes { raw in
            for y in 0..<height { for x in 0..<width { raw[y * bpr + 4 * x + 3] = 255 } }
        }
        self.opaque = opaque
        premultiplied = try makeTestImage(width: width, height: height).converted(
            to: .rgba8, colorEncoding: .sRGB, alphaMode: .premultiplied)
        gray = opaque.converted(to: .gray8, colorEncoding: .sRGB, alphaMode: .straight)
        straightOut = try PixelBuffer(width: width, height: height, format: .rgba8, alphaMode: .straight)
        premultipliedOut = try PixelBuffer(width: width, height: height, format: .rgba8, alphaMode: .premultiplied)
        grayOut = try PixelBuffer(width: width, height: height, format: .gray8)
    }

    /// `f` of `b`'s image over its clamped edges, cropped back (the peers' border handling).
    static func clamped(_ b: PixelBuffer, _ f: (Image) throws -> Image) throws -> Image {
        try f(Image(b).clampedToExtent()).cropped(to: Image(b).extent)
    }
}

/// Times each case with the byte path on and off (`colorManagement: .none`, the byte forms'
/// setting) in `rounds` alternating rounds, and prints its medians, the ratio float / bytes and
/// one JSON line (`json: {...}`, milliseconds) for the scripts that compare with the peers.
func runBytePathCases(
    _ title: String, cases: [(name: String, run: (RenderContext) throws -> Void)], threads: Int, rounds: Int,
    nameWidth: Int
) throws {
    func context(_ bytes: Bool) -> RenderContext {
        var o = RenderContext.Options(threadCount: threads, colorManagement: .none)
        o.usesBytePath = bytes
        return RenderContext(options: o)
    }
    let on = context(true), off = context(false)
    print(title)
    for c in cases {
        let (tOn, tOff) = try alternatingTimes(rounds: rounds, { try c.run(on) }, { try c.run(off) })
        let mOn = Measurement(times: tOn).median, mOff = Measurement(times: tOff).median
        print(
            String(
                format: "  %@ bytes %.2f  float %.2f  float/bytes %.2f",
                c.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0), mOn * 1000, mOff * 1000,
                mOff / mOn))
        print(
            "json: {\"case\": \"\(c.name)\", \"threads\": \(threads), \"bytes_ms\": \(mOn * 1000), \"float_ms\": \(mOff * 1000)}")
    }
}
