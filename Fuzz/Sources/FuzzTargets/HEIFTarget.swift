import PixelFlow

/// HEIF and AVIF (libheif): the file as given (an ISO base media file must start with its
/// ftyp box, so nothing is prepended), decoded with the default limits, then every
/// top-level image through `ImageFile.frames()`.
enum HEIFTarget {
    static func run(_ bytes: [UInt8]) {
        DecoderTargets.decodeChecked(bytes)
        do {
            let file = try ImageFile(encoded: bytes, name: "fuzz")
            let limits = DecodeOptions.default
            var pixels = 0
            for frame in try file.frames() {
                pixels += frame.buffer.width * frame.buffer.height
            }
            precondition(pixels <= limits.maximumPixelCount, "frames hold \(pixels) pixels, over the limit")
        } catch {
            expectPixelFlowError(error, "frames")
        }
    }
}
