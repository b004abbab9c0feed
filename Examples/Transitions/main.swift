import ExampleSupport
import Foundation
import PixelFlow

// Transitions: every transition filter of the registry rendered over time, from one image to
// another, as numbered PNG frames or one YUV4MPEG2 video stream. A transition is a filter
// like any other: `inputTime` goes from 0 (the first image) to 1 (the target image).
//
//     swift run Transitions                                       # PNG frames
//     swift run Transitions --filter CIDissolveTransition --frames 30
//     swift run -c release Transitions --y4m - | ffplay -           # or: | ffmpeg -i - out.mp4

let usage = """
    Usage: Transitions [IMAGE TARGET] [--filter NAME]... [--frames N] [--out DIR] [--y4m FILE|-] [--size WxH]

    Renders each transition filter (all filters in the Transition category, or those named
    with --filter) from IMAGE to TARGET in N frames, inputTime going from 0 to 1. Without
    images: the built-in landscape and the same landscape at night. TARGET is scaled to
    IMAGE's size when they differ.

      --filter NAME   A transition to render (CIDissolveTransition, ModTransition, ...);
                      repeat for several. Default: every transition in the registry.
      --frames N      Frames per transition, 2...1000 (default 10).
      --out DIR       Write DIR/<Transition>/frame-NNN.png (default example-output/Transitions).
      --y4m FILE      Write all frames, transition after transition, as one YUV4MPEG2
                      stream (4:2:0, full range, 25 frames per second) to FILE instead of
                      PNGs; `-` is standard output (messages then go to standard error).
      --size WxH      Size of the built-in images (default 320x240; ignored with IMAGE).

    Inputs other than the images and the time keep their defaults, except: extents become
    the image's rect, centers its center; a mask is a radial gradient, a shading image a
    shaded sphere, and a page's back side IMAGE in sepia.
    Exit status: 0 on success, 1 when a file cannot be read or written, 2 for a wrong
    command line.
    """

let args = ExampleCommandLine(usage: usage, valueOptions: ["--filter", "--frames", "--out", "--y4m", "--size"])

/// The images a transition may need besides the two it goes between.
struct Extras {
    var mask: Image
    var shading: Image
    var backside: Image

    init(image: Image) throws {
        let e = image.extent
        let center = FilterValue.vector([e.midX, e.midY])
        // A mask dark in the middle, so the middle disintegrates first.
        mask = try FilterRegistry.apply(
            "CIRadialGradient",
            [
                "inputCenter": center, "inputRadius0": .number(0), "inputRadius1": .number(max(e.width, e.height) * 0.6),
                "inputColor0": .color(.black), "inputColor1": .color(.white),
            ]
        ).cropped(to: e)
        // A shaded sphere in a 100 x 100 square: light upper left, dark rim.
        shading = try FilterRegistry.apply(
            "CIRadialGradient",
            [
                "inputCenter": .vector([35, 35]), "inputRadius0": .number(0), "inputRadius1": .number(70),
                "inputColor0": .color(Color(white: 1)), "inputColor1": .color(Color(white: 0.2)),
            ]
        ).cropped(to: Rect(x: 0, y: 0, width: 100, height: 100))
        backside = try image.sepiaTone(intensity: 1)
    }
}

/// The inputs of transition `d` at `time`: the two images, the time, and the adjustments
/// described in the usage.
func inputs(for d: FilterDescriptor, from image: Image, to target: Image, time: Double, extras: Extras) -> [String: FilterValue?]
{
    let e = image.extent
    var values: [String: FilterValue?] = [
        "inputImage": .image(image), "inputTargetImage": .image(target), "inputTime": .number(time),
    ]
    for input in d.inputs {
        switch input.key {
        case "inputExtent", "inputShadowExtent": values[input.key] = .vector([e.minX, e.minY, e.width, e.height])
        case "inputCenter": values[input.key] = .vector([e.midX, e.midY])
        case "inputMaskImage": values[input.key] = .image(extras.mask)
        case "inputShadingImage": values[input.key] = .image(extras.shading)
        case "inputBacksideImage": values[input.key] = .image(extras.backside)
        default: break
        }
    }
    return values
}

runExample {
    guard args.positionals.isEmpty || args.positionals.count == 2 else {
        ExampleCommandLine.usageError("give two images (from and to) or none, got \(args.positionals.count)", usage: usage)
    }
    let frames = args.integer("--frames", in: 2...1000, default: 10)
    let out = args.value("--out") ?? "example-output/Transitions"
    let y4mPath = args.value("--y4m")
    let toStandardOutput = y4mPath == "-"
    // Messages go to standard error when standard output carries the video.
    let log: (String) -> Void = toStandardOutput ? { printError($0) } : { print($0) }

    var transitions: [FilterDescriptor] = []
    for name in args.values("--filter") {
        guard let d = FilterRegistry.descriptor(named: name) else {
            let names = FilterRegistry.filterNames(inCategories: [.transition]).joined(separator: ", ")
            ExampleCommandLine.usageError("unknown filter '\(name)'; the transitions are \(names)", usage: usage)
        }
        guard d.input("inputTargetImage") != nil, d.input("inputTime") != nil else {
            ExampleCommandLine.usageError(
                "\(d.name) is not a transition (it has no inputTargetImage and inputTime)", usage: usage)
        }
        transitions.append(d)
    }
    if transitions.isEmpty {
        transitions = FilterRegistry.filterNames(inCategories: [.transition]).compactMap(FilterRegistry.descriptor(named:))
    }

    let context = RenderContext()
    let image: Image, target: Image
    if args.positionals.count == 2 {
        image = Image(try loadImage(args.positionals[0]))
        var t = Image(try loadImage(args.positionals[1]))
        if t.extent != image.extent {
            t = try t.transformed(
                by: AffineTransform(
                    scaleX: image.extent.width / t.extent.width,
                    y: image.extent.height / t.extent.height)
            ).cropped(to: image.extent)
        }
        target = t
    } else {
        let size = args.size("--size", default: (320, 240))
        image = Image(try SampleScene.make(width: size.width, height: size.height))
        // Night: darker, bluish.
        target = try image.exposureAdjusted(ev: -1.6).colorMonochrome(
            color: Color(red: 0.55, green: 0.65, blue: 1), intensity: 0.8)
    }
    let extras = try Extras(image: image)

    // The stream, when writing one.
    var writer: Y4MWriter?
    let header = Y4MHeader(width: Int(image.extent.width), height: Int(image.extent.height))
    if let y4mPath {
        var fd: Int32 = 1
        if !toStandardOutput {
            fd = open(y4mPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard fd >= 0 else { throw ExampleError("cannot create \(y4mPath): \(String(cString: strerror(errno)))") }
        }
        writer = try Y4MWriter(header: header, fileDescriptor: fd)
    }

    let clock = ContinuousClock()
    for d in transitions {
        let start = clock.now
        let folder = outputPath(out, d.name.hasPrefix("CI") ? String(d.name.dropFirst(2)) : d.name)
        if writer == nil { try makeOutputFolder(folder) }
        for i in 0..<frames {
            let time = Double(i) / Double(frames - 1)
            let frame = try d.apply(inputs(for: d, from: image, to: target, time: time, extras: extras)).cropped(to: image.extent)
            // Transparent parts (a page curling away) show black, as in a video.
            let opaque = frame.composited(over: Image(color: .black)).cropped(to: image.extent)
            let pixels = try context.makeBuffer(opaque, format: .rgba8)
            if let writer {
                try writer.write(try header.frame(from: pixels))
            } else {
                try pixels.write(toFile: outputPath(folder, "frame-" + String(format: "%03d", i) + ".png"))
            }
        }
        let destination =
            writer == nil ? folder + "/frame-000.png ... frame-" + String(format: "%03d", frames - 1) + ".png" : y4mPath!
        log("\(d.name) (\(d.displayName)): \(frames) frames in \(milliseconds(clock.now - start)) -> \(destination)")
    }
    if writer != nil {
        log(
            "\(transitions.count * frames) frames of \(header.width)x\(header.height) as YUV4MPEG2 -> \(toStandardOutput ? "standard output" : y4mPath!)"
        )
    }
}
