import Foundation
import PixelFlow

/// libvips' published benchmark task (the "vips-bench" speed and memory comparison), done
/// by PixelFlow: load a JPEG, crop 100 pixels off every edge, shrink by 10% (bilinear),
/// sharpen with the 3x3 mask [-1 -1 -1; -1 16 -1; -1 -1 -1] / 8, save as JPEG quality 90.
///
/// Works on the stored 8-bit values (`colorManagement: .none`), as the peers do. The graph
/// (crop, clamp, scale, clamp, 3x3 convolution, crop) is rendered tile by tile, so only the
/// decoded input and the output are full-size. Prints one JSON line with the time from
/// reading the file to the written output and the peak resident memory of the process.
func runVipsTask(input: String, output: String, threads: Int) throws {
    let t0 = now()
    let source = try PixelBuffer(contentsOfFile: input)
    let W = source.width, H = source.height
    guard W > 200, H > 200 else { fail("the task's input must be larger than 200x200, got \(W)x\(H)") }
    let crop = Rect(x: 100, y: 100, width: W - 200, height: H - 200)
    let cropped = Image(source).cropped(to: crop)
    let scale = PixelFlow.AffineTransform(scaleX: 0.9, y: 0.9)
    let scaledExtent = scale.apply(to: crop).integral
    let shrunk = try cropped.clampedToExtent().transformed(by: scale).cropped(to: scaledExtent)
    let sharpen = [-1.0, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }
    let sharpened = try shrunk.clampedToExtent().convolved3x3(weights: sharpen).cropped(to: scaledExtent)
    let ctx = RenderContext(threadCount: threads, colorManagement: .none)
    let out = try ctx.makeBuffer(sharpened, rect: scaledExtent, format: .rgba8)
    try out.write(toFile: output, format: .jpeg, quality: 90)
    let seconds = now() - t0
    print(String(format: "{\"task\": \"vips\", \"peer\": \"pixelflow\", \"ms\": %.1f, \"peak_rss_mb\": %.1f, \"width\": %d, \"height\": %d, \"threads\": %d}",
                 seconds * 1e3, Double(peakResidentBytes()) / 1_048_576, out.width, out.height, threads))
}
