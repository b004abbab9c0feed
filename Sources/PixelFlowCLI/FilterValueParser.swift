import PixelFlow

/// Parses the text of a `key=value` into the `FilterValue` an input takes, chosen by the
/// input's value class.
///
/// | class | accepted text |
/// |---|---|
/// | number | `0.8`, `-2`, `1e-3`; `true`/`yes` (1), `false`/`no` (0) |
/// | vector | `[x y z]`, `x,y,z`, `(x, y)`; one number for a one-component vector |
/// | color | 3 or 4 numbers in 0...1 as a vector, or `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa` |
/// | transform | 6 numbers `[a b c d tx ty]`, mapping (x, y) to (a x + c y + tx, b x + d y + ty) |
/// | string | the text as is |
/// | data | the text's UTF-8 bytes, or `hex:` and two hexadecimal digits a byte (`hex:00ff1b`) |
/// | attributed string | plain text, in `HelveticaNeue` 12, black (styles need `StyledText`) |
///
/// Numbers must be finite and within the input's minimum and maximum; vectors must have the
/// input's component count.
public enum FilterValueParser {
    /// Parses `text` for `input` of `filter`.
    ///
    /// - Throws: `CLIError.usage` naming the filter and key, saying what was expected, and
    ///   ending with `hint`.
    public static func parse(_ text: String, for input: FilterInput, filter: String, hint: String) throws -> FilterValue {
        func fail(_ reason: String) -> CLIError {
            .usage("\(filter): \(input.key) \(reason), got '\(text)'. \(hint)")
        }
        switch input.valueClass {
        case .number:
            let n: Double
            if let b = boolean(text) {
                n = b ? 1 : 0
            } else if let v = number(text) {
                n = v
            } else {
                throw fail(input.attributeType == .boolean ? "must be true or false" : "must be a number" + rangeNote(input))
            }
            guard n.isFinite else { throw fail("must be a finite number" + rangeNote(input)) }
            if let lo = input.minimum, let hi = input.maximum, n < lo || n > hi {
                throw fail("must be in \(format(lo))...\(format(hi))")
            }
            if let lo = input.minimum, n < lo { throw fail("must be at least \(format(lo))") }
            if let hi = input.maximum, n > hi { throw fail("must be at most \(format(hi))") }
            if input.attributeType == .integer || input.attributeType == .count, n != n.rounded() {
                throw fail("must be a whole number")
            }
            return .number(n)
        case .vector:
            guard let v = numbers(text) else { throw fail("must be a vector of numbers such as '[1 0 0]' or '1,0,0'") }
            guard v.allSatisfy(\.isFinite) else { throw fail("must have finite components") }
            if let k = input.componentCount, v.count != k {
                throw fail("must have \(k) component\(k == 1 ? "" : "s")")
            }
            return .vector(v)
        case .color:
            if text.hasPrefix("#") {
                guard let c = hexColor(text) else { throw fail("must be a color: #rrggbb, #rrggbbaa or 3-4 numbers in 0...1") }
                return .color(c)
            }
            guard let v = numbers(text), v.count == 3 || v.count == 4 else {
                throw fail("must be a color: 3 or 4 numbers in 0...1 such as '[1 0.5 0]', or #rrggbb[aa]")
            }
            guard v.allSatisfy(\.isFinite) else { throw fail("must have finite components") }
            return .color(Color(red: v[0], green: v[1], blue: v[2], alpha: v.count == 4 ? v[3] : 1))
        case .transform:
            guard let v = numbers(text), v.count == 6 else {
                throw fail("must be an affine transform of 6 numbers '[a b c d tx ty]'")
            }
            guard v.allSatisfy(\.isFinite) else { throw fail("must have finite components") }
            return .transform(AffineTransform(a: v[0], b: v[1], c: v[2], d: v[3], tx: v[4], ty: v[5]))
        case .string:
            return .string(text)
        case .data:
            guard text.hasPrefix("hex:") else { return .data(Array(text.utf8)) }
            guard let bytes = hexBytes(text.dropFirst(4)) else {
                throw fail("after hex: must have two hexadecimal digits per byte, as in hex:0941ff")
            }
            return .data(bytes)
        case .image:
            throw fail("is an image; give the path of an image file")
        case .barcodeDescriptor:
            throw fail("is a barcode descriptor, which the command line cannot give; use the Swift API (Image.barcode(_:))")
        case .attributedString:
            // Plain text in NSAttributedString's default attributes (Helvetica 12, black),
            // with Core Image's HelveticaNeue for the font; styles need the Swift API.
            do {
                return .styledText(StyledText(text, style: TextStyle(font: try Font(name: Font.defaultName, size: 12))))
            } catch {
                throw fail("needs a font: \(error)")
            }
        }
    }

    /// The bytes of `text`, two hexadecimal digits each; nil for an odd count or another
    /// character.
    public static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = 0
        while i < digits.count {
            guard let hi = hexDigit(digits[i]), let lo = hexDigit(digits[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// ` in MIN...MAX` (or ` of at least MIN`, ` of at most MAX`) from the input's metadata,
    /// for messages about a value that is not a usable number; empty when it is unbounded.
    static func rangeNote(_ input: FilterInput) -> String {
        switch (input.minimum, input.maximum) {
        case let (lo?, hi?): return " in \(format(lo))...\(format(hi))"
        case let (lo?, nil): return " of at least \(format(lo))"
        case let (nil, hi?): return " of at most \(format(hi))"
        case (nil, nil): return ""
        }
    }

    /// `true`/`yes`/`false`/`no` (case-insensitive), or nil.
    public static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes": return true
        case "false", "no": return false
        default: return nil
        }
    }

    /// A decimal number (`nan` and `inf` parse, to be rejected by the caller), or nil.
    public static func number(_ text: String) -> Double? {
        let t = text.trimmingWhitespace
        guard !t.isEmpty, let v = Double(t) else { return nil }
        return v
    }

    /// The numbers of `[x y z]`, `(x, y)` or `x,y,z`, or nil when a part is not a number or
    /// there is none.
    public static func numbers(_ text: String) -> [Double]? {
        var t = Substring(text.trimmingWhitespace)
        if (t.hasPrefix("[") && t.hasSuffix("]")) || (t.hasPrefix("(") && t.hasSuffix(")")) {
            t = t.dropFirst().dropLast()
        }
        let parts = t.split { $0 == "," || $0.isWhitespace }
        guard !parts.isEmpty else { return nil }
        var out: [Double] = []
        for p in parts {
            guard let v = Double(p) else { return nil }
            out.append(v)
        }
        return out
    }

    /// `#rgb`, `#rgba`, `#rrggbb` or `#rrggbbaa` as a color, or nil.
    public static func hexColor(_ text: String) -> Color? {
        let digits = Array(text.dropFirst())
        guard [3, 4, 6, 8].contains(digits.count), digits.allSatisfy(\.isHexDigit) else { return nil }
        let short = digits.count <= 4
        let step = short ? 1 : 2
        var components: [Double] = []
        var i = 0
        while i < digits.count {
            guard let v = Int(String(digits[i..<(i + step)]), radix: 16) else { return nil }
            components.append(Double(v) / (short ? 15 : 255))
            i += step
        }
        return Color(
            red: components[0], green: components[1], blue: components[2],
            alpha: components.count == 4 ? components[3] : 1)
    }

    /// A number as short as it can be written: `1`, `0.5`.
    public static func format(_ v: Double) -> String {
        v == v.rounded() && abs(v) < 1e15 ? String(Int(v)) : String(v)
    }
}

extension String {
    /// The string without leading and trailing whitespace.
    public var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return String(s)
    }
}
