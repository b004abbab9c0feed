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
    var im = try ByteTaskImages(width: width, height: height)
    let clamped = ByteTaskImages.clamped
    func ramp(_ n: Int) -> [Double] {
        let w = (0..<n).map { Double(1 + ($0 * 7) % 5) }
        let s = w.reduce(0, +)
        return w.map { $0 / s }
    }
    let sharpen: [Double] = [-1, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }
    let emboss: [Double] = [-2, -1, 0, -1, 1, 1, 0, 1, 2]
    let sharpened = try clamped(im.opaque) { try $0.convolved3x3(weights: sharpen) }
    let embossed = try clamped(im.premultiplied) { try $0.convolved3x3(weights: emboss) }
    let c5 = try clamped(im.premultiplied) { try $0.convolved(size: 5, weights: ramp(25)) }
    let c7 = try clamped(im.premultiplied) { try $0.convolved(size: 7, weights: ramp(49)) }
    let c9 = try clamped(im.premultiplied) { try $0.convolved9(weights: ramp(9)) }
    let grayed = try clamped(im.gray) { try $0.convolved3x3(weights: sharpen) }
    try runBytePathCases(
        "byte convolutions: \(width)x\(height), \(threads) thread(s), \(rounds) alternating rounds, median ms",
        cases: [
            ("sharpen3x3", { c in try c.render(sharpened, to: &im.straightOut) }),
            ("emboss3x3", { c in try c.render(embossed, to: &im.premultipliedOut) }),
            ("conv5x5", { c in try c.render(c5, to: &im.premultipliedOut) }),
            ("conv7x7", { c in try c.render(c7, to: &im.premultipliedOut) }),
            ("conv9h", { c in try c.render(c9, to: &im.premultipliedOut) }),
            ("sharpen3x3_gray", { c in try c.render(grayed, to: &im.grayOut) }),
        ], threads: threads, rounds: rounds, nameWidth: 16)
}
