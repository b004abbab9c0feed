import Foundation
import PixelFlow

/// libvips' published benchmark task (the "vips-bench" speed and memory comparison), done
/// by PixelFlow: load a JPEG, crop 100 pixels off every edge, shrink by 10% (bilinear),
/// sharpen with the 3x3 mask [-1 -1 -1; -1 16 -1; -1 -1 -1] / 8, save as JPEG quality 90.
///
/// Works on the stored 8-bit values (`colorManagement: .none`), as the peers do. The input is
/// a streamed source (`Image(contentsOfFile:streaming:)`) and the output a streamed JPEG
/// (`RenderContext.write`): the graph (crop, clamp, scale, clamp, 3x3 convolution, crop) is
/// rendered in strips, tile by tile, while a codec thread decodes the next input rows and
/// another compresses the previous strip, so no image is ever whole in memory. Prints one
/// JSON line with the time from reading the file to the written output and the peak
/// resident memory of the process. `restartMarkers` false writes the JPEG as one libjpeg
/// compression instead of parallel bands (`EncodeOptions.restartMarkers`); `encoderThreads`
/// sets `EncodeOptions.threadCount` (nil: the library's default).
func runVipsTask(
    input: String, output: String, threads: Int, restartMarkers: Bool = true, encoderThreads: Int? = nil
) throws {
    let t0 = now()
    let source = try Image(contentsOfFile: input, streaming: true)
    let W = Int(source.extent.width), H = Int(source.extent.height)
    guard W > 200, H > 200 else { fail("the task's input must be larger than 200x200, got \(W)x\(H)") }
    let crop = Rect(x: 100, y: 100, width: W - 200, height: H - 200)
    let cropped = source.cropped(to: crop)
    let scale = PixelFlow.AffineTransform(scaleX: 0.9, y: 0.9)
    let scaledExtent = scale.apply(to: crop).integral
    let shrunk = try cropped.clampedToExtent().transformed(by: scale).cropped(to: scaledExtent)
    let sharpen = [-1.0, -1, -1, -1, 16, -1, -1, -1, -1].map { $0 / 8 }
    let sharpened = try shrunk.clampedToExtent().convolved3x3(weights: sharpen).cropped(to: scaledExtent)
    let ctx = RenderContext(threadCount: threads, colorManagement: .none)
    var encodeOptions = EncodeOptions.default
    encodeOptions.restartMarkers = restartMarkers
    encodeOptions.threadCount = encoderThreads
    try ctx.write(
        sharpened, toFile: output, rect: scaledExtent, format: .jpeg, quality: 90, encodeOptions: encodeOptions)
    let seconds = now() - t0
    print(
        String(
            format:
                "{\"task\": \"vips\", \"peer\": \"pixelflow\", \"ms\": %.1f, \"peak_rss_mb\": %.1f, \"width\": %d, \"height\": %d, \"threads\": %d}",
            seconds * 1e3, Double(peakResidentBytes()) / 1_048_576, Int(scaledExtent.width), Int(scaledExtent.height), threads))
}
