extension Image {
    /// The named filter applied to this image, which becomes its `inputImage`: Core Image's
    /// `applyingFilter(_:parameters:)` (`imageByApplyingFilter:withInputParameters:`).
    ///
    /// Names and keys are Core Image's, with or without their prefixes, as on the command
    /// line: `"CISepiaTone"` or `"SepiaTone"`, `"inputIntensity"` or `"intensity"` (see
    /// `FilterRegistry.descriptor(named:)` and `FilterDescriptor.input(matching:)`). Inputs not
    /// given take their defaults. Values are any `FilterValueConvertible`: numbers, booleans,
    /// strings, `Image`, `Color`, `AffineTransform`, `Point` and `Rect` (vectors) or arrays of
    /// numbers.
    ///
    /// Core Image:
    /// ```swift
    /// let sepia = image.applyingFilter("CISepiaTone", parameters: [kCIInputIntensityKey: 0.8])
    /// let blend = image.applyingFilter("CISourceOverCompositing",
    ///                                  parameters: [kCIInputBackgroundImageKey: background])
    /// ```
    /// PixelFlow:
    /// ```swift
    /// let sepia = try image.applyingFilter("CISepiaTone", parameters: ["inputIntensity": 0.8])
    /// let blend = try image.applyingFilter("SourceOverCompositing", parameters: ["backgroundImage": background])
    /// ```
    ///
    /// Positions and rects are in PixelFlow's coordinates (origin at the top-left, y down)
    /// unless `coordinates` is `.coreImage`: then they are Core Image's (origin at the
    /// bottom-left, y up) for an image as high as this one's extent `maxY`, defaults included
    /// (see `FilterDescriptor.apply(_:coordinates:imageHeight:)`):
    ///
    /// ```swift
    /// // Core Image: image.applyingFilter("CIVignetteEffect", parameters: [kCIInputCenterKey: CIVector(x: 100, y: 60)])
    /// let v = try image.applyingFilter("CIVignetteEffect", parameters: ["inputCenter": [100, 60]], coordinates: .coreImage)
    /// ```
    ///
    /// - Parameters:
    ///   - name: the filter's name, with or without `CI`.
    ///   - parameters: input values by key, with or without `input`; not `inputImage`, which
    ///     is `self`.
    ///   - coordinates: the convention of the position and rectangle inputs (default
    ///     `.topLeft`).
    /// - Returns: the filter's output, a recipe like every `Image`.
    /// - Throws: the errors of `FilterRegistry.apply(_:_:)`: `PixelFlowError.unknownFilter`
    ///   for a name the registry does not know; `.invalidParameter` naming the key for a key
    ///   the filter does not have, a value of the wrong class, a NaN or infinite number or one
    ///   outside the input's minimum and maximum. Also `.invalidParameter` for a filter with no
    ///   `inputImage` (a generator: build it with `FilterRegistry.apply` or `Filter(named:)`),
    ///   for `inputImage` among the parameters, and for one input given under two spellings;
    ///   under `.coreImage`, for an image whose extent is infinite when the filter has
    ///   position or rectangle inputs.
    /// - Complexity: O(parameters); nothing is rendered.
    public func applyingFilter(
        _ name: String, parameters: [String: any FilterValueConvertible] = [:], coordinates: CoordinateConvention = .topLeft
    ) throws -> Image {
        guard let descriptor = FilterRegistry.descriptor(named: name) else { throw PixelFlowError.unknownFilter(name) }
        func fail(_ key: String, _ reason: String) -> PixelFlowError {
            .invalidParameter(filter: descriptor.name, key: key, reason: reason)
        }
        guard descriptor.input(kCIInputImageKey) != nil else {
            throw fail(
                kCIInputImageKey,
                "is not an input of \(descriptor.name), which makes an image of its own; "
                    + "build it with FilterRegistry.apply(\"\(descriptor.name)\", [...]) or Filter(named:)")
        }
        var values: [String: FilterValue?] = [kCIInputImageKey: .image(self)]
        var spelling: [String: String] = [:]
        // Sorted, so that of several bad keys the same one is reported every time.
        for (key, value) in parameters.sorted(by: { $0.key < $1.key }) {
            // A key that names no input is passed on as it is, for the registry's error.
            let resolved = descriptor.input(matching: key)?.key ?? key
            if resolved == kCIInputImageKey {
                throw fail(key, "is the image applyingFilter is called on and cannot be given among the parameters")
            }
            if let first = spelling[resolved] {
                throw fail(resolved, "is given twice, as '\(first)' and as '\(key)'")
            }
            spelling[resolved] = key
            values[resolved] = value.filterValue
        }
        return try descriptor.apply(values, coordinates: coordinates)
    }
}
