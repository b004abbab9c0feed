#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PixelFlow

// `pixelflow`: the command-line tool. Each subcommand lives in its own file and is listed
// in `PixelFlowTool.commands`; this file only dispatches.

/// A subcommand of `pixelflow`: its name, a one-line summary, its help text and its entry point.
protocol Subcommand {
    /// The word after `pixelflow` that selects the command.
    static var name: String { get }
    /// One line for the tool's help.
    static var summary: String { get }
    /// The command's help: usage, options and examples.
    static var help: String { get }
    /// Runs the command with the arguments after its name; returns the exit status.
    ///
    /// - Throws: `CLIError` (usage or runtime) or `PixelFlowError` (runtime).
    static func run(_ arguments: [String]) throws -> Int32
}

enum PixelFlowTool {
    /// The command table.
    static var commands: [any Subcommand.Type] {
        [
            FiltersCommand.self, DescribeCommand.self, ApplyCommand.self, ThumbnailCommand.self, InfoCommand.self,
            DocsCommand.self, DetectCommand.self, QRCommand.self, GenerateCommand.self, BenchCommand.self,
        ]
    }

    static var help: String {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { "  " + $0.name + String(repeating: " ", count: width - $0.name.count + 3) + $0.summary }
        return """
            pixelflow: filter images with PixelFlow, Core Image for Linux.

            Usage: pixelflow <command> [arguments]

            Commands:
            \(list.joined(separator: "\n"))

            Run `pixelflow <command> --help` (or `pixelflow help <command>`) for a command's
            options and examples, and `pixelflow --version` (or `pixelflow version`) for the
            version of PixelFlow.

            Examples:
              pixelflow filters --category ColorEffect
              pixelflow describe CISepiaTone
              pixelflow apply photo.jpg sepia.png --filter 'CISepiaTone inputIntensity=0.8'
              pixelflow apply in.png out.jpg --filter 'ExposureAdjust inputEV=0.5' --filter 'GaussianBlur inputRadius=2'
              cat in.png | pixelflow apply - - --format jpeg --filter 'ColorInvert' > out.jpg
              pixelflow apply *.jpg thumbs/ --filter 'LanczosScaleTransform inputScale=0.25'
              pixelflow apply --manifest list.txt out/ --shard 0/3 --resume --filter SepiaTone
              pixelflow apply photo.heic photo.webp --keep-profile --keep-metadata --quality 80
              pixelflow thumbnail photo.jpg thumb.jpg --width 320
              pixelflow info photo.jpg scan.tif --json
              pixelflow detect qr code.png --json
              pixelflow bench --smoke

            Exit status: 0 on success, 1 when a file could not be read, decoded, rendered or
            written, 2 for a usage error (unknown command, option, filter or key, bad value).
            """
    }

    /// Dispatches `arguments` (without the program name) and returns the exit status.
    static func dispatch(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            Terminal.error(help)
            return ExitCode.usage
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1 {
                return dispatch([arguments[1], "--help"])
            }
            Terminal.output(help)
            return ExitCode.success
        }
        if first == "--version" || first == "version" {
            guard arguments.count == 1 else {
                Terminal.error(
                    "pixelflow: \(first) takes no arguments, got \(arguments.dropFirst().joined(separator: " ")). Run `pixelflow --help`."
                )
                return ExitCode.usage
            }
            Terminal.output("pixelflow \(PixelFlow.version)")
            return ExitCode.success
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            let names = commands.map { $0.name }.joined(separator: ", ")
            Terminal.error("pixelflow: unknown command '\(first)'; the commands are: \(names). Run `pixelflow --help`.")
            return ExitCode.usage
        }
        do {
            return try command.run(Array(arguments.dropFirst()))
        } catch let error as CLIError {
            Terminal.error("pixelflow \(command.name): \(withHint(error, command: command.name))")
            return error.exitCode
        } catch {
            Terminal.error("pixelflow \(command.name): \(error)")
            return ExitCode.failure
        }
    }
}

extension PixelFlowTool {
    /// The error's message, with a pointer to the command's help appended to a usage error
    /// that does not already say what to run, so every usage error ends with a next step.
    static func withHint(_ error: CLIError, command: String) -> String {
        let message = error.description
        guard case .usage = error, !message.contains("`pixelflow") else { return message }
        let end = message.hasSuffix(".") ? "" : "."
        return message + end + " Run `pixelflow \(command) --help` for its usage."
    }
}

let status = PixelFlowTool.dispatch(Array(CommandLine.arguments.dropFirst()))
PeakMemory.reportIfAsked()
exit(status)
