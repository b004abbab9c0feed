// pixelflow-bench: throughput of PixelFlow's filters and engine, in release builds.
//
//   swift run -c release pixelflow-bench                 # everything, 3840x2160, 1 thread and all threads
//   swift run -c release pixelflow-bench --quick         # 1920x1080
//   swift run -c release pixelflow-bench --ops gaussian,chain5 --json out.json
//   swift run -c release pixelflow-bench --filter CISepiaTone --category blur
//   swift run -c release pixelflow-bench --smoke         # CI: 256x144, 1 run, a handful of checked ops
//   swift run -c release pixelflow-bench --task vips --input in.jpg --output out.jpg
//   swift run -c release pixelflow-bench --task sepia --input big.jpg --output out.jpg   # scripts/bench_huge.py
//   swift run -c release pixelflow-bench --task qr --input FOLDER        # see scripts/bench_qr.py
//   swift run -c release pixelflow-bench --task rectangles --threads 1,2   # ms per 1920x1080 frame
//   swift run -c release pixelflow-bench --task byte-orders --threads 1 --runs 15   # bgra8/argb8 vs rgba8
//   swift run -c release pixelflow-bench --task byte-color --threads 1 --runs 15    # byte color forms vs float
//   swift run -c release pixelflow-bench --task byte-convolution --threads 1 --runs 15   # byte convolutions vs float
//   swift run -c release pixelflow-bench --task byte-unsharp --threads 1 --runs 15       # byte unsharp masks vs float
//   swift run -c release pixelflow-bench --filter-hashes out.json      # scripts/compare_filter_hashes.py
//
// Sections: `peer` (the operations of ../shared/peers/bench_peers.py, same definitions, each
// checked against a scalar reference on a 64x64 crop), `registry` (every registered filter at
// its defaults, rgba8 and rgbaF32), `engine` (fusion, folding, region of interest, memory),
// `faces` (face detection at 1920x1080 against OpenCV's detectMultiScale, FaceBench.swift).
// Figures are megapixels of output per second (median and best of the timed runs), with the
// memory-copy roofline measured in the same run, because shared machines drift.
// Docs/Performance.md explains the figures; scripts/bench-compare.sh runs the peers too.
import Foundation
import PixelFlow

enum Section: String, CaseIterable { case peer, registry, engine, faces }

struct Options {
    var width = 3840, height = 2160
    var threads: [Int] = Array(Set([1, RenderContext.activeProcessorCount])).sorted()
    var filters: [String] = []
    var category: FilterCategory?
    var ops: [String] = []
    var sections: Set<Section> = Set(Section.allCases)
    var jsonPath: String?
    var runs = 7
    var warmup = 2
    var minTime = 0.5
    var label = "default"
    var imagePath: String?, imageBPath: String?, pngPath: String?, jpegPath: String?
    var rss = false
    var roofline = true
    var smoke = false
    var childOp: String?
    var childEngine: String?
    var task: String?
    var taskInput: String?, taskOutput: String?
    /// `--no-restart-markers`: the vips task writes its JPEG as one compression (A/B of the bands).
    var jpegRestartMarkers = true
    /// `--encoder-threads N`: the file tasks' `EncodeOptions.threadCount` (A/B of the encoder's threads).
    var encoderThreads: Int?
    var sizeGiven = false
    var soakSeconds: Double?
    var soakTasks = 4
    var filterHashesPath: String?
}

func parseOptions() -> Options {
    var o = Options()
    var args = Array(CommandLine.arguments.dropFirst())
    var explicitSections: Set<Section> = []
    func value(_ flag: String) -> String {
        guard !args.isEmpty else { fail("\(flag) needs a value") }
        return args.removeFirst()
    }
    while !args.isEmpty {
        let a = args.removeFirst()
        switch a {
        case "--quick": o.width = 1920; o.height = 1080; o.sizeGiven = true
        case "--smoke":
            o.smoke = true; o.width = 256; o.height = 144; o.runs = 1; o.warmup = 0; o.minTime = 0
            o.ops = [
                "u8_to_f32", "color_matrix", "chain5", "gaussian_s2", "resize_half_lanczos3", "rotate15_f32",
                "source_atop", "grayscale", "png_encode", "box_r5", "unsharp", "dilate5", "sobel_mag", "median5",
            ]
            explicitSections = [.peer, .registry]
        case "--size":
            let v = value(a).split(separator: "x").compactMap { Int($0) }
            guard v.count == 2, v[0] > 0, v[1] > 0 else { fail("--size takes WxH") }
            o.width = v[0]; o.height = v[1]; o.sizeGiven = true
        case "--threads":
            o.threads = value(a).split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
            if o.threads.isEmpty { fail("--threads takes a comma list of positive counts") }
        case "--filter": o.filters += value(a).split(separator: ",").map(String.init); explicitSections.insert(.registry)
        case "--category":
            let v = value(a)
            guard let c = FilterCategory(named: v) else { fail("unknown category \(v)") }
            o.category = c; explicitSections.insert(.registry)
        case "--ops": o.ops += value(a).split(separator: ",").map(String.init); explicitSections.insert(.peer)
        case "--engine": explicitSections.insert(.engine)
        case "--faces": explicitSections.insert(.faces)
        case "--sections":
            for s in value(a).split(separator: ",") {
                guard let v = Section(rawValue: String(s)) else {
                    fail("unknown section \(s); use peer, registry, engine, faces")
                }
                explicitSections.insert(v)
            }
        case "--json": o.jsonPath = value(a)
        case "--runs": o.runs = max(1, Int(value(a)) ?? 7)
        case "--warmup": o.warmup = max(0, Int(value(a)) ?? 2)
        case "--min-time": o.minTime = max(0, Double(value(a)) ?? 0.5)
        case "--label": o.label = value(a)
        case "--image": o.imagePath = value(a)
        case "--image-b": o.imageBPath = value(a)
        case "--png": o.pngPath = value(a)
        case "--jpeg": o.jpegPath = value(a)
        case "--rss": o.rss = true
        case "--no-roofline": o.roofline = false
        case "--task": o.task = value(a)
        case "--input": o.taskInput = value(a)
        case "--output": o.taskOutput = value(a)
        case "--no-restart-markers": o.jpegRestartMarkers = false
        case "--encoder-threads":
            guard let n = Int(value(a)), n > 0 else { fail("--encoder-threads takes a positive count") }
            o.encoderThreads = n
        case "--child-op": o.childOp = value(a)
        case "--child": o.childEngine = value(a)
        case "--soak":
            guard let s = Double(value(a)), s > 0, s.isFinite else { fail("--soak takes a positive number of seconds") }
            o.soakSeconds = s
        case "--tasks":
            guard let n = Int(value(a)), n > 0 else { fail("--tasks takes a positive count") }
            o.soakTasks = n
        case "--filter-hashes": o.filterHashesPath = value(a)
        case "-h", "--help":
            print(
                """
                usage: pixelflow-bench [--quick | --size WxH | --smoke] [--threads 1,2] [--runs N] [--json FILE]
                                       [--ops ID[,ID]] [--filter NAME[,NAME]] [--category NAME] [--engine]
                                       [--sections peer,registry,engine,faces] [--faces] [--rss] [--label NAME] [--no-roofline]
                                       [--image A.png --image-b B.png --png FILE.png --jpeg FILE.jpg]
                       pixelflow-bench --task vips --input IN.jpg --output OUT.jpg [--threads N] [--no-restart-markers]
                       pixelflow-bench --task sepia|downscale|thumbnail --input IN --output OUT [--threads N]
                       pixelflow-bench --task qr --input FOLDER [--output FILE.json] [--runs N]
                       pixelflow-bench --task rectangles [--size WxH] [--threads 1,2] [--runs N] [--output FILE.json]
                       pixelflow-bench --task byte-orders [--size WxH] [--threads N] [--runs N]
                       pixelflow-bench --task byte-color [--size WxH] [--threads N] [--runs N]
                       pixelflow-bench --task byte-convolution [--size WxH] [--threads N] [--runs N]
                       pixelflow-bench --task byte-unsharp [--size WxH] [--threads N] [--runs N]
                       pixelflow-bench --soak SECONDS [--tasks N] [--threads N] [--size WxH] [--json FILE]
                       pixelflow-bench --filter-hashes FILE.json [--label NAME]

                Sections (all by default; --ops, --filter/--category and --engine select):
                  peer      the operations of ../shared/peers/bench_peers.py with the same definitions,
                            each checked against a scalar reference on a 64x64 crop (check_max_abs);
                            --ops takes substrings of variant ids (gaussian, chain5_f32, ...)
                  registry  every registered filter at its defaults: rgba8 -> rgba8 (sRGB) and
                            rgbaF32 -> rgbaF32 (linear premultiplied)
                  engine    fusion and folding gains, region of interest, peak memory
                  faces     face detection at 1920x1080 (accuracy high and low) against OpenCV's
                            detectMultiScale, same cascade and parameters, in the same run
                            (scripts/bench_faces_opencv.py; Python from $PIXELFLOW_PYTHON)
                --quick: 1920x1080 (default 3840x2160). --smoke: 256x144, 1 run, a few peer ops and
                the registry; exits 1 when a check fails (for CI).
                --rss: peak resident memory of each peer op in a child process (one per op).
                --image/--image-b/--png/--jpeg: the peers' inputs (scripts/bench-compare.sh passes them).
                --task vips: libvips' benchmark task (load JPEG, crop 100 px per edge, shrink 10%,
                sharpen 3x3, save JPEG q90); prints one JSON line.
                --task sepia|downscale|thumbnail: the huge-image tasks (scripts/bench_huge.py): sepia,
                Lanczos to 10%, or a 1000 px wide thumbnail, streamed in and out with the library's
                defaults; the output's format follows its extension; prints one JSON line with the
                time and the peak resident memory.
                --task qr: QR detection timed per image over a folder made by scripts/bench_qr.py
                (manifest.json + images); JSON to --output or standard output.
                --task rectangles: RectangleDetector timed on a generated 1920x1080 frame (a card in
                perspective on a cluttered background; --size changes it), ms per frame per thread count;
                --png FILE also writes the frame.
                --soak SECONDS: N tasks (--tasks, default 4) share one RenderContext (--threads, default all
                cores) and render a decode-chain-encode job (a 1024x768 JPEG in memory, or --size; color
                controls, Gaussian blur, Lanczos 50%, sharpen, JPEG out) until the time is up; prints
                renders per second, errors, whether every output is identical to the first, and the
                resident memory every 5 s; exits 1 on an error, a differing output, or memory that
                still grows in the last third of the run (Docs/Reliability.md, "Soak").
                --filter-hashes: hashes of every registered filter's output at its defaults on fixed
                generated images, rgba8 and rgbaF32, 1 and 2 threads, as JSON (FilterHashes.swift);
                compare two files with scripts/compare_filter_hashes.py. No timing.
                """)
            exit(0)
        default: fail("unknown argument \(a); see --help")
        }
    }
    if !explicitSections.isEmpty { o.sections = explicitSections }
    if o.sections.contains(.peer), o.width % 2 != 0 || o.height % 2 != 0 {
        fail("the peer ops need an even width and height (half-size resampling), got \(o.width)x\(o.height)")
    }
    return o
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("pixelflow-bench: \(message)\n".utf8))
    exit(2)
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
    var n: Int
    var out_pixels: Int
    var section: String
    var build: String
    var roofline_fraction: Double?
    var peak_rss_mb: Double?
    var rss_before_mb: Double?
    var check_max_abs: Double?
    var check_tolerance: Double?
    var note: String?
    var same_as_threads: Int?
}

nonisolated(unsafe) var results: [Result] = []
nonisolated(unsafe) var rooflines: [Int: Roofline] = [:]
nonisolated(unsafe) var failedChecks: [String] = []
nonisolated(unsafe) var benchSize = (width: 0, height: 0)

func record(
    _ op: String, variant: String? = nil, section: Section = .engine, dtype: String, threads: Int, pixels: Int,
    _ m: Measurement, roofline: Double? = nil
) -> Result {
    let mp = Double(pixels) / 1e6
    var r = Result(
        variant: variant ?? op, op: op, threads: threads, dtype: dtype, median_ms: m.median * 1e3, min_ms: m.minimum * 1e3,
        mpix_s_median: mp / m.median, mpix_s_best: mp / m.minimum, n: m.times.count, out_pixels: pixels,
        section: section.rawValue, build: options.label)
    if let roofline { r.roofline_fraction = r.mpix_s_median / roofline }
    return r
}

func line(_ r: Result) {
    var s =
        pad(r.variant, 30) + " " + pad(r.dtype, 18)
        + String(
            format: " t=%d  median %9.2f ms  %8.1f MPix/s  best %8.1f", r.threads, r.median_ms, r.mpix_s_median, r.mpix_s_best)
    if let f = r.roofline_fraction { s += String(format: "  %3.0f%% of memcpy roofline", f * 100) }
    if let c = r.check_max_abs {
        s += String(format: "  check %.1e%@", c, (r.check_tolerance.map { c <= $0 } ?? true) ? "" : " FAILED")
    }
    if r.same_as_threads != nil { s += "  (single-threaded: the 1-thread figure)" }
    print(s)
}

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }

func emit(_ r: Result) {
    results.append(r)
    line(r)
}

// MARK: Inputs

func makeInputs(_ o: Options) throws -> PeerInputs {
    let a: PixelBuffer
    if let p = o.imagePath { a = try loadRGBA8(p) } else { a = try makeTestImage(width: o.width, height: o.height) }
    let bPath = o.imageBPath
    let seedB: () throws -> PixelBuffer = {
        if let bPath { return try loadRGBA8(bPath) }
        if o.imagePath != nil { return try rotated180(a) }
        return try makeTestImage(width: a.width, height: a.height, seed: 4242)
    }
    return PeerInputs(u8: a, b: seedB, png: o.pngPath, jpeg: o.jpegPath)
}

func selectedPeerOps(_ all: [PeerOp], _ filters: [String]) -> [PeerOp] {
    if filters.isEmpty { return all }
    return all.filter { op in filters.contains { op.variant.contains($0) } }
}

// MARK: Peer section

func runPeerSection(_ inp: PeerInputs) throws {
    let ops = selectedPeerOps(makePeerOps(inp), options.ops)
    print("== peer ops (\(ops.count)); see ../shared/peers/bench_peers.py --list")
    for op in ops {
        var first: Result?
        for t in options.threads {
            if op.singleThreaded, let f = first {
                var r = f
                r.threads = t; r.same_as_threads = f.threads
                emit(r)
                continue
            }
            let (run, check) = try op.prepare(op.singleThreaded ? 1 : t)
            let m = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime, run)
            var r = record(
                op.op, variant: op.variant, section: .peer, dtype: op.dtype, threads: op.singleThreaded ? 1 : t,
                pixels: op.outWidth * op.outHeight, m)
            r.note = op.note
            if op.dtype.hasPrefix("f32"), !op.singleThreaded, let roof = rooflines[t] {
                let outBytes = op.variant == "f32_to_u8" ? 4 : 16
                r.roofline_fraction = r.mpix_s_median / roof.bound(bytesPerPixelRead: 16, written: outBytes)
            }
            if first == nil {
                r.check_max_abs = try check()
                r.check_tolerance = op.tolerance
                if let c = r.check_max_abs, !(c <= op.tolerance) { failedChecks.append("\(op.variant): \(c) > \(op.tolerance)") }
            } else {
                r.check_max_abs = first?.check_max_abs
                r.check_tolerance = first?.check_tolerance
            }
            r.threads = t
            if first == nil { first = r }
            emit(r)
        }
    }
    for n in notImplementedOps where options.ops.isEmpty || options.ops.contains(where: { n.variant.contains($0) }) {
        print(pad(n.variant, 30) + " " + pad(n.dtype, 18) + " not yet implemented: " + n.missing)
    }
    if options.rss { try measurePeakMemory(ops) }
}

/// Peak resident memory of each op, each in its own child process (`--child-op`).
func measurePeakMemory(_ ops: [PeerOp]) throws {
    print("== peak RSS per op (child process each, \(options.threads.max()!) threads)")
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    for op in ops {
        var args = [
            "--child-op", op.variant, "--size", "\(options.width)x\(options.height)", "--threads", "\(options.threads.max()!)",
        ]
        for (flag, v) in [
            ("--image", options.imagePath), ("--image-b", options.imageBPath), ("--png", options.pngPath),
            ("--jpeg", options.jpegPath),
        ] {
            if let v { args += [flag, v] }
        }
        let p = Process()
        p.executableURL = exe
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let parts = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Double($0) }
        guard p.terminationStatus == 0, parts.count == 2 else { print("  \(op.variant): child failed"); continue }
        let before = parts[0] / 1_048_576, peak = parts[1] / 1_048_576
        print(
            "  " + pad(op.variant, 28)
                + String(format: " peak %7.1f MiB (inputs %7.1f MiB, the op's own %6.1f MiB)", peak, before, peak - before))
        for i in results.indices where results[i].section == "peer" && results[i].variant == op.variant {
            results[i].peak_rss_mb = peak
            results[i].rss_before_mb = before
        }
    }
}

/// Child: builds the inputs of one op, resets the peak RSS, runs the op twice and prints
/// "RSS-before-op peak-RSS" in bytes.
func runChildOp(_ variant: String) throws {
    let inp = try makeInputs(options)
    guard let op = makePeerOps(inp).first(where: { $0.variant == variant }) else { fail("unknown op \(variant)") }
    // Touch the lazy inputs the op uses, outside the measured peak.
    switch op.dtype {
    case "f32": _ = inp.f32
    case "f32pm x2": _ = inp.pmA; _ = inp.pmB
    case "png": _ = inp.png
    case "jpg": _ = inp.jpeg
    default: break
    }
    let reset = resetPeakResident()
    let before = reset ? residentBytes() : peakResidentBytes()
    let (run, _) = try op.prepare(options.threads.max() ?? 1)
    try run(); try run()
    print("\(before) \(peakResidentBytes())")
}

// MARK: Registry section

func runRegistrySection(_ input8: PixelBuffer) throws {
    let W = input8.width, H = input8.height
    var names = FilterRegistry.filterNames(inCategories: options.category.map { [$0] } ?? [])
    if !options.filters.isEmpty { names = names.filter { n in options.filters.contains { n == $0 || n == "CI" + $0 } } }
    // The CI smoke run keeps it short: every eighth filter, rgba8 only, one thread.
    if options.smoke { names = names.enumerated().filter { $0.offset % 8 == 0 }.map(\.element) }
    print("== registry: \(names.count) filters at their defaults")
    let inputF = input8.converted(to: .rgbaF32, colorEncoding: .linear, alphaMode: .premultiplied)
    let formats = [("rgba8->rgba8", input8, PixelFormat.rgba8), ("rgbaF32->rgbaF32", inputF, PixelFormat.rgbaF32)]
    for (label, input, format) in options.smoke ? Array(formats.prefix(1)) : formats {
        let second = try Image(input).transformed(
            by: AffineTransform(rotationAngle: .pi).translatedBy(x: -Double(W), y: -Double(H)))
        // Palette-, gradient- and seed-like inputs take a small strip of the second image.
        let strip = second.cropped(to: Rect(x: 0, y: 0, width: 16, height: 1))
        for name in names {
            guard let d = FilterRegistry.descriptor(named: name) else { continue }
            var values: [String: FilterValue?] = [:]
            for inp in d.inputs where inp.valueClass == .image {
                let small = ["Palette", "Gradient", "Means"].contains { inp.key.contains($0) }
                values[inp.key] = .image(inp.key == "inputImage" ? Image(input) : (small ? strip : second))
            }
            let image: Image
            do {
                image = try d.apply(values).cropped(to: input.bounds)
            } catch {
                print("\(name): not measured: \(error)")
                continue
            }
            let rect = (image.extent.isEmpty ? input.bounds : image.extent).integral
            var out = try PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: format)
            for t in options.smoke ? [1] : options.threads {
                let ctx = RenderContext(threadCount: t)
                let m = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
                    try ctx.render(image, rect: rect, to: &out)
                }
                emit(record(name, section: .registry, dtype: label, threads: t, pixels: out.width * out.height, m))
            }
        }
    }
}

// MARK: Main

let options = parseOptions()
if let child = options.childEngine {
    do { try runEngineChild(child, width: options.width, height: options.height) } catch { fail("\(error)") }
    exit(0)
}
if let child = options.childOp {
    do { try runChildOp(child) } catch { fail("\(error)") }
    exit(0)
}
if let seconds = options.soakSeconds {
    let size = options.sizeGiven ? (options.width, options.height) : (1024, 768)
    do {
        try runSoak(
            seconds: seconds, tasks: options.soakTasks, threads: options.threads.max() ?? 1, size: size,
            jsonPath: options.jsonPath)
    } catch { fail("\(error)") }
    exit(0)
}
if let path = options.filterHashesPath {
    do { try runFilterHashes(path: path) } catch { fail("\(error)") }
    exit(0)
}
if let task = options.task {
    if task == "qr" {
        guard let i = options.taskInput else { fail("--task qr needs --input FOLDER (made by scripts/bench_qr.py)") }
        do { try runQRTask(folder: i, runs: options.runs, output: options.taskOutput) } catch { fail("\(error)") }
        exit(0)
    }
    if task == "rectangles" {
        let (w, h) = options.sizeGiven ? (options.width, options.height) : (1920, 1080)
        do {
            try runRectangleTask(
                width: w, height: h, threads: options.threads, runs: options.runs, warmup: options.warmup,
                output: options.taskOutput, scenePNG: options.pngPath)
        } catch { fail("\(error)") }
        exit(0)
    }
    if task == "byte-orders" {
        let (w, h) = options.sizeGiven ? (options.width, options.height) : (1920, 1080)
        do { try runByteOrderTask(width: w, height: h, threads: options.threads.max() ?? 1, rounds: max(options.runs, 3)) } catch
        {
            fail("\(error)")
        }
        exit(0)
    }
    if task == "byte-convolution" {
        let (w, h) = options.sizeGiven ? (options.width, options.height) : (1920, 1080)
        do {
            try runByteConvolutionTask(width: w, height: h, threads: options.threads.max() ?? 1, rounds: max(options.runs, 3))
        } catch { fail("\(error)") }
        exit(0)
    }
    if task == "byte-unsharp" {
        let (w, h) = options.sizeGiven ? (options.width, options.height) : (1920, 1080)
        do {
            try runByteUnsharpTask(width: w, height: h, threads: options.threads.max() ?? 1, rounds: max(options.runs, 3))
        } catch { fail("\(error)") }
        exit(0)
    }
    if task == "byte-color" {
        let (w, h) = options.sizeGiven ? (options.width, options.height) : (1920, 1080)
        do { try runByteColorTask(width: w, height: h, threads: options.threads.max() ?? 1, rounds: max(options.runs, 3)) } catch
        {
            fail("\(error)")
        }
        exit(0)
    }
    if ["sepia", "downscale", "thumbnail"].contains(task) {
        guard let i = options.taskInput, let o = options.taskOutput else { fail("--task \(task) needs --input and --output") }
        do {
            try runHugeTask(
                task, input: i, output: o, threads: options.threads.max() ?? 1, encoderThreads: options.encoderThreads)
        } catch { fail("\(error)") }
        exit(0)
    }
    guard task == "vips" else {
        fail(
            "unknown task \(task); use vips, sepia, downscale, thumbnail, qr, rectangles, byte-orders, byte-color, byte-convolution or byte-unsharp"
        )
    }
    guard let i = options.taskInput, let o = options.taskOutput else { fail("--task vips needs --input and --output") }
    do {
        try runVipsTask(
            input: i, output: o, threads: options.threads.max() ?? 1, restartMarkers: options.jpegRestartMarkers,
            encoderThreads: options.encoderThreads)
    } catch { fail("\(error)") }
    exit(0)
}

let startDate = Date()
do {
    // The faces section makes its own 1920x1080 image; skip the large shared inputs when it runs alone.
    let onlyFaces = options.sections == [.faces]
    let inputs = try makeInputs(
        onlyFaces
            ? {
                var o = options; o.width = 64; o.height = 64; return o
            }() : options)
    let W = inputs.W, H = inputs.H
    benchSize = (W, H)
    print(
        "pixelflow-bench [\(options.label)]: \(W)x\(H), threads \(options.threads.map(String.init).joined(separator: ",")), "
            + "at least \(options.runs) timed runs after \(options.warmup) warm-ups; sections \(Section.allCases.filter { options.sections.contains($0) }.map(\.rawValue).joined(separator: ","))"
    )
    for t in options.threads where options.roofline {
        let r = Roofline.measure(threads: t, runs: options.smoke ? 1 : 7, megabytes: options.smoke ? 16 : 256)
        rooflines[t] = r
        print(
            String(
                format:
                    "roofline: memcpy %.1f GB/s with %d thread(s) = %.0f MPix/s bound for rgbaF32 -> rgbaF32, %.0f for rgba8 -> rgba8",
                r.copyBytesPerSecond / 1e9, t, r.bound(bytesPerPixelRead: 16, written: 16),
                r.bound(bytesPerPixelRead: 4, written: 4)))
    }
    if options.sections.contains(.peer) { try runPeerSection(inputs) }
    if options.sections.contains(.engine) {
        let inputF = inputs.u8.converted(to: .rgbaF32, colorEncoding: .linear, alphaMode: .premultiplied)
        var out8 = try PixelBuffer(width: W, height: H, format: .rgba8)
        var outF = try PixelBuffer(width: W, height: H, format: .rgbaF32)
        try runEngineCases(input8: inputs.u8, inputF: inputF, out8: &out8, outF: &outF)
    }
    if options.sections.contains(.registry) { try runRegistrySection(inputs.u8) }
    if options.sections.contains(.faces) { try runFaceSection() }
} catch {
    fail("\(error)")
}

if let path = options.jsonPath {
    struct Report: Codable {
        var tool: String
        var build: String
        var date: String
        var seconds: Double
        var machine: [String: String]
        var width: Int, height: Int
        var threads: [Int]
        var runs: Int
        var roofline_copy_gb_s: [String: Double]
        var roofline_mpix_s_f32: [String: Double]
        var results: [Result]
        var not_implemented: [[String: String]]
        var failed_checks: [String]
    }
    let f = ISO8601DateFormatter()
    let report = Report(
        tool: "pixelflow-bench", build: options.label, date: f.string(from: startDate),
        seconds: Date().timeIntervalSince(startDate),
        machine: ["cpus": String(RenderContext.activeProcessorCount)],
        width: benchSize.width, height: benchSize.height, threads: options.threads, runs: options.runs,
        roofline_copy_gb_s: Dictionary(uniqueKeysWithValues: rooflines.map { ("\($0.key)", $0.value.copyBytesPerSecond / 1e9) }),
        roofline_mpix_s_f32: Dictionary(
            uniqueKeysWithValues: rooflines.map { ("\($0.key)", $0.value.bound(bytesPerPixelRead: 16, written: 16)) }),
        results: results,
        not_implemented: options.sections.contains(.peer)
            ? notImplementedOps.filter { n in options.ops.isEmpty || options.ops.contains { n.variant.contains($0) } }
                .map { ["variant": $0.variant, "op": $0.op, "dtype": $0.dtype, "missing": $0.missing] } : [],
        failed_checks: failedChecks)
    let enc = JSONEncoder()
    enc.outputFormatting = [.prettyPrinted, .sortedKeys]
    do { try enc.encode(report).write(to: URL(fileURLWithPath: path)) } catch { fail("cannot write \(path): \(error)") }
    print("wrote \(path)")
}
if !failedChecks.isEmpty {
    print("correctness checks FAILED (max abs difference from the scalar reference above tolerance):")
    for f in failedChecks { print("  \(f)") }
    if options.smoke { exit(1) }
}
