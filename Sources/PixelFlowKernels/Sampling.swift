/// How a warp reads between pixels.
public enum Sampling: String, Sendable, CaseIterable {
    /// The nearest pixel.
    case nearest
    /// Linear interpolation of the four nearest pixels.
    case bilinear
}
