import Foundation
import PixelFlow

/// `--task byte-unsharp`: the byte form of unsharp masks and luma sharpening against the float
/// path, in the same run, rounds alternating between `usesBytePath` on and off so drift hits both
/// alike (`colorManagement: .none`, the form's setting).
///
/// Cases, each over the clamped source cropped back (the peers' border handling):
/// - `unsharp_s2_k1`: `unsharpMasked(radius: 2, intensity: 1)` of premultiplied rgba8 (the fused
///   tile-local stencil's graph);
/// - `unsharp_default`: `CIUnsharpMask`'s defaults (sigma 2.5, intensity 0.5), opaque straight
///   rgba8 into straight rgba8;
/// - `unsharp_s5_k1`: sigma 5, intensity 1 (the whole-region Gaussian and blend's graph);
/// - `sharpen_luma_default`: `CISharpenLuminance`'s defaults (sharpness 0.4, sigma 1.69);
/// - `unsharp_s2_k1_gray`: sigma 2, intensity 1 on gray8.
///
/// Prints each case's median time on and off and the ratio off / on, and one JSON line per case
/// (`json: {...}`, milliseconds) for scripts/bench_byte_unsharp.py.
func runByteUnsharpTask(width: Int, height: Int, threads: Int, rounds: Int) throws {
    var opaque = try makeTestImage(width: width, height: height).converted(
        to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
    let bpr = opaque.bytesPerRow
    opaque.withUnsafeMutableBytes { raw in
        for y in 0..<height { for x in 0..<width { raw[y * bpr + 4 * x + 3] = 255 } }
    }
    let pm = try makeTestImage(width: width, height: height).converted(
        to: .rgba8, colorEncoding: .sRGB, alphaMode: .premultiplied)
    let gray = opaque.converted(to: .gray8, colorEncoding: .sRGB, alphaMode: .straight)
    func clamped(_ b: PixelBuffer, _ f: (Image) throws -> Image) throws -> Image {
        try f(Image(b).clampedToExtent()).cropped(to: Image(b).extent)
    }
    var st = try PixelBuffer(width: width, height: height, format: .rgba8, alphaMode: .straight)
    var out = try PixelBuffer(width: width, height: height, format: .rgba8, alphaMode: .premultiplied)
    var g8 = try PixelBuffer(width: width, height: height, format: .gray8)
    typealias Case = (name: String, run: (RenderContext) throws -> Void)
    let s2 = try clamped(pm) { try $0.unsharpMasked(radius: 2, intensity: 1) }
    let defaults = try clamped(opaque) { try $0.unsharpMasked() }
    let s5 = try clamped(pm) { try $0.unsharpMasked(radius: 5, intensity: 1) }
    let luma = try clamped(pm) { try $0.sharpenedLuminance() }
    let grayed = try clamped(gray) { try $0.unsharpMasked(radius: 2, intensity: 1) }
    let cases: [Case] = [
        ("unsharp_s2_k1", { c in try c.render(s2, to: &out) }),
        ("unsharp_default", { c in try c.render(defaults, to: &st) }),
        ("unsharp_s5_k1", { c in try c.render(s5, to: &out) }),
        ("sharpen_luma_default", { c in try c.render(luma, to: &out) }),
        ("unsharp_s2_k1_gray", { c in try c.render(grayed, to: &g8) }),
    ]
    func context(_ bytes: Bool) -> RenderContext {
        var o = RenderContext.Options(threadCount: threads, colorManagement: .none)
        o.usesBytePath = bytes
        return RenderContext(options: o)
    }
    let on = context(true), off = context(false)
    print("byte unsharp masks: \(width)x\(height), \(threads) thread(s), \(rounds) alternating rounds, median ms")
    for c in cases {
        let (tOn, tOff) = try alternatingTimes(rounds: rounds, { try c.run(on) }, { try c.run(off) })
        let mOn = Measurement(times: tOn).median, mOff = Measurement(times: tOff).median
        print(
            String(
                format: "  %@ bytes %.2f  float %.2f  float/bytes %.2f",
                c.name.padding(toLength: 22, withPad: " ", startingAt: 0), mOn * 1000, mOff * 1000, mOff / mOn))
        print(
            "json: {\"case\": \"\(c.name)\", \"threads\": \(threads), \"bytes_ms\": \(mOn * 1000), \"float_ms\": \(mOff * 1000)}")
    }
}
