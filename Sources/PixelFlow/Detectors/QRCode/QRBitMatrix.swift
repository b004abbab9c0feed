/// A square grid of QR code modules, dark (`true`) or light (`false`), without quiet zone.
///
/// The encoder produces one; the decoder reads one. A detector samples the module centres
/// of a symbol found in a photo into a matrix (top-left finder pattern at the origin) and
/// hands it to `QRCodeDecoder`.
///
/// ```swift
/// var m = QRBitMatrix(size: 21)
/// m[3, 4] = true                        // x = 3 (column), y = 4 (row)
/// print(m)                              // rows of 0 and 1
/// ```
public struct QRBitMatrix: Sendable, Hashable, CustomStringConvertible {
    /// Modules on a side.
    public let size: Int
    /// The modules row by row: module (x, y) is `modules[y * size + x]`; always
    /// `size * size` of them (set them through the subscript).
    public internal(set) var modules: [Bool]

    /// An all-light matrix of `size` x `size` modules (size >= 0).
    public init(size: Int) {
        self.size = max(size, 0)
        modules = [Bool](repeating: false, count: self.size * self.size)
    }

    /// A matrix whose module (x, y) is `isDark(x, y)`: how a detector samples an image.
    public init(size: Int, isDark: (_ x: Int, _ y: Int) throws -> Bool) rethrows {
        self.init(size: size)
        for y in 0..<self.size {
            for x in 0..<self.size { modules[y * self.size + x] = try isDark(x, y) }
        }
    }

    /// A matrix from text rows of `0`/`1` (or `.`/`#`, or space/`X`), all of the same length
    /// as their count; nil when the rows are not a square of those characters.
    public init?(rows: [String]) {
        let n = rows.count
        self.init(size: n)
        for (y, row) in rows.enumerated() {
            let chars = Array(row.utf8)
            guard chars.count == n else { return nil }
            for (x, c) in chars.enumerated() {
                switch c {
                case UInt8(ascii: "1"), UInt8(ascii: "#"), UInt8(ascii: "X"): modules[y * n + x] = true
                case UInt8(ascii: "0"), UInt8(ascii: "."), UInt8(ascii: " "): break
                default: return nil
                }
            }
        }
    }

    /// Module (x, y): x is the column, y the row, both from the top-left corner.
    /// Traps outside the matrix, like an array index.
    public subscript(x: Int, y: Int) -> Bool {
        get {
            precondition(x >= 0 && x < size && y >= 0 && y < size, "module (\(x), \(y)) outside \(size)x\(size)")
            return modules[y * size + x]
        }
        set {
            precondition(x >= 0 && x < size && y >= 0 && y < size, "module (\(x), \(y)) outside \(size)x\(size)")
            modules[y * size + x] = newValue
        }
    }

    /// The matrix mirrored along its main diagonal: module (x, y) becomes (y, x). A symbol
    /// seen from behind (or in a mirror), once rotated upright, reads as the transpose.
    public func transposed() -> QRBitMatrix {
        QRBitMatrix(size: size) { x, y in modules[x * size + y] }
    }

    /// The matrix flipped left to right.
    public func mirrored() -> QRBitMatrix {
        QRBitMatrix(size: size) { x, y in modules[y * size + (size - 1 - x)] }
    }

    /// The matrix turned 90 degrees clockwise.
    public func rotatedClockwise() -> QRBitMatrix {
        QRBitMatrix(size: size) { x, y in modules[(size - 1 - x) * size + y] }
    }

    /// Number of dark modules.
    public var darkCount: Int { modules.reduce(0) { $0 + ($1 ? 1 : 0) } }

    /// The rows as strings of `0` (light) and `1` (dark).
    public var rowStrings: [String] {
        (0..<size).map { y in String((0..<size).map { modules[y * size + $0] ? "1" : "0" }) }
    }

    /// The rows as lines of `0` and `1`.
    public var description: String { rowStrings.joined(separator: "\n") }
}
