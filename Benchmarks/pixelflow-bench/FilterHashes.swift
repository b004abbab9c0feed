import Foundation
import PixelFlow

// `pixelflow-bench --filter-hashes FILE`: a hash of the output of every registered filter at
// its defaults, on a fixed set of generated images, as rgba8 (sRGB, straight alpha) and
// rgbaF32 (linear, premultiplied), rendered with 1 and 2 threads; written as JSON. Recorded
// before and after an engine change, two files are compared with
// scripts/compare_filter_hashes.py, which lists every (filter, image, format, threads) whose
// pixels changed. Benchmarks/engine-hashes-baseline.json holds the baseline of main.
//
// The images are `makeTestImage` (deterministic; no file is read) at two sizes: 320x200, which
// default 256x64 tiles split both ways, and an odd 97x61. Filters with further image inputs
// get a second generated image of the same size (another seed); palette, gradient and means
// inputs get its top-left 16x1 strip, as in the registry section. Each output is rendered
// over the input's bounds (or its own extent inside them, when smaller).

/// One recorded output.
struct FilterHash: Codable {
    var filter: String
    var image: String
    var format: String
    var threads: Int
    /// FNV-1a 64 of the output's rows (`width * bytesPerPixel` bytes each, no row padding),
    /// as 16 hex digits; or `"error: ..."` when the filter or the render threw.
    var hash: String
    /// The rendered rect, as "x,y,WxH".
    var rect: String
}

struct FilterHashReport: Codable {
    var tool = "pixelflow-bench --filter-hashes"
    var version = 1
    var build: String
    var date: String
    var images: [[String: String]]
    var hashes: [FilterHash]
    /// "filter image format" whose 1- and 2-thread hashes differ (the engine promises none).
    var thread_mismatches: [String]
}

/// FNV-1a, 64 bits, over the pixel bytes of `b` row by row.
func fnv1a64(_ b: PixelBuffer) -> String {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    let rowBytes = b.width * b.format.bytesPerPixel
    b.withUnsafeBytes { raw in
        for y in 0..<b.height {
            let row = raw.baseAddress! + y * b.bytesPerRow
            for i in 0..<rowBytes {
                h ^= UInt64(row.load(fromByteOffset: i, as: UInt8.self))
                h = h &* 0x0000_0100_0000_01B3
            }
        }
    }
    return String(format: "%016llx", h)
}

func runFilterHashes(path: String) throws {
    let sizes: [(name: String, width: Int, height: Int, seeds: (UInt64, UInt64))] = [
        ("gen320x200", 320, 200, (42, 4242)),
        ("gen97x61", 97, 61, (7, 77)),
    ]
    let formats: [(label: String, format: PixelFormat)] = [("rgba8", .rgba8), ("rgbaF32", .rgbaF32)]
    let threadCounts = [1, 2]
    var hashes: [FilterHash] = []
    var mismatches: [String] = []
    var imageInfo: [[String: String]] = []
    let start = Date()
    for s in sizes {
        let a8 = try makeTestImage(width: s.width, height: s.height, seed: s.seeds.0)
        let b8 = try makeTestImage(width: s.width, height: s.height, seed: s.seeds.1)
        imageInfo.append([
            "name": s.name, "width": "\(s.width)", "height": "\(s.height)",
            "made_by": "makeTestImage seeds \(s.seeds.0) (inputImage) and \(s.seeds.1) (other image inputs)",
        ])
        for (label, format) in formats {
            let (a, b): (PixelBuffer, PixelBuffer)
            if format == .rgba8 {
                (a, b) = (a8, b8)
            } else {
                a = a8.converted(to: .rgbaF32, colorEncoding: .linear, alphaMode: .premultiplied)
                b = b8.converted(to: .rgbaF32, colorEncoding: .linear, alphaMode: .premultiplied)
            }
            let second = Image(b)
            let strip = second.cropped(to: Rect(x: 0, y: 0, width: 16, height: 1))
            for d in FilterRegistry.all {
                var values: [String: FilterValue?] = [:]
                for inp in d.inputs where inp.valueClass == .image {
                    let small = ["Palette", "Gradient", "Means"].contains { inp.key.contains($0) }
                    values[inp.key] = .image(inp.key == "inputImage" ? Image(a) : (small ? strip : second))
                }
                var rect = a.bounds
                var image: Image?
                var failure: String?
                do {
                    let out = try d.apply(values).cropped(to: a.bounds)
                    if !out.extent.isEmpty { rect = out.extent.integral }
                    image = out
                } catch {
                    failure = "error: \(error)"
                }
                var byThreads: [Int: String] = [:]
                for t in threadCounts {
                    var h = failure ?? ""
                    if let image {
                        do {
                            h = fnv1a64(try RenderContext(threadCount: t).makeBuffer(image, rect: rect, format: format))
                        } catch {
                            h = "error: \(error)"
                        }
                    }
                    byThreads[t] = h
                    hashes.append(
                        FilterHash(
                            filter: d.name, image: s.name, format: label, threads: t, hash: h,
                            rect: "\(Int(rect.x)),\(Int(rect.y)),\(Int(rect.width))x\(Int(rect.height))"))
                }
                if Set(byThreads.values).count > 1 {
                    mismatches.append("\(d.name) \(s.name) \(label)")
                    print(
                        "thread mismatch: \(d.name) \(s.name) \(label): "
                            + threadCounts.map { "\($0): \(byThreads[$0]!)" }.joined(separator: ", "))
                }
            }
        }
    }
    let report = FilterHashReport(
        build: options.label, date: ISO8601DateFormatter().string(from: start), images: imageInfo,
        hashes: hashes, thread_mismatches: mismatches)
    let enc = JSONEncoder()
    enc.outputFormatting = [.prettyPrinted, .sortedKeys]
    try enc.encode(report).write(to: URL(fileURLWithPath: path))
    print(
        String(
            format: "filter hashes: %d outputs of %d filters in %.1f s; %d thread mismatches; wrote %@",
            hashes.count, FilterRegistry.all.count, Date().timeIntervalSince(start), mismatches.count, path))
}
