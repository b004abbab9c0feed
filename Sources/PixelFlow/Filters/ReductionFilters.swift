// Reduction filters: a region of an image -> a small image (Core Image's CIReductionFilter
// family). Each is a `Reduction` node, a stage boundary computed with fixed-order sums, so
// results do not depend on thread count or tile size. Values are the working space's
// (linear light, premultiplied, unless the context's color management is off); read them
// with `RenderContext.values(of:)`.

/// The largest region, in pixels, a reduction may read.
let maximumReductionPixelCount = 1 << 28

extension FilterInput {
    /// Core Image's `inputExtent`: the region a reduction reads.
    static func extentInput(default value: [Double] = [0, 0, 640, 80]) -> FilterInput {
        .vector("inputExtent", .rectangle, default: value, summary: "The region to reduce, [x y width height] in pixels.")
    }
}

extension FilterArguments {
    /// `inputExtent` as a pixel rect, checked to be non-empty and not absurdly large.
    func reductionRegion(_ key: String = "inputExtent") throws -> IntRect {
        let v = try vector(key)
        let r = IntRect(covering: Rect(x: v[0], y: v[1], width: v[2], height: v[3]))
        guard !r.isEmpty else { throw fail(key, "must have a positive width and height, got \(FilterValue.vector(v))") }
        guard r.area <= maximumReductionPixelCount else {
            throw PixelFlowError.limitExceeded(
                what: "\(filter) \(key) area in pixels", value: r.area, limit: maximumReductionPixelCount)
        }
        return r
    }

    /// The finite extent of an image input, as a pixel rect.
    func finiteExtent(of image: Image, _ key: String = "inputImage") throws -> IntRect {
        guard !image.extent.isInfinite else { throw fail(key, "must have a finite extent; crop it first") }
        let r = IntRect(covering: image.extent)
        guard !r.isEmpty else { throw fail(key, "has an empty extent") }
        guard r.area <= maximumReductionPixelCount else {
            throw PixelFlowError.limitExceeded(
                what: "\(filter) \(key) area in pixels", value: r.area, limit: maximumReductionPixelCount)
        }
        return r
    }
}

extension Image {
    /// Builds a reduction node over `inputs`.
    static func reduction(
        _ name: String, inputs: [Image], regions: [IntRect], width: Int, height: Int,
        _ compute: @escaping @Sendable ([Tile], Int, UnsafeMutablePointer<SIMD4<Float>>) -> Void
    ) -> Image {
        let r = Reduction(name: name, regions: regions, outputWidth: width, outputHeight: height, compute: compute)
        return Image(node: Node(.reduction(r), inputs: inputs.map(\.node), extent: r.outputRect.rect))
    }
}

@inline(__always) func _double4(_ v: SIMD4<Float>) -> SIMD4<Double> {
    SIMD4(Double(v.x), Double(v.y), Double(v.z), Double(v.w))
}
@inline(__always) func _float4(_ s: UnsafePointer<Double>) -> SIMD4<Float> {
    SIMD4(Float(s[0]), Float(s[1]), Float(s[2]), Float(s[3]))
}
@inline(__always) func _unpremultiplied(_ v: SIMD4<Float>) -> SIMD4<Float> {
    v.w > 0 ? SIMD4(v.x / v.w, v.y / v.w, v.z / v.w, v.w) : .zero
}

extension FilterDescriptor {
    static let reductionFilters: [FilterDescriptor] = [
        areaAverage, areaMaximum, areaMinimum, areaMaximumAlpha, areaMinimumAlpha, areaMinMax, areaMinMaxRed, areaBoundsRed,
        areaHistogram, areaLogarithmicHistogram, areaAlphaWeightedHistogram, columnAverage, rowAverage, histogramDisplay,
        kMeans, colorThresholdOtsu, paletteCentroid,
    ]

    static let areaAverage = FilterDescriptor(
        name: "CIAreaAverage", displayName: "Area Average",
        summary: "A 1x1 image holding the average color of the region (premultiplied, in the working space).",
        categories: [.reduction], inputs: [.image(), .extentInput()]
    ) { a in
        let region = try a.reductionRegion()
        return Image.reduction("area average", inputs: [try a.image()], regions: [region], width: 1, height: 1) {
            t, threads, out in
            let s = Reduction.bandedSums(t[0], threads: threads, stateSize: 4) { st, row, _ in
                var acc = SIMD4<Double>.zero
                for x in 0..<region.width { acc += _double4(row[x]) }
                for c in 0..<4 { st[c] += acc[c] }
            }
            let n = Double(region.area)
            out[0] = SIMD4(Float(s[0] / n), Float(s[1] / n), Float(s[2] / n), Float(s[3] / n))
        }
    }

    /// Component-wise extreme over the region: `useMax` picks the maximum.
    static func extremeReduction(_ a: FilterArguments, max useMax: Bool, both: Bool = false) throws -> Image {
        let region = try a.reductionRegion()
        let name = both ? "area min max" : (useMax ? "area maximum" : "area minimum")
        return Image.reduction(name, inputs: [try a.image()], regions: [region], width: both ? 2 : 1, height: 1) {
            t, threads, out in
            let s = Reduction.bandedFold(
                t[0], threads: threads, stateSize: 8, initial: .nan,
                { st, row, _ in
                    for x in 0..<region.width {
                        let v = row[x]
                        for c in 0..<4 {
                            let d = Double(v[c])
                            if st[c].isNaN || d < st[c] { st[c] = d }
                            if st[4 + c].isNaN || d > st[4 + c] { st[4 + c] = d }
                        }
                    }
                },
                combine: { total, band in
                    for c in 0..<4 {
                        if total[c].isNaN || band[c] < total[c] { total[c] = band[c] }
                        if total[4 + c].isNaN || band[4 + c] > total[4 + c] { total[4 + c] = band[4 + c] }
                    }
                })
            s.withUnsafeBufferPointer { p in
                if both {
                    out[0] = _float4(p.baseAddress!)
                    out[1] = _float4(p.baseAddress! + 4)
                } else {
                    out[0] = _float4(p.baseAddress! + (useMax ? 4 : 0))
                }
            }
        }
    }

    static let areaMaximum = FilterDescriptor(
        name: "CIAreaMaximum", displayName: "Area Maximum",
        summary: "A 1x1 image holding the largest value of each channel over the region.",
        categories: [.reduction], inputs: [.image(), .extentInput()]
    ) { a in try extremeReduction(a, max: true) }

    static let areaMinimum = FilterDescriptor(
        name: "CIAreaMinimum", displayName: "Area Minimum",
        summary: "A 1x1 image holding the smallest value of each channel over the region.",
        categories: [.reduction], inputs: [.image(), .extentInput()]
    ) { a in try extremeReduction(a, max: false) }

    static let areaMinMax = FilterDescriptor(
        name: "CIAreaMinMax", displayName: "Area Min and Max",
        summary: "A 2x1 image: the per-channel minimum of the region, then the maximum.",
        categories: [.reduction], inputs: [.image(), .extentInput()]
    ) { a in try extremeReduction(a, max: true, both: true) }

    /// The pixel with the largest (or smallest) alpha; ties go to the first in scan order.
    static func alphaExtreme(_ a: FilterArguments, max useMax: Bool) throws -> Image {
        let region = try a.reductionRegion()
        return Image.reduction(
            useMax ? "area maximum alpha" : "area minimum alpha", inputs: [try a.image()], regions: [region],
            width: 1, height: 1
        ) { t, threads, out in
            // State: alpha, r, g, b, a of the best pixel so far (NaN alpha: none yet).
            let s = Reduction.bandedFold(
                t[0], threads: threads, stateSize: 5, initial: .nan,
                { st, row, _ in
                    for x in 0..<region.width {
                        let v = row[x]
                        let al = Double(v.w)
                        if st[0].isNaN || (useMax ? al > st[0] : al < st[0]) {
                            st[0] = al
                            for c in 0..<4 { st[1 + c] = Double(v[c]) }
                        }
                    }
                },
                combine: { total, band in
                    guard !band[0].isNaN else { return }
                    if total[0].isNaN || (useMax ? band[0] > total[0] : band[0] < total[0]) {
                        for i in 0..<5 { total[i] = band[i] }
                    }
                })
            s.withUnsafeBufferPointer { out[0] = _float4($0.baseAddress! + 1) }
        }
    }

    static let areaMaximumAlpha = FilterDescriptor(
        name: "CIAreaMaximumAlpha", displayName: "Area Maximum Alpha",
        summary: "A 1x1 image holding the pixel of the region with the largest alpha (the first one in scan order on ties).",
        categories: [.reduction], inputs: [.image(), .extentInput()]
    ) { a in try alphaExtreme(a, max: true) }

    static let areaMinimumAlpha = FilterDescriptor(
        name: "CIAreaMinimumAlpha", displayName: "Area Minimum Alpha",
        summary: "A 1x1 image holding the pixel of the region with the smallest alpha (the first one in scan order on ties).",
        categories: [.reduction], inputs: [.image(), .extentInput()]
    ) { a in try alphaExtreme(a, max: false) }

    static let areaMinMaxRed = FilterDescriptor(
        name: "CIAreaMinMaxRed", displayName: "Area Min and Max Red",
        summary: "A 1x1 image whose red is the smallest and green the largest red value of the region (blue 0, alpha 1).",
        categories: [.reduction], inputs: [.image(), .extentInput()]
    ) { a in
        let region = try a.reductionRegion()
        return Image.reduction("area min max red", inputs: [try a.image()], regions: [region], width: 1, height: 1) {
            t, threads, out in
            let s = Reduction.bandedFold(
                t[0], threads: threads, stateSize: 2, initial: .nan,
                { st, row, _ in
                    for x in 0..<region.width {
                        let r = Double(row[x].x)
                        if st[0].isNaN || r < st[0] { st[0] = r }
                        if st[1].isNaN || r > st[1] { st[1] = r }
                    }
                },
                combine: { total, band in
                    if total[0].isNaN || band[0] < total[0] { total[0] = band[0] }
                    if total[1].isNaN || band[1] > total[1] { total[1] = band[1] }
                })
            out[0] = SIMD4(Float(s[0]), Float(s[1]), 0, 1)
        }
    }

    static let areaBoundsRed = FilterDescriptor(
        name: "CIAreaBoundsRed", displayName: "Area Bounds Red",
        summary:
            "A 1x1 image holding the bounding box of the pixels whose red is above zero, as (x, y, width, height) relative to the region (0...1); all zero when there are none.",
        categories: [.reduction], inputs: [.image(), .extentInput()]
    ) { a in
        let region = try a.reductionRegion()
        return Image.reduction("area bounds red", inputs: [try a.image()], regions: [region], width: 1, height: 1) {
            t, threads, out in
            let s = Reduction.bandedFold(
                t[0], threads: threads, stateSize: 4, initial: .nan,
                { st, row, y in
                    for x in 0..<region.width where row[x].x > 0 {
                        let px = Double(region.x + x), py = Double(y)
                        if st[0].isNaN || px < st[0] { st[0] = px }
                        if st[1].isNaN || py < st[1] { st[1] = py }
                        if st[2].isNaN || px + 1 > st[2] { st[2] = px + 1 }
                        if st[3].isNaN || py + 1 > st[3] { st[3] = py + 1 }
                    }
                },
                combine: { total, band in
                    guard !band[0].isNaN else { return }
                    if total[0].isNaN {
                        for i in 0..<4 { total[i] = band[i] }
                        return
                    }
                    total[0] = Swift.min(total[0], band[0]); total[1] = Swift.min(total[1], band[1])
                    total[2] = Swift.max(total[2], band[2]); total[3] = Swift.max(total[3], band[3])
                })
            if s[0].isNaN { out[0] = .zero; return }
            let w = Double(region.width), h = Double(region.height)
            out[0] = SIMD4(
                Float((s[0] - Double(region.x)) / w), Float((s[1] - Double(region.y)) / h),
                Float((s[2] - s[0]) / w), Float((s[3] - s[1]) / h))
        }
    }

    /// Shared by the three histogram filters: `bin(v)` gives the bin of a channel value (or
    /// nil to skip), `weight(pixel)` how much the pixel counts.
    static func histogram(
        _ a: FilterArguments, name: String, unpremultiply: Bool, alphaWeighted: Bool,
        bin: @escaping @Sendable (Float, Int) -> Int
    ) throws -> Image {
        let region = try a.reductionRegion()
        let count = Int(try a.number("inputCount"))
        let scale = try a.number("inputScale")
        return Image.reduction(name, inputs: [try a.image()], regions: [region], width: count, height: 1) { t, threads, out in
            let s = Reduction.bandedSums(t[0], threads: threads, stateSize: count * 4) { st, row, _ in
                for x in 0..<region.width {
                    let p = row[x]
                    let v = unpremultiply ? _unpremultiplied(p) : p
                    let w = alphaWeighted ? Double(p.w) : 1
                    for c in 0..<4 { st[bin(v[c], count) * 4 + c] += w }
                }
            }
            let total = Double(region.area)
            for i in 0..<count {
                out[i] = SIMD4(
                    Float(scale * s[i * 4] / total), Float(scale * s[i * 4 + 1] / total),
                    Float(scale * s[i * 4 + 2] / total), Float(scale * s[i * 4 + 3] / total))
            }
        }
    }

    static let histogramInputs: [FilterInput] = [
        .image(), .extentInput(),
        .number(
            "inputScale", default: 1, min: 0, max: 1e6, sliderMin: 0, sliderMax: 100,
            summary: "Multiplies every bin; 1 gives the fraction of the region's pixels in the bin."),
        .number(
            "inputCount", .count, default: 64, min: 1, max: 2048, sliderMin: 1, sliderMax: 1024,
            summary: "Number of bins; the output is this many pixels wide."),
    ]

    static let areaHistogram = FilterDescriptor(
        name: "CIAreaHistogram", displayName: "Area Histogram",
        summary:
            "An N x 1 image: for each channel, the fraction of the region's pixels whose value falls in each of N equal bins over 0...1 (values outside go to the end bins).",
        categories: [.reduction], inputs: histogramInputs
    ) { a in
        try histogram(a, name: "area histogram", unpremultiply: false, alphaWeighted: false) { v, n in
            guard v > 0 else { return 0 }
            return Swift.min(n - 1, Int(v * Float(n)))
        }
    }

    static let areaAlphaWeightedHistogram = FilterDescriptor(
        name: "CIAreaAlphaWeightedHistogram", displayName: "Area Alpha Weighted Histogram",
        summary: "Like the area histogram of the unpremultiplied colors, with each pixel counted by its alpha.",
        categories: [.reduction], inputs: histogramInputs
    ) { a in
        try histogram(a, name: "area alpha weighted histogram", unpremultiply: true, alphaWeighted: true) { v, n in
            guard v > 0 else { return 0 }
            return Swift.min(n - 1, Int(v * Float(n)))
        }
    }

    static let areaLogarithmicHistogram = FilterDescriptor(
        name: "CIAreaLogarithmicHistogram", displayName: "Area Logarithmic Histogram",
        summary: "An N x 1 histogram whose bins are equal steps of log2(value) between the minimum and maximum stops.",
        categories: [.reduction],
        inputs: histogramInputs + [
            .number(
                "inputMinimumStop", default: -10, min: -30, max: 30, sliderMin: -10, sliderMax: 0,
                summary: "log2 of the smallest value of the first bin."),
            .number(
                "inputMaximumStop", default: 4, min: -30, max: 30, sliderMin: 0, sliderMax: 10,
                summary: "log2 of the largest value of the last bin."),
        ]
    ) { a in
        // A maximum stop at or below the minimum puts every value above the minimum in the last bin.
        let lo = Float(try a.number("inputMinimumStop")), hi = Float(try a.number("inputMaximumStop"))
        let range = Swift.max(hi - lo, 1e-6)
        return try histogram(a, name: "area logarithmic histogram \(lo)...\(hi)", unpremultiply: false, alphaWeighted: false) {
            v, n in
            guard v > 0 else { return 0 }
            let f = (log2f(v) - lo) / range
            guard f > 0 else { return 0 }
            return Swift.min(n - 1, Int(f * Float(n)))
        }
    }

    static let columnAverage = FilterDescriptor(
        name: "CIColumnAverage", displayName: "Column Average",
        summary: "A W x 1 image: the average of each column of the region.",
        categories: [.reduction], inputs: [.image(), .extentInput()]
    ) { a in
        let region = try a.reductionRegion()
        guard region.width <= 1 << 20 else {
            throw a.fail("inputExtent", "is too wide for a column average (\(region.width) columns)")
        }
        return Image.reduction("column average", inputs: [try a.image()], regions: [region], width: region.width, height: 1) {
            t, threads, out in
            let s = Reduction.bandedSums(t[0], threads: threads, stateSize: region.width * 4) { st, row, _ in
                for x in 0..<region.width { for c in 0..<4 { st[x * 4 + c] += Double(row[x][c]) } }
            }
            let n = Double(region.height)
            for x in 0..<region.width {
                out[x] = SIMD4(Float(s[x * 4] / n), Float(s[x * 4 + 1] / n), Float(s[x * 4 + 2] / n), Float(s[x * 4 + 3] / n))
            }
        }
    }

    static let rowAverage = FilterDescriptor(
        name: "CIRowAverage", displayName: "Row Average",
        summary: "A 1 x H image: the average of each row of the region.",
        categories: [.reduction], inputs: [.image(), .extentInput()]
    ) { a in
        let region = try a.reductionRegion()
        guard region.height <= 1 << 20 else {
            throw a.fail("inputExtent", "is too tall for a row average (\(region.height) rows)")
        }
        return Image.reduction("row average", inputs: [try a.image()], regions: [region], width: 1, height: region.height) {
            t, threads, out in
            let tile = t[0]
            let shared = SharedPixels(base: UnsafeMutableRawPointer(out), bytesPerRow: 16)
            Scheduler.run(count: region.height, threads: threads) { j, _ in
                let row = tile.row(region.y + j)
                var acc = SIMD4<Double>.zero
                for x in 0..<region.width { acc += _double4(row[x]) }
                let n = Double(region.width)
                (shared.base + j * 16).storeBytes(
                    of: SIMD4(Float(acc.x / n), Float(acc.y / n), Float(acc.z / n), Float(acc.w / n)),
                    as: SIMD4<Float>.self)
            }
        }
    }

    static let histogramDisplay = FilterDescriptor(
        name: "CIHistogramDisplayFilter", displayName: "Histogram Display",
        summary:
            "Draws an N x 1 histogram image (such as CIAreaHistogram's) as an N x height bar chart: red, green and blue bars, opaque black background.",
        categories: [.reduction],
        inputs: [
            .image(summary: "An N x 1 histogram image."),
            .number("inputHeight", .scalar, default: 100, min: 1, max: 200, summary: "Height of the chart in pixels."),
            .number("inputHighLimit", default: 1, min: 0, max: 1, summary: "The bin value drawn at full height."),
            .number("inputLowLimit", default: 0, min: 0, max: 1, summary: "The bin value drawn at zero height."),
        ]
    ) { a in
        let image = try a.image()
        let region = try a.finiteExtent(of: image)
        let height = Int(try a.number("inputHeight").rounded())
        // A high limit at or below the low one draws every bin above the low limit at full height.
        let hi = try a.number("inputHighLimit"), lo = try a.number("inputLowLimit")
        let range = Swift.max(hi - lo, 1e-9)
        let firstRow = IntRect(x: region.x, y: region.y, width: region.width, height: 1)
        return Image.reduction(
            "histogram display \(height) \(lo)...\(hi)", inputs: [image], regions: [firstRow],
            width: region.width, height: height
        ) { t, _, out in
            let row = t[0].row(firstRow.y)
            for x in 0..<region.width {
                let v = row[x]
                var bars = SIMD4<Int>(repeating: 0)
                for c in 0..<3 {
                    let f = Swift.min(1, Swift.max(0, (Double(v[c]) - lo) / range))
                    bars[c] = Int((f * Double(height)).rounded())
                }
                for y in 0..<height {
                    let fromBottom = height - y
                    out[y * region.width + x] = SIMD4(
                        bars.x >= fromBottom ? 1 : 0, bars.y >= fromBottom ? 1 : 0,
                        bars.z >= fromBottom ? 1 : 0, 1)
                }
            }
        }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
