import PixelFlow

/// The filter gallery (`pixelflow docs --gallery DIR`): every registered filter rendered on
/// the pictures of ``GalleryInputs``, at its defaults and, where the defaults show little on
/// that small picture, at a second setting taken from its slider range.
///
/// "Shows little" is measured on the rendered cell, never judged by eye: less than 5% of the
/// pixels visible (alpha above 0.1), a spread (standard deviation of luminance and alpha)
/// under 0.02, or, for a filter that keeps the frame, a mean difference from its input image
/// under 0.015 (about 4 of 255 levels). Transitions are shown at time 0.5. Everything is
/// computed from the descriptors and pictures drawn in code, so the files are the same bytes
/// on every run and thread count.
struct Gallery {
    /// One picture of a filter: its pixels (the cell, straight alpha) and what they are.
    struct Panel {
        /// What the panel shows: `DEFAULTS`, or the inputs set and their values.
        var caption: String
        /// The rendered cell, `rgba8` with straight alpha.
        var pixels: PixelBuffer
    }

    /// A filter and its one or two panels.
    struct Entry {
        var filter: FilterDescriptor
        var panels: [Panel]
        /// True when no setting tried showed much (the panels are still written).
        var showsLittle: Bool
    }

    /// How much a render shows; `score` of 1 or more is enough.
    struct Measure {
        var visible: Double
        var spread: Double?
        var change: Double?

        /// The smallest of the three ratios to its threshold.
        var score: Double {
            var s = visible / 0.05
            if let spread { s = min(s, spread / 0.02) }
            if let change { s = min(s, change / 0.015) }
            return s
        }
    }

    /// Inputs set away from their defaults, with the caption that names them.
    struct Setting {
        var caption: String
        var values: [String: FilterValue]
    }

    let inputs: GalleryInputs
    let context: RenderContext
    let cellWidth: Int
    let cellHeight: Int
    private let photoPixels: PixelBuffer
    private let foregroundPixels: PixelBuffer

    /// Height of a caption or name strip, in pixels.
    static let stripHeight = 11
    /// Space between cells on a sheet, in pixels.
    static let gap = 4
    /// Cells per row on a contact sheet.
    static let columns = 4

    init(width: Int, height: Int, context: RenderContext) throws {
        inputs = try GalleryInputs(width: width, height: height)
        self.context = context
        cellWidth = width
        cellHeight = height
        photoPixels = try context.makeBuffer(inputs.photo, rect: inputs.frame)
        foregroundPixels = try context.makeBuffer(inputs.foreground, rect: inputs.frame)
    }

    // MARK: Rendering one filter

    /// Renders `filter` at its defaults and, when they show little, at the first setting
    /// tried that shows enough (or the best one tried, when it beats the defaults).
    ///
    /// - Throws: the filter's error when it fails at its defaults.
    func entry(for filter: FilterDescriptor) throws -> Entry {
        var base: [String: FilterValue] = [:]
        var baseCaption = "DEFAULTS"
        if filter.categories.contains(.transition), filter.input("inputTime") != nil {
            base["inputTime"] = .number(0.5)
            baseCaption = "TIME 0.5"
        }
        let (pixels, measure) = try render(filter, base)
        var panels = [Panel(caption: baseCaption, pixels: pixels)]
        guard measure.score < 1 else { return Entry(filter: filter, panels: panels, showsLittle: false) }

        var best: (setting: Setting, pixels: PixelBuffer, score: Double)?
        for setting in settings(for: filter, base: base) {
            var values = base
            for (k, v) in setting.values { values[k] = v }
            // A setting the filter rejects is skipped; only the defaults must render.
            guard let (p, m) = try? render(filter, values) else { continue }
            if m.score > (best?.score ?? measure.score * 1.5) { best = (setting, p, m.score) }
            if m.score >= 1 { break }
        }
        guard let best else { return Entry(filter: filter, panels: panels, showsLittle: true) }
        panels.append(Panel(caption: best.setting.caption, pixels: best.pixels))
        return Entry(filter: filter, panels: panels, showsLittle: best.score < 1)
    }

    /// Renders `filter` with `values` (over its defaults) into a cell, and measures it.
    func render(_ filter: FilterDescriptor, _ values: [String: FilterValue]) throws -> (PixelBuffer, Measure) {
        var arguments: [String: FilterValue?] = [:]
        for input in filter.inputs where input.valueClass == .image {
            arguments[input.key] = inputs.image(for: input, of: filter).map(FilterValue.image)
        }
        for (k, v) in values { arguments[k] = v }
        let output = try filter.apply(arguments)
        let frame = inputs.frame
        let extent = output.extent
        // Shown in the frame as it is when it covers the frame or, for a filter of an image,
        // lies inside it (a crop, a smaller scale); a row, column or pixel (a reduction) is stretched over the frame,
        // and any other extent (a larger scale, a transform) is fitted into it.
        let hasInput = filter.input("inputImage")?.valueClass == .image
        let inPlace =
            extent.isInfinite || extent.intersection(frame) == frame
            || (hasInput && extent.intersection(frame) == extent)
        let thin = !extent.isInfinite && (extent.width < 8 || extent.height < 8)
        let shown: Image
        if extent.isEmpty {
            shown = Image(color: .clear).cropped(to: frame)
        } else if thin {
            let stretch = AffineTransform(translationX: -extent.minX, y: -extent.minY)
                .concatenating(AffineTransform(scaleX: frame.width / extent.width, y: frame.height / extent.height))
            shown = try output.transformed(by: stretch, sampling: .nearest)
        } else if inPlace {
            shown = output
        } else {
            // Very large extents are cut to 4 x 4 frames first.
            let cut = Rect(
                x: extent.minX, y: extent.minY, width: min(extent.width, 4 * frame.width),
                height: min(extent.height, 4 * frame.height))
            shown = try output.cropped(to: cut).resized(
                to: Size(width: frame.width, height: frame.height), contentMode: .aspectFit)
        }
        let pixels = try context.makeBuffer(shown, rect: frame, format: .rgba8)
        var reference: PixelBuffer?
        if inPlace && !thin && hasInput, case let .image(input)?? = arguments["inputImage"] {
            if input == inputs.photo {
                reference = photoPixels
            } else if input == inputs.foreground {
                reference = foregroundPixels
            } else {
                reference = try context.makeBuffer(input, rect: frame, format: .rgba8)
            }
        }
        return (pixels, Gallery.measure(pixels, against: reference, uniformAllowed: thin))
    }

    /// Visible fraction, spread and (with a reference) mean difference of `pixels`.
    static func measure(_ pixels: PixelBuffer, against reference: PixelBuffer?, uniformAllowed: Bool) -> Measure {
        var visible = 0
        var sum = 0.0, sumSquares = 0.0, alphaSum = 0.0, alphaSquares = 0.0, difference = 0.0
        for y in 0..<pixels.height {
            for x in 0..<pixels.width {
                let p = pixels[x, y]
                if p.w > 0.1 { visible += 1 }
                let luma = Double(0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z) * Double(p.w)
                sum += luma
                sumSquares += luma * luma
                alphaSum += Double(p.w)
                alphaSquares += Double(p.w * p.w)
                if let reference {
                    let r = reference[x, y]
                    let d = SIMD4<Float>(p.x * p.w - r.x * r.w, p.y * p.w - r.y * r.w, p.z * p.w - r.z * r.w, p.w - r.w)
                    difference += Double(abs(d.x) + abs(d.y) + abs(d.z) + abs(d.w)) / 4
                }
            }
        }
        let n = Double(pixels.width * pixels.height)
        let lumaSpread = max(0, sumSquares / n - (sum / n) * (sum / n)).squareRoot()
        let alphaSpread = max(0, alphaSquares / n - (alphaSum / n) * (alphaSum / n)).squareRoot()
        return Measure(
            visible: Double(visible) / n, spread: uniformAllowed ? nil : lumaSpread + alphaSpread,
            change: reference.map { _ in difference / n })
    }

    // MARK: Second settings

    /// The settings tried when the defaults show little, in order: position inputs moved to
    /// the middle of the frame (several points: fitted into it together) and rectangles to its
    /// central half (Core Image's defaults suit
    /// a picture of several hundred pixels); then each number input with a slider range, at
    /// 1/2, 3/4, 1, 1/4 and 0 of that range (16 settings at most) (with the moved positions, then without).
    func settings(for filter: FilterDescriptor, base: [String: FilterValue]) -> [Setting] {
        let frame = inputs.frame
        var placed: [(FilterInput, FilterValue)] = []
        var points: [(FilterInput, [Double])] = []
        for input in filter.inputs where input.valueClass == .vector {
            guard case let .vector(v)? = input.defaultValue else { continue }
            if input.attributeType == .position, v.count == 2 {
                points.append((input, v))
            } else if input.attributeType == .rectangle, v.count == 4 {
                placed.append(
                    (input, .vector([frame.width / 4, frame.height / 4, frame.width / 2, frame.height / 2])))
            }
        }
        if points.count == 1 {
            placed.append((points[0].0, .vector([frame.midX, frame.midY])))
        } else if points.count > 1 {
            // Several points (corners, inset points): their bounding box scaled uniformly to
            // 80% of the frame and centered in it, so their arrangement is kept.
            let xs = points.map { $0.1[0] }, ys = points.map { $0.1[1] }
            let (x0, x1, y0, y1) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
            let s = min(0.8 * frame.width / max(1, x1 - x0), 0.8 * frame.height / max(1, y1 - y0))
            for (input, v) in points {
                let x = frame.midX + (v[0] - (x0 + x1) / 2) * s, y = frame.midY + (v[1] - (y0 + y1) / 2) * s
                placed.append((input, .vector([x.rounded(), y.rounded()])))
            }
        }
        func setting(_ parts: [(FilterInput, FilterValue)]) -> Setting {
            Setting(
                caption: parts.map { "\($0.0.displayName) \(Gallery.label($0.1))" }.joined(separator: ", "),
                values: Dictionary(parts.map { ($0.0.key, $0.1) }, uniquingKeysWith: { a, _ in a }))
        }
        var out: [Setting] = []
        if !placed.isEmpty { out.append(setting(placed)) }
        var numbers: [(FilterInput, FilterValue)] = []
        for input in filter.inputs where input.valueClass == .number && input.attributeType != .boolean {
            guard let lo = input.sliderMinimum, let hi = input.sliderMaximum, lo < hi else { continue }
            var seen: [Double] = []
            if case let .number(d)? = input.defaultValue { seen.append(d) }
            if case let .number(d)? = base[input.key] { seen.append(d) }
            for fraction in [0.5, 0.75, 1, 0.25, 0] {
                var v = Gallery.rounded(lo + (hi - lo) * fraction, whole: [.integer, .count].contains(input.attributeType))
                if let m = input.minimum { v = max(v, m) }
                if let m = input.maximum { v = min(v, m) }
                if seen.contains(v) { continue }
                seen.append(v)
                numbers.append((input, .number(v)))
            }
        }
        if !placed.isEmpty { out += numbers.map { setting(placed + [$0]) } }
        out += numbers.map { setting([$0]) }
        return Array(out.prefix(16))
    }

    /// `v` with two significant digits (a whole number when `whole`, or when 10 or more).
    static func rounded(_ v: Double, whole: Bool) -> Double {
        if whole || abs(v) >= 10 { return v.rounded() }
        if v == 0 { return 0 }
        let scale = abs(v) >= 1 ? 10.0 : 100.0
        return (v * scale).rounded() / scale
    }

    /// A value as a caption shows it: numbers in their shortest form, vectors space-separated.
    static func label(_ v: FilterValue) -> String {
        switch v {
        case let .vector(c): return c.map { FilterValue.number($0).description }.joined(separator: " ")
        default: return v.description
        }
    }
}
