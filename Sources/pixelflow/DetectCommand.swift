import Foundation
import PixelFlow

/// `pixelflow detect`: finds features in an image and prints them.
///
/// ```
/// pixelflow detect qr|faces|rectangles IN [--json] [--annotate OUT] [--accuracy low|high]
/// ```
///
/// `qr`, `rectangles` and `faces` (with `--cascade PATH` for another cascade file).
enum DetectCommand: Subcommand {
    static let name = "detect"
    static let summary = "find and read QR codes, or find rectangles or faces, in an image"

    static let options: [Arguments.Option] = [
        .flag("--json"), .value("--annotate", "-a"), .value("--accuracy"), .flag("--try-harder"),
        .value("--cascade"), .value("--min-neighbors"), .value("--min-size"), .value("--angles"), .flag("--no-landmarks"),
        .value("--threads"), .value("--timing"),
        .flag("--help", "-h"),
    ]

    /// The kinds of feature, in the order the help lists them.
    static let kinds = ["qr", "rectangles", "faces"]

    /// The options every kind takes, as the help of each kind lists them.
    static let sharedOptions = """
              --json            Print {"width": W, "height": H, "features": [...]} on standard
                                output instead of one line per feature.
          -a, --annotate OUT    Also write IN with the features drawn on it to OUT (format from
                                the extension; `-`: standard output, PNG). Combines with
                                --json when OUT is a file: the JSON goes to standard output
                                and the image to OUT (`--annotate -` with --json is refused,
                                as both would go to standard output).
              --accuracy A      low (faster) or high (default: high).
        """

    static var help: String {
        """
        Usage: pixelflow detect qr IN [options]
               pixelflow detect rectangles IN [options]
               pixelflow detect faces IN [options]

        Finds QR codes (and reads them), the most prominent rectangle, or faces in IN (`-` for
        standard input), and prints one line per feature, or JSON with --json. Coordinates are
        in pixels with the origin at the image's top-left corner, y down.
        `pixelflow detect KIND --help` shows what each kind prints and its own options.

        Options:
        \(sharedOptions)
          -h, --help            Show this help; `pixelflow detect KIND --help` for one kind's.

        Examples:
          pixelflow qr encode 'https://example.com' code.png && pixelflow detect qr code.png
          pixelflow detect qr photo.jpg --json --annotate found.png
          pixelflow detect rectangles receipt.jpg --json
          pixelflow detect faces group.jpg --annotate marked.png --angles -25,25
          pixelflow detect rectangles --help

        \(exitStatus)
        """
    }

    static let exitStatus = """
        Exit status: 0 on success (also when nothing is found), 1 when IN cannot be read or
        OUT written (or a cascade file is missing or malformed), 2 for a usage error.
        """

    /// The help of `pixelflow detect KIND --help`.
    static func help(for kind: String) -> String {
        switch kind {
        case "qr": return qrHelp
        case "rectangles": return rectanglesHelp
        case "faces": return facesHelp
        default: return help
        }
    }

    static var qrHelp: String {
        """
        Usage: pixelflow detect qr IN [--json] [--annotate OUT] [--accuracy low|high] [--try-harder]

        Finds the QR codes in IN (`-` for standard input), reads them, and prints one line
        per code: `qr`, version-level, the four corners (top-left, top-right, bottom-right,
        bottom-left of the symbol, in pixels with the origin at the image's top-left
        corner), and the message (with \\n, \\t and \\\\ escaped). Codes that cannot be
        read (damaged beyond their error correction) are not reported.

        Options:
        \(sharedOptions)
              --try-harder      Also look for light-on-dark codes when dark-on-light ones
                                were found.
          -h, --help            Show this help.

        JSON: each feature is {"type": "qr", "message": ..., "corners": [[x, y], x4],
        "version": V, "level": "L|M|Q|H"}; message is null when the data is in a character
        set PixelFlow does not decode. --annotate draws each code's outline (green, with a red
        mark on the top-left corner).

        Examples:
          pixelflow qr encode 'https://example.com' code.png && pixelflow detect qr code.png
          pixelflow detect qr photo.jpg --json
          pixelflow detect qr photo.jpg --json --annotate found.png

        \(exitStatus)
        """
    }

    static var rectanglesHelp: String {
        """
        Usage: pixelflow detect rectangles IN [--json] [--annotate OUT] [--accuracy low|high]

        Finds the most prominent quadrilateral in IN (`-` for standard input), as Core Image's
        CIDetectorTypeRectangle: a document, a card, a screen, a sign. Prints
        `rectangle x,y x,y x,y x,y`: the corners top-left, top-right, bottom-right,
        bottom-left (clockwise on screen, from the corner with the smallest x + y), in pixels
        with the origin at the image's top-left corner. Docs/RectangleDetection.md describes
        the method.

        Options:
        \(sharedOptions)
          -h, --help            Show this help.

        JSON: each feature is {"type": "rectangle", "corners": [[x, y], x4], "confidence": C}:
        C in 0...1 is the mean fraction of the four sides that lies on a strong image edge
        across the side (a quad below 0.7 is not reported). --annotate fills the quad with
        translucent red and outlines it.

        Examples:
          pixelflow detect rectangles receipt.jpg
          pixelflow detect rectangles card.png --json --annotate marked.png
          pixelflow detect rectangles frame.png --accuracy low

        \(exitStatus)
        """
    }

    static var facesHelp: String {
        """
        Usage: pixelflow detect faces IN [--json] [--annotate OUT] [--accuracy low|high] [--cascade PATH]
                                         [--min-neighbors N] [--min-size PX] [--angles A,B,...] [--no-landmarks]

        Finds faces and prints one line per face, largest first: `face x,y,w,h`, then
        `left_eye x,y`, `right_eye x,y`, `mouth x,y` when found, and `smile`,
        `left_eye_closed`, `right_eye_closed` when set. With --accuracy high (default) faces
        come from a HOG detector (dlib's frontal face detector: the faces of
        dlib.get_frontal_face_detector()(img, 1)); with low, from OpenCV's
        haarcascade_frontalface_alt2.xml with a coarse search (about 5x faster, for video).
        --cascade uses that cascade at either accuracy (at high, the boxes are those of
        OpenCV's detectMultiScale(gray, 1.1, 3)). The models ship with PixelFlow.

        Options:
        \(sharedOptions)
              --cascade PATH    Another face cascade file (Haar or LBP, opencv_traincascade
                                format), e.g. /usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml
              --min-neighbors N OpenCV's minNeighbors (default 3; cascades only).
              --min-size PX     Smallest face side in pixels (default: the cascade's window).
              --angles A,B,...  Also search faces turned by these angles in degrees (e.g. -25,25).
              --no-landmarks    No eyes, mouth or smile.
              --threads N       Search with N threads (default: one per processor); the
                                faces do not depend on it.
              --timing N        Also run the detection N more times and print the median time
                                of those runs to standard error, as `time_ms=T` (for
                                scripts/eval_faces.py: the image is decoded and the models
                                loaded once, outside the timing).
          -h, --help            Show this help.

        JSON: each feature is {"type": "face", "bounds": [x, y, w, h], "left_eye": [x, y] or
        null, "right_eye": ..., "mouth": ..., "has_smile": bool, "left_eye_closed": bool,
        "right_eye_closed": bool, "confidence": C} (plus "face_angle" when --angles is
        given, and "landmarks": [[x, y] x 5] at high accuracy: dlib's 5-point model, the
        outer and inner corners of the right eye, then of the left eye, then the base of the
        nose); C is the detector's score, higher when surer (HOG: the filter's response above
        its threshold; a cascade: its number of raw windows). --annotate draws
        a red square around each face, yellow squares on the eyes and a filled green ellipse
        on the mouth.

        Examples:
          pixelflow detect faces portrait.png --json
          pixelflow detect faces group.jpg --annotate marked.png --angles -25,25
          pixelflow detect faces video-frame.png --accuracy low --no-landmarks

        \(exitStatus)
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: options)
        let p = args.positionals
        if args.flag("--help") {
            Terminal.output(help(for: p.first ?? ""))
            return ExitCode.success
        }
        guard let kind = p.first else {
            throw CLIError.usage(
                "detect needs what to find and an image, as in `pixelflow detect qr photo.png`; run `pixelflow detect --help`")
        }
        switch kind {
        case "qr", "rectangles", "faces": break
        default:
            throw CLIError.usage("cannot detect '\(kind)'; use qr, rectangles or faces")
        }
        if kind != "faces" {
            for flag in ["--cascade", "--min-neighbors", "--min-size", "--angles"] where try args.value(flag) != nil {
                throw CLIError.usage("\(flag) is for `detect faces` only")
            }
        }
        guard p.count == 2 else {
            throw CLIError.usage(
                p.count < 2
                    ? "detect \(kind) needs an input image, as in `pixelflow detect \(kind) photo.png`"
                    : "detect \(kind) takes one input image, got \(p.count - 1): \(p.dropFirst().joined(separator: " "))")
        }
        let input = p[1]
        var options = DetectorOptions()
        if let a = try args.value("--accuracy") {
            guard let accuracy = DetectorAccuracy(rawValue: a.lowercased()) else {
                throw CLIError.usage("unknown --accuracy '\(a)'; use low or high")
            }
            options.accuracy = accuracy
        }
        options.tryHarder = args.flag("--try-harder")
        let json = args.flag("--json")
        let annotate = try args.value("--annotate")
        var annotateFormat = ImageFileFormat.png
        if let out = annotate {
            if out == "-" {
                if json {
                    throw CLIError.usage("--annotate - and --json would both write to standard output; write the image to a file")
                }
            } else {
                guard let ext = pathExtension(out), let f = ImageFileFormat(pathExtension: ext) else {
                    throw CLIError.usage("cannot tell the --annotate format from '\(out)'; name it .png, .jpg, .pnm or .bmp")
                }
                annotateFormat = f
                if input != "-", let a = Terminal.fileIdentity(out), a == Terminal.fileIdentity(input) {
                    throw CLIError.usage("refusing to overwrite the input '\(input)' with --annotate; write to another file")
                }
            }
        }

        var faceConfiguration = FaceDetector.Configuration()
        var timingRuns = 0
        if kind == "faces" {
            if let path = try args.value("--cascade") { faceConfiguration.cascade = .file(URL(fileURLWithPath: path)) }
            if let v = try args.value("--min-neighbors") {
                guard let n = Int(v), n >= 0 else { throw CLIError.usage("--min-neighbors takes a count >= 0, got '\(v)'") }
                faceConfiguration.minimumNeighbors = n
            }
            if let v = try args.value("--min-size") {
                guard let n = Int(v), n >= 0 else { throw CLIError.usage("--min-size takes pixels >= 0, got '\(v)'") }
                faceConfiguration.minimumFaceSize = n
            }
            if let v = try args.value("--angles") {
                let angles = v.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard !angles.isEmpty, angles.allSatisfy({ $0 != nil && $0!.isFinite && abs($0!) <= 180 }) else {
                    throw CLIError.usage("--angles takes degrees within ±180 separated by commas, got '\(v)'")
                }
                faceConfiguration.rotationAngles = angles.compactMap { $0 }
            }
            faceConfiguration.findsLandmarks = !args.flag("--no-landmarks")
            faceConfiguration.threadCount = try args.integer("--threads", in: 1...4096)
            timingRuns = try args.integer("--timing", in: 1...1000) ?? 0
        } else {
            for flag in ["--threads", "--timing"] where try args.value(flag) != nil {
                throw CLIError.usage("\(flag) is for `detect faces` only")
            }
        }

        if let out = annotate { try Terminal.checkOutputFolder(of: out) }
        let buffer = try ApplyJob.load(input)
        if kind == "faces" {
            let detector: FaceDetector
            do { detector = try FaceDetector(options: options, configuration: faceConfiguration) } catch {
                throw CLIError.runtime("\(error)")
            }
            return try detectFaces(
                buffer, detector: detector, input: input, json: json,
                annotate: annotate, annotateFormat: annotateFormat, timingRuns: timingRuns)
        }
        if kind == "rectangles" {
            return try detectRectangles(
                buffer, input: input, accuracy: options.accuracy, json: json,
                annotate: annotate, annotateFormat: annotateFormat)
        }
        let codes = try QRCodeDetector(options: options).features(in: buffer)

        if json {
            let features = codes.map { c in
                JSONText.object([
                    ("type", JSONText.string("qr")),
                    ("message", c.message.map(JSONText.string) ?? "null"),
                    ("corners", JSONText.array(c.corners.map { JSONText.array([coordinate($0.x), coordinate($0.y)]) })),
                    ("version", String(c.version.number)),
                    ("level", JSONText.string(c.correctionLevel.letter)),
                ])
            }
            Terminal.output(
                JSONText.object([
                    ("width", String(buffer.width)), ("height", String(buffer.height)),
                    ("features", JSONText.array(features)),
                ]))
        } else if annotate != "-" {
            if codes.isEmpty { Terminal.error("pixelflow detect: no QR code found in \(input == "-" ? "<stdin>" : input)") }
            for c in codes {
                let corners = c.corners.map { "\(coordinate($0.x)),\(coordinate($0.y))" }.joined(separator: " ")
                Terminal.output(
                    "qr \(c.version.number)-\(c.correctionLevel.letter) \(corners) \(escaped(c.message ?? "<not text>"))")
            }
        }

        if let out = annotate {
            var canvas = buffer.format == .rgba8 ? buffer : buffer.converted(to: .rgba8)
            let thickness = Swift.max(2.0, Double(Swift.min(buffer.width, buffer.height)) / 250)
            for c in codes {
                let q = c.corners
                for i in 0..<4 {
                    AnnotationPen.line(&canvas, from: q[i], to: q[(i + 1) % 4], width: thickness, color: (0, 220, 0))
                }
                AnnotationPen.disc(&canvas, at: q[0], radius: thickness * 2, color: (230, 0, 0))
            }
            do {
                if out == "-" {
                    try Terminal.writeStandardOutput(try canvas.encoded(as: .png))
                } else {
                    try canvas.write(toFile: out, format: annotateFormat)
                }
            } catch let error as CLIError {
                throw error
            } catch {
                throw CLIError.runtime(ApplyJob.message(error, about: out))
            }
        }
        return ExitCode.success
    }

    /// `detect rectangles`: the most prominent quadrilateral, as CIDetectorTypeRectangle; the
    /// annotation is a translucent red quad, as the seed apps draw it.
    static func detectRectangles(
        _ buffer: PixelBuffer, input: String, accuracy: DetectorAccuracy, json: Bool,
        annotate: String?, annotateFormat: ImageFileFormat
    ) throws -> Int32 {
        let detector = RectangleDetector(options: .init(accuracy: accuracy == .low ? .low : .high))
        let quads = detector.features(in: buffer)
        if json {
            let features = quads.map { q in
                JSONText.object([
                    ("type", JSONText.string("rectangle")),
                    ("corners", JSONText.array(q.corners.map { JSONText.array([coordinate($0.x), coordinate($0.y)]) })),
                    ("confidence", JSONText.number((q.confidence * 1000).rounded() / 1000)),
                ])
            }
            Terminal.output(
                JSONText.object([
                    ("width", String(buffer.width)), ("height", String(buffer.height)),
                    ("features", JSONText.array(features)),
                ]))
        } else if annotate != "-" {
            if quads.isEmpty { Terminal.error("pixelflow detect: no rectangle found in \(input == "-" ? "<stdin>" : input)") }
            for q in quads {
                Terminal.output("rectangle " + q.corners.map { "\(coordinate($0.x)),\(coordinate($0.y))" }.joined(separator: " "))
            }
        }
        if let out = annotate {
            var canvas = Canvas(buffer: buffer.format == .rgba8 ? buffer : buffer.converted(to: .rgba8))
            for q in quads {
                canvas.fillPolygon(q.corners, color: Color(red: 1, green: 0, blue: 0, alpha: 0.4))
                canvas.strokePolygon(
                    q.corners, width: Swift.max(2, Double(Swift.min(buffer.width, buffer.height)) / 250),
                    color: Color(red: 1, green: 0, blue: 0))
            }
            try writeAnnotation(canvas.buffer, to: out, format: annotateFormat)
        }
        return ExitCode.success
    }

    /// `detect faces`: CIDetectorTypeFace; the annotation is what the seed apps draw (a red
    /// square around each face, yellow squares on the eyes, a filled ellipse on the mouth).
    static func detectFaces(
        _ buffer: PixelBuffer, detector: FaceDetector, input: String, json: Bool,
        annotate: String?, annotateFormat: ImageFileFormat, timingRuns: Int = 0
    ) throws -> Int32 {
        let faces = try detector.features(in: buffer)
        if timingRuns > 0 {
            var times: [Double] = []
            for _ in 0..<timingRuns {
                let start = DispatchTime.now().uptimeNanoseconds
                _ = try detector.features(in: buffer)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            }
            times.sort()
            let median = times.count % 2 == 1 ? times[times.count / 2] : (times[times.count / 2 - 1] + times[times.count / 2]) / 2
            Terminal.error("time_ms=\((median * 1000).rounded() / 1000)")
        }
        func point(_ p: Point?) -> String { p.map { JSONText.array([coordinate($0.x), coordinate($0.y)]) } ?? "null" }
        if json {
            let features = faces.map { f in
                var fields: [(String, String)] = [
                    ("type", JSONText.string("face")),
                    ("bounds", JSONText.array([f.bounds.x, f.bounds.y, f.bounds.width, f.bounds.height].map(coordinate))),
                    ("left_eye", point(f.leftEyePosition)),
                    ("right_eye", point(f.rightEyePosition)),
                    ("mouth", point(f.mouthPosition)),
                    ("has_smile", f.hasSmile ? "true" : "false"),
                    ("left_eye_closed", f.leftEyeClosed ? "true" : "false"),
                    ("right_eye_closed", f.rightEyeClosed ? "true" : "false"),
                    ("confidence", JSONText.number((f.confidence * 1000).rounded() / 1000)),
                ]
                if let a = f.faceAngle { fields.append(("face_angle", coordinate(a))) }
                if !f.landmarks.isEmpty { fields.append(("landmarks", JSONText.array(f.landmarks.map { point($0) }))) }
                return JSONText.object(fields)
            }
            Terminal.output(
                JSONText.object([
                    ("width", String(buffer.width)), ("height", String(buffer.height)),
                    ("features", JSONText.array(features)),
                ]))
        } else if annotate != "-" {
            if faces.isEmpty { Terminal.error("pixelflow detect: no face found in \(input == "-" ? "<stdin>" : input)") }
            for f in faces {
                var line =
                    "face \(coordinate(f.bounds.x)),\(coordinate(f.bounds.y)),\(coordinate(f.bounds.width)),\(coordinate(f.bounds.height))"
                for (name, p) in [("left_eye", f.leftEyePosition), ("right_eye", f.rightEyePosition), ("mouth", f.mouthPosition)]
                {
                    if let p { line += " \(name) \(coordinate(p.x)),\(coordinate(p.y))" }
                }
                if f.hasSmile { line += " smile" }
                if f.leftEyeClosed { line += " left_eye_closed" }
                if f.rightEyeClosed { line += " right_eye_closed" }
                if let a = f.faceAngle { line += " angle \(coordinate(a))" }
                Terminal.output(line)
            }
        }
        if let out = annotate {
            var canvas = Canvas(buffer: buffer.format == .rgba8 ? buffer : buffer.converted(to: .rgba8))
            let thickness = Swift.max(2, Double(Swift.min(buffer.width, buffer.height)) / 300)
            for f in faces {
                let b = f.bounds
                canvas.strokeRect(b, width: thickness, color: Color(red: 1, green: 0, blue: 0))
                let eye = b.width * 0.18
                for p in [f.leftEyePosition, f.rightEyePosition].compactMap({ $0 }) {
                    let r = Rect(x: p.x - eye / 2, y: p.y - eye / 2, width: eye, height: eye)
                    canvas.fillRect(r, color: Color(red: 1, green: 1, blue: 0, alpha: 0.35))
                    canvas.strokeRect(r, width: Swift.max(1, thickness / 2), color: Color(red: 1, green: 1, blue: 0))
                }
                if let m = f.mouthPosition {
                    let w = b.width * 0.4, h = b.height * 0.15
                    canvas.fillEllipse(
                        in: Rect(x: m.x - w / 2, y: m.y - h / 2, width: w, height: h),
                        color: Color(red: 0, green: 1, blue: 0, alpha: 0.45))
                }
            }
            try writeAnnotation(canvas.buffer, to: out, format: annotateFormat)
        }
        return ExitCode.success
    }

    /// Writes an annotated image to `out` (standard output for `-`, as PNG).
    static func writeAnnotation(_ buffer: PixelBuffer, to out: String, format: ImageFileFormat?) throws {
        do {
            if out == "-" {
                try Terminal.writeStandardOutput(try buffer.encoded(as: .png))
            } else {
                try buffer.write(toFile: out, format: format)
            }
        } catch {
            throw CLIError.runtime(ApplyJob.message(error, about: out))
        }
    }

    /// A coordinate rounded to 1/100 pixel.
    static func coordinate(_ v: Double) -> String { JSONText.number((v * 100).rounded() / 100) }

    /// `text` on one line: backslash, newline, carriage return and tab escaped.
    static func escaped(_ text: String) -> String {
        var out = ""
        for ch in text.unicodeScalars {
            switch ch {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default: out.unicodeScalars.append(ch)
            }
        }
        return out
    }
}

/// Minimal drawing for `detect --annotate`: thick lines and discs into an rgba8 buffer. Kept
/// private to the tool until the library's Canvas exists.
enum AnnotationPen {
    /// A line `width` pixels wide from `a` to `b` (every pixel whose centre is within width / 2
    /// of the segment), opaque.
    static func line(_ buffer: inout PixelBuffer, from a: Point, to b: Point, width: Double, color: (UInt8, UInt8, UInt8)) {
        let r = width / 2
        let minX = pixelIndex(Swift.min(a.x, b.x) - r), maxX = pixelIndex(Swift.max(a.x, b.x) + r + 1)
        let minY = pixelIndex(Swift.min(a.y, b.y) - r), maxY = pixelIndex(Swift.max(a.y, b.y) + r + 1)
        let dx = b.x - a.x, dy = b.y - a.y
        let len2 = dx * dx + dy * dy
        fill(&buffer, minX, minY, maxX, maxY, color) { px, py in
            var t = len2 > 0 ? ((px - a.x) * dx + (py - a.y) * dy) / len2 : 0
            t = Swift.min(Swift.max(t, 0), 1)
            let ex = a.x + t * dx - px, ey = a.y + t * dy - py
            return ex * ex + ey * ey <= r * r
        }
    }

    /// A filled disc.
    static func disc(_ buffer: inout PixelBuffer, at c: Point, radius: Double, color: (UInt8, UInt8, UInt8)) {
        fill(
            &buffer, pixelIndex(c.x - radius - 1), pixelIndex(c.y - radius - 1), pixelIndex(c.x + radius + 1),
            pixelIndex(c.y + radius + 1), color
        ) { px, py in
            (px - c.x) * (px - c.x) + (py - c.y) * (py - c.y) <= radius * radius
        }
    }

    static func fill(
        _ buffer: inout PixelBuffer, _ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int,
        _ color: (UInt8, UInt8, UInt8), inside: (Double, Double) -> Bool
    ) {
        guard buffer.format == .rgba8 else { return }
        let lx = Swift.max(x0, 0), hx = Swift.min(x1, buffer.width - 1)
        let ly = Swift.max(y0, 0), hy = Swift.min(y1, buffer.height - 1)
        guard lx <= hx, ly <= hy else { return }
        let stride = buffer.bytesPerRow
        buffer.withUnsafeMutableBytes { raw in
            for y in ly...hy {
                for x in lx...hx where inside(Double(x) + 0.5, Double(y) + 0.5) {
                    let o = y * stride + 4 * x
                    raw[o] = color.0
                    raw[o + 1] = color.1
                    raw[o + 2] = color.2
                    raw[o + 3] = 255
                }
            }
        }
    }
}

/// `v` rounded down and clamped to ±1e9 (Int(_:) traps on huge or non-finite values).
private func pixelIndex(_ v: Double) -> Int {
    guard v.isFinite else { return 0 }
    return Int(Swift.min(Swift.max(v, -1e9), 1e9).rounded(.down))
}
