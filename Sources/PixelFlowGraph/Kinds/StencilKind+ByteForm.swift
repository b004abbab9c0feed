/// The byte forms of blurs: Gaussians and box means run separably on bytes with fixed-point taps.
extension Stencil {
    /// The separable byte form of a Gaussian whose float kernel runs the exact taps (sigma up to
    /// `GaussianPlan.exactLimit`; the box cascade above is a different sum, and stays in float),
    /// or of a custom kernel that declares `StencilCapability.separableTaps`; nil otherwise.
    package func byteResample(_ node: Node) -> ByteResample? {
        switch self {
        case let .gaussian(sigma):
            if sigma <= 0 { return nil }
            if case .boxes = GaussianPlan.mode(sigma: sigma) { return nil }
            return .separable(taps: GaussianPlan.exactTaps(sigma: sigma))
        case let .custom(k):
            return k.separableTaps.map { .separable(taps: $0) }
        case .convolution:
            return nil
        }
    }
}
