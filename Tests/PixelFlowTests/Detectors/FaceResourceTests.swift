import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The cascade files ship as package resources: faces are found with no OpenCV data installed,
/// and OpenCV's files still load by path.
final class FaceResourceTests: TemporaryDirectoryTestCase {
    func testEveryBundledCascadeIsInTheBundleWithItsLicence() throws {
        let folder = try XCTUnwrap(CascadeClassifier.bundledDirectory, "the PixelFlow_PixelFlow.resources bundle is missing")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("LICENSE.txt").path))
        let licence = try String(contentsOf: folder.appendingPathComponent("LICENSE.txt"), encoding: .utf8)
        XCTAssertTrue(licence.contains("Intel License Agreement"))
        for name in CascadeClassifier.bundledNames {
            let url = try CascadeClassifier.locate(name)
            XCTAssertEqual(url.deletingLastPathComponent().standardizedFileURL.path, folder.standardizedFileURL.path, name)
            XCTAssertTrue(licence.contains(name), "LICENSE.txt quotes the licence of \(name)")
            XCTAssertGreaterThan(try CascadeClassifier.installed(name).stageCount, 0, name)
        }
        // Only the files listed ship (the package stays small).
        let shipped = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".xml") }
        XCTAssertEqual(Set(shipped), Set(CascadeClassifier.bundledNames))
    }

    /// The default detector loads every cascade it needs from the bundle, whether or not
    /// /usr/share/opencv4 exists: the bundle comes before OpenCV's data folders.
    func testDefaultDetectorReadsOnlyBundledFiles() throws {
        let folder = try XCTUnwrap(CascadeClassifier.bundledDirectory).standardizedFileURL.path
        let detector = try FaceDetector(options: DetectorOptions(accuracy: .low))
        XCTAssertTrue(detector.cascade.source.hasPrefix(folder + "/"), detector.cascade.source)
        let landmarks = try XCTUnwrap(detector.landmarks)
        for c in [landmarks.eye, landmarks.leftEyeSplit, landmarks.rightEyeSplit, landmarks.smile] {
            XCTAssertTrue(c.source.hasPrefix(folder + "/"), c.source)
        }
        let fixtures = URL(fileURLWithPath: packageRoot).appendingPathComponent("Tests/PixelFlowTests/Fixtures/Faces")
        let faces = try detector.features(in: PixelBuffer(contentsOfFile: fixtures.appendingPathComponent("astronaut.png").path))
        XCTAssertEqual(faces.count, 1)
    }

    /// `pixelflow detect faces` with OpenCV's data folders switched off
    /// (`PIXELFLOW_CASCADE_SYSTEM=0`) finds the faces; a cascade that does not ship is then
    /// refused with a message naming opencv-data, and still loads by path.
    func testCommandLineWorksWithoutOpenCVData() throws {
        let fixtures = URL(fileURLWithPath: packageRoot).appendingPathComponent("Tests/PixelFlowTests/Fixtures/Faces")
        try FileManager.default.copyItem(
            at: fixtures.appendingPathComponent("group.png"), to: directory.appendingPathComponent("group.png"))
        let noSystem = ["PIXELFLOW_CASCADE_SYSTEM": "0", "PIXELFLOW_CASCADE_DIR": ""]
        for accuracy in ["low", "high"] {
            let r = try CLIProcess.run(
                ["detect", "faces", "group.png", "--json", "--accuracy", accuracy], in: directory, environment: noSystem)
            XCTAssertEqual(r.status, 0, r.stderr)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(r.stdout)) as? [String: Any])
            // The HOG detector finds the four faces; the coarse alt2 search three (the face set
            // measures both).
            XCTAssertEqual((object["features"] as? [Any])?.count, accuracy == "high" ? 4 : 3, "\(accuracy): \(r.text)")
        }
        let lbp = "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml"
        if FileManager.default.fileExists(atPath: lbp) {
            let r = try CLIProcess.run(
                ["detect", "faces", "group.png", "--cascade", lbp, "--no-landmarks"], in: directory, environment: noSystem)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertFalse(r.lines.isEmpty)
        }
        XCTAssertThrowsError(try withEnvironment(noSystem) { try CascadeClassifier.locate("haarcascade_profileface.xml") }) {
            XCTAssertTrue("\($0)".contains("opencv-data"), "\($0)")
        }
    }

    func withEnvironment<T>(_ variables: [String: String], _ body: () throws -> T) rethrows -> T {
        let old = variables.keys.map { ($0, ProcessInfo.processInfo.environment[$0]) }
        for (k, v) in variables { setenv(k, v, 1) }
        defer { for (k, v) in old { if let v { setenv(k, v, 1) } else { unsetenv(k) } } }
        return try body()
    }
}
