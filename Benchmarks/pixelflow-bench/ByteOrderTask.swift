import Foundation
import PixelFlow

/// `--task byte-orders`: the cost of the other 4 x 8-bit byte orders against rgba8, in the
/// same run, rounds alternating between the formats so drift hits them alike.
///
/// Cases, each rendered into (or read from) rgba8, bgra8 and argb8 buffers of the same size:
/// - `store_srgb`: chain5 on a float source into an 8-bit sRGB destination (the sRGB-encoding
///   store, `pf_store_4x8_srgb_row_run`);
/// - `store_raw`: the same chain with `colorManagement: .none` (the quantizing store,
///   `pf_store_4x8_row_run`);
/// - `load_srgb`: chain5 on an 8-bit source into rgbaF32 (the sRGB-decoding load);
/// - `load_raw`: the same with `colorManagement: .none` (the plain load);
/// - `convert`: `PixelBuffer.converted(to: .rgbaF32)` and back (load and store, one thread).
///
/// Prints each format's median time and its ratio to rgba8's.
func runByteOrderTask(width: Int, height: Int, threads: Int, rounds: Int) throws {
    let formats: [PixelFormat] = [.rgba8, .bgra8, .argb8]
    let rgba = try makeTestImage(width: width, height: height)
    let sources = Dictionary(uniqueKeysWithValues: formats.map { ($0, rgba.converted(to: $0)) })
    let float = rgba.converted(to: .rgbaF32)
    let linear = RenderContext(threadCount: threads)
    let raw = RenderContext(threadCount: threads, colorManagement: .none)
    typealias Case = (name: String, run: (PixelFormat) throws -> Void)
    var outF = try PixelBuffer(width: width, height: height, format: .rgbaF32)
    var outs = try Dictionary(
        uniqueKeysWithValues: formats.map { ($0, try PixelBuffer(width: width, height: height, format: $0)) })
    let chainOnFloat = try chain5(Image(float))
    let cases: [Case] = [
        ("store_srgb", { f in try linear.render(chainOnFloat, to: &outs[f]!) }),
        ("store_raw", { f in try raw.render(chainOnFloat, to: &outs[f]!) }),
        ("load_srgb", { f in try linear.render(try chain5(Image(sources[f]!)), to: &outF) }),
        ("load_raw", { f in try raw.render(try chain5(Image(sources[f]!)), to: &outF) }),
        ("convert", { f in _ = sources[f]!.converted(to: .rgbaF32).converted(to: f) }),
    ]
    print("byte orders: \(width)x\(height), \(threads) thread(s), \(rounds) alternating rounds, median ms (ratio to rgba8)")
    for c in cases {
        var times = Dictionary(uniqueKeysWithValues: formats.map { ($0, [Double]()) })
        for f in formats { try c.run(f) }  // warm-up
        for _ in 0..<rounds {
            for f in formats {
                let t0 = now()
                try c.run(f)
                times[f]!.append(now() - t0)
            }
        }
        let medians = times.mapValues { Measurement(times: $0).median }
        let base = medians[.rgba8]!
        let line = formats.map { f in String(format: "%@ %.2f (%.3f)", f.rawValue, medians[f]! * 1000, medians[f]! / base) }
        print("  \(c.name.padding(toLength: 10, withPad: " ", startingAt: 0)) " + line.joined(separator: "  "))
    }
}
