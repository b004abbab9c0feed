extension ColorSpace {
    /// The 3x3 matrix (row-major) taking linear values of `source`'s primaries to linear
    /// values of `destination`'s, through CIE XYZ, with a Bradford adaptation when the white
    /// points differ; `nil` unless both spaces were made from chromaticities.
    ///
    /// Reference: Lindbloom, "RGB/XYZ Matrices" and "Chromatic Adaptation".
    static func _linearMatrix(from source: ColorSpace, to destination: ColorSpace) -> [Double]? {
        guard let s = source.chromaticities, let d = destination.chromaticities else { return nil }
        let toXYZ = _rgbToXYZ(s)
        let fromXYZ = _invert3(_rgbToXYZ(d))
        var adapt = _identity3
        if abs(s.whiteX - d.whiteX) > 1e-6 || abs(s.whiteY - d.whiteY) > 1e-6 {
            adapt = _bradford(from: (s.whiteX, s.whiteY), to: (d.whiteX, d.whiteY))
        }
        return _multiply3(fromXYZ, _multiply3(adapt, toXYZ))
    }

    static let _identity3: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]

    static func _xyzOfWhite(_ x: Double, _ y: Double) -> [Double] { [x / y, 1, (1 - x - y) / y] }

    static func _rgbToXYZ(_ c: Chromaticities) -> [Double] {
        func column(_ x: Double, _ y: Double) -> [Double] { [x / y, 1, (1 - x - y) / y] }
        let r = column(c.redX, c.redY), g = column(c.greenX, c.greenY), b = column(c.blueX, c.blueY)
        let m: [Double] = [r[0], g[0], b[0], r[1], g[1], b[1], r[2], g[2], b[2]]
        let w = _xyzOfWhite(c.whiteX, c.whiteY)
        let s = _apply3(_invert3(m), w)
        return [
            m[0] * s[0], m[1] * s[1], m[2] * s[2], m[3] * s[0], m[4] * s[1], m[5] * s[2],
            m[6] * s[0], m[7] * s[1], m[8] * s[2],
        ]
    }

    static func _bradford(from a: (Double, Double), to b: (Double, Double)) -> [Double] {
        let mb: [Double] = [0.8951, 0.2664, -0.1614, -0.7502, 1.7135, 0.0367, 0.0389, -0.0685, 1.0296]
        let sa = _apply3(mb, _xyzOfWhite(a.0, a.1)), sb = _apply3(mb, _xyzOfWhite(b.0, b.1))
        let scale: [Double] = [sb[0] / sa[0], 0, 0, 0, sb[1] / sa[1], 0, 0, 0, sb[2] / sa[2]]
        return _multiply3(_invert3(mb), _multiply3(scale, mb))
    }

    static func _apply3(_ m: [Double], _ v: [Double]) -> [Double] {
        [
            m[0] * v[0] + m[1] * v[1] + m[2] * v[2], m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
            m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
        ]
    }

    static func _multiply3(_ a: [Double], _ b: [Double]) -> [Double] {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { r[3 * i + j] += a[3 * i + k] * b[3 * k + j] } } }
        return r
    }

    static func _invert3(_ m: [Double]) -> [Double] {
        let det = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
        let i = 1 / det
        return [
            (m[4] * m[8] - m[5] * m[7]) * i, (m[2] * m[7] - m[1] * m[8]) * i, (m[1] * m[5] - m[2] * m[4]) * i,
            (m[5] * m[6] - m[3] * m[8]) * i, (m[0] * m[8] - m[2] * m[6]) * i, (m[2] * m[3] - m[0] * m[5]) * i,
            (m[3] * m[7] - m[4] * m[6]) * i, (m[1] * m[6] - m[0] * m[7]) * i, (m[0] * m[4] - m[1] * m[3]) * i,
        ]
    }
}
