/// The version of PixelFlow, as `MAJOR.MINOR.PATCH` ([Semantic Versioning](https://semver.org)).
///
/// Spell it with the module name, as a package's own `version` would otherwise shadow it:
///
/// ```swift
/// import PixelFlow
/// print("PixelFlow \(PixelFlow.version)")   // PixelFlow 0.1.0
/// ```
///
/// It is a top-level constant rather than a member of a type named `PixelFlow`: such a type
/// would hide the module's name, and `PixelFlow.AffineTransform` (needed beside Foundation's
/// `AffineTransform`) would no longer compile. `pixelflow --version` prints it, and
/// CHANGELOG.md lists what changed in each version.
public let version = "0.1.0"
