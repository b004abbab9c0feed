import PixelFlow

/// A little JSON writer for the tool's `--json` output (the tool does not use Foundation).
///
/// ```swift
/// JSONText.object([("name", JSONText.string("CISepiaTone")), ("inputs", JSONText.array([]))])
/// // {"name": "CISepiaTone", "inputs": []}
/// ```
///
/// Keys keep the order given, so output is stable and diffable.
enum JSONText {
    /// A JSON string literal, with quotes, backslashes and control characters escaped.
    static func string(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A JSON number: whole numbers without a fraction (`10`), others in Swift's shortest
    /// exact form (`0.75`, `1e-05`); `null` for NaN and infinities, which JSON cannot hold.
    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "null" }
        return v == v.rounded() && Swift.abs(v) < 1e15 ? String(Int(v)) : String(v)
    }

    /// `number(v)`, or `null` when `v` is nil.
    static func number(_ v: Double?) -> String { v.map { number($0) } ?? "null" }

    /// A filter value: numbers as numbers, vectors, colors (`[r, g, b, a]`) and transforms
    /// (`[a, b, c, d, tx, ty]`) as arrays, booleans, strings, data as a string when it is
    /// UTF-8 text, a barcode descriptor as the text of its kind; `null` for images, other
    /// data and nil.
    static func value(_ v: FilterValue?) -> String {
        guard let v else { return "null" }
        switch v {
        case let .number(n): return number(n)
        case let .vector(c): return array(c.map { number($0) })
        case let .color(c): return array([c.red, c.green, c.blue, c.alpha].map { number($0) })
        case let .transform(t): return array([t.a, t.b, t.c, t.d, t.tx, t.ty].map { number($0) })
        case let .boolean(b): return b ? "true" : "false"
        case let .string(s): return string(s)
        case let .data(d):
            // Text when the bytes are UTF-8 (a QR message); JSON has no bytes.
            let text = String(decoding: d, as: UTF8.self)
            return Array(text.utf8) == d ? string(text) : "null"
        case .image: return "null"
        case let .barcodeDescriptor(d): return string(d.description)
        case let .styledText(t): return string(t.string)
        }
    }

    /// `[a, b, c]` from already-encoded elements.
    static func array(_ elements: [String]) -> String { "[" + elements.joined(separator: ", ") + "]" }

    /// `{"k": v, ...}` from keys and already-encoded values, in order.
    static func object(_ members: [(String, String)]) -> String {
        "{" + members.map { string($0.0) + ": " + $0.1 }.joined(separator: ", ") + "}"
    }

    /// An array with one element per line, for long lists.
    static func lines(_ elements: [String]) -> String {
        elements.isEmpty ? "[]" : "[\n  " + elements.joined(separator: ",\n  ") + "\n]"
    }
}
