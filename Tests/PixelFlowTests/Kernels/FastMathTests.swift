import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The vectorized pow against Double's, over the range gamma and exposure chains use.
final class FastMathTests: XCTestCase {
    func testSignedPowAgainstDouble() {
        var rng = SeededRandom(seed: 77)
        var worst = 0.0
        for p in [0.25, 0.45, 0.75, 1.0 / 2.4, 1, 2.2, 2.4, 4, 0.01] as [Float] {
            for _ in 0..<4000 {
                // Magnitudes from 1e-3 to 10, both signs (|p log2 x| <= 40 here).
                let mag = powf(10, rng.unit() * 4 - 3)
                let x = rng.unit() < 0.5 ? -mag : mag
                let got = fastSignedPow(SIMD4(repeating: x), p).x
                let ref = (x < 0 ? -1 : 1) * pow(Double(abs(x)), Double(p))
                guard abs(ref) > 1e-37, abs(ref) < 1e38 else { continue }
                let rel = abs(Double(got) - ref) / abs(ref)
                worst = max(worst, rel)
            }
        }
        XCTAssertLessThan(worst, 2e-6)  // tolerance: 2e-6 relative while |p log2 x| <= 40
    }

    func testSpecialValues() {
        let v = fastSignedPow(SIMD4(0, -0.0, .nan, 1), 0.75)
        XCTAssertEqual(v.x, 0)
        XCTAssertEqual(v.y, 0)
        XCTAssertTrue(v.z.isNaN)
        XCTAssertEqual(v.w, 1, accuracy: 1e-7)
        XCTAssertEqual(fastSignedPow(SIMD4(repeating: 1e-30), 2).x, 0)  // underflow flushes
        XCTAssertEqual(fastSignedPow(SIMD4(repeating: 4), 0.5).x, 2, accuracy: 2e-7)
        XCTAssertEqual(fastExp2(SIMD4(repeating: 10)).x, 1024, accuracy: 1e-3)
        XCTAssertEqual(fastLog2(SIMD4(repeating: 8)).x, 3, accuracy: 1e-6)
    }
}
