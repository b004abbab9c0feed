/// Everything about one filter, declared once: its Core Image name, display name,
/// description, categories, inputs, and how it builds its output node.
///
/// The registry, `Filter(named:)`, typed methods on `Image`, validation, the command line and
/// Docs/Filters.md all derive from descriptors.
public struct FilterDescriptor: Sendable {
    /// Core Image's name, such as `CISepiaTone`.
    public let name: String
    /// The name a user interface shows, such as `Sepia Tone`.
    public let displayName: String
    /// One line saying what the filter does.
    public let summary: String
    /// The categories the filter belongs to; always includes ``FilterCategory/builtIn``,
    /// ``FilterCategory/stillImage`` and ``FilterCategory/video``.
    public let categories: [FilterCategory]
    /// The filter's inputs, in declaration order.
    public let inputs: [FilterInput]
    let build: @Sendable (FilterArguments) throws -> Image

    /// Declares a filter.
    ///
    /// - Parameters:
    ///   - name: Core Image's name, such as `CISepiaTone`.
    ///   - displayName: The name a user interface shows.
    ///   - summary: One line saying what the filter does.
    ///   - categories: Its categories; ``FilterCategory/builtIn``, ``FilterCategory/stillImage``
    ///     and ``FilterCategory/video`` are added when missing.
    ///   - inputs: Its inputs, in the order they are listed and documented.
    ///   - build: Makes the output image from validated arguments; called only after every input
    ///     was checked against its ``FilterInput`` (class, range, component count).
    public init(
        name: String, displayName: String, summary: String, categories: [FilterCategory],
        inputs: [FilterInput], build: @escaping @Sendable (FilterArguments) throws -> Image
    ) {
        self.name = name
        self.displayName = displayName
        self.summary = summary
        var cats = categories
        for c in [FilterCategory.builtIn, .stillImage, .video] where !cats.contains(c) { cats.append(c) }
        self.categories = cats
        self.inputs = inputs
        self.build = build
    }

    /// The input keys in declaration order.
    public var inputKeys: [String] { inputs.map(\.key) }

    /// The input with `key`, if any.
    public func input(_ key: String) -> FilterInput? { inputs.first { $0.key == key } }

    /// The input that `key` names as ported code or the command line writes it: the key
    /// itself (`inputIntensity`), the key without its `input` prefix (`intensity`,
    /// `Intensity`), or either spelled in another case (`INPUTINTENSITY`); nil when none.
    ///
    /// `Image.applyingFilter(_:parameters:)` and `pixelflow apply --filter` resolve keys
    /// with it, so both accept the same spellings.
    public func input(matching key: String) -> FilterInput? {
        if let exact = input(key) { return exact }
        if let prefixed = input("input" + key.prefix(1).uppercased() + key.dropFirst()) { return prefixed }
        let lower = key.lowercased()
        return inputs.first { $0.key.lowercased() == lower || $0.key.lowercased() == "input" + lower }
    }

    /// Builds the filter's output from `values`; missing inputs take their defaults.
    ///
    /// - Throws: `PixelFlowError.invalidParameter` naming the key for a missing image, a
    ///   value of the wrong class, a NaN or infinite number, or one outside min/max;
    ///   `.unknownFilter`-style errors for keys the filter does not have.
    public func apply(_ values: [String: FilterValue?]) throws -> Image {
        var resolved: [String: FilterValue] = [:]
        for (k, v) in values {
            guard let v else { continue }
            guard input(k) != nil else {
                throw PixelFlowError.invalidParameter(
                    filter: name, key: k,
                    reason: "is not an input of \(name); its inputs are \(inputKeys.joined(separator: ", "))")
            }
            resolved[k] = v
        }
        for inp in inputs {
            if let v = resolved[inp.key] {
                resolved[inp.key] = try validate(v, for: inp)
            } else if let d = inp.defaultValue {
                resolved[inp.key] = d
            } else if inp.isOptional {
                continue
            } else {
                throw PixelFlowError.invalidParameter(
                    filter: name, key: inp.key, reason: "is required (\(inp.valueClass.rawValue))")
            }
        }
        return try build(FilterArguments(filter: name, values: resolved))
    }

    /// Checks one value against its input's class and ranges, converting where Core Image
    /// would (a number given for a boolean, a 4-vector for a color).
    func validate(_ value: FilterValue, for inp: FilterInput) throws -> FilterValue {
        func fail(_ reason: String) -> PixelFlowError { .invalidParameter(filter: name, key: inp.key, reason: reason) }
        var v = value
        switch (inp.valueClass, value) {
        case (.number, .boolean(let b)): v = .number(b ? 1 : 0)
        case (.color, .vector(let c)) where c.count == 3 || c.count == 4:
            v = .color(Color(red: c[0], green: c[1], blue: c[2], alpha: c.count == 4 ? c[3] : 1))
        case (.vector, .number(let n)) where inp.componentCount == 1: v = .vector([n])
        case (.transform, .vector(let t)) where t.count == 6:
            v = .transform(AffineTransform(a: t[0], b: t[1], c: t[2], d: t[3], tx: t[4], ty: t[5]))
        case (.data, .string(let s)): v = .data(Array(s.utf8))
        default: break
        }
        guard v.valueClass == inp.valueClass else {
            throw fail("must be a \(inp.valueClass.rawValue), got a \(value.valueClass.rawValue) (\(value))")
        }
        switch v {
        case let .number(n):
            guard n.isFinite else { throw fail("must be a finite number, got \(n)") }
            if let lo = inp.minimum, n < lo { throw fail("must be at least \(lo), got \(n)") }
            if let hi = inp.maximum, n > hi { throw fail("must be at most \(hi), got \(n)") }
            if inp.attributeType == .integer || inp.attributeType == .count, n != n.rounded() {
                throw fail("must be a whole number, got \(n)")
            }
        case let .vector(c):
            guard c.allSatisfy(\.isFinite) else { throw fail("must have finite components, got \(v)") }
            if let k = inp.componentCount, c.count != k { throw fail("must have \(k) components, got \(c.count)") }
            if inp.attributeType == .rectangle, c.count == 4, c[2] < 0 || c[3] < 0 {
                throw fail("must have a non-negative width and height, got \(v)")
            }
        case let .color(c):
            guard c.isFinite else { throw fail("must have finite components, got \(c)") }
        case let .transform(t):
            guard t.isFinite else { throw fail("must be finite, got \(t)") }
        default: break
        }
        return v
    }
}

/// Validated inputs handed to a descriptor's builder: every declared key is present.
public struct FilterArguments: Sendable {
    /// The name of the filter the arguments are for, used in error messages.
    public let filter: String
    let values: [String: FilterValue]

    func fail(_ key: String, _ reason: String) -> PixelFlowError { .invalidParameter(filter: filter, key: key, reason: reason) }

    /// The image given for an optional input, or nil.
    public func optionalImage(_ key: String) -> Image? {
        if case let .image(i)? = values[key] { return i }
        return nil
    }

    /// The image given for `key`.
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not an image.
    public func image(_ key: String = "inputImage") throws -> Image {
        guard case let .image(i)? = values[key] else { throw fail(key, "must be an image") }
        return i
    }
    /// The number given for `key`.
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not a number.
    public func number(_ key: String) throws -> Double {
        guard case let .number(n)? = values[key] else { throw fail(key, "must be a number") }
        return n
    }
    /// The number given for `key`, rounded to `Float`.
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not a number.
    public func float(_ key: String) throws -> Float { Float(try number(key)) }
    /// The vector given for `key`.
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not a vector.
    public func vector(_ key: String) throws -> [Double] {
        guard case let .vector(v)? = values[key] else { throw fail(key, "must be a vector") }
        return v
    }
    /// The colour given for `key`.
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not a colour.
    public func color(_ key: String) throws -> Color {
        guard case let .color(c)? = values[key] else { throw fail(key, "must be a color") }
        return c
    }
    /// The affine transform given for `key`.
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not a
    ///   transform.
    public func transform(_ key: String) throws -> AffineTransform {
        guard case let .transform(t)? = values[key] else { throw fail(key, "must be a transform") }
        return t
    }
    /// The string given for `key`.
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not a string.
    public func string(_ key: String) throws -> String {
        guard case let .string(s)? = values[key] else { throw fail(key, "must be a string") }
        return s
    }
    /// The bytes given for `key`.
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not data.
    public func data(_ key: String) throws -> [UInt8] {
        guard case let .data(d)? = values[key] else { throw fail(key, "must be data") }
        return d
    }
    /// The 4-vector given for `key`, as `Float`s (a colour-matrix row, a rect).
    ///
    /// - Throws: ``PixelFlowError/invalidParameter(filter:key:reason:)`` when the value is not a
    ///   vector of exactly 4 components.
    public func simd4(_ key: String) throws -> SIMD4<Float> {
        let v = try vector(key)
        guard v.count == 4 else { throw fail(key, "must have 4 components") }
        return SIMD4(Float(v[0]), Float(v[1]), Float(v[2]), Float(v[3]))
    }
}
