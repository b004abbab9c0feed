@testable import PixelFlow

/// Helpers shared by the byte-form tests (ByteColorTests, ByteLinearTests, ByteBlendTests).
enum ByteFormTesting {
    /// The rows of `b` without padding, `width * bytesPerPixel` bytes each.
    static func bytes(of b: PixelBuffer) -> [UInt8] {
        var out: [UInt8] = []
        b.withUnsafeBytes { raw in
            for y in 0..<b.height { out += raw[y * b.bytesPerRow..<y * b.bytesPerRow + b.width * b.format.bytesPerPixel] }
        }
        return out
    }

    /// The largest difference between two byte arrays, element by element.
    static func maxDifference(_ a: [UInt8], _ b: [UInt8]) -> Int {
        zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? 0
    }

    /// Matrices that keep alpha: sepia, a saturation/brightness/contrast mix, an inversion,
    /// one that reads alpha, and a wide one (coefficients up to 3).
    static let matrices: [(String, ColorMatrix)] = [
        (
            "sepia",
            ColorMatrix(rows: [0.393, 0.769, 0.189, 0], [0.349, 0.686, 0.168, 0], [0.272, 0.534, 0.131, 0], [0, 0, 0, 1])
        ),
        ("controls", ColorMatrix.colorControls(saturation: 1.4, brightness: 0.05, contrast: 1.2)),
        ("invert", ColorMatrix(rows: [-1, 0, 0, 0], [0, -1, 0, 0], [0, 0, -1, 0], [0, 0, 0, 1], bias: [1, 1, 1, 0])),
        ("reads alpha", ColorMatrix(rows: [0.5, 0.1, 0, 0.3], [0, 0.9, 0, 0], [0.2, 0.2, 0.2, 0.1], [0, 0, 0, 1])),
        (
            "wide",
            ColorMatrix(
                rows: [3, -2.5, 0.7, 0], [-1.2, 2.9, -0.4, 0], [0.1, -0.3, 2.2, 0], [0, 0, 0, 1], bias: [-0.2, 0.1, 0.3, 0])
        ),
    ]
}
