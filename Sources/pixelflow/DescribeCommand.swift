import PixelFlow

/// `pixelflow describe`: prints one filter's metadata, from its descriptor.
///
/// ```
/// pixelflow describe NAME [--json]
/// ```
enum DescribeCommand: Subcommand {
    static let name = "describe"
    static let summary = "show a filter's inputs: types, defaults, ranges"

    static let options: [Arguments.Option] = [.flag("--json"), .flag("--help", "-h")]

    static var help: String {
        """
        Usage: pixelflow describe NAME [--json]

        Prints what the filter NAME does, its categories and, for each input, its key, type,
        class, default, identity, min, max and slider range, and what it means. NAME is Core
        Image's name with or without `CI` (CISepiaTone, SepiaTone); `pixelflow filters` lists
        the names.

        Min and max are hard limits: `pixelflow apply` rejects values outside them. The slider
        range is what a user interface offers. The identity is the value for which the input
        leaves the image unchanged.

        Options:
              --json    Print one JSON object: "name", "displayName", "summary", "categories"
                        and "inputs", an array of objects with "key", "displayName", "type",
                        "class", "default", "identity", "min", "max", "sliderMin",
                        "sliderMax" and "summary" (null where the input has none; vectors,
                        colors and transforms as arrays of numbers).
          -h, --help    Show this help.

        Examples:
          pixelflow describe CISepiaTone
          pixelflow describe GaussianBlur --json

        Exit status: 0 on success, 2 for a usage error (unknown option or filter).
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: options)
        if args.flag("--help") {
            Terminal.output(help)
            return ExitCode.success
        }
        guard args.positionals.count == 1, let wanted = args.positionals.first else {
            throw CLIError.usage(
                args.positionals.isEmpty
                    ? "describe needs a filter name, as in `pixelflow describe CISepiaTone`; `pixelflow filters` lists them"
                    : "describe takes one filter name, got \(args.positionals.count): \(args.positionals.joined(separator: " "))")
        }
        guard let d = FilterRegistry.descriptor(named: wanted) else {
            var message = "unknown filter '\(wanted)'"
            let near = FilterStep.suggestions(for: wanted)
            if !near.isEmpty { message += "; did you mean \(near.joined(separator: " or "))?" }
            throw CLIError.usage(message + " Run `pixelflow filters` to list the filters.")
        }
        Terminal.output(args.flag("--json") ? json(d) : text(d))
        return ExitCode.success
    }

    /// The short name of an attribute type (`CIAttributeTypeDistance` -> `Distance`).
    static func typeName(_ input: FilterInput) -> String? {
        input.attributeType.map { String($0.rawValue.dropFirst("CIAttributeType".count)) }
    }

    /// The human-readable description.
    static func text(_ d: FilterDescriptor) -> String {
        var lines = [
            "\(d.name): \(d.displayName)", d.summary,
            "Categories: " + d.categories.map(\.shortName).joined(separator: ", "), "",
        ]
        lines.append(d.inputs.isEmpty ? "Inputs: none" : "Inputs:")
        for input in d.inputs {
            let kind = [typeName(input), input.valueClass.rawValue].compactMap { $0 }.joined(separator: ", ")
            lines.append(
                "  \(input.key) (\(kind))" + (input.valueClass == .image && input.defaultValue == nil ? ", required" : ""))
            lines.append("      " + input.summary)
            var facts: [String] = []
            if let v = input.defaultValue { facts.append("default \(shown(v))") }
            if let v = input.identity { facts.append("identity \(shown(v))") }
            if let v = input.minimum { facts.append("min \(JSONText.number(v))") }
            if let v = input.maximum { facts.append("max \(JSONText.number(v))") }
            if input.sliderMinimum != nil || input.sliderMaximum != nil {
                let lo = input.sliderMinimum.map { JSONText.number($0) } ?? ""
                let hi = input.sliderMaximum.map { JSONText.number($0) } ?? ""
                facts.append("slider \(lo)...\(hi)")
            }
            if let n = input.componentCount, input.valueClass == .vector { facts.append("\(n) components") }
            if !facts.isEmpty { lines.append("      " + facts.joined(separator: ", ")) }
        }
        lines.append("")
        lines.append("Example:")
        let assignment = exampleAssignment(d)
        lines.append("  pixelflow apply in.png out.png --filter '\(d.name)\(assignment.isEmpty ? "" : " " + assignment)'")
        return lines.joined(separator: "\n")
    }

    /// A value as text: data as its UTF-8 text in quotes when it is text, others as
    /// `pixelflow apply` reads them.
    static func shown(_ v: FilterValue) -> String {
        if case let .data(bytes) = v, let text = utf8(bytes) { return "\"" + text + "\"" }
        return v.description
    }

    /// `bytes` as a string when they are valid UTF-8.
    static func utf8(_ bytes: [UInt8]) -> String? {
        let text = String(decoding: bytes, as: UTF8.self)
        return Array(text.utf8) == bytes ? text : nil
    }

    /// `key=value` for the filter's first input that is not an image, for the example line:
    /// its default, or a sample message for data inputs.
    static func exampleAssignment(_ d: FilterDescriptor) -> String {
        guard let input = d.inputs.first(where: { $0.valueClass != .image }) else { return "" }
        switch input.defaultValue {
        case nil, .data?: return "\(input.key)=Hello"
        case let v?: return "\(input.key)=\(v)"
        }
    }

    /// The JSON object.
    static func json(_ d: FilterDescriptor) -> String {
        let inputs = d.inputs.map { i in
            JSONText.object([
                ("key", JSONText.string(i.key)),
                ("displayName", JSONText.string(i.displayName)),
                ("type", i.attributeType.map { JSONText.string($0.rawValue) } ?? "null"),
                ("class", JSONText.string(i.valueClass.rawValue)),
                ("default", JSONText.value(i.defaultValue)),
                ("identity", JSONText.value(i.identity)),
                ("min", JSONText.number(i.minimum)),
                ("max", JSONText.number(i.maximum)),
                ("sliderMin", JSONText.number(i.sliderMinimum)),
                ("sliderMax", JSONText.number(i.sliderMaximum)),
                ("summary", JSONText.string(i.summary)),
            ])
        }
        return JSONText.object([
            ("name", JSONText.string(d.name)),
            ("displayName", JSONText.string(d.displayName)),
            ("summary", JSONText.string(d.summary)),
            ("categories", JSONText.array(d.categories.map { JSONText.string($0.rawValue) })),
            ("inputs", JSONText.lines(inputs)),
        ])
    }
}
