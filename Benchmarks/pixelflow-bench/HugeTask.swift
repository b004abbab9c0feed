import Foundation
import PixelFlow

/// The huge-image tasks of issue #27, done by PixelFlow's library with its defaults (a
/// streamed source, a streamed write): `sepia` (CISepiaTone, intensity 1), `downscale`
/// (Lanczos 3 to 10%) and `thumbnail` (Lanczos to `thumbnailWidth` pixels wide, aspect
/// kept). The output's format follows its extension (TIFF written uncompressed, as the
/// libvips side writes it; PNG at zlib level 6, the default of both). Prints one JSON line with the time
/// from reading the file to the written output and the peak resident memory of the process;
/// scripts/bench_huge.py runs it beside libvips on the same files. `encoderThreads` sets
/// `EncodeOptions.threadCount` (nil: the library's default).
func runHugeTask(
    _ task: String, input: String, output: String, threads: Int, thumbnailWidth: Int = 1000,
    encoderThreads: Int? = nil
) throws {
    let t0 = now()
    let source = try Image(contentsOfFile: input)
    let W = source.extent.width, H = source.extent.height
    let result: Image
    switch task {
    case "sepia":
        result = try source.sepiaTone(intensity: 1)
    case "downscale":
        result = try source.lanczosScaled(scale: 0.1)
    case "thumbnail":
        result = try source.lanczosScaled(scale: Double(thumbnailWidth) / W)
    default:
        fail("unknown huge task \(task); use sepia, downscale or thumbnail")
    }
    let rect = result.extent.integral
    var encodeOptions = EncodeOptions.default
    encodeOptions.tiffCompression = .none
    encodeOptions.threadCount = encoderThreads
    try RenderContext(threadCount: threads).write(
        result, toFile: output, rect: rect, quality: 90,
        encodeOptions: encodeOptions)
    let seconds = now() - t0
    print(
        String(
            format:
                "{\"task\": \"%@\", \"peer\": \"pixelflow\", \"ms\": %.1f, \"peak_rss_mb\": %.1f, \"input\": \"%dx%d\", \"output\": \"%dx%d\", \"threads\": %d}",
            task, seconds * 1e3, Double(peakResidentBytes()) / 1_048_576, Int(W), Int(H),
            Int(rect.width), Int(rect.height), threads))
}
