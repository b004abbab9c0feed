#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `pixelflow bench`: runs the benchmark executable `pixelflow-bench` that was built next to
/// this tool, passing every argument through and returning its exit status.
///
/// ```
/// pixelflow bench [ARGS...]
/// ```
///
/// The benchmark is its own product (it links the peer comparison and is best built in
/// release mode), so this command only finds and starts it.
enum BenchCommand: Subcommand {
    static let name = "bench"
    static let summary = "run the benchmark (pixelflow-bench) with the given arguments"

    /// The benchmark's executable name.
    static let executableName = "pixelflow-bench"

    /// The command that builds the benchmark, for the error message when it is missing.
    static let buildCommand = "swift build -c release --product pixelflow-bench"

    static var help: String {
        """
        Usage: pixelflow bench [ARGS...]

        Runs the benchmark, `pixelflow-bench`, found in the same folder as this `pixelflow`
        executable (the build's products folder), with ARGS passed through unchanged, and
        exits with its exit status. It measures megapixels per second for the registered
        filters and the engine, next to the memory-copy bandwidth of the machine.

        Build both in release mode for meaningful numbers:
          \(buildCommand)
          swift build -c release --product pixelflow

        Options:
          -h, --help    Show this help, followed by the benchmark's own options when it is
                        found. Every other argument goes to pixelflow-bench.

        Examples:
          pixelflow bench --smoke                 # seconds: a few operations, checked (CI)
          pixelflow bench --quick --engine        # 1920x1080, fusion and folding gains
          pixelflow bench --filter CISepiaTone,CIGaussianBlur --threads 1,4

        Exit status: the benchmark's (0 on success, 1 when a smoke check fails, 2 for its
        usage errors); 1 when pixelflow-bench is not found or cannot be started.
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let wantsHelp = arguments.contains("--help") || arguments.contains("-h")
        if wantsHelp { Terminal.output(help) }
        guard let bench = locate() else {
            if wantsHelp { return ExitCode.success }
            let folder = executableFolder() ?? "the folder of this pixelflow executable"
            throw CLIError.runtime(
                "\(executableName) was not found in \(folder); build it with `\(buildCommand)` "
                    + "and run the pixelflow of the same build folder (.build/release/pixelflow bench ...)")
        }
        if wantsHelp {
            Terminal.output("\nThe benchmark's options (\(bench) --help):")
            return try spawnAndWait(bench, ["--help"])
        }
        return try spawnAndWait(bench, arguments)
    }

    /// The folder holding the running executable (from `/proc/self/exe`, else from argv[0]).
    static func executableFolder() -> String? {
        var path: String?
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if n > 0 {
            path = String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        } else if let argv0 = CommandLine.arguments.first, argv0.contains("/") {
            path = argv0
        }
        guard let path, let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The path of `pixelflow-bench` beside this executable, when it exists and is executable.
    static func locate() -> String? {
        guard let folder = executableFolder() else { return nil }
        let candidate = joinPath(folder, executableName)
        return access(candidate, X_OK) == 0 && !Terminal.isDirectory(candidate) ? candidate : nil
    }

    /// Starts `path` with `arguments` (sharing standard input, output and error), waits for
    /// it and returns its exit status; a child killed by signal S gives 128 + S, as shells do.
    ///
    /// - Throws: `CLIError.runtime` when the process cannot be started or waited for.
    static func spawnAndWait(_ path: String, _ arguments: [String]) throws -> Int32 {
        let argv = ([path] + arguments).map { strdup($0) }
        defer { for p in argv { free(p) } }
        var cArgv: [UnsafeMutablePointer<CChar>?] = argv + [nil]
        var pid = pid_t()
        let status = posix_spawn(&pid, path, nil, nil, &cArgv, environ)
        guard status == 0 else {
            throw CLIError.runtime("cannot start \(path): \(String(cString: strerror(status)))")
        }
        var waitStatus: Int32 = 0
        while waitpid(pid, &waitStatus, 0) < 0 {
            guard errno == EINTR else {
                throw CLIError.runtime("cannot wait for \(path): \(String(cString: strerror(errno)))")
            }
        }
        // WIFEXITED / WEXITSTATUS / WTERMSIG, written out: the C macros are not imported.
        let signal = waitStatus & 0x7f
        if signal == 0 { return (waitStatus >> 8) & 0xff }
        return 128 + signal
    }
}
