import Foundation
import XCTest
import PixelFlow

/// `pixelflow qr encode` and `pixelflow detect qr`, run as subprocesses.
final class QRCLITests: TemporaryDirectoryTestCase {

    func testEncodeThenDetectJSON() throws {
        let message = "PixelFlow \"QR\"\nround trip"
        let enc = try CLIProcess.run(["qr", "encode", message, "code.png", "--level", "Q", "--scale", "3"], in: directory)
        XCTAssertEqual(enc.status, 0, enc.stderr)
        let buffer = try PixelBuffer(contentsOfFile: directory.appendingPathComponent("code.png").path)
        let r = try CLIProcess.run(["detect", "qr", "code.png", "--json"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["width", "height", "features"])
        XCTAssertEqual(object["width"] as? Int, buffer.width)
        XCTAssertEqual(object["height"] as? Int, buffer.height)
        let features = try XCTUnwrap(object["features"] as? [[String: Any]])
        XCTAssertEqual(features.count, 1)
        let f = features[0]
        XCTAssertEqual(Set(f.keys), ["type", "message", "corners", "version", "level"])
        XCTAssertEqual(f["type"] as? String, "qr")
        XCTAssertEqual(f["message"] as? String, message)
        XCTAssertEqual(f["level"] as? String, "Q")
        let version = try XCTUnwrap(f["version"] as? Int)
        let corners = try XCTUnwrap(f["corners"] as? [[Double]])
        XCTAssertEqual(corners.count, 4)
        // 4-module quiet zone at 3 px per module: the symbol spans 12 ... 12 + 3 n.
        let lo = 12.0, hi = 12.0 + 3 * Double(17 + 4 * version)
        let want = [[lo, lo], [hi, lo], [hi, hi], [lo, hi]]
        for (got, w) in zip(corners, want) {
            XCTAssertEqual(got[0], w[0], accuracy: 3)
            XCTAssertEqual(got[1], w[1], accuracy: 3)
        }

        // Plain text: one line per code, message escaped.
        let plain = try CLIProcess.run(["detect", "qr", "code.png"], in: directory)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(plain.lines.count, 1)
        XCTAssertTrue(plain.lines[0].hasPrefix("qr \(version)-Q "), plain.text)
        XCTAssertTrue(plain.lines[0].hasSuffix("PixelFlow \"QR\"\\nround trip"), plain.text)
    }

    func testNoCodeGivesEmptyFeatures() throws {
        let blank = try PixelBuffer(width: 64, height: 48, format: .rgba8)
        try blank.write(toFile: directory.appendingPathComponent("blank.png").path)
        let r = try CLIProcess.run(["detect", "qr", "blank.png", "--json"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.text, "{\"width\": 64, \"height\": 48, \"features\": []}\n")
    }

    func testAnnotateWritesAPNG() throws {
        XCTAssertEqual(try CLIProcess.run(["qr", "encode", "annotate me", "code.png", "--scale", "4"], in: directory).status, 0)
        let r = try CLIProcess.run(["detect", "qr", "code.png", "--annotate", "marked.png", "--accuracy", "low"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let original = try PixelBuffer(contentsOfFile: directory.appendingPathComponent("code.png").path)
        let marked = try PixelBuffer(contentsOfFile: directory.appendingPathComponent("marked.png").path)
        XCTAssertEqual(marked.width, original.width)
        XCTAssertEqual(marked.height, original.height)
        // Some pixels are now green (the outline).
        var green = 0
        for y in 0..<marked.height {
            for x in 0..<marked.width {
                let p = marked[x, y]
                if p.y > 0.7 && p.x < 0.3 && p.z < 0.3 { green += 1 }
            }
        }
        XCTAssertGreaterThan(green, 100)
    }

    func testUsageErrorsExitWithTwo() throws {
        XCTAssertEqual(try CLIProcess.run(["qr", "encode", "x", "code.png"], in: directory).status, 0)
        for args in [
            ["detect"], ["detect", "qr"], ["detect", "barcodes", "code.png"],
            ["detect", "qr", "code.png", "--accuracy", "medium"],
            ["detect", "qr", "code.png", "--bogus"], ["detect", "qr", "a.png", "b.png"],
            ["detect", "qr", "code.png", "--json", "--annotate", "-"], ["detect", "qr", "code.png", "--annotate", "out.xyz"],
            ["qr"], ["qr", "decode", "code.png"], ["qr", "encode", "text"], ["qr", "encode", "t", "o.png", "--level", "X"],
            ["qr", "encode", "t", "o.png", "--scale", "0"], ["qr", "encode", "t", "o.txt"],
            ["qr", "encode", String(repeating: "x", count: 3000), "o.png", "--level", "H"],
        ] {
            let r = try CLIProcess.run(args, in: directory)
            XCTAssertEqual(r.status, 2, "\(args.prefix(4)): \(r.stderr)")
            XCTAssertFalse(r.stderr.isEmpty, "\(args.prefix(4))")
            XCTAssertTrue(r.stdout.isEmpty, "\(args.prefix(4))")
        }
        // Faces are available now (FaceCLITests): a QR code has none.
        let faces = try CLIProcess.run(["detect", "faces", "code.png"], in: directory)
        XCTAssertEqual(faces.status, 0, faces.stderr)
        XCTAssertTrue(faces.stderr.contains("no face found"), faces.stderr)
        XCTAssertEqual(try CLIProcess.run(["detect", "eyes", "code.png"], in: directory).status, 2)
    }

    func testDetectRectanglesJSONAndAnnotate() throws {
        // A white card in perspective on a dark gray background.
        var canvas = Canvas(buffer: try PixelBuffer(width: 320, height: 240, format: .rgba8))
        canvas.clear(to: Color(white: 0.2))
        let quad = [Point(x: 70, y: 50), Point(x: 260, y: 65), Point(x: 245, y: 200), Point(x: 60, y: 185)]
        canvas.fillPolygon(quad, color: .white)
        try canvas.buffer.write(toFile: directory.appendingPathComponent("card.png").path)
        let r = try CLIProcess.run(["detect", "rectangles", "card.png", "--json", "--annotate", "marked.png"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any]
        XCTAssertEqual(json?["width"] as? Int, 320)
        let features = json?["features"] as? [[String: Any]] ?? []
        XCTAssertEqual(features.count, 1)
        XCTAssertEqual(features.first?["type"] as? String, "rectangle")
        let corners = (features.first?["corners"] as? [[Double]]) ?? []
        XCTAssertEqual(corners.count, 4)
        // A clean card: every side lies on a strong edge.
        let confidence = features.first?["confidence"] as? Double ?? -1
        XCTAssertTrue((0.9...1).contains(confidence), "confidence \(confidence)")
        for (c, q) in zip(corners, quad) {
            XCTAssertLessThan(hypot(c[0] - q.x, c[1] - q.y), 0.02 * hypot(320, 240), "\(c) vs \(q)")
        }
        let marked = try PixelBuffer(contentsOfFile: directory.appendingPathComponent("marked.png").path)
        XCTAssertGreaterThan(marked[150, 120].x, marked[150, 120].y)  // tinted red inside the quad
    }

    func testMissingInputExitsWithOne() throws {
        let r = try CLIProcess.run(["detect", "qr", "missing.png"], in: directory)
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("missing.png"), r.stderr)
    }
}
