/// One input of a filter, described once: key, meaning, class, default, identity and ranges.
/// Validation, attribute dictionaries, documentation and the command line all read it.
public struct FilterInput: Sendable {
    /// Core Image's key, such as `inputIntensity`.
    public var key: String
    /// The name a user interface shows, such as `Intensity`.
    public var displayName: String
    /// One line saying what the input does, with its unit.
    public var summary: String
    /// What the value means; nil for plain vectors (CIColorMatrix's row vectors).
    public var attributeType: FilterAttributeType?
    /// The class of value the input takes; other classes throw.
    public var valueClass: FilterValueClass
    /// The value used when none is given; nil for required inputs (such as `inputImage`).
    public var defaultValue: FilterValue?
    /// The value for which the filter leaves its input unchanged, if there is one.
    public var identity: FilterValue?
    /// Hard limits: values outside throw. Nil means unbounded (NaN and infinities always throw).
    public var minimum: Double?
    /// The upper hard limit: values above throw. Nil means unbounded.
    public var maximum: Double?
    /// The range a user interface offers.
    public var sliderMinimum: Double?
    /// The high end of the range a user interface offers.
    public var sliderMaximum: Double?
    /// Number of components a vector must have, if fixed.
    public var componentCount: Int?
    /// True for inputs a filter can do without (no default; the filter then behaves as
    /// documented, like CIKMeans without `inputMeans`).
    public var isOptional: Bool = false

    /// Describes an input.
    ///
    /// - Parameters:
    ///   - key: Core Image's key, such as `inputIntensity`.
    ///   - displayName: The name a user interface shows; nil derives it from the key
    ///     (`inputIntensity` gives `Intensity`).
    ///   - summary: One line saying what the input does, with its unit.
    ///   - attributeType: What the value means; nil for plain vectors.
    ///   - valueClass: The class of value the input takes.
    ///   - defaultValue: The value used when none is given; nil for required inputs.
    ///   - identity: The value that leaves the image unchanged, if any.
    ///   - minimum: The lower hard limit, or nil.
    ///   - maximum: The upper hard limit, or nil.
    ///   - sliderMinimum: The low end of the user-interface range; nil takes `minimum`.
    ///   - sliderMaximum: The high end of the user-interface range; nil takes `maximum`.
    ///   - componentCount: The number of components a vector must have, or nil.
    public init(
        key: String, displayName: String? = nil, summary: String, attributeType: FilterAttributeType?,
        valueClass: FilterValueClass, defaultValue: FilterValue? = nil, identity: FilterValue? = nil,
        minimum: Double? = nil, maximum: Double? = nil, sliderMinimum: Double? = nil,
        sliderMaximum: Double? = nil, componentCount: Int? = nil
    ) {
        self.key = key
        self.displayName = displayName ?? FilterInput.displayName(forKey: key)
        self.summary = summary
        self.attributeType = attributeType
        self.valueClass = valueClass
        self.defaultValue = defaultValue
        self.identity = identity
        self.minimum = minimum
        self.maximum = maximum
        self.sliderMinimum = sliderMinimum ?? minimum
        self.sliderMaximum = sliderMaximum ?? maximum
        self.componentCount = componentCount
    }

    /// `inputBackgroundImage` -> `Background Image`.
    static func displayName(forKey key: String) -> String {
        var k = Substring(key)
        if k.hasPrefix("input") { k = k.dropFirst(5) }
        var out = ""
        for (i, ch) in k.enumerated() {
            if i > 0, ch.isUppercase, let last = out.last, !last.isUppercase || false { out.append(" ") }
            out.append(ch)
        }
        return out
    }

    // MARK: Declaration helpers

    /// An image input that may be left out.
    public static func optionalImage(_ key: String, summary: String) -> FilterInput {
        var i = FilterInput(key: key, summary: summary, attributeType: .image, valueClass: .image)
        i.isOptional = true
        return i
    }

    /// A boolean input (stored as a number 0 or 1, as NSNumber is in Core Image).
    public static func boolean(_ key: String, default value: Bool, summary: String) -> FilterInput {
        FilterInput(
            key: key, summary: summary, attributeType: .boolean, valueClass: .number, defaultValue: .number(value ? 1 : 0),
            minimum: 0, maximum: 1)
    }

    /// An image input (`inputImage` unless named otherwise).
    public static func image(_ key: String = "inputImage", summary: String = "The image to process.") -> FilterInput {
        FilterInput(key: key, summary: summary, attributeType: .image, valueClass: .image)
    }

    /// A number input.
    public static func number(
        _ key: String, _ type: FilterAttributeType = .scalar, default value: Double,
        identity: Double? = nil, min: Double? = nil, max: Double? = nil,
        sliderMin: Double? = nil, sliderMax: Double? = nil, summary: String
    ) -> FilterInput {
        FilterInput(
            key: key, summary: summary, attributeType: type, valueClass: .number, defaultValue: .number(value),
            identity: identity.map(FilterValue.number), minimum: min, maximum: max,
            sliderMinimum: sliderMin, sliderMaximum: sliderMax)
    }

    /// A vector input with a fixed number of components.
    public static func vector(
        _ key: String, _ type: FilterAttributeType? = nil, default value: [Double],
        identity: [Double]? = nil, summary: String
    ) -> FilterInput {
        FilterInput(
            key: key, summary: summary, attributeType: type, valueClass: .vector, defaultValue: .vector(value),
            identity: identity.map(FilterValue.vector), componentCount: value.count)
    }

    /// A color input.
    public static func color(_ key: String, _ type: FilterAttributeType = .color, default value: Color, summary: String)
        -> FilterInput
    {
        FilterInput(key: key, summary: summary, attributeType: type, valueClass: .color, defaultValue: .color(value))
    }

    /// An affine transform input.
    public static func transform(_ key: String, default value: AffineTransform, summary: String) -> FilterInput {
        FilterInput(
            key: key, summary: summary, attributeType: .transform, valueClass: .transform,
            defaultValue: .transform(value), identity: .transform(.identity))
    }
}
