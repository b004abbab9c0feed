// CIColorCube: a 3D color lookup table with trilinear interpolation. Kernel:
// `colorCubeRow` in Kernels/ColorEffectKernels.swift.

extension ColorCubeTable {
    /// The identity cube of `dimension` (entry `(r, g, b)` is `(r, g, b, 1) / (dimension - 1)`).
    static func identity(dimension d: Int) -> ColorCubeTable {
        var e: [SIMD4<Float>] = []
        e.reserveCapacity(d * d * d)
        let s = Float(d - 1)
        for b in 0..<d { for g in 0..<d { for r in 0..<d { e.append(SIMD4(Float(r) / s, Float(g) / s, Float(b) / s, 1)) } } }
        return ColorCubeTable(dimension: d, entries: e)
    }

    /// The bytes of a cube as Core Image takes them: Float32 RGBA, little-endian, red fastest.
    var bytes: [UInt8] { _Float32LE.bytes(entries.flatMap { [$0.x, $0.y, $0.z, $0.w] }) }

    /// Parses `bytes` as `dimension^3` little-endian Float32 RGBA entries.
    /// - Throws: the `PixelFlowError.invalidParameter` of `fail` for a wrong length or a
    ///   non-finite entry.
    init(dimension d: Int, bytes: [UInt8], fail: (String) -> PixelFlowError) throws {
        let expected = d * d * d * 16
        guard bytes.count == expected else {
            throw fail("must hold dimension^3 RGBA Float32 entries: \(expected) bytes for dimension \(d), got \(bytes.count)")
        }
        var e = [SIMD4<Float>](repeating: .zero, count: d * d * d)
        try bytes.withUnsafeBufferPointer { raw in
            for i in 0..<e.count {
                var v = SIMD4<Float>.zero
                for c in 0..<4 { v[c] = _Float32LE.value(raw, at: (i * 4 + c) * 4) }
                guard v.x.isFinite, v.y.isFinite, v.z.isFinite, v.w.isFinite else {
                    throw fail("entry \(i) is not finite: \(v)")
                }
                e[i] = v
            }
        }
        self.init(dimension: d, entries: e)
    }
}

/// Little-endian Float32 values in bytes, as Core Image's data inputs hold them.
enum _Float32LE {
    static func bytes(_ values: [Float]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 4)
        for v in values {
            let u = v.bitPattern
            for k in 0..<4 { out.append(UInt8(truncatingIfNeeded: u >> (8 * UInt32(k)))) }
        }
        return out
    }

    /// The value whose four bytes start at `offset`.
    static func value(_ bytes: UnsafeBufferPointer<UInt8>, at o: Int) -> Float {
        Float(bitPattern: UInt32(bytes[o]) | UInt32(bytes[o + 1]) << 8 | UInt32(bytes[o + 2]) << 16 | UInt32(bytes[o + 3]) << 24)
    }
}

extension FilterDescriptor {
    /// The color cube filter, registered in `builtIn`.
    static let colorCubeFilters: [FilterDescriptor] = [colorCube]

    /// The default cube: the 2x2x2 identity.
    static let identityCubeBytes = ColorCubeTable.identity(dimension: 2).bytes

    static let colorCube = FilterDescriptor(
        name: "CIColorCube", displayName: "Color Cube",
        summary: "Maps colors through a 3D lookup table (dimension^3 RGBA entries) with trilinear interpolation.",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .number(
                "inputCubeDimension", .count, default: 2, identity: 2, min: 2, max: 128,
                summary: "Entries along each axis of the cube."),
            FilterInput(
                key: "inputCubeData",
                summary:
                    "dimension^3 RGBA entries, little-endian Float32, premultiplied; red varies fastest, then green, then blue. The default 2x2x2 identity stands for the identity at any dimension.",
                attributeType: nil, valueClass: .data, defaultValue: .data(identityCubeBytes),
                identity: .data(identityCubeBytes)),
            .boolean(
                "inputExtrapolate", default: false,
                summary: "Continue the edge cells linearly for inputs outside 0...1, instead of clamping them."),
        ]
    ) { a in
        let d = Int(try a.number("inputCubeDimension"))
        let data = try a.data("inputCubeData")
        let extrapolate = try a.number("inputExtrapolate") != 0
        let image = try a.image()
        if data == identityCubeBytes {
            // The identity cube (the default data, at any dimension). Without extrapolation it
            // still clamps inputs to 0...1, as every cube does.
            if extrapolate { return image }
            return image.applyingColorKernel(
                ColorKernel(name: "clamp rgb 0...1") { p, n in
                    colorClampRow(p, count: n, lower: SIMD4(0, 0, 0, -.infinity), upper: SIMD4(1, 1, 1, .infinity))
                })
        }
        let cube = try ColorCubeTable(dimension: d, bytes: data) { a.fail("inputCubeData", $0) }
        return image.applyingColorKernel(
            ColorKernel(name: "colorCube", sharesByName: false) { p, n in
                colorCubeRow(p, count: n, cube: cube, extrapolate: extrapolate)
            })
    }
}

extension Image {
    /// Maps colors through a color cube (`CIColorCube`).
    ///
    /// ```swift
    /// let graded = try image.colorCube(dimension: 33, data: lutBytes)
    /// ```
    ///
    /// - Parameters:
    ///   - dimension: entries per axis, 2...128.
    ///   - data: `dimension^3` RGBA little-endian Float32 entries (premultiplied), red fastest.
    ///   - extrapolate: extend the edge cells linearly beyond 0...1 (default false: clamp).
    /// - Throws: `invalidParameter` naming `inputCubeDimension` (outside 2...128 or not whole)
    ///   or `inputCubeData` (wrong length, non-finite entries).
    /// - Complexity: 8 table reads and 7 four-lane lerps per pixel; the cube is parsed once
    ///   (16 * dimension^3 bytes).
    public func colorCube(dimension: Int, data: [UInt8], extrapolate: Bool? = nil) throws -> Image {
        try FilterDescriptor.colorCube.apply([
            "inputImage": .image(self), "inputCubeDimension": .number(Double(dimension)),
            "inputCubeData": .data(data), "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }
}
