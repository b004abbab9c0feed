// Helpers shared by the codecs: byte-order reads, checked sizes, C messages, and the
// normalization of buffers before encoding.

extension [UInt8] {
    /// Big-endian UInt16 at `offset`; the caller has checked `offset + 2 <= count`.
    @inline(__always) func _be16(_ offset: Int) -> Int { Int(self[offset]) << 8 | Int(self[offset + 1]) }
    /// Big-endian UInt32 at `offset`; the caller has checked `offset + 4 <= count`.
    @inline(__always) func _be32(_ offset: Int) -> Int {
        Int(self[offset]) << 24 | Int(self[offset + 1]) << 16 | Int(self[offset + 2]) << 8 | Int(self[offset + 3])
    }
    /// Little-endian UInt16 at `offset`; the caller has checked `offset + 2 <= count`.
    @inline(__always) func _le16(_ offset: Int) -> Int { Int(self[offset]) | Int(self[offset + 1]) << 8 }
    /// Little-endian UInt32 at `offset`; the caller has checked `offset + 4 <= count`.
    @inline(__always) func _le32(_ offset: Int) -> Int {
        Int(self[offset]) | Int(self[offset + 1]) << 8 | Int(self[offset + 2]) << 16 | Int(self[offset + 3]) << 24
    }

    mutating func _appendLE16(_ v: Int) { append(UInt8(truncatingIfNeeded: v)); append(UInt8(truncatingIfNeeded: v >> 8)) }
    mutating func _appendLE32(_ v: Int) { _appendLE16(v); _appendLE16(v >> 16) }
    mutating func _appendASCII(_ s: String) { append(contentsOf: s.utf8) }
}

enum _Codec {
    /// The product of `factors`, or `nil` when it overflows or a factor is negative.
    static func product(_ factors: Int...) -> Int? {
        var p = 1
        for f in factors {
            guard f >= 0 else { return nil }
            let (r, o) = p.multipliedReportingOverflow(by: f)
            if o { return nil }
            p = r
        }
        return p
    }

    /// Hands the next `count` rows of a row decoder to `decode` in batches of at most 64 row
    /// pointers (row `i` at `rows(i)`), with the batch's size, in order; stops at the first
    /// batch that throws.
    static func readRowBatches(
        count: Int, into rows: (Int) -> UnsafeMutableRawPointer,
        _ decode: (UnsafePointer<UnsafeMutablePointer<UInt8>?>?, Int) throws -> Void
    ) rethrows {
        var pointers = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: Swift.min(count, 64))
        var done = 0
        while done < count {
            let n = Swift.min(pointers.count, count - done)
            for i in 0..<n { pointers[i] = rows(done + i).assumingMemoryBound(to: UInt8.self) }
            try pointers.withUnsafeBufferPointer { try decode($0.baseAddress, n) }
            done += n
        }
    }

    /// The NUL-terminated message a C shim wrote into `buffer`.
    static func message(_ buffer: [CChar]) -> String {
        let end = buffer.firstIndex(of: 0) ?? buffer.count
        let text = String(decoding: buffer[..<end].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? "unknown error" : text
    }

    /// A buffer of uninitialized pixels to decode into, in the layout every decoder returns:
    /// sRGB-encoded, straight alpha.
    static func makeDecodedBuffer(width: Int, height: Int, format: PixelFormat) throws -> PixelBuffer {
        try PixelBuffer(
            _width: width, height: height, format: format, colorEncoding: .sRGB,
            alphaMode: .straight, zeroed: false)
    }

    /// `buffer` as one of the integer layouts the encoders write (`rgba8`, `rgba16`, `gray8`),
    /// sRGB-encoded with straight alpha: float buffers and the other byte orders (`bgra8`,
    /// `argb8`) become `rgba8` (`grayF32` becomes `gray8`); linear or premultiplied integer
    /// buffers are converted in their own format.
    static func encodable(_ buffer: PixelBuffer) -> PixelBuffer {
        switch buffer.format {
        case .rgbaF32, .bgra8, .argb8:
            return buffer.converted(to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
        case .grayF32:
            return buffer.converted(to: .gray8, colorEncoding: .sRGB, alphaMode: .straight)
        case .rgba8, .rgba16:
            if buffer.colorEncoding == .sRGB && buffer.alphaMode == .straight { return buffer }
            return buffer.converted(to: buffer.format, colorEncoding: .sRGB, alphaMode: .straight)
        case .gray8:
            if buffer.colorEncoding == .sRGB { return buffer }
            return buffer.converted(to: .gray8, colorEncoding: .sRGB, alphaMode: .straight)
        }
    }

    /// True when every alpha value of an `rgba8` or `rgba16` buffer is the maximum
    /// (always true for gray).
    static func isOpaque(_ buffer: PixelBuffer) -> Bool {
        var opaque = true
        switch buffer.format {
        case .rgba8:
            buffer.withUnsafeRows { _, row in
                guard opaque else { return }
                let p = row.assumingMemoryBound(to: UInt8.self)
                for x in 0..<buffer.width where p[x &* 4 &+ 3] != 255 { opaque = false; return }
            }
        case .rgba16:
            buffer.withUnsafeRows { _, row in
                guard opaque else { return }
                let p = row.assumingMemoryBound(to: UInt16.self)
                for x in 0..<buffer.width where p[x &* 4 &+ 3] != 65535 { opaque = false; return }
            }
        default:
            break
        }
        return opaque
    }

    /// Throws `invalidParameter` unless `quality` is in 1...100.
    static func checkQuality(_ quality: Int, format: ImageFileFormat) throws {
        guard (1...100).contains(quality) else {
            throw PixelFlowError.invalidParameter(
                filter: "\(format.rawValue) encoder", key: "quality",
                reason: "must be in 1...100, got \(quality)")
        }
    }
}
