import PixelFlow

/// The decoder targets: the bytes of one file format, decoded with the default limits.
enum DecoderTargets {
    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Decodes `bytes`, with `magic` prepended unless they already start with it, so that
    /// every input reaches the decoder of that format.
    static func decode(_ bytes: [UInt8], magic: [UInt8]) {
        let file = bytes.starts(with: magic) ? bytes : magic + bytes
        decodeChecked(file)
    }

    /// Decodes `bytes` as PNM: as they are when they start with a PNM header (`P1` to `P7`
    /// and whitespace), else after `P6 `.
    static func decodePNM(_ bytes: [UInt8]) {
        let file = ImageFileFormat.sniff(bytes) == .pnm ? bytes : Array("P6 ".utf8) + bytes
        decodeChecked(file)
    }

    /// Decodes `bytes` as GIF (after `GIF89a` unless they start with a GIF signature), then
    /// reads every frame through `ImageFile`: each must be the canvas size, within the limits.
    static func decodeGIF(_ bytes: [UInt8]) {
        let file =
            bytes.starts(with: Array("GIF87a".utf8)) || bytes.starts(with: Array("GIF89a".utf8))
            ? bytes : Array("GIF89a".utf8) + bytes
        decodeChecked(file)
        do {
            let image = try ImageFile(encoded: file, name: "fuzz")
            let frames = try image.frames()
            precondition(frames.count == image.info.imageCount, "\(frames.count) frames, info says \(image.info.imageCount)")
            for frame in frames {
                precondition(
                    frame.buffer.width == image.info.width && frame.buffer.height == image.info.height,
                    "a frame of \(frame.buffer.width)x\(frame.buffer.height) on a screen of \(image.info.width)x\(image.info.height)"
                )
            }
        } catch {
            expectPixelFlowError(error, "frames")
        }
    }

    /// Decodes `file` with the default limits; a decoded buffer must have a size within them.
    static func decodeChecked(_ file: [UInt8]) {
        do {
            let buffer = try PixelBuffer(encoded: file, name: "fuzz")
            let limits = DecodeOptions.default
            precondition(
                buffer.width >= 1 && buffer.height >= 1
                    && buffer.width <= limits.maximumWidth && buffer.height <= limits.maximumHeight
                    && buffer.width * buffer.height <= limits.maximumPixelCount,
                "decoded \(buffer.width)x\(buffer.height), outside the limits")
        } catch {
            expectPixelFlowError(error, "decode")
        }
    }
}
