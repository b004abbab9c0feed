import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// CIPerspectiveRotate against a scalar reference written here from the geometry (a ray
/// through each output pixel meets the turned plane; no homography code shared with the
/// library). Tolerance 1e-4: the library goes through a 3x3 homography and its inverse.
final class PerspectiveRotateTests: XCTestCase {
    let buffer = WarpTestSupport.source(width: 48, height: 36, seed: 31)
    lazy var image = Image(buffer)

    /// Rz(roll) Ry(yaw) Rx(pitch) as rows.
    static func rotation(pitch: Double, yaw: Double, roll: Double) -> [[Double]] {
        func mul(_ a: [[Double]], _ b: [[Double]]) -> [[Double]] {
            (0..<3).map { i in (0..<3).map { j in (0..<3).reduce(0) { $0 + a[i][$1] * b[$1][j] } } }
        }
        let rx = [[1, 0, 0], [0, cos(pitch), -sin(pitch)], [0, sin(pitch), cos(pitch)]]
        let ry = [[cos(yaw), 0, sin(yaw)], [0, 1, 0], [-sin(yaw), 0, cos(yaw)]]
        let rz = [[cos(roll), -sin(roll), 0], [sin(roll), cos(roll), 0], [0, 0, 1]]
        return mul(rz, mul(ry, rx))
    }

    func reference(focal: Double, pitch: Double, yaw: Double, roll: Double, rect: Rect) -> PixelBuffer {
        let r = Self.rotation(pitch: pitch, yaw: yaw, roll: roll)
        let f = focal / 36 * 48, cx = 24.0, cy = 18.0
        let n = [r[0][2], r[1][2], r[2][2]]  // the plane's normal, R (0, 0, 1)
        var out = try! PixelBuffer(width: Int(rect.width), height: Int(rect.height), format: .rgbaF32)
        for j in 0..<out.height {
            for i in 0..<out.width {
                let d = [Double(Int(rect.x) + i) + 0.5 - cx, Double(Int(rect.y) + j) + 0.5 - cy, f]
                let nd = n[0] * d[0] + n[1] * d[1] + n[2] * d[2]
                let t = n[2] * f / nd  // the plane passes through (0, 0, f)
                guard nd != 0, t > 0 else { out[i, j] = .zero; continue }
                let hx = t * d[0], hy = t * d[1], hz = t * d[2] - f
                // Local plane coordinates: R^T (H - C).
                let u = r[0][0] * hx + r[1][0] * hy + r[2][0] * hz
                let v = r[0][1] * hx + r[1][1] * hy + r[2][1] * hz
                out[i, j] = WarpTestSupport.bilinear(buffer, cx + u, cy + v)
            }
        }
        return out
    }

    func testMatchesTheRayPlaneReference() throws {
        let window = Rect(x: -20, y: -20, width: 88, height: 76)
        for (focal, pitch, yaw, roll) in [
            (28.0, 0.3, 0.0, 0.0), (50.0, -0.2, 0.45, 0.1), (35.0, 0.0, 0.0, 0.7),
            (20.0, 1.2, 0.0, 0.0),
        ] {  // the last reaches the horizon
            let out = try image.perspectiveRotated(pitch: pitch, yaw: yaw, roll: roll, focalLength: focal)
            let rect = out.extent.intersection(window)
            let r = Rect(
                x: rect.minX.rounded(.down), y: rect.minY.rounded(.down),
                width: rect.maxX.rounded(.up) - rect.minX.rounded(.down),
                height: rect.maxY.rounded(.up) - rect.minY.rounded(.down))
            let got = try renderPremultiplied(out, rect: r)
            let want = reference(focal: focal, pitch: pitch, yaw: yaw, roll: roll, rect: r)
            XCTAssertLessThanOrEqual(maxDifference(got, want), 1e-4, "f \(focal) pitch \(pitch) yaw \(yaw) roll \(roll)")
            try WarpTestSupport.assertScheduleIndependent(out, window: r, "perspective rotate \(pitch) \(yaw) \(roll)")
        }
    }

    func testSignConventions() {
        let c = Point(x: 24, y: 18)
        func corners(_ h: Homography) -> [Point] {
            [Point(x: 0, y: 0), Point(x: 48, y: 0), Point(x: 48, y: 36), Point(x: 0, y: 36)].map { h.apply(to: $0)! }
        }
        // Positive pitch: the top edge comes closer, so it is longer than the bottom edge.
        let p = corners(FilterDescriptor._perspectiveRotation(center: c, focalPixels: 40, pitch: 0.3, yaw: 0, roll: 0))
        XCTAssertGreaterThan(p[1].x - p[0].x, p[2].x - p[3].x)
        // Positive yaw: the right edge is longer than the left.
        let y = corners(FilterDescriptor._perspectiveRotation(center: c, focalPixels: 40, pitch: 0, yaw: 0.3, roll: 0))
        XCTAssertGreaterThan(y[2].y - y[1].y, y[3].y - y[0].y)
        // Positive roll turns clockwise on screen (y down): the top-right corner moves down.
        let r = corners(FilterDescriptor._perspectiveRotation(center: c, focalPixels: 40, pitch: 0, yaw: 0, roll: 0.2))
        XCTAssertGreaterThan(r[1].y, 0)
        XCTAssertEqual(r[1].x - c.x, 24 * cos(0.2) - (-18) * sin(0.2), accuracy: 1e-9)
    }

    func testZeroAnglesGiveBackTheImageAndInfiniteExtentsThrow() throws {
        let input = image
        XCTAssertEqual(try input.perspectiveRotated(focalLength: 80), input)
        XCTAssertThrowsError(try Image(color: .white).perspectiveRotated(pitch: 0.2)) { error in
            guard case PixelFlowError.invalidExtent = error else { return XCTFail("\(error)") }
        }
    }
}
