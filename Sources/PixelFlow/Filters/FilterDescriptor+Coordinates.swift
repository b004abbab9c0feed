// Filter inputs given in Core Image's coordinates (`CoordinateConvention.coreImage`).

extension FilterDescriptor {
    /// The inputs whose values are places in the image, which a coordinate convention
    /// changes: positions (`CIAttributeTypePosition`), 3-D positions and rectangles. Offsets,
    /// distances, angles and transforms are not places and are never converted.
    var placeInputs: [FilterInput] {
        inputs.filter { [.position, .position3, .rectangle].contains($0.attributeType) }
    }

    /// Builds the filter's output from `values` whose positions and rectangles are in
    /// `coordinates` (see ``CoordinateConvention``); `apply(_:)` for `.topLeft`.
    ///
    /// Under `.coreImage` every input that is a place in the image (a position such as
    /// `inputCenter`, a 3-D position such as `inputLightPosition`, whose z is unchanged, or a
    /// rectangle such as `inputRectangle` and `inputExtent`) is converted to top-left
    /// coordinates before validation, the given ones and the defaults alike (Core Image's
    /// default `inputCenter` of (150, 150) is 150 pixels above the image's bottom edge), with
    /// `y -> H - y` for points and `(x, y, w, h) -> (x, H - y - h, w, h)` for rectangles.
    ///
    /// - Parameters:
    ///   - values: input values by key, as for `apply(_:)`.
    ///   - coordinates: the convention the place inputs are written in.
    ///   - imageHeight: `H`, the height of the image the places refer to; nil takes the
    ///     `inputImage`'s extent `maxY` (its height when the extent starts at y = 0).
    /// - Throws: the errors of `apply(_:)`; `PixelFlowError.invalidParameter` under
    ///   `.coreImage` when the filter has place inputs but neither `imageHeight` nor an
    ///   `inputImage` with a finite extent (a generator: pass `imageHeight`), or when
    ///   `imageHeight` is not finite.
    public func apply(
        _ values: [String: FilterValue?], coordinates: CoordinateConvention, imageHeight: Double? = nil
    ) throws -> Image {
        guard coordinates == .coreImage, !placeInputs.isEmpty else { return try apply(values) }
        let height = try referenceHeight(values, imageHeight: imageHeight)
        var converted = values
        for input in placeInputs {
            let given: FilterValue? = values[input.key] ?? nil
            guard case let .vector(v)? = given ?? input.defaultValue else { continue }
            switch (input.attributeType, v.count) {
            case (.position, 2), (.position3, 3):
                var p = v
                p[1] = height - v[1]
                converted[input.key] = .vector(p)
            case (.rectangle, 4):
                converted[input.key] = .vector([v[0], height - v[1] - v[3], v[2], v[3]])
            default:
                break  // a wrong component count: validation reports it
            }
        }
        return try apply(converted)
    }

    /// `imageHeight`, or the extent `maxY` of the `inputImage` in `values`.
    func referenceHeight(_ values: [String: FilterValue?], imageHeight: Double?) throws -> Double {
        let key = placeInputs.first?.key ?? kCIInputImageKey
        if let imageHeight {
            guard imageHeight.isFinite else {
                throw PixelFlowError.invalidParameter(
                    filter: name, key: "imageHeight", reason: "must be finite, got \(imageHeight)")
            }
            return imageHeight
        }
        if case let .image(image)?? = values[kCIInputImageKey] {
            let maxY = image.extent.maxY
            guard maxY.isFinite else {
                throw PixelFlowError.invalidParameter(
                    filter: name, key: key,
                    reason:
                        "is in Core Image coordinates, which are measured from the image's bottom edge, but "
                        + "inputImage's extent is infinite: pass imageHeight")
            }
            return maxY
        }
        throw PixelFlowError.invalidParameter(
            filter: name, key: key,
            reason:
                "is in Core Image coordinates, which are measured from the bottom edge of an image, and "
                + "\(name) has no inputImage to take its height from: pass imageHeight (the height of the image "
                + "the output is used with)")
    }
}

extension FilterRegistry {
    /// `apply(_:_:)` with positions and rectangles in `coordinates`: the filter's
    /// `FilterDescriptor.apply(_:coordinates:imageHeight:)`.
    ///
    /// ```swift
    /// // Core Image: CIFilter(name: "CIRadialGradient", parameters: ["inputCenter": CIVector(x: 100, y: 60)])
    /// let glow = try FilterRegistry.apply(
    ///     "CIRadialGradient", ["inputCenter": .vector([100, 60])], coordinates: .coreImage, imageHeight: 240)
    /// ```
    ///
    /// - Throws: `PixelFlowError.unknownFilter` for an unknown name, and the errors of
    ///   `FilterDescriptor.apply(_:coordinates:imageHeight:)`.
    public static func apply(
        _ name: String, _ values: [String: FilterValue?], coordinates: CoordinateConvention, imageHeight: Double? = nil
    ) throws -> Image {
        guard let d = descriptor(named: name) else { throw PixelFlowError.unknownFilter(name) }
        return try d.apply(values, coordinates: coordinates, imageHeight: imageHeight)
    }
}
