// Foundation gives every `Error` its `localizedDescription`, which is part of this type's API
// (Docs/API/baseline.txt) as it was when the type lived in the PixelFlow module.
import Foundation

/// The one error type PixelFlow throws.
///
/// Every case carries what was wrong (which key, which value, which file, which limit) so
/// that its `description` is a message a user can act on.
public enum PixelFlowError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A width, height or pixel count that is zero, negative or overflows.
    case invalidDimensions(width: Int, height: Int, reason: String)
    /// A decode or render would exceed a configured limit; nothing was allocated.
    case limitExceeded(what: String, value: Int, limit: Int)
    /// A filter parameter is missing, of the wrong type, NaN or out of range.
    case invalidParameter(filter: String, key: String, reason: String)
    /// A filter name that the registry does not know.
    case unknownFilter(String)
    /// The image to render has an infinite extent and no rect was given, or the rect is empty.
    case invalidExtent(String)
    /// A file's bytes are corrupt, truncated or of an unsupported kind.
    case decodingFailed(file: String, reason: String)
    /// Encoding failed; the destination file, if any, was left untouched.
    case encodingFailed(file: String, reason: String)
    /// The bytes are not in any format PixelFlow reads.
    case unsupportedFormat(file: String, reason: String)
    /// Reading or writing a file failed at the operating-system level.
    case io(file: String, reason: String)
    /// Two buffers or images that must agree in size or format do not.
    case mismatch(String)
    /// Work was cancelled by the caller.
    case cancelled

    public var description: String {
        switch self {
        case let .invalidDimensions(width, height, reason):
            return "invalid dimensions \(width)x\(height): \(reason)"
        case let .limitExceeded(what, value, limit):
            return
                "\(what) \(value) exceeds the limit of \(limit); raise the limit in DecodeOptions/RenderContext.Options if this is intended"
        case let .invalidParameter(filter, key, reason):
            return "\(filter): \(key) \(reason)"
        case let .unknownFilter(name):
            return "unknown filter '\(name)'; `pixelflow filters` lists the known ones"
        case let .invalidExtent(reason):
            return "invalid extent: \(reason)"
        case let .decodingFailed(file, reason):
            return "cannot decode \(file): \(reason)"
        case let .encodingFailed(file, reason):
            return "cannot encode \(file): \(reason)"
        case let .unsupportedFormat(file, reason):
            return "unsupported format in \(file): \(reason)"
        case let .io(file, reason):
            return "\(file): \(reason)"
        case let .mismatch(reason):
            return reason
        case .cancelled:
            return "cancelled"
        }
    }
}
