import ExampleSupport
import Foundation
import PixelFlow

// LiveDetection: QR codes or rectangles found in every frame of a video stream, outlined
// with a translucent quad. A port of Apple's live-capture detection samples to Linux, where
// the "camera" is a YUV4MPEG2 stream on standard input, as ffmpeg writes it:
//
//     ffmpeg -i clip.mp4 -f yuv4mpegpipe - | swift run -c release LiveDetection --detect qr > marked.y4m
//     ffmpeg -f v4l2 -i /dev/video0 -f yuv4mpegpipe - | swift run -c release LiveDetection | ffplay -
//     swift run LiveDetection --demo           # no video at hand: a generated demo clip
//
// Decoded messages and the frame rate go to standard error; standard output carries the video.

let usage = """
    Usage: ... | LiveDetection [--detect qr|rectangles] [--accuracy low|high] [--png DIR] > out.y4m
           LiveDetection [--demo] [--detect qr|rectangles] [--out DIR]

    Reads YUV4MPEG2 frames from standard input (8-bit C420jpeg, C420, C420mpeg2, C420paldv,
    C422, C444 or Cmono, as `ffmpeg -f yuv4mpegpipe` writes), finds QR codes (the default) or
    the two most prominent rectangles in each frame, fills each with a translucent quad, and writes
    the frames as YUV4MPEG2 to standard output with the input's header. On standard error it
    prints each frame's findings (QR messages decoded) and, at the end, the frames per second.

      --detect WHAT   qr (default) or rectangles.
      --accuracy A    low (faster) or high (default).
      --png DIR       Also write every output frame as DIR/frame-NNNN.png.
      --demo          Ignore standard input and run on a generated clip (a QR code and a
                      card moving over the built-in landscape); writes DIR/annotated.y4m and
                      DIR/frame-NNNN.png (DIR: --out, default example-output/LiveDetection).
                      This is what happens when standard input is a terminal.
      --frames N      Frames of the demo clip, 1...500 (default 8).
      --size WxH      Size of the demo clip (default 320x240).

    The demo input: `swift run LiveDetection --demo` needs nothing (it draws its own clip; it is
    also what runs when standard input is a terminal). A stream from any video file or a webcam
    comes from ffmpeg (`apt-get install ffmpeg`):
      ffmpeg -i clip.mp4 -f yuv4mpegpipe - | swift run -c release LiveDetection > marked.y4m
      ffmpeg -f v4l2 -i /dev/video0 -f yuv4mpegpipe - | swift run -c release LiveDetection | ffplay -

    Exit status: 0 on success, 1 for a malformed or unsupported stream or a failed write,
    2 for a wrong command line.
    """

let args = ExampleCommandLine(
    usage: usage, valueOptions: ["--detect", "--accuracy", "--png", "--out", "--frames", "--size"],
    flags: ["--demo"])

/// One thing found in a frame: its four corners (top-left, top-right, bottom-right,
/// bottom-left) and, for a QR code, its message.
struct Finding {
    var corners: [Point]
    var message: String?
}

/// Finds QR codes or rectangles in one frame.
struct FrameDetector {
    enum Kind: String { case qr, rectangles }
    var kind: Kind
    var accuracy: DetectorAccuracy

    func findings(in frame: PixelBuffer) throws -> [Finding] {
        switch kind {
        case .qr:
            let detector = QRCodeDetector(options: DetectorOptions(accuracy: accuracy))
            return try detector.features(in: frame).map { Finding(corners: $0.corners, message: $0.message) }
        case .rectangles:
            let options = RectangleDetector.Options(accuracy: accuracy == .low ? .low : .high, maximumFeatureCount: 2)
            return RectangleDetector(options: options).features(in: frame).map { Finding(corners: $0.corners) }
        }
    }
}

/// `frame` with each finding filled by a translucent quad and outlined.
func annotate(_ frame: PixelBuffer, with findings: [Finding], kind: FrameDetector.Kind) -> PixelBuffer {
    var canvas = Canvas(buffer: frame)
    let fill =
        kind == .qr ? Color(red: 0.1, green: 0.9, blue: 0.3, alpha: 0.35) : Color(red: 1, green: 0.3, blue: 0.1, alpha: 0.35)
    let line = Color(red: fill.red, green: fill.green, blue: fill.blue, alpha: 0.9)
    for f in findings {
        canvas.fillPolygon(f.corners, color: fill)
        canvas.strokePolygon(f.corners, width: 2, color: line)
    }
    return canvas.buffer
}

/// A generated clip: a QR code and a dark card sliding over the built-in landscape.
func demoClip(frames: Int, width: Int, height: Int) throws -> [PixelBuffer] {
    let scene = Image(try SampleScene.make(width: width, height: height))
    let code = try Image.qrCode(message: "PixelFlow LiveDetection", correctionLevel: .medium, scale: max(1, height / 80))
    let context = RenderContext()
    var clip: [PixelBuffer] = []
    for i in 0..<frames {
        let t = frames == 1 ? 0 : Double(i) / Double(frames - 1)
        let x = (Double(width) * 0.55 - code.extent.width * 0.5) * t + Double(width) * 0.05
        let placed = try code.transformed(by: AffineTransform(translationX: x.rounded(), y: (Double(height) * 0.1).rounded()))
        var canvas = Canvas(
            buffer: try context.makeBuffer(placed.composited(over: scene).cropped(to: scene.extent), format: .rgba8))
        // A "card": a dark quad, seen at a slight angle, for the rectangle detector.
        let (x0, y0, w, h) = (Double(width) * (0.6 - 0.1 * t), Double(height) * 0.55, Double(width) * 0.3, Double(height) * 0.3)
        let card = [
            Point(x: x0 + 0.04 * w, y: y0), Point(x: x0 + w, y: y0 + 0.06 * h),
            Point(x: x0 + 0.96 * w, y: y0 + h), Point(x: x0, y: y0 + 0.94 * h),
        ]
        canvas.fillPolygon(card, color: Color(red: 0.1, green: 0.1, blue: 0.15))
        clip.append(canvas.buffer)
    }
    return clip
}

runExample {
    guard args.positionals.isEmpty else {
        ExampleCommandLine.usageError(
            "unexpected argument '\(args.positionals[0])'; the video comes on standard input", usage: usage)
    }
    guard let kind = FrameDetector.Kind(rawValue: args.value("--detect") ?? "qr") else {
        ExampleCommandLine.usageError("--detect takes qr or rectangles, got '\(args.value("--detect")!)'", usage: usage)
    }
    guard let accuracy = DetectorAccuracy(rawValue: args.value("--accuracy") ?? "high") else {
        ExampleCommandLine.usageError("--accuracy takes low or high, got '\(args.value("--accuracy")!)'", usage: usage)
    }
    let detector = FrameDetector(kind: kind, accuracy: accuracy)
    let demo = args.flag("--demo") || isatty(0) != 0

    // Where frames come from and where they go.
    let header: Y4MHeader
    var nextFrame: () throws -> Y4MFrame?
    let writer: Y4MWriter
    var pngFolder = args.value("--png")
    if demo {
        let out = args.value("--out") ?? "example-output/LiveDetection"
        let size = args.size("--size", default: (320, 240))
        try makeOutputFolder(out)
        pngFolder = pngFolder ?? out
        header = Y4MHeader(width: size.width, height: size.height)
        // The demo clip goes through YUV like a real stream, so the detectors see video pixels.
        var pending = try demoClip(
            frames: args.integer("--frames", in: 1...500, default: 8), width: size.width, height: size.height
        )
        .map { try header.frame(from: $0) }
        nextFrame = { pending.isEmpty ? nil : pending.removeFirst() }
        let path = outputPath(out, "annotated.y4m")
        // A plain file descriptor, open until the program exits.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw ExampleError("cannot create \(path): \(String(cString: strerror(errno)))") }
        writer = try Y4MWriter(header: header, fileDescriptor: fd)
        printError("demo: \(header.width)x\(header.height), writing \(path)")
    } else {
        let reader: Y4MReader
        do {
            reader = try Y4MReader(fileDescriptor: 0)
        } catch let error as Y4MError where error.isEmptyInput {
            throw ExampleError(
                "\(error); without a video, run the demo on a generated clip: `swift run LiveDetection --demo`")
        }
        header = reader.header
        nextFrame = reader.nextFrame
        writer = try Y4MWriter(header: header, fileDescriptor: 1)
    }
    if let pngFolder { try makeOutputFolder(pngFolder) }

    let clock = ContinuousClock()
    let start = clock.now
    var count = 0, found = 0
    while let frame = try nextFrame() {
        count += 1
        let rgb = try header.pixelBuffer(from: frame)
        let findings = try detector.findings(in: rgb)
        found += findings.count
        for f in findings {
            let corners = f.corners.map { "(\(Int($0.x.rounded())), \(Int($0.y.rounded())))" }.joined(separator: " ")
            if kind == .qr {
                printError("frame \(count): qr \(f.message.map { "\"\($0)\"" } ?? "(not decoded)") at \(corners)")
            } else {
                printError("frame \(count): rectangle at \(corners)")
            }
        }
        let marked = annotate(rgb, with: findings, kind: kind)
        try writer.write(try header.frame(from: marked, parameters: frame.parameters))
        if let pngFolder {
            try marked.write(toFile: outputPath(pngFolder, "frame-" + String(format: "%04d", count) + ".png"))
        }
    }
    let elapsed = seconds(clock.now - start)
    let fps = elapsed > 0 ? Double(count) / elapsed : 0
    printError(
        "\(count) frame\(count == 1 ? "" : "s") in \(String(format: "%.2f", elapsed)) s: "
            + "\(String(format: "%.1f", fps)) frames per second; \(found) \(kind == .qr ? "QR code" : "rectangle")\(found == 1 ? "" : "s") found"
    )
}
