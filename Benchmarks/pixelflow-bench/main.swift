// pixelflow-bench: throughput of PixelFlow's filters and engine, in release builds.
//
//   swift run -c release pixelflow-bench [--quick] [--threads 1,2] [--filter NAME]
//                                        [--category NAME] [--json FILE] [--runs N]
//
// Figures are megapixels per second of output (median and best of the timed runs), with
// the memory-copy roofline measured in the same run, because shared machines drift.
import Foundation
import PixelFlow

struct Options {
    var width = 3840, height = 2160
    var threads: [Int] = [1, RenderContext.activeProcessorCount]
    var filters: [String] = []
    var category: FilterCategory?
    var jsonPath: String?
    var runs = 7
    var child: String?
    var engineOnly = false
}

func parseOptions() -> Options {
    var o = Options()
    var args = Array(CommandLine.arguments.dropFirst())
    func value(_ flag: String) -> String {
        guard !args.isEmpty else { fail("\(flag) needs a value") }
        return args.removeFirst()
    }
    while !args.isEmpty {
        let a = args.removeFirst()
        switch a {
        case "--quick": o.width = 1920; o.height = 1080; o.runs = 5
        case "--size":
            let v = value(a).split(separator: "x").compactMap { Int($0) }
            guard v.count == 2, v[0] > 0, v[1] > 0 else { fail("--size takes WxH") }
            o.width = v[0]; o.height = v[1]
        case "--threads": o.threads = value(a).split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
        case "--filter": o.filters += value(a).split(separator: ",").map(String.init)
        case "--category":
            let v = value(a)
            guard let c = FilterCategory(named: v) else { fail("unknown category \(v)") }
            o.category = c
        case "--json": o.jsonPath = value(a)
        case "--runs": o.runs = max(1, Int(value(a)) ?? 7)
        case "--engine": o.engineOnly = true
        case "--child": o.child = value(a)
        case "-h", "--help":
            print("""
            usage: pixelflow-bench [--quick] [--size WxH] [--threads 1,2] [--filter NAME[,NAME]] [--category NAME]
                                   [--engine] [--runs N] [--json FILE]
            Measures every registered filter at its default parameters (rgba8 in and out, and
            rgbaF32 for the engine cases), 1 thread and all threads, with the memory-copy
            roofline measured in the same run. --quick uses 1920x1080.
            """)
            exit(0)
        default: fail("unknown argument \(a); see --help")
        }
    }
    return o
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pixelflow-bench: \(message)\n".utf8))
    exit(2)
}

/// A deterministic test image: gradients, discs and noise, like the peer benchmark's.
func makeTestImage(width: Int, height: Int) throws -> PixelBuffer {
    var b = try PixelBuffer(width: width, height: height, format: .rgba8)
    var state: UInt64 = 42
    b.withUnsafeMutableRows { y, row in
        let p = row.assumingMemoryBound(to: UInt8.self)
        for x in 0..<width {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let n = Int(state >> 61) - 4
            let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
            let dx = fx - 0.5, dy = fy - 0.5
            let disc = dx * dx + dy * dy < 0.05
            let r = 127.5 + 127.5 * sin(fx * 12), g = 255 * fy, bl = disc ? 40.0 : 200 * fx
            p[4 * x] = UInt8(clamping: Int(r) + n)
            p[4 * x + 1] = UInt8(clamping: Int(g) + n)
            p[4 * x + 2] = UInt8(clamping: Int(bl) + n)
            p[4 * x + 3] = disc && x % 7 == 0 ? 128 : 255
        }
    }
    return b
}

struct Result: Codable {
    var variant: String
    var op: String
    var peer = "pixelflow"
    var threads: Int
    var dtype: String
    var median_ms: Double
    var min_ms: Double
    var mpix_s_median: Double
    var mpix_s_best: Double
    var roofline_fraction: Double?
    var peak_rss_mb: Double?
}

func record(_ op: String, variant: String = "default", dtype: String, threads: Int, pixels: Int, _ m: Measurement,
            roofline: Double? = nil) -> Result {
    let mp = Double(pixels) / 1e6
    var r = Result(variant: variant, op: op, threads: threads, dtype: dtype, median_ms: m.median * 1e3, min_ms: m.minimum * 1e3,
                   mpix_s_median: mp / m.median, mpix_s_best: mp / m.minimum)
    if let roofline { r.roofline_fraction = r.mpix_s_median / roofline }
    return r
}

// MARK: Child processes for peak memory

/// Renders one named case once and prints the peak resident set in bytes.
func runChild(_ name: String, width: Int, height: Int) throws {
    let input = try makeTestImage(width: width, height: height)
    let baseline = peakResidentBytes()
    var out = try PixelBuffer(width: width, height: height, format: .rgba8)
    let image: Image
    switch name {
    case "chain3_u8": image = try Image(input).sepiaTone(intensity: 0.8).exposureAdjusted(ev: 0.5).colorInverted()
    case "chain5_u8": image = try chain5(Image(input))
    default: fail("unknown child case \(name)")
    }
    try RenderContext().render(image, to: &out)
    print("\(baseline) \(peakResidentBytes())")
}

func childPeak(_ name: String, width: Int, height: Int) -> (before: Int, after: Int)? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    p.arguments = ["--child", name, "--size", "\(width)x\(height)"]
    let pipe = Pipe()
    p.standardOutput = pipe
    do { try p.run() } catch { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let parts = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    return parts.count == 2 ? (parts[0], parts[1]) : nil
}

// MARK: Main

let options = parseOptions()
if let child = options.child {
    do { try runChild(child, width: options.width, height: options.height) } catch { fail("\(error)") }
    exit(0)
}

let W = options.width, H = options.height, pixels = W * H
print("pixelflow-bench: \(W)x\(H), threads \(options.threads.map(String.init).joined(separator: ",")), \(options.runs) runs")
nonisolated(unsafe) var results: [Result] = []
nonisolated(unsafe) var rooflines: [Int: Roofline] = [:]
for t in options.threads {
    let r = Roofline.measure(threads: t)
    rooflines[t] = r
    print(String(format: "roofline: memcpy %.1f GB/s with %d thread(s) = %.0f MPix/s bound for rgbaF32 -> rgbaF32",
                 r.copyBytesPerSecond / 1e9, t, r.bound(bytesPerPixelRead: 16, written: 16)))
}

func line(_ r: Result) {
    var s = String(format: "%-32@ %-14@ t=%d  median %8.2f ms  %8.1f MPix/s  best %8.1f MPix/s", r.op as NSString,
                   r.dtype as NSString, r.threads, r.median_ms, r.mpix_s_median, r.mpix_s_best)
    if let f = r.roofline_fraction { s += String(format: "  %.0f%% of memcpy roofline", f * 100) }
    print(s)
}

do {
    let input8 = try makeTestImage(width: W, height: H)
    let inputF = input8.converted(to: .rgbaF32, colorEncoding: .linear, alphaMode: .premultiplied)
    var out8 = try PixelBuffer(width: W, height: H, format: .rgba8)
    var outF = try PixelBuffer(width: W, height: H, format: .rgbaF32)
    let sepia = ColorMatrix(rows: SIMD4(0.393, 0.769, 0.189, 0), SIMD4(0.349, 0.686, 0.168, 0),
                            SIMD4(0.272, 0.534, 0.131, 0), SIMD4(0, 0, 0, 1), bias: SIMD4(0.05, 0.02, -0.03, 0))
    // Engine cases.
    try runEngineCases(input8: input8, inputF: inputF, out8: &out8, outF: &outF, sepia: sepia)
    // Registry sweep: every filter at its defaults, rgba8 in and out.
    if !options.engineOnly {
        var names = FilterRegistry.filterNames(inCategories: options.category.map { [$0] } ?? [])
        if !options.filters.isEmpty { names = names.filter { n in options.filters.contains { n == $0 || n == "CI" + $0 } } }
        let second = try Image(input8).transformed(by: AffineTransform(rotationAngle: .pi).translatedBy(x: -Double(W), y: -Double(H)))
        for name in names {
            guard let d = FilterRegistry.descriptor(named: name) else { continue }
            var values: [String: FilterValue?] = [:]
            for inp in d.inputs where inp.valueClass == .image {
                values[inp.key] = .image(inp.key == "inputImage" ? Image(input8) : second)
            }
            let image = try d.apply(values).cropped(to: input8.bounds)
            let rect = image.extent.isEmpty ? input8.bounds : image.extent
            var out = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: .rgba8)
            for t in options.threads {
                let ctx = RenderContext(threadCount: t)
                let m = try Measurement.run(runs: options.runs) { try ctx.render(image, rect: rect, to: &out) }
                let r = record(name, dtype: "u8->u8", threads: t, pixels: out.width * out.height, m)
                results.append(r); line(r)
            }
        }
    }
} catch {
    fail("\(error)")
}

if let path = options.jsonPath {
    struct Report: Codable {
        var machine: [String: String]
        var roofline_copy_gb_s: [String: Double]
        var results: [Result]
    }
    let report = Report(machine: ["cpus": String(RenderContext.activeProcessorCount), "size": "\(W)x\(H)"],
                        roofline_copy_gb_s: Dictionary(uniqueKeysWithValues: rooflines.map { ("\($0.key)", $0.value.copyBytesPerSecond / 1e9) }),
                        results: results)
    let enc = JSONEncoder()
    enc.outputFormatting = [.prettyPrinted, .sortedKeys]
    do { try enc.encode(report).write(to: URL(fileURLWithPath: path)) } catch { fail("cannot write \(path): \(error)") }
    print("wrote \(path)")
}
