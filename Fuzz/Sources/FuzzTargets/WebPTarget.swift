import PixelFlow

/// The WebP target: the bytes as a RIFF WEBP file (wrapped in a RIFF header when they are
/// not one, so that they are read as its chunks), decoded as a still image and as frames.
enum WebPTarget {
    static func run(_ bytes: [UInt8]) {
        var file = bytes
        if ImageFileFormat.sniff(bytes) != .webp {
            let size = 4 + bytes.count
            file =
                Array("RIFF".utf8) + (0..<4).map { UInt8(truncatingIfNeeded: size >> (8 * $0)) }
                + Array("WEBP".utf8) + bytes
        }
        DecoderTargets.decodeChecked(file)
        do {
            let frames = try ImageFile(encoded: file, name: "fuzz").frames()
            let limits = DecodeOptions.default
            let pixels = frames.reduce(0) { $0 + $1.buffer.width * $1.buffer.height }
            precondition(
                !frames.isEmpty && frames.count <= limits.maximumImageCount && pixels <= limits.maximumPixelCount,
                "\(frames.count) frames of \(pixels) pixels in all, outside the limits")
            trace("\(frames.count) frames, durations \(frames.map(\.duration))")
        } catch {
            expectPixelFlowError(error, "frames")
        }
    }
}
