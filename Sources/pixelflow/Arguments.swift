/// The command line of one subcommand, split into options and positional arguments.
///
/// Options are declared up front; each is a flag (`--explain`) or takes a value
/// (`--threads 4` or `--threads=4`) and may be repeated (`--filter A --filter B`, kept in
/// order). A lone `-` is a positional (standard input or output); `--` ends the options.
///
/// ```swift
/// let args = try Arguments(["in.png", "out.png", "--threads", "2"],
///                          options: [.value("--threads"), .flag("--help", "-h")])
/// args.positionals          // ["in.png", "out.png"]
/// try args.integer("--threads", in: 1...1024)   // 2
/// ```
struct Arguments {
    /// One declared option: its names (the first is canonical) and whether it takes a value.
    struct Option {
        var names: [String]
        var takesValue: Bool

        static func flag(_ names: String...) -> Option { Option(names: names, takesValue: false) }
        static func value(_ names: String...) -> Option { Option(names: names, takesValue: true) }

        var canonicalName: String { names[0] }
    }

    /// Arguments that are not options, in order.
    private(set) var positionals: [String] = []
    /// Values of each value option, keyed by canonical name, in order of appearance.
    private var values: [String: [String]] = [:]
    /// Canonical names of the flags that were given.
    private var flags: Set<String> = []

    /// Splits `arguments` according to `options`.
    ///
    /// - Throws: `CLIError.usage` for an undeclared option, a missing value, or a value
    ///   given to a flag.
    init(_ arguments: [String], options: [Option]) throws {
        var byName: [String: Option] = [:]
        for o in options { for n in o.names { byName[n] = o } }
        var i = 0
        var optionsEnded = false
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            if optionsEnded || arg == "-" || !arg.hasPrefix("-") {
                positionals.append(arg)
                continue
            }
            if arg == "--" {
                optionsEnded = true
                continue
            }
            var name = arg
            var inlineValue: String?
            if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") {
                name = String(arg[..<eq])
                inlineValue = String(arg[arg.index(after: eq)...])
            }
            guard let option = byName[name] else {
                if Double(arg) != nil {
                    // A negative number where a positional is expected, e.g. a file named -1.
                    positionals.append(arg)
                    continue
                }
                let known = options.map(\.canonicalName).joined(separator: ", ")
                let near = options.flatMap(\.names).filter { $0.count > 2 }
                    .map { ($0, editDistance($0, name)) }.filter { $0.1 <= 2 }
                    .min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
                let guess = near.map { "did you mean \($0)? " } ?? ""
                throw CLIError.usage("unknown option '\(name)'; \(guess)the options are \(known)")
            }
            if option.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard i < arguments.count else {
                        throw CLIError.usage("option '\(name)' needs a value")
                    }
                    value = arguments[i]
                    i += 1
                }
                values[option.canonicalName, default: []].append(value)
            } else {
                if inlineValue != nil { throw CLIError.usage("option '\(name)' does not take a value") }
                flags.insert(option.canonicalName)
            }
        }
    }

    /// True when the flag named `name` (its canonical name) was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Every value of a repeatable option, in order.
    func values(_ name: String) -> [String] { values[name] ?? [] }

    /// The value of an option given at most once; nil when absent.
    ///
    /// - Throws: `CLIError.usage` when the option was given more than once.
    func value(_ name: String) throws -> String? {
        let v = values(name)
        if v.count > 1 { throw CLIError.usage("option '\(name)' may be given only once") }
        return v.first
    }

    /// The value of an option as an integer in `range`; nil when absent.
    ///
    /// - Throws: `CLIError.usage` naming the option when the value is not a whole number in range.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = try value(name) else { return nil }
        guard let n = Int(text), range.contains(n) else {
            throw CLIError.usage(
                "option '\(name)' needs a whole number in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return n
    }
}
