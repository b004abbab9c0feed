import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `FaceDetector` on the photographs in Fixtures/Faces against OpenCV's `detectMultiScale`
/// (expected.json, made by make_fixtures.py with OpenCV 4 and the Debian opencv-data
/// cascades), on face-free images, and on bad input, with the cascade detector (the HOG
/// detector of `.high` accuracy has FaceHOGTests). The cascades other than the bundled ones
/// must be installed (scripts/setup.sh installs opencv-data); when they are not, the tests
/// fail and say so.
final class FaceDetectorTests: XCTestCase {
    static let fixtures = FaceCascadeTests.fixtures
    static let haarDefault = FaceDetector.Cascade.named("haarcascade_frontalface_default.xml")

    func image(_ name: String) throws -> PixelBuffer {
        try PixelBuffer(contentsOfFile: Self.fixtures.appendingPathComponent(name).path)
    }

    func detector(
        _ cascade: FaceDetector.Cascade = .named("haarcascade_frontalface_default.xml"), accuracy: DetectorAccuracy = .high,
        landmarks: Bool = false, threads: Int? = nil, angles: [Double] = []
    ) throws -> FaceDetector {
        do {
            return try FaceDetector(
                options: DetectorOptions(accuracy: accuracy),
                configuration: .init(
                    cascade: cascade, rotationAngles: angles, findsLandmarks: landmarks,
                    threadCount: threads))
        } catch {
            XCTFail("\(error) — run scripts/setup.sh, which installs opencv-data")
            throw error
        }
    }

    /// Same number of faces as OpenCV, each matched one-to-one with IoU >= 0.9 (in practice
    /// the boxes are identical: the smallest IoU is reported).
    func testFacesMatchOpenCVOnPhotographs() throws {
        let expected = try FaceCascadeTests.expected()
        let images = try XCTUnwrap(expected["images"] as? [String: [String: Any]])
        var minimumIoU = 1.0
        var compared = 0
        for (name, entry) in images.sorted(by: { $0.key < $1.key }) {
            let buffer = try image(name)
            for key in ["haar_default", "haar_alt2", "lbp", "lbp_old"] {
                let e = try XCTUnwrap(entry[key] as? [String: Any])
                let file = ((try XCTUnwrap(e["cascade"] as? String)) as NSString).lastPathComponent
                let want = FaceCascadeTests.rects(e["faces"]).map(\.rect)
                let got = try detector(.named(file)).features(in: buffer).map(\.bounds)
                XCTAssertEqual(got.count, want.count, "\(name) with \(file): \(got) vs OpenCV \(want)")
                var unmatched = got
                for w in want {
                    guard
                        let best = unmatched.indices.max(by: {
                            _FaceGeometry.iou(unmatched[$0], w) < _FaceGeometry.iou(unmatched[$1], w)
                        })
                    else {
                        XCTFail("\(name) with \(file): OpenCV's face \(w) not found"); continue
                    }
                    let iou = _FaceGeometry.iou(unmatched[best], w)
                    XCTAssertGreaterThanOrEqual(iou, 0.9, "\(name) with \(file): \(unmatched[best]) vs OpenCV \(w)")
                    minimumIoU = min(minimumIoU, iou)
                    unmatched.remove(at: best)
                    compared += 1
                }
            }
        }
        XCTAssertGreaterThanOrEqual(compared, 12, "the fixtures hold at least 12 faces over the four cascades")
        print("FaceDetectorTests: \(compared) faces compared with OpenCV, smallest IoU \(minimumIoU)")
    }

    func testEyesAndMouthLieInsideEachFace() throws {
        let d = try detector(landmarks: true)
        for name in ["astronaut.png", "group.png"] {
            let faces = try d.features(in: try image(name))
            XCTAssertFalse(faces.isEmpty, name)
            for f in faces {
                let b = f.bounds
                let l = try XCTUnwrap(f.leftEyePosition, "\(name): \(f)")
                let r = try XCTUnwrap(f.rightEyePosition, "\(name): \(f)")
                let m = try XCTUnwrap(f.mouthPosition, "\(name): \(f)")
                XCTAssertTrue(f.hasLeftEyePosition && f.hasRightEyePosition && f.hasMouthPosition)
                for (p, what) in [(l, "left eye"), (r, "right eye")] {
                    XCTAssertTrue(p.x > b.minX && p.x < b.maxX && p.y > b.minY && p.y < b.midY, "\(name): \(what) \(p) in \(b)")
                }
                XCTAssertLessThan(l.x, r.x, "left eye is the one on the image's left")
                XCTAssertLessThan(abs(l.y - r.y), 0.1 * b.height, "eyes level in an upright face")
                XCTAssertGreaterThan(r.x - l.x, 0.25 * b.width)
                XCTAssertTrue(m.y > max(l.y, r.y) + 0.15 * b.height && m.y < b.maxY, "\(name): mouth \(m) below the eyes in \(b)")
                XCTAssertEqual(m.x, (l.x + r.x) / 2, accuracy: 0.15 * b.width)
                XCTAssertFalse(f.leftEyeClosed || f.rightEyeClosed, "\(name): the astronaut's eyes are open")
                XCTAssertTrue(f.hasSmile, "\(name): the astronaut smiles")
                XCTAssertNil(f.faceAngle)
            }
        }
    }

    /// The astronaut with her left eye (on the image's left) painted over with skin and a
    /// dark lid line: the open-eye cascade no longer finds it, so it is reported closed, at
    /// about the painted place; the other eye stays open.
    func testPaintedOutEyeIsReportedClosed() throws {
        var buffer = try image("astronaut.png").converted(to: .rgbaF32)
        let face = try XCTUnwrap(try detector(landmarks: true).features(in: buffer).first)
        let eye = try XCTUnwrap(face.leftEyePosition)
        var skin = SIMD4<Float>(repeating: 0)
        for y in 58..<62 { for x in 52..<58 { skin += buffer[x, y] } }
        skin /= 24
        let cx = Int(eye.x), cy = Int(eye.y)
        for y in (cy - 5)..<(cy + 5) { for x in (cx - 7)..<(cx + 7) { buffer[x, y] = skin } }
        for x in (cx - 6)..<(cx + 6) { buffer[x, cy] = SIMD4(skin.x * 0.35, skin.y * 0.35, skin.z * 0.35, 1) }
        let winking = try XCTUnwrap(try detector(landmarks: true).features(in: buffer).first)
        XCTAssertTrue(winking.leftEyeClosed, "\(winking)")
        XCTAssertFalse(winking.rightEyeClosed, "\(winking)")
        let closed = try XCTUnwrap(winking.leftEyePosition)
        XCTAssertEqual(closed.x, eye.x, accuracy: 0.12 * face.bounds.width)
        XCTAssertEqual(closed.y, eye.y, accuracy: 0.12 * face.bounds.width)
    }

    func testNoFacesInTexturesAndGeneratedPatterns() throws {
        let d = try detector(landmarks: true)
        var patterns: [(String, PixelBuffer)] = []
        patterns.append(("noise", TestImages.random(width: 320, height: 240, format: .rgba8, seed: 7, opaque: true)))
        for cell in [2, 5, 12, 31] {
            var b = try PixelBuffer(width: 320, height: 240, format: .gray8)
            b.withUnsafeMutableBytes { p in
                for y in 0..<240 { for x in 0..<320 { p[y * 320 + x] = ((x / cell + y / cell) % 2 == 0) ? 20 : 235 } }
            }
            patterns.append(("checkerboard \(cell)", b))
        }
        var gradient = try PixelBuffer(width: 320, height: 240, format: .gray8)
        var radial = try PixelBuffer(width: 320, height: 240, format: .gray8)
        gradient.withUnsafeMutableBytes { p in
            for y in 0..<240 { for x in 0..<320 { p[y * 320 + x] = UInt8((x + y) * 255 / 558) } }
        }
        radial.withUnsafeMutableBytes { p in
            for y in 0..<240 {
                for x in 0..<320 {
                    let r = ((Double(x) - 160) * (Double(x) - 160) + (Double(y) - 120) * (Double(y) - 120)).squareRoot()
                    p[y * 320 + x] = UInt8(127.5 + 127 * sin(r / 6))
                }
            }
        }
        patterns.append(("gradient", gradient))
        patterns.append(("rings", radial))
        let qr = try RenderContext().makeBuffer(
            try Image.qrCode(message: "https://example.com/pixelflow faces", scale: 6), format: .rgba8)
        patterns.append(("QR code", qr))
        for name in ["grass.png", "coffee.png", "camera.png"] { patterns.append((name, try image(name))) }
        let low = try detector(accuracy: .low, landmarks: true)
        for (what, buffer) in patterns {
            XCTAssertEqual(try d.features(in: buffer), [], what)
            XCTAssertEqual(try low.features(in: buffer), [], "\(what), low accuracy")
        }
    }

    func testResultsDoNotDependOnTheThreadCount() throws {
        let gray = try FaceCascadeTests.gray("group.png")
        let cascade = try FaceCascadeTests.cascade("haarcascade_frontalface_default.xml")
        let reference = cascade._candidates(gray, options: .init(minimumNeighbors: 0, threadCount: 1))
        XCTAssertGreaterThan(reference.count, 50)
        for threads in [2, 3, 8] {
            XCTAssertEqual(
                cascade._candidates(gray, options: .init(minimumNeighbors: 0, threadCount: threads)), reference,
                "\(threads) threads")
        }
        let one = try detector(landmarks: true, threads: 1).features(in: try image("group.png"))
        let many = try detector(landmarks: true, threads: 4).features(in: try image("group.png"))
        XCTAssertEqual(one, many)
    }

    func testLowAccuracyFindsTheSameFaces() throws {
        let faces = try detector(accuracy: .low).features(in: try image("group.png"))
        let high = try detector().features(in: try image("group.png"))
        XCTAssertEqual(high.count, 4)
        // Every face found at low accuracy is one of the high-accuracy faces.
        for f in faces {
            XCTAssertTrue(high.contains { _FaceGeometry.iou($0.bounds, f.bounds) > 0.5 }, "\(f)")
        }
        XCTAssertEqual(faces.count, 4)
    }

    func testRotatedSearchFindsATurnedFaceAndReportsItsAngle() throws {
        let gray = try FaceCascadeTests.gray("astronaut.png")
        let upright = try XCTUnwrap(try detector().features(in: try image("astronaut.png")).first)
        // Turn the photograph 30° clockwise: the upright cascade no longer sees the face.
        let (turned, back) = _FaceGeometry.rotate(gray, degrees: 30)
        let d = try detector(angles: [-30, 30])
        let plain = try detector().features(gray: turned)
        XCTAssertTrue(plain.isEmpty, "upright search should miss a face turned 30°: \(plain)")
        let faces = d.features(gray: turned)
        let face = try XCTUnwrap(faces.first)
        XCTAssertEqual(faces.count, 1)
        XCTAssertEqual(face.faceAngle, 30)
        // The box centre maps back onto the upright face's centre.
        let c = back(Point(x: face.bounds.midX, y: face.bounds.midY))
        XCTAssertEqual(c.x, upright.bounds.midX, accuracy: 0.15 * upright.bounds.width)
        XCTAssertEqual(c.y, upright.bounds.midY, accuracy: 0.15 * upright.bounds.width)
        // Upright faces get angle 0 when rotations are searched.
        XCTAssertEqual(try d.features(in: try image("astronaut.png")).first?.faceAngle, 0)
    }

    func testTinyUniformAndNaNImagesGiveNoFaces() throws {
        let d = try detector(landmarks: true)
        for (w, h) in [(1, 1), (10, 10), (23, 40), (40, 23), (24, 24)] {
            let b = TestImages.random(width: w, height: h, format: .rgba8, seed: 3, opaque: true)
            XCTAssertEqual(try d.features(in: b), [], "\(w)x\(h)")
        }
        for value: Float in [0, 1] {
            var b = try PixelBuffer(width: 200, height: 150, format: .rgbaF32)
            for y in 0..<150 { for x in 0..<200 { b[x, y] = SIMD4(value, value, value, 1) } }
            XCTAssertEqual(try d.features(in: b), [], "uniform \(value)")
        }
        var nan = try PixelBuffer(width: 200, height: 150, format: .grayF32)
        var mixed = try PixelBuffer(width: 200, height: 150, format: .rgbaF32)
        for y in 0..<150 {
            for x in 0..<200 {
                nan[x, y] = SIMD4(repeating: (x + y) % 3 == 0 ? .nan : Float(x % 7) / 7)
                mixed[x, y] = SIMD4(.nan, .infinity, -.infinity, .nan)
            }
        }
        XCTAssertEqual(try d.features(in: nan), [])
        XCTAssertEqual(try d.features(in: mixed), [])
        // The astronaut with NaNs sprinkled in (read as black) is still processed without trapping.
        var photo = try image("astronaut.png").converted(to: .rgbaF32)
        for i in stride(from: 0, to: 200, by: 7) { photo[i, (i * 3) % 200] = SIMD4(.nan, .nan, .nan, 1) }
        _ = try d.features(in: photo)
    }

    func testOptionsLimitSizeAndCount() throws {
        let buffer = try image("group.png")
        let all = try detector().features(in: buffer)
        XCTAssertEqual(all.count, 4)
        // Largest first.
        XCTAssertEqual(all.map(\.bounds.width), all.map(\.bounds.width).sorted(by: >))
        var options = DetectorOptions(maximumFeatureCount: 2)
        XCTAssertEqual(
            try FaceDetector(options: options, configuration: .init(cascade: Self.haarDefault, findsLandmarks: false))
                .features(in: buffer).map(\.bounds),
            Array(all.prefix(2)).map(\.bounds))
        // 0.2 x 230 = 46 px: OpenCV's minSize (46, 46), which changes the scales tried and so
        // the grouping (expected.json has OpenCV's result).
        options = DetectorOptions(minimumFeatureSize: 0.2)
        let big = try FaceDetector(options: options, configuration: .init(cascade: Self.haarDefault, findsLandmarks: false))
            .features(in: buffer)
        let images = try XCTUnwrap(try FaceCascadeTests.expected()["images"] as? [String: [String: Any]])
        let min46 = try XCTUnwrap(images["group.png"]?["haar_default_min46"] as? [String: Any])
        XCTAssertEqual(
            FaceCascadeTests.sorted(
                big.map {
                    _IntRect(x: Int($0.bounds.x), y: Int($0.bounds.y), width: Int($0.bounds.width), height: Int($0.bounds.height))
                }),
            FaceCascadeTests.rects(min46["faces"]))
        XCTAssertTrue(big.allSatisfy { $0.bounds.width >= 46 })
        XCTAssertEqual(
            try FaceDetector(configuration: .init(cascade: Self.haarDefault, minimumFaceSize: 46, findsLandmarks: false))
                .features(in: buffer), big)
        XCTAssertThrowsError(try FaceDetector(configuration: .init(scaleFactor: 1)))
        XCTAssertThrowsError(try FaceDetector(configuration: .init(minimumNeighbors: -1)))
    }

    func testMissingCascadeNamesThePackage() {
        XCTAssertThrowsError(try CascadeClassifier.locate("haarcascade_does_not_exist.xml")) { error in
            XCTAssertTrue("\(error)".contains("opencv-data"), "\(error)")
        }
        XCTAssertThrowsError(try FaceDetector(configuration: .init(cascade: .named("nope.xml")))) { error in
            XCTAssertTrue("\(error)".contains("opencv-data"), "\(error)")
        }
    }
}
