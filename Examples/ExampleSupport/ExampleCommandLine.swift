import Foundation
import PixelFlow

/// The small command line every example shares: positional arguments, `--name value`
/// options (repeatable, also `--name=value`), flags, and `--help`.
///
/// ```swift
/// let args = ExampleCommandLine(usage: usage, valueOptions: ["--out", "--filter"], flags: ["--list"])
/// let out = args.value("--out") ?? "example-output/ImagePlayground"
/// for spec in args.values("--filter") { ... }
/// ```
///
/// A malformed command line prints the problem and the usage on standard error and exits
/// with status 2; `--help` prints the usage and exits with 0.
public struct ExampleCommandLine {
    public private(set) var positionals: [String] = []
    private var options: [String: [String]] = [:]
    private var flags: Set<String> = []
    public let usage: String

    /// Parses `CommandLine.arguments` (or `arguments`, without the program name).
    public init(
        usage: String, valueOptions: Set<String>, flags knownFlags: Set<String> = [],
        arguments: [String] = Array(CommandLine.arguments.dropFirst())
    ) {
        self.usage = usage
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if arg == "--help" || arg == "-h" {
                print(usage)
                exit(0)
            }
            guard arg.hasPrefix("--") else {
                positionals.append(arg)
                continue
            }
            var name = arg
            var inline: String?
            if let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            if valueOptions.contains(name) {
                if let inline {
                    options[name, default: []].append(inline)
                } else if i < arguments.count {
                    options[name, default: []].append(arguments[i])
                    i += 1
                } else {
                    ExampleCommandLine.usageError("\(name) needs a value", usage: usage)
                }
            } else if knownFlags.contains(name), inline == nil {
                flags.insert(name)
            } else {
                let known = (valueOptions.union(knownFlags)).sorted().joined(separator: ", ")
                ExampleCommandLine.usageError("unknown option '\(name)' (the options are \(known), --help)", usage: usage)
            }
        }
    }

    /// Every value given to `name`, in order.
    public func values(_ name: String) -> [String] { options[name] ?? [] }
    /// The last value given to `name`, or nil.
    public func value(_ name: String) -> String? { options[name]?.last }
    /// True when the flag was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value of `name` as a whole number in `range`, or `defaultValue` when absent;
    /// exits with a usage error for anything else.
    public func integer(_ name: String, in range: ClosedRange<Int>, default defaultValue: Int) -> Int {
        guard let text = value(name) else { return defaultValue }
        guard let n = Int(text), range.contains(n) else {
            ExampleCommandLine.usageError(
                "\(name) needs a whole number in \(range.lowerBound)...\(range.upperBound), got '\(text)'", usage: usage)
        }
        return n
    }

    /// Prints `message` and where to find the usage to standard error and exits with
    /// status 2 (the convention for a wrong command line).
    public static func usageError(_ message: String, usage: String) -> Never {
        printError("\(programName): \(message)\nRun `\(programName) --help` for the usage.")
        exit(2)
    }

    /// The value of `name` as `WxH` with sides in `range`, or `defaultValue` when absent;
    /// exits with a usage error for anything else.
    public func size(_ name: String, in range: ClosedRange<Int> = 8...8192, default defaultValue: (Int, Int)) -> (
        width: Int, height: Int
    ) {
        guard let text = value(name) else { return defaultValue }
        let parts = text.split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, range.contains(parts[0]), range.contains(parts[1]) else {
            ExampleCommandLine.usageError(
                "\(name) needs WxH with sides in \(range.lowerBound)...\(range.upperBound), such as 480x320; got '\(text)'",
                usage: usage)
        }
        return (parts[0], parts[1])
    }
}

/// The name the example was started as (`ImagePlayground`).
public var programName: String {
    (CommandLine.arguments.first ?? "example").split(separator: "/").last.map(String.init) ?? "example"
}

/// Writes `text` and a newline to standard error.
public func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// Runs `body`; a thrown error is printed as `Program: error` and exits with status 1.
public func runExample(_ body: () throws -> Void) -> Never {
    do {
        try body()
        exit(0)
    } catch {
        printError("\(programName): \(error)")
        exit(1)
    }
}

/// An error with a message a user can act on.
public struct ExampleError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Creates the folder `path` (and its parents) if it does not exist.
///
/// - Throws: `ExampleError` naming the folder when it cannot be created.
public func makeOutputFolder(_ path: String) throws {
    do {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
        throw ExampleError("cannot create the output folder '\(path)': \(error.localizedDescription)")
    }
}

/// `folder/name`.
public func outputPath(_ folder: String, _ name: String) -> String {
    folder.hasSuffix("/") ? folder + name : folder + "/" + name
}

/// Reads the image file at `path` (PNG, JPEG, PNM or BMP).
///
/// - Throws: `ExampleError` saying the file does not exist, or the decoder's `PixelFlowError`.
public func loadImage(_ path: String) throws -> PixelBuffer {
    guard FileManager.default.fileExists(atPath: path) else {
        throw ExampleError(
            "\(path): no such file; give the path of a PNG, JPEG, PNM or BMP image, or no path for the built-in one")
    }
    return try PixelBuffer(contentsOfFile: path)
}

/// A duration in milliseconds with one decimal, such as `12.3 ms`.
public func milliseconds(_ d: Duration) -> String {
    let c = d.components
    return String(format: "%.1f ms", Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15)
}

/// A duration in seconds as a `Double`.
public func seconds(_ d: Duration) -> Double {
    let c = d.components
    return Double(c.seconds) + Double(c.attoseconds) / 1e18
}

/// SplitMix64: a tiny seeded random number generator, so a seed gives the same choices on
/// every machine and run (Swift's `SystemRandomNumberGenerator` cannot be seeded).
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
