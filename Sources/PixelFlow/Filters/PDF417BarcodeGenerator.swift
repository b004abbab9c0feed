extension FilterDescriptor {
    /// The PDF417 generator's descriptor (`CIPDF417BarcodeGenerator`), listed in `builtIn`.
    static let pdf417Filters: [FilterDescriptor] = [pdf417BarcodeGenerator]

    static let pdf417BarcodeGenerator = FilterDescriptor(
        name: "CIPDF417BarcodeGenerator", displayName: "PDF417 Barcode Generator",
        summary:
            "A PDF417 stacked barcode (ISO/IEC 15438) of a message: one pixel per module, rows 3 pixels high, black on white with a 2-pixel white margin.",
        categories: [.generator],
        inputs: [
            FilterInput(
                key: "inputMessage", summary: "The bytes to encode (a string is taken as its UTF-8 bytes).",
                attributeType: nil, valueClass: .data, defaultValue: .data([])),
            .number(
                "inputMinWidth", default: 0, min: 0, max: 583,
                summary:
                    "The least width of the symbol without margins, in pixels (0: no limit; met when a symbol can, the widest is 579)."
            ),
            .number(
                "inputMaxWidth", default: 0, min: 0, max: 583,
                summary: "The greatest width of the symbol without margins, in pixels (0: no limit)."),
            .number(
                "inputMinHeight", default: 0, min: 0, max: 283,
                summary:
                    "The least height of the symbol without margins, in pixels (0: no limit; met when a symbol can, the tallest is 270)."
            ),
            .number(
                "inputMaxHeight", default: 0, min: 0, max: 283,
                summary: "The greatest height of the symbol without margins, in pixels (0: no limit)."),
            .number(
                "inputDataColumns", default: 0, min: 0, max: 30,
                summary: "The number of data columns, 1-30 (0: chosen from the other limits)."),
            .number("inputRows", default: 0, min: 0, max: 90, summary: "The number of rows, 3-90 (0: as few as fit)."),
            .number(
                "inputPreferredAspectRatio", default: 0, min: 0, max: Double(Int64.max), sliderMin: 0,
                sliderMax: 10, summary: "The width-to-height ratio to aim for when the size is free (0: 3)."),
            .number(
                "inputCompactionMode", default: 0, min: 0, max: 3,
                summary: "0 automatic (the fewest codewords), 1 numeric, 2 text, 3 byte."),
            .boolean(
                "inputCompactStyle", default: false,
                summary: "Compact PDF417: no right row indicator, a one-module stop bar."),
            .number(
                "inputCorrectionLevel", default: 2, min: 0, max: 8,
                summary: "The error correction level: 2^(level+1) Reed-Solomon check codewords."),
            .boolean(
                "inputAlwaysSpecifyCompaction", default: false,
                summary: "Begin with a mode latch even when the data starts in text compaction, the default mode."),
        ]
    ) { a in
        func int(_ key: String) throws -> Int { Int(try a.number(key).rounded()) }
        guard let mode = PDF417Encoder.Compaction(rawValue: try int("inputCompactionMode")) else {
            throw PixelFlowError.invalidParameter(
                filter: "CIPDF417BarcodeGenerator", key: "inputCompactionMode", reason: "must be 0, 1, 2 or 3")
        }
        let options = PDF417Encoder.Options(
            compaction: mode, correctionLevel: try int("inputCorrectionLevel"),
            columns: try int("inputDataColumns"), rows: try int("inputRows"),
            minWidth: try int("inputMinWidth"), maxWidth: try int("inputMaxWidth"),
            minHeight: try int("inputMinHeight"), maxHeight: try int("inputMaxHeight"),
            aspectRatio: try a.number("inputPreferredAspectRatio"),
            compact: try a.number("inputCompactStyle") != 0,
            alwaysSpecifyCompaction: try a.number("inputAlwaysSpecifyCompaction") != 0)
        let symbol = try PDF417Encoder.symbol(for: try a.data("inputMessage"), options: options)
        return try Image.pdf417Barcode(symbol)
    }
}

extension Image {
    /// A PDF417 barcode of `message` (`CIPDF417BarcodeGenerator`, ISO/IEC 15438): black on
    /// white, opaque, one pixel per module, each row 3 pixels high, with a white margin of 2
    /// pixels. A symbol of c data columns and r rows is 69 + 17 c modules wide (35 + 17 c when
    /// `compact`) and 3 r high.
    ///
    /// The message is cut into text, numeric and byte compaction segments, the split with the
    /// fewest codewords when `compaction` is `.automatic`, and protected by 2^(level+1)
    /// Reed-Solomon check codewords over GF(929).
    ///
    /// ```swift
    /// let code = try Image.pdf417Barcode(message: "PixelFlow 0042", correctionLevel: 4)
    /// ```
    ///
    /// - Parameters:
    ///   - message: the text to encode, as its UTF-8 bytes.
    ///   - columns: data columns 1...30, 0 to choose them for `aspectRatio`.
    ///   - rows: rows 3...90, 0 for as few as fit.
    ///   - correctionLevel: 0...8, for 2^(level+1) check codewords.
    ///   - compaction: how the bytes become codewords; `.automatic` takes the fewest.
    ///   - compact: compact PDF417 (no right row indicator, a one-module stop bar).
    ///   - aspectRatio: the width / height to aim for when the columns are free (0: 3).
    /// - Throws: `PixelFlowError.invalidParameter` for a level outside 0...8, a message that
    ///   the forced compaction cannot hold (non-digits in numeric, bytes outside text's set in
    ///   text), or one that does not fit the size asked for (at most 928 codewords).
    /// - Complexity: O(n) codewords for the Reed-Solomon division times the check count, plus
    ///   one pass over the output pixels.
    public static func pdf417Barcode(
        message: String, columns: Int = 0, rows: Int = 0, correctionLevel: Int = 2,
        compaction: PDF417Encoder.Compaction = .automatic, compact: Bool = false, aspectRatio: Double = 0
    ) throws -> Image {
        try FilterDescriptor.pdf417BarcodeGenerator.apply([
            "inputMessage": .data(Array(message.utf8)), "inputDataColumns": .number(Double(columns)),
            "inputRows": .number(Double(rows)), "inputCorrectionLevel": .number(Double(correctionLevel)),
            "inputCompactionMode": .number(Double(compaction.rawValue)), "inputCompactStyle": .number(compact ? 1 : 0),
            "inputPreferredAspectRatio": .number(aspectRatio),
        ])
    }

    /// The image of a laid-out symbol: module rows 3 pixels high and a 2-pixel margin.
    static func pdf417Barcode(_ symbol: PDF417Encoder.Symbol) throws -> Image {
        try Image._barcode(
            modules: symbol.modules, columns: symbol.width, rows: symbol.rows, rowHeight: 3, margin: 2)
    }
}

/// PDF417 (ISO/IEC 15438) codewords, error correction and layout.
///
/// A symbol is rows of: start pattern, left row indicator, 1-30 data codewords, right row
/// indicator, stop pattern (compact PDF417 drops the right indicator and ends in one bar).
/// Each codeword is 17 modules, four bars and four spaces, drawn from cluster 0, 3 or 6 for
/// rows 0, 1, 2 modulo 3. The codeword sequence is the symbol length descriptor, the data
/// (mode latches 900 text, 901/924 byte, 902 numeric), pad codewords 900 and 2^(level+1)
/// Reed-Solomon check codewords over GF(929), generator prod (x - 3^i), i = 1...k.
public enum PDF417Encoder {
    /// How the message becomes codewords (`inputCompactionMode`).
    public enum Compaction: Int, Sendable {
        /// Text, numeric and byte segments, the split with the fewest codewords.
        case automatic = 0
        /// Digits only, 44 digits in 15 codewords.
        case numeric = 1
        /// Text compaction: two characters a codeword (bytes 9, 10, 13, 32-126).
        case text = 2
        /// Byte compaction: 6 bytes in 5 codewords.
        case byte = 3
    }

    struct Options {
        var compaction = Compaction.automatic
        var correctionLevel = 2
        var columns = 0, rows = 0
        var minWidth = 0, maxWidth = 0, minHeight = 0, maxHeight = 0
        var aspectRatio = 0.0
        var compact = false
        var alwaysSpecifyCompaction = false
    }

    /// A laid-out symbol: `rows` rows of `width` modules, row-major, true for a bar.
    struct Symbol {
        var rows: Int
        var columns: Int
        var width: Int
        var codewords: [Int]
        var modules: [Bool]
    }

    static let start: UInt32 = 0b1111_1111_0101_0100_0  // 81111113, 17 modules
    static let stop: UInt32 = 0b1111_1110_1000_1010_01  // 711311121, 18 modules

    static func fail(_ key: String, _ reason: String) -> PixelFlowError {
        .invalidParameter(filter: "CIPDF417BarcodeGenerator", key: key, reason: reason)
    }

    // MARK: Compaction

    /// Text compaction's sub-modes and their characters (values 0-29; 26 is space in alpha,
    /// lower and mixed; the latch and shift values are named below).
    static let alpha = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ ".utf8)
    static let lower = Array("abcdefghijklmnopqrstuvwxyz ".utf8)
    static let mixed: [UInt8] = Array("0123456789&".utf8) + [13, 9] + Array(",:#-.$/+%*=^".utf8) + [255, 32]
    static let punctuation: [UInt8] =
        Array(";<>@[\\]_`~!".utf8) + [13, 9] + Array(",:".utf8) + [10]
        + Array("-.$/\"|*()?{}'".utf8)

    static func isText(_ b: UInt8) -> Bool { b == 9 || b == 10 || b == 13 || (b >= 32 && b <= 126) }
    static func isDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }

    /// Text compaction values of `text` (all `isText`), starting in the alpha sub-mode, paired
    /// into codewords (a final odd value padded with 29).
    static func textCodewords(_ text: ArraySlice<UInt8>) -> [Int] {
        enum Sub { case alpha, lower, mixed, punctuation }
        var sub = Sub.alpha
        var values: [Int] = []
        let bytes = Array(text)
        for (i, b) in bytes.enumerated() {
            let next = i + 1 < bytes.count ? bytes[i + 1] : nil
            func index(_ table: [UInt8]) -> Int? { table.firstIndex(of: b) }
            switch sub {
            case .alpha where index(alpha) != nil, .lower where index(lower) != nil,
                .mixed where index(mixed) != nil, .punctuation where index(punctuation) != nil:
                let table = [Sub.alpha: alpha, .lower: lower, .mixed: mixed, .punctuation: punctuation][sub]!
                values.append(index(table)!)
                continue
            default: break
            }
            if let v = index(alpha) {
                switch sub {
                case .lower where b != 32:
                    values += [27, v]  // shift to alpha for one character
                    continue
                case .lower: values += [28, 28]  // mixed, then alpha
                case .mixed: values.append(28)
                case .punctuation: values.append(29)
                case .alpha: break
                }
                sub = .alpha
                values.append(v)
            } else if let v = index(lower) {
                switch sub {
                case .alpha, .mixed: values.append(27)
                case .punctuation: values += [29, 27]
                case .lower: break
                }
                sub = .lower
                values.append(v)
            } else if let v = index(mixed) {
                switch sub {
                case .alpha, .lower: values.append(28)
                case .punctuation: values += [29, 28]
                case .mixed: break
                }
                sub = .mixed
                values.append(v)
            } else {
                let v = index(punctuation)!
                let runs = next.map { punctuation.contains($0) && !mixed.contains($0) } ?? false
                if !runs && sub != .punctuation {
                    values += [29, v]  // shift to punctuation for one character
                    continue
                }
                switch sub {
                case .alpha, .lower: values += [28, 25]
                case .mixed: values.append(25)
                case .punctuation: break
                }
                sub = .punctuation
                values.append(v)
            }
        }
        if values.count % 2 == 1 { values.append(29) }
        return stride(from: 0, to: values.count, by: 2).map { 30 * values[$0] + values[$0 + 1] }
    }

    /// Numeric compaction: each group of up to 44 digits is "1" + digits in base 900.
    static func numericCodewords(_ digits: ArraySlice<UInt8>) -> [Int] {
        var out: [Int] = []
        var s = digits.startIndex
        while s < digits.endIndex {
            let e = min(s + 44, digits.endIndex)
            // Base-10 digits to base 900 by repeated division of a little decimal number.
            var number = [1] + digits[s..<e].map { Int($0) - 48 }
            var group: [Int] = []
            while !(number.count == 1 && number[0] == 0) {
                var rest = 0
                var quotient: [Int] = []
                for d in number {
                    let v = rest * 10 + d
                    if !quotient.isEmpty || v / 900 > 0 { quotient.append(v / 900) }
                    rest = v % 900
                }
                group.append(rest)
                number = quotient.isEmpty ? [0] : quotient
            }
            out += group.reversed()
            s = e
        }
        return out
    }

    /// Byte compaction: full groups of 6 bytes as 5 base-900 codewords, the rest a codeword
    /// each.
    static func byteCodewords(_ bytes: ArraySlice<UInt8>) -> [Int] {
        var out: [Int] = []
        var s = bytes.startIndex
        while bytes.endIndex - s >= 6 {
            var v = bytes[s..<s + 6].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            var group = [Int](repeating: 0, count: 5)
            for k in stride(from: 4, through: 0, by: -1) {
                group[k] = Int(v % 900)
                v /= 900
            }
            out += group
            s += 6
        }
        out += bytes[s...].map(Int.init)
        return out
    }

    /// One segment's codewords with its latch (none for text at the start of the data,
    /// unless `latchFirst`).
    static func segment(_ mode: Compaction, _ bytes: ArraySlice<UInt8>, first: Bool, latchFirst: Bool) -> [Int] {
        switch mode {
        case .numeric: return [902] + numericCodewords(bytes)
        case .byte: return [bytes.count % 6 == 0 ? 924 : 901] + byteCodewords(bytes)
        default: return (first && !latchFirst ? [] : [900]) + textCodewords(bytes)
        }
    }

    /// The data codewords of `message` (without the length descriptor).
    ///
    /// Automatic compaction cuts the message at the edges of runs of digits, other text
    /// characters and other bytes, and picks by dynamic programming over those cut points the
    /// segments and modes with the fewest codewords. Past 160 runs (a quadratic search) it
    /// takes one text segment when every byte is text, else one byte segment.
    static func dataCodewords(for message: [UInt8], _ mode: Compaction, latchFirst: Bool) throws -> [Int] {
        switch mode {
        case .numeric:
            guard message.allSatisfy(isDigit) else { throw fail("inputCompactionMode", "numeric compaction holds digits only") }
            return message.isEmpty ? [] : segment(.numeric, message[...], first: true, latchFirst: latchFirst)
        case .text:
            guard message.allSatisfy(isText) else {
                throw fail("inputCompactionMode", "text compaction holds bytes 9, 10, 13 and 32-126 only")
            }
            return segment(.text, message[...], first: true, latchFirst: latchFirst)
        case .byte:
            return message.isEmpty ? [] : segment(.byte, message[...], first: true, latchFirst: latchFirst)
        case .automatic:
            if message.isEmpty { return latchFirst ? [900] : [] }
            func kind(_ b: UInt8) -> Int { isDigit(b) ? 0 : isText(b) ? 1 : 2 }
            var cuts = [0]
            for i in 1..<message.count where kind(message[i]) != kind(message[i - 1]) { cuts.append(i) }
            cuts.append(message.count)
            if cuts.count > 160 {
                // Too many runs for the quadratic search: one byte segment unless all text.
                return message.allSatisfy(isText)
                    ? segment(.text, message[...], first: true, latchFirst: latchFirst)
                    : segment(.byte, message[...], first: true, latchFirst: latchFirst)
            }
            // best[j]: fewest codewords for message[..<cuts[j]]; from[j]: (i, mode) of the last segment.
            let m = cuts.count
            var best = [Int](repeating: Int.max, count: m)
            var from = [(Int, Compaction)](repeating: (0, .byte), count: m)
            best[0] = 0
            for j in 1..<m {
                for i in 0..<j where best[i] != Int.max {
                    let part = message[cuts[i]..<cuts[j]]
                    var modes: [Compaction] = [.byte]
                    if part.allSatisfy(isText) { modes.insert(.text, at: 0) }
                    if part.allSatisfy(isDigit) { modes.append(.numeric) }
                    for mode in modes {
                        let c = best[i] + segment(mode, part, first: i == 0, latchFirst: latchFirst).count
                        if c < best[j] {
                            best[j] = c
                            from[j] = (i, mode)
                        }
                    }
                }
            }
            var parts: [(Int, Int, Compaction)] = []
            var j = m - 1
            while j > 0 {
                parts.append((from[j].0, j, from[j].1))
                j = from[j].0
            }
            var out: [Int] = []
            for (i, j, mode) in parts.reversed() {
                out += segment(mode, message[cuts[i]..<cuts[j]], first: i == 0, latchFirst: latchFirst)
            }
            return out
        }
    }

    // MARK: Error correction

    /// The coefficients of prod (x - 3^i), i = 1...k, highest degree first (leading 1).
    static func generator(checkCount k: Int) -> [Int] {
        var g = [1]
        var root = 1
        for _ in 0..<k {
            root = root * 3 % 929
            var next = g + [0]
            for (d, c) in g.enumerated() { next[d + 1] = (next[d + 1] + 929 - root * c % 929) % 929 }
            g = next
        }
        return g
    }

    /// The k check codewords of `data`: the remainder of data(x) x^k divided by the
    /// generator, negated modulo 929.
    static func checkCodewords(for data: [Int], count k: Int) -> [Int] {
        let g = generator(checkCount: k)
        var r = data + [Int](repeating: 0, count: k)
        for i in 0..<data.count where r[i] != 0 {
            let c = r[i]
            for j in 1...k { r[i + j] = (r[i + j] + 929 - c * g[j] % 929) % 929 }
        }
        return r[data.count...].map { (929 - $0) % 929 }
    }

    // MARK: Layout

    /// The symbol for `message`: codewords, rows and columns, modules.
    static func symbol(for message: [UInt8], options o: Options) throws -> Symbol {
        guard (0...8).contains(o.correctionLevel) else {
            throw fail("inputCorrectionLevel", "must be in 0...8, got \(o.correctionLevel)")
        }
        guard o.columns == 0 || (1...30).contains(o.columns) else {
            throw fail("inputDataColumns", "must be 0 or in 1...30, got \(o.columns)")
        }
        guard o.rows == 0 || (3...90).contains(o.rows) else { throw fail("inputRows", "must be 0 or in 3...90, got \(o.rows)") }
        let data = try dataCodewords(for: message, o.compaction, latchFirst: o.alwaysSpecifyCompaction)
        let k = 2 << o.correctionLevel
        let needed = 1 + data.count + k
        guard needed <= 928 else {
            throw fail("inputMessage", "needs \(needed) codewords at correction level \(o.correctionLevel); a symbol holds 928")
        }
        let overhead = o.compact ? 35 : 69
        let ratio = o.aspectRatio > 0 ? o.aspectRatio : 3
        var choice: (columns: Int, rows: Int, score: Double)?
        // Maximums are hard limits; minimums are met when a symbol can meet them, otherwise
        // the nearest symbol is taken (Core Image's ranges reach past the largest symbol).
        for c in (o.columns > 0 ? o.columns...o.columns : 1...30) {
            var r = max(3, (needed + c - 1) / c, min(90, 928 / c, (o.minHeight + 2) / 3))
            if o.rows > 0 {
                guard o.rows * c >= needed else { continue }
                r = o.rows
            }
            guard r <= 90, r * c <= 928 else { continue }
            let w = overhead + 17 * c, h = 3 * r
            if o.maxWidth > 0 && w > o.maxWidth || o.maxHeight > 0 && h > o.maxHeight { continue }
            let shortfall = max(0, o.minWidth - w) + max(0, o.minHeight - h)
            let score = 1000 * Double(shortfall) + abs(Double(w) / Double(h) - ratio) + Double(r * c - needed) * 1e-6
            if choice == nil || score < choice!.score { choice = (c, r, score) }
        }
        guard let (columns, rows, _) = choice else {
            throw fail("inputMessage", "\(needed) codewords fit no symbol of the columns, rows and size asked for")
        }
        var codewords = [rows * columns - k] + data
        codewords += repeatElement(900, count: rows * columns - k - codewords.count)
        codewords += checkCodewords(for: codewords, count: k)
        return layout(codewords: codewords, rows: rows, columns: columns, correctionLevel: o.correctionLevel, compact: o.compact)
    }

    /// Lays out `rows * columns` codewords (length descriptor, data, padding, check words)
    /// row by row with the row indicators of `correctionLevel`.
    static func layout(codewords: [Int], rows: Int, columns: Int, correctionLevel level: Int, compact: Bool) -> Symbol {
        let overhead = compact ? 35 : 69
        let width = overhead + 17 * columns
        var modules = [Bool]()
        modules.reserveCapacity(width * rows)
        func put(_ bits: UInt32, _ count: Int) {
            for b in stride(from: count - 1, through: 0, by: -1) { modules.append(bits >> UInt32(b) & 1 == 1) }
        }
        for r in 0..<rows {
            let cluster = r % 3, base = 30 * (r / 3)
            let info = [(rows - 1) / 3, 3 * level + (rows - 1) % 3, columns - 1]
            let table = patterns[cluster]
            put(start, 17)
            put(table[base + info[cluster]], 17)
            for c in 0..<columns { put(table[codewords[r * columns + c]], 17) }
            if compact {
                put(1, 1)
            } else {
                put(table[base + info[(cluster + 2) % 3]], 17)
                put(stop, 18)
            }
        }
        return Symbol(rows: rows, columns: columns, width: width, codewords: codewords, modules: modules)
    }
}
