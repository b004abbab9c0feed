import PixelFlow

/// The QR targets: decoding a module grid, and detecting codes in a small gray image.
enum QRTargets {
    /// Layout: a size byte (below 160: 21 + 4 x (b mod 40), a real version's size; else
    /// b - 160, any size from 0 to 95), then the modules row by row, eight to a byte, most
    /// significant bit first (light past the end).
    static func decodeMatrix(_ bytes: [UInt8]) {
        var r = ByteReader(bytes)
        let b = Int(r.byte())
        let size = b < 160 ? 21 + 4 * (b % 40) : b - 160
        let bits = r.remaining
        let matrix = QRBitMatrix(size: size) { x, y in
            let i = y * size + x, byte = bits.startIndex + i / 8
            return byte < bits.endIndex && bits[byte] & (0x80 >> UInt8(i % 8)) != 0
        }
        var decoder = QRCodeDecoder()
        decoder.triesMirrored = b & 1 == 0
        do {
            let decoded = try decoder.decode(matrix)
            _ = decoded.message
        } catch {
            expectPixelFlowError(error, "QR decode")
        }
    }

    /// Layout: width - 1 and height - 1 (bytes, so at most 256 x 256), an options byte, then
    /// the gray pixels row by row (white past the end).
    static func detect(_ bytes: [UInt8]) {
        var r = ByteReader(bytes)
        let width = 1 + Int(r.byte()), height = 1 + Int(r.byte())
        let flags = r.byte()
        let pixels = r.remaining
        guard var buffer = try? PixelBuffer(width: width, height: height, format: .gray8) else {
            preconditionFailure("a \(width)x\(height) buffer must be creatable")
        }
        buffer.withUnsafeMutableRows { y, row in
            for x in 0..<width {
                let i = pixels.startIndex + y * width + x
                row.storeBytes(of: i < pixels.endIndex ? pixels[i] : 255, toByteOffset: x, as: UInt8.self)
            }
        }
        var options = DetectorOptions()
        options.tryHarder = flags & 1 != 0
        options.accuracy = flags & 2 != 0 ? .high : .low
        do {
            for feature in try QRCodeDetector(options: options).features(in: buffer) {
                precondition(
                    feature.bounds.width.isFinite && feature.bounds.height.isFinite,
                    "a feature with non-finite bounds: \(feature.bounds)")
            }
        } catch {
            expectPixelFlowError(error, "QR detect")
        }
    }
}
