#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PixelFlow

/// `pixelflow docs`: writes the filter reference (Docs/Filters.md), generated from the
/// descriptors by `FilterRegistry.markdownReference()` with a picture of each filter, and
/// with `--gallery` renders those pictures (``Gallery``).
///
/// ```
/// pixelflow docs [--output FILE] [--gallery DIR [--size WxH] [--threads N]]
/// ```
enum DocsCommand: Subcommand {
    static let name = "docs"
    static let summary = "write the filter reference in Markdown (Docs/Filters.md) and its gallery"

    static let options: [Arguments.Option] = [
        .value("--output", "-o"), .value("--gallery"), .value("--size"), .value("--threads"), .flag("--help", "-h"),
    ]

    /// The gallery's folder as Docs/Filters.md links it (relative to Docs/).
    static let defaultGalleryLink = "Gallery"

    static var help: String {
        """
        Usage: pixelflow docs [--output FILE] [--gallery DIR [--size WxH] [--threads N]]

        Writes the filter reference in Markdown: every filter by category, with its Core Image
        name, summary, categories, a table of its inputs (type, class, default, identity,
        min, max, slider range) and its picture from the gallery, linked to its category's
        contact sheet. It is generated from the filter descriptors, so it always matches the
        library; Docs/Filters.md is this output, and a test fails when it is stale or when
        Docs/Gallery lacks a filter's picture or holds one of a filter that no longer exists.

        With --gallery, also renders every filter into DIR: NAME.jpg per filter (such as
        CISepiaTone.jpg) and CATEGORY.jpg per category (such as CICategoryBlur.jpg, a contact
        sheet labelled with display names). Each filter is shown on a landscape drawn in code
        (blends and transitions get a second picture, CIColorMap a color ramp, CIPalettize a
        palette, transitions are at time 0.5) at its defaults and, where the defaults show
        little on that small picture (measured: under 5% visible, nearly uniform, or nearly
        equal to the input), beside a second setting from its slider range, captioned with
        the values set. Pictures of filters no longer registered are removed from DIR. The
        files are the same bytes on every run and thread count.

        Options:
          -o, --output FILE  Write to FILE (replaced all at once) instead of standard output.
              --gallery DIR  Render the gallery into DIR (created if missing). The reference
                             links DIR relative to FILE's folder (default: Gallery).
              --size WxH     Size of one picture, 8x8 to 1024x1024 (default 160x120).
              --threads N    Render with N threads (default: one per processor); the pixels
                             do not depend on it.
          -h, --help         Show this help.

        Examples:
          swift run -c release pixelflow docs --output Docs/Filters.md --gallery Docs/Gallery
          pixelflow docs --gallery /tmp/gallery --size 320x240 > /tmp/Filters.md
          pixelflow docs | less

        Exit status: 0 on success, 1 when a file cannot be written or a filter fails to render
        at its defaults (the others are still written), 2 for a usage error.
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: options)
        if args.flag("--help") {
            Terminal.output(help)
            return ExitCode.success
        }
        if let extra = args.positionals.first {
            throw CLIError.usage("unexpected argument '\(extra)'; to write a file use --output \(extra)")
        }
        let output = try args.value("--output").flatMap { $0 == "-" ? nil : $0 }
        if let output, output.isEmpty || output.hasSuffix("/") || Terminal.isDirectory(output) {
            throw CLIError.usage("--output needs a file name, got '\(output)'")
        }
        let galleryDirectory = try args.value("--gallery")
        if galleryDirectory == nil, try args.value("--size") != nil || args.value("--threads") != nil {
            throw CLIError.usage("--size and --threads go with --gallery DIR")
        }
        var status = ExitCode.success
        var link = defaultGalleryLink
        if let galleryDirectory {
            if galleryDirectory.isEmpty { throw CLIError.usage("--gallery needs a folder") }
            let (width, height) = try size(args.value("--size") ?? "160x120")
            let threads = try args.integer("--threads", in: 1...4096)
            link = galleryLink(galleryDirectory, from: output)
            status = try writeGallery(
                into: galleryDirectory, width: width, height: height,
                context: RenderContext(options: RenderContext.Options(threadCount: threads)))
        }
        let bytes = Array(reference(galleryLink: link).utf8)
        if let output {
            try Terminal.replaceFile(output, with: bytes)
        } else {
            try Terminal.writeStandardOutput(bytes)
        }
        return status
    }

    /// Parses `WxH` with sides in 8...1024.
    ///
    /// - Throws: `CLIError.usage` naming the text when it is not such a size.
    static func size(_ text: String) throws -> (Int, Int) {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (8...1024).contains(w),
            (8...1024).contains(h)
        else { throw CLIError.usage("--size needs WxH with sides in 8...1024, such as 160x120; got '\(text)'") }
        return (w, h)
    }

    /// The gallery folder as the reference links it: relative to the reference's folder when
    /// the gallery is inside it, else the path as given.
    static func galleryLink(_ gallery: String, from output: String?) -> String {
        var dir = gallery
        while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
        guard let output else { return dir }
        let folder = output.contains("/") ? String(output[..<output.lastIndex(of: "/")!]) : "."
        if folder == "." { return dir.hasPrefix("./") ? String(dir.dropFirst(2)) : dir }
        if dir.hasPrefix(folder + "/") { return String(dir.dropFirst(folder.count + 1)) }
        return dir
    }
}
