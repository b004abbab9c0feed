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
        try c.run(on)
        try c.run(off)  // warm-up
        var tOn: [Double] = [], tOff: [Double] = []
        for _ in 0..<rounds {
            var t0 = now()
            try c.run(on)
            tOn.append(now() - t0)
            t0 = now()
            try c.run(off)
            tOff.append(now() - t0)
        }
        let mOn = Measurement(times: tOn).median, mOff = Measurement(times: tOff).median
        let bOn = tOn.min()!, bOff = tOff.min()!
        print(
            String(
                format: "  %@ bytes %.2f  float %.2f  float/bytes %.2f  (best %.2f / %.2f: %.2f)",
                c.name.padding(toLength: 14, withPad: " ", startingAt: 0), mOn * 1000, mOff * 1000, mOff / mOn, bOn * 1000,
                bOff * 1000, bOff / bOn))
    }
}
