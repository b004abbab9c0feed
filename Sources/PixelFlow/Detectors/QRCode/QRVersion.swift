/// One of the forty sizes of a QR code symbol, with the facts of ISO/IEC 18004 about it:
/// side length, alignment-pattern centres, codeword count and error-correction blocks.
///
/// ```swift
/// let v = QRVersion(7)!
/// v.size                                   // 45 modules
/// v.alignmentPatternCenters                // [6, 22, 38]
/// v.blocks(for: .medium).dataCodewords     // 124
/// ```
public struct QRVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The version number, 1...40.
    public let number: Int

    /// The smallest version, 1 (21 x 21 modules).
    public static let minimum = QRVersion(_unchecked: 1)
    /// The largest version, 40 (177 x 177 modules).
    public static let maximum = QRVersion(_unchecked: 40)
    /// All forty versions, smallest first.
    public static let all: [QRVersion] = (1...40).map(QRVersion.init(_unchecked:))

    /// The version `number`, or nil outside 1...40.
    public init?(_ number: Int) {
        guard (1...40).contains(number) else { return nil }
        self.number = number
    }

    /// The version whose symbol is `size` modules wide (21, 25, ..., 177), or nil.
    public init?(size: Int) {
        guard size >= 21, size <= 177, (size - 17) % 4 == 0 else { return nil }
        number = (size - 17) / 4
    }

    init(_unchecked number: Int) { self.number = number }

    /// Modules on a side, without quiet zone: 17 + 4 x version.
    public var size: Int { 17 + 4 * number }

    /// Row and column coordinates of the alignment-pattern centres (ISO/IEC 18004 Annex E);
    /// patterns sit at every pair of them except the three that overlap finder patterns.
    public var alignmentPatternCenters: [Int] { QRVersion._alignmentCenters[number - 1] }

    /// Modules left for data and error-correction codewords once every function pattern,
    /// the format and the version information are placed.
    public var dataModuleCount: Int {
        let n = size
        var modules = n * n - 3 * 64 - 31 - 2 * (n - 16)
        if number >= 2 {
            let k = number / 7 + 2
            modules -= 25 * (k * k - 3) - 10 * (k - 2)
        }
        if number >= 7 { modules -= 36 }
        return modules
    }

    /// Whole codewords the symbol holds (data plus error correction); the remaining 0 to 7
    /// modules are remainder bits.
    public var totalCodewords: Int { dataModuleCount / 8 }

    /// How the codewords are split into Reed-Solomon blocks at `level`.
    public func blocks(for level: QRErrorCorrectionLevel) -> QRBlockStructure {
        let i = number - 1
        let ec = QRVersion._ecCodewordsPerBlock[level.rawValue][i]
        let count = QRVersion._blockCount[level.rawValue][i]
        let data = totalCodewords - ec * count
        var p = 0
        switch (number, level) {
        case (1, .low): p = 3
        case (1, .medium), (2, .low): p = 2
        case (1, .quartile), (1, .high), (3, .low): p = 1
        default: p = 0
        }
        return QRBlockStructure(
            blockCount: count, longBlockCount: data % count,
            shortBlockDataCodewords: data / count, ecCodewordsPerBlock: ec,
            misdecodeProtectionCodewords: p)
    }

    /// Bits available for segments at `level`: 8 x data codewords.
    public func dataCapacityBits(for level: QRErrorCorrectionLevel) -> Int { blocks(for: level).dataCodewords * 8 }

    public static func < (l: QRVersion, r: QRVersion) -> Bool { l.number < r.number }
    public var description: String { "\(number)" }
}

/// The Reed-Solomon block structure of one version at one error-correction level
/// (ISO/IEC 18004 Table 9).
///
/// The data codewords are cut into `blockCount` blocks: the first
/// `blockCount - longBlockCount` hold `shortBlockDataCodewords` each, the others one more.
/// Every block gets `ecCodewordsPerBlock` parity codewords.
public struct QRBlockStructure: Sendable, Hashable {
    /// The number of blocks the data codewords are cut into.
    public let blockCount: Int
    /// Blocks that carry one data codeword more than the short ones; they come last.
    public let longBlockCount: Int
    /// The data codewords in each short block; long blocks hold one more.
    public let shortBlockDataCodewords: Int
    /// The Reed-Solomon parity codewords appended to every block.
    public let ecCodewordsPerBlock: Int
    /// Parity codewords reserved for detecting, not correcting, errors (the standard's p,
    /// non-zero only for the smallest symbols): a block is corrected only when it has at most
    /// `(ecCodewordsPerBlock - p) / 2` errors.
    public let misdecodeProtectionCodewords: Int

    /// Data codewords in all blocks together.
    public var dataCodewords: Int { blockCount * shortBlockDataCodewords + longBlockCount }

    /// Data codewords of block `i`.
    public func dataCodewords(inBlock i: Int) -> Int {
        shortBlockDataCodewords + (i >= blockCount - longBlockCount ? 1 : 0)
    }

    /// Errors a block may hold and still be corrected.
    public var correctableErrorsPerBlock: Int { (ecCodewordsPerBlock - misdecodeProtectionCodewords) / 2 }
}

extension QRVersion {
    // ISO/IEC 18004 Annex E, Table E.1.
    static let _alignmentCenters: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
        [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62],
        [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82],
        [6, 30, 58, 86], [6, 34, 62, 90],
        [6, 28, 50, 72, 94], [6, 26, 50, 74, 98], [6, 30, 54, 78, 102], [6, 28, 54, 80, 106],
        [6, 32, 58, 84, 110], [6, 30, 58, 86, 114], [6, 34, 62, 90, 118],
        [6, 26, 50, 74, 98, 122], [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130],
        [6, 30, 56, 82, 108, 134], [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142],
        [6, 34, 62, 90, 118, 146],
        [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154], [6, 28, 54, 80, 106, 132, 158],
        [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170],
    ]

    // ISO/IEC 18004 Table 9: error-correction codewords per block, rows L, M, Q, H, versions 1...40.
    static let _ecCodewordsPerBlock: [[Int]] = [
        [
            7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28,
            28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
            26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        ],
        [
            13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30,
            28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
        [
            17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28,
            30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
        ],
    ]

    // ISO/IEC 18004 Table 9: number of error-correction blocks, rows L, M, Q, H, versions 1...40.
    static let _blockCount: [[Int]] = [
        [
            1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8,
            8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25,
        ],
        [
            1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
            17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
        ],
        [
            1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20,
            23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
        ],
        [
            1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25,
            25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
        ],
    ]
}
