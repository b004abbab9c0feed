/// The image file formats PixelFlow reads and writes.
///
/// A file's format is always found from its first bytes (`sniff(_:)`), never from its name;
/// the name's extension only chooses the format when writing.
///
/// ```swift
/// let format = ImageFileFormat.sniff(bytes)             // .png for "\u{89}PNG\r\n\u{1A}\n..."
/// let output = ImageFileFormat(pathExtension: "jpg")    // .jpeg
/// ```
public enum ImageFileFormat: String, Sendable, CaseIterable {
    /// PNG: 1 to 16 bits per sample, gray, palette, RGB, with or without alpha; lossless.
    case png
    /// JPEG (JFIF/EXIF): 8-bit gray, YCbCr or CMYK; lossy.
    case jpeg
    /// Netpbm: PBM, PGM, PPM (P1 to P6) and PAM (P7).
    case pnm
    /// Windows bitmap: uncompressed 1, 4, 8, 24 and 32 bits per pixel.
    case bmp

    /// The format whose magic bytes start `bytes`, or `nil` when none does.
    ///
    /// PNG: the 8-byte signature `89 50 4E 47 0D 0A 1A 0A`. JPEG: `FF D8 FF`. PNM: `P1` to
    /// `P7` followed by whitespace. BMP: `BM`.
    ///
    /// - Complexity: O(1); reads at most the first 8 bytes.
    public static func sniff(_ bytes: some Collection<UInt8>) -> ImageFileFormat? {
        let head = Array(bytes.prefix(8))
        if head.count >= 8, head == _PNGCodec.signature { return .png }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head.count >= 3, head[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(head[1]),
           _PNMParser.isWhitespace(head[2]) || head[2] == UInt8(ascii: "#") {
            return .pnm
        }
        if head.count >= 2, head[0] == UInt8(ascii: "B"), head[1] == UInt8(ascii: "M") { return .bmp }
        return nil
    }

    /// The format conventionally named by a file extension, case-insensitively, with or
    /// without the leading dot: `png`; `jpg`, `jpeg`, `jpe`, `jfif`; `pnm`, `pbm`, `pgm`,
    /// `ppm`, `pam`; `bmp`, `dib`. Used only to choose the output format when writing.
    public init?(pathExtension: String) {
        var ext = pathExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        switch ext {
        case "png": self = .png
        case "jpg", "jpeg", "jpe", "jfif": self = .jpeg
        case "pnm", "pbm", "pgm", "ppm", "pam": self = .pnm
        case "bmp", "dib": self = .bmp
        default: return nil
        }
    }

    /// The extension of the last path component of `path` (without the dot), or `nil`.
    static func _pathExtension(of path: String) -> String? {
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let ext = name[name.index(after: dot)...]
        return ext.isEmpty ? nil : String(ext)
    }
}

extension ImageFileFormat {
    /// `format`, or the format the extension of `path` names (PNG when there is none).
    ///
    /// - Throws: `unsupportedFormat` when the extension names no format PixelFlow writes.
    static func _forWriting(_ path: String, _ format: ImageFileFormat?) throws -> ImageFileFormat {
        if let format { return format }
        guard let ext = _pathExtension(of: path) else { return .png }
        guard let f = ImageFileFormat(pathExtension: ext) else {
            throw PixelFlowError.unsupportedFormat(file: path,
                reason: "cannot write '.\(ext)' files; use .png, .jpg, .pnm/.pgm/.ppm/.pam or .bmp, or pass a format")
        }
        return f
    }
}
