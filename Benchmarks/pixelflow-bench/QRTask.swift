import Foundation
import PixelFlow

/// QR code detection and decoding over a folder of images, timed image by image: the
/// PixelFlow half of scripts/bench_qr.py, which times zxing-cpp on the same files.
///
/// The folder holds `manifest.json` (a list of `{"file": ..., "message": ...}`, or with
/// `"messages": [...]` for images holding several codes or none) and the images. Every image is decoded to 8-bit gray before timing (both sides are given gray
/// pixels), then detected `runs` times with `QRCodeDetector` at accuracy high; the median
/// time and whether the expected message was among the decoded ones are reported. The
/// detector runs on the calling thread, as zxing-cpp's ReadBarcodes does. Prints one JSON
/// object: `{"task": "qr", "peer": "pixelflow", "threads": 1, "images": [{"file",
/// "median_ms", "min_ms", "decoded", "decoded_count", "found", "wrong"}...]}`: `decoded` when
/// every expected message was read, `decoded_count` how many were, `wrong` how many decoded
/// messages were not expected (false decodes).
func runQRTask(folder: String, runs: Int, output: String?) throws {
    struct Entry: Decodable { var file: String; var message: String?; var messages: [String]? }
    struct Timed: Encodable {
        var file: String
        var median_ms: Double
        var min_ms: Double
        var decoded: Bool
        var decoded_count: Int
        var found: Int
        var wrong: Int
    }
    struct Report: Encodable {
        var task = "qr"
        var peer = "pixelflow"
        var threads: Int
        var images: [Timed]
    }
    let dir = URL(fileURLWithPath: folder)
    let manifest = try JSONDecoder().decode([Entry].self, from: Data(contentsOf: dir.appendingPathComponent("manifest.json")))
    let detector = QRCodeDetector(options: DetectorOptions(accuracy: .high))
    var timed: [Timed] = []
    for entry in manifest {
        let gray = try PixelBuffer(contentsOfFile: dir.appendingPathComponent(entry.file).path).converted(to: .gray8)
        var found: [QRCodeFeature] = []
        let m = try Measurement.run(warmup: 1, runs: runs, minTime: 0, slow: 0.5) {
            found = try detector.features(in: gray)
        }
        let expected = entry.messages ?? entry.message.map { [$0] } ?? []
        let read = expected.filter { message in found.contains { $0.message == message } }.count
        timed.append(
            Timed(
                file: entry.file, median_ms: m.median * 1e3, min_ms: m.minimum * 1e3,
                decoded: read == expected.count, decoded_count: read, found: found.count,
                wrong: found.filter { f in !expected.contains { $0 == f.message } }.count))
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = try encoder.encode(Report(threads: 1, images: timed))
    if let output {
        try json.write(to: URL(fileURLWithPath: output))
    } else {
        print(String(decoding: json, as: UTF8.self))
    }
}
