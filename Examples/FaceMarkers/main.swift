import ExampleSupport
import Foundation
import PixelFlow

// FaceMarkers: find the faces in a photo and mark them as Apple's face-detection samples
// do: a red square around each face, yellow squares on the eyes, a filled ellipse on the
// mouth. Each face's features are printed. PixelFlow's detectors report positions in image
// coordinates (origin at the top-left, y down), so nothing needs flipping, unlike Core Image.
//
//     swift run FaceMarkers                 # the NASA astronaut portrait from the test fixtures
//     swift run FaceMarkers photo.jpg
//     swift run FaceMarkers photo.jpg --out /tmp/faces --accuracy low
//
// The face models (HOG filters, OpenCV cascades) ship with PixelFlow as package resources.

let usage = """
    Usage: FaceMarkers [IMAGE] [--out DIR] [--accuracy low|high]

    Detects the faces in IMAGE (default: the public-domain astronaut portrait among the test
    fixtures, Tests/PixelFlowTests/Fixtures/Faces/astronaut.png), prints each face's bounds, eye and mouth positions, smile and closed eyes, and
    writes DIR/faces.png (DIR: example-output/FaceMarkers) with the faces marked: red squares
    around faces, yellow squares on eyes, a filled ellipse on the mouth.

      --accuracy A   low (faster) or high (default).

    Exit status: 0 on success (also when no face is found), 1 when a file cannot be read or
    written, 2 for a wrong command line.
    """

let args = ExampleCommandLine(usage: usage, valueOptions: ["--out", "--accuracy"])

/// The default photo: NASA's astronaut portrait (public domain, via scikit-image), kept
/// small among the test fixtures of this source tree.
let defaultPhoto = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../../Tests/PixelFlowTests/Fixtures/Faces/astronaut.png").standardized.path

/// A point as `(x, y)` with one decimal, or `none`.
func shown(_ p: Point?) -> String {
    guard let p else { return "none" }
    func r(_ v: Double) -> Double { (v * 10).rounded() / 10 }
    return "(\(r(p.x)), \(r(p.y)))"
}

/// Draws the markers of `faces` on `photo`.
///
/// Sizes follow each face: the lines are 1/50 of its width (at least 2 pixels), an eye's
/// square is 1/5 of the face's width, the mouth's ellipse 2/5 wide and 1/6 high.
func markFaces(_ faces: [FaceFeature], on photo: PixelBuffer) -> PixelBuffer {
    var canvas = Canvas(buffer: photo)
    for face in faces {
        let b = face.bounds
        let line = max(2, b.width / 50)
        canvas.strokeRect(b, width: line, color: Color(red: 1, green: 0, blue: 0))
        let eye = b.width / 5
        for position in [face.leftEyePosition, face.rightEyePosition].compactMap({ $0 }) {
            canvas.strokeRect(
                Rect(x: position.x - eye / 2, y: position.y - eye / 2, width: eye, height: eye),
                width: line, color: Color(red: 1, green: 0.9, blue: 0))
        }
        if let mouth = face.mouthPosition {
            let w = b.width * 0.4, h = b.width / 6
            canvas.fillEllipse(
                in: Rect(x: mouth.x - w / 2, y: mouth.y - h / 2, width: w, height: h),
                color: Color(red: 0.1, green: 0.6, blue: 1, alpha: 0.6))
        }
    }
    return canvas.buffer
}

runExample {
    guard args.positionals.count <= 1 else {
        ExampleCommandLine.usageError("give at most one image, got \(args.positionals.count)", usage: usage)
    }
    guard let accuracy = DetectorAccuracy(rawValue: args.value("--accuracy") ?? "high") else {
        ExampleCommandLine.usageError("--accuracy takes low or high, got '\(args.value("--accuracy")!)'", usage: usage)
    }
    let out = args.value("--out") ?? "example-output/FaceMarkers"
    let photo = try args.positionals.first.map(loadImage) ?? loadImage(defaultPhoto)

    let detector = try FaceDetector(options: DetectorOptions(accuracy: accuracy))
    let clock = ContinuousClock()
    let start = clock.now
    let faces = try detector.features(in: photo)
    print(
        "\(faces.count) face\(faces.count == 1 ? "" : "s") in \(photo.width)x\(photo.height) (\(milliseconds(clock.now - start)))"
    )
    for (i, face) in faces.enumerated() {
        let b = face.bounds
        print(
            "face \(i + 1): bounds x \(Int(b.minX.rounded())) y \(Int(b.minY.rounded())) "
                + "w \(Int(b.width.rounded())) h \(Int(b.height.rounded()))")
        print(
            "  left eye \(shown(face.leftEyePosition))\(face.leftEyeClosed ? " closed" : ""), "
                + "right eye \(shown(face.rightEyePosition))\(face.rightEyeClosed ? " closed" : ""), "
                + "mouth \(shown(face.mouthPosition))")
        print(
            "  smile: \(face.hasSmile ? "yes" : "no"), angle: \(face.faceAngle.map { "\(($0 * 10).rounded() / 10) degrees" } ?? "unknown")"
        )
    }
    try makeOutputFolder(out)
    let file = outputPath(out, "faces.png")
    try markFaces(faces, on: photo).write(toFile: file)
    print("-> \(file)")
}
