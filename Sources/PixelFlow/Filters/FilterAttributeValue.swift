/// One value of a filter's attribute dictionary (`Filter.attributes`): what Core Image keeps
/// in an `NSDictionary` of strings, arrays, numbers, filter values and nested dictionaries.
///
/// ```swift
/// let attributes = Filter(named: "CISepiaTone")!.attributes
/// attributes[FilterAttributeKey.filterDisplayName]?.stringValue          // "Sepia Tone"
/// let intensity = attributes["inputIntensity"]?.dictionaryValue
/// intensity?[FilterAttributeKey.sliderMax]?.numberValue                // 1
/// intensity?[FilterAttributeKey.defaultValue]?.filterValue             // .number(1)
/// ```
///
/// Numbers that describe a range (`CIAttributeMin`, `CIAttributeMax`, the slider range) are
/// `.number`; defaults and identities are `.value`, holding the `FilterValue` the input takes.
public enum FilterAttributeValue: Sendable, Hashable, CustomStringConvertible {
    /// A string, such as a filter's or an input's display name or description.
    case string(String)
    /// A list of strings, such as a filter's category names.
    case strings([String])
    /// A number, such as the ends of an input's range or slider range.
    case number(Double)
    /// A value an input takes, such as its default or its identity.
    case value(FilterValue)
    /// A nested dictionary, such as one input's attributes, keyed by ``FilterAttributeKey``.
    case dictionary([String: FilterAttributeValue])

    /// The string, for `.string`.
    public var stringValue: String? {
        if case let .string(s) = self { return s }
        return nil
    }

    /// The strings, for `.strings`.
    public var stringsValue: [String]? {
        if case let .strings(s) = self { return s }
        return nil
    }

    /// The number, for `.number` and for `.value(.number(_))`.
    public var numberValue: Double? {
        switch self {
        case let .number(n), let .value(.number(n)): return n
        default: return nil
        }
    }

    /// The filter value, for `.value`; `.number(n)` gives `.number(n)`.
    public var filterValue: FilterValue? {
        switch self {
        case let .value(v): return v
        case let .number(n): return .number(n)
        default: return nil
        }
    }

    /// The nested dictionary, for `.dictionary`.
    public var dictionaryValue: [String: FilterAttributeValue]? {
        if case let .dictionary(d) = self { return d }
        return nil
    }

    /// The entry `key` of a nested dictionary; nil for other cases and missing keys.
    public subscript(key: String) -> FilterAttributeValue? { dictionaryValue?[key] }

    public var description: String {
        switch self {
        case let .string(s): return s
        case let .strings(s): return "[" + s.joined(separator: ", ") + "]"
        case let .number(n): return FilterValue.number(n).description
        case let .value(v): return v.description
        case let .dictionary(d):
            return "{" + d.keys.sorted().map { "\($0): \(d[$0]!)" }.joined(separator: ", ") + "}"
        }
    }
}

/// The keys of `Filter.attributes`, spelled as Core Image's `kCIAttribute...` constants' values.
public enum FilterAttributeKey {
    /// The filter's Core Image name (`kCIAttributeFilterName`), a string.
    public static let filterName = "CIAttributeFilterName"
    /// The filter's display name (`kCIAttributeFilterDisplayName`), a string.
    public static let filterDisplayName = "CIAttributeFilterDisplayName"
    /// The filter's categories (`kCIAttributeFilterCategories`), Core Image category names.
    public static let filterCategories = "CIAttributeFilterCategories"
    /// A filter's or an input's one-line description (`kCIAttributeDescription`), a string.
    public static let description = "CIAttributeDescription"
    /// An input's display name (`kCIAttributeDisplayName`), a string.
    public static let displayName = "CIAttributeDisplayName"
    /// What an input means (`kCIAttributeType`): a `FilterAttributeType` raw value.
    public static let type = "CIAttributeType"
    /// The class of an input's value (`kCIAttributeClass`): a `FilterValueClass` raw value.
    public static let valueClass = "CIAttributeClass"
    /// An input's default (`kCIAttributeDefault`), a `FilterValue`.
    public static let defaultValue = "CIAttributeDefault"
    /// The value for which an input leaves the image unchanged (`kCIAttributeIdentity`).
    public static let identity = "CIAttributeIdentity"
    /// The smallest value an input accepts (`kCIAttributeMin`), a number.
    public static let min = "CIAttributeMin"
    /// The largest value an input accepts (`kCIAttributeMax`), a number.
    public static let max = "CIAttributeMax"
    /// The low end of the range a user interface offers (`kCIAttributeSliderMin`), a number.
    public static let sliderMin = "CIAttributeSliderMin"
    /// The high end of the range a user interface offers (`kCIAttributeSliderMax`), a number.
    public static let sliderMax = "CIAttributeSliderMax"
}

// Core Image's spellings, so code that reads attribute dictionaries ports over unchanged.
/// Core Image's spelling of ``FilterAttributeKey/filterName``: the key of the filter's name.
public let kCIAttributeFilterName = FilterAttributeKey.filterName
/// Core Image's spelling of ``FilterAttributeKey/filterDisplayName``: the key of the filter's display name.
public let kCIAttributeFilterDisplayName = FilterAttributeKey.filterDisplayName
/// Core Image's spelling of ``FilterAttributeKey/filterCategories``: the key of the filter's category names.
public let kCIAttributeFilterCategories = FilterAttributeKey.filterCategories
/// Core Image's spelling of ``FilterAttributeKey/description``: the key of a filter's or an input's description.
public let kCIAttributeDescription = FilterAttributeKey.description
/// Core Image's spelling of ``FilterAttributeKey/displayName``: the key of an input's display name.
public let kCIAttributeDisplayName = FilterAttributeKey.displayName
/// Core Image's spelling of ``FilterAttributeKey/type``: the key of an input's ``FilterAttributeType``.
public let kCIAttributeType = FilterAttributeKey.type
/// Core Image's spelling of ``FilterAttributeKey/valueClass``: the key of an input's ``FilterValueClass``.
public let kCIAttributeClass = FilterAttributeKey.valueClass
/// Core Image's spelling of ``FilterAttributeKey/defaultValue``: the key of an input's default value.
public let kCIAttributeDefault = FilterAttributeKey.defaultValue
/// Core Image's spelling of ``FilterAttributeKey/identity``: the key of the value of an input that leaves the image unchanged.
public let kCIAttributeIdentity = FilterAttributeKey.identity
/// Core Image's spelling of ``FilterAttributeKey/min``: the key of the lowest value an input accepts.
public let kCIAttributeMin = FilterAttributeKey.min
/// Core Image's spelling of ``FilterAttributeKey/max``: the key of the highest value an input accepts.
public let kCIAttributeMax = FilterAttributeKey.max
/// Core Image's spelling of ``FilterAttributeKey/sliderMin``: the key of the low end of an input's slider range.
public let kCIAttributeSliderMin = FilterAttributeKey.sliderMin
/// Core Image's spelling of ``FilterAttributeKey/sliderMax``: the key of the high end of an input's slider range.
public let kCIAttributeSliderMax = FilterAttributeKey.sliderMax
/// The key of a filter's output (`kCIOutputImageKey`).
public let kCIOutputImageKey = "outputImage"
/// The key of a filter's main image input (`kCIInputImageKey`).
public let kCIInputImageKey = "inputImage"

// MARK: Attribute dictionaries

extension FilterInput {
    /// The input's attribute dictionary, as Core Image gives it under the input's key:
    /// type, class, default, identity, min, max, slider range, display name and description.
    /// Entries the input does not have (a default for a required image, a range for a
    /// vector) are absent.
    public var attributes: [String: FilterAttributeValue] {
        var a: [String: FilterAttributeValue] = [
            FilterAttributeKey.valueClass: .string(valueClass.rawValue),
            FilterAttributeKey.displayName: .string(displayName),
            FilterAttributeKey.description: .string(summary),
        ]
        if let attributeType { a[FilterAttributeKey.type] = .string(attributeType.rawValue) }
        if let defaultValue { a[FilterAttributeKey.defaultValue] = .value(defaultValue) }
        if let identity { a[FilterAttributeKey.identity] = .value(identity) }
        if let minimum { a[FilterAttributeKey.min] = .number(minimum) }
        if let maximum { a[FilterAttributeKey.max] = .number(maximum) }
        if let sliderMinimum { a[FilterAttributeKey.sliderMin] = .number(sliderMinimum) }
        if let sliderMaximum { a[FilterAttributeKey.sliderMax] = .number(sliderMaximum) }
        return a
    }
}

extension FilterDescriptor {
    /// The filter's attribute dictionary, shaped like Core Image's `CIFilter.attributes`: the
    /// filter's name, display name, description and categories, and one nested dictionary per
    /// input key (see `FilterInput.attributes`).
    public var attributes: [String: FilterAttributeValue] {
        var a: [String: FilterAttributeValue] = [
            FilterAttributeKey.filterName: .string(name),
            FilterAttributeKey.filterDisplayName: .string(displayName),
            FilterAttributeKey.description: .string(summary),
            FilterAttributeKey.filterCategories: .strings(categories.map(\.rawValue)),
        ]
        for input in inputs { a[input.key] = .dictionary(input.attributes) }
        return a
    }
}
