import PixelFlow

/// TIFF bytes (`II*\0` prepended when they start with neither byte order mark): decoded with
/// the default limits as one buffer, then every page through `ImageFile.frames()`.
enum TIFFTarget {
    static func run(_ bytes: [UInt8]) {
        let littleEndian: [UInt8] = [0x49, 0x49, 0x2A, 0x00], bigEndian: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A]
        let file = bytes.starts(with: littleEndian) || bytes.starts(with: bigEndian) ? bytes : littleEndian + bytes
        DecoderTargets.decodeChecked(file)
        do {
            let pages = try ImageFile(encoded: file, name: "fuzz").frames()
            let limits = DecodeOptions.default
            let total = pages.reduce(0) { $0 + $1.buffer.width * $1.buffer.height }
            precondition(total <= limits.maximumPixelCount, "pages of \(total) pixels in all, over the limit")
        } catch {
            expectPixelFlowError(error, "frames")
        }
    }
}
