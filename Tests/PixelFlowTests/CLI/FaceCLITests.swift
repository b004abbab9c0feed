import Foundation
import XCTest
import PixelFlow

/// `pixelflow detect faces`, run as a subprocess on the face fixtures.
final class FaceCLITests: TemporaryDirectoryTestCase {
    let fixtures = URL(fileURLWithPath: packageRoot).appendingPathComponent("Tests/PixelFlowTests/Fixtures/Faces")
    /// OpenCV's default cascade (the bundled copy), whose boxes expected.json holds.
    static var haarDefault: String { (try? CascadeClassifier.locate("haarcascade_frontalface_default.xml").path) ?? "" }

    func copyFixture(_ name: String) throws {
        try FileManager.default.copyItem(at: fixtures.appendingPathComponent(name), to: directory.appendingPathComponent(name))
    }

    func testJSONHasTheDesignShapeAndOpenCVBoxes() throws {
        try copyFixture("group.png")
        let r = try CLIProcess.run(["detect", "faces", "group.png", "--json", "--cascade", Self.haarDefault], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["width", "height", "features"])
        XCTAssertEqual(object["width"] as? Int, 340)
        XCTAssertEqual(object["height"] as? Int, 230)
        let features = try XCTUnwrap(object["features"] as? [[String: Any]])
        XCTAssertEqual(features.count, 4)
        var boxes: [[Int]] = []
        for f in features {
            XCTAssertEqual(
                Set(f.keys),
                [
                    "type", "bounds", "left_eye", "right_eye", "mouth", "has_smile",
                    "left_eye_closed", "right_eye_closed", "confidence",
                ])
            XCTAssertEqual(f["type"] as? String, "face")
            let b = try XCTUnwrap(f["bounds"] as? [Double])
            XCTAssertEqual(b.count, 4)
            boxes.append(b.map { Int($0) })
            for key in ["left_eye", "right_eye", "mouth"] {
                let p = try XCTUnwrap(f[key] as? [Double], key)
                XCTAssertEqual(p.count, 2)
                XCTAssertTrue(p[0] >= b[0] && p[0] <= b[0] + b[2] && p[1] >= b[1] && p[1] <= b[1] + b[3], "\(key) \(p) in \(b)")
            }
            XCTAssertEqual(f["has_smile"] as? Bool, true)
            XCTAssertEqual(f["left_eye_closed"] as? Bool, false)
            XCTAssertEqual(f["right_eye_closed"] as? Bool, false)
        }
        // The boxes are OpenCV's detectMultiScale(gray, 1.1, 3) ones (expected.json).
        let expected = try XCTUnwrap(
            JSONSerialization.jsonObject(
                with: Data(contentsOf: fixtures.appendingPathComponent("expected.json"))) as? [String: Any])
        let images = try XCTUnwrap(expected["images"] as? [String: [String: Any]])
        let opencv = try XCTUnwrap((images["group.png"]?["haar_default"] as? [String: Any])?["faces"] as? [[Int]])
        XCTAssertEqual(boxes.sorted { $0.lexicographicallyPrecedes($1) }, opencv)
    }

    /// At `.high` accuracy the JSON adds the landmark model's five points; the eyes are the
    /// midpoints of their corners.
    func testJSONHasTheLandmarksAtHighAccuracy() throws {
        try copyFixture("astronaut.png")
        let r = try CLIProcess.run(["detect", "faces", "astronaut.png", "--json"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
        let face = try XCTUnwrap((object["features"] as? [[String: Any]])?.first)
        let points = try XCTUnwrap(face["landmarks"] as? [[Double]])
        XCTAssertEqual(points.map(\.count), [2, 2, 2, 2, 2])
        let left = try XCTUnwrap(face["left_eye"] as? [Double]), right = try XCTUnwrap(face["right_eye"] as? [Double])
        XCTAssertEqual(left[0], (points[2][0] + points[3][0]) / 2, accuracy: 0.02)
        XCTAssertEqual(right[1], (points[0][1] + points[1][1]) / 2, accuracy: 0.02)
    }

    func testPlainTextAndNoFaces() throws {
        try copyFixture("astronaut.png")
        let r = try CLIProcess.run(["detect", "faces", "astronaut.png", "--cascade", Self.haarDefault], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.lines.count, 1)
        XCTAssertTrue(r.lines[0].hasPrefix("face 46,31,52,52 left_eye "), r.text)
        XCTAssertTrue(r.lines[0].contains(" mouth ") && r.lines[0].hasSuffix(" smile"), r.text)

        let blank = try PixelBuffer(width: 64, height: 48, format: .rgba8)
        try blank.write(toFile: directory.appendingPathComponent("blank.png").path)
        let none = try CLIProcess.run(["detect", "faces", "blank.png", "--json"], in: directory)
        XCTAssertEqual(none.status, 0, none.stderr)
        XCTAssertEqual(none.text, "{\"width\": 64, \"height\": 48, \"features\": []}\n")
        let plain = try CLIProcess.run(["detect", "faces", "blank.png"], in: directory)
        XCTAssertEqual(plain.status, 0)
        XCTAssertTrue(plain.stderr.contains("no face found"), plain.stderr)
    }

    func testAnnotateDrawsTheMarkers() throws {
        try copyFixture("astronaut.png")
        let r = try CLIProcess.run(
            ["detect", "faces", "astronaut.png", "--annotate", "marked.png", "--accuracy", "high"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let original = try PixelBuffer(contentsOfFile: fixtures.appendingPathComponent("astronaut.png").path).converted(
            to: .rgba8)
        let marked = try PixelBuffer(contentsOfFile: directory.appendingPathComponent("marked.png").path).converted(to: .rgba8)
        XCTAssertEqual(marked.width, original.width)
        XCTAssertEqual(marked.height, original.height)
        // The face box (HOG: dlib's (50, 41) to (93, 84), FaceHOG/hog_fixtures.json) is outlined
        // in red: its top edge at y = 41.
        let edge = marked[70, 41]
        XCTAssertGreaterThan(edge.x, 0.9)
        XCTAssertLessThan(edge.y, 0.2)
        // Away from the markers nothing changed.
        XCTAssertEqual(marked[5, 190], original[5, 190])
        // Something yellowish (red and green up, blue down) was drawn over the eyes.
        var changed = 0
        for y in 40..<60 { for x in 50..<95 where marked[x, y] != original[x, y] { changed += 1 } }
        XCTAssertGreaterThan(changed, 50)
    }

    func testCascadeOptionAndErrors() throws {
        try copyFixture("group.png")
        let lbp = try CLIProcess.run(
            [
                "detect", "faces", "group.png", "--json", "--no-landmarks",
                "--cascade", "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml",
            ], in: directory)
        XCTAssertEqual(lbp.status, 0, lbp.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(lbp.stdout)) as? [String: Any])
        let features = try XCTUnwrap(object["features"] as? [[String: Any]])
        XCTAssertEqual(features.count, 4)
        XCTAssertTrue(features.allSatisfy { $0["left_eye"] is NSNull })

        let missing = try CLIProcess.run(["detect", "faces", "group.png", "--cascade", "nope.xml"], in: directory)
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.contains("nope.xml"), missing.stderr)

        try Data("<opencv_storage><cascade><stageType>BOOST</stageType>".utf8).write(
            to: directory.appendingPathComponent("bad.xml"))
        let bad = try CLIProcess.run(["detect", "faces", "group.png", "--cascade", "bad.xml"], in: directory)
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.contains("bad.xml") && bad.stderr.contains("truncated"), bad.stderr)

        let usage = try CLIProcess.run(["detect", "faces", "group.png", "--angles", "north"], in: directory)
        XCTAssertEqual(usage.status, 2)
        let qrWithCascade = try CLIProcess.run(["detect", "qr", "group.png", "--cascade", "x.xml"], in: directory)
        XCTAssertEqual(qrWithCascade.status, 2)

        let help = try CLIProcess.run(["detect", "faces", "--help"], in: directory)
        XCTAssertEqual(help.status, 0)
        XCTAssertTrue(help.text.contains("detect faces IN") && help.text.contains("--cascade PATH"), help.text)
    }
}
