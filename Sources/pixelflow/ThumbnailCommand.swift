import PixelFlow

/// `pixelflow thumbnail`: a small copy of an image that fits a box, keeping its aspect ratio
/// (like `vipsthumbnail`).
///
/// ```
/// pixelflow thumbnail IN OUT --width W [--height H] [--quality Q] [--threads N] [--exact]
/// ```
///
/// A JPEG is read as a streamed source with its orientation left to the graph, so a large
/// reduction decodes it 2, 4 or 8 times smaller (`ShrinkSourcesOnLoad`); Lanczos-3 then
/// scales to the box and the EXIF orientation turns the small result upright.
enum ThumbnailCommand: Subcommand {
    static let name = "thumbnail"
    static let summary = "make a thumbnail that fits a width (and height), fast on large JPEGs"

    static let options: [Arguments.Option] = [
        .value("--width", "-W"), .value("--height", "-H"), .value("--quality", "-q"), .value("--threads"),
        .flag("--exact"), .flag("--help", "-h"),
    ]

    static var help: String {
        """
        Usage: pixelflow thumbnail IN OUT --width W [--height H] [options]

        Writes a copy of IN scaled to fit inside W x H pixels, keeping its aspect ratio: W
        wide when --height is not given, else as large as fits both (one side then equals
        the box's). The image is turned upright first (its EXIF orientation applied), so W
        is the width as displayed. Images smaller than the box are enlarged. Scaling is
        antialiased Lanczos-3 in linear light; colors are converted to sRGB and the output
        carries the sRGB profile and no EXIF or XMP. The format is OUT's extension's. IN may
        be `-` for standard input.

        A large JPEG is decoded 2, 4 or 8 times smaller when the reduction is at least 4x
        (libjpeg's DCT scaling, as vipsthumbnail's shrink-on-load), leaving at least a 2x
        reduction to Lanczos: much faster and lighter on memory, and within a few 8-bit
        levels of decoding every pixel. --exact decodes every pixel. The output is written
        atomically, as rows are rendered for JPEG.

        Options:
          -W, --width W     The box's width in pixels, 1...65535 (required).
          -H, --height H    The box's height in pixels, 1...65535 (default: no limit).
          -q, --quality Q   Quality 1...100 of JPEG, lossy WebP, HEIF and AVIF (default 90).
              --threads N   Render with N threads (default: one per processor). The pixels
                            do not depend on N.
              --exact       Decode every pixel of a JPEG (no shrink-on-load): the exact
                            Lanczos result, slower on large reductions.
          -h, --help        Show this help.

        Examples:
          pixelflow thumbnail photo.jpg thumb.jpg --width 320
          pixelflow thumbnail photo.jpg thumb.webp --width 200 --height 200 --quality 80
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
        var options = RenderContext.Options(threadCount: threads)
        options.shrinksOnLoad = !args.flag("--exact")
        let name = input == "-" ? "<stdin>" : input
        try Terminal.checkOutputFolder(of: output)
        do {
            let image = try thumbnail(of: input, width: width, height: height)
            try RenderContext(options: options).write(image, toFile: output, format: format, quality: quality)
        } catch let error as PixelFlowError {
            throw CLIError.runtime(ApplyJob.message(error, about: name))
        }
        return ExitCode.success
    }

    /// The graph of the thumbnail of the file at `path`: upright, fitting `width` x `height`.
    ///
    /// A JPEG is streamed with its orientation applied after the scale, so that the scale
    /// reads the source directly and may shrink it on load; other formats are decoded upright.
    ///
    /// - Throws: `CLIError.runtime` for a missing file; `PixelFlowError` for unreadable data.
    static func thumbnail(of path: String, width: Int, height: Int?) throws -> Image {
        var decode = DecodeOptions.default
        let (file, bytes) = try ApplyJob.read(path, options: decode)
        var orientation = EXIFOrientation.up
        if file.info.format == .jpeg {
            orientation = file.info.metadata.orientation
            decode.applyOrientation = false
        }
        let stored = try Image(encoded: bytes, name: file.name, options: decode, streaming: true)
        let e = stored.extent
        let (uprightWidth, uprightHeight) = orientation.swapsDimensions ? (e.height, e.width) : (e.width, e.height)
        var scale = Double(width) / uprightWidth
        if let height { scale = Swift.min(scale, Double(height) / uprightHeight) }
        let scaled = scale == 1 ? stored : try stored.lanczosScaled(scale: scale)
        return try scaled.oriented(orientation)
    }
}
