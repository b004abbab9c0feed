import PixelFlow

/// `pixelflow info`: what image files' headers say (like `vipsheader`), without decoding
/// their pixels.
///
/// ```
/// pixelflow info FILE... [--json]
/// ```
enum InfoCommand: Subcommand {
    static let name = "info"
    static let summary = "show image files' format, size, pages, color profile and metadata"

    static let options: [Arguments.Option] = [.flag("--json"), .flag("--help", "-h")]

    static var help: String {
        """
        Usage: pixelflow info FILE... [--json]

        Prints what each file's headers say, without decoding its pixels: the format, the
        stored width x height (before the orientation is applied), the number of images
        (TIFF pages, GIF or WebP frames, HEIF images) and whether it is animated, bits per
        sample, the stored color model (gray, rgb, palette, cmyk, ycbcr), alpha, the color
        profile, the EXIF orientation, and the sizes of the EXIF and XMP blocks. FILE `-`
        reads standard input.

        One line per file:

          photo.jpg: jpeg 4032x3024, 1 image, 8-bit ycbcr, no alpha, profile "Display P3", orientation 6 (right), EXIF 12 KB
          logo.png: png 512x512, 1 image, 8-bit rgb, alpha, no profile (sRGB assumed), orientation 1 (up), no EXIF or XMP

        The profile is the embedded ICC profile's name; a file without one shows what it
        says instead: PNG's sRGB chunk ("sRGB (sRGB chunk)"), its cICP code points
        ("cICP 12/13/0 (Display P3)") or its gAMA and cHRM chunks ("gAMA 0.45455, cHRM"),
        else "no profile (sRGB assumed)", as readers then assume sRGB.

        A file that cannot be read is named on standard error with the reason; the others
        are still printed, and the exit status is 1.

        Options:
              --json    Print a JSON array with one object per file that could be read, with
                        the keys "file" (as given), "format", "width", "height",
                        "image_count", "animated", "bits_per_sample", "color_model",
                        "has_alpha", "profile" (the text above, null for none), "icc_bytes",
                        "orientation" (1...8), "orientation_name", "exif_bytes" and
                        "xmp_bytes" (0 when absent).
          -h, --help    Show this help.

        Examples:
          pixelflow info photo.jpg
          pixelflow info *.png --json
          curl -s https://example.com/x.png | pixelflow info -

        Exit status: 0 when every file was read, 1 when one could not be (missing,
        unreadable, not an image, corrupt headers), 2 for a usage error.
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: options)
        if args.flag("--help") {
            Terminal.output(help)
            return ExitCode.success
        }
        let files = args.positionals
        guard !files.isEmpty else {
            throw CLIError.usage("info needs one or more image files, as in `pixelflow info photo.jpg`")
        }
        if files.filter({ $0 == "-" }).count > 1 {
            throw CLIError.usage("standard input (`-`) can be read only once")
        }
        let json = args.flag("--json")
        var objects: [String] = []
        var failed = 0
        for path in files {
            do {
                let file = try read(path)
                if json {
                    objects.append(jsonObject(file.info, file: path))
                } else {
                    Terminal.output(line(file.info, file: displayName(path)))
                }
            } catch {
                failed += 1
                Terminal.error("pixelflow info: " + ApplyJob.message(error, about: displayName(path)))
            }
        }
        if json { Terminal.output(JSONText.lines(objects)) }
        return failed == 0 ? ExitCode.success : ExitCode.failure
    }

    static func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// Reads the headers of `path`, or of standard input for `-`.
    ///
    /// - Throws: `CLIError.runtime` for a missing file, a folder or empty input;
    ///   `PixelFlowError` from `ImageFile`.
    static func read(_ path: String) throws -> ImageFile {
        if path == "-" {
            let bytes = try Terminal.readStandardInput()
            if bytes.isEmpty { throw CLIError.runtime("<stdin>: no data on standard input") }
            return try ImageFile(encoded: bytes, name: "<stdin>")
        }
        if !Terminal.exists(path) { throw CLIError.runtime("\(path): no such file") }
        if Terminal.isDirectory(path) { throw CLIError.runtime("\(path): is a directory, not an image file") }
        return try ImageFile(contentsOfFile: path)
    }

    /// `file: jpeg 4032x3024, 1 image, 8-bit ycbcr, no alpha, profile "Display P3", orientation 6 (right), EXIF 12 KB`.
    static func line(_ info: ImageFileInfo, file: String) -> String {
        let m = info.metadata
        var parts = ["\(info.format.rawValue) \(info.width)x\(info.height)"]
        var images = "\(info.imageCount) image\(info.imageCount == 1 ? "" : "s")"
        if info.isAnimated { images += ", animated" }
        parts.append(images)
        parts.append("\(info.bitsPerSample)-bit \(info.colorModel)")
        parts.append(info.hasAlpha ? "alpha" : "no alpha")
        if let profile = profileDescription(m) {
            parts.append(m.iccProfile != nil ? "profile \"\(profile)\"" : "profile " + profile)
        } else {
            parts.append("no profile (sRGB assumed)")
        }
        parts.append("orientation \(m.orientation.rawValue) (\(m.orientation))")
        var blocks: [String] = []
        if let exif = m.exif { blocks.append("EXIF " + byteCount(exif.count)) }
        if let xmp = m.xmp { blocks.append("XMP " + byteCount(xmp.count)) }
        parts.append(blocks.isEmpty ? "no EXIF or XMP" : blocks.joined(separator: ", "))
        return "\(file): " + parts.joined(separator: ", ")
    }

    /// The JSON object of one file, keys in a fixed order.
    static func jsonObject(_ info: ImageFileInfo, file: String) -> String {
        let m = info.metadata
        return JSONText.object([
            ("file", JSONText.string(file)),
            ("format", JSONText.string(info.format.rawValue)),
            ("width", String(info.width)),
            ("height", String(info.height)),
            ("image_count", String(info.imageCount)),
            ("animated", info.isAnimated ? "true" : "false"),
            ("bits_per_sample", String(info.bitsPerSample)),
            ("color_model", JSONText.string(info.colorModel)),
            ("has_alpha", info.hasAlpha ? "true" : "false"),
            ("profile", profileDescription(m).map(JSONText.string) ?? "null"),
            ("icc_bytes", String(m.iccProfile?.count ?? 0)),
            ("orientation", String(m.orientation.rawValue)),
            ("orientation_name", JSONText.string("\(m.orientation)")),
            ("exif_bytes", String(m.exif?.count ?? 0)),
            ("xmp_bytes", String(m.xmp?.count ?? 0)),
        ])
    }

    /// The color profile's name, or what the file says in its place (PNG's sRGB, cICP, gAMA
    /// and cHRM chunks); nil when it says nothing.
    static func profileDescription(_ m: ImageMetadata) -> String? {
        if let icc = m.iccProfile {
            return (try? ColorSpace(iccProfile: icc))?.name ?? "unreadable ICC profile"
        }
        if let c = m.cicp {
            let code = "cICP \(c.colorPrimaries)/\(c.transferCharacteristics)/\(c.matrixCoefficients)"
            return cicpName(c).map { code + " (\($0))" } ?? code
        }
        if m.declaresSRGB { return "sRGB (sRGB chunk)" }
        var chunks: [String] = []
        if let g = m.gamma { chunks.append("gAMA \(JSONText.number((g * 100_000).rounded() / 100_000))") }
        if m.chromaticities != nil { chunks.append("cHRM") }
        return chunks.isEmpty ? nil : chunks.joined(separator: ", ")
    }

    /// The usual name of H.273 code points: primaries 1 (BT.709), 12 (P3 D65), 9 (BT.2020)
    /// with transfer 13 (sRGB), 16 (PQ), 18 (HLG) or 8 (linear).
    static func cicpName(_ c: CICP) -> String? {
        let primaries: [Int: String] = [1: "sRGB", 12: "Display P3", 9: "BT.2020"]
        guard let p = primaries[c.colorPrimaries] else { return nil }
        switch c.transferCharacteristics {
        case 13: return p
        case 8: return "linear " + p
        case 16: return p + " PQ"
        case 18: return p + " HLG"
        case 1, 6, 14, 15: return p == "sRGB" ? "BT.709" : p + ", BT.709 transfer"
        default: return nil
        }
    }

    /// `512 bytes`, `12 KB` (1024 bytes each, rounded), `3.4 MB`.
    static func byteCount(_ n: Int) -> String {
        if n < 1024 { return "\(n) byte\(n == 1 ? "" : "s")" }
        if n < 1024 * 1024 { return "\(max(1, Int((Double(n) / 1024).rounded()))) KB" }
        return "\(JSONText.number((Double(n) / 1_048_576 * 10).rounded() / 10)) MB"
    }
}
