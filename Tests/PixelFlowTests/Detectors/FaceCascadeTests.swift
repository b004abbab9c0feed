import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The cascade engine against OpenCV 4's `CascadeClassifier::detectMultiScale`, window by
/// window, on the photographs in Fixtures/Faces (made by make_fixtures.py there).
final class FaceCascadeTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: packageRoot).appendingPathComponent("Tests/PixelFlowTests/Fixtures/Faces")

    static func expected() throws -> [String: Any] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("expected.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func gray(_ name: String) throws -> _Gray8 {
        let buffer = try PixelBuffer(contentsOfFile: fixtures.appendingPathComponent(name).path)
        return _CascadeKernels.gray(from: buffer)
    }

    /// The installed cascade, or a failure that says how to install it (never a silent skip).
    static func cascade(_ relative: String) throws -> CascadeClassifier {
        let name = (relative as NSString).lastPathComponent
        do { return try CascadeClassifier.installed(name) } catch {
            XCTFail("\(error) — run scripts/setup.sh (installs opencv-data)")
            throw error
        }
    }

    static func rects(_ any: Any?) -> [_IntRect] {
        ((any as? [[Int]]) ?? []).map { _IntRect(x: $0[0], y: $0[1], width: $0[2], height: $0[3]) }
    }

    static func sorted(_ r: [_IntRect]) -> [_IntRect] {
        r.sorted { ($0.x, $0.y, $0.width, $0.height) < ($1.x, $1.y, $1.width, $1.height) }
    }

    func testRawWindowsMatchOpenCVExactly() throws {
        let expected = try Self.expected()
        let images = try XCTUnwrap(expected["images"] as? [String: [String: Any]])
        for (name, entry) in images.sorted(by: { $0.key < $1.key }) {
            let gray = try Self.gray(name)
            for key in [
                "haar_default", "haar_alt2", "lbp", "lbp_old", "haarcascade_eye.xml", "haarcascade_eye_tree_eyeglasses.xml",
                "haarcascade_lefteye_2splits.xml", "haar_default_min46",
            ] {
                let e = try XCTUnwrap(entry[key] as? [String: Any], "\(name) \(key)")
                let cascade = try Self.cascade(try XCTUnwrap(e["cascade"] as? String))
                let m = e["minSize"] as? Int ?? 0
                let raw = cascade._detect(
                    gray, options: CascadeSearchOptions(scaleFactor: 1.1, minimumNeighbors: 0, minimumSize: (m, m)))
                XCTAssertEqual(Self.sorted(raw), Self.rects(e["raw"]), "\(name) \(key) raw windows")
                let grouped = cascade._detect(
                    gray, options: CascadeSearchOptions(scaleFactor: 1.1, minimumNeighbors: 3, minimumSize: (m, m)))
                XCTAssertEqual(Self.sorted(grouped), Self.rects(e["faces"]), "\(name) \(key) grouped")
            }
        }
    }

    func testEyeAndSmileCascadesMatchOpenCVInsideTheFace() throws {
        let expected = try Self.expected()
        let regions = try XCTUnwrap(expected["regions"] as? [String: [String: Any]])
        let eyes = try XCTUnwrap(regions["astronaut.png"])
        let face = try XCTUnwrap(eyes["face"] as? [Int])
        let gray = try Self.gray("astronaut.png")
        var roi = [UInt8]()
        for y in face[1]..<(face[1] + face[3]) {
            roi += gray.pixels[(y * gray.width + face[0])..<(y * gray.width + face[0] + face[2])]
        }
        let region = _Gray8(width: face[2], height: face[3], pixels: roi)
        for (name, value) in eyes where name.hasSuffix(".xml") {
            let e = try XCTUnwrap(value as? [String: Any])
            let cascade = try Self.cascade(name)
            XCTAssertEqual(
                Self.sorted(cascade._detect(region, options: .init(scaleFactor: 1.1, minimumNeighbors: 0))),
                Self.rects(e["raw"]), "\(name) raw")
            XCTAssertEqual(
                Self.sorted(cascade._detect(region, options: .init(scaleFactor: 1.1, minimumNeighbors: 3))),
                Self.rects(e["grouped"]), "\(name) grouped")
        }
    }
}
