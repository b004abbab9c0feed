/// How a Gaussian blur of a given standard deviation is computed.
///
/// - sigma <= `tileLocalLimit`: exact separable correlation inside each tile (taps to 3 sigma).
/// - sigma <= `exactLimit`: the same exact taps, as whole-image passes over a stage
///   input, so that tiles do not recompute wide halos.
/// - larger: a cascade of `boxCount` (4) box filters with running sums whose cost per pixel does
///   not depend on sigma (Wells 1986; box widths chosen as in Gwosdek et al. 2011 so the
///   variance matches). Checked against the exact blur in the tests: max abs error below
///   0.012 of full scale on step edges.
package enum GaussianPlan {
    package static let tileLocalLimit = 3.0
    static let exactLimit = 12.0
    static let boxCount = 4

    package enum Mode: Equatable { case tileLocal, exact, boxes([Int]) }

    package static func mode(sigma: Double) -> Mode {
        if sigma <= tileLocalLimit { return .tileLocal }
        if sigma <= exactLimit { return .exact }
        return .boxes(boxRadii(sigma: sigma))
    }

    /// Box running sums restart at multiples of this many pixels (absolute coordinates).
    package static let boxBlock = 64

    /// For a cascade of boxes producing `final` (absolute coordinates along one axis): the
    /// input range it reads and the range each pass produces, first pass first. Each pass
    /// starts at a multiple of `boxBlock` so that its running sums restart at fixed places.
    package static func boxPassRanges(final: Range<Int>, radii: [Int]) -> (input: Range<Int>, outputs: [Range<Int>]) {
        var outputs: [Range<Int>] = []
        var need = final
        for r in radii.reversed() {
            let start = floorDiv(need.lowerBound, boxBlock) * boxBlock
            outputs.insert(start..<need.upperBound, at: 0)
            need = (start - r)..<(need.upperBound + r)
        }
        return (need, outputs)
    }

    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// The input rect a blur of `sigma` reads to produce `rect`.
    package static func inputRect(sigma: Double, for rect: IntRect) -> IntRect {
        switch mode(sigma: sigma) {
        case .tileLocal, .exact:
            let r = exactRadius(sigma: sigma)
            return rect.outset(r, r)
        case let .boxes(radii):
            let xs = boxPassRanges(final: rect.x..<rect.maxX, radii: radii).input
            let ys = boxPassRanges(final: rect.y..<rect.maxY, radii: radii).input
            return IntRect(x: xs.lowerBound, y: ys.lowerBound, width: xs.count, height: ys.count)
        }
    }

    /// Radius of the exact kernel: ceil(3 sigma).
    package static func exactRadius(sigma: Double) -> Int { Swift.max(0, Int((3 * sigma).rounded(.up))) }

    /// How far the blur reaches on each side.
    package static func kernelRadius(sigma: Double) -> Int {
        switch mode(sigma: sigma) {
        case .tileLocal, .exact: return exactRadius(sigma: sigma)
        case let .boxes(r): return r.reduce(0, +)
        }
    }

    /// Normalized taps of the exact kernel, `2 * radius + 1` of them.
    package static func exactTaps(sigma: Double) -> [Float] {
        let r = exactRadius(sigma: sigma)
        if r == 0 || sigma <= 0 { return [1] }
        var w = (-r...r).map { k in exp(-Double(k * k) / (2 * sigma * sigma)) }
        let s = w.reduce(0, +)
        w = w.map { $0 / s }
        return w.map(Float.init)
    }

    /// Radii of `boxCount` boxes whose cascade has variance sigma^2: widths are the odd
    /// integers around the ideal width `sqrt(12 sigma^2 / n + 1)`.
    static func boxRadii(sigma: Double) -> [Int] {
        let n = Double(boxCount)
        let ideal = (12 * sigma * sigma / n + 1).squareRoot()
        var wl = Int(ideal.rounded(.down))
        if wl % 2 == 0 { wl -= 1 }
        let wu = wl + 2
        let m = ((12 * sigma * sigma - n * Double(wl * wl) - 4 * n * Double(wl) - 3 * n) / (-4 * Double(wl) - 4)).rounded()
        return (0..<boxCount).map { i in (Double(i) < m ? wl : wu) / 2 }
    }
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
