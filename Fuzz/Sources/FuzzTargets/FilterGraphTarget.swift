import PixelFlow

/// Up to 8 registry filters chained on a small image, with parameters read from the bytes,
/// then rendered on a small rect. Every filter must either build or throw a `PixelFlowError`
/// (NaN, infinities, out-of-range and wrong-class values are rejected by the descriptors),
/// and every built graph must render on a 40 x 40 rect or throw one.
///
/// Layout (see `FilterProgram` for the byte format), then the image's RGBA bytes.
enum FilterGraphTarget {
    static func run(_ bytes: [UInt8]) {
        var r = ByteReader(bytes)
        let program = FilterProgram(reading: &r)
        let source = program.sourceImage(pixels: Array(r.remaining))
        var image = source
        for step in program.steps {
            let descriptor = FilterRegistry.all[step.filterIndex % FilterRegistry.all.count]
            var values: [String: FilterValue?] = [:]
            if descriptor.input("inputImage") != nil { values["inputImage"] = .image(image) }
            for (keySelector, value) in step.parameters {
                let key =
                    keySelector < 240 && !descriptor.inputs.isEmpty
                    ? descriptor.inputs[Int(keySelector) % descriptor.inputs.count].key
                    : ["inputNotAKey", "", "inputimage"][Int(keySelector) % 3]
                values[key] = value.filterValue(current: image, source: source)
            }
            do {
                image = try descriptor.apply(values)
                trace("\(descriptor.name) \(values.keys.sorted()) -> extent \(image.extent)")
            } catch {
                trace("\(descriptor.name) threw \(error)")
                expectPixelFlowError(error, "\(descriptor.name).apply")
            }
        }
        program.render(image)
    }
}

/// The filter chain and render settings read from fuzz bytes.
///
/// Layout: width byte, height byte (1 to 24 each), a settings byte (tile size, color
/// management, optimizer), the step count (1 to 8), then per step: the filter index (2
/// bytes, modulo the registry's size), the parameter count (0 to 7) and per parameter a
/// key selector byte (below 240: an input of the filter; else a key it does not have) and a
/// `FuzzValue`.
struct FilterProgram {
    struct Step {
        var filterIndex: Int
        var parameters: [(UInt8, FuzzValue)]
    }

    var width: Int
    var height: Int
    var settings: UInt8
    var steps: [Step]

    init(reading r: inout ByteReader) {
        width = 1 + Int(r.byte()) % 24
        height = 1 + Int(r.byte()) % 24
        settings = r.byte()
        let count = 1 + Int(r.byte()) % 8
        steps = []
        for _ in 0..<count where !r.isAtEnd {
            let index = Int(r.uint16())
            let parameterCount = Int(r.byte()) % 8
            var parameters: [(UInt8, FuzzValue)] = []
            for _ in 0..<parameterCount { parameters.append((r.byte(), FuzzValue(reading: &r))) }
            steps.append(Step(filterIndex: index, parameters: parameters))
        }
    }

    /// An `rgba8` image of the program's size from `pixels` (cycled; mid gray when empty).
    func sourceImage(pixels: [UInt8]) -> Image {
        guard var buffer = try? PixelBuffer(width: width, height: height, format: .rgba8) else {
            preconditionFailure("a \(width)x\(height) buffer must be creatable")
        }
        buffer.withUnsafeMutableRows { y, row in
            for i in 0..<(4 * width) {
                let k = 4 * width * y + i
                row.storeBytes(of: pixels.isEmpty ? 128 : pixels[k % pixels.count], toByteOffset: i, as: UInt8.self)
            }
        }
        return Image(buffer)
    }

    /// The render limit of the fuzz targets: 256 K pixels for any region of a 40 x 40 render.
    /// The default (100 megapixels, 1.6 GB of working pixels) is checked the same way, but
    /// reaching it would trip libFuzzer's allocation limit, and under the address sanitizer
    /// on a busy machine a chain of megapixel regions takes over the 10-second timeout
    /// without being a bug (a 60-minute campaign found two: three pinch distortions under
    /// area minimums, and a k-means over a kaleidoscope of tiles, 10 s and 2.7 s at 1
    /// megapixel; see `Fuzz/corpus/filter-graph/regression-slow-*`).
    static let renderBudget = 1 << 18

    /// Renders `image` on the 40 x 40 rect at (-8, -8) with one thread, `renderBudget`, and a
    /// tile size, working space and optimizer setting from `settings`.
    func render(_ image: Image) {
        let tile = [16, 7, 64, 256][Int(settings) % 4]
        let context = RenderContext(
            options: .init(
                threadCount: 1, tileWidth: tile, tileHeight: tile,
                colorManagement: settings & 4 == 0 ? .linear : .none,
                maximumRenderPixelCount: FilterProgram.renderBudget, optimizes: settings & 8 == 0))
        let format: PixelFormat = settings & 16 == 0 ? .rgba8 : .rgbaF32
        do {
            let buffer = try context.makeBuffer(image, rect: Rect(x: -8, y: -8, width: 40, height: 40), format: format)
            precondition(buffer.width == 40 && buffer.height == 40, "rendered \(buffer.width)x\(buffer.height)")
            trace("rendered")
        } catch {
            trace("render threw \(error)")
            expectPixelFlowError(error, "render")
        }
    }
}

/// A filter value read from fuzz bytes: numbers from a table of troublesome values (NaN,
/// infinities, huge, tiny, negative) or raw bit patterns, vectors of any length, colors,
/// transforms, strings, data, booleans and images, whatever class the input expects.
enum FuzzValue {
    case number(Double)
    case vector([Double])
    case color([Double])
    case transform([Double])
    case string(String)
    case data([UInt8])
    case boolean(Bool)
    /// 0: the current image; 1: the source; 2: an infinite constant color; 3: the empty
    /// image; 4: a constant color cropped to a huge rect; 5: the current image clamped to its
    /// extent (infinite).
    case image(Int)

    static let specials: [Double] = [
        .nan, .infinity, -.infinity, 0, -0.0, 1, -1, 0.5, 2, 3, 10, 100, 1000, 1e6, 1e9, -1e9, 1e300, -1e300,
        .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, 1e-300, 65_536, 2_147_483_648,
        -2_147_483_649, 9.3e18, -0.5, 0.25, 4, 8, 16, 25, 50, 500, 1 / 3, 0.999_999,
    ]

    init(reading r: inout ByteReader) {
        switch r.byte() % 10 {
        case 0, 1: self = .number(FuzzValue.number(&r))
        case 2: self = .number(Double(Int8(bitPattern: r.byte())) / 4)
        case 3: self = .vector((0..<(Int(r.byte()) % 9)).map { _ in FuzzValue.number(&r) })
        case 4: self = .color((0..<4).map { _ in FuzzValue.number(&r) })
        case 5: self = .transform((0..<6).map { _ in FuzzValue.number(&r) })
        case 6: self = .string(String(decoding: r.take(Int(r.byte()) % 16), as: UTF8.self))
        case 7: self = .data(r.take(Int(r.byte()) % 64))
        case 8: self = .boolean(r.byte() & 1 == 1)
        default: self = .image(Int(r.byte()) % 6)
        }
    }

    /// A number: from `specials` (selector below 128), a small integer, or a raw bit pattern.
    static func number(_ r: inout ByteReader) -> Double {
        let selector = r.byte()
        if selector < 128 { return specials[Int(selector) % specials.count] }
        if selector < 192 { return Double(Int8(bitPattern: r.byte())) }
        return Double(bitPattern: r.uint64())
    }

    func filterValue(current: Image, source: Image) -> FilterValue {
        switch self {
        case let .number(v): return .number(v)
        case let .vector(v): return .vector(v)
        case let .color(c): return .color(Color(red: c[0], green: c[1], blue: c[2], alpha: c[3]))
        case let .transform(t): return .transform(AffineTransform(a: t[0], b: t[1], c: t[2], d: t[3], tx: t[4], ty: t[5]))
        case let .string(s): return .string(s)
        case let .data(d): return .data(d)
        case let .boolean(b): return .boolean(b)
        case let .image(kind):
            switch kind {
            case 0: return .image(current)
            case 1: return .image(source)
            case 2: return .image(Image(color: Color(red: 0.2, green: 0.4, blue: 0.6, alpha: 0.8)))
            case 3: return .image(.empty)
            case 4: return .image(Image(color: .white).cropped(to: Rect(x: -1e9, y: -1e9, width: 2e9, height: 2e9)))
            default: return .image(current.clampedToExtent())
            }
        }
    }
}
