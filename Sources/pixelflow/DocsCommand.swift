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

    /// Writes `bytes` to a temporary file beside `path` and renames it over `path`, so a
    /// reader never sees half a file and a failure leaves the old one.
    ///
    /// - Throws: `CLIError.runtime` naming the file and the system's reason.
    static func replaceFile(_ path: String, with bytes: [UInt8]) throws {
        func fail(_ what: String) -> CLIError {
            .runtime("cannot \(what) \(path): \(String(cString: strerror(errno)))")
        }
        if path.isEmpty || path.hasSuffix("/") || Terminal.isDirectory(path) {
            throw CLIError.usage("--output needs a file name, got '\(path)'")
        }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        var template = Array("\(folder == "/" ? "" : folder)/.\(base).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw fail("write") }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var ok = fchmod(fd, 0o644) == 0 && Terminal.writeAll(fd: fd, bytes) && fsync(fd) == 0
        ok = close(fd) == 0 && ok
        guard ok, rename(temporary, path) == 0 else {
            let error = fail("write")
            unlink(temporary)
            throw error
        }
    }
}
