#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PixelFlow

/// `pixelflow docs`: writes the filter reference (Docs/Filters.md), generated from the
/// descriptors by `FilterRegistry.markdownReference()`.
///
/// ```
/// pixelflow docs [--output FILE]
/// ```
enum DocsCommand: Subcommand {
    static let name = "docs"
    static let summary = "write the filter reference in Markdown (Docs/Filters.md)"

    static let options: [Arguments.Option] = [.value("--output", "-o"), .flag("--help", "-h")]

    static var help: String {
        """
        Usage: pixelflow docs [--output FILE]

        Writes the filter reference in Markdown: every filter by category, with its Core Image
        name, summary, categories and a table of its inputs (type, class, default, identity,
        min, max, slider range). It is generated from the filter descriptors, so it always
        matches the library; Docs/Filters.md is this output, and a test fails when it is stale.

        Options:
          -o, --output FILE  Write to FILE (replaced all at once) instead of standard output.
          -h, --help         Show this help.

        Examples:
          swift run pixelflow docs --output Docs/Filters.md
          pixelflow docs | less

        Exit status: 0 on success, 1 when FILE cannot be written, 2 for a usage error.
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
        let bytes = Array(FilterRegistry.markdownReference().utf8)
        guard let output = try args.value("--output"), output != "-" else {
            try Terminal.writeStandardOutput(bytes)
            return ExitCode.success
        }
        try replaceFile(output, with: bytes)
        return ExitCode.success
    }

    /// Replaces the file `--output` names with `bytes`, atomically (`Terminal.replaceFile`).
    ///
    /// - Throws: `CLIError.usage` when `path` is not a file name; `CLIError.runtime` naming
    ///   the file and the system's reason when the write fails.
    static func replaceFile(_ path: String, with bytes: [UInt8]) throws {
        if path.isEmpty || path.hasSuffix("/") || Terminal.isDirectory(path) {
            throw CLIError.usage("--output needs a file name, got '\(path)'")
        }
        try Terminal.replaceFile(path, with: bytes)
    }
}
