#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PixelFlow

// pixelflow-demo: builds an image (or reads one), runs a chain of filters step by step and
// writes every step as a PNG, printing its path, size and time.
//
//     swift run -c release pixelflow-demo                  # the built-in test card
//     swift run -c release pixelflow-demo photo.jpg --out /tmp/steps

let usage = """
    Usage: pixelflow-demo [IMAGE] [--out DIR] [--size WxH]

    Runs a chain of filters one step at a time on IMAGE (default: a test card drawn in code)
    and writes each step to DIR (default: demo-output) as NN-name.png:
      00 original, 01 exposure +0.5 EV, 02 saturation 1.3, 03 gamma 0.8, 04 sepia 0.6,
      05 Gaussian blur 3 (edges clamped, cropped back), 06 3x3 sharpen, 07 Lanczos scale 0.5,
      08 rotation by 10 degrees about the center, 09 composited over a constant color,
      10 crop to the middle.
    --size WxH sets the test card's size (default 640x400; ignored with IMAGE).
    Each step is the whole chain so far, rendered from the original; the times printed
    are for rendering that chain and for encoding and writing the PNG.
    """

/// Standard error, unbuffered.
func printError(_ text: String) {
    let bytes = Array((text + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}

/// The command line: an optional input path and `--out DIR`.
struct DemoOptions {
    var input: String?
    var outputDirectory = "demo-output"
    var width = 640
    var height = 400

    init(_ arguments: [String]) throws {
        var i = 0
        while i < arguments.count {
            let arg = arguments[i]
            i += 1
            switch arg {
            case "--help", "-h":
                print(usage)
                exit(0)
            case "--out", "-o":
                guard i < arguments.count else { throw DemoError("--out needs a directory") }
                outputDirectory = arguments[i]
                i += 1
            case _ where arg.hasPrefix("--out="):
                outputDirectory = String(arg.dropFirst("--out=".count))
            case "--size":
                guard i < arguments.count else { throw DemoError("--size needs WxH, such as 640x400") }
                try parseSize(arguments[i])
                i += 1
            case _ where arg.hasPrefix("-") && arg.count > 1:
                throw DemoError("unknown option '\(arg)'; run `pixelflow-demo --help`")
            default:
                guard input == nil else { throw DemoError("give at most one image; run `pixelflow-demo --help`") }
                input = arg
            }
        }
        if outputDirectory.isEmpty { throw DemoError("--out needs a directory") }
    }

    mutating func parseSize(_ text: String) throws {
        let parts = text.split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), (8...8192).contains(w), (8...8192).contains(h)
        else {
            throw DemoError("--size needs WxH with sides in 8...8192, such as 640x400; got '\(text)'")
        }
        width = w
        height = h
    }
}

struct DemoError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Creates `path` and its missing parents.
func makeDirectory(_ path: String) throws {
    var prefix = path.hasPrefix("/") ? "/" : ""
    for part in path.split(separator: "/") {
        prefix += part
        var s = stat()
        if stat(prefix, &s) != 0 {
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw DemoError("cannot create the directory '\(prefix)': \(String(cString: strerror(errno)))")
            }
        } else if (s.st_mode & S_IFMT) != S_IFDIR {
            throw DemoError("'\(prefix)' exists and is not a directory")
        }
        prefix += "/"
    }
}

// MARK: The test card

/// A deterministic 640x400 test card drawn in code: smooth color gradients, a fine checker
/// band, opaque and translucent discs and rectangles, and a half-transparent corner, so
/// every step of the chain has something to show.
func makeTestCard(width: Int = 640, height: Int = 400) throws -> PixelBuffer {
    var buffer = try PixelBuffer(width: width, height: height, format: .rgba8)
    let w = Float(width), h = Float(height)

    struct Disc { var cx, cy, r: Float; var color: SIMD4<Float> }
    struct Box { var x0, y0, x1, y1: Float; var color: SIMD4<Float> }
    let discs = [
        Disc(cx: 0.22 * w, cy: 0.35 * h, r: 0.16 * h, color: [0.95, 0.20, 0.15, 1]),
        Disc(cx: 0.50 * w, cy: 0.62 * h, r: 0.22 * h, color: [0.10, 0.55, 0.95, 0.55]),
        Disc(cx: 0.78 * w, cy: 0.30 * h, r: 0.12 * h, color: [1.00, 0.85, 0.10, 1]),
        Disc(cx: 0.66 * w, cy: 0.45 * h, r: 0.10 * h, color: [0.20, 0.85, 0.30, 0.6]),
    ]
    let boxes = [
        Box(x0: 0.06 * w, y0: 0.70 * h, x1: 0.30 * w, y1: 0.90 * h, color: [1, 1, 1, 1]),
        Box(x0: 0.36 * w, y0: 0.12 * h, x1: 0.58 * w, y1: 0.30 * h, color: [0.05, 0.05, 0.10, 0.7]),
        Box(x0: 0.72 * w, y0: 0.62 * h, x1: 0.95 * w, y1: 0.88 * h, color: [0.70, 0.20, 0.80, 0.45]),
    ]
    // "Over" in straight sRGB values, which is how a paint program would draw it.
    func over(_ dst: SIMD4<Float>, _ c: SIMD4<Float>, coverage: Float) -> SIMD4<Float> {
        let a = c.w * coverage
        var out = dst * (1 - a) + c * a
        out.w = dst.w + a * (1 - dst.w)
        return out
    }
    for y in 0..<height {
        let fy = (Float(y) + 0.5) / h
        for x in 0..<width {
            let fx = (Float(x) + 0.5) / w
            // Smooth gradients: red across, green down, blue as a soft wave.
            var p = SIMD4<Float>(0.15 + 0.7 * fx, 0.15 + 0.6 * fy, 0.5 + 0.35 * sinf(6.2832 * (fx + 0.5 * fy)), 1)
            // A band of fine 2-pixel checkers along the bottom, and lines of 1-pixel ones on the right.
            if fy > 0.93 {
                let check = ((x / 2) + (y / 2)) % 2 == 0
                p = check ? SIMD4(0.92, 0.92, 0.92, 1) : SIMD4(0.08, 0.08, 0.08, 1)
            } else if fx > 0.96 {
                p = (x + y) % 2 == 0 ? SIMD4(1, 1, 1, 1) : SIMD4(0, 0, 0, 1)
            }
            for b in boxes {
                let px = Float(x) + 0.5, py = Float(y) + 0.5
                if px >= b.x0 && px < b.x1 && py >= b.y0 && py < b.y1 { p = over(p, b.color, coverage: 1) }
            }
            for d in discs {
                let dx = Float(x) + 0.5 - d.cx, dy = Float(y) + 0.5 - d.cy
                let coverage = min(1, max(0, d.r - (dx * dx + dy * dy).squareRoot() + 0.5))
                if coverage > 0 { p = over(p, d.color, coverage: coverage) }
            }
            // The top-left corner fades to half transparent, so compositing shows.
            let corner = max(0, 1 - (fx * fx + fy * fy).squareRoot() / 0.25)
            p.w *= 1 - 0.5 * corner
            buffer[x, y] = p
        }
    }
    return buffer
}

// MARK: The chain

/// One step of the demo: a file name and how it changes the image of the previous step.
struct Step {
    var name: String
    var make: (Image) throws -> Image
}

func demoSteps(original: Rect) -> [Step] {
    var frame = original
    return [
        Step(name: "exposure") { try $0.exposureAdjusted(ev: 0.5) },
        Step(name: "saturation") { try $0.colorControls(saturation: 1.3) },
        Step(name: "gamma") { try $0.gammaAdjusted(power: 0.8) },
        Step(name: "sepia") { try $0.sepiaTone(intensity: 0.6) },
        Step(name: "blur") { try $0.clampedToExtent().gaussianBlurred(radius: 3).cropped(to: $0.extent) },
        Step(name: "sharpen") { try $0.convolved3x3(weights: [0, -1, 0, -1, 5, -1, 0, -1, 0]).cropped(to: $0.extent) },
        Step(name: "scale") {
            let out = try $0.lanczosScaled(scale: 0.5)
            frame = out.extent
            return out
        },
        Step(name: "rotate") {
            let cx = frame.midX, cy = frame.midY
            let t = AffineTransform(translationX: -cx, y: -cy)
                .concatenating(AffineTransform(rotationAngle: 10 * Double.pi / 180))
                .concatenating(AffineTransform(translationX: cx, y: cy))
            let out = try $0.transformed(by: t)
            frame = out.extent.integral
            return out
        },
        Step(name: "composite") {
            $0.composited(over: try Image.constantColor(Color(red: 0.16, green: 0.20, blue: 0.28))).cropped(to: frame)
        },
        Step(name: "crop") {
            let f = frame
            let r = Rect(
                x: f.minX + 0.15 * f.width, y: f.minY + 0.15 * f.height,
                width: 0.7 * f.width, height: 0.7 * f.height
            ).integral
            return $0.cropped(to: r)
        },
    ]
}

/// Milliseconds in `d`, with one decimal.
func milliseconds(_ d: Duration) -> String {
    let c = d.components
    let ms = Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15
    let tenths = Int((ms * 10).rounded())
    return "\(tenths / 10).\(tenths % 10) ms"
}

extension String {
    var trimmingTrailingSpaces: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

func pad(_ s: String, _ n: Int) -> String { s.count >= n ? s : s + String(repeating: " ", count: n - s.count) }

func runDemo() throws {
    let options = try DemoOptions(Array(CommandLine.arguments.dropFirst()))
    let clock = ContinuousClock()
    let context = RenderContext()
    try makeDirectory(options.outputDirectory)
    func path(_ index: Int, _ name: String) -> String {
        let dir = options.outputDirectory.hasSuffix("/") ? options.outputDirectory : options.outputDirectory + "/"
        return dir + (index < 10 ? "0" : "") + "\(index)-\(name).png"
    }
    func report(_ path: String, _ buffer: PixelBuffer, _ first: (String, Duration), _ write: Duration, _ note: String = "") {
        let times = "\(first.0) \(pad(milliseconds(first.1), 9)) write \(pad(milliseconds(write), 9))"
        print(("\(pad(path, 36)) \(pad("\(buffer.width)x\(buffer.height)", 9)) \(times) \(note)").trimmingTrailingSpaces)
    }

    let start = clock.now
    let original: PixelBuffer
    let source: String
    if let input = options.input {
        original = try PixelBuffer(contentsOfFile: input)
        source = "(\(input))"
    } else {
        original = try makeTestCard(width: options.width, height: options.height)
        source = "(test card drawn in code)"
    }
    let loaded = clock.now
    let first = path(0, "original")
    try original.write(toFile: first, format: .png)
    report(first, original, (options.input == nil ? "draw  " : "read  ", loaded - start), clock.now - loaded, source)

    var image = Image(original)
    for (i, step) in demoSteps(original: image.extent).enumerated() {
        let t0 = clock.now
        image = try step.make(image)
        let rendered = try context.makeBuffer(image, format: .rgba8)
        let t1 = clock.now
        let file = path(i + 1, step.name)
        try rendered.write(toFile: file, format: .png)
        report(file, rendered, ("render", t1 - t0), clock.now - t1)
    }
}

do {
    try runDemo()
} catch {
    printError("pixelflow-demo: \(error)")
    exit(1)
}
