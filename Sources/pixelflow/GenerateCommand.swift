import PixelFlow
import PixelFlowCLI

/// `pixelflow generate`: renders a filter that takes no image (a barcode, a gradient, a
/// pattern) into a file.
///
/// ```
/// pixelflow generate 'NAME key=value ...' OUT [--size WxH] [--format F] [--quality Q] [--threads N]
/// ```
enum GenerateCommand: Subcommand {
    static let name = "generate"
    static let summary = "render a generator (barcode, QR code, gradient, pattern) into a file"

    static let options: [Arguments.Option] = [
        .value("--size", "-s"), .value("--format", "-f"), .value("--quality", "-q"), .value("--threads"),
        .flag("--help", "-h"),
    ]

    static var help: String {
        """
        Usage: pixelflow generate 'NAME key=value ...' OUT [options]

        Renders the filter NAME, which takes no image, with the given inputs (the same
        'NAME key=value' words as `pixelflow apply --filter`; `pixelflow filters --category
        Generator` lists such filters, `pixelflow describe NAME` their inputs) and writes it to
        OUT, in the format of OUT's extension (or --format). OUT may be `-` for standard output
        (PNG unless --format says otherwise).

        A generator with a finite extent (a barcode, a QR code) is written whole unless --size
        is given; one that covers the whole plane (a gradient, a checkerboard) needs --size,
        which renders the rect from (0, 0). With a finite extent, --size renders that many
        pixels from the extent's corner.

        Options:
          -s, --size WxH      The size to render, in pixels (each side 1...65535).
          -f, --format F      png, jpeg, webp, tiff, gif, heic, avif, pnm or bmp.
          -q, --quality Q     Quality 1...100 of JPEG, lossy WebP, HEIF and AVIF (default 90).
              --threads N     Render with N threads (the pixels do not depend on N).
          -h, --help          Show this help.

        Examples:
          pixelflow generate 'CICode128BarcodeGenerator inputMessage=PixelFlow inputQuietSpace=10' code.png
          pixelflow generate 'CIQRCodeGenerator inputMessage=https://example.com inputCorrectionLevel=H' qr.png
          pixelflow generate 'Code128BarcodeGenerator message=hex:094142' tab-ab.png
          pixelflow generate 'CICheckerboardGenerator inputWidth=16' board.png --size 256x256
          pixelflow generate 'LinearGradient inputPoint1=[512 0]' - --size 512x64 > ramp.png

        Exit status: 0 on success, 1 when the output could not be rendered or written, 2 for a
        usage error (unknown filter or key, a filter that takes an image, a missing --size).
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
                "generate needs a filter and an output, as in `pixelflow generate 'CICode128BarcodeGenerator inputMessage=PixelFlow' code.png`"
            )
        }
        let (spec, output) = (paths[0], paths[1])
        let step = try FilterStep(parsing: spec)
        let d = step.descriptor
        if let needed = d.inputs.first(where: { $0.valueClass == .image && $0.defaultValue == nil }) {
            throw CLIError.usage(
                "\(d.name) takes an image (\(needed.key)); use `pixelflow apply IN OUT --filter '\(spec)'` instead")
        }
        let size = try args.value("--size").map(parseSize)
        let quality = try args.integer("--quality", in: 1...100) ?? 90
        let threads = try args.integer("--threads", in: 1...4096)
        let format: ImageFileFormat
        if let f = try args.value("--format") {
            guard let parsed = ImageFileFormat(rawValue: f.lowercased()) ?? ImageFileFormat(pathExtension: f) else {
                throw CLIError.usage("unknown format '\(f)'; use png, jpeg, webp, tiff, gif, heic, avif, pnm or bmp")
            }
            format = parsed
        } else if output == "-" {
            format = .png
        } else {
            guard let ext = pathExtension(output), let f = ImageFileFormat(pathExtension: ext) else {
                throw CLIError.usage(
                    "cannot tell the output format from '\(output)'; name it .png, .jpg, .webp, .tif, .gif, .heic, .avif, .pnm or .bmp, or pass --format"
                )
            }
            format = f
        }
        if output != "-" { try Terminal.checkOutputFolder(of: output) }
        do {
            var image = try step.apply(to: Image.empty)
            let e = image.extent
            if e.isInfinite {
                guard let size else {
                    throw CLIError.usage(
                        "\(d.name) covers the whole plane; give the size to render, as in --size 512x512")
                }
                image = image.cropped(to: Rect(x: 0, y: 0, width: Double(size.width), height: Double(size.height)))
            } else if let size {
                image = image.cropped(
                    to: Rect(x: e.minX, y: e.minY, width: Double(size.width), height: Double(size.height)))
            }
            guard !image.extent.isEmpty else {
                throw CLIError.runtime("\(d.name) gave an empty image with these inputs; nothing to write")
            }
            let context = RenderContext(options: RenderContext.Options(threadCount: threads))
            if output == "-" {
                try Terminal.writeStandardOutput(try context.encoded(image, as: format, quality: quality))
            } else {
                try context.write(image, toFile: output, format: format, quality: quality)
            }
        } catch let error as PixelFlowError {
            throw CLIError.runtime("\(error)")
        }
        return ExitCode.success
    }

    /// `W`x`H` with each side in 1...65535.
    static func parseSize(_ text: String) throws -> (width: Int, height: Int) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (1...65_535).contains(w),
            (1...65_535).contains(h)
        else {
            throw CLIError.usage("--size must be WxH with each side in 1...65535, as in --size 512x512; got '\(text)'")
        }
        return (w, h)
    }
}
