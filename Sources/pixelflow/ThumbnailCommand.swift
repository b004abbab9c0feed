import PixelFlow

/// `pixelflow thumbnail`: a small copy of an image that fits a box, keeping its aspect ratio
/// (like `vipsthumbnail`).
///
/// ```
/// pixelflow thumbnail IN OUT --width W [--height H] [--fit|--fill|--stretch] [--quality Q] [--threads N] [--exact]
/// ```
///
/// Runs the library's `Image.thumbnail(encoded:width:height:contentMode:options:shrinksOnLoad:)`:
/// a large JPEG reduction decodes it 2, 4 or 8 times smaller, an integer box shrink and
/// Lanczos-3 scale to the box, and the EXIF orientation turns the small result upright.
enum ThumbnailCommand: Subcommand {
    static let name = "thumbnail"
    static let summary = "make a thumbnail that fits a width (and height), fast on large JPEGs"

    static let options: [Arguments.Option] = [
        .value("--width", "-W"), .value("--height", "-H"), .value("--quality", "-q"), .value("--threads"),
        .flag("--exact"), .flag("--fit"), .flag("--fill"), .flag("--stretch"), .value("--content-mode"),
        .flag("--help", "-h"),
    ]

    static var help: String {
        """
        Usage: pixelflow thumbnail IN OUT --width W [--height H] [options]

        Writes a copy of IN scaled to fit inside W x H pixels, keeping its aspect ratio: W
        wide when --height is not given, else as large as fits both (one side then equals
        the box's). --fill covers the box instead and crops the overflow evenly (the output
        is W x H); --stretch scales each axis to the box. The image is turned upright first
        (its EXIF orientation applied), so W is the width as displayed. Images smaller than
        the box are enlarged. Scaling is an integer box shrink while at least a 4x reduction
        remains, then antialiased Lanczos-3, in linear light (as vipsthumbnail); colors are
        converted to sRGB and the output carries the sRGB profile and no EXIF or XMP. The
        format is OUT's extension's. IN may be `-` for standard input.

        A large JPEG is decoded 2, 4 or 8 times smaller when the reduction is at least 4x
        (libjpeg's DCT scaling, as vipsthumbnail's shrink-on-load), leaving at least a 2x
        reduction to Lanczos: much faster and lighter on memory, and within a few 8-bit
        levels of decoding every pixel. --exact decodes every pixel. The output is written
        atomically, as rows are rendered for JPEG.

        Options:
          -W, --width W     The box's width in pixels, 1...65535 (required).
          -H, --height H    The box's height in pixels, 1...65535 (default: no limit).
          -q, --quality Q   Quality 1...100 of JPEG, lossy WebP, HEIF and AVIF (default 90).
              --fit         Fit inside the box (the default).
              --fill        Cover the box and crop the overflow (needs --height).
              --stretch     Scale each axis to the box (needs --height).
              --content-mode fit|fill|stretch
                            The same as the three flags.
              --threads N   Render with N threads (default: one per processor). The pixels
                            do not depend on N.
              --exact       Decode every pixel of a JPEG (no shrink-on-load): the exact
                            Lanczos result, slower on large reductions.
          -h, --help        Show this help.

        Examples:
          pixelflow thumbnail photo.jpg thumb.jpg --width 320
          pixelflow thumbnail photo.jpg thumb.webp --width 200 --height 200 --quality 80
          pixelflow thumbnail photo.jpg square.jpg -W 256 -H 256 --fill
          pixelflow thumbnail scan.png small.png -W 1000 --exact
          curl -s https://example.com/big.jpg | pixelflow thumbnail - thumb.jpg -W 256

        Exit status: 0 on success, 1 when IN could not be read or decoded or OUT not
        written, 2 for a usage error (missing --width, a size out of range, an output
        extension that names no format).
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: options)
        if args.flag("--help") {
            Terminal.output(help)
            return ExitCode.success
        }
        let paths = args.positionals
        guard paths.count == 2 else {
            throw CLIError.usage(
                "thumbnail needs an input and an output, as in `pixelflow thumbnail photo.jpg thumb.jpg --width 320`")
        }
        let (input, output) = (paths[0], paths[1])
        guard let width = try args.integer("--width", in: 1...65_535) else {
            throw CLIError.usage("thumbnail needs --width, as in `pixelflow thumbnail \(input) \(output) --width 320`")
        }
        let height = try args.integer("--height", in: 1...65_535)
        let quality = try args.integer("--quality", in: 1...100) ?? 90
        let threads = try args.integer("--threads", in: 1...4096)
        guard output != "-", let ext = pathExtension(output), let format = ImageFileFormat(pathExtension: ext) else {
            throw CLIError.usage(
                "cannot tell the output format from '\(output)'; name it .jpg, .png, .webp, .tif, .gif, .heic, .avif, .pnm or .bmp"
            )
        }
        var modes: [ThumbnailContentMode] = [.fit, .fill, .stretch].filter { args.flag("--\($0.rawValue)") }
        if let m = try args.value("--content-mode") {
            guard let mode = ThumbnailContentMode(rawValue: m) else {
                throw CLIError.usage("--content-mode takes fit, fill or stretch, not '\(m)'")
            }
            modes.append(mode)
        }
        guard Set(modes).count <= 1 else { throw CLIError.usage("give one of --fit, --fill and --stretch") }
        let mode = modes.first ?? .fit
        if mode != .fit, height == nil {
            throw CLIError.usage("--\(mode.rawValue) needs --height (the box's other side)")
        }
        var options = RenderContext.Options(threadCount: threads)
        options.shrinksOnLoad = !args.flag("--exact")
        let name = input == "-" ? "<stdin>" : input
        try Terminal.checkOutputFolder(of: output)
        do {
            let image = try thumbnail(of: input, width: width, height: height, contentMode: mode, exact: args.flag("--exact"))
            try RenderContext(options: options).write(image, toFile: output, format: format, quality: quality)
        } catch let error as PixelFlowError {
            throw CLIError.runtime(ApplyJob.message(error, about: name))
        }
        return ExitCode.success
    }

    /// The graph of the thumbnail of the file at `path` (`Image.thumbnail(encoded:...)`).
    ///
    /// - Throws: `CLIError.runtime` for a missing file; `PixelFlowError` for unreadable data.
    static func thumbnail(of path: String, width: Int, height: Int?, contentMode: ThumbnailContentMode, exact: Bool) throws
        -> Image
    {
        let (file, bytes) = try ApplyJob.read(path, options: .default)
        return try Image.thumbnail(
            encoded: bytes, name: file.name, width: width, height: height, contentMode: contentMode,
            shrinksOnLoad: !exact)
    }
}
