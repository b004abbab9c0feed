// A canvas's graphics state (transform, global alpha, blend mode) with save and restore, the
// 28 blend modes of Core Graphics, and drawing images. Blend modes reuse the W3C blend row
// kernels of the filters (Kernels/BlendModeKernels.swift); the Porter-Duff operators are
// written out here.

extension Canvas {
    /// How drawn pixels combine with the pixels already there: Core Graphics' 28 blend modes
    /// (`CGBlendMode`), on premultiplied linear values. The first 16 are the W3C/PDF blend
    /// modes composited source-over (as the `CI...BlendMode` filters); the rest are the
    /// Porter-Duff operators and the two plus modes.
    public enum BlendMode: String, Sendable, CaseIterable {
        /// Source-over: `S + D (1 - Sa)`.
        case normal
        /// W3C blend modes (source-over with the blended color where both are opaque).
        case multiply, screen, overlay, darken, lighten, colorDodge, colorBurn, softLight, hardLight
        /// W3C blend modes, continued.
        case difference, exclusion, hue, saturation, color, luminosity
        /// `0`.
        case clear
        /// `S`.
        case copy
        /// `S Da`.
        case sourceIn
        /// `S (1 - Da)`.
        case sourceOut
        /// `S Da + D (1 - Sa)`: paint only where something is already drawn.
        case sourceAtop
        /// `S (1 - Da) + D`.
        case destinationOver
        /// `D Sa`.
        case destinationIn
        /// `D (1 - Sa)`.
        case destinationOut
        /// `S (1 - Da) + D Sa`.
        case destinationAtop
        /// `S (1 - Da) + D (1 - Sa)`.
        case xor
        /// `max(0, S + D - A)` on each color channel with alpha `A = min(1, Sa + Da)` (Core
        /// Graphics' `1 - ((1 - D) + (1 - S))` where both are opaque).
        case plusDarker
        /// `min(1, S + D)` on each channel.
        case plusLighter
    }

    /// What `saveState()` keeps and `restoreState()` brings back.
    struct GraphicsState: Sendable {
        var transform: AffineTransform
        var alpha: Double
        var blendMode: BlendMode
        var clip: [Float]?
        var fillColor: Color
        var strokeColor: Color
        var lineStyle: StrokeStyle
    }

    /// Pushes the graphics state (transform, alpha, blend mode, clip, fill and stroke colors,
    /// line style) on a stack, as `CGContext.saveGState()`.
    public mutating func saveState() {
        _savedStates.append(
            GraphicsState(
                transform: transform, alpha: alpha, blendMode: blendMode, clip: _clip, fillColor: fillColor,
                strokeColor: strokeColor, lineStyle: lineStyle))
    }

    /// Pops the state saved last and makes it current, as `CGContext.restoreGState()`; does
    /// nothing when no state is saved.
    public mutating func restoreState() {
        guard let s = _savedStates.popLast() else { return }
        transform = s.transform
        alpha = s.alpha
        blendMode = s.blendMode
        _clip = s.clip
        fillColor = s.fillColor
        strokeColor = s.strokeColor
        lineStyle = s.lineStyle
    }

    /// Narrows the clip to `rect` (in drawing coordinates, through `transform`): drawing
    /// afterwards only reaches the area inside both, anti-aliased at the edges, as
    /// `CGContext.clip(to:)`. Only `restoreState()` widens it again.
    public mutating func clip(to rect: Rect) {
        var path = Path()
        if _valid(rect, allowEmpty: true) { path.addRect(rect) }
        clip(to: path)
    }

    /// Narrows the clip to the inside of `path` under `rule` (through `transform`), as
    /// `CGContext.clip(using:)`. An empty path clips everything away.
    public mutating func clip(to path: Path, rule: FillRule = .nonZero) {
        let w = buffer.width, h = buffer.height
        var mask = [Float](repeating: 0, count: w * h)
        let contours = path.flattened(tolerance: tolerance).map { mapped($0.points) }.filter { $0.count >= 3 }
        if !contours.isEmpty, let raster = _ScanlineRasterizer(bounding: contours, clipWidth: w, clipHeight: h) {
            raster.forEachRow(rule: rule) { y, x0, cov in
                for (i, c) in cov.enumerated() { mask[y * w + x0 + i] = Float(c) }
            }
        }
        if let old = _clip {
            for i in 0..<mask.count { mask[i] *= old[i] }
        }
        _clip = mask
    }

    /// The coverages of a rasterized row run under the clip: `cov` (from column `x0` of row
    /// `y`) times the clip mask, or `cov` itself without a clip.
    func _clipped(y: Int, x0: Int, _ cov: UnsafeBufferPointer<Double>) -> [Double] {
        guard let clip = _clip else { return Array(cov) }
        let base = y * buffer.width + x0
        return cov.enumerated().map { $0.element * Double(clip[base + $0.offset]) }
    }

    /// The number of states saved and not yet restored.
    public var savedStateCount: Int { _savedStates.count }

    /// `B(S, D)` of `blendMode` for `count` premultiplied pixels: `s` the source, `d` the
    /// destination, result in `out` (`scratch` holds `count` pixels).
    func _blend(
        _ s: UnsafeMutablePointer<SIMD4<Float>>, _ d: UnsafePointer<SIMD4<Float>>, into out: UnsafeMutablePointer<SIMD4<Float>>,
        count n: Int
    ) {
        func each(_ f: (SIMD4<Float>, SIMD4<Float>) -> SIMD4<Float>) {
            for i in 0..<n { out[i] = f(s[i], d[i]) }
        }
        func w3c(_ row: (UnsafePointer<SIMD4<Float>>, UnsafeMutablePointer<SIMD4<Float>>, Int) -> Void) {
            out.update(from: d, count: n)
            row(UnsafePointer(s), out, n)
        }
        switch blendMode {
        case .normal: each { s, d in s + d * (1 - s.w) }
        case .multiply: w3c { multiplyBlendRow($0, $1, count: $2) }
        case .screen: w3c { screenBlendRow($0, $1, count: $2) }
        case .overlay: w3c { overlayBlendRow($0, $1, count: $2) }
        case .darken: w3c { darkenBlendRow($0, $1, count: $2) }
        case .lighten: w3c { lightenBlendRow($0, $1, count: $2) }
        case .colorDodge: w3c { colorDodgeBlendRow($0, $1, count: $2) }
        case .colorBurn: w3c { colorBurnBlendRow($0, $1, count: $2) }
        case .softLight: w3c { softLightBlendRow($0, $1, count: $2) }
        case .hardLight: w3c { hardLightBlendRow($0, $1, count: $2) }
        case .difference: w3c { differenceBlendRow($0, $1, count: $2) }
        case .exclusion: w3c { exclusionBlendRow($0, $1, count: $2) }
        case .hue: w3c { hueBlendRow($0, $1, count: $2) }
        case .saturation: w3c { saturationBlendRow($0, $1, count: $2) }
        case .color: w3c { colorBlendRow($0, $1, count: $2) }
        case .luminosity: w3c { luminosityBlendRow($0, $1, count: $2) }
        case .clear: each { _, _ in .zero }
        case .copy: each { s, _ in s }
        case .sourceIn: each { s, d in s * d.w }
        case .sourceOut: each { s, d in s * (1 - d.w) }
        case .sourceAtop: each { s, d in s * d.w + d * (1 - s.w) }
        case .destinationOver: each { s, d in s * (1 - d.w) + d }
        case .destinationIn: each { s, d in d * s.w }
        case .destinationOut: each { s, d in d * (1 - s.w) }
        case .destinationAtop: each { s, d in s * (1 - d.w) + d * s.w }
        case .xor: each { s, d in s * (1 - d.w) + d * (1 - s.w) }
        case .plusDarker:
            each { s, d in
                let a = Swift.min(1, s.w + d.w)
                var r = pointwiseMax(SIMD4(repeating: 0), (s + d) - SIMD4(repeating: a))
                r.w = a
                return r
            }
        case .plusLighter: each { s, d in pointwiseMin(s + d, SIMD4(repeating: 1)) }
        }
    }

    /// Composites `count` source pixels `s` (premultiplied, linear, before the global alpha)
    /// with coverages `coverage` onto working destination pixels `d`: `d + c (B(S, D) - D)`
    /// with `S = s * alpha`. `scratch` holds `count` pixels.
    func _composite(
        _ s: UnsafeMutablePointer<SIMD4<Float>>, coverage: (Int) -> Float, onto d: UnsafeMutablePointer<SIMD4<Float>>,
        count n: Int, scratch: UnsafeMutablePointer<SIMD4<Float>>
    ) {
        let a = Float(Swift.min(1, Swift.max(0, alpha)))
        if a != 1 { for i in 0..<n { s[i] *= a } }
        _blend(s, UnsafePointer(d), into: scratch, count: n)
        for i in 0..<n {
            let c = coverage(i)
            d[i] = c == 1 ? scratch[i] : d[i] + (scratch[i] - d[i]) * c
        }
    }

    /// Draws `image` mapped onto `rect` (its extent's corners onto the rect's, then through
    /// `transform`), resampled with `interpolation`, with the current alpha and blend mode,
    /// as `CGContext.draw(_:in:)`. The area outside the mapped rect is left as it is; pixels
    /// the rect's edge crosses take its exact coverage (the image's edge pixels are extended
    /// up to it).
    ///
    /// ```swift
    /// canvas.saveState()
    /// canvas.alpha = 0.5
    /// canvas.blendMode = .sourceAtop
    /// try canvas.draw(ghost, in: Rect(x: 40, y: 30, width: 120, height: 150))
    /// canvas.restoreState()
    /// ```
    ///
    /// - Parameters:
    ///   - image: the picture; its extent must be finite and not empty.
    ///   - rect: where its extent lands, in drawing coordinates.
    ///   - interpolation: `.nearest` or `.bilinear` (default).
    ///   - context: renders the image (threads, tile size, color management); the default
    ///     context when nil. The pixels are the same for every thread count and tile size.
    /// - Throws: `PixelFlowError.invalidParameter` for an infinite or empty extent, a
    ///   non-finite rect or a transform that cannot be inverted, and the render's errors.
    public mutating func draw(
        _ image: Image, in rect: Rect, interpolation: Sampling = .bilinear, context: RenderContext? = nil
    ) throws {
        if alpha.isNaN { return }
        let e = image.extent
        guard !e.isInfinite, e.width > 0, e.height > 0 else {
            throw PixelFlowError.invalidParameter(filter: "Canvas", key: "image", reason: "needs a finite, non-empty extent")
        }
        guard _valid(rect) else {
            throw PixelFlowError.invalidParameter(
                filter: "Canvas", key: "rect", reason: "must be finite with a positive size, got \(rect)")
        }
        let place = AffineTransform(translationX: -e.x, y: -e.y)
            .concatenating(AffineTransform(scaleX: rect.width / e.width, y: rect.height / e.height))
            .concatenating(AffineTransform(translationX: rect.x, y: rect.y))
            .concatenating(transform)
        let corners = [
            Point(x: e.minX, y: e.minY), Point(x: e.maxX, y: e.minY), Point(x: e.maxX, y: e.maxY), Point(x: e.minX, y: e.maxY),
        ].map { place.apply(to: $0) }
        guard let raster = _ScanlineRasterizer(bounding: [corners], clipWidth: buffer.width, clipHeight: buffer.height) else {
            return
        }
        // The image extended beyond its edges, placed, rendered over the covered rows and columns
        // in linear premultiplied floats.
        let placed = try image.clampedToExtent().transformed(by: place, sampling: interpolation)
        var rows: [(y: Int, x0: Int, coverage: [Double])] = []
        let me0 = self
        raster.forEachRow(rule: .nonZero) { y, x0, cov in rows.append((y, x0, me0._clipped(y: y, x0: x0, cov))) }
        guard let first = rows.first else { return }
        let minX = rows.map(\.x0).min()!, maxX = rows.map { $0.x0 + $0.coverage.count }.max()!
        let region = IntRect(x: minX, y: first.y, width: maxX - minX, height: rows.last!.y - first.y + 1)
        let ctx = context ?? RenderContext()
        let source = try ctx.makeBuffer(
            placed,
            rect: Rect(x: Double(region.x), y: Double(region.y), width: Double(region.width), height: Double(region.height)),
            format: .rgbaF32, colorEncoding: .linear, alphaMode: .premultiplied)
        let fmt = buffer.format, bpp = fmt.bytesPerPixel, stride = buffer.bytesPerRow
        let codes = _storeEncodes
        let width = region.width
        let tmp = UnsafeMutablePointer<SIMD4<Float>>.allocate(capacity: 4 * width)
        defer { tmp.deallocate() }
        let me = self
        source.withUnsafeBytes { sourceBytes in
            buffer.withUnsafeMutableBytes { bytes in
                let base = bytes.baseAddress!
                for row in rows {
                    let cov = row.coverage
                    var i = 0
                    while i < cov.count {
                        if cov[i] == 0 {
                            i += 1
                            continue
                        }
                        var j = i
                        while j < cov.count && cov[j] != 0 { j += 1 }
                        let count = j - i
                        let p = base + row.y * stride + (row.x0 + i) * bpp
                        loadRowRGBA(p, format: fmt, count: count, into: tmp, decodeSRGB: codes)
                        me._toWorking(tmp, count)
                        let src = tmp + width
                        let from =
                            sourceBytes.baseAddress! + (row.y - region.y) * source.bytesPerRow
                            + (row.x0 + i - region.x) * 16
                        src.update(from: from.assumingMemoryBound(to: SIMD4<Float>.self), count: count)
                        let start = i
                        me._composite(
                            src, coverage: { Float(cov[start + $0]) }, onto: tmp, count: count, scratch: tmp + 2 * width)
                        me._fromWorking(tmp, count)
                        storeRowRGBA(tmp, count: count, format: fmt, into: p, encodeSRGB: codes, scratch: tmp + 2 * width)
                        i = j
                    }
                }
            }
        }
    }

    /// Draws `buffer` into `rect` as `draw(_:in:interpolation:context:)` draws an image.
    ///
    /// - Throws: as `draw(_:in:interpolation:context:)`.
    public mutating func draw(
        _ picture: PixelBuffer, in rect: Rect, interpolation: Sampling = .bilinear, context: RenderContext? = nil
    ) throws {
        try draw(Image(picture), in: rect, interpolation: interpolation, context: context)
    }
}
