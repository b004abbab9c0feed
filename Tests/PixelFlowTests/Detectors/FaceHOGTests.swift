import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The HOG face detector of `.high` accuracy: its features against a plain scalar reference
/// (itself checked against the numpy features of `scripts/face_hog_reference.py`), its layer
/// resampling against dlib's, its faces against dlib's own on the face fixtures
/// (Fixtures/FaceHOG/hog_fixtures.json, made by that script with dlib), and bad input.
final class FaceHOGTests: XCTestCase {
    static var fixture: [String: Any] {
        let url = URL(fileURLWithPath: packageRoot).appendingPathComponent(
            "Tests/PixelFlowTests/Fixtures/FaceHOG/hog_fixtures.json")
        let data = (try? Data(contentsOf: url)) ?? Data()
        return ((try? JSONSerialization.jsonObject(with: data)) as? [String: Any]) ?? [:]
    }

    static func rgb(_ entry: Any?) throws -> _RGB8 {
        let e = try XCTUnwrap(entry as? [String: Any])
        let w = try XCTUnwrap(e["width"] as? Int), h = try XCTUnwrap(e["height"] as? Int)
        let bytes = try XCTUnwrap(e["rgb"] as? [Int]).map { UInt8($0) }
        return _RGB8(width: w, height: h, pixels: bytes)
    }

    /// The features, one pixel and one cell at a time in double precision, straight from the
    /// description in `_HOGFeatures`' documentation: planes x rows x columns.
    static func referenceFeatures(_ image: _RGB8, cell: Int = 8) -> (rows: Int, columns: Int, planes: [[Double]]) {
        let cellRows = Int(Double(image.height) / Double(cell) + 0.5)
        let cellColumns = Int(Double(image.width) / Double(cell) + 0.5)
        let rows = max(cellRows - 2, 0), columns = max(cellColumns - 2, 0)
        guard rows > 0, columns > 0 else { return (0, 0, []) }
        func px(_ x: Int, _ y: Int, _ c: Int) -> Double { Double(image.pixels[3 * (y * image.width + x) + c]) }
        let axes: [(Double, Double)] = [
            (1, 0), (0.9397, 0.3420), (0.7660, 0.6428), (0.5, 0.8660), (0.1736, 0.9848), (-0.1736, 0.9848),
            (-0.5, 0.8660), (-0.7660, 0.6428), (-0.9397, 0.3420),
        ]
        // Histograms of all cells, with a ring of extra cells around (index + 1).
        var hist = [[Double]](repeating: [Double](repeating: 0, count: 18), count: (cellRows + 2) * (cellColumns + 2))
        let visibleRows = min(cellRows * cell, image.height) - 1, visibleColumns = min(cellColumns * cell, image.width) - 1
        if visibleRows > 1 && visibleColumns > 1 {
            for y in 1..<visibleRows {
                for x in 1..<visibleColumns {
                    var best = (gx: 0.0, gy: 0.0, length: -1.0)
                    for c in 0..<3 {
                        let gx = px(x + 1, y, c) - px(x - 1, y, c), gy = px(x, y + 1, c) - px(x, y - 1, c)
                        if gx * gx + gy * gy >= best.length { best = (gx, gy, gx * gx + gy * gy) }
                    }
                    var bestDot = 0.0, bin = 0
                    for (o, a) in axes.enumerated() {
                        let dot = best.gx * a.0 + best.gy * a.1
                        if dot > bestDot { bestDot = dot; bin = o } else if -dot > bestDot { bestDot = -dot; bin = o + 9 }
                    }
                    let v = best.length.squareRoot()
                    let xp = (Double(x) + 0.5) / Double(cell) - 0.5, yp = (Double(y) + 0.5) / Double(cell) - 0.5
                    let ix = Int(xp.rounded(.down)), iy = Int(yp.rounded(.down))
                    let fx = xp - Double(ix), fy = yp - Double(iy)
                    let wys: [Double] = [1 - fy, fy], wxs: [Double] = [1 - fx, fx]
                    let stride = cellColumns + 2
                    for dy in 0..<2 {
                        for dx in 0..<2 {
                            let index: Int = (iy + 1 + dy) * stride + ix + 1 + dx
                            let weight: Double = wys[dy] * wxs[dx] * v
                            hist[index][bin] += weight
                        }
                    }
                }
            }
        }
        func h(_ r: Int, _ c: Int) -> [Double] { hist[(r + 1) * (cellColumns + 2) + c + 1] }
        func energy(_ r: Int, _ c: Int) -> Double {
            let cell = h(r, c)
            var e = 0.0
            for o in 0..<9 {
                let both = cell[o] + cell[o + 9]
                e += both * both
            }
            return e
        }
        var planes = [[Double]](repeating: [Double](repeating: 0, count: rows * columns), count: 31)
        for y in 0..<rows {
            for x in 0..<columns {
                let (r, c) = (y + 1, x + 1)
                // The four 2x2 blocks that hold cell (r, c).
                let blocks = [(r, c), (r - 1, c), (r, c - 1), (r - 1, c - 1)].map { (r0, c0) in
                    energy(r0, c0) + energy(r0, c0 + 1) + energy(r0 + 1, c0) + energy(r0 + 1, c0 + 1)
                }
                let hc = h(r, c)
                var texture = [Double](repeating: 0, count: 4)
                for o in 0..<18 {
                    var sum = 0.0
                    for (k, z) in blocks.enumerated() {
                        let n = min(hc[o] / (z + 0.0001).squareRoot(), 0.2)
                        sum += n; texture[k] += n
                    }
                    planes[o][y * columns + x] = 0.5 * sum
                }
                for o in 0..<9 {
                    planes[18 + o][y * columns + x] =
                        0.5 * blocks.reduce(0) { $0 + min((hc[o] + hc[o + 9]) / ($1 + 0.0001).squareRoot(), 0.2) }
                }
                for k in 0..<4 { planes[27 + k][y * columns + x] = 0.2357 * texture[k] }
            }
        }
        return (rows, columns, planes)
    }

    /// The scalar reference against the features the export script computed (numpy, single
    /// precision): tolerance 1e-4 (the features are at most 0.4; single against double
    /// precision and a different summation order).
    func testScalarReferenceMatchesTheScriptsFeatures() throws {
        let image = try Self.rgb(Self.fixture["image"])
        let expected = try XCTUnwrap(Self.fixture["features"] as? [String: Any])
        let planes = try XCTUnwrap(expected["planes"] as? [[Double]])
        let reference = Self.referenceFeatures(image)
        XCTAssertEqual(reference.rows, expected["rows"] as? Int)
        XCTAssertEqual(reference.columns, expected["columns"] as? Int)
        var worst = 0.0
        for p in 0..<31 {
            for i in 0..<planes[p].count { worst = max(worst, abs(reference.planes[p][i] - planes[p][i])) }
        }
        XCTAssertLessThan(worst, 1e-4)
        XCTAssertGreaterThan(planes.joined().max() ?? 0, 0.1, "the fixture has real gradients")
    }

    /// `_HOGFeatures` against the scalar reference on the fixture and on seeded random images
    /// of several sizes (edges, partial cells), 1e-4; padding cells are zero.
    func testFeaturesMatchTheScalarReference() throws {
        var images = [try Self.rgb(Self.fixture["image"])]
        var rng = SeededRandom(seed: 42)
        for (w, h) in [(24, 24), (37, 29), (64, 48), (83, 61)] {
            images.append(
                _RGB8(width: w, height: h, pixels: (0..<(3 * w * h)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }))
        }
        // A smooth image: gradients below the cap, where the normalisation matters most.
        images.append(
            _RGB8(
                width: 48, height: 40,
                pixels: (0..<(48 * 40)).flatMap { i -> [UInt8] in
                    let x = Double(i % 48), y = Double(i / 48)
                    return [UInt8(128 + 100 * sin(x / 7)), UInt8(128 + 90 * cos(y / 5)), UInt8((x + y) * 2)]
                }))
        for image in images {
            let reference = Self.referenceFeatures(image)
            for threads in [1, 3] {
                let f = _HOGFeatures(image, cellSize: 8, filterRows: 10, filterColumns: 10, threads: threads)
                XCTAssertEqual(f.rows, reference.rows)
                XCTAssertEqual(f.columns, reference.columns)
                var worst: Float = 0
                for p in 0..<31 {
                    for y in 0..<f.rows {
                        for x in 0..<f.columns {
                            worst = max(
                                worst, abs(f.value(plane: p, row: y, column: x) - Float(reference.planes[p][y * f.columns + x])))
                        }
                    }
                }
                XCTAssertLessThan(worst, 1e-4, "\(image.width)x\(image.height), \(threads) threads")
                // Border cells and the padding floats of each cell are zero.
                if f.rows > 0 {
                    XCTAssertEqual(f.values[0..<(f.left * _HOGFeatures.stride)].max() ?? 0, 0)
                    XCTAssertEqual(f.values[31], 0)
                }
            }
        }
    }

    /// The layer resampling against dlib's pyramid_down<6> of the fixture image: the same
    /// size, at most 1 apart (dlib accumulates positions in single precision), 98% equal.
    func testLayerResamplingMatchesDlib() throws {
        let image = try Self.rgb(Self.fixture["image"])
        let dlib = try Self.rgb(Self.fixture["pyramid_down"])
        let ours = image.resized(width: 5 * image.width / 6, height: 5 * image.height / 6)
        XCTAssertEqual(ours.width, dlib.width)
        XCTAssertEqual(ours.height, dlib.height)
        let differences = zip(ours.pixels, dlib.pixels).map { abs(Int($0) - Int($1)) }
        XCTAssertLessThanOrEqual(differences.max() ?? 99, 1)
        XCTAssertGreaterThan(Double(differences.filter { $0 == 0 }.count) / Double(differences.count), 0.98)
    }

    /// The filter responses (separable terms) against a direct sum over the filter's cells
    /// and features, with the filter the terms add up to (1e-4); and that filter against the
    /// exported weights (the terms drop singular values below 0.1% of the largest: 2e-3).
    func testResponsesAreTheFilterSums() throws {
        let model = try _FaceHOGModel.bundled()
        let fr = model.filterRows, fc = model.filterColumns, stride = _HOGFeatures.stride
        var filters = [Double](repeating: 0, count: model.filterCount * fr * fc * stride)
        for t in 0..<model.termFilter.count {
            let values = model.termValues[(t * (fr + fc))..<((t + 1) * (fr + fc))].map(Double.init)
            for i in 0..<fr {
                for j in 0..<fc {
                    filters[((model.termFilter[t] * fr + i) * fc + j) * stride + model.termPlane[t]] += values[i] * values[fr + j]
                }
            }
        }
        let worstWeight = zip(filters, model.weights).map { abs($0 - Double($1)) }.max() ?? 1
        XCTAssertLessThan(worstWeight, 2e-3)
        XCTAssertEqual(model.termFilter.count, 305, "dlib's frontal face detector applies 305 separable terms")
        var rng = SeededRandom(seed: 5)
        let image = _RGB8(
            width: 120, height: 104, pixels: (0..<(3 * 120 * 104)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        let f = _HOGFeatures(image, cellSize: 8, filterRows: fr, filterColumns: fc)
        let detector = _FaceHOGDetector(model: model)
        let rows = f.paddedRows - fr + 1, columns = f.paddedColumns - fc + 1
        let responses = detector.responses(f, rows: rows, columns: columns, threads: 2)
        XCTAssertEqual(responses, detector.responses(f, rows: rows, columns: columns, threads: 1))
        for (k, y, x) in [(0, 0, 0), (1, rows / 2, columns / 3), (4, rows - 1, columns - 1), (2, 3, columns - 2)] {
            var sum = 0.0
            for i in 0..<fr {
                for j in 0..<fc {
                    for p in 0..<31 {
                        let feature = Double(f.values[((y + i) * f.paddedColumns + x + j) * stride + p])
                        sum += feature * filters[((k * fr + i) * fc + j) * stride + p]
                    }
                }
            }
            XCTAssertEqual(Double(responses[k][y * columns + x]), sum, accuracy: 1e-4, "filter \(k) at \(y),\(x)")
        }
    }

    /// `.high` accuracy finds dlib's faces (`detector(img, 1)`) on the face fixtures: the same
    /// number, each with IoU >= 0.9 (in practice the same boxes) and a score within 0.02.
    func testFacesMatchDlib() throws {
        let faces = try XCTUnwrap(Self.fixture["dlib_faces"] as? [String: [[String: Any]]])
        let detector = try FaceDetector(options: DetectorOptions(accuracy: .high), configuration: .init(findsLandmarks: false))
        XCTAssertTrue(detector.usesHOG)
        var compared = 0
        for (name, expected) in faces.sorted(by: { $0.key < $1.key }) {
            let buffer = try PixelBuffer(contentsOfFile: FaceCascadeTests.fixtures.appendingPathComponent(name).path)
            let found = try detector.features(in: buffer)
            XCTAssertEqual(found.count, expected.count, "\(name): \(found) vs dlib \(expected)")
            for e in expected {
                let b = try XCTUnwrap(e["box"] as? [Int])
                let want = Rect(x: Double(b[0]), y: Double(b[1]), width: Double(b[2] - b[0] + 1), height: Double(b[3] - b[1] + 1))
                let best = found.max { _FaceGeometry.iou($0.bounds, want) < _FaceGeometry.iou($1.bounds, want) }
                XCTAssertGreaterThanOrEqual(best.map { _FaceGeometry.iou($0.bounds, want) } ?? 0, 0.9, "\(name): \(want)")
                XCTAssertEqual(best?.confidence ?? -1, try XCTUnwrap(e["score"] as? Double), accuracy: 0.02, "\(name)")
                compared += 1
            }
        }
        XCTAssertEqual(compared, 5)
    }

    func testResultsDoNotDependOnTheThreadCount() throws {
        let buffer = try PixelBuffer(contentsOfFile: FaceCascadeTests.fixtures.appendingPathComponent("astronaut.png").path)
        let one = try FaceDetector(configuration: .init(findsLandmarks: false, threadCount: 1)).features(in: buffer)
        let three = try FaceDetector(configuration: .init(findsLandmarks: false, threadCount: 3)).features(in: buffer)
        XCTAssertEqual(one, three)
        XCTAssertEqual(one.count, 1)
        // The features themselves, bit for bit (the histogram's bands are fixed, not per thread).
        let image = _RGB8(buffer)
        let a = _HOGFeatures(image, cellSize: 8, filterRows: 10, filterColumns: 10, threads: 1)
        let b = _HOGFeatures(image, cellSize: 8, filterRows: 10, filterColumns: 10, threads: 4)
        XCTAssertEqual(a.values, b.values)
    }

    /// Landmarks on HOG faces: both eyes inside the upper part of the box, the mouth below them.
    func testLandmarksOnHOGFaces() throws {
        let buffer = try PixelBuffer(contentsOfFile: FaceCascadeTests.fixtures.appendingPathComponent("astronaut.png").path)
        let face = try XCTUnwrap(try FaceDetector().features(in: buffer).first)
        let b = face.bounds
        let l = try XCTUnwrap(face.leftEyePosition), r = try XCTUnwrap(face.rightEyePosition)
        let m = try XCTUnwrap(face.mouthPosition)
        for e in [l, r] {
            XCTAssertTrue(e.x > b.minX && e.x < b.maxX && e.y > b.minY - 0.1 * b.height && e.y < b.midY, "\(e) in \(b)")
        }
        XCTAssertLessThan(l.x, r.x)
        XCTAssertGreaterThan(m.y, max(l.y, r.y))
        XCTAssertFalse(face.leftEyeClosed || face.rightEyeClosed, "\(face)")
        XCTAssertGreaterThan(face.confidence, 0.5)
    }

    func testBadInputGivesNoFacesAndNeverTraps() throws {
        let d = try FaceDetector(configuration: .init(findsLandmarks: false))
        for (w, h) in [(1, 1), (2, 2), (3, 3), (17, 9), (40, 23)] {
            XCTAssertEqual(try d.features(in: TestImages.random(width: w, height: h, format: .rgba8, seed: 3, opaque: true)), [])
        }
        var flat = try PixelBuffer(width: 120, height: 90, format: .rgbaF32)
        var nan = try PixelBuffer(width: 120, height: 90, format: .rgbaF32)
        for y in 0..<90 {
            for x in 0..<120 {
                flat[x, y] = SIMD4(0.5, 0.5, 0.5, 1)
                nan[x, y] = SIMD4(.nan, .infinity, -.infinity, 1)
            }
        }
        XCTAssertEqual(try d.features(in: flat), [])
        XCTAssertEqual(try d.features(in: nan), [])
        XCTAssertEqual(try d.features(in: TestImages.random(width: 160, height: 120, format: .gray8, seed: 9, opaque: true)), [])
    }

    func testDamagedModelFilesThrow() throws {
        let url = try XCTUnwrap(_FaceResources.directory).appendingPathComponent("HOG/frontal_face.hog")
        let good = try Data(contentsOf: url)
        XCTAssertNoThrow(try _FaceHOGModel(data: good, source: "m.hog"))
        var cases: [(String, Data)] = [
            ("empty", Data()), ("truncated", good.prefix(good.count - 4)), ("extra", good + Data([0])),
        ]
        var magic = good
        magic[0] = 0x51
        cases.append(("magic", magic))
        var header = good
        header[8] = 0; header[9] = 0  // cell size 0
        cases.append(("header", header))
        var nanThreshold = good
        for i in 64..<72 { nanThreshold[i] = 0xFF }
        cases.append(("threshold", nanThreshold))
        for (what, data) in cases {
            XCTAssertThrowsError(try _FaceHOGModel(data: data, source: "m.hog"), what) { error in
                XCTAssertTrue("\(error)".contains("m.hog"), "\(what): \(error)")
            }
        }
    }

    func testCancellationStopsTheSearch() throws {
        let buffer = try PixelBuffer(contentsOfFile: FaceCascadeTests.fixtures.appendingPathComponent("group.png").path)
        let d = try FaceDetector(configuration: .init(findsLandmarks: false))
        let token = CancellationToken()
        token.cancel()
        XCTAssertThrowsError(try d.features(in: buffer, cancellation: token, progress: nil)) { error in
            guard case PixelFlowError.cancelled = error else { return XCTFail("\(error)") }
        }
        let reports = Locked<[Double]>([])
        _ = try d.features(in: buffer, cancellation: nil) { f in reports.withLock { $0.append(f) } }
        let seen = reports.withLock { $0 }
        XCTAssertEqual(seen.last, 1)
        XCTAssertEqual(seen, seen.sorted())
    }
}
