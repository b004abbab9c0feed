import Foundation
import PixelFlow

/// `--task byte-convolution`: the byte form of convolutions against the float path, in the same
/// run, rounds alternating between `usesBytePath` on and off so drift hits both alike
/// (`colorManagement: .none`, the form's setting; `makeTestImage` made opaque for the straight
/// cases).
///
/// Cases, each over the clamped source cropped back (the peers' border handling):
/// - `sharpen3x3`: libvips' task mask `[-1 -1 -1; -1 16 -1; -1 -1 -1] / 8`, opaque straight
///   rgba8 into straight rgba8;
/// - `emboss3x3`: the peer op's emboss weights on premultiplied rgba8;
/// - `conv5x5`, `conv7x7`, `conv9h`: normalized ramps on premultiplied rgba8;
/// - `sharpen3x3_gray`: the mask on gray8.
///
/// Prints each case's median time on and off and the ratio off / on, and one JSON line per
/// case (`json: {...}`, milliseconds) for scripts/bench_byte_convolution.py.
func runByteConvolutionTask(width: Int, height: Int, threads: Int, rounds: Int) throws {
    var opaque = try makeTestImage(width: width, height: height).converted(
        to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
    let bpr = opaque.bytesPerRow
    opaque.withUnsafeMutableBytes { raw in
        for y in 0..<height { for x in 0..<width { raw[y * bpr + 4 * x + 3] = 255 } }
    }
    let pm = try makeTestImage(width: width, height: height).converted(
        to: .rgba8, colorEncoding: .sRGB, alphaMode: .premultiplied)
    let gray = opaque.converted(to: .gray8, colorEncoding: .sRGB, alphaMode: .straight)
    func ramp(_ n: Int) -> [Double] {
        let w = (0..<n).map { Double(1 + ($0 * 7) % 5) }
        let s = w.reduce(0, +)
        return w.map { $0 / s }
    }
    let sharpen: [Double] = [-1, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }
    let emboss: [Double] = [-2, -1, 0, -1, 1, 1, 0, 1, 2]
    func clamped(_ b: PixelBuffer, _ f: (Image) throws -> Image) throws -> Image {
        try f(Image(b).clampedToExtent()).cropped(to: Image(b).extent)
    }
    var st = try PixelBuffer(width: width, height: height, format: .rgba8, alphaMode: .straight)
    var out = try PixelBuffer(width: width, height: height, format: .rgba8, alphaMode: .premultiplied)
    var g8 = try PixelBuffer(width: width, height: height, format: .gray8)
    typealias Case = (name: String, run: (RenderContext) throws -> Void)
    let sharpened = try clamped(opaque) { try $0.convolved3x3(weights: sharpen) }
    let embossed = try clamped(pm) { try $0.convolved3x3(weights: emboss) }
    let c5 = try clamped(pm) { try $0.convolved(size: 5, weights: ramp(25)) }
    let c7 = try clamped(pm) { try $0.convolved(size: 7, weights: ramp(49)) }
    let c9 = try clamped(pm) { try $0.convolved9(weights: ramp(9)) }
    let grayed = try clamped(gray) { try $0.convolved3x3(weights: sharpen) }
    let cases: [Case] = [
        ("sharpen3x3", { c in try c.render(sharpened, to: &st) }),
        ("emboss3x3", { c in try c.render(embossed, to: &out) }),
        ("conv5x5", { c in try c.render(c5, to: &out) }),
        ("conv7x7", { c in try c.render(c7, to: &out) }),
        ("conv9h", { c in try c.render(c9, to: &out) }),
        ("sharpen3x3_gray", { c in try c.render(grayed, to: &g8) }),
    ]
    func context(_ bytes: Bool) -> RenderContext {
        var o = RenderContext.Options(threadCount: threads, colorManagement: .none)
        o.usesBytePath = bytes
        return RenderContext(options: o)
    }
    let on = context(true), off = context(false)
    print("byte convolutions: \(width)x\(height), \(threads) thread(s), \(rounds) alternating rounds, median ms")
    for c in cases {
        let (tOn, tOff) = try alternatingTimes(rounds: rounds, { try c.run(on) }, { try c.run(off) })
        let mOn = Measurement(times: tOn).median, mOff = Measurement(times: tOff).median
        print(
            String(
                format: "  %@ bytes %.2f  float %.2f  float/bytes %.2f",
                c.name.padding(toLength: 16, withPad: " ", startingAt: 0), mOn * 1000, mOff * 1000, mOff / mOn))
        print(
            "json: {\"case\": \"\(c.name)\", \"threads\": \(threads), \"bytes_ms\": \(mOn * 1000), \"float_ms\": \(mOff * 1000)}")
    }
}
