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
    /// WebP (libwebp): lossy or lossless, with alpha; animated files hold several frames.
    case webp
    /// TIFF (libtiff): 8 and 16-bit gray, RGB, CMYK and palette; strips or tiles; several pages.
    case tiff
    /// GIF (giflib): palette images of at most 256 colors; animated files hold several frames.
    case gif
    /// HEIF (libheif), HEVC-coded images as phones write them (`.heic`).
    case heif
    /// AVIF (libheif): AV1-coded images in a HEIF container.
    case avif

    /// The format whose magic bytes start `bytes`, or `nil` when none does.
    ///
    /// PNG: the 8-byte signature `89 50 4E 47 0D 0A 1A 0A`. JPEG: `FF D8 FF`. PNM: `P1` to
    /// `P7` followed by whitespace. BMP: `BM`. WebP: `RIFF`, a size, `WEBP`. TIFF: `II*\0` or
    /// `MM\0*` (BigTIFF: `II+\0`, `MM\0+`). GIF: `GIF87a` or `GIF89a`. HEIF and AVIF: an
    /// ISO base media `ftyp` box whose major or compatible brands name them (`avif`, `avis`
    /// for AVIF; `heic`, `heix`, `heim`, `heis`, `hevc`, `hevx`, `mif1`, `msf1` for HEIF).
    ///
    /// - Complexity: O(1); reads at most the first 64 bytes.
    public static func sniff(_ bytes: some Collection<UInt8>) -> ImageFileFormat? {
        let head = Array(bytes.prefix(64))
        if head.count >= 12, head[0..<4].elementsEqual("RIFF".utf8), head[8..<12].elementsEqual("WEBP".utf8) {
            return .webp
        }
        if head.count >= 4, head[0] == 0x49, head[1] == 0x49, head[2] == 0x2A || head[2] == 0x2B, head[3] == 0 {
            return .tiff
        }
        if head.count >= 4, head[0] == 0x4D, head[1] == 0x4D, head[2] == 0, head[3] == 0x2A || head[3] == 0x2B {
            return .tiff
        }
        if head.count >= 6, head[0..<6].elementsEqual("GIF87a".utf8) || head[0..<6].elementsEqual("GIF89a".utf8) {
            return .gif
        }
        if let brand = _isoBrandFormat(head) { return brand }
        if head.starts(with: _PNGCodec.signature) { return .png }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head.count >= 3, head[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(head[1]),
            _PNMParser.isWhitespace(head[2]) || head[2] == UInt8(ascii: "#")
        {
            return .pnm
        }
        if head.count >= 2, head[0] == UInt8(ascii: "B"), head[1] == UInt8(ascii: "M") { return .bmp }
        return nil
    }

    /// The format conventionally named by a file extension, case-insensitively, with or
    /// without the leading dot: `png`; `jpg`, `jpeg`, `jpe`, `jfif`; `pnm`, `pbm`, `pgm`,
    /// `ppm`, `pam`; `bmp`, `dib`; `webp`; `tif`, `tiff`; `gif`; `heic`, `heif`, `hif`;
    /// `avif`. Used only to choose the output format when writing.
    public init?(pathExtension: String) {
        var ext = pathExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        switch ext {
        case "png": self = .png
        case "jpg", "jpeg", "jpe", "jfif": self = .jpeg
        case "pnm", "pbm", "pgm", "ppm", "pam": self = .pnm
        case "bmp", "dib": self = .bmp
        case "webp": self = .webp
        case "tif", "tiff": self = .tiff
        case "gif": self = .gif
        case "heic", "heif", "hif": self = .heif
        case "avif": self = .avif
        default: return nil
        }
    }

    /// HEIF or AVIF from the `ftyp` box at the start of `head` (size, `ftyp`, major brand,
    /// minor version, compatible brands), or `nil`. AVIF wins when both are named.
    static func _isoBrandFormat(_ head: [UInt8]) -> ImageFileFormat? {
        guard head.count >= 16, head[4..<8].elementsEqual("ftyp".utf8) else { return nil }
        let boxSize = head._be32(0)
        guard boxSize >= 16 else { return nil }
        var brands: [String] = [String(decoding: head[8..<12], as: UTF8.self)]
        var offset = 16
        while offset + 4 <= min(boxSize, head.count) {
            brands.append(String(decoding: head[offset..<(offset + 4)], as: UTF8.self))
            offset += 4
        }
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        let heif: Set<String> = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
        if brands.contains(where: { heif.contains($0) }) { return .heif }
        return nil
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
            throw PixelFlowError.unsupportedFormat(
                file: path,
                reason:
                    "cannot write '.\(ext)' files; use .png, .jpg, .webp, .tif, .gif, .avif, .heic, .pnm/.pgm/.ppm/.pam or .bmp, or pass a format"
            )
        }
        return f
    }
}
