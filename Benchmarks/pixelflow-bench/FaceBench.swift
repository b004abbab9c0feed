import Foundation
import PixelFlow

/// The `faces` section: face detection at 1920x1080 with PixelFlow's `FaceDetector` (both
/// accuracy modes) and, in the same run, OpenCV's `CascadeClassifier.detectMultiScale` with the
/// same cascade and parameters (scaleFactor 1.1, minNeighbors 3) through
/// `scripts/bench_faces_opencv.py` (Python: `$PIXELFLOW_PYTHON`, else `python3`; skipped with a
/// note when it has no cv2 with CascadeClassifier, i.e. opencv-python 5.x).
///
/// The image: the benchmark's synthetic test image with the face fixtures
/// (Tests/PixelFlowTests/Fixtures/Faces) pasted on it at several sizes, so there are faces to
/// find; written as PNG for the Python side. Both sides time the detector on an 8-bit gray
/// image (conversion excluded) and report the median of the runs.
func runFaceSection() throws {
    let W = 1920, H = 1080
    let image = try makeFaceBenchImage(width: W, height: H)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pixelflow-bench-faces-\(getpid())")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let png = dir.appendingPathComponent("faces.png")
    try image.write(toFile: png.path, format: .png)
    var gray = try PixelBuffer(width: W, height: H, format: .gray8)
    let rgba = image.converted(to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
    rgba.withUnsafeBytes { s in
        gray.withUnsafeMutableBytes { d in
            for i in 0..<(W * H) {
                let r = Int32(s[4 * i]), g = Int32(s[4 * i + 1]), b = Int32(s[4 * i + 2])
                d[i] = UInt8((b * 1868 + g * 9617 + r * 4899 + 8192) >> 14)
            }
        }
    }
    let cascadePath = try CascadeClassifier.locate("haarcascade_frontalface_default.xml").path
    let threads = options.threads.max() ?? 1
    print("== faces: \(W)x\(H), haarcascade_frontalface_default.xml, scaleFactor 1.1, minNeighbors 3, \(threads) thread(s)")
    var ours: [String: Double] = [:]
    for accuracy in [DetectorAccuracy.high, .low] {
        let detector = try FaceDetector(
            options: DetectorOptions(accuracy: accuracy),
            configuration: .init(
                cascade: .named("haarcascade_frontalface_default.xml"), findsLandmarks: false, threadCount: threads))
        var faces: [FaceFeature] = []
        let m = try Measurement.run(warmup: 1, runs: options.runs, minTime: options.minTime) {
            faces = try detector.features(in: gray)
        }
        var r = record("faces_\(accuracy.rawValue)", section: .faces, dtype: "gray8", threads: threads, pixels: W * H, m)
        r.note = "\(faces.count) faces"
        emit(r)
        print("  " + (r.note ?? ""))
        ours[accuracy.rawValue] = m.median * 1e3
    }
    do {
        let detector = try FaceDetector(
            options: DetectorOptions(accuracy: .high),
            configuration: .init(cascade: .named("haarcascade_frontalface_default.xml"), threadCount: threads))
        var faces: [FaceFeature] = []
        let m = try Measurement.run(warmup: 1, runs: options.runs, minTime: options.minTime) {
            faces = try detector.features(in: gray)
        }
        var r = record("faces_high_landmarks", section: .faces, dtype: "gray8", threads: threads, pixels: W * H, m)
        r.note = "\(faces.count) faces with eyes/mouth/smile"
        emit(r)
        print("  " + (r.note ?? ""))
    }
    // OpenCV, in a child process.
    let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/bench_faces_opencv.py").path
    let python = ProcessInfo.processInfo.environment["PIXELFLOW_PYTHON"] ?? "python3"
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = [
        python, script, png.path, "--cascade", cascadePath, "--scale", "1.1", "--neighbors", "3",
        "--runs", "\(max(3, options.runs))", "--threads", "\(threads)",
    ]
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { print("  opencv: not run (\(error))"); return }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    guard p.terminationStatus == 0,
        let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
        let median = json["median_ms"] as? Double
    else {
        print(
            "  opencv: not measured (\(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))); "
                + "set PIXELFLOW_PYTHON to a Python with opencv-python-headless<5")
        return
    }
    let version = json["version"] as? String ?? "?"
    let count = (json["faces"] as? [[Int]])?.count ?? 0
    var r = Result(
        variant: "faces_opencv", op: "faces_opencv", peer: "opencv", threads: threads, dtype: "gray8",
        median_ms: median, min_ms: json["min_ms"] as? Double ?? median, mpix_s_median: Double(W * H) / 1e6 / (median / 1e3),
        mpix_s_best: Double(W * H) / 1e6 / ((json["min_ms"] as? Double ?? median) / 1e3), n: max(3, options.runs),
        out_pixels: W * H, section: Section.faces.rawValue, build: options.label)
    r.note = "OpenCV \(version), \(count) faces"
    emit(r)
    print("  " + (r.note ?? ""))
    for (mode, ms) in ours.sorted(by: { $0.key < $1.key }) {
        print(
            String(
                format: "  ratio OpenCV / PixelFlow (%@): %.2fx (%@)", mode, median / ms,
                median / ms >= 1 ? "PixelFlow faster" : "OpenCV faster"))
    }
}

/// 1920x1080: the synthetic test image with the face fixtures pasted at several sizes.
func makeFaceBenchImage(width: Int, height: Int) throws -> PixelBuffer {
    var canvas = try makeTestImage(width: width, height: height).converted(to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Tests/PixelFlowTests/Fixtures/Faces")
    let group = try PixelBuffer(contentsOfFile: fixtures.appendingPathComponent("group.png").path)
        .converted(to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
    let astronaut = try PixelBuffer(contentsOfFile: fixtures.appendingPathComponent("astronaut.png").path)
        .converted(to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
    for (src, x, y, scale) in [
        (group, 60, 60, 2.0), (astronaut, 1000, 80, 2.5), (group, 900, 650, 1.2), (astronaut, 1500, 600, 1.0),
    ] {
        paste(src, into: &canvas, x: x, y: y, scale: scale)
    }
    return canvas
}

/// Bilinear upscaled copy of `src` into `dst` at (x, y), clipped.
func paste(_ src: PixelBuffer, into dst: inout PixelBuffer, x: Int, y: Int, scale: Double) {
    let w = Int(Double(src.width) * scale), h = Int(Double(src.height) * scale)
    let sw = src.width, sh = src.height, dw = dst.width, dh = dst.height
    src.withUnsafeBytes { s in
        dst.withUnsafeMutableBytes { d in
            for v in 0..<h where y + v < dh {
                let fy = min(max((Double(v) + 0.5) / scale - 0.5, 0), Double(sh - 1))
                let y0 = Int(fy), y1 = min(y0 + 1, sh - 1), ty = fy - Double(y0)
                for u in 0..<w where x + u < dw {
                    let fx = min(max((Double(u) + 0.5) / scale - 0.5, 0), Double(sw - 1))
                    let x0 = Int(fx), x1 = min(x0 + 1, sw - 1), tx = fx - Double(x0)
                    for c in 0..<3 {
                        let a = Double(s[(y0 * sw + x0) * 4 + c]) * (1 - tx) + Double(s[(y0 * sw + x1) * 4 + c]) * tx
                        let b = Double(s[(y1 * sw + x0) * 4 + c]) * (1 - tx) + Double(s[(y1 * sw + x1) * 4 + c]) * tx
                        d[((y + v) * dw + x + u) * 4 + c] = UInt8(a * (1 - ty) + b * ty + 0.5)
                    }
                    d[((y + v) * dw + x + u) * 4 + 3] = 255
                }
            }
        }
    }
}
