import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The 5-point landmark predictor of `.high` accuracy (`_FaceShapePredictor`) against dlib's
/// own `shape_predictor` on the same face boxes (Fixtures/FaceLandmarks/landmarks.json, made
/// by `scripts/face_landmark_fixtures.py` with dlib), its model file's checks, and its use in
/// `FaceDetector`.
final class FaceLandmarkTests: XCTestCase {
    static let fixtures = URL(fileURLWithPath: packageRoot).appendingPathComponent("Tests/PixelFlowTests/Fixtures")

    static func dlibFaces() throws -> [[String: Any]] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("FaceLandmarks/landmarks.json"))
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try XCTUnwrap(doc["faces"] as? [[String: Any]])
    }

    /// dlib's inclusive [left, top, right, bottom] as the HOG detector's `Rect`.
    static func rect(_ b: [Int]) -> Rect {
        Rect(x: Double(b[0]), y: Double(b[1]), width: Double(b[2] - b[0] + 1), height: Double(b[3] - b[1] + 1))
    }

    /// Every point of every fixture face within 1 pixel of dlib's (dlib rounds its points to
    /// integers, so up to 0.5 is rounding; more means a tree took another branch).
    func testPointsMatchDlibWithinOnePixel() throws {
        let predictor = _FaceShapePredictor(model: try _FaceShapeModel.bundled())
        let faces = try Self.dlibFaces()
        XCTAssertGreaterThanOrEqual(faces.count, 25)
        var images: [String: _RGB8] = [:]
        var worst = 0.0
        for face in faces {
            let file = try XCTUnwrap(face["file"] as? String)
            if images[file] == nil {
                images[file] = _RGB8(try PixelBuffer(contentsOfFile: Self.fixtures.appendingPathComponent(file).path))
            }
            let box = Self.rect(try XCTUnwrap(face["box"] as? [Int]))
            let expected = try XCTUnwrap(face["points"] as? [[Int]])
            let found = predictor.landmarks(in: try XCTUnwrap(images[file]), box: box)
            XCTAssertEqual(found.count, 5)
            for (p, e) in zip(found, expected) {
                let d = max(abs(p.x - Double(e[0])), abs(p.y - Double(e[1])))
                worst = max(worst, d)
                XCTAssertLessThanOrEqual(d, 1, "\(file) \(box): \(found) vs dlib \(expected)")
            }
        }
        XCTAssertLessThanOrEqual(worst, 1)
        print("FaceLandmarkTests: \(faces.count) faces, largest difference to dlib \(worst) px")
    }

    /// The similarity transform against the closed form on a turned, scaled and shifted shape.
    func testSimilarityRecoversRotationAndScale() {
        let from: [Double] = [0, 0, 1, 0, 1, 1, 0, 1, 0.5, 0.7]
        let angle = 0.3, scale = 1.7
        var to: [Double] = []
        for i in 0..<5 {
            let x = from[2 * i], y = from[2 * i + 1]
            to += [scale * (cos(angle) * x - sin(angle) * y) + 4, scale * (sin(angle) * x + cos(angle) * y) - 2]
        }
        let (a, b) = _FaceShapePredictor.similarity(from: from, to: to, count: 5)
        XCTAssertEqual(a, scale * cos(angle), accuracy: 1e-5)
        XCTAssertEqual(b, scale * sin(angle), accuracy: 1e-5)
    }

    func testDamagedModelFilesThrow() throws {
        let url = try XCTUnwrap(_FaceResources.directory).appendingPathComponent("Landmarks/face_5_points.shape")
        let good = try Data(contentsOf: url)
        let model = try _FaceShapeModel(data: good, source: "m.shape")
        XCTAssertEqual(
            [model.landmarkCount, model.cascadeCount, model.treeCount, model.depth, model.pixelCount], [5, 15, 500, 4, 800])
        var cases: [(String, Data)] = [
            ("empty", Data()), ("truncated", good.prefix(good.count - 2)), ("extra", good + Data([0])),
        ]
        var magic = good
        magic[0] = 0x51
        cases.append(("magic", magic))
        var header = good
        header[20] = 0  // depth 0
        cases.append(("header", header))
        var anchor = good
        anchor[28 + 40] = 9  // the first anchor names landmark 9 of 5
        cases.append(("anchor", anchor))
        var split = good
        let firstSplit = 28 + 40 + 2 * 800 + 8 * 800
        split[firstSplit] = 0xFF; split[firstSplit + 1] = 0xFF  // pixel 65535 of 800
        cases.append(("split", split))
        var leaf = good
        for i in 0..<4 { leaf[firstSplit + 6 * 15 + i] = 0 }  // the first tree's leaf scale 0
        cases.append(("leaf scale", leaf))
        for (what, data) in cases {
            XCTAssertThrowsError(try _FaceShapeModel(data: data, source: "m.shape"), what) { error in
                XCTAssertTrue("\(error)".contains("m.shape"), "\(what): \(error)")
            }
        }
    }

    /// `FaceDetector` at `.high` accuracy reports the predictor's points, the eyes at the
    /// midpoints of their corners and the mouth below the nose; dlib's box on the astronaut is
    /// the HOG detector's, so the points are dlib's too.
    func testDetectorReportsTheLandmarks() throws {
        let buffer = try PixelBuffer(contentsOfFile: Self.fixtures.appendingPathComponent("Faces/astronaut.png").path)
        let face = try XCTUnwrap(try FaceDetector().features(in: buffer).first)
        XCTAssertEqual(face.landmarks.count, 5)
        let expected = try XCTUnwrap(try Self.dlibFaces().first { ($0["file"] as? String) == "Faces/astronaut.png" })
        let points = try XCTUnwrap(expected["points"] as? [[Int]])
        for (p, e) in zip(face.landmarks, points) {
            XCTAssertLessThanOrEqual(max(abs(p.x - Double(e[0])), abs(p.y - Double(e[1]))), 1, "\(face.landmarks)")
        }
        let l = try XCTUnwrap(face.leftEyePosition), r = try XCTUnwrap(face.rightEyePosition)
        XCTAssertEqual(l.x, (face.landmarks[2].x + face.landmarks[3].x) / 2, accuracy: 1e-9)
        XCTAssertEqual(r.y, (face.landmarks[0].y + face.landmarks[1].y) / 2, accuracy: 1e-9)
        let m = try XCTUnwrap(face.mouthPosition)
        XCTAssertGreaterThan(m.y, face.landmarks[4].y)
        XCTAssertLessThan(m.y, face.bounds.maxY)
        // Without landmarks, and with a cascade, no points.
        XCTAssertEqual(try FaceDetector(configuration: .init(findsLandmarks: false)).features(in: buffer).first?.landmarks, [])
        XCTAssertEqual(
            try FaceDetector(options: DetectorOptions(accuracy: .low)).features(in: buffer).first?.landmarks ?? [], [])
    }

    /// Eye and mouth positions of the landmark model and of the eye cascades (as `FaceDetector`
    /// ran them on HOG faces before the model), smiles and closed eyes, on the face set
    /// (`scripts/make_face_set.py`) against dlib's points and the set's labels
    /// (`scripts/face_landmark_fixtures.py truth`), on dlib's boxes. Runs only with
    /// PIXELFLOW_FACE_SET=<folder of the set>; prints the figures of Docs/Detectors.md.
    func testAccuracyOnTheFaceSet() throws {
        guard let folder = ProcessInfo.processInfo.environment["PIXELFLOW_FACE_SET"] else {
            throw XCTSkip("set PIXELFLOW_FACE_SET to the face set's folder (scripts/make_face_set.py)")
        }
        let truthURL = URL(fileURLWithPath: packageRoot).appendingPathComponent(".build/face-landmarks-dlib.json")
        let doc = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: truthURL)) as? [String: Any])
        let faces = try XCTUnwrap(doc["faces"] as? [[String: Any]]).filter { ($0["source"] as? String) != "none" }
        let predictor = _FaceShapePredictor(model: try _FaceShapeModel.bundled())
        let cascades = try _LandmarkCascades.load()
        func distance(_ a: Point, _ b: Point) -> Double { ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot() }
        var eyeErrors: [String: [Double]] = ["model": [], "cascades": []]
        var eyesMissed: [String: Int] = ["model": 0, "cascades": 0]
        var mouthErrors: [String: [Double]] = ["model": [], "cascades": []]
        var smile = (tp: 0, fp: 0, fn: 0, tn: 0)
        var closedFlags = 0, openEyes = 0
        var loaded: (String, _Gray8, _RGB8)?
        for face in faces {
            let file = try XCTUnwrap(face["file"] as? String)
            if loaded?.0 != file {
                let buffer = try PixelBuffer(contentsOfFile: folder + "/" + file)
                loaded = (file, _CascadeKernels.gray(from: buffer), _RGB8(buffer))
            }
            let (_, gray, rgb) = try XCTUnwrap(loaded)
            let box = Self.rect(try XCTUnwrap(face["box"] as? [Int]))
            let p = try XCTUnwrap(face["points"] as? [[Int]]).map { Point(x: Double($0[0]), y: Double($0[1])) }
            let trueRight = Point(x: (p[0].x + p[1].x) / 2, y: (p[0].y + p[1].y) / 2)
            let trueLeft = Point(x: (p[2].x + p[3].x) / 2, y: (p[2].y + p[3].y) / 2)
            let iod = distance(trueLeft, trueRight)
            // The cascades as FaceDetector runs them on a HOG box (widened to a cascade's box).
            let side = 1.15 * box.width
            let widened = Rect(x: box.midX - side / 2, y: box.midY - 0.075 * box.width - side / 2, width: side, height: side)
            var byCascades = FaceFeature(bounds: box)
            cascades.locate(in: gray, face: widened, angle: 0, smileNeighbors: 20, into: &byCascades)
            var byModel = byCascades
            _FaceShapePredictor.place(predictor.landmarks(in: rgb, box: box), into: &byModel)
            let mouth = (face["mouth"] as? [Double]).map { Point(x: $0[0], y: $0[1]) }
            for (name, f) in [("model", byModel), ("cascades", byCascades)] {
                for (found, truth) in [(f.leftEyePosition, trueLeft), (f.rightEyePosition, trueRight)] {
                    if let found {
                        eyeErrors[name, default: []].append(distance(found, truth) / iod)
                    } else {
                        eyesMissed[name, default: 0] += 1
                    }
                }
                if let mouth, let m = f.mouthPosition { mouthErrors[name, default: []].append(distance(m, mouth) / iod) }
            }
            let smiling = (face["source"] as? String) == "astronaut"
            switch (smiling, byCascades.hasSmile) {
            case (true, true): smile.tp += 1
            case (false, true): smile.fp += 1
            case (true, false): smile.fn += 1
            case (false, false): smile.tn += 1
            }
            if (face["source"] as? String) != "cameraman" {
                openEyes += 2
                closedFlags += (byCascades.leftEyeClosed ? 1 : 0) + (byCascades.rightEyeClosed ? 1 : 0)
            }
        }
        func summary(_ v: [Double]) -> String {
            let s = v.sorted()
            guard !s.isEmpty else { return "none" }
            let within = Double(s.filter { $0 <= 0.1 }.count) / Double(s.count)
            return String(
                format: "n %d, median %.3f, mean %.3f, p90 %.3f, within 0.1 IOD %.1f%%", s.count, s[s.count / 2],
                s.reduce(0, +) / Double(s.count), s[min(s.count - 1, Int(0.9 * Double(s.count)))], 100 * within)
        }
        print("face set: \(faces.count) faces (dlib's boxes); errors in inter-ocular distances (IOD)")
        for name in ["model", "cascades"] {
            print("  eyes \(name): \(summary(eyeErrors[name] ?? [])), missed \(eyesMissed[name] ?? 0) of \(2 * faces.count)")
            print("  mouth \(name): \(summary(mouthErrors[name] ?? []))")
        }
        print("  smile (astronaut faces smile): tp \(smile.tp) fp \(smile.fp) fn \(smile.fn) tn \(smile.tn)")
        print("  closed-eye flags on open eyes (astronaut, Hopper): \(closedFlags) of \(openEyes)")
        XCTAssertLessThan(summary(eyeErrors["model"] ?? []).count, 1000)
    }
}
