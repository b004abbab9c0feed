import PixelFlow

/// How `pixelflow apply` reads its inputs and writes its outputs: which page or frame to
/// read, the encoder's choices (quality, compression, effort, lossless) and what travels
/// from an input to its output (color profile, EXIF and XMP).
///
/// ```swift
/// let args = try Arguments(["in.jpg", "out.png", "--compression", "9", "--strip"], options: ApplyCommand.options)
/// let settings = try OutputSettings(args, outputFormats: [.png])
/// settings.encodeOptions(keeping: nil).compressionLevel   // 9
/// settings.encodeOptions(keeping: nil).colorProfile       // .none
/// ```
///
/// Everything is checked from the command line and the output formats alone, so a usage
/// error is found before any file is read.
struct OutputSettings {
    /// What `--compression` set: a number is PNG's compression level, a name is TIFF's compression.
    enum Compression: Equatable {
        case zlibLevel(Int)
        case tiff(EncodeOptions.TIFFCompression)
    }

    /// JPEG, lossy WebP, HEIF and AVIF quality, and TIFF's with JPEG compression: 1...100.
    var quality: Int
    /// `--lossless`: WebP, AVIF and HEIF without loss.
    var lossless: Bool
    /// `--effort`: 0...9, the encoder's default (4) when nil.
    var effort: Int?
    var compression: Compression?
    /// `--keep-profile`: render into the input's color space and embed its profile.
    var keepsProfile: Bool
    /// `--keep-metadata`: copy the input's EXIF (orientation reset to 1) and XMP.
    var keepsMetadata: Bool
    /// `--strip`: write no color profile, EXIF or XMP.
    var strips: Bool
    /// `--page` / `--frame`: which image of a multi-image input, from 0.
    var imageIndex: Int
    /// `--no-restart-markers`: JPEG without restart markers, compressed on one thread.
    var restartMarkers: Bool

    /// The names `--compression` accepts for TIFF, in the order the help lists them.
    static let tiffNames = EncodeOptions.TIFFCompression.allCases.map(\.rawValue)

    /// Reads and checks the options; `outputFormats` are the formats the run will write
    /// (one, or one per batch input).
    ///
    /// - Throws: `CLIError.usage` for a value out of range, a `--compression` that no output
    ///   format takes, or `--strip` with `--keep-profile` or `--keep-metadata`.
    init(_ args: Arguments, outputFormats: Set<ImageFileFormat>) throws {
        quality = try args.integer("--quality", in: 1...100) ?? 90
        effort = try args.integer("--effort", in: 0...9)
        lossless = args.flag("--lossless")
        restartMarkers = !args.flag("--no-restart-markers")
        keepsProfile = args.flag("--keep-profile")
        keepsMetadata = args.flag("--keep-metadata")
        strips = args.flag("--strip")
        imageIndex = try args.integer("--page", in: 0...9_999) ?? 0
        if strips && (keepsProfile || keepsMetadata) {
            let other = keepsProfile ? "--keep-profile" : "--keep-metadata"
            throw CLIError.usage("--strip writes no metadata at all and cannot be combined with \(other); pass one of them")
        }
        compression = try (args.value("--compression")).map {
            try OutputSettings.parseCompression($0, outputFormats: outputFormats)
        }
    }

    /// A number 0...9 is PNG's compression level; `none`, `lzw`, `deflate`, `packbits` or `jpeg` is
    /// TIFF's compression. The kind must suit at least one of `outputFormats`.
    static func parseCompression(_ text: String, outputFormats: Set<ImageFileFormat>) throws -> Compression {
        let names = tiffNames.dropLast().joined(separator: ", ") + " or " + (tiffNames.last ?? "")
        let outputs = outputFormats.map(\.rawValue).sorted().joined(separator: ", ")
        if let level = Int(text) {
            guard (0...9).contains(level) else {
                throw CLIError.usage("--compression \(text): a PNG compression level must be in 0...9 (TIFF takes \(names))")
            }
            guard outputFormats.contains(.png) else {
                throw CLIError.usage(
                    "--compression \(text) is a PNG compression level, but the output is \(outputs); TIFF takes \(names), other formats no --compression"
                )
            }
            return .zlibLevel(level)
        }
        guard let tiff = EncodeOptions.TIFFCompression(rawValue: text.lowercased()) else {
            throw CLIError.usage(
                "unknown --compression '\(text)'; use a PNG compression level 0...9 or a TIFF compression: \(names)")
        }
        guard outputFormats.contains(.tiff) else {
            throw CLIError.usage(
                "--compression \(text) is a TIFF compression, but the output is \(outputs); PNG takes a compression level 0...9, other formats no --compression"
            )
        }
        return .tiff(tiff)
    }

    /// How inputs are decoded: the chosen page or frame, the default limits.
    var decodeOptions: DecodeOptions {
        var o = DecodeOptions.default
        o.imageIndex = imageIndex
        return o
    }

    /// True when the input's metadata must be read besides its pixels.
    var needsInputMetadata: Bool { keepsProfile || keepsMetadata }

    /// The encoder's options for an output of an input with `metadata` (nil when it was not read).
    func encodeOptions(keeping metadata: ImageMetadata?) -> EncodeOptions {
        var o = EncodeOptions.default
        o.lossless = lossless
        o.restartMarkers = restartMarkers
        if let effort { o.effort = effort }
        switch compression {
        case .zlibLevel(let level)?: o.compressionLevel = level
        case .tiff(let c)?: o.tiffCompression = c
        case nil: break
        }
        if strips {
            o.colorProfile = .none
            o.metadata = nil
            o.keptMetadata = []
        } else if keepsMetadata, let metadata {
            o.metadata = metadata
            o.keptMetadata = .all
        }
        return o
    }

    /// The output color space that keeps the profile of an input with `metadata`: the
    /// space its ICC profile describes when that is an RGB profile lcms2 can read; nil (the
    /// output stays sRGB) otherwise, with a note for standard error when a profile is
    /// dropped. Gray and CMYK profiles are dropped because outputs are RGB.
    func keptColorSpace(_ metadata: ImageMetadata?, input: String) -> (space: ColorSpace?, note: String?) {
        guard keepsProfile, let profile = metadata?.iccProfile else { return (nil, nil) }
        guard let space = try? ColorSpace(iccProfile: profile) else {
            return (nil, "\(input): its color profile cannot be read; the output is sRGB")
        }
        guard space.model == .rgb else {
            return (nil, "\(input): its profile \"\(space.name)\" is \(space.model.rawValue), not RGB; the output is sRGB")
        }
        return (space, nil)
    }
}
