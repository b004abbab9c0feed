// Reductions that cluster colors: k-means, palette centroids, and Otsu's threshold.

extension FilterDescriptor {
    /// The colors of the first row of a palette-like image, unpremultiplied.
    static func paletteColors(_ tile: Tile, count: Int) -> [SIMD4<Float>] {
        guard !tile.rect.isEmpty else { return [] }
        let row = tile.row(tile.rect.y)
        return (0..<Swift.min(count, tile.rect.width)).map { _unpremultiplied(row[$0]) }
    }

    /// RGB as clustered: encoded to sRGB when `perceptual` and the working space is linear
    /// (the kernels cannot know the working space, so perceptual always encodes).
    @inline(__always) static func clusterSpace(_ v: SIMD4<Float>, perceptual: Bool) -> SIMD3<Double> {
        let c = perceptual ? SIMD4(SRGB.fromLinear(v.x), SRGB.fromLinear(v.y), SRGB.fromLinear(v.z), v.w) : v
        return SIMD3(Double(c.x), Double(c.y), Double(c.z))
    }
    @inline(__always) static func fromClusterSpace(_ c: SIMD3<Double>, perceptual: Bool) -> SIMD3<Float> {
        let f = SIMD3<Float>(Float(c.x), Float(c.y), Float(c.z))
        return perceptual ? SIMD3(SRGB.toLinear(f.x), SRGB.toLinear(f.y), SRGB.toLinear(f.z)) : f
    }

    static let kMeans = FilterDescriptor(
        name: "CIKMeans", displayName: "KMeans",
        summary:
            "A K x 1 image of the K dominant colors of the region by Lloyd's k-means on up to 16,384 evenly spaced samples, seeded by farthest-point selection; each pixel's alpha is the share of samples in its cluster (colors premultiplied by it).",
        categories: [.reduction],
        inputs: [
            .image(), .extentInput(),
            .optionalImage(
                "inputMeans",
                summary:
                    "Seed colors: the first row of this image. Without it, seeds are samples spread evenly through the region."),
            .number("inputCount", .count, default: 8, min: 1, max: 128, summary: "Number of clusters (K)."),
            .number("inputPasses", .count, default: 5, min: 0, max: 20, summary: "Refinement passes."),
            .boolean("inputPerceptual", default: false, summary: "Cluster sRGB-encoded colors instead of linear ones."),
        ]
    ) { a in
        let region = try a.reductionRegion()
        let k = Int(try a.number("inputCount")), passes = Int(try a.number("inputPasses"))
        let perceptual = try a.number("inputPerceptual") != 0
        var inputs = [try a.image()], regions = [region]
        if let means = a.optionalImage("inputMeans") {
            let e = try a.finiteExtent(of: means, "inputMeans")
            inputs.append(means)
            regions.append(IntRect(x: e.x, y: e.y, width: Swift.min(e.width, k), height: 1))
        }
        return Image.reduction("k-means \(k) \(passes) \(perceptual)", inputs: inputs, regions: regions, width: k, height: 1) {
            t, _, out in
            // Samples on a fixed grid: the same whatever the schedule.
            let step = Swift.max(1, Int((Double(region.area) / 16_384).squareRoot().rounded(.up)))
            var samples: [SIMD3<Double>] = []
            samples.reserveCapacity((region.width / step + 1) * (region.height / step + 1))
            var y = region.y
            while y < region.maxY {
                let row = t[0].row(y)
                var x = 0
                while x < region.width {
                    samples.append(clusterSpace(_unpremultiplied(row[x]), perceptual: perceptual))
                    x += step
                }
                y += step
            }
            var means = t.count > 1 ? paletteColors(t[1], count: k).map { clusterSpace($0, perceptual: perceptual) } : []
            // Farthest-point seeding (deterministic): each new seed is the sample farthest from
            // the seeds so far, the first such sample on ties.
            var nearest = [Double](repeating: .infinity, count: samples.count)
            func updateNearest(_ m: SIMD3<Double>) {
                for (i, s) in samples.enumerated() {
                    let d = s - m
                    nearest[i] = Swift.min(nearest[i], (d * d).sum())
                }
            }
            for m in means { updateNearest(m) }
            while means.count < k {
                var far = 0
                if !means.isEmpty { for i in samples.indices where nearest[i] > nearest[far] { far = i } }
                means.append(samples[far])
                updateNearest(samples[far])
            }
            var assignment = [Int](repeating: 0, count: samples.count)
            func assign() {
                for (i, s) in samples.enumerated() {
                    var best = 0, bestD = Double.infinity
                    for (j, m) in means.enumerated() {
                        let d = s - m
                        let dd = (d * d).sum()
                        if dd < bestD { bestD = dd; best = j }
                    }
                    assignment[i] = best
                }
            }
            assign()
            for _ in 0..<passes {
                var sums = [SIMD3<Double>](repeating: .zero, count: k), counts = [Int](repeating: 0, count: k)
                for (i, s) in samples.enumerated() { sums[assignment[i]] += s; counts[assignment[i]] += 1 }
                for j in 0..<k where counts[j] > 0 { means[j] = sums[j] / Double(counts[j]) }
                assign()
            }
            var counts = [Int](repeating: 0, count: k)
            for c in assignment { counts[c] += 1 }
            for j in 0..<k {
                let w = Float(Double(counts[j]) / Double(Swift.max(1, samples.count)))
                let c = fromClusterSpace(means[j], perceptual: perceptual)
                out[j] = SIMD4(c.x * w, c.y * w, c.z * w, w)
            }
        }
    }

    static let paletteCentroid = FilterDescriptor(
        name: "CIPaletteCentroid", displayName: "Palette Centroid",
        summary:
            "An N x 1 image: each color of the palette (the first row of inputPaletteImage) moved to the mean of the image's pixels closest to it; colors no pixel is closest to are kept.",
        categories: [.colorEffect],
        inputs: [
            .image(), .image("inputPaletteImage", summary: "An N x 1 image of palette colors."),
            .boolean("inputPerceptual", default: false, summary: "Compare sRGB-encoded colors instead of linear ones."),
        ]
    ) { a in
        let image = try a.image(), palette = try a.image("inputPaletteImage")
        let region = try a.finiteExtent(of: image)
        let pe = try a.finiteExtent(of: palette, "inputPaletteImage")
        guard pe.width <= 4096 else { throw a.fail("inputPaletteImage", "has more than 4096 colors (\(pe.width))") }
        let perceptual = try a.number("inputPerceptual") != 0
        let paletteRow = IntRect(x: pe.x, y: pe.y, width: pe.width, height: 1)
        return Image.reduction(
            "palette centroid \(perceptual)", inputs: [image, palette], regions: [region, paletteRow],
            width: pe.width, height: 1
        ) { t, threads, out in
            let colors = paletteColors(t[1], count: pe.width)
            let targets = colors.map { clusterSpace($0, perceptual: perceptual) }
            let n = colors.count
            let s = Reduction.bandedSums(t[0], threads: threads, stateSize: n * 4) { st, row, _ in
                for x in 0..<region.width {
                    let c = clusterSpace(_unpremultiplied(row[x]), perceptual: perceptual)
                    var best = 0, bestD = Double.infinity
                    for (j, m) in targets.enumerated() {
                        let d = c - m
                        let dd = (d * d).sum()
                        if dd < bestD { bestD = dd; best = j }
                    }
                    st[best * 4] += c.x; st[best * 4 + 1] += c.y; st[best * 4 + 2] += c.z; st[best * 4 + 3] += 1
                }
            }
            for j in 0..<n {
                let count = s[j * 4 + 3]
                if count > 0 {
                    let c = fromClusterSpace(SIMD3(s[j * 4], s[j * 4 + 1], s[j * 4 + 2]) / count, perceptual: perceptual)
                    out[j] = SIMD4(c.x, c.y, c.z, 1)
                } else {
                    let c = colors[j]
                    out[j] = SIMD4(c.x, c.y, c.z, 1)
                }
            }
        }
    }

    /// Otsu's threshold (1979) of a 256-bin histogram: the bin edge maximizing the between-class variance.
    static func otsuThreshold(_ hist: [Double]) -> Double {
        let total = hist.reduce(0, +)
        guard total > 0 else { return 0.5 }
        let sumAll = hist.enumerated().reduce(0.0) { $0 + Double($1.offset) * $1.element }
        var wB = 0.0, sumB = 0.0, best = -1.0, bestK = 0
        for k in 0..<hist.count {
            wB += hist[k]
            if wB == 0 { continue }
            let wF = total - wB
            if wF == 0 { break }
            sumB += Double(k) * hist[k]
            let mB = sumB / wB, mF = (sumAll - sumB) / wF
            let between = wB * wF * (mB - mF) * (mB - mF)
            if between > best { best = between; bestK = k }
        }
        return Double(bestK + 1) / Double(hist.count)
    }

    static let colorThresholdOtsu = FilterDescriptor(
        name: "CIColorThresholdOtsu", displayName: "Color Threshold Otsu",
        summary:
            "Binarizes the image at the threshold Otsu's method finds in the histogram of its Rec. 709 luma: each color channel becomes 1 above the threshold and 0 otherwise; alpha is kept.",
        categories: [.colorAdjustment], inputs: [.image()]
    ) { a in
        let image = try a.image()
        let region = try a.finiteExtent(of: image)
        let threshold = Image.reduction("otsu threshold", inputs: [image], regions: [region], width: 1, height: 1) {
            t, threads, out in
            let hist = Reduction.bandedSums(t[0], threads: threads, stateSize: 256) { st, row, _ in
                for x in 0..<region.width {
                    let v = _unpremultiplied(row[x])
                    let l = 0.2126 * v.x + 0.7152 * v.y + 0.0722 * v.z
                    st[l > 0 ? Swift.min(255, Int(l * 256)) : 0] += 1
                }
            }
            out[0] = SIMD4(repeating: Float(otsuThreshold(hist)))
        }
        return image.blended(
            with: threshold.clampedToExtent(),
            kernel: BlendKernel(name: "threshold by", extentRule: .foreground) { fg, dst, n in
                for i in 0..<n {
                    let v = _unpremultiplied(fg[i])
                    let tval = dst[i].x
                    var r = SIMD4<Float>(v.x > tval ? 1 : 0, v.y > tval ? 1 : 0, v.z > tval ? 1 : 0, 1)
                    r = r * fg[i].w
                    dst[i] = r
                }
            })
    }
}

extension Image {
    /// The average color of `rect` as a 1x1 image (`CIAreaAverage`).
    public func areaAverage(in rect: Rect) throws -> Image {
        try FilterDescriptor.areaAverage.apply([
            "inputImage": .image(self), "inputExtent": .vector([rect.x, rect.y, rect.width, rect.height]),
        ])
    }

    /// A `count` x 1 histogram of `rect` (`CIAreaHistogram`): bin `i` of each channel holds
    /// `scale` times the fraction of pixels with values in `[i/count, (i+1)/count)`.
    public func areaHistogram(in rect: Rect, count: Int = 64, scale: Double = 1) throws -> Image {
        try FilterDescriptor.areaHistogram.apply([
            "inputImage": .image(self), "inputExtent": .vector([rect.x, rect.y, rect.width, rect.height]),
            "inputCount": .number(Double(count)), "inputScale": .number(scale),
        ])
    }

    /// The `count` dominant colors of `rect` (`CIKMeans`).
    public func kMeans(in rect: Rect, count: Int = 8, passes: Int = 5, seeds: Image? = nil, perceptual: Bool = false) throws
        -> Image
    {
        try FilterDescriptor.kMeans.apply([
            "inputImage": .image(self), "inputExtent": .vector([rect.x, rect.y, rect.width, rect.height]),
            "inputCount": .number(Double(count)), "inputPasses": .number(Double(passes)),
            "inputMeans": seeds.map(FilterValue.image), "inputPerceptual": .boolean(perceptual),
        ])
    }

    /// Binarizes at Otsu's threshold of the luma histogram (`CIColorThresholdOtsu`).
    public func colorThresholdOtsu() throws -> Image {
        try FilterDescriptor.colorThresholdOtsu.apply(["inputImage": .image(self)])
    }
}

extension RenderContext {
    /// The pixels of a small image, such as a reduction's output, as the working space holds
    /// them: premultiplied, linear light unless color management is off, row by row over the
    /// image's extent (which must be finite and at most 16 megapixels).
    public func values(of image: Image) throws -> [SIMD4<Float>] {
        let r = try renderRect(image, nil)
        guard r.area <= 1 << 24 else {
            throw PixelFlowError.limitExceeded(what: "values(of:) pixel count", value: r.area, limit: 1 << 24)
        }
        let enc: ColorEncoding = options.colorManagement == .linear ? .linear : .sRGB
        let b = try makeBuffer(image, rect: r.rect, format: .rgbaF32, colorEncoding: enc, alphaMode: .premultiplied)
        var out: [SIMD4<Float>] = []
        out.reserveCapacity(r.area)
        for y in 0..<b.height { for x in 0..<b.width { out.append(b[x, y]) } }
        return out
    }
}
