import CCodecShims

extension ColorSpace {
    /// The color space an ICC profile describes.
    ///
    /// - Throws: `invalidParameter` when lcms2 cannot parse the bytes.
    public init(iccProfile bytes: [UInt8]) throws {
        var info = pf_lcms_profile_info()
        var desc = [CChar](repeating: 0, count: 256)
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let status = bytes.withUnsafeBufferPointer {
            pf_lcms_profile_inspect($0.baseAddress, $0.count, &info, &desc, desc.count, &message)
        }
        guard status == PF_OK else {
            throw PixelFlowError.invalidParameter(filter: "ColorSpace", key: "iccProfile", reason: _Codec.message(message))
        }
        let text = _Codec.message(desc)
        let model: Model
        switch Int(info.color_space) {
        case PF_LCMS_SPACE_RGB: model = .rgb
        case PF_LCMS_SPACE_GRAY: model = .gray
        case PF_LCMS_SPACE_CMYK: model = .cmyk
        default: model = .other
        }
        self.init(
            name: text == "unknown error" ? "unnamed ICC profile" : text, iccProfile: bytes, model: model,
            isSRGB: info.is_srgb != 0, chromaticities: nil, transferFunction: nil,
            isMatrixShaper: info.is_matrix_shaper != 0 || (model == .gray))
    }

    /// An RGB color space from its chromaticities and transfer function, with an ICC v4.3
    /// matrix/TRC profile with parametric curves made by lcms2.
    ///
    /// - Throws: `invalidParameter` for chromaticities that give no profile (collinear
    ///   primaries, a white point with y = 0) or a gamma that is not positive and finite.
    public init(name: String, chromaticities c: Chromaticities, transferFunction: TransferFunction) throws {
        let values = [c.whiteX, c.whiteY, c.redX, c.redY, c.greenX, c.greenY, c.blueX, c.blueY]
        guard values.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }), c.whiteY > 0 else {
            throw PixelFlowError.invalidParameter(
                filter: "ColorSpace", key: "chromaticities",
                reason: "must be CIE xy values in 0...1 with a white y above 0")
        }
        let (kind, gamma) = ColorSpace._shimTransfer(transferFunction)
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let w = [c.whiteX, c.whiteY], r = [c.redX, c.redY], g = [c.greenX, c.greenY], b = [c.blueX, c.blueY]
        let status = pf_lcms_make_rgb_profile(w, r, g, b, Int32(kind), gamma, name, &output, &size, &message)
        defer { pf_free(output) }
        guard status == PF_OK, let output else {
            throw PixelFlowError.invalidParameter(filter: "ColorSpace", key: "chromaticities", reason: _Codec.message(message))
        }
        self.init(
            name: name, iccProfile: Array(UnsafeBufferPointer(start: output, count: size)), model: .rgb,
            isSRGB: transferFunction == .sRGB && ColorSpace._close(c, ColorSpace.srgbChromaticities),
            chromaticities: c, transferFunction: transferFunction, isMatrixShaper: true)
    }

    /// A gray color space with a transfer function (white D50, as ICC gray profiles have).
    public init(grayName name: String, transferFunction: TransferFunction) throws {
        let (kind, gamma) = ColorSpace._shimTransfer(transferFunction)
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        let status = pf_lcms_make_gray_profile(Int32(kind), gamma, name, &output, &size, &message)
        defer { pf_free(output) }
        guard status == PF_OK, let output else {
            throw PixelFlowError.invalidParameter(filter: "ColorSpace", key: "transferFunction", reason: _Codec.message(message))
        }
        self.init(
            name: name, iccProfile: Array(UnsafeBufferPointer(start: output, count: size)), model: .gray,
            isSRGB: transferFunction == .sRGB, chromaticities: nil, transferFunction: transferFunction,
            isMatrixShaper: true)
    }

    static func _shimTransfer(_ t: TransferFunction) -> (Int, Double) {
        switch t {
        case .linear: return (PF_LCMS_TRANSFER_LINEAR, 1)
        case .sRGB: return (PF_LCMS_TRANSFER_SRGB, 1)
        case .gamma(let g): return (PF_LCMS_TRANSFER_GAMMA, g)
        case .bt709: return (PF_LCMS_TRANSFER_BT709, 1)
        }
    }

    static func _close(_ a: Chromaticities, _ b: Chromaticities) -> Bool {
        let x = [a.whiteX, a.whiteY, a.redX, a.redY, a.greenX, a.greenY, a.blueX, a.blueY]
        let y = [b.whiteX, b.whiteY, b.redX, b.redY, b.greenX, b.greenY, b.blueX, b.blueY]
        return zip(x, y).allSatisfy { abs($0 - $1) < 0.0005 }
    }

    // MARK: Built-in spaces

    /// Rec. 709 / sRGB primaries with the D65 white point (IEC 61966-2-1).
    public static let srgbChromaticities = Chromaticities(
        whiteX: 0.3127, whiteY: 0.3290, redX: 0.64, redY: 0.33,
        greenX: 0.30, greenY: 0.60, blueX: 0.15, blueY: 0.06)
    /// DCI-P3 primaries with the D65 white point (SMPTE EG 432-1), as Display P3 uses.
    public static let displayP3Chromaticities = Chromaticities(
        whiteX: 0.3127, whiteY: 0.3290, redX: 0.680, redY: 0.320,
        greenX: 0.265, greenY: 0.690, blueX: 0.150, blueY: 0.060)
    /// Adobe RGB (1998) primaries, D65.
    public static let adobeRGBChromaticities = Chromaticities(
        whiteX: 0.3127, whiteY: 0.3290, redX: 0.64, redY: 0.33,
        greenX: 0.21, greenY: 0.71, blueX: 0.15, blueY: 0.06)
    /// ITU-R BT.2020 primaries, D65.
    public static let rec2020Chromaticities = Chromaticities(
        whiteX: 0.3127, whiteY: 0.3290, redX: 0.708, redY: 0.292,
        greenX: 0.170, greenY: 0.797, blueX: 0.131, blueY: 0.046)

    /// sRGB (IEC 61966-2-1): what files without a profile are taken to be, and the default
    /// output color space (`kCGColorSpaceSRGB`).
    public static let sRGB = try! ColorSpace(name: "sRGB", chromaticities: srgbChromaticities, transferFunction: .sRGB)
    /// sRGB primaries with linear values: the default working space (`kCGColorSpaceLinearSRGB`;
    /// PixelFlow's float values are unbounded, as in `kCGColorSpaceExtendedLinearSRGB`).
    public static let linearSRGB = try! ColorSpace(
        name: "Linear sRGB", chromaticities: srgbChromaticities,
        transferFunction: .linear)
    /// Display P3: DCI-P3 primaries, D65 white, the sRGB curve; what current phones and
    /// cameras write (`kCGColorSpaceDisplayP3`).
    public static let displayP3 = try! ColorSpace(
        name: "Display P3", chromaticities: displayP3Chromaticities,
        transferFunction: .sRGB)
    /// Display P3 primaries with linear values (`kCGColorSpaceLinearDisplayP3`).
    public static let linearDisplayP3 = try! ColorSpace(
        name: "Linear Display P3", chromaticities: displayP3Chromaticities,
        transferFunction: .linear)
    /// Adobe RGB (1998): gamma 563/256 (`kCGColorSpaceAdobeRGB1998`).
    public static let adobeRGB = try! ColorSpace(
        name: "Adobe RGB (1998)", chromaticities: adobeRGBChromaticities,
        transferFunction: .gamma(563.0 / 256.0))
    /// ITU-R BT.2020 with its transfer function (`kCGColorSpaceITUR_2020`).
    public static let rec2020 = try! ColorSpace(
        name: "ITU-R BT.2020", chromaticities: rec2020Chromaticities,
        transferFunction: .bt709)
    /// BT.2020 primaries with linear values (`kCGColorSpaceLinearITUR_2020`).
    public static let linearRec2020 = try! ColorSpace(
        name: "Linear ITU-R BT.2020", chromaticities: rec2020Chromaticities,
        transferFunction: .linear)
    /// Gray with the sRGB curve: gray files without a profile (`kCGColorSpaceGenericGrayGamma2_2`
    /// is close; `kCGColorSpaceExtendedGray` uses this curve).
    public static let sRGBGray = try! ColorSpace(grayName: "Gray (sRGB curve)", transferFunction: .sRGB)

    /// The built-in spaces, each with its Core Image (CoreGraphics) name.
    public static let builtIn: [(name: String, space: ColorSpace)] = [
        ("kCGColorSpaceSRGB", .sRGB), ("kCGColorSpaceLinearSRGB", .linearSRGB),
        ("kCGColorSpaceExtendedLinearSRGB", .linearSRGB), ("kCGColorSpaceExtendedSRGB", .sRGB),
        ("kCGColorSpaceDisplayP3", .displayP3), ("kCGColorSpaceExtendedDisplayP3", .displayP3),
        ("kCGColorSpaceLinearDisplayP3", .linearDisplayP3), ("kCGColorSpaceExtendedLinearDisplayP3", .linearDisplayP3),
        ("kCGColorSpaceAdobeRGB1998", .adobeRGB), ("kCGColorSpaceITUR_2020", .rec2020),
        ("kCGColorSpaceLinearITUR_2020", .linearRec2020), ("kCGColorSpaceExtendedLinearITUR_2020", .linearRec2020),
        ("kCGColorSpaceExtendedGray", .sRGBGray),
    ]

    /// A built-in space by its Core Image name (`kCGColorSpaceDisplayP3`) or a short name
    /// (`srgb`, `linear-srgb`, `p3` / `display-p3`, `linear-p3`, `adobe-rgb`, `rec2020`,
    /// `linear-rec2020`), case-insensitively; `nil` for other names.
    public init?(named name: String) {
        let key = name.lowercased()
        if let hit = ColorSpace.builtIn.first(where: { $0.name.lowercased() == key }) {
            self = hit.space
            return
        }
        let short: [String: ColorSpace] = [
            "srgb": .sRGB, "linear-srgb": .linearSRGB, "linearsrgb": .linearSRGB, "p3": .displayP3,
            "display-p3": .displayP3, "displayp3": .displayP3, "linear-p3": .linearDisplayP3,
            "linear-display-p3": .linearDisplayP3, "adobe-rgb": .adobeRGB, "adobergb": .adobeRGB,
            "rec2020": .rec2020, "bt2020": .rec2020, "linear-rec2020": .linearRec2020, "gray": .sRGBGray,
        ]
        guard let space = short[key] else { return nil }
        self = space
    }
}
