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
    var im = try ByteTaskImages(width: width, height: height)
    let clamped = ByteTaskImages.clamped
    let s2 = try clamped(im.premultiplied) { try $0.unsharpMasked(radius: 2, intensity: 1) }
    let defaults = try clamped(im.opaque) { try $0.unsharpMasked() }
    let s5 = try clamped(im.premultiplied) { try $0.unsharpMasked(radius: 5, intensity: 1) }
    let luma = try clamped(im.premultiplied) { try $0.sharpenedLuminance() }
    let grayed = try clamped(im.gray) { try $0.unsharpMasked(radius: 2, intensity: 1) }
    try runBytePathCases(
        "byte unsharp masks: \(width)x\(height), \(threads) thread(s), \(rounds) alternating rounds, median ms",
        cases: [
            ("unsharp_s2_k1", { c in try c.render(s2, to: &im.premultipliedOut) }),
            ("unsharp_default", { c in try c.render(defaults, to: &im.straightOut) }),
            ("unsharp_s5_k1", { c in try c.render(s5, to: &im.premultipliedOut) }),
            ("sharpen_luma_default", { c in try c.render(luma, to: &im.premultipliedOut) }),
            ("unsharp_s2_k1_gray", { c in try c.render(grayed, to: &im.grayOut) }),
        ], threads: threads, rounds: rounds, nameWidth: 22)
}
