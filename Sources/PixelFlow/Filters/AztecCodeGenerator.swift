extension FilterDescriptor {
    /// The Aztec generator's descriptor (`CIAztecCodeGenerator`), listed in `builtIn`.
    static let aztecFilters: [FilterDescriptor] = [aztecCodeGenerator]

    static let aztecCodeGenerator = FilterDescriptor(
        name: "CIAztecCodeGenerator", displayName: "Aztec Code Generator",
        summary:
            "An Aztec code (ISO/IEC 24778) of a message: one pixel per module, black on white, no margin (Aztec needs no quiet zone).",
        categories: [.generator],
        inputs: [
            FilterInput(
                key: "inputMessage", summary: "The bytes to encode (a string is taken as its UTF-8 bytes).",
                attributeType: nil, valueClass: .data, defaultValue: .data([])),
            .number(
                "inputCorrectionLevel", default: 23, min: 5, max: 95,
                summary: "The error correction: check words of at least this percentage of the data bits, plus 11 bits."),
            .number(
                "inputLayers", .count, default: 0, min: 0, max: 32,
                summary: "The number of data layers, 1-32 (1-4 for a compact symbol); 0 takes the fewest that fit."),
            .number(
                "inputCompactStyle", default: -1, min: -1, max: 1,
                summary:
                    "1: a compact symbol (1-4 layers, 11-module core), 0: a full-range one, -1: the smaller that fits (Core Image's nil)."
            ),
        ]
    ) { a in
        let compact: Bool?
        switch try a.number("inputCompactStyle") {
        case ..<(-0.5): compact = nil
        case 0.5...: compact = true
        default: compact = false
        }
        let symbol = try AztecEncoder.symbol(
            for: try a.data("inputMessage"), correctionPercent: try a.number("inputCorrectionLevel"),
            layers: Int(try a.number("inputLayers").rounded()), compact: compact)
        return try Image.aztecCode(symbol)
    }
}

extension Image {
    /// An Aztec code of `message` (`CIAztecCodeGenerator`, ISO/IEC 24778): black on white,
    /// opaque, one pixel per module, no margin. A compact symbol of L layers is 11 + 4L modules
    /// square, a full-range one 15 + 4L plus its reference grid lines.
    ///
    /// ```swift
    /// let ticket = try Image.aztecCode(message: "PixelFlow 0042", correctionLevel: 33)
    /// ```
    ///
    /// - Parameters:
    ///   - message: the text to encode, as its UTF-8 bytes.
    ///   - correctionLevel: the error correction, in percent of the data, 5...95 (default 23).
    ///   - layers: data layers 1...32 (1...4 when compact); nil takes the fewest that fit.
    ///   - compact: true for a compact symbol, false for a full-range one, nil for the smaller
    ///     that fits.
    /// - Throws: `PixelFlowError.invalidParameter` for a level or layer count out of range, or
    ///   a message that does not fit the layers asked for (or any symbol: about 1900 bytes).
    public static func aztecCode(
        message: String, correctionLevel: Double? = nil, layers: Int? = nil, compact: Bool? = nil
    ) throws -> Image {
        try FilterDescriptor.aztecCodeGenerator.apply([
            "inputMessage": .data(Array(message.utf8)), "inputCorrectionLevel": correctionLevel.map(FilterValue.number),
            "inputLayers": layers.map { .number(Double($0)) },
            "inputCompactStyle": .number(compact.map { $0 ? 1 : 0 } ?? -1),
        ])
    }

    /// The image of a laid-out Aztec symbol: one opaque pixel per module.
    static func aztecCode(_ symbol: AztecEncoder.Symbol) throws -> Image {
        try Image._barcode(modules: symbol.modules, columns: symbol.size, rows: symbol.size)
    }
}

/// Aztec code (ISO/IEC 24778) encoding: bytes to the fewest bits of the five character modes
/// and binary shifts, bit stuffing into codewords, Reed-Solomon check codewords, the mode
/// message, and the layout of layers around the bull's-eye.
enum AztecEncoder {
    /// A laid-out symbol: `size` x `size` modules, row-major, true for dark.
    struct Symbol {
        let size: Int
        let compact: Bool
        let layers: Int
        let dataCodewords: Int
        /// Every codeword (data, then check words) and their size in bits.
        let codewords: [Int]
        let wordSize: Int
        let modules: [Bool]
    }

    static func fail(_ key: String, _ reason: String) -> PixelFlowError {
        .invalidParameter(filter: "CIAztecCodeGenerator", key: key, reason: reason)
    }

    // MARK: Character modes

    /// The five modes of the standard's character table.
    enum Mode: Int, CaseIterable {
        case upper, lower, mixed, punct, digit
        /// Bits of one code in the mode.
        var bits: Int { self == .digit ? 4 : 5 }
    }

    /// The code of byte `b` in `mode`, nil when the mode has none.
    static func code(_ b: UInt8, in mode: Mode) -> Int? {
        switch mode {
        case .upper:
            if b == 32 { return 1 }
            if b >= 65 && b <= 90 { return Int(b) - 63 }
        case .lower:
            if b == 32 { return 1 }
            if b >= 97 && b <= 122 { return Int(b) - 95 }
        case .mixed:
            if b == 32 { return 1 }
            if b >= 1 && b <= 13 { return Int(b) + 1 }
            if b >= 27 && b <= 31 { return Int(b) - 12 }
            if let i = mixedSymbols.firstIndex(of: b) { return 20 + i }
        case .punct:
            if b == 13 { return 1 }
            if let i = punctSymbols.firstIndex(of: b) { return 6 + i }
        case .digit:
            if b == 32 { return 1 }
            if b >= 48 && b <= 57 { return Int(b) - 46 }
            if b == 44 { return 12 }
            if b == 46 { return 13 }
        }
        return nil
    }

    /// Mixed mode codes 20-27: @ \ ^ _ ` | ~ DEL.
    static let mixedSymbols: [UInt8] = Array("@\\^_`|~".utf8) + [127]
    /// Punctuation mode codes 6-30 (1 is CR; the pairs 2-5 are not used by this encoder).
    static let punctSymbols: [UInt8] = Array("!\"#$%&'()*+,-./:;<=>?[]{}".utf8)

    /// A piece of the bit stream: `value` in `count` bits, most significant first.
    typealias Token = (value: Int, count: Int)

    /// The shortest latch from one mode to another (the standard's latch codes; lower and
    /// digit reach upper only through another mode or U/L).
    static func latch(from a: Mode, to b: Mode) -> [Token] {
        if a == b { return [] }
        switch (a, b) {
        case (.upper, .lower), (.mixed, .lower): return [(28, 5)]
        case (.upper, .mixed), (.lower, .mixed): return [(29, 5)]
        case (.upper, .digit), (.lower, .digit): return [(30, 5)]
        case (.upper, .punct), (.lower, .punct): return [(29, 5), (30, 5)]
        case (.lower, .upper): return [(30, 5), (14, 4)]
        case (.mixed, .upper): return [(29, 5)]
        case (.mixed, .punct): return [(30, 5)]
        case (.mixed, .digit): return [(29, 5), (30, 5)]
        case (.punct, .upper): return [(31, 5)]
        case (.digit, .upper): return [(14, 4)]
        case (.punct, _), (.digit, _): return latch(from: a, to: .upper) + latch(from: .upper, to: b)
        default: return []
        }
    }

    static func cost(_ tokens: [Token]) -> Int { tokens.reduce(0) { $0 + $1.count } }

    /// One step of the shortest path: tokens for a character in a mode, or a byte in a binary
    /// shift (`startsRun`: the first of its run, after `tokens` latch into the shift's mode).
    struct Step {
        var previous: Int
        var tokens: [Token]
        var binaryByte: UInt8?
        var startsRun: Bool
    }

    /// The message as the fewest bits this encoder finds: a shortest path over the states
    /// upper, lower, mixed, punctuation and digit mode (0-4), and "in a binary shift entered
    /// from upper, lower or mixed" with a short (5-bit, at most 31 bytes: states 5-7) or long
    /// (16-bit: states 8-10) length field, one step per byte. Characters cost their latches,
    /// shifts (upper from lower or digit, punctuation from any other mode) and code; a byte in
    /// a binary shift costs 8 bits, plus 10 (short) or 21 (long) to open the shift. Runs longer
    /// than 2078 bytes are cut into several shifts.
    static func bits(for message: [UInt8]) -> [Bool] {
        let modes = Mode.allCases
        let unreachable = Int.max / 4
        let binaryModes: [Mode] = [.upper, .lower, .mixed]
        let states = 11
        var cost = [Int](repeating: unreachable, count: states)
        var runLength = [Int](repeating: 0, count: states)
        cost[Mode.upper.rawValue] = 0
        var steps: [[Step]] = []
        steps.reserveCapacity(message.count)
        for b in message {
            var next = [Int](repeating: unreachable, count: states)
            var nextRun = [Int](repeating: 0, count: states)
            var step = [Step](repeating: Step(previous: 0, tokens: [], binaryByte: nil, startsRun: false), count: states)
            func offer(_ to: Int, _ from: Int, _ c: Int, _ s: Step, run: Int = 0) {
                if c < next[to] {
                    next[to] = c
                    nextRun[to] = run
                    step[to] = s
                }
            }
            for state in 0..<states where cost[state] < unreachable {
                // The text mode this state is in (a binary shift returns to its mode).
                let mode = state < 5 ? modes[state] : binaryModes[(state - 5) % 3]
                let base = cost[state]
                for to in modes {
                    if let c = code(b, in: to) {
                        let tokens = latch(from: mode, to: to) + [(c, to.bits)]
                        offer(
                            to.rawValue, state, base + self.cost(tokens),
                            Step(previous: state, tokens: tokens, binaryByte: nil, startsRun: false))
                    }
                }
                if let c = code(b, in: .upper), mode == .lower || mode == .digit {
                    let tokens: [Token] = [(mode == .lower ? 28 : 15, mode.bits), (c, 5)]
                    offer(
                        mode.rawValue, state, base + self.cost(tokens),
                        Step(previous: state, tokens: tokens, binaryByte: nil, startsRun: false))
                }
                if let c = code(b, in: .punct), mode != .punct {
                    let tokens: [Token] = [(0, mode.bits), (c, 5)]
                    offer(
                        mode.rawValue, state, base + self.cost(tokens),
                        Step(previous: state, tokens: tokens, binaryByte: nil, startsRun: false))
                }
                // Another byte in the current shift.
                let run = runLength[state]
                if state >= 5 && state < 8 && run < 31 {
                    offer(
                        state, state, base + 8, Step(previous: state, tokens: [], binaryByte: b, startsRun: false), run: run + 1)
                }
                if state >= 8 {
                    let extra = run % 2078 == 0 ? 29 : 8
                    offer(
                        state, state, base + extra, Step(previous: state, tokens: [], binaryByte: b, startsRun: false),
                        run: run + 1)
                }
                // A new shift, short or long, from this state's mode.
                for (k, via) in binaryModes.enumerated() {
                    let tokens = latch(from: mode, to: via)
                    let opening = base + self.cost(tokens)
                    offer(
                        5 + k, state, opening + 18, Step(previous: state, tokens: tokens, binaryByte: b, startsRun: true), run: 1)
                    offer(
                        8 + k, state, opening + 29, Step(previous: state, tokens: tokens, binaryByte: b, startsRun: true), run: 1)
                }
            }
            cost = next
            runLength = nextRun
            steps.append(step)
        }
        var state = (0..<states).min { cost[$0] < cost[$1] } ?? 0
        var path: [Step] = []
        for column in steps.reversed() {
            let s = column[state]
            path.append(s)
            state = s.previous
        }
        path.reverse()
        var tokens: [Token] = []
        var i = 0
        while i < path.count {
            guard path[i].binaryByte != nil else {
                tokens += path[i].tokens
                i += 1
                continue
            }
            tokens += path[i].tokens
            var run: [UInt8] = [path[i].binaryByte!]
            i += 1
            while i < path.count, let byte = path[i].binaryByte, !path[i].startsRun {
                run.append(byte)
                i += 1
            }
            tokens += binaryShift(run[...])
        }
        var out: [Bool] = []
        out.reserveCapacity(cost.min() ?? 0)
        for t in tokens { for k in stride(from: t.count - 1, through: 0, by: -1) { out.append((t.value >> k) & 1 == 1) } }
        return out
    }

    /// B/S, the length (5 bits up to 31, else 0 and 11 bits of length - 31) and the bytes,
    /// repeated for runs over 2078 bytes.
    static func binaryShift(_ bytes: ArraySlice<UInt8>) -> [Token] {
        var tokens: [Token] = []
        var rest = bytes
        while !rest.isEmpty {
            let chunk = rest.prefix(2078)
            rest = rest.dropFirst(chunk.count)
            tokens.append((31, 5))
            if chunk.count <= 31 {
                tokens.append((chunk.count, 5))
            } else {
                tokens.append((0, 5))
                tokens.append((chunk.count - 31, 11))
            }
            for b in chunk { tokens.append((Int(b), 8)) }
        }
        return tokens
    }

    // MARK: Codewords

    /// Bits in all layers of a symbol.
    static func capacityBits(layers: Int, compact: Bool) -> Int { ((compact ? 88 : 112) + 16 * layers) * layers }

    /// Codeword size in bits for a layer count.
    static func wordSize(layers: Int) -> Int { layers <= 2 ? 6 : layers <= 8 ? 8 : layers <= 22 ? 10 : 12 }

    /// `bits` cut into codewords of `size` bits: a word whose first size-1 bits are all equal
    /// gets the opposite bit last (and takes only those size-1 bits); the end is padded with
    /// ones under the same rule.
    static func stuffed(_ bits: [Bool], size: Int) -> [Int] {
        var words: [Int] = []
        let mask = (1 << size) - 2
        var i = 0
        while i < bits.count {
            var word = 0
            for j in 0..<size where i + j >= bits.count || bits[i + j] { word |= 1 << (size - 1 - j) }
            if word & mask == mask {
                words.append(word & mask)
                i += size - 1
            } else if word & mask == 0 {
                words.append(word | 1)
                i += size - 1
            } else {
                words.append(word)
                i += size
            }
        }
        return words
    }

    /// The primitive polynomial of GF(2^m) for the codeword sizes and the mode message.
    static func fieldPolynomial(bits: Int) -> Int {
        switch bits {
        case 4: return 0x13  // x^4 + x + 1
        case 6: return 0x43  // x^6 + x + 1
        case 8: return 0x12D  // x^8 + x^5 + x^3 + x^2 + 1
        case 10: return 0x409  // x^10 + x^3 + 1
        default: return 0x1069  // x^12 + x^6 + x^5 + x^3 + 1
        }
    }

    /// `count` Reed-Solomon check words for `data` over GF(2^bits), generator roots alpha^1
    /// to alpha^count.
    static func checkWords(_ data: [Int], count: Int, bits: Int) -> [Int] {
        let order = (1 << bits) - 1
        var exp = [Int](repeating: 0, count: 2 * order)
        var log = [Int](repeating: 0, count: order + 1)
        var x = 1
        for i in 0..<order {
            exp[i] = x
            exp[i + order] = x
            log[x] = i
            x <<= 1
            if x > order { x ^= fieldPolynomial(bits: bits) }
        }
        func mul(_ a: Int, _ b: Int) -> Int { a == 0 || b == 0 ? 0 : exp[log[a] + log[b]] }
        // g(x) = (x - a^1)...(x - a^count), highest coefficient first.
        var g = [1]
        for i in 1...count {
            var next = g + [0]
            for (k, c) in g.enumerated() { next[k + 1] ^= mul(c, exp[i % order]) }
            g = next
        }
        var remainder = [Int](repeating: 0, count: count)
        for d in data {
            let factor = d ^ remainder[0]
            remainder.removeFirst()
            remainder.append(0)
            for k in 0..<count { remainder[k] ^= mul(g[k + 1], factor) }
        }
        return remainder
    }

    // MARK: Symbol

    /// The symbol for `message`: the fewest layers (compact first at each size when `compact`
    /// is nil) whose capacity holds the stuffed data words and check words of at least
    /// `correctionPercent`% of the data bits plus 11 bits; `layers` > 0 forces the count.
    static func symbol(for message: [UInt8], correctionPercent: Double, layers: Int, compact: Bool?) throws -> Symbol {
        guard correctionPercent >= 5, correctionPercent <= 95 else {
            throw fail("inputCorrectionLevel", "must be 5...95, got \(correctionPercent)")
        }
        if layers > 4 && compact == true {
            throw fail("inputLayers", "a compact symbol has 1-4 layers, got \(layers)")
        }
        guard layers >= 0, layers <= 32 else { throw fail("inputLayers", "must be 0...32, got \(layers)") }
        let data = bits(for: message)
        let eccBits = data.count * Int(correctionPercent.rounded()) / 100 + 11
        var candidates: [(layers: Int, compact: Bool)] = []
        if layers > 0 {
            candidates = [(layers, compact ?? (layers <= 4 ? true : false))]
            if compact == nil && layers <= 4 { candidates.append((layers, false)) }
        } else {
            if compact != false { candidates += (1...4).map { ($0, true) } }
            if compact != true { candidates += (1...32).map { ($0, false) } }
            // By size (11 + 4L compact, 14 + 4L full before its grid lines), compact first.
            candidates.sort { ($0.compact ? 11 : 14) + 4 * $0.layers < ($1.compact ? 11 : 14) + 4 * $1.layers }
        }
        for c in candidates {
            let total = capacityBits(layers: c.layers, compact: c.compact)
            if total < data.count + eccBits { continue }
            let size = wordSize(layers: c.layers)
            // An empty message still needs one data word: ones but the last bit, as padding.
            let words = data.isEmpty ? [(1 << size) - 2] : stuffed(data, size: size)
            let usable = total - total % size
            if words.count * size + eccBits > usable { continue }
            if words.count > (c.compact ? 64 : 2048) { continue }
            return layout(words: words, wordSize: size, layers: c.layers, compact: c.compact)
        }
        if layers > 0 {
            throw fail(
                "inputLayers", "\(message.count) bytes need more than \(layers) layers at \(correctionPercent)% correction")
        }
        throw fail("inputMessage", "\(message.count) bytes do not fit an Aztec symbol at \(correctionPercent)% correction")
    }

    /// Lays out data words, their check words and the mode message around the bull's-eye.
    static func layout(words: [Int], wordSize size: Int, layers: Int, compact: Bool) -> Symbol {
        let total = capacityBits(layers: layers, compact: compact)
        let totalWords = total / size
        let all = words + checkWords(words, count: totalWords - words.count, bits: size)
        return place(codewords: all, wordSize: size, layers: layers, compact: compact, dataCodewords: words.count)
    }

    /// Lays out every codeword (data then check words, `capacityBits / wordSize` of them) and
    /// the mode message (layers and `dataCount`) around the bull's-eye.
    static func place(codewords all: [Int], wordSize size: Int, layers: Int, compact: Bool, dataCodewords dataCount: Int)
        -> Symbol
    {
        let total = capacityBits(layers: layers, compact: compact)
        // The layers' bits: the remainder of the capacity first (zeros), then every codeword.
        var message = [Bool](repeating: false, count: total % size)
        for w in all { for i in stride(from: size - 1, through: 0, by: -1) { message.append((w >> i) & 1 == 1) } }

        let base = (compact ? 11 : 14) + 4 * layers
        // Full symbols have reference grid lines every 16 modules from the center: `place`
        // maps positions of the symbol without them to the symbol's.
        let n: Int
        var place = [Int](repeating: 0, count: base)
        if compact {
            n = base
            for i in 0..<base { place[i] = i }
        } else {
            n = base + 1 + 2 * ((base / 2 - 1) / 15)
            let half = base / 2, center = n / 2
            for i in 0..<half {
                let offset = i + i / 15
                place[half - i - 1] = center - offset - 1
                place[half + i] = center + offset + 1
            }
        }
        var m = [Bool](repeating: false, count: n * n)
        func set(_ x: Int, _ y: Int) { m[y * n + x] = true }

        // Layer i (0 outermost) is two modules deep; its four sides are filled counterclockwise
        // from the top-left corner going down: left side downward, bottom rightward, right
        // upward, top leftward, each a run of 2-module dominoes across the layer.
        var offset = 0
        for i in 0..<layers {
            let side = (layers - i) * 4 + (compact ? 9 : 12)
            for j in 0..<side {
                for k in 0..<2 {
                    let near = 2 * i + k, far = base - 1 - 2 * i - k
                    if message[offset + 2 * j + k] { set(place[near], place[2 * i + j]) }
                    if message[offset + 2 * side + 2 * j + k] { set(place[2 * i + j], place[far]) }
                    if message[offset + 4 * side + 2 * j + k] { set(place[far], place[base - 1 - 2 * i - j]) }
                    if message[offset + 6 * side + 2 * j + k] { set(place[base - 1 - 2 * i - j], place[near]) }
                }
            }
            offset += 8 * side
        }

        // The mode message: layer count - 1 and data word count - 1, with GF(16) check words,
        // on the ring just outside the bull's-eye, clockwise from the top-left.
        var modeWords: [Int]
        if compact {
            let v = (layers - 1) << 6 | (dataCount - 1)
            modeWords = [v >> 4, v & 15]
            modeWords += checkWords(modeWords, count: 5, bits: 4)
        } else {
            let v = (layers - 1) << 11 | (dataCount - 1)
            modeWords = [v >> 12, (v >> 8) & 15, (v >> 4) & 15, v & 15]
            modeWords += checkWords(modeWords, count: 6, bits: 4)
        }
        var mode: [Bool] = []
        for w in modeWords { for i in stride(from: 3, through: 0, by: -1) { mode.append((w >> i) & 1 == 1) } }
        let c = n / 2
        if compact {
            for i in 0..<7 {
                let p = c - 3 + i
                if mode[i] { set(p, c - 5) }
                if mode[i + 7] { set(c + 5, p) }
                if mode[20 - i] { set(p, c + 5) }
                if mode[27 - i] { set(c - 5, p) }
            }
        } else {
            for i in 0..<10 {
                let p = c - 5 + i + i / 5
                if mode[i] { set(p, c - 7) }
                if mode[i + 10] { set(c + 7, p) }
                if mode[29 - i] { set(p, c + 7) }
                if mode[39 - i] { set(c - 7, p) }
            }
        }

        // The bull's-eye: dark rings at even distances from the center, and the orientation
        // marks at the corners of the mode message's ring (3, 2, 1 and 0 dark modules).
        let r = compact ? 5 : 7
        for d in stride(from: 0, to: r, by: 2) {
            for t in (c - d)...(c + d) {
                set(t, c - d)
                set(t, c + d)
                set(c - d, t)
                set(c + d, t)
            }
        }
        set(c - r, c - r)
        set(c - r + 1, c - r)
        set(c - r, c - r + 1)
        set(c + r, c - r)
        set(c + r, c - r + 1)
        set(c + r, c + r - 1)

        // Full symbols: the reference grid, alternating modules dark at the center's parity.
        if !compact {
            var line = 0
            var i = 0
            while i < base / 2 - 1 {
                for t in stride(from: c & 1, to: n, by: 2) {
                    set(c - line, t)
                    set(c + line, t)
                    set(t, c - line)
                    set(t, c + line)
                }
                i += 15
                line += 16
            }
        }
        return Symbol(
            size: n, compact: compact, layers: layers, dataCodewords: dataCount, codewords: all, wordSize: size, modules: m)
    }
}
