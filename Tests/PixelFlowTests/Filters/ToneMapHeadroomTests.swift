import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels

/// `CIToneMapHeadroom`: the roll-off of `headroomRollOff` on each pixel's largest channel,
/// checked against the formula written here in Double, and by the properties the curve must
/// have for every ratio of headrooms (identity below the knee, the source peak onto the target
/// peak, monotone, never above the target, slope 1 at the knee).
final class ToneMapHeadroomTests: XCTestCase {
    static func rollOff(_ x: Double, _ source: Double, _ target: Double) -> Double {
        let k = target / 2
        guard x > k else { return x }
        let u = min(1, (x - k) / (source - k)), a = (source - k) / (target - k)
        return k + (target - k) * a * u / (1 + (a - 1) * u)
    }

    func testMatchesTheFormulaOnRandomHDRPixels() throws {
        var hdr = TestImages.random(
            width: 41, height: 19, format: .rgbaF32, seed: 77, opaque: false, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<19 { for x in 0..<41 { var v = hdr[x, y] * 9; v.w = hdr[x, y].w; hdr[x, y] = v } }
        for (source, target) in [(8.0, 1.0), (8, 4), (4, 2.5), (16, 1)] {
            try assertPointFilter(
                hdr, tolerance: 1e-5 * 9, { try $0.toneMappedHeadroom(sourceHeadroom: source, targetHeadroom: target) }
            ) {
                v in
                let m = max(v.x, v.y, v.z)
                guard m > 0 else { return v }
                let s = Self.rollOff(m, source, target) / m
                return SIMD4(v.x * s, v.y * s, v.z * s, v.w)
            }
        }
    }

    func testCurveProperties() {
        for (source, target) in [(8.0, 1.0), (3, 2), (100, 4), (1000, 1), (1.01, 1)] as [(Float, Float)] {
            let knee = target / 2
            // The peak goes to the target; beyond it stays there.
            XCTAssertEqual(headroomRollOff(source, source: source, target: target), target, accuracy: 1e-5 * target)
            XCTAssertEqual(headroomRollOff(2 * source, source: source, target: target), target, accuracy: 1e-5 * target)
            // Identity below the knee, slope 1 just above it, monotone and bounded to the peak.
            XCTAssertEqual(headroomRollOff(knee * 0.9, source: source, target: target), knee * 0.9)
            let h = 1e-3 * knee
            let slope = (headroomRollOff(knee + h, source: source, target: target) - knee) / h
            XCTAssertEqual(slope, 1, accuracy: 0.01, "\(source) -> \(target)")
            var last: Float = -1
            for i in 0...1000 {
                let y = headroomRollOff(source * Float(i) / 1000, source: source, target: target)
                XCTAssertGreaterThanOrEqual(y, last, "\(source) -> \(target) at \(i)")
                XCTAssertLessThanOrEqual(y, target * (1 + 1e-6))
                last = y
            }
        }
    }

    func testNoChangeWithoutHeadroomToRemoveAndBadInput() throws {
        let image = Image(TestImages.random(width: 9, height: 7, format: .rgbaF32, seed: 5, opaque: true))
        let context = RenderContext()
        for (s, t) in [(1.0, 1.0), (2, 4), (4, 4)] {
            XCTAssertEqual(
                try context.makeBuffer(try image.toneMappedHeadroom(sourceHeadroom: s, targetHeadroom: t), format: .rgbaF32),
                try context.makeBuffer(image, format: .rgbaF32))
        }
        assertThrowsInvalidParameter("inputSourceHeadroom") { _ = try image.toneMappedHeadroom(sourceHeadroom: .nan) }
        assertThrowsInvalidParameter("inputTargetHeadroom") { _ = try image.toneMappedHeadroom(targetHeadroom: 0.5) }
    }
}
