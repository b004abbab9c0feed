import PixelFlow

/// `pixelflow qr encode`: writes a QR code image.
///
/// ```
/// pixelflow qr encode TEXT OUT [--level L|M|Q|H] [--scale N]
/// ```
enum QRCommand: Subcommand {
    static let name = "qr"
    static let summary = "make a QR code image (qr encode TEXT OUT)"

    static let options: [Arguments.Option] = [
        .value("--level", "-l"), .value("--scale", "-s"), .value("--version"), .flag("--help", "-h"),
    ]

    static var help: String {
        """
        Usage: pixelflow qr encode TEXT OUT [options]

        Encodes TEXT (as UTF-8, numeric and alphanumeric runs where cheaper) in the smallest QR
        code that holds it and writes it to OUT (`-`: standard output, PNG): black modules on
        white with the standard 4-module quiet zone, as CIQRCodeGenerator draws it.

        Options:
          -l, --level L     Error correction: L (7%), M (15%, the default), Q (25%), H (30%).
          -s, --scale N     Pixels per module, 1...100 (default 8).
              --version V   A fixed symbol version, 1...40 (default: the smallest that fits).
          -h, --help        Show this help.

        Examples:
          pixelflow qr encode 'https://example.com' code.png
          pixelflow qr encode 'HELLO WORLD' big.png --level H --scale 16
          pixelflow qr encode "$(cat note.txt)" - > note.png

        Exit status: 0 on success, 1 when OUT cannot be written, 2 for a usage error (also
        when TEXT does not fit a version 40 symbol at the level).
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: options)
        if args.flag("--help") {
            Terminal.output(help)
            return ExitCode.success
        }
        let p = args.positionals
        guard p.first == "encode" else {
            throw CLIError.usage(
                p.isEmpty
                    ? "qr needs a subcommand: `pixelflow qr encode TEXT OUT`"
                    : "unknown qr subcommand '\(p[0])'; use `pixelflow qr encode TEXT OUT` (to read codes: `pixelflow detect qr IN`)"
            )
        }
        guard p.count == 3 else {
            throw CLIError.usage("qr encode needs the text and an output file, as in `pixelflow qr encode 'hello' code.png`")
        }
        let text = p[1], out = p[2]
        var level = QRErrorCorrectionLevel.medium
        if let l = try args.value("--level") {
            guard let parsed = QRErrorCorrectionLevel(letter: l.uppercased()) else {
                throw CLIError.usage("unknown --level '\(l)'; use L, M, Q or H")
            }
            level = parsed
        }
        let scale = try args.integer("--scale", in: 1...100) ?? 8
        let version = try args.integer("--version", in: 1...40).flatMap { QRVersion($0) }
        var format = ImageFileFormat.png
        if out != "-" {
            guard let ext = pathExtension(out), let f = ImageFileFormat(pathExtension: ext) else {
                throw CLIError.usage("cannot tell the output format from '\(out)'; name it .png, .jpg, .pnm or .bmp")
            }
            format = f
        }
        let image: Image
        do {
            image = try Image.qrCode(message: text, correctionLevel: level, version: version, scale: scale)
        } catch let error as PixelFlowError {
            throw CLIError.usage("cannot encode the text: \(error)")
        }
        try Terminal.checkOutputFolder(of: out)
        let buffer = try RenderContext().makeBuffer(image, format: .rgba8)
        do {
            if out == "-" {
                try Terminal.writeStandardOutput(try buffer.encoded(as: format))
            } else {
                try buffer.write(toFile: out, format: format)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.runtime(ApplyJob.message(error, about: out))
        }
        return ExitCode.success
    }
}
