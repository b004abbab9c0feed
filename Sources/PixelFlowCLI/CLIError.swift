/// Errors, exit statuses and the `--filter` parser of the `pixelflow` command line, kept in
/// a library (PixelFlowCLI) so that the fuzz targets in Fuzz/ can reach the parser.

/// A failure of the command line, with the exit status it maps to.
///
/// Usage errors (a malformed command line: unknown option, unknown filter or key, a value
/// that does not parse or is out of range) exit with 2; runtime errors (a missing or corrupt
/// file, a failed render or write) exit with 1. Messages say what to do next.
public enum CLIError: Error, CustomStringConvertible {
    /// The command line is wrong; exit status 2.
    case usage(String)
    /// The command line is fine but the work failed; exit status 1.
    case runtime(String)

    public var exitCode: Int32 {
        switch self {
        case .usage: return ExitCode.usage
        case .runtime: return ExitCode.failure
        }
    }

    public var description: String {
        switch self {
        case let .usage(m), let .runtime(m): return m
        }
    }
}

/// The exit statuses of `pixelflow`.
public enum ExitCode {
    public static let success: Int32 = 0
    /// A runtime failure: a file could not be read, decoded, rendered or written.
    public static let failure: Int32 = 1
    /// A usage error: the command line itself is wrong.
    public static let usage: Int32 = 2
}
