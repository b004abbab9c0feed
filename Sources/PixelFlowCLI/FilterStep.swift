import PixelFlow

/// One filter of a chain given on the command line as `--filter 'NAME key=value ...'`.
///
/// ```swift
/// var step = try FilterStep(parsing: "SepiaTone inputIntensity=0.8")
/// step.descriptor.name         // "CISepiaTone"
/// let out = try step.apply(to: image)
/// ```
///
/// The name is looked up with `FilterRegistry.descriptor(named:)`, so `CISepiaTone` and
/// `SepiaTone` both work; a key may omit its `input` prefix (`intensity=0.8`). Each value is
/// parsed according to the input's value class (see `FilterValueParser`). Image inputs other
/// than `inputImage` (the background of a composite) name a file, loaded by `loadImages`.
public struct FilterStep: Sendable {
    /// The filter.
    public let descriptor: FilterDescriptor
    /// The values given on the command line, by key; image inputs appear once loaded.
    public private(set) var values: [String: FilterValue] = [:]
    /// The files named by image inputs, by key.
    public private(set) var imagePaths: [String: String] = [:]
    /// The text this step was parsed from, for messages.
    public let spec: String

    /// Parses one `--filter` value.
    ///
    /// - Throws: `CLIError.usage` for an empty spec, an unknown filter or key, a word that is
    ///   not `key=value`, or a value that does not parse or is out of the input's range.
    public init(parsing spec: String) throws {
        self.spec = spec
        let words = try FilterStep.words(of: spec)
        guard let name = words.first else {
            throw CLIError.usage(
                "--filter needs a filter name, as in --filter 'CISepiaTone inputIntensity=0.8'; `pixelflow filters` lists them")
        }
        guard let descriptor = FilterRegistry.descriptor(named: name) else {
            var message = "unknown filter '\(name)'"
            let near = FilterStep.suggestions(for: name)
            if !near.isEmpty { message += "; did you mean \(near.joined(separator: " or "))?" }
            message += " Run `pixelflow filters` to list the filters."
            throw CLIError.usage(message)
        }
        self.descriptor = descriptor
        for word in words.dropFirst() {
            guard let eq = word.firstIndex(of: "="), eq != word.startIndex else {
                throw CLIError.usage(
                    "\(descriptor.name): '\(word)' is not key=value; write for example "
                        + "--filter '\(descriptor.name) \(FilterStep.exampleAssignment(descriptor))'. \(hint)")
            }
            let rawKey = String(word[..<eq])
            let text = String(word[word.index(after: eq)...])
            let input = try resolveInput(rawKey)
            if input.valueClass == .image {
                guard !text.isEmpty, text != "-" else {
                    throw CLIError.usage("\(descriptor.name): \(input.key) needs the path of an image file. \(hint)")
                }
                imagePaths[input.key] = text
            } else {
                values[input.key] = try FilterValueParser.parse(text, for: input, filter: descriptor.name, hint: hint)
            }
        }
        for input in descriptor.inputs where input.valueClass == .image && input.key != "inputImage" {
            if imagePaths[input.key] == nil && input.defaultValue == nil {
                var what = input.summary.prefix(1).lowercased() + input.summary.dropFirst()
                if what.hasSuffix(".") { what.removeLast() }
                throw CLIError.usage("\(descriptor.name) needs \(input.key)=PATH, the file of \(what). \(hint)")
            }
        }
    }

    /// The advice appended to usage errors about this filter.
    public var hint: String {
        "Run `pixelflow describe \(descriptor.name)` for its inputs, or `pixelflow filters` for the filter names."
    }

    /// The input `rawKey` names (`FilterDescriptor.input(matching:)`: the key itself, the key
    /// with `input` prepended, `intensity` -> `inputIntensity`, or a case-insensitive match).
    private func resolveInput(_ rawKey: String) throws -> FilterInput {
        let settable = descriptor.inputs.filter { $0.key != "inputImage" }
        guard let input = descriptor.input(matching: rawKey) else {
            let keys =
                settable.isEmpty ? "it has no settable inputs" : "its inputs are " + settable.map(\.key).joined(separator: ", ")
            throw CLIError.usage("\(descriptor.name) has no input '\(rawKey)'; \(keys). \(hint)")
        }
        if input.key == "inputImage" {
            throw CLIError.usage(
                "\(descriptor.name): inputImage is the image being filtered (the input file or the previous filter's output) and cannot be set"
            )
        }
        return input
    }

    /// Checks the values against the filter by building it on a 1x1 placeholder image, so
    /// that a value the filter rejects is reported before any file is read.
    ///
    /// - Throws: `CLIError.usage` for an `invalidParameter` error; other errors (which
    ///   depend on the real image) are left for the real run.
    public func validate() throws {
        let placeholder = Image(color: .clear).cropped(to: Rect(x: 0, y: 0, width: 1, height: 1))
        var inputs: [String: FilterValue?] = values.mapValues { $0 }
        for key in imagePaths.keys { inputs[key] = .image(placeholder) }
        if descriptor.input("inputImage") != nil { inputs["inputImage"] = .image(placeholder) }
        do {
            _ = try descriptor.apply(inputs)
        } catch let error as PixelFlowError {
            if case .invalidParameter = error { throw CLIError.usage("\(error). \(hint)") }
        }
    }

    /// Loads the files named by image inputs.
    ///
    /// - Throws: `CLIError.runtime` naming the file that could not be read or decoded.
    public mutating func loadImages(with load: (String) throws -> PixelBuffer) throws {
        for (key, path) in imagePaths.sorted(by: { $0.key < $1.key }) {
            values[key] = .image(Image(try load(path)))
        }
    }

    /// The filter applied to `image`, with the given values and defaults for the rest.
    ///
    /// - Throws: `PixelFlowError` from the filter.
    public func apply(to image: Image) throws -> Image {
        var inputs: [String: FilterValue?] = values.mapValues { $0 }
        if descriptor.input("inputImage") != nil { inputs["inputImage"] = .image(image) }
        return try descriptor.apply(inputs)
    }

    /// One line naming the filter and every input as key=value, defaults marked, for `--explain`.
    ///
    /// - Parameter source: what `inputImage` is (the input file or the previous step).
    public func explanation(source: String) -> String {
        var parts = [descriptor.name]
        for input in descriptor.inputs {
            if input.key == "inputImage" {
                parts.append("inputImage=<\(source)>")
            } else if let path = imagePaths[input.key] {
                parts.append("\(input.key)=\(path)")
            } else if let v = values[input.key] {
                parts.append("\(input.key)=\(v)")
            } else if let d = input.defaultValue {
                parts.append("\(input.key)=\(d) (default)")
            } else {
                parts.append("\(input.key)=<unset>")
            }
        }
        return parts.joined(separator: " ")
    }

    /// Splits a spec into words at whitespace, keeping `[...]`, `(...)` and quoted text together.
    public static func words(of spec: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var depth = 0
        var quote: Character?
        var inWord = false
        for ch in spec {
            if let q = quote {
                if ch == q { quote = nil } else { current.append(ch) }
                continue
            }
            switch ch {
            case "'", "\"":
                quote = ch
                inWord = true
            case "[", "(":
                depth += 1
                current.append(ch)
                inWord = true
            case "]", ")":
                depth -= 1
                current.append(ch)
            case _ where ch.isWhitespace && depth <= 0:
                if inWord { words.append(current) }
                current = ""
                inWord = false
                depth = 0
            default:
                current.append(ch)
                inWord = true
            }
        }
        if quote != nil { throw CLIError.usage("unbalanced quote in --filter '\(spec)'") }
        if depth > 0 { throw CLIError.usage("unbalanced bracket in --filter '\(spec)'") }
        if inWord { words.append(current) }
        return words
    }

    /// Filter names close to `name` (case-insensitive edit distance), at most three.
    public static func suggestions(for name: String) -> [String] {
        func bare(_ s: String) -> String {
            let l = s.lowercased()
            return l.hasPrefix("ci") || l.hasPrefix("pf") ? String(l.dropFirst(2)) : l
        }
        let wanted = bare(name)
        let limit = max(2, wanted.count / 3)
        var scored: [(name: String, distance: Int)] = []
        for d in FilterRegistry.all {
            let candidate = bare(d.name)
            let distance = editDistance(candidate, wanted)
            if distance <= limit || (wanted.count >= 3 && candidate.contains(wanted)) {
                scored.append((d.name, distance))
            }
        }
        scored.sort { ($0.distance, $0.name) < ($1.distance, $1.name) }
        return scored.prefix(3).map { $0.name }
    }

    /// An example `key=value` for the filter's first settable input.
    public static func exampleAssignment(_ d: FilterDescriptor) -> String {
        guard let input = d.inputs.first(where: { $0.valueClass != .image }) else { return "" }
        return "\(input.key)=\(input.defaultValue.map { "\($0)" } ?? "VALUE")"
    }
}

/// The Levenshtein distance between two strings.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
