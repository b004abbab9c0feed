// The color lookups that name a color space (CIColorCubeWithColorSpace,
// CIColorCubesMixedWithMask, CIColorCurves): the table is applied to the values of the named
// space, so each pixel goes from the working space into it and back. Kernels: `colorCubeRow`,
// `colorCurvesRow` (Kernels/ColorEffectKernels.swift), `colorMatrixRow` and the transfer
// functions below.

import Foundation

/// The way from the linear sRGB working space into a matrix-shaper space's encoded values
/// and back: a 3x3 matrix on linear values, then the space's transfer function (odd-symmetric,
/// so values outside 0...1 survive the round trip).
struct _SpaceConversion: Sendable {
    let toSpace: ColorMatrix
    let fromSpace: ColorMatrix
    let transfer: ColorSpace.TransferFunction

    /// Nil for a space without chromaticities and a transfer function (a gray, CMYK or
    /// table-based ICC profile).
    init?(_ space: ColorSpace) {
        guard let transfer = space.transferFunction,
            let to = ColorSpace._linearMatrix(from: .linearSRGB, to: space),
            let from = ColorSpace._linearMatrix(from: space, to: .linearSRGB)
        else { return nil }
        func matrix(_ m: [Double]) -> ColorMatrix {
            ColorMatrix(
                rows: SIMD4(Float(m[0]), Float(m[1]), Float(m[2]), 0), SIMD4(Float(m[3]), Float(m[4]), Float(m[5]), 0),
                SIMD4(Float(m[6]), Float(m[7]), Float(m[8]), 0), SIMD4(0, 0, 0, 1))
        }
        toSpace = matrix(to)
        fromSpace = matrix(from)
        self.transfer = transfer
    }

    /// Linear sRGB (straight RGBA) to the space's encoded values, alpha unchanged.
    func encode(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        colorMatrixRow(p, count: count, matrix: toSpace)
        switch transfer {
        case .linear: break
        case .sRGB: linearToSRGBRow(p, count: count)
        case .gamma(let g): Self.power(p, count: count, Float(1 / g))
        case .bt709: Self.bt709(p, count: count, encode: true)
        }
    }

    /// The inverse of `encode`.
    func decode(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int) {
        switch transfer {
        case .linear: break
        case .sRGB: sRGBToLinearRow(p, count: count)
        case .gamma(let g): Self.power(p, count: count, Float(g))
        case .bt709: Self.bt709(p, count: count, encode: false)
        }
        colorMatrixRow(p, count: count, matrix: fromSpace)
    }

    /// `sign(v) * |v|^e` on red, green and blue.
    static func power(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, _ e: Float) {
        for i in 0..<count {
            for c in 0..<3 {
                let v = p[i][c]
                let a = powf(abs(v), e)
                p[i][c] = v < 0 ? -a : a
            }
        }
    }

    /// ITU-R BT.709's curve (`encode`: linear to encoded), odd-symmetric.
    static func bt709(_ p: UnsafeMutablePointer<SIMD4<Float>>, count: Int, encode: Bool) {
        for i in 0..<count {
            for c in 0..<3 {
                let v = p[i][c], a = abs(v)
                let r: Float
                if encode {
                    r = a < 0.018 ? 4.5 * a : 1.099 * powf(a, 0.45) - 0.099
                } else {
                    r = a < 0.081 ? a / 4.5 : powf((a + 0.099) / 1.099, 1 / 0.45)
                }
                p[i][c] = v < 0 ? -r : r
            }
        }
    }
}

extension FilterDescriptor {
    /// The filters declared in this file, registered in `builtIn`.
    static let colorSpaceLookupFilters: [FilterDescriptor] = [colorCubeWithColorSpace, colorCubesMixedWithMask, colorCurves]

    /// The `inputColorSpace` input: a color space by name (a `ColorSpace(named:)` name).
    static func _colorSpaceInput(_ what: String) -> FilterInput {
        FilterInput(
            key: "inputColorSpace",
            summary:
                "The color space whose encoded values \(what) applies to, by name (kCGColorSpaceSRGB, kCGColorSpaceDisplayP3, linear-srgb, ...; see ColorSpace(named:)); an empty string applies it to the working-space values. Core Image takes a CGColorSpace; its default could not be confirmed, PixelFlow's is sRGB.",
            attributeType: nil, valueClass: .string, defaultValue: .string("kCGColorSpaceSRGB"))
    }

    /// The conversion of `inputColorSpace`: nil for the working space (an empty name).
    static func _colorSpaceConversion(_ a: FilterArguments) throws -> _SpaceConversion? {
        let name = try a.string("inputColorSpace")
        if name.isEmpty { return nil }
        guard let space = ColorSpace(named: name) else {
            throw a.fail("inputColorSpace", "unknown color space \"\(name)\"; use a ColorSpace(named:) name or \"\"")
        }
        guard let conversion = _SpaceConversion(space) else {
            throw a.fail("inputColorSpace", "\(name) is not an RGB space with primaries and a transfer curve")
        }
        return conversion
    }

    /// A color kernel running `body` on the values of `conversion`'s space: from the working
    /// space into it when the working space is linear (with `colorManagement: .none` the
    /// stored values are used as they are), then back.
    static func _inSpace(
        _ image: Image, name: String, _ conversion: _SpaceConversion?,
        _ body: @escaping @Sendable (UnsafeMutablePointer<SIMD4<Float>>, Int) -> Void
    ) -> Image {
        guard let conversion else {
            return image.applyingColorKernel(ColorKernel(name: name, sharesByName: false) { p, n in body(p, n) })
        }
        return image.applyingColorKernel(
            .dependingOnWorkingSpace(name: name, sharesByName: false) { linear in
                { p, n in
                    if linear { conversion.encode(p, count: n) }
                    body(p, n)
                    if linear { conversion.decode(p, count: n) }
                }
            })
    }

    static let colorCubeWithColorSpace = FilterDescriptor(
        name: "CIColorCubeWithColorSpace", displayName: "Color Cube with ColorSpace",
        summary:
            "Maps colors through a 3D lookup table (dimension^3 RGBA entries, trilinear) applied to the values of a named color space.",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .number(
                "inputCubeDimension", .count, default: 2, min: 2, max: 128,
                summary: "Entries along each axis of the cube."),
            FilterInput(
                key: "inputCubeData",
                summary:
                    "dimension^3 RGBA entries, little-endian Float32, premultiplied; red varies fastest, then green, then blue. The default 2x2x2 identity stands for the identity at any dimension.",
                attributeType: nil, valueClass: .data, defaultValue: .data(identityCubeBytes)),
            .boolean(
                "inputExtrapolate", default: false,
                summary: "Continue the edge cells linearly for inputs outside 0...1, instead of clamping them."),
            _colorSpaceInput("the cube"),
        ]
    ) { a in
        let d = Int(try a.number("inputCubeDimension"))
        let cube = try ColorCubeTable(dimension: d, cubeBytes: try a.data("inputCubeData")) { a.fail("inputCubeData", $0) }
        let extrapolate = try a.number("inputExtrapolate") != 0
        let conversion = try _colorSpaceConversion(a)
        return _inSpace(try a.image(), name: "colorCube in space", conversion) { p, n in
            colorCubeRow(p, count: n, cube: cube, extrapolate: extrapolate)
        }
    }

    static let colorCubesMixedWithMask = FilterDescriptor(
        name: "CIColorCubesMixedWithMask", displayName: "Color Cubes Mixed With Mask",
        summary:
            "Maps colors through two 3D lookup tables and mixes the results by a mask's luma: the first cube where the mask is black, the second where it is white.",
        categories: [.colorEffect, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            .image("inputMaskImage", summary: "The mask: its Rec. 709 luma (clamped to 0...1) weighs cube 1 against cube 0."),
            .number(
                "inputCubeDimension", .count, default: 2, min: 2, max: 128,
                summary: "Entries along each axis of both cubes."),
            FilterInput(
                key: "inputCube0Data",
                summary:
                    "The cube used where the mask is 0: dimension^3 RGBA little-endian Float32 entries, red fastest; the default 2x2x2 identity stands for the identity at any dimension.",
                attributeType: nil, valueClass: .data, defaultValue: .data(identityCubeBytes)),
            FilterInput(
                key: "inputCube1Data",
                summary: "The cube used where the mask is 1, laid out as inputCube0Data.",
                attributeType: nil, valueClass: .data, defaultValue: .data(identityCubeBytes)),
            .boolean(
                "inputExtrapolate", default: false,
                summary: "Continue the edge cells linearly for inputs outside 0...1, instead of clamping them."),
            _colorSpaceInput("the cubes"),
        ]
    ) { a in
        let d = Int(try a.number("inputCubeDimension"))
        let cube0 = try ColorCubeTable(dimension: d, cubeBytes: try a.data("inputCube0Data")) { a.fail("inputCube0Data", $0) }
        let cube1 = try ColorCubeTable(dimension: d, cubeBytes: try a.data("inputCube1Data")) { a.fail("inputCube1Data", $0) }
        let extrapolate = try a.number("inputExtrapolate") != 0
        let conversion = try _colorSpaceConversion(a)
        let image = try a.image(), mask = try a.image("inputMaskImage")
        let first = _inSpace(image, name: "colorCube 0 in space", conversion) { p, n in
            colorCubeRow(p, count: n, cube: cube0, extrapolate: extrapolate)
        }
        let second = _inSpace(image, name: "colorCube 1 in space", conversion) { p, n in
            colorCubeRow(p, count: n, cube: cube1, extrapolate: extrapolate)
        }
        return second._blended(background: first, mask: mask, channel: .luma)
    }

    /// The identity curves: three RGB entries 0, 0.5 and 1.
    static let identityCurvesBytes: [UInt8] = ColorCurvesTable(entries: [.zero, SIMD3(repeating: 0.5), SIMD3(repeating: 1)]).bytes

    static let colorCurves = FilterDescriptor(
        name: "CIColorCurves", displayName: "Color Curves",
        summary:
            "Maps red, green and blue each through its own curve, a table of evenly spaced samples over a domain, interpolated linearly, in a named color space.",
        categories: [.colorAdjustment, .interlaced, .nonSquarePixels],
        inputs: [
            .image(),
            FilterInput(
                key: "inputCurvesData",
                summary:
                    "The curves: RGB triples of little-endian Float32, entry i the outputs for input domain.x + i / (count - 1) * (domain.y - domain.x); at least one entry.",
                attributeType: nil, valueClass: .data, defaultValue: .data(identityCurvesBytes),
                identity: .data(identityCurvesBytes)),
            .vector(
                "inputCurvesDomain", default: [0, 1], identity: [0, 1],
                summary: "The inputs of the first and last entries; inputs beyond take the end entries."),
            _colorSpaceInput("the curves"),
        ]
    ) { a in
        let curves = try ColorCurvesTable(bytes: try a.data("inputCurvesData")) { a.fail("inputCurvesData", $0) }
        let domain = try a.vector("inputCurvesDomain")
        guard domain[0] != domain[1] else { throw a.fail("inputCurvesDomain", "its two ends must differ, got \(domain)") }
        let conversion = try _colorSpaceConversion(a)
        let lower = Float(domain[0]), upper = Float(domain[1])
        return _inSpace(try a.image(), name: "colorCurves in space", conversion) { p, n in
            colorCurvesRow(p, count: n, curves: curves, lower: lower, upper: upper)
        }
    }
}

extension ColorCubeTable {
    /// The cube of a filter's data input: the default (the 2x2x2 identity's bytes) stands for
    /// the identity at any dimension, as in `CIColorCube`; other bytes must match `dimension`.
    init(dimension d: Int, cubeBytes bytes: [UInt8], fail: (String) -> PixelFlowError) throws {
        if bytes == FilterDescriptor.identityCubeBytes {
            self = .identity(dimension: 2)
        } else {
            try self.init(dimension: d, bytes: bytes, fail: fail)
        }
    }
}

extension ColorCurvesTable {
    /// The bytes of the curves as Core Image takes them: RGB Float32 triples, little-endian.
    var bytes: [UInt8] { _Float32LE.bytes(entries.flatMap { [$0.x, $0.y, $0.z] }) }

    /// At most this many entries (a 16-bit table has 65536).
    static let maximumCount = 1 << 16

    /// Parses `bytes` as little-endian Float32 RGB triples.
    /// - Throws: the error of `fail` for a length that is not a positive multiple of 12, more
    ///   than `maximumCount` entries, or a non-finite value.
    init(bytes: [UInt8], fail: (String) -> PixelFlowError) throws {
        guard !bytes.isEmpty, bytes.count % 12 == 0 else {
            throw fail("must hold RGB Float32 triples (a positive multiple of 12 bytes), got \(bytes.count) bytes")
        }
        let count = bytes.count / 12
        guard count <= Self.maximumCount else { throw fail("has \(count) entries; at most \(Self.maximumCount)") }
        var e = [SIMD3<Float>](repeating: .zero, count: count)
        try bytes.withUnsafeBufferPointer { raw in
            for i in 0..<count {
                for c in 0..<3 {
                    let v = _Float32LE.value(raw, at: (i * 3 + c) * 4)
                    guard v.isFinite else { throw fail("entry \(i) is not finite") }
                    e[i][c] = v
                }
            }
        }
        self.init(entries: e)
    }
}

extension Image {
    /// Maps colors through a color cube applied to the values of `colorSpace`
    /// (`CIColorCubeWithColorSpace`).
    ///
    /// ```swift
    /// let graded = try image.colorCube(dimension: 33, data: lutBytes, colorSpace: "kCGColorSpaceSRGB")
    /// ```
    ///
    /// - Parameters:
    ///   - dimension: entries per axis, 2...128.
    ///   - data: `dimension^3` RGBA little-endian Float32 entries (premultiplied), red fastest.
    ///   - colorSpace: a `ColorSpace(named:)` name of an RGB space with primaries and a transfer
    ///     curve; `""` applies the cube to the working-space values (as `colorCube`).
    ///   - extrapolate: extend the edge cells linearly beyond 0...1 (default false: clamp).
    /// - Throws: `invalidParameter` naming the input at fault.
    public func colorCube(dimension: Int, data: [UInt8], colorSpace: String, extrapolate: Bool? = nil) throws -> Image {
        try FilterDescriptor.colorCubeWithColorSpace.apply([
            "inputImage": .image(self), "inputCubeDimension": .number(Double(dimension)),
            "inputCubeData": .data(data), "inputColorSpace": .string(colorSpace),
            "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }

    /// Maps colors through two color cubes and mixes them by `mask`'s luma
    /// (`CIColorCubesMixedWithMask`): `cube0` where the mask is black, `cube1` where it is white.
    ///
    /// - Parameters:
    ///   - mask: the mixing mask; outside its extent the weight is 0 (`cube0`).
    ///   - dimension: entries per axis of both cubes, 2...128.
    ///   - cube0: the cube for mask 0, laid out as in `colorCube(dimension:data:extrapolate:)`.
    ///   - cube1: the cube for mask 1.
    ///   - colorSpace: as in `colorCube(dimension:data:colorSpace:extrapolate:)`; nil takes sRGB.
    ///   - extrapolate: extend the edge cells linearly beyond 0...1 (default false: clamp).
    /// - Throws: `invalidParameter` naming the input at fault.
    public func colorCubesMixed(
        mask: Image, dimension: Int, cube0: [UInt8], cube1: [UInt8], colorSpace: String? = nil,
        extrapolate: Bool? = nil
    ) throws -> Image {
        try FilterDescriptor.colorCubesMixedWithMask.apply([
            "inputImage": .image(self), "inputMaskImage": .image(mask),
            "inputCubeDimension": .number(Double(dimension)), "inputCube0Data": .data(cube0),
            "inputCube1Data": .data(cube1), "inputColorSpace": colorSpace.map(FilterValue.string),
            "inputExtrapolate": extrapolate.map(FilterValue.boolean),
        ])
    }

    /// Maps red, green and blue through their curves (`CIColorCurves`): entry `i` of `curves`
    /// holds the outputs for the input `domain.lower + i / (count - 1) * (domain.upper -
    /// domain.lower)`, linear between entries, the end entries beyond the domain.
    ///
    /// ```swift
    /// // Lift the shadows of every channel, in sRGB values.
    /// let lifted = try image.colorCurves([SIMD3(0.1, 0.1, 0.1), SIMD3(0.55, 0.55, 0.55), SIMD3(1, 1, 1)])
    /// ```
    ///
    /// - Parameters:
    ///   - curves: at least one RGB entry (at most 65536).
    ///   - domain: the inputs of the first and last entries (default 0...1); they must differ.
    ///   - colorSpace: as in `colorCube(dimension:data:colorSpace:extrapolate:)`; nil takes sRGB.
    /// - Throws: `invalidParameter` naming the input at fault.
    public func colorCurves(
        _ curves: [SIMD3<Float>], domain: (lower: Double, upper: Double)? = nil, colorSpace: String? = nil
    ) throws -> Image {
        try FilterDescriptor.colorCurves.apply([
            "inputImage": .image(self), "inputCurvesData": .data(ColorCurvesTable(entries: curves).bytes),
            "inputCurvesDomain": domain.map { .vector([$0.lower, $0.upper]) },
            "inputColorSpace": colorSpace.map(FilterValue.string),
        ])
    }
}
