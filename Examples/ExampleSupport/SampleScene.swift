import Foundation
import PixelFlow

/// The examples' built-in "photo": an opaque landscape drawn in code (a sky gradient, a sun,
/// two hills, a house and a tree), so every example runs without an image file and gives
/// the same pixels on every machine.
public enum SampleScene {
    /// The scene at `width` x `height` pixels (shapes scale with the size), 8-bit sRGB.
    ///
    /// - Throws: `PixelFlowError.invalidDimensions` for a size PixelFlow cannot allocate.
    public static func make(width: Int = 480, height: Int = 320) throws -> PixelBuffer {
        var sky = try PixelBuffer(width: width, height: height, format: .rgba8)
        for y in 0..<height {
            // Deep blue at the top to a pale horizon.
            let t = Float(y) / Float(max(1, height - 1))
            let color = SIMD4<Float>(0.25 + 0.6 * t, 0.45 + 0.45 * t, 0.85 + 0.1 * t, 1)
            for x in 0..<width { sky[x, y] = color }
        }
        var canvas = Canvas(buffer: sky)
        // Drawing coordinates are a 480 x 320 design scaled to the buffer.
        canvas.transform = AffineTransform(scaleX: Double(width) / 480, y: Double(height) / 320)
        canvas.fillCircle(center: Point(x: 390, y: 70), radius: 34, color: Color(red: 1, green: 0.85, blue: 0.3))
        canvas.fillPolygon(hill(from: -20, to: 300, top: 150, base: 330), color: Color(red: 0.30, green: 0.62, blue: 0.28))
        canvas.fillPolygon(hill(from: 180, to: 520, top: 175, base: 330), color: Color(red: 0.20, green: 0.50, blue: 0.25))
        // A house: walls, roof, door, window.
        canvas.fillRect(Rect(x: 90, y: 200, width: 110, height: 80), color: Color(red: 0.93, green: 0.88, blue: 0.78))
        canvas.fillPolygon(
            [Point(x: 80, y: 202), Point(x: 145, y: 150), Point(x: 210, y: 202)],
            color: Color(red: 0.70, green: 0.20, blue: 0.15))
        canvas.fillRect(Rect(x: 130, y: 235, width: 26, height: 45), color: Color(red: 0.40, green: 0.25, blue: 0.15))
        canvas.fillRect(Rect(x: 167, y: 218, width: 22, height: 20), color: Color(red: 0.55, green: 0.80, blue: 0.95))
        canvas.strokeRect(Rect(x: 167, y: 218, width: 22, height: 20), width: 2, color: .white)
        // A tree.
        canvas.fillRect(Rect(x: 312, y: 215, width: 14, height: 55), color: Color(red: 0.45, green: 0.30, blue: 0.15))
        canvas.fillCircle(center: Point(x: 319, y: 200), radius: 32, color: Color(red: 0.15, green: 0.42, blue: 0.18))
        canvas.fillCircle(center: Point(x: 300, y: 215), radius: 20, color: Color(red: 0.18, green: 0.48, blue: 0.20))
        canvas.fillCircle(center: Point(x: 338, y: 215), radius: 20, color: Color(red: 0.18, green: 0.48, blue: 0.20))
        // A path.
        canvas.fillPolygon(
            [Point(x: 135, y: 280), Point(x: 152, y: 280), Point(x: 200, y: 320), Point(x: 120, y: 320)],
            color: Color(red: 0.78, green: 0.70, blue: 0.52))
        return canvas.buffer
    }

    /// A smooth hill outline from `from` to `to`, peaking at `top`, closed along `base`.
    static func hill(from x0: Double, to x1: Double, top: Double, base: Double) -> [Point] {
        var points: [Point] = []
        let steps = 24
        for i in 0...steps {
            let t = Double(i) / Double(steps)
            let x = x0 + (x1 - x0) * t
            // Half a cosine: top in the middle, base height at both ends.
            let y = top + (base - top) * 0.5 * (1 + cos(2 * Double.pi * t)) * 0.6
            points.append(Point(x: x, y: y))
        }
        points.append(Point(x: x1, y: base))
        points.append(Point(x: x0, y: base))
        return points
    }
}
