import Dispatch
import Foundation
import PixelFlow

/// `pixelflow-bench --soak SECONDS`: a server's workload for SECONDS. `tasks` workers share
/// one `RenderContext` and render the same decode-chain-encode job over and over (a JPEG in
/// memory decoded, color-adjusted, blurred, scaled down, sharpened and encoded as JPEG); each
/// output is compared with the first one, byte for byte. Prints the renders per second, the
/// errors, whether every output was identical, and the resident memory sampled every
/// `sampleEvery` seconds; the last line says whether memory reached a plateau: the maximum of
/// the last third of the run is at most the maximum of the middle third plus 10% or 16 MB,
/// whichever is more (glibc's malloc grows its arenas in steps: +10 MB once in a minute was
/// seen here), and the least-squares slope of the second half in MB per minute.
/// Exits 1 on any error, any differing output or growth.
func runSoak(
    seconds: Double, tasks: Int, threads: Int, size: (Int, Int), jsonPath: String?,
    sampleEvery: Double = 5
) throws {
    let (W, H) = size
    let jpeg = try makeTestImage(width: W, height: H, seed: 7).encoded(as: .jpeg, quality: 92)
    let context = RenderContext(threadCount: threads)
    @Sendable func job() throws -> [UInt8] {
        let source = try Image(encoded: jpeg)
        let result =
            try source
            .colorControls(saturation: 1.2, brightness: 0.02, contrast: 1.05)
            .gaussianBlurred(radius: 2)
            .lanczosScaled(scale: 0.5)
            .sharpenedLuminance(sharpness: 0.4)
        return try context.encoded(result, as: .jpeg, rect: result.extent.integral, quality: 85)
    }
    let reference = try job()

    let state = SoakState()
    let start = now()
    let deadline = start + seconds
    var samples: [(t: Double, rssMB: Double, renders: Int)] = [(0, Double(residentBytes()) / 1_048_576, 0)]
    let group = DispatchGroup()
    for _ in 0..<tasks {
        DispatchQueue.global().async(group: group) {
            while now() < deadline {
                do {
                    let out = try job()
                    state.record(identical: out == reference)
                } catch {
                    state.record(error: error)
                }
            }
        }
    }
    // Sample the resident memory while the workers run.
    while group.wait(timeout: .now() + sampleEvery) == .timedOut {
        samples.append((now() - start, Double(residentBytes()) / 1_048_576, state.counts.renders))
        print(
            String(
                format: "  %6.0f s  %8d renders  resident %7.1f MB", samples.last!.t, samples.last!.renders,
                samples.last!.rssMB))
    }
    let elapsed = now() - start
    let c = state.counts
    samples.append((elapsed, Double(residentBytes()) / 1_048_576, c.renders))

    // Plateau: compare the largest resident size of the last third with that of the middle third.
    func peak(_ from: Double, _ to: Double) -> Double {
        samples.filter { $0.t >= from * elapsed && $0.t <= to * elapsed }.map(\.rssMB).max() ?? 0
    }
    let middle = peak(1.0 / 3, 2.0 / 3), last = peak(2.0 / 3, 1.01)
    let plateau = last <= middle + Swift.max(middle * 0.10, 16)
    let late = samples.filter { $0.t >= elapsed / 2 }
    let slope = leastSquaresSlope(late.map(\.t), late.map(\.rssMB)) * 60
    let rate = Double(c.renders) / elapsed
    print(
        String(
            format: "soak: %d renders in %.0f s (%.1f/s), %d task(s) sharing one context of %d thread(s), %dx%d JPEG",
            c.renders, elapsed, rate, tasks, threads, W, H))
    print(
        "soak: \(c.errors) error(s)\(c.firstError.map { " (first: \($0))" } ?? ""), "
            + "\(c.renders - c.identical) output(s) different from the first")
    print(
        String(
            format: "soak: resident memory: max of middle third %.1f MB, of last third %.1f MB, "
                + "second half's slope %+.2f MB/min: %@", middle, last, slope, plateau ? "plateau" : "GROWING"))
    if let path = jsonPath {
        let json: [String: Any] = [
            "seconds": elapsed, "renders": c.renders, "renders_per_second": rate, "errors": c.errors,
            "identical": c.identical == c.renders, "tasks": tasks, "threads": threads, "size": "\(W)x\(H)",
            "rss_mb": samples.map { ["t": $0.t, "mb": $0.rssMB, "renders": $0.renders] },
            "plateau": plateau, "slope_mb_per_minute": slope,
        ]
        let data = try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
    if c.errors > 0 || c.identical != c.renders || !plateau { exit(1) }
}

/// The slope of the least-squares line through `(x, y)`, or 0 for fewer than two points.
private func leastSquaresSlope(_ x: [Double], _ y: [Double]) -> Double {
    guard x.count >= 2 else { return 0 }
    let n = Double(x.count), mx = x.reduce(0, +) / n, my = y.reduce(0, +) / n
    let sxx = x.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
    guard sxx > 0 else { return 0 }
    return zip(x, y).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) } / sxx
}

/// The soak's counters, shared by its workers.
private final class SoakState: Sendable {
    struct Counts { var renders = 0, identical = 0, errors = 0; var firstError: String? }
    private let value = Locked(Counts())
    func record(identical: Bool) {
        value.withLock {
            $0.renders += 1; if identical { $0.identical += 1 }
        }
    }
    func record(error: any Error) {
        value.withLock {
            $0.errors += 1; if $0.firstError == nil { $0.firstError = "\(error)" }
        }
    }
    var counts: Counts { value.withLock { $0 } }
}
