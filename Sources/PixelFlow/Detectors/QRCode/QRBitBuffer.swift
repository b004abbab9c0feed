/// A growable sequence of bits, most significant bit of each value first, as QR code
/// segments are written.
public struct QRBitBuffer: Sendable, Hashable {
    /// The bits in order.
    public private(set) var bits: [Bool] = []

    /// An empty buffer.
    public init() {}

    /// Number of bits.
    public var count: Int { bits.count }

    /// Appends the low `length` bits of `value`, most significant first.
    /// - Precondition: `0 <= length <= 31` and `value < 2^length`.
    public mutating func append(_ value: Int, length: Int) {
        precondition(
            length >= 0 && length <= 31 && value >= 0 && value >> length == 0,
            "\(value) does not fit in \(length) bits")
        for i in stride(from: length - 1, through: 0, by: -1) { bits.append((value >> i) & 1 == 1) }
    }

    /// Appends all bits of `other`.
    public mutating func append(contentsOf other: QRBitBuffer) { bits += other.bits }

    /// The bits packed into bytes, most significant bit first; the last byte is padded with zeros.
    public var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: (bits.count + 7) / 8)
        for i in 0..<bits.count where bits[i] { out[i >> 3] |= 0x80 >> UInt8(i & 7) }
        return out
    }
}

/// Reads bits from bytes, most significant first, never past the end.
struct QRBitReader {
    let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// Bits left to read.
    var remaining: Int { bytes.count * 8 - position }

    /// The next `length` (0...31) bits as an integer, or nil when fewer remain.
    mutating func read(_ length: Int) -> Int? {
        guard length >= 0, length <= 31, length <= remaining else { return nil }
        var v = 0
        for _ in 0..<length {
            let bit = (bytes[position >> 3] >> UInt8(7 - (position & 7))) & 1
            v = v << 1 | Int(bit)
            position += 1
        }
        return v
    }
}
