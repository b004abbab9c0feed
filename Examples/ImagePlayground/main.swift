import ExampleSupport
import PixelFlow

// ImagePlayground: the filter catalog by category, and a chain of filters built by name.
// A port of Apple's "Core Image Playground" idea to Linux: every step is written as a PNG,
// and a contact sheet shows all the steps side by side, labelled.
//
//     swift run ImagePlayground --list
//     swift run ImagePlayground --filter 'CISepiaTone inputIntensity=0.8' --filter 'CIVignette intensity=1.5'
//     swift run ImagePlayground photo.jpg --out /tmp/steps --filter 'CIPixellate inputScale=12'

let usage = """
    Usage: ImagePlayground [IMAGE] [--filter 'NAME key=value ...']... [--out DIR] [--thumb H] [--size WxH]
           ImagePlayground --list [CATEGORY]

    Applies the filters, in order, to IMAGE (default: a landscape drawn in code) and writes
    DIR/00-original.png, DIR/01-<filter>.png, ... (the image after every step) and
    DIR/contact-sheet.png (all steps side by side, H pixels high, labelled).
    DIR defaults to example-output/ImagePlayground.

      --filter SPEC   A filter and its inputs: 'CISepiaTone inputIntensity=0.8'. Keys may drop
                      `input` (intensity=0.8); inputs not given keep their defaults; second
                      images (a background, a transition target) are the original image.
                      Without --filter: exposure, sepia, Gaussian blur and vignette.
      --list          Print the effect categories and the filters in each, with display
                      names (only CATEGORY's, such as Blur, when given), and exit.
      --thumb H       Height of the contact sheet's thumbnails, 16...1024 (default 120).
      --size WxH      Size of the built-in image (default 480x320; ignored with IMAGE).

    Every step is the whole chain so far, planned and rendered from the original: PixelFlow
    fuses and folds the chain each time, so the last file is what one render of the chain gives.
    Exit status: 0 on success, 1 when a file cannot be read or written, 2 for a wrong command
    line or a value a filter rejects.
    """

let args = ExampleCommandLine(usage: usage, valueOptions: ["--out", "--filter", "--thumb", "--size"], flags: ["--list"])

/// Prints every effect category and its filters: `CISepiaTone  Sepia Tone`.
func listCatalog(only wanted: String?) {
    var categories = FilterCategory.effects
    if let wanted {
        guard let category = FilterCategory(named: wanted) else {
            ExampleCommandLine.usageError(
                "unknown category '\(wanted)'; the categories are "
                    + FilterCategory.effects.map(\.shortName).joined(separator: ", "), usage: usage)
        }
        categories = [category]
    }
    for category in categories {
        let names = FilterRegistry.filterNames(inCategories: [category])
        print("\(category.shortName) (\(names.count) filters)")
        let width = names.map(\.count).max() ?? 0
        for name in names {
            let displayName = FilterRegistry.descriptor(named: name)?.displayName ?? ""
            print("  " + name + String(repeating: " ", count: width - name.count + 2) + displayName)
        }
    }
}

/// One step of the chain, as the user named it.
struct Step {
    var spec: FilterSpec
    /// `key=value` for the values the user set, for printing.
    var settings: String {
        spec.values.keys.sorted().map { "\($0)=\(spec.values[$0]!)" }.joined(separator: " ")
    }
}

/// Applies `step` to `image`: the user's values, `image` as inputImage, and `original` for
/// any other image input the user could not give on the command line.
func apply(_ step: Step, to image: Image, original: Image) throws -> Image {
    var inputs: [String: FilterValue?] = step.spec.values.mapValues { $0 }
    for input in step.spec.descriptor.inputs where input.valueClass == .image {
        if input.key == kCIInputImageKey {
            inputs[input.key] = .image(image)
        } else if input.defaultValue == nil {
            inputs[input.key] = .image(original)
        }
    }
    return try step.spec.descriptor.apply(inputs)
}

/// A contact sheet: each buffer scaled to `thumbHeight` pixels high, side by side on a dark
/// background, with its label under it.
func contactSheet(_ steps: [(label: String, buffer: PixelBuffer)], thumbHeight: Int, context: RenderContext) throws -> PixelBuffer
{
    let pad = 10, labelHeight = 7 + 8
    var x = pad
    var sheet = Image(color: Color(white: 0.12))
    var placed: [(label: String, x: Int, width: Int)] = []
    for step in steps {
        let scale = Double(thumbHeight) / Double(step.buffer.height)
        // Lanczos scaling is a filter like any other; the translation places the thumbnail.
        let thumb = try Image(step.buffer).lanczosScaled(scale: scale)
        let width = Int(thumb.extent.width.rounded())
        let moved = try thumb.transformed(by: AffineTransform(translationX: Double(x), y: Double(pad)))
        sheet = moved.composited(over: sheet)
        placed.append((step.label, x, width))
        x += width + pad
    }
    let bounds = Rect(x: 0, y: 0, width: x, height: pad + thumbHeight + labelHeight + pad)
    // Rendered to pixels, the sheet becomes a canvas for the labels.
    var canvas = Canvas(buffer: try context.makeBuffer(sheet.cropped(to: bounds), format: .rgba8))
    for p in placed {
        let fit = max(1, p.width / (TinyFont.width + 1))
        let text = p.label.count > fit ? String(p.label.prefix(fit)) : p.label
        TinyFont.draw(text, at: Point(x: Double(p.x), y: Double(pad + thumbHeight + 6)), color: Color(white: 0.9), on: &canvas)
    }
    return canvas.buffer
}

runExample {
    if args.flag("--list") {
        listCatalog(only: args.positionals.first)
        return
    }
    guard args.positionals.count <= 1 else {
        ExampleCommandLine.usageError("give at most one image, got \(args.positionals.count)", usage: usage)
    }
    let out = args.value("--out") ?? "example-output/ImagePlayground"
    let thumbHeight = args.integer("--thumb", in: 16...1024, default: 120)
    let specs =
        args.values("--filter").isEmpty
        ? [
            "CIExposureAdjust inputEV=0.3", "CISepiaTone inputIntensity=0.6", "CIGaussianBlur inputRadius=2",
            "CIVignette inputIntensity=1.5 inputRadius=1.5",
        ]
        : args.values("--filter")
    // Check the whole chain before doing any work.
    let steps: [Step]
    do {
        steps = try specs.map { Step(spec: try FilterSpec(parsing: $0)) }
    } catch {
        ExampleCommandLine.usageError("\(error)", usage: usage)
    }

    let size = args.size("--size", default: (480, 320))
    let original = try args.positionals.first.map(loadImage) ?? SampleScene.make(width: size.width, height: size.height)
    try makeOutputFolder(out)
    let context = RenderContext()
    let clock = ContinuousClock()

    let first = outputPath(out, "00-original.png")
    try original.write(toFile: first)
    print("00 original \(original.width)x\(original.height) -> \(first)")
    var rendered: [(label: String, buffer: PixelBuffer)] = [("0 ORIGINAL", original)]

    let source = Image(original)
    var image = source
    // The rect written: the original's, until a geometry filter (a scale, a crop) sets another.
    var frame = source.extent
    for (i, step) in steps.enumerated() {
        let name = step.spec.descriptor.name
        let start = clock.now
        do {
            image = try apply(step, to: image, original: source)
        } catch let error as PixelFlowError {
            // A value the filter rejects is a wrong command line: say which and where to look.
            ExampleCommandLine.usageError(
                "step \(i + 1): \(error); `pixelflow describe \(name)` shows its inputs and their ranges", usage: usage)
        }
        if step.spec.descriptor.categories.contains(.geometryAdjustment), !image.extent.isInfinite {
            frame = image.extent.integral
        }
        image = image.croppedForOutput(to: frame)
        let buffer = try context.makeBuffer(image, format: .rgba8)
        let file = outputPath(out, (i + 1 < 10 ? "0" : "") + "\(i + 1)-\(name).png")
        try buffer.write(toFile: file)
        print(
            "\(i + 1 < 10 ? "0" : "")\(i + 1) \(name) (\(step.spec.descriptor.displayName)) \(step.settings)"
                .trimmingTrailingSpace
                + " \(buffer.width)x\(buffer.height) -> \(file) (\(milliseconds(clock.now - start)))")
        let shortName = name.hasPrefix("CI") ? String(name.dropFirst(2)) : name
        rendered.append(("\(i + 1) \(shortName)", buffer))
    }

    let sheet = try contactSheet(rendered, thumbHeight: thumbHeight, context: context)
    let sheetFile = outputPath(out, "contact-sheet.png")
    try sheet.write(toFile: sheetFile)
    print("contact sheet \(sheet.width)x\(sheet.height) -> \(sheetFile)")
}

extension String {
    var trimmingTrailingSpace: String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
