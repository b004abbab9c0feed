import ExampleSupport
import PixelFlow

// PocketFilters: filters configured with random values drawn from their own metadata.
// A port of Apple's "PocketCoreImage" sample: every numeric input of a filter declares a
// slider range (FilterInput.sliderMinimum ... sliderMaximum), its type says what the number
// means (a boolean, a count, an angle, a distance, a position), and that is enough to pick a
// sensible random value for any filter without knowing it.
//
//     swift run PocketFilters                                   # 3 random filters, seed 1
//     swift run PocketFilters --random 5 --seed 42
//     swift run PocketFilters photo.jpg --filter CIPixellate --filter 'CITwirlDistortion inputAngle=2'

let usage = """
    Usage: PocketFilters [IMAGE] [--filter 'NAME [key=value ...]']... [--random N] [--seed S] [--out DIR] [--size WxH]

    Configures each filter with random values within each input's slider range (booleans,
    integers and counts, scalars, angles, distances, times, positions and offsets inside the
    image, rectangles, colors), prints the values chosen, and applies the filters in order to
    IMAGE (default: a landscape drawn in code), writing DIR/00-original.png and
    DIR/NN-<filter>.png after each step (DIR: example-output/PocketFilters).

      --filter SPEC  A filter by name; values given (key=value) are kept, the others random.
      --random N     Also pick N random filters that take an image (default 3 when no
                     --filter is given).
      --seed S       The random seed (default 1): the same seed gives the same filters,
                     values and images.
      --size WxH     Size of the built-in image (default 480x320; ignored with IMAGE).

    A filter that rejects its values (a combination outside what it accepts) is reported
    with the reason and left out; the chain goes on with the image before it.
    Exit status: 0 when the chain ran (also with rejected filters), 1 when a file cannot be
    read or written, 2 for a wrong command line (unknown filter, option or value).
    """

let args = ExampleCommandLine(usage: usage, valueOptions: ["--out", "--filter", "--random", "--seed", "--size"])

/// The categories random filters are drawn from: effects that change an image in place
/// (not generators, reductions or transitions, which make or need something else).
let randomCategories: [FilterCategory] = [
    .blur, .colorAdjustment, .colorEffect, .distortionEffect,
    .halftoneEffect, .sharpen, .stylize, .tileEffect,
]

/// A random value for `input` from its metadata, or nil to keep the default (an input with no
/// slider range, or a kind of value that has no natural random choice, such as a transform).
///
/// - Parameter extent: the image's rect, for positions, offsets and rectangles.
func randomValue(for input: FilterInput, in extent: Rect, using rng: inout SeededGenerator) -> FilterValue? {
    let low = input.sliderMinimum ?? input.minimum
    let high = input.sliderMaximum ?? input.maximum
    switch (input.valueClass, input.attributeType) {
    case (.number, .boolean?):
        return .number(Bool.random(using: &rng) ? 1 : 0)
    case (.number, .integer?), (.number, .count?):
        guard let low, let high, low.rounded(.up) <= high.rounded(.down) else { return nil }
        return .number(Double(Int.random(in: Int(low.rounded(.up))...Int(high.rounded(.down)), using: &rng)))
    case (.number, _):
        // Scalars, angles (radians), distances (pixels), times: uniform in the slider range.
        guard let low, let high, low < high else { return nil }
        return .number(Double.random(in: low...high, using: &rng))
    case (.vector, .position?):
        return .vector([
            Double.random(in: extent.minX...extent.maxX, using: &rng),
            Double.random(in: extent.minY...extent.maxY, using: &rng),
        ])
    case (.vector, .offset?):
        let reach = min(extent.width, extent.height) / 8
        return .vector([Double.random(in: -reach...reach, using: &rng), Double.random(in: -reach...reach, using: &rng)])
    case (.vector, .rectangle?):
        let w = Double.random(in: 0.3...1, using: &rng) * extent.width
        let h = Double.random(in: 0.3...1, using: &rng) * extent.height
        return .vector([
            extent.minX + Double.random(in: 0...(extent.width - w), using: &rng),
            extent.minY + Double.random(in: 0...(extent.height - h), using: &rng), w, h,
        ])
    case (.color, let type):
        let alpha = type == .opaqueColor ? 1 : Double.random(in: 0.5...1, using: &rng)
        return .color(
            Color(
                red: .random(in: 0...1, using: &rng), green: .random(in: 0...1, using: &rng),
                blue: .random(in: 0...1, using: &rng), alpha: alpha))
    default:
        return nil
    }
}

/// A value for printing, numbers rounded to 3 decimals: `[29.949 13.123]`.
func shown(_ value: FilterValue) -> String {
    func r(_ v: Double) -> Double { (v * 1000).rounded() / 1000 }
    switch value {
    case let .number(v): return "\(FilterValue.number(r(v)))"
    case let .vector(v): return "\(FilterValue.vector(v.map(r)))"
    case let .color(c): return "\(FilterValue.color(Color(red: r(c.red), green: r(c.green), blue: r(c.blue), alpha: r(c.alpha))))"
    case .data: return "<data>"
    default: return "\(value)"
    }
}

/// What a value's range was, for printing: `slider 0...1`.
func rangeNote(_ input: FilterInput) -> String {
    let kind =
        input.attributeType.map { String($0.rawValue.dropFirst("CIAttributeType".count)).lowercased() }
        ?? input.valueClass.rawValue
    guard let lo = input.sliderMinimum ?? input.minimum, let hi = input.sliderMaximum ?? input.maximum else { return kind }
    return "\(kind), slider \(shown(.number(lo)))...\(shown(.number(hi)))"
}

runExample {
    let out = args.value("--out") ?? "example-output/PocketFilters"
    let seed = args.integer("--seed", in: 0...Int.max, default: 1)
    let randomCount = args.integer("--random", in: 0...50, default: args.values("--filter").isEmpty ? 3 : 0)
    guard args.positionals.count <= 1 else {
        ExampleCommandLine.usageError("give at most one image, got \(args.positionals.count)", usage: usage)
    }
    var chosen: [FilterSpec]
    do {
        chosen = try args.values("--filter").map(FilterSpec.init(parsing:))
    } catch {
        ExampleCommandLine.usageError("\(error)", usage: usage)
    }
    var rng = SeededGenerator(seed: UInt64(seed))
    let candidates = FilterRegistry.all.filter { d in
        d.input(kCIInputImageKey) != nil && d.categories.contains { randomCategories.contains($0) }
    }
    for _ in 0..<randomCount {
        let d = candidates.randomElement(using: &rng)!
        chosen.append(try FilterSpec(parsing: d.name))
    }

    let size = args.size("--size", default: (480, 320))
    let original = try args.positionals.first.map(loadImage) ?? SampleScene.make(width: size.width, height: size.height)
    try makeOutputFolder(out)
    let context = RenderContext()
    try original.write(toFile: outputPath(out, "00-original.png"))
    print("seed \(seed): \(chosen.count) filter\(chosen.count == 1 ? "" : "s") on \(original.width)x\(original.height)")

    let source = Image(original)
    var image = source
    var rejected: [String] = []
    for (i, spec) in chosen.enumerated() {
        let d = spec.descriptor
        print("\(i + 1). \(d.name) (\(d.displayName))")
        var inputs: [String: FilterValue?] = [:]
        for input in d.inputs {
            if input.key == kCIInputImageKey {
                inputs[input.key] = .image(image)
            } else if input.valueClass == .image {
                // A second image (a background, a mask): the original, unless it has a default.
                if input.defaultValue == nil { inputs[input.key] = .image(source) }
            } else if let given = spec.values[input.key] {
                inputs[input.key] = given
                print("   \(input.key) = \(shown(given))  (given)")
            } else if let value = randomValue(for: input, in: source.extent, using: &rng) {
                inputs[input.key] = value
                print("   \(input.key) = \(shown(value))  (random, \(rangeNote(input)))")
            } else if let value = input.defaultValue {
                print("   \(input.key) = \(shown(value))  (default)")
            }
        }
        // Apply and render; a filter that rejects its values is reported and left out.
        let next: Image
        let buffer: PixelBuffer
        do {
            next = try d.apply(inputs).croppedForOutput(to: source.extent)
            // Each step is rendered once (in float, linear) and the next filter starts from
            // those pixels, so a slow random filter is paid for once.
            buffer = try context.makeBuffer(next, format: .rgbaF32)
        } catch {
            print("   ! \(d.name) rejected its parameters: \(error)")
            print("   ! left out; the chain goes on with the image of step \(i)")
            rejected.append(d.name)
            continue
        }
        image = Image(buffer)
        let file = outputPath(out, (i + 1 < 10 ? "0" : "") + "\(i + 1)-\(d.name).png")
        try context.makeBuffer(image, format: .rgba8).write(toFile: file)
        print("   -> \(file)")
    }
    let applied = chosen.count - rejected.count
    print(
        "applied \(applied) of \(chosen.count) filters"
            + (rejected.isEmpty ? "" : "; rejected: \(rejected.joined(separator: ", "))"))
}
