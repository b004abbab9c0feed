import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The transitions (TransitionFilters.swift): every one is exact at its ends (time 0 gives the
/// image, time 1 the target, bit for bit over the effect's rect), and the ones with a closed
/// form match a scalar reference at sample pixels in between (tolerances stated per test).
/// Renders use stored values (no color management) and premultiplied output.
final class TransitionTests: XCTestCase {
    static let w = 29, h = 17
    let a = TestImages.random(width: w, height: h, format: .rgbaF32, seed: 31, colorEncoding: .sRGB, alphaMode: .straight)
    let b = TestImages.random(width: w, height: h, format: .rgbaF32, seed: 32, colorEncoding: .sRGB, alphaMode: .straight)
    let c = TestImages.random(width: w, height: h, format: .rgbaF32, seed: 33, colorEncoding: .sRGB, alphaMode: .straight)
    var bounds: Rect { Rect(x: 0, y: 0, width: Self.w, height: Self.h) }

    func render(_ image: Image, _ rect: Rect? = nil) throws -> PixelBuffer {
        try rawContext.makeBuffer(image, rect: rect ?? bounds, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .premultiplied)
    }

    /// Values for every transition: the two images, a third for backside/shading/mask inputs,
    /// the test images' bounds as the effect's rect and their middle as the center.
    func values(_ d: FilterDescriptor, time: Double) -> [String: FilterValue?] {
        var v: [String: FilterValue?] = ["inputTime": .number(time)]
        for input in d.inputs {
            switch input.key {
            case "inputImage": v[input.key] = .image(Image(a))
            case "inputTargetImage": v[input.key] = .image(Image(b))
            case "inputExtent": v[input.key] = .vector([0, 0, Double(Self.w), Double(Self.h)])
            case "inputCenter": v[input.key] = .vector([Double(Self.w) / 2, Double(Self.h) / 2])
            // Sizes that fit the small test images.
            case "inputRadius": v[input.key] = .number(4)
            case "inputWidth" where d.name == "CIRippleTransition": v[input.key] = .number(10)
            case "inputScale": v[input.key] = .number(3)
            default: if input.valueClass == .image { v[input.key] = .image(Image(c)) }
            }
        }
        return v
    }

    func testEveryTransitionIsExactAtItsEnds() throws {
        let transitions = FilterRegistry.all.filter { $0.categories.contains(.transition) }
        XCTAssertGreaterThanOrEqual(transitions.count, 11)
        let imageA = try render(Image(a)), imageB = try render(Image(b))
        for d in transitions {
            for (time, expected, what) in [(0.0, imageA, "image"), (1.0, imageB, "target")] {
                let out = try render(try d.apply(values(d, time: time)))
                XCTAssertEqual(maxDifference(out, expected), 0, "\(d.name) at time \(time) is the \(what)")
            }
            // Something happens in between.
            let mid = try render(try d.apply(values(d, time: 0.5)))
            XCTAssertGreaterThan(maxDifference(mid, imageA), 0.01, "\(d.name) at 0.5 differs from the image")
            XCTAssertGreaterThan(maxDifference(mid, imageB), 0.01, "\(d.name) at 0.5 differs from the target")
        }
    }

    func testDissolveIsALinearMix() throws {
        let out = try render(try Image(a).dissolveTransition(to: Image(b), time: 0.3))
        let pa = try render(Image(a)), pb = try render(Image(b))
        for y in 0..<Self.h {
            for x in 0..<Self.w {
                XCTAssertLessThanOrEqual(abs(out[x, y] - (pa[x, y] + (pb[x, y] - pa[x, y]) * 0.3)).max(), 1e-6)
            }
        }
    }

    func testSwipeMatchesItsBandFormula() throws {
        let (angle, width, time, opacity) = (0.7, 9.0, 0.4, 0.5)
        let color = Color(red: 0.2, green: 0.9, blue: 0.4, alpha: 1)
        let out = try render(
            try Image(a).swipeTransition(
                to: Image(b), time: time, extent: bounds, color: color,
                angle: angle, width: width, opacity: opacity))
        let pa = try render(Image(a)), pb = try render(Image(b))
        let dx = cos(angle), dy = -sin(angle)
        let corners = [(0.0, 0.0), (29.0, 0.0), (0.0, 17.0), (29.0, 17.0)].map { $0.0 * dx + $0.1 * dy }
        let lo = corners.min()!, hi = corners.max()!
        let lead = lo + time * (hi - lo + width)
        var banded = 0
        for y in 0..<Self.h {
            for x in 0..<Self.w {
                let s = (Double(x) + 0.5) * dx + (Double(y) + 0.5) * dy
                let wt = Float(min(1, max(0, (lead - s) / width)))
                let mixed = pa[x, y] * (1 - wt) + pb[x, y] * wt
                let cov = min(1, max(0, min(lead - s, width - (lead - s)) + 0.5))
                if cov > 0 { banded += 1 }
                let f = color.simd * Float(opacity * cov)
                let e = f + mixed * (1 - f.w)
                XCTAssertLessThanOrEqual(abs(out[x, y] - e).max(), 1e-6, "(\(x), \(y))")
            }
        }
        XCTAssertGreaterThan(banded, 20, "the band crosses the image")
    }

    func testModMatchesItsHoleFormula() throws {
        let (cx, cy, angle, radius, compression, time) = (10.0, 7.0, 0.4, 4.0, 30.0, 0.5)
        let out = try render(
            try Image(a).modTransition(
                to: Image(b), time: time, center: Point(x: cx, y: cy), angle: angle,
                radius: radius, compression: compression))
        let pa = try render(Image(a)), pb = try render(Image(b))
        let hole = time * (radius * 2.0.squareRoot() + 1)
        for y in 0..<Self.h {
            for x in 0..<Self.w {
                let qx = Double(x) + 0.5 - cx, qy = Double(y) + 0.5 - cy
                var u = qx * cos(angle) - qy * sin(angle), v = qx * sin(angle) + qy * cos(angle)
                let k = 1 + hypot(u, v) / compression
                u *= k; v *= k
                let row = floor(v / (2 * radius))
                if Int(row) % 2 != 0 { u += radius }
                let lu = u - (floor(u / (2 * radius)) + 0.5) * 2 * radius, lv = v - (row + 0.5) * 2 * radius
                let wt = Float(min(1, max(0, hole - hypot(lu, lv))))
                XCTAssertLessThanOrEqual(abs(out[x, y] - (pa[x, y] * (1 - wt) + pb[x, y] * wt)).max(), 1e-6, "(\(x), \(y))")
            }
        }
    }

    func testPageCurlGeometry() throws {
        // Angle 0: the right edge curls first. Page 29 wide, radius 4, time 0.5: fold line at
        // a = 29 - 0.5 * (29 + 4) = 12.5; target beyond a + r = 16.5; the page's back, lying flat
        // on top, at source x = 2a + pi r - x for x > 2a + pi r - 29.
        let r = 4.0, axis = 12.5
        let shading = Image(color: .white)
        let out = try render(
            try Image(a).pageCurlTransition(
                to: Image(b), backside: Image(c), shading: shading, time: 0.5,
                extent: bounds, angle: 0, radius: r))
        let pa = try render(Image(a)), pb = try render(Image(b)), pc = try render(Image(c))
        for y in 0..<Self.h {
            for x in 0..<Self.w {
                let s = Double(x) + 0.5
                if s > axis + r {
                    XCTAssertEqual(out[x, y], pb[x, y], "(\(x), \(y)) shows the target")
                } else if s < 2 * axis + .pi * r - 29.5 {
                    XCTAssertEqual(out[x, y], pa[x, y], "(\(x), \(y)) shows the flat front")
                } else if s < axis && 2 * axis + .pi * r - s <= 28.5 {
                    // Backside (wholly inside the page), sampled bilinearly at its source.
                    let src = 2 * axis + .pi * r - s - 0.5
                    let i = Int(floor(src)), f = Float(src - floor(src))
                    let e = pc[i, y] + (pc[min(i + 1, Self.w - 1), y] - pc[i, y]) * f
                    XCTAssertLessThanOrEqual(abs(out[x, y] - e).max(), 1e-5, "(\(x), \(y)) shows the back")
                }
            }
        }
    }

    func testAccordionFoldCompressesAndShades() throws {
        let out = try render(
            try Image(a).accordionFoldTransition(
                to: Image(b), time: 0.5, bottomHeight: 0, numberOfFolds: 3,
                foldShadowAmount: 0.1))
        let pa = try render(Image(a)), pb = try render(Image(b))
        // Height 8.5 of 17: rows above 8.5 show the target; row 12 samples rows 7 and 8 halfway,
        // in panel 1 (odd), darkened by 0.1 * sin(acos(0.5)) / 2.
        for x in 0..<Self.w { XCTAssertEqual(out[x, 2], pb[x, 2]) }
        let shade = Float(1 - 0.1 * (0.75).squareRoot() * 0.5)
        for x in 0..<Self.w {
            var e = (pa[x, 7] + pa[x, 8]) * 0.5
            e = SIMD4(e.x * shade, e.y * shade, e.z * shade, e.w)
            XCTAssertLessThanOrEqual(abs(out[x, 12] - e).max(), 1e-5, "column \(x)")
        }
    }

    func testDisintegrateSwitchesPixelsByMaskValue() throws {
        // Mask: black left half, white right half. At time 0.5 the left shows the target (with
        // no shadow far from the edge), the right the image.
        var mask = try PixelBuffer(width: Self.w, height: Self.h, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
        for y in 0..<Self.h { for x in 0..<Self.w { mask[x, y] = x < 14 ? SIMD4(0, 0, 0, 1) : SIMD4(1, 1, 1, 1) } }
        let out = try render(
            try Image(a).disintegrateTransition(
                to: Image(b), mask: Image(mask), time: 0.5, shadowRadius: 2,
                shadowDensity: 0.65, shadowOffset: Point(x: 0, y: 0)))
        let pa = try render(Image(a)), pb = try render(Image(b))
        for y in 0..<Self.h {
            for x in 0..<3 { XCTAssertLessThanOrEqual(abs(out[x, y] - pb[x, y]).max(), 1e-6, "(\(x), \(y))") }
            for x in 14..<Self.w { XCTAssertEqual(out[x, y], pa[x, y], "(\(x), \(y))") }
        }
        // Near the edge the remaining image's shadow darkens the target.
        XCTAssertLessThan(out[13, 8].x, pb[13, 8].x)
    }

    func testBadParametersThrowNamingTheKey() {
        var cases: [(String, String, FilterValue)] = [
            ("CIBarsSwipeTransition", "inputWidth", .number(1)),
            ("CIAccordionFoldTransition", "inputNumberOfFolds", .number(0)),
            ("CIPageCurlTransition", "inputRadius", .number(0)),
            ("CIRippleTransition", "inputScale", .number(-51)),
            ("CISwipeTransition", "inputExtent", .vector([0, 0, -1, 3])),
            ("CIDisintegrateWithMaskTransition", "inputShadowOffset", .vector([1])),
        ]
        for d in FilterRegistry.all where d.categories.contains(.transition) {
            cases.append((d.name, "inputTime", .number(1.5)))
        }
        for (name, key, value) in cases {
            guard let d = FilterRegistry.descriptor(named: name) else { XCTFail(name); continue }
            var v = values(d, time: 0.5)
            v[key] = value
            XCTAssertThrowsError(try d.apply(v), "\(name) \(key)") { error in
                guard case let PixelFlowError.invalidParameter(filter, k, _) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(filter, name)
                XCTAssertEqual(k, key)
            }
        }
    }
}
