extension QRSegment {
    /// The cheapest segments for `text` in `version`: a dynamic program over the characters
    /// picks, for each, numeric, alphanumeric, byte (UTF-8) or kanji mode, counting exactly
    /// the bits of every segment header and of the partial groups of numeric and
    /// alphanumeric mode.
    ///
    /// Only the character-count widths of `version` matter, so versions 1-9, 10-26 and 27-40
    /// each share one answer.
    ///
    /// ```swift
    /// QRSegment.optimalSegments(for: "ABC1234567890abc", version: QRVersion(1)!)
    /// // alphanumeric("ABC"), numeric("1234567890"), byte(3 bytes)
    /// ```
    ///
    /// - Parameters:
    ///   - allowKanji: use kanji mode for JIS X 0208 characters (13 bits instead of
    ///   - text: the text to encode.
    ///   - version: the symbol version the segments are for (only its character-count widths matter).
    ///     24 for UTF-8); readers decode it to the same text.
    /// - Complexity: O(n) for n Unicode scalars, with 7 states per scalar.
    public static func optimalSegments(for text: String, version: QRVersion, allowKanji: Bool = true) -> [QRSegment] {
        var units: [_Unit] = []
        for s in text.unicodeScalars {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(4)
            for b in UTF8.encode(s)! { bytes.append(b) }
            units.append(_Unit(bytes: bytes, kanji: allowKanji ? ShiftJIS.kanjiCode(for: s) : nil))
        }
        return _segments(units, version: version)
    }

    /// The cheapest segments holding exactly `bytes`: numeric and alphanumeric mode for runs
    /// of ASCII digits and alphanumeric characters where they save bits, byte mode for the rest.
    public static func optimalSegments(forBytes bytes: [UInt8], version: QRVersion) -> [QRSegment] {
        _segments(bytes.map { _Unit(bytes: [$0], kanji: nil) }, version: version)
    }

    /// One character: its bytes in byte mode and its Shift JIS code if kanji mode can hold it.
    struct _Unit {
        var bytes: [UInt8]
        var kanji: UInt16?
        var isDigit: Bool { bytes.count == 1 && bytes[0] >= 48 && bytes[0] <= 57 }
        var isAlphanumeric: Bool { bytes.count == 1 && QRSegment.alphanumericCode(bytes[0]) != nil }
    }

    // States: numeric with run length = 1, 2, 0 (mod 3); alphanumeric with odd, even run
    // length; byte; kanji.
    private static let _stateModes: [Mode] = [.numeric, .numeric, .numeric, .alphanumeric, .alphanumeric, .byte, .kanji]

    static func _segments(_ units: [_Unit], version: QRVersion) -> [QRSegment] {
        if units.isEmpty { return [] }
        let stateCount = 7
        let unreachable = Int.max / 4
        let header = _stateModes.map { 4 + $0.characterCountBits(version: version) }
        var cost = [Int](repeating: unreachable, count: stateCount)
        // parent[i * 7 + s]: the state of unit i - 1 on the cheapest path to state s at unit i.
        var parent = [Int8](repeating: -1, count: units.count * stateCount)

        for (i, u) in units.enumerated() {
            var next = [Int](repeating: unreachable, count: stateCount)
            func relax(_ s: Int, _ c: Int, from p: Int) {
                if c < next[s] {
                    next[s] = c
                    parent[i * stateCount + s] = Int8(p)
                }
            }
            // A new segment starts from any state of another mode (starting a new segment in
            // the same mode never saves bits).
            func start(_ s: Int, _ firstBits: Int) {
                if i == 0 {
                    relax(s, header[s] + firstBits, from: -1)
                    return
                }
                for p in 0..<stateCount where _stateModes[p] != _stateModes[s] && cost[p] < unreachable {
                    relax(s, cost[p] + header[s] + firstBits, from: p)
                }
            }
            if u.isDigit {
                start(0, 4)
                if i > 0 {
                    relax(1, cost[0] + 3, from: 0)
                    relax(2, cost[1] + 3, from: 1)
                    relax(0, cost[2] + 4, from: 2)
                }
            }
            if u.isAlphanumeric {
                start(3, 6)
                if i > 0 {
                    relax(4, cost[3] + 5, from: 3)
                    relax(3, cost[4] + 6, from: 4)
                }
            }
            let byteBits = 8 * u.bytes.count
            start(5, byteBits)
            if i > 0 { relax(5, cost[5] + byteBits, from: 5) }
            if u.kanji != nil {
                start(6, 13)
                if i > 0 { relax(6, cost[6] + 13, from: 6) }
            }
            cost = next
        }

        // Walk back from the cheapest final state, then cut where the mode changes.
        var state = 0
        for s in 1..<stateCount where cost[s] < cost[state] { state = s }
        var modes = [Mode](repeating: .byte, count: units.count)
        for i in stride(from: units.count - 1, through: 0, by: -1) {
            modes[i] = _stateModes[state]
            state = Int(parent[i * stateCount + state])
        }
        var segments: [QRSegment] = []
        var start = 0
        while start < units.count {
            var end = start + 1
            while end < units.count, modes[end] == modes[start] { end += 1 }
            let run = units[start..<end]
            switch modes[start] {
            case .numeric: segments.append(.numeric(asciiDigits: run.map { $0.bytes[0] }))
            case .alphanumeric: segments.append(.alphanumeric(ascii: run.map { $0.bytes[0] }))
            case .kanji: segments.append(.kanji(codes: run.map { $0.kanji! }))
            default: segments.append(.bytes(run.flatMap(\.bytes)))
            }
            start = end
        }
        return segments
    }
}
