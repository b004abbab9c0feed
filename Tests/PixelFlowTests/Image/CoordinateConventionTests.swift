import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// `CoordinateConvention.coreImage`: Core Image snippets run unchanged apart from the option
/// give what the same snippet gives in top-left coordinates with every y mirrored by hand
/// (`y -> H - y`, rects `(x, H - y - h, w, h)`), for filter positions and rectangles (given and
/// default), crops, extents and detector results.
final class CoordinateConventionTests: XCTestCase {
    /// A 320 x 240 photo-like image.
    let photo = Image(TestImages.smooth(width: 320, height: 240))
    let height = 240.0

    func render(_ image: Image, _ rect: Rect? = nil) throws -> PixelBuffer {
        try RenderContext().makeBuffer(image, rect: rect)
    }

    func testPointsAndRectsConvertBothWays() {
        let ci = CoordinateConvention.coreImage
        XCTAssertEqual(ci.convert(Point(x: 10, y: 30), imageHeight: 240), Point(x: 10, y: 210))
        XCTAssertEqual(
            ci.convert(Rect(x: 10, y: 20, width: 100, height: 50), imageHeight: 240), Rect(x: 10, y: 170, width: 100, height: 50))
        for p in [Point(x: 3.5, y: -2), Point(x: 0, y: 240)] {
            XCTAssertEqual(ci.convert(ci.convert(p, imageHeight: 99), imageHeight: 99), p)
            XCTAssertEqual(CoordinateConvention.topLeft.convert(p, imageHeight: 99), p)
        }
        XCTAssertEqual(ci.convert(Rect.infinite, imageHeight: 240), .infinite)
        XCTAssertEqual(Point(x: 1, y: 2).coreImageCoordinates(imageHeight: 10), ci.convert(Point(x: 1, y: 2), imageHeight: 10))
    }

    /// Core Image: `image.applyingFilter("CIVignetteEffect", parameters: [kCIInputCenterKey:
    /// CIVector(x: 100, y: 60), kCIInputRadiusKey: 80])`.
    func testVignetteCenter() throws {
        let ported = try photo.applyingFilter(
            "CIVignetteEffect", parameters: ["inputCenter": [100, 60], "inputRadius": 80], coordinates: .coreImage)
        let topLeft = try photo.applyingFilter("CIVignetteEffect", parameters: ["inputCenter": [100, 180], "inputRadius": 80])
        XCTAssertEqual(try render(ported), try render(topLeft))
        XCTAssertNotEqual(
            try render(ported),
            try render(
                photo.applyingFilter(
                    "CIVignetteEffect", parameters: ["inputCenter": [100, 60], "inputRadius": 80])),
            "the option changes the center")
        // Defaults are Core Image's too: inputCenter (150, 150) from the bottom edge.
        let byDefault = try photo.applyingFilter("CIVignetteEffect", parameters: ["inputRadius": 80], coordinates: .coreImage)
        XCTAssertEqual(
            try render(byDefault),
            try render(photo.applyingFilter("CIVignetteEffect", parameters: ["inputCenter": [150, 90], "inputRadius": 80])))
        // The same through Filter, Core Image's CIFilter shape.
        let filter = try XCTUnwrap(Filter(named: "CIVignetteEffect"))
        try filter.setValue(photo, forKey: kCIInputImageKey)
        try filter.setValue([100, 60], forKey: "inputCenter")
        try filter.setValue(80, forKey: "inputRadius")
        filter.coordinates = .coreImage
        XCTAssertEqual(try render(try filter.outputImage()), try render(topLeft))
        XCTAssertEqual(filter.value(forKey: "inputCenter"), .vector([100, 60]), "values are kept as set")
        XCTAssertEqual(try render(try filter.copy().outputImage()), try render(topLeft))
    }

    /// Core Image: `CIFilter(name: "CIRadialGradient", parameters: ["inputCenter": CIVector(x:
    /// 100, y: 60), ...])!.outputImage!.cropped(to: image.extent)`: a generator, so the height
    /// is given.
    func testRadialGradientCenter() throws {
        let values: [String: FilterValue?] = [
            "inputCenter": .vector([100, 60]), "inputRadius0": .number(10), "inputRadius1": .number(90),
        ]
        let ported = try FilterRegistry.apply("CIRadialGradient", values, coordinates: .coreImage, imageHeight: height)
        var flipped = values
        flipped["inputCenter"] = .vector([100, 180])
        let topLeft = try FilterRegistry.apply("CIRadialGradient", flipped)
        let frame = Rect(x: 0, y: 0, width: 320, height: 240)
        XCTAssertEqual(try render(ported, frame), try render(topLeft, frame))
        let filter = try XCTUnwrap(Filter(named: "CIRadialGradient"))
        try filter.setValue([100, 60], forKey: "inputCenter")
        try filter.setValue(10, forKey: "inputRadius0")
        try filter.setValue(90, forKey: "inputRadius1")
        filter.coordinates = .coreImage
        XCTAssertThrowsError(try filter.outputImage()) { error in
            XCTAssertTrue("\(error)".contains("imageHeight"), "\(error)")
        }
        XCTAssertNil(filter.outputImage)
        filter.imageHeight = height
        XCTAssertEqual(try render(try filter.outputImage(), frame), try render(topLeft, frame))
        XCTAssertThrowsError(try FilterRegistry.apply("CIRadialGradient", values, coordinates: .coreImage, imageHeight: .nan))
    }

    /// A 3-D position (CISpotLight's inputLightPosition) flips y and keeps z.
    func testPosition3KeepsZ() throws {
        let ported = try photo.applyingFilter(
            "CISpotLight", parameters: ["inputLightPosition": [100, 60, 150], "inputLightPointsAt": [160, 120, 0]],
            coordinates: .coreImage)
        let topLeft = try photo.applyingFilter(
            "CISpotLight", parameters: ["inputLightPosition": [100, 180, 150], "inputLightPointsAt": [160, 120, 0]])
        XCTAssertEqual(try render(ported), try render(topLeft))
    }

    /// Core Image: `image.cropped(to: CGRect(x: 10, y: 20, width: 100, height: 50))`, and CICrop
    /// by name; `extent` back in Core Image's coordinates.
    func testCropRectAndExtent() throws {
        let rect = Rect(x: 10, y: 20, width: 100, height: 50)
        let expected = Rect(x: 10, y: 170, width: 100, height: 50)
        let ported = try photo.cropped(to: rect, coordinates: .coreImage)
        XCTAssertEqual(ported.extent, expected)
        XCTAssertEqual(try render(ported), try render(photo.cropped(to: expected)))
        let byName = try photo.applyingFilter("CICrop", parameters: ["inputRectangle": rect], coordinates: .coreImage)
        XCTAssertEqual(byName.extent, expected)
        XCTAssertEqual(ported.extent(coordinates: .coreImage, imageHeight: height), rect)
        XCTAssertEqual(photo.extent(coordinates: .coreImage), photo.extent, "an image at the origin has one extent")
        XCTAssertEqual(ported.extent(coordinates: .topLeft), expected)
        XCTAssertEqual(try photo.cropped(to: rect, coordinates: .topLeft).extent, rect)
        // An infinite image has no bottom edge to measure from.
        let red = Image(color: .red)
        XCTAssertThrowsError(try red.cropped(to: rect, coordinates: .coreImage))
        XCTAssertEqual(try red.cropped(to: rect, coordinates: .coreImage, imageHeight: height).extent, expected)
        XCTAssertThrowsError(try red.applyingFilter("CIVignetteEffect", parameters: [:], coordinates: .coreImage)) { error in
            XCTAssertTrue("\(error)".contains("imageHeight"), "\(error)")
        }
    }

    /// Core Image: `detector.features(in: image).first?.bounds`, for QR codes, rectangles and faces.
    func testDetectorResults() throws {
        var canvas = Canvas(buffer: try PixelBuffer(width: 320, height: 240, format: .rgba8))
        canvas.clear(to: Color(red: 0.25, green: 0.3, blue: 0.35))
        canvas.fillPolygon(
            [Point(x: 40, y: 30), Point(x: 280, y: 40), Point(x: 270, y: 210), Point(x: 50, y: 200)], color: Color(white: 0.95))
        var scene = canvas.buffer
        let code = try render(
            Image.qrCode(message: "bottom-left", scale: 3).composited(over: Image(color: .white)).cropped(
                to: Rect(x: 0, y: 0, width: 87, height: 87)))
        for y in 0..<code.height { for x in 0..<code.width { scene[150 + x, 40 + y] = code[x, y] } }
        let h = Double(scene.height)
        func flipped(_ p: Point) -> Point { Point(x: p.x, y: h - p.y) }

        let codes = try QRCodeDetector().features(in: scene)
        let ciCodes = try QRCodeDetector().features(in: scene, coordinates: .coreImage)
        XCTAssertEqual(codes.count, 1)
        XCTAssertEqual(ciCodes.map(\.messageString), ["bottom-left"])
        XCTAssertEqual(ciCodes.first?.corners, codes.first?.corners.map(flipped))
        let b = try XCTUnwrap(codes.first?.bounds), c = try XCTUnwrap(ciCodes.first?.bounds)
        for (u, v) in zip([c.x, c.y, c.width, c.height], [b.x, h - b.maxY, b.width, b.height]) {
            XCTAssertEqual(u, v, accuracy: 1e-9)  // the same corners, subtracted in another order
        }
        XCTAssertEqual(try QRCodeDetector().features(in: Image(scene), coordinates: .coreImage), ciCodes)

        let quads = RectangleDetector().features(in: scene)
        let ciQuads = try RectangleDetector().features(in: scene, coordinates: .coreImage)
        XCTAssertFalse(quads.isEmpty)
        XCTAssertEqual(ciQuads.map(\.corners), quads.map { $0.corners.map(flipped) })
        XCTAssertEqual(try RectangleDetector().features(in: scene, coordinates: .topLeft), quads)

        guard let faces = try? FaceDetector() else { return }  // no cascade installed: the rest is covered
        let astronaut = try PixelBuffer(contentsOfFile: FaceDetectorTests.fixtures.appendingPathComponent("astronaut.png").path)
        let found = try faces.features(in: astronaut)
        let ci = try faces.features(in: astronaut, coordinates: .coreImage)
        XCTAssertFalse(found.isEmpty)
        let ah = Double(astronaut.height)
        for (f, c) in zip(found, ci) {
            XCTAssertEqual(c.bounds, Rect(x: f.bounds.x, y: ah - f.bounds.maxY, width: f.bounds.width, height: f.bounds.height))
            XCTAssertEqual(c.leftEyePosition, f.leftEyePosition.map { Point(x: $0.x, y: ah - $0.y) })
            XCTAssertEqual(c.mouthPosition, f.mouthPosition.map { Point(x: $0.x, y: ah - $0.y) })
            XCTAssertEqual(c.hasSmile, f.hasSmile)
        }
    }
}
