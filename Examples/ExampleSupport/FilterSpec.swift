import PixelFlow

/// A filter named on the command line with some of its inputs: `'CISepiaTone inputIntensity=0.8'`.
///
/// The name is Core Image's, with or without `CI`; a key may drop its `input` prefix
/// (`intensity=0.8`). Values are read by the input's class, from the filter's metadata:
/// numbers (`0.8`, `true`), vectors (`[10 20]` or `10,20`), colors (`#ff8000`, `[1 0.5 0]`),
/// transforms (`[a b c d tx ty]`). Nothing is checked against ranges here: the filter checks
/// its values when it is applied and throws a `PixelFlowError` naming the key.
public struct FilterSpec {
    public var descriptor: FilterDescriptor
    /// The inputs given, by their full keys.
    public var values: [String: FilterValue]

    /// Parses `spec`.
    ///
    /// - Throws: `ExampleError` for an unknown filter (with near names), an unknown key or
    ///   a value that does not parse.
    public init(parsing spec: String) throws {
        let words = spec.split(separator: " ").map(String.init)
        guard let name = words.first else {
            throw ExampleError("an empty filter; write for example 'CISepiaTone inputIntensity=0.8'")
        }
        guard let descriptor = FilterRegistry.descriptor(named: name) else {
            let near = FilterRegistry.all.map(\.name).filter { $0.lowercased().contains(name.lowercased().replacingCIPrefix) }
            let hint = near.isEmpty ? "" : " (did you mean \(near.prefix(3).joined(separator: ", "))?)"
            throw ExampleError(
                "unknown filter '\(name)'\(hint); `swift run ImagePlayground --list` or `pixelflow filters` lists them")
        }
        self.descriptor = descriptor
        values = [:]
        for word in words.dropFirst() {
            guard let eq = word.firstIndex(of: "=") else {
                throw ExampleError("\(descriptor.name): '\(word)' is not key=value")
            }
            let rawKey = String(word[..<eq]), text = String(word[word.index(after: eq)...])
            let key = descriptor.input(rawKey) != nil ? rawKey : "input" + rawKey.prefix(1).uppercased() + rawKey.dropFirst()
            guard let input = descriptor.input(key) else {
                throw ExampleError(
                    "\(descriptor.name) has no input '\(rawKey)'; its inputs are \(descriptor.inputKeys.joined(separator: ", "))")
            }
            guard let value = FilterSpec.value(text, for: input) else {
                throw ExampleError("\(descriptor.name): cannot read '\(text)' as a \(input.valueClass.rawValue) for \(input.key)")
            }
            values[key] = value
        }
    }

    /// `text` read as a value of `input`'s class, or nil.
    public static func value(_ text: String, for input: FilterInput) -> FilterValue? {
        let numbers = text.trimming("[]()").split { $0 == " " || $0 == "," }.compactMap { Double($0) }
        switch input.valueClass {
        case .number:
            switch text.lowercased() {
            case "true", "yes": return .number(1)
            case "false", "no": return .number(0)
            default: return Double(text).map(FilterValue.number)
            }
        case .vector:
            return numbers.isEmpty ? nil : .vector(numbers)
        case .color:
            if text.hasPrefix("#"), text.count == 7 || text.count == 9, let v = UInt32(text.dropFirst(), radix: 16) {
                let rgba = text.count == 7 ? v << 8 | 0xFF : v
                func c(_ shift: UInt32) -> Double { Double((rgba >> shift) & 0xFF) / 255 }
                return .color(Color(red: c(24), green: c(16), blue: c(8), alpha: c(0)))
            }
            guard numbers.count == 3 || numbers.count == 4 else { return nil }
            return .color(Color(red: numbers[0], green: numbers[1], blue: numbers[2], alpha: numbers.count == 4 ? numbers[3] : 1))
        case .transform:
            guard numbers.count == 6 else { return nil }
            return .transform(
                AffineTransform(a: numbers[0], b: numbers[1], c: numbers[2], d: numbers[3], tx: numbers[4], ty: numbers[5]))
        case .string:
            return .string(text)
        case .data:
            return .data(Array(text.utf8))
        case .image, .barcodeDescriptor, .attributedString:
            return nil
        }
    }
}

extension String {
    /// The string without a leading `ci` (lower case), for loose name matching.
    fileprivate var replacingCIPrefix: String { hasPrefix("ci") ? String(dropFirst(2)) : self }

    /// The string without the given characters at either end.
    fileprivate func trimming(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

extension Image {
    /// The image made finite for writing: cropped to `frame` when its extent is infinite or
    /// larger than `frame` (a blur's grown edges, a generator), unchanged otherwise.
    public func croppedForOutput(to frame: Rect) -> Image {
        let e = extent
        if e.isInfinite || e.minX < frame.minX || e.minY < frame.minY || e.maxX > frame.maxX || e.maxY > frame.maxY {
            return cropped(to: frame)
        }
        return self
    }
}
