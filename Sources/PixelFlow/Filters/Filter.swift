/// A named filter with settable inputs: Core Image's `CIFilter`, for code that looks filters
/// up by name and sets their inputs by key.
///
/// ```swift
/// let sepia = Filter(named: "CISepiaTone")!          // or "SepiaTone"
/// try sepia.setValue(photo, forKey: kCIInputImageKey)
/// try sepia.setValue(0.8, forKey: "inputIntensity")
/// let result = try sepia.outputImage()               // or `sepia.outputImage`, nil on error
/// ```
///
/// Everything a filter knows comes from its `FilterDescriptor`: input keys, attributes,
/// defaults and validation. `setValue(_:forKey:)` checks each value when it is set (class,
/// NaN, range), and `outputImage()` checks the whole set again (a missing image, values the
/// filter itself rejects) before building the output. Typed methods on `Image`
/// (`image.sepiaTone(intensity:)`) do the same in one call and are the better choice when
/// the filter is known at compile time.
///
/// Like `CIFilter`, a `Filter` is a mutable object and is **not** `Sendable`: configure it
/// on one thread. Its output `Image` is immutable and `Sendable`, so render that anywhere,
/// or use `copy()` to give another thread a filter of its own.
public final class Filter: CustomStringConvertible {
    /// The filter's descriptor, the source of all its metadata.
    public let descriptor: FilterDescriptor
    /// The values set so far, by key, already validated (and converted to the input's class).
    private var values: [String: FilterValue] = [:]
    /// The convention the position and rectangle inputs are written in (default `.topLeft`);
    /// under `.coreImage`, `outputImage()` reads them, and the defaults, as Core Image's
    /// (see `FilterDescriptor.apply(_:coordinates:imageHeight:)`). Values are stored as set.
    public var coordinates: CoordinateConvention = .topLeft
    /// The height of the image the positions refer to under `.coreImage`; nil takes the
    /// `inputImage`'s extent `maxY`. Generators (no `inputImage`) need it.
    public var imageHeight: Double?

    /// The filter called `name`, Core Image's name (`CISepiaTone`) or the same without its
    /// `CI` prefix (`SepiaTone`), with its inputs set to their defaults; nil for a name the
    /// registry does not know.
    public convenience init?(named name: String) {
        guard let d = FilterRegistry.descriptor(named: name) else { return nil }
        self.init(descriptor: d)
    }

    /// A filter for `descriptor` with its inputs set to their defaults.
    public init(descriptor: FilterDescriptor) {
        self.descriptor = descriptor
        setDefaults()
    }

    /// Core Image's name of the filter, such as `CISepiaTone`.
    public var name: String { descriptor.name }

    /// The input keys, in declaration order (`inputImage` first where there is one).
    public var inputKeys: [String] { descriptor.inputKeys }

    /// The output keys: `["outputImage"]`.
    public var outputKeys: [String] { [kCIOutputImageKey] }

    /// The attribute dictionary, shaped like `CIFilter.attributes`: `CIAttributeFilterName`,
    /// `CIAttributeFilterDisplayName`, `CIAttributeDescription`, `CIAttributeFilterCategories`
    /// and, per input key, a dictionary of `CIAttributeType`, `CIAttributeClass`,
    /// `CIAttributeDefault`, `CIAttributeIdentity`, `CIAttributeMin`, `CIAttributeMax`,
    /// `CIAttributeSliderMin`, `CIAttributeSliderMax`, `CIAttributeDisplayName` and
    /// `CIAttributeDescription` (see `FilterAttributeKey`).
    public var attributes: [String: FilterAttributeValue] { descriptor.attributes }

    /// Sets every input that has a default to it and clears the others (the image inputs).
    public func setDefaults() {
        values = [:]
        for input in descriptor.inputs {
            if let d = input.defaultValue { values[input.key] = d }
        }
    }

    /// Sets the input `key` to `value`, or clears it when `value` is nil (a cleared input takes
    /// its default when the output is built; a cleared image input is missing).
    ///
    /// The value is converted where Core Image would convert it (a 3- or 4-vector given for a
    /// color, a 6-vector for a transform, a boolean for a number), and the converted value is
    /// what `value(forKey:)` returns.
    ///
    /// - Throws: `PixelFlowError.invalidParameter` naming the key when the filter has no such
    ///   input, or the value is of the wrong class, NaN or infinite, outside the input's
    ///   min...max, or has the wrong number of components. The input keeps its old value.
    public func setValue(_ value: FilterValue?, forKey key: String) throws {
        guard let input = descriptor.input(key) else {
            throw PixelFlowError.invalidParameter(
                filter: name, key: key,
                reason: "is not an input of \(name); its inputs are \(inputKeys.joined(separator: ", "))")
        }
        guard let value else {
            values[key] = nil
            return
        }
        values[key] = try descriptor.validate(value, for: input)
    }

    /// The value of the input `key`: the one set, else its default after `init` or
    /// `setDefaults()`; nil for an unknown key or a cleared input.
    public func value(forKey key: String) -> FilterValue? { values[key] }

    // MARK: Typed setters

    /// Sets a number input. - Throws: as `setValue(_:forKey:)` (`FilterValue?` overload).
    public func setValue(_ value: Double, forKey key: String) throws { try setValue(.number(value), forKey: key) }
    /// Sets an image input. - Throws: as `setValue(_:forKey:)` (`FilterValue?` overload).
    public func setValue(_ value: Image, forKey key: String) throws { try setValue(.image(value), forKey: key) }
    /// Sets a color input. - Throws: as `setValue(_:forKey:)` (`FilterValue?` overload).
    public func setValue(_ value: Color, forKey key: String) throws { try setValue(.color(value), forKey: key) }
    /// Sets a transform input. - Throws: as `setValue(_:forKey:)` (`FilterValue?` overload).
    public func setValue(_ value: AffineTransform, forKey key: String) throws { try setValue(.transform(value), forKey: key) }
    /// Sets a vector input (or a color or transform given as components).
    /// - Throws: as `setValue(_:forKey:)` (`FilterValue?` overload).
    public func setValue(_ value: [Double], forKey key: String) throws { try setValue(.vector(value), forKey: key) }
    /// Sets a string input (or a data input, as its UTF-8 bytes).
    /// - Throws: as `setValue(_:forKey:)` (`FilterValue?` overload).
    public func setValue(_ value: String, forKey key: String) throws { try setValue(.string(value), forKey: key) }
    /// Sets a boolean input (stored as 0 or 1 for number inputs).
    /// - Throws: as `setValue(_:forKey:)` (`FilterValue?` overload).
    public func setValue(_ value: Bool, forKey key: String) throws { try setValue(.boolean(value), forKey: key) }

    // MARK: Output

    /// Builds the filter's output from the inputs set: a recipe, computed when a
    /// `RenderContext` renders it. Unset inputs take their defaults.
    ///
    /// (The unused `Void` parameter lets this method share its name with the `outputImage`
    /// property; call it as `try filter.outputImage()`.)
    ///
    /// - Throws: `PixelFlowError.invalidParameter` naming the key for a missing image input or
    ///   a value the filter rejects (a wrong class, NaN, out of range, or a combination the
    ///   filter cannot build, such as a zero scale); other `PixelFlowError`s the filter's
    ///   builder throws (an infinite extent where a finite one is needed).
    public func outputImage(_: Void = ()) throws -> Image {
        try descriptor.apply(values.mapValues { Optional($0) }, coordinates: coordinates, imageHeight: imageHeight)
    }

    /// The filter's output, or nil when it cannot be built (a missing image or a rejected
    /// value), as `CIFilter.outputImage` behaves. `outputImage()` says why.
    public var outputImage: Image? { try? outputImage() }

    /// A new filter with the same descriptor and values, to configure or hand to another thread.
    public func copy() -> Filter {
        let f = Filter(descriptor: descriptor)
        f.values = values
        f.coordinates = coordinates
        f.imageHeight = imageHeight
        return f
    }

    public var description: String {
        let set = inputKeys.compactMap { k in values[k].map { "\(k)=\($0)" } }
        return "Filter(\(([name] + set).joined(separator: " ")))"
    }

    // MARK: The catalog

    /// Names of the filters in every one of `categories` (their intersection), sorted; every
    /// filter's name when `categories` is empty. Core Image's `filterNames(inCategories:)`;
    /// `FilterCategory(named:)` reads a category from its Core Image name (`CICategoryBlur`).
    public static func filterNames(inCategories categories: [FilterCategory] = []) -> [String] {
        FilterRegistry.filterNames(inCategories: categories)
    }

    /// The display name of the filter called `name` (`CISepiaTone` -> `Sepia Tone`); nil for a
    /// name the registry does not know.
    public static func localizedName(forFilterName name: String) -> String? {
        FilterRegistry.descriptor(named: name)?.displayName
    }
}

/// A `Filter` is mutable and must stay on one thread at a time, like `CIFilter`.
@available(*, unavailable, message: "Filter is mutable; use copy() to give another task its own, or pass its outputImage")
extension Filter: Sendable {}
