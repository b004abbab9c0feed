import Foundation

/// A minimal XML element tree, enough for OpenCV's `FileStorage` XML (cascade files): elements,
/// attributes (kept but unused), text, comments, processing instructions and a `<!DOCTYPE>`.
/// No entities beyond the five predefined ones, no namespaces, no CDATA semantics (CDATA text
/// is kept verbatim).
///
/// The parser is iterative (no recursion, so no stack overflow on deeply nested input), bounds
/// the nesting depth and the element count, and reports the first problem with its byte
/// offset: it is meant to be fed arbitrary bytes.
///
/// - Complexity: O(bytes) time; the tree holds O(elements + text bytes).
struct _XMLElement: Sendable {
    var name: String
    var attributes: [String: String] = [:]
    /// Concatenated character data directly inside this element (not its children's).
    var text: String = ""
    var children: [_XMLElement] = []

    /// The first child named `name`.
    func child(_ name: String) -> _XMLElement? { children.first { $0.name == name } }
}

/// Parses XML bytes into a `_XMLElement` tree; see `_XMLElement`.
struct _XMLParser {
    /// Deepest nesting accepted (cascade files nest about 8 deep).
    static let maximumDepth = 64
    /// Most elements accepted (the largest OpenCV cascade has about 60 000).
    static let maximumElementCount = 4_000_000

    enum Failure: Error, Equatable { case malformed(offset: Int, reason: String) }

    private let bytes: [UInt8]
    private var i = 0

    init(_ data: Data) { bytes = [UInt8](data) }

    /// The document's root element.
    static func parse(_ data: Data) throws(Failure) -> _XMLElement {
        var parser = _XMLParser(data)
        return try parser.parseDocument()
    }

    private func fail(_ reason: String) -> Failure { .malformed(offset: i, reason: reason) }

    private mutating func parseDocument() throws(Failure) -> _XMLElement {
        // Skip a UTF-8 byte-order mark.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        var stack: [_XMLElement] = []
        var root: _XMLElement?
        var elementCount = 0
        while i < bytes.count {
            if bytes[i] != UInt8(ascii: "<") {
                // Character data.
                let start = i
                while i < bytes.count, bytes[i] != UInt8(ascii: "<") { i += 1 }
                if stack.isEmpty {
                    if !Self.isBlank(bytes[start..<i]) { i = start; throw fail("text outside the root element") }
                } else {
                    stack[stack.count - 1].text += try decodeText(bytes[start..<i])
                }
                continue
            }
            // Markup.
            if hasPrefix("<?") {
                try skip(past: "?>", what: "processing instruction")
            } else if hasPrefix("<!--") {
                try skip(past: "-->", what: "comment")
            } else if hasPrefix("<![CDATA[") {
                i += 9
                let start = i
                try skip(past: "]]>", what: "CDATA section")
                guard !stack.isEmpty else { throw fail("CDATA outside the root element") }
                stack[stack.count - 1].text += String(decoding: bytes[start..<(i - 3)], as: UTF8.self)
            } else if hasPrefix("<!") {
                try skip(past: ">", what: "declaration")
            } else if hasPrefix("</") {
                i += 2
                let name = try readName()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { throw fail("expected '>' after </\(name)") }
                i += 1
                guard let open = stack.popLast() else { throw fail("closing tag </\(name)> without an opening tag") }
                guard open.name == name else { throw fail("closing tag </\(name)> does not match <\(open.name)>") }
                if stack.isEmpty {
                    guard root == nil else { throw fail("more than one root element") }
                    root = open
                } else {
                    stack[stack.count - 1].children.append(open)
                }
            } else {
                i += 1
                let name = try readName()
                var element = _XMLElement(name: name)
                elementCount += 1
                guard elementCount <= Self.maximumElementCount else {
                    throw fail("more than \(Self.maximumElementCount) elements")
                }
                // Attributes.
                var selfClosing = false
                while true {
                    skipSpace()
                    guard i < bytes.count else { throw fail("unterminated tag <\(name)") }
                    if bytes[i] == UInt8(ascii: ">") { i += 1; break }
                    if hasPrefix("/>") { i += 2; selfClosing = true; break }
                    let key = try readName()
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else {
                        throw fail("expected '=' after attribute \(key)")
                    }
                    i += 1
                    skipSpace()
                    guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else {
                        throw fail("expected a quoted value for attribute \(key)")
                    }
                    let quote = bytes[i]
                    i += 1
                    let start = i
                    while i < bytes.count, bytes[i] != quote { i += 1 }
                    guard i < bytes.count else { throw fail("unterminated value of attribute \(key)") }
                    element.attributes[key] = try decodeText(bytes[start..<i])
                    i += 1
                }
                if selfClosing {
                    if stack.isEmpty {
                        guard root == nil else { throw fail("more than one root element") }
                        root = element
                    } else {
                        stack[stack.count - 1].children.append(element)
                    }
                } else {
                    guard root == nil || !stack.isEmpty else { throw fail("more than one root element") }
                    guard stack.count < Self.maximumDepth else { throw fail("elements nested deeper than \(Self.maximumDepth)") }
                    stack.append(element)
                }
            }
        }
        if let open = stack.last { throw fail("unexpected end of file inside <\(open.name)> (truncated file?)") }
        guard let root else { throw fail("no root element") }
        return root
    }

    private func hasPrefix(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        let p = s.utf8Start
        for k in 0..<n where bytes[i + k] != p[k] { return false }
        return true
    }

    private mutating func skip(past terminator: StaticString, what: String) throws(Failure) {
        let start = i
        while i < bytes.count {
            if hasPrefix(terminator) { i += terminator.utf8CodeUnitCount; return }
            i += 1
        }
        i = start
        throw fail("unterminated \(what)")
    }

    private mutating func skipSpace() {
        while i < bytes.count, Self.isSpace(bytes[i]) { i += 1 }
    }

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    private static func isBlank(_ s: ArraySlice<UInt8>) -> Bool { s.allSatisfy(isSpace) }

    private mutating func readName() throws(Failure) -> String {
        let start = i
        while i < bytes.count {
            let b = bytes[i]
            let ok =
                (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39)
                || b == UInt8(ascii: "_") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
                || b == UInt8(ascii: ":") || b >= 0x80
            if !ok { break }
            i += 1
        }
        guard i > start else { throw fail("expected a name") }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    private func decodeText(_ s: ArraySlice<UInt8>) throws(Failure) -> String {
        guard s.contains(UInt8(ascii: "&")) else { return String(decoding: s, as: UTF8.self) }
        var out = ""
        var k = s.startIndex
        var runStart = k
        while k < s.endIndex {
            if s[k] == UInt8(ascii: "&") {
                out += String(decoding: s[runStart..<k], as: UTF8.self)
                guard let semi = s[k...].firstIndex(of: UInt8(ascii: ";")), semi - k <= 10 else {
                    throw Failure.malformed(offset: k, reason: "unterminated entity reference")
                }
                let entity = String(decoding: s[(k + 1)..<semi], as: UTF8.self)
                switch entity {
                case "lt": out += "<"
                case "gt": out += ">"
                case "amp": out += "&"
                case "quot": out += "\""
                case "apos": out += "'"
                default:
                    if entity.hasPrefix("#x"), let v = UInt32(entity.dropFirst(2), radix: 16), let u = Unicode.Scalar(v) {
                        out.unicodeScalars.append(u)
                    } else if entity.hasPrefix("#"), let v = UInt32(entity.dropFirst()), let u = Unicode.Scalar(v) {
                        out.unicodeScalars.append(u)
                    } else {
                        throw Failure.malformed(offset: k, reason: "unknown entity &\(entity);")
                    }
                }
                k = semi + 1
                runStart = k
            } else {
                k += 1
            }
        }
        out += String(decoding: s[runStart..<s.endIndex], as: UTF8.self)
        return out
    }
}
