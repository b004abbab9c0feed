import Foundation
import PixelFlow

/// The scene the rectangle benchmark searches: the benchmark's cluttered test image (gradients,
/// 90 discs, rectangles, blobs and lines, mild noise) with a light card drawn in perspective over
/// it, printed with dark text-like strokes, and a soft shadow of uneven light across the frame.
/// Returns the frame and the card's corners (top-left, top-right, bottom-right, bottom-left).
func makeRectangleScene(width w: Int, height h: Int) throws -> (PixelBuffer, [Point]) {
    let background = try makeTestImage(width: w, height: h, seed: 7)
    var canvas = Canvas(buffer: background)
    let s = Double(min(w, h))
    let cx = Double(w) * 0.52, cy = Double(h) * 0.5
    // A card of aspect 1.586 (ID-1), about 55% of the shorter side high, turned by 12 degrees
    // and seen in perspective (the far side shorter).
    let hw = 0.55 * s * 1.586 / 2, hh = 0.55 * s / 2, a = 12 * Double.pi / 180
    let local = [(-0.92 * hw, -hh), (0.92 * hw, -hh), (hw, hh), (-hw, hh)]
    let card = local.map { (x, y) in Point(x: cx + x * cos(a) - y * sin(a), y: cy + x * sin(a) + y * cos(a)) }
    canvas.fillPolygon(card, color: Color(red: 0.93, green: 0.92, blue: 0.88))
    let unit = [Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 1, y: 1), Point(x: 0, y: 1)]
    if let map = Homography(from: unit, to: card) {
        var rng = SplitMix64(state: 11)
        for k in 0..<6 {
            let y = 0.2 + 0.11 * Double(k)
            var x = 0.1
            let end = 0.1 + rng.uniform(0.35, 0.8)
            while x < end {
                let word = rng.uniform(0.04, 0.12)
                if let p = map.apply(to: Point(x: x, y: y)), let q = map.apply(to: Point(x: min(x + word, end), y: y)) {
                    canvas.strokeLine(from: p, to: q, width: 0.012 * s, color: Color(red: 0.1, green: 0.1, blue: 0.15))
                }
                x += word + 0.03
            }
        }
    }
    var frame = canvas.buffer
    // Uneven light: darker towards the left and the bottom.
    for y in 0..<h {
        for x in 0..<w {
            let k = Float(0.7 + 0.3 * Double(x) / Double(w) - 0.1 * Double(y) / Double(h))
            let v = frame[x, y]
            frame[x, y] = SIMD4(v.x * k, v.y * k, v.z * k, v.w)
        }
    }
    return (frame, card)
}

/// `--task rectangles`: `RectangleDetector` (accuracy high, one result) timed on
/// `makeRectangleScene` at the benchmark size (1920x1080 unless `--size` is given), with each
/// thread count of `--threads`. Prints ms per frame (median and best of the timed runs) and
/// the largest corner error of the first result against the drawn card, as a fraction of the
/// diagonal (the detector's target is under 2%); JSON to `--output` when given.
func runRectangleTask(
    width: Int, height: Int, threads: [Int], runs: Int, warmup: Int, output: String?,
    scenePNG: String? = nil
) throws {
    struct Timed: Encodable {
        var threads: Int
        var median_ms: Double
        var min_ms: Double
        var runs: Int
        var found: Int
        var corner_error_fraction_of_diagonal: Double?
    }
    struct Report: Encodable {
        var task = "rectangles"
        var peer = "pixelflow"
        var width: Int, height: Int
        var results: [Timed]
    }
    let (frame, card) = try makeRectangleScene(width: width, height: height)
    if let scenePNG { try frame.write(toFile: scenePNG) }
    let diagonal = (Double(width * width + height * height)).squareRoot()
    print("== rectangle detection, \(width)x\(height) rgba8 frame with a card in perspective on a cluttered background")
    var timed: [Timed] = []
    for t in threads {
        let detector = RectangleDetector(options: .init(accuracy: .high, threadCount: t))
        var found: [RectangleFeature] = []
        let m = Measurement.run(warmup: warmup, runs: runs, minTime: 0.5) { found = detector.features(in: frame) }
        let error = found.first.map { f in
            zip(f.corners, card).map { (($0.x - $1.x) * ($0.x - $1.x) + ($0.y - $1.y) * ($0.y - $1.y)).squareRoot() }.max()!
                / diagonal
        }
        timed.append(
            Timed(
                threads: t, median_ms: m.median * 1e3, min_ms: m.minimum * 1e3, runs: m.times.count,
                found: found.count, corner_error_fraction_of_diagonal: error))
        print(
            String(
                format: "rectangles t=%d  median %7.2f ms/frame  best %7.2f  (%d runs)  ", t, m.median * 1e3, m.minimum * 1e3,
                m.times.count)
                + (error.map { String(format: "card found, corners within %.2f%% of the diagonal", $0 * 100) } ?? "card NOT found")
        )
    }
    if let output {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(Report(width: width, height: height, results: timed)).write(to: URL(fileURLWithPath: output))
    }
}
