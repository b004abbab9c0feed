extension FilterDescriptor {
    /// The Code 128 generator's descriptor (`CICode128BarcodeGenerator`), listed in `builtIn`.
    static let code128Filters: [FilterDescriptor] = [code128BarcodeGenerator]

    static let code128BarcodeGenerator = FilterDescriptor(
        name: "CICode128BarcodeGenerator", displayName: "Code 128 Barcode Generator",
        summary:
            "A Code 128 barcode (ISO/IEC 15417) of an ASCII message: one pixel per module, black bars on white, with a white margin on every side.",
        categories: [.generator],
        inputs: [
            FilterInput(
                key: "inputMessage",
                summary: "The ASCII bytes to encode (0-127; a string is taken as its UTF-8 bytes).",
                attributeType: nil, valueClass: .data, defaultValue: .data([])),
            .number(
                "inputQuietSpace", default: 7, min: 0, max: 100, sliderMin: 0, sliderMax: 20,
                summary: "The white margin around the bars, in pixels (rounded to whole pixels)."),
            .number(
                "inputBarcodeHeight", default: 32, min: 1, max: 500,
                summary: "The height of the bars, in pixels (rounded to whole pixels)."),
        ]
    ) { a in
        let symbols = try Code128Encoder.symbols(for: try a.data("inputMessage"))
        return try Image.code128Barcode(
            symbols: symbols, quietSpace: Int(try a.number("inputQuietSpace").rounded()),
            barcodeHeight: Int(try a.number("inputBarcodeHeight").rounded()))
    }
}

extension Image {
    /// A Code 128 barcode of `message` (`CICode128BarcodeGenerator`): black bars on white,
    /// opaque, one pixel per module, `barcodeHeight` pixels high, with `quietSpace` white pixels
    /// on every side. The extent is `(0, 0, modules + 2 quietSpace, barcodeHeight + 2
    /// quietSpace)`, where a symbol of n symbol characters (start, data, check) has 11 n + 13
    /// modules.
    ///
    /// The message is encoded in the fewest symbol characters, switching between code sets A
    /// (control characters), B (printable ASCII) and C (pairs of digits) where that saves
    /// characters, as Code 128 encoders do; any reader decodes it back to the same bytes.
    ///
    /// ```swift
    /// let code = try Image.code128Barcode(message: "PixelFlow-0042", quietSpace: 10)
    /// try RenderContext().write(code.transformed(by: AffineTransform(scaleX: 3, y: 3)), toFile: "code.png")
    /// ```
    ///
    /// - Throws: `PixelFlowError.invalidParameter` (key `inputMessage`) for a byte above 127
    ///   (Code 128 holds ASCII), and for a quiet space outside 0...100 or a height outside
    ///   1...500. An empty message gives a symbol without data characters.
    /// - Complexity: O(n) in the message's length, plus one pass over the output pixels.
    public static func code128Barcode(message: String, quietSpace: Int = 7, barcodeHeight: Int = 32) throws -> Image {
        try FilterDescriptor.code128BarcodeGenerator.apply([
            "inputMessage": .data(Array(message.utf8)), "inputQuietSpace": .number(Double(quietSpace)),
            "inputBarcodeHeight": .number(Double(barcodeHeight)),
        ])
    }

    /// The image of a Code 128 symbol given as its symbol values (start code, data, check
    /// character; the stop pattern is added).
    static func code128Barcode(symbols: [Int], quietSpace: Int, barcodeHeight: Int) throws -> Image {
        guard (0...100).contains(quietSpace) else {
            throw PixelFlowError.invalidParameter(
                filter: "CICode128BarcodeGenerator", key: "inputQuietSpace", reason: "must be in 0...100, got \(quietSpace)")
        }
        guard (1...500).contains(barcodeHeight) else {
            throw PixelFlowError.invalidParameter(
                filter: "CICode128BarcodeGenerator", key: "inputBarcodeHeight",
                reason: "must be in 1...500, got \(barcodeHeight)")
        }
        let modules = Code128Encoder.modules(for: symbols)
        // One row of bars, barcodeHeight pixels high, inside the quiet space on every side.
        return try Image._barcode(
            modules: modules, columns: modules.count, rows: 1, rowHeight: barcodeHeight, margin: quietSpace)
    }
}

/// Code 128 (ISO/IEC 15417) symbol characters and bar patterns.
///
/// A symbol is a start character (A, B or C: which code set the data begins in), the data
/// characters, a check character (the start value plus each data value times its position,
/// modulo 103) and the stop pattern. Every character is 11 modules wide: three bars and three
/// spaces of 1 to 4 modules (the stop pattern adds a final 2-module bar: 13 modules). Code set
/// A holds ASCII 0-95 (control characters and upper case), B holds 32-127, C holds the pairs
/// of digits 00-99; values 98 (shift: the next character from the other of A and B) and
/// 99-101 (switch to C, B or A) move between them.
enum Code128Encoder {
    /// Bar and space widths of the 107 patterns, value 0 to 106 (103-105: start A, B, C; 106:
    /// stop), each as the widths of bar, space, bar, space, bar, space (and a last bar for
    /// the stop), from the standard's table.
    static let patterns: [[UInt8]] = [
        "212222", "222122", "222221", "121223", "121322", "131222", "122213", "122312", "132212", "221213",
        "221312", "231212", "112232", "122132", "122231", "113222", "123122", "123221", "223211", "221132",
        "221231", "213212", "223112", "312131", "311222", "321122", "321221", "312212", "322112", "322211",
        "212123", "212321", "232121", "111323", "131123", "131321", "112313", "132113", "132311", "211313",
        "231113", "231311", "112133", "112331", "132131", "113123", "113321", "133121", "313121", "211331",
        "231131", "213113", "213311", "213131", "311123", "311321", "331121", "312113", "312311", "332111",
        "314111", "221411", "431111", "111224", "111422", "121124", "121421", "141122", "141221", "112214",
        "112412", "122114", "122411", "142112", "142211", "241211", "221114", "413111", "241112", "134111",
        "111242", "121142", "121241", "114212", "124112", "124211", "411212", "421112", "421211", "212141",
        "214121", "412121", "111143", "111341", "131141", "114113", "114311", "411113", "411311", "113141",
        "114131", "311141", "411131", "211412", "211214", "211232", "2331112",
    ].map { $0.utf8.map { $0 - UInt8(ascii: "0") } }

    static let shift = 98
    static let switchToC = 99, switchToB = 100, switchToA = 101
    static let startA = 103, startB = 104, startC = 105, stop = 106

    /// The code sets, in the order of their start values.
    enum CodeSet: Int, CaseIterable {
        case a, b, c

        var start: Int { 103 + rawValue }
        /// The character that switches to this set from another.
        var switchValue: Int { [101, 100, 99][rawValue] }

        /// The value of ASCII byte `byte` in set A or B, nil when the set lacks it.
        func value(of byte: UInt8) -> Int? {
            switch self {
            case .a: byte < 32 ? Int(byte) + 64 : (byte < 96 ? Int(byte) - 32 : nil)
            case .b: byte >= 32 && byte < 128 ? Int(byte) - 32 : nil
            case .c: nil
            }
        }
    }

    /// The symbol values for `message`: start character, data and check character (not the
    /// stop pattern), in the fewest characters.
    ///
    /// A shortest path over (position, code set): from each state, one byte in the current
    /// set A or B (1 character), one byte through a shift from A to B or back (2), two
    /// digits in set C (1), or a switch to another set (1) followed by one of those. Ties go
    /// to the first choice in that order (sets in the order B, A, C), so the result is
    /// deterministic.
    ///
    /// An empty message gives the symbol without data characters (start B, check, stop), as
    /// the QR code generator gives a code of no bytes.
    ///
    /// - Throws: `PixelFlowError.invalidParameter` for a byte above 127.
    static func symbols(for message: [UInt8]) throws -> [Int] {
        if let i = message.firstIndex(where: { $0 > 127 }) {
            throw PixelFlowError.invalidParameter(
                filter: "CICode128BarcodeGenerator", key: "inputMessage",
                reason: "must be ASCII (0-127); byte \(i) is \(message[i])")
        }
        let n = message.count
        let sets = CodeSet.allCases
        let preference: [CodeSet] = [.b, .a, .c]
        func isDigit(_ i: Int) -> Bool { i < n && message[i] >= 48 && message[i] <= 57 }
        // stay[i][s]: fewest characters to encode message[i...] from set s at position i,
        // starting with a character of s; cost[i][s]: the same, a switch first allowed.
        // choice[i][s]: 0 one byte, 1 shift and one byte, 2 a digit pair, 3 + t switch to t.
        let infinity = Int.max / 2
        var stay = [[Int]](repeating: [Int](repeating: infinity, count: 3), count: n + 1)
        var cost = stay
        var choice = [[Int]](repeating: [Int](repeating: -1, count: 3), count: n + 1)
        var stayChoice = choice
        for s in 0..<3 {
            stay[n][s] = 0
            cost[n][s] = 0
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            for s in sets {
                var best = infinity, pick = -1
                if s.value(of: message[i]) != nil, 1 + cost[i + 1][s.rawValue] < best {
                    best = 1 + cost[i + 1][s.rawValue]
                    pick = 0
                }
                if s != .c, (s == .a ? CodeSet.b : CodeSet.a).value(of: message[i]) != nil,
                    2 + cost[i + 1][s.rawValue] < best
                {
                    best = 2 + cost[i + 1][s.rawValue]
                    pick = 1
                }
                if s == .c, isDigit(i), isDigit(i + 1), 1 + cost[i + 2][s.rawValue] < best {
                    best = 1 + cost[i + 2][s.rawValue]
                    pick = 2
                }
                stay[i][s.rawValue] = best
                stayChoice[i][s.rawValue] = pick
            }
            for s in sets {
                var best = stay[i][s.rawValue], pick = stayChoice[i][s.rawValue]
                for t in preference where t != s && 1 + stay[i][t.rawValue] < best {
                    best = 1 + stay[i][t.rawValue]
                    pick = 3 + t.rawValue
                }
                cost[i][s.rawValue] = best
                choice[i][s.rawValue] = pick
            }
        }
        // The start character names the first set (no switch needed): the cheapest, B before
        // A before C on ties.
        var set = preference.min { stay[0][$0.rawValue] < stay[0][$1.rawValue] }!
        var values = [set.start]
        var i = 0
        var first = true
        while i < n {
            let pick = first ? stayChoice[i][set.rawValue] : choice[i][set.rawValue]
            first = false
            switch pick {
            case 0:
                values.append(set.value(of: message[i])!)
                i += 1
            case 1:
                let other: CodeSet = set == .a ? .b : .a
                values.append(shift)
                values.append(other.value(of: message[i])!)
                i += 1
            case 2:
                values.append(Int(message[i] - 48) * 10 + Int(message[i + 1] - 48))
                i += 2
            default:
                let target = sets[pick - 3]
                values.append(target.switchValue)
                set = target
                // Right after a switch the new set encodes (one switch beats two).
                first = true
            }
        }
        var check = values[0]
        for (position, v) in values.enumerated().dropFirst() { check += position * v }
        values.append(check % 103)
        return values
    }

    /// The modules of a symbol (`symbols`: start, data, check), stop pattern added: true for
    /// a bar module.
    static func modules(for symbols: [Int]) -> [Bool] {
        var out: [Bool] = []
        out.reserveCapacity(11 * symbols.count + 13)
        for v in symbols + [stop] {
            for (k, width) in patterns[v].enumerated() {
                out.append(contentsOf: repeatElement(k % 2 == 0, count: Int(width)))
            }
        }
        return out
    }
}
