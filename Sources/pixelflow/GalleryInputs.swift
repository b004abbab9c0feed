#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PixelFlow

/// The pictures the gallery feeds to filters, all drawn in code so that every machine gets
/// the same pixels: a landscape (the main image), a second picture of colored discs (the
/// second image of blends and transitions), a photo with a transparent surround (the
/// foreground of compositing operations), a radial mask, a shaded sphere, a color ramp and
/// a palette.
struct GalleryInputs {
    /// The frame every filter is shown in: `[0, 0, width, height]`.
    let frame: Rect
    /// An opaque landscape: sky, sun, two hills, a house, a tree and a path.
    let photo: Image
    /// An opaque second picture: colored discs and stripes on a dark ground.
    let second: Image
    /// The landscape inside a rounded rectangle, transparent around it: the foreground of
    /// compositing operations.
    let foreground: Image
    /// The second picture inside an ellipse toward the lower right, transparent around it:
    /// the background of compositing operations.
    let background: Image
    /// White and opaque at the center, fading to transparent black at the corners.
    let mask: Image
    /// A lit sphere on black, as `CIShadedMaterial` and the page curl expect.
    let shading: Image
    /// A 256 x 1 ramp from deep blue through red and orange to pale yellow.
    let gradient: Image
    /// An 8 x 1 palette of saturated colors, black and white.
    let palette: Image
    /// The landscape at a quarter of its size (`CIEdgePreserveUpsampleFilter`).
    let small: Image
    /// The landscape in CIELAB (`CIConvertRGBtoLab`'s output), for `CIConvertLabToRGB`.
    let lab: Image
    /// Depths (or disparities) from 1 to 8, larger where the landscape is darker, for
    /// `CIDepthToDisparity` and `CIDisparityToDepth`.
    let depth: Image
    /// The landscape slightly blurred, for the color-difference filters (`CILabDeltaE`): the
    /// difference shows the edges.
    let blurred: Image

    /// Draws every picture at `width` x `height` pixels.
    ///
    /// - Throws: `PixelFlowError` when a buffer cannot be allocated.
    init(width: Int, height: Int) throws {
        frame = Rect(x: 0, y: 0, width: width, height: height)
        let landscape = try GalleryInputs.landscape(width: width, height: height)
        photo = Image(landscape)
        second = Image(try GalleryInputs.discs(width: width, height: height))
        foreground = Image(try GalleryInputs.cutOut(landscape))
        background = Image(try GalleryInputs.ellipseCut(GalleryInputs.discs(width: width, height: height)))
        mask = Image(try GalleryInputs.radialMask(width: width, height: height))
        let side = max(8, min(width, height))
        shading = Image(try GalleryInputs.sphere(side: side))
        gradient = Image(try GalleryInputs.ramp())
        palette = Image(try GalleryInputs.paletteColors())
        small = try photo.lanczosScaled(scale: 0.25)
        lab = try FilterRegistry.apply("CIConvertRGBtoLab", ["inputImage": .image(photo)])
        depth = Image(try GalleryInputs.depthMap(landscape))
        blurred = try photo.clampedToExtent().gaussianBlurred(radius: 1.5).cropped(to: frame)
    }

    /// The image given to an image input of `filter` other than `inputImage`, chosen by the
    /// input's key and type; nil for optional inputs left out (`CIKMeans`'s `inputMeans`).
    func image(for input: FilterInput, of filter: FilterDescriptor) -> Image? {
        if input.isOptional { return nil }
        switch input.key {
        case "inputImage":
            switch filter.name {
            case "CIConvertLabToRGB": return lab
            case "CIDepthToDisparity", "CIDisparityToDepth": return depth
            default: return filter.categories.contains(.compositeOperation) ? foreground : photo
            }
        case "inputBackgroundImage" where filter.categories.contains(.compositeOperation):
            return background
        case "inputMask", "inputMaskImage": return mask
        case "inputShadingImage": return shading
        case "inputGradientImage": return gradient
        case "inputPaletteImage": return palette
        case "inputSmallImage": return small
        case "inputGuideImage": return photo
        case "inputImage2" where filter.name.hasSuffix("DeltaE") || filter.name.hasSuffix("DeltaE2000"):
            return blurred
        default:
            // inputBackgroundImage, inputTargetImage, inputImage2, inputBacksideImage,
            // inputDisplacementImage, inputTexture.
            return second
        }
    }

    // MARK: Drawing

    /// The landscape, drawn on a 480 x 320 design scaled to the size.
    static func landscape(width: Int, height: Int) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: .rgba8)
        for y in 0..<height {
            let t = Float(y) / Float(max(1, height - 1))
            let sky = SIMD4<Float>(0.22 + 0.62 * t, 0.42 + 0.46 * t, 0.86 + 0.1 * t, 1)
            for x in 0..<width { buffer[x, y] = sky }
        }
        var canvas = Canvas(buffer: buffer)
        canvas.transform = AffineTransform(scaleX: Double(width) / 480, y: Double(height) / 320)
        canvas.fillCircle(center: Point(x: 385, y: 72), radius: 36, color: Color(red: 1, green: 0.86, blue: 0.32))
        canvas.fillEllipse(in: Rect(x: 40, y: 50, width: 120, height: 34), color: Color(red: 0.97, green: 0.97, blue: 1))
        canvas.fillEllipse(in: Rect(x: 90, y: 36, width: 80, height: 36), color: Color(red: 0.97, green: 0.97, blue: 1))
        canvas.fillPolygon(
            hill(from: -30, to: 300, top: 148, base: 330), color: Color(red: 0.32, green: 0.64, blue: 0.28))
        canvas.fillPolygon(
            hill(from: 170, to: 520, top: 172, base: 330), color: Color(red: 0.18, green: 0.48, blue: 0.24))
        // The house: walls, roof, door and a window with a white frame.
        canvas.fillRect(Rect(x: 86, y: 198, width: 116, height: 84), color: Color(red: 0.94, green: 0.88, blue: 0.76))
        canvas.fillPolygon(
            [Point(x: 76, y: 200), Point(x: 144, y: 146), Point(x: 212, y: 200)],
            color: Color(red: 0.72, green: 0.18, blue: 0.14))
        canvas.fillRect(Rect(x: 128, y: 234, width: 28, height: 48), color: Color(red: 0.38, green: 0.23, blue: 0.13))
        canvas.fillRect(Rect(x: 168, y: 216, width: 24, height: 22), color: Color(red: 0.55, green: 0.80, blue: 0.96))
        canvas.strokeRect(Rect(x: 168, y: 216, width: 24, height: 22), width: 2.5, color: .white)
        // The tree.
        canvas.fillRect(Rect(x: 314, y: 212, width: 14, height: 58), color: Color(red: 0.44, green: 0.29, blue: 0.14))
        canvas.fillCircle(center: Point(x: 321, y: 196), radius: 33, color: Color(red: 0.13, green: 0.40, blue: 0.17))
        canvas.fillCircle(center: Point(x: 300, y: 214), radius: 21, color: Color(red: 0.17, green: 0.47, blue: 0.20))
        canvas.fillCircle(center: Point(x: 342, y: 214), radius: 21, color: Color(red: 0.17, green: 0.47, blue: 0.20))
        // The path.
        canvas.fillPolygon(
            [Point(x: 132, y: 282), Point(x: 152, y: 282), Point(x: 206, y: 320), Point(x: 116, y: 320)],
            color: Color(red: 0.80, green: 0.71, blue: 0.52))
        return canvas.buffer
    }

    /// A hill outline from `x0` to `x1` peaking at `top`, closed along `base`.
    static func hill(from x0: Double, to x1: Double, top: Double, base: Double) -> [Point] {
        var points: [Point] = []
        for i in 0...24 {
            let t = Double(i) / 24
            points.append(Point(x: x0 + (x1 - x0) * t, y: top + (base - top) * 0.3 * (1 + cos(2 * Double.pi * t))))
        }
        return points + [Point(x: x1, y: base), Point(x: x0, y: base)]
    }

    /// The second picture: stripes and colored discs on a dark violet ground.
    static func discs(width: Int, height: Int) throws -> PixelBuffer {
        var canvas = try Canvas(width: width, height: height)
        canvas.transform = AffineTransform(scaleX: Double(width) / 480, y: Double(height) / 320)
        canvas.fillRect(Rect(x: 0, y: 0, width: 480, height: 320), color: Color(red: 0.16, green: 0.10, blue: 0.26))
        for i in 0..<8 {
            let shade = i % 2 == 0 ? 0.30 : 0.22
            canvas.fillRect(
                Rect(x: Double(i) * 60, y: 0, width: 30, height: 320), color: Color(red: shade, green: 0.16, blue: 0.40))
        }
        let discs: [(Double, Double, Double, Color)] = [
            (110, 110, 70, Color(red: 0.96, green: 0.32, blue: 0.22)),
            (260, 190, 90, Color(red: 0.20, green: 0.70, blue: 0.96)),
            (390, 100, 55, Color(red: 1.00, green: 0.84, blue: 0.20)),
            (360, 255, 45, Color(red: 0.36, green: 0.88, blue: 0.42)),
            (90, 260, 40, Color(red: 0.98, green: 0.98, blue: 0.96)),
        ]
        for (x, y, r, color) in discs { canvas.fillCircle(center: Point(x: x, y: y), radius: r, color: color) }
        return canvas.buffer
    }

    /// `landscape` inside a rounded rectangle inset by an eighth of each side, transparent
    /// elsewhere.
    static func cutOut(_ landscape: PixelBuffer) throws -> PixelBuffer {
        let w = Double(landscape.width), h = Double(landscape.height)
        var shape = try Canvas(width: landscape.width, height: landscape.height)
        shape.fillRoundedRect(
            Rect(x: w / 8, y: h / 8, width: w * 0.75, height: h * 0.75), cornerRadius: h / 8, color: .white)
        return keeping(landscape, inside: shape.buffer)
    }

    /// `picture` inside an ellipse over the lower right two thirds, transparent elsewhere.
    static func ellipseCut(_ picture: PixelBuffer) throws -> PixelBuffer {
        let w = Double(picture.width), h = Double(picture.height)
        var shape = try Canvas(width: picture.width, height: picture.height)
        shape.fillEllipse(in: Rect(x: w * 0.3, y: h * 0.3, width: w * 0.68, height: h * 0.68), color: .white)
        return keeping(picture, inside: shape.buffer)
    }

    /// `picture` with the alpha of `shape`.
    static func keeping(_ picture: PixelBuffer, inside shape: PixelBuffer) -> PixelBuffer {
        var out = picture
        for y in 0..<out.height {
            for x in 0..<out.width {
                var p = out[x, y]
                p.w = shape[x, y].w
                out[x, y] = p
            }
        }
        return out
    }

    /// 1 + 7 x (1 - luma) of `landscape`, in a float buffer (values above 1).
    static func depthMap(_ landscape: PixelBuffer) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: landscape.width, height: landscape.height, format: .rgbaF32)
        for y in 0..<landscape.height {
            for x in 0..<landscape.width {
                let p = landscape[x, y]
                let v = 1 + 7 * (1 - (0.2126 * p.x + 0.7152 * p.y + 0.0722 * p.z))
                buffer[x, y] = SIMD4(v, v, v, 1)
            }
        }
        return buffer
    }

    /// White at the center, fading (smoothly) to transparent black at the corners.
    static func radialMask(width: Int, height: Int) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: width, height: height, format: .rgba8)
        let cx = Float(width) / 2, cy = Float(height) / 2
        let reach = (cx * cx + cy * cy).squareRoot()
        for y in 0..<height {
            for x in 0..<width {
                let dx = Float(x) + 0.5 - cx, dy = Float(y) + 0.5 - cy
                let t = min(1, (dx * dx + dy * dy).squareRoot() / reach)
                let v = 1 - t * t * (3 - 2 * t)
                buffer[x, y] = SIMD4(v, v, v, v)
            }
        }
        return buffer
    }

    /// A sphere lit from the upper left, on opaque black, `side` pixels square.
    static func sphere(side: Int) throws -> PixelBuffer {
        var buffer = try PixelBuffer(width: side, height: side, format: .rgba8)
        let r = Float(side) / 2
        let light = SIMD3<Float>(-0.45, -0.5, 0.74)
        for y in 0..<side {
            for x in 0..<side {
                let nx = (Float(x) + 0.5 - r) / r, ny = (Float(y) + 0.5 - r) / r
                let d = nx * nx + ny * ny
                guard d < 1 else {
                    buffer[x, y] = SIMD4(0, 0, 0, 1)
                    continue
                }
                let n = SIMD3<Float>(nx, ny, (1 - d).squareRoot())
                let diffuse = max(0, (n * light).sum())
                let v = min(1, 0.12 + 0.88 * diffuse)
                buffer[x, y] = SIMD4(v, v, v, 1)
            }
        }
        return buffer
    }

    /// A 256 x 1 ramp through `stops`, evenly spaced.
    static func ramp() throws -> PixelBuffer {
        let stops: [SIMD4<Float>] = [
            [0.05, 0.05, 0.30, 1], [0.55, 0.10, 0.50, 1], [0.92, 0.30, 0.20, 1], [1.00, 0.70, 0.15, 1],
            [1.00, 0.98, 0.75, 1],
        ]
        var buffer = try PixelBuffer(width: 256, height: 1, format: .rgba8)
        for x in 0..<256 {
            let t = Float(x) / 255 * Float(stops.count - 1)
            let i = min(stops.count - 2, Int(t))
            let f = t - Float(i)
            buffer[x, 0] = stops[i] * (1 - f) + stops[i + 1] * f
        }
        return buffer
    }

    /// Eight palette colors in an 8 x 1 image.
    static func paletteColors() throws -> PixelBuffer {
        let colors: [SIMD4<Float>] = [
            [0.08, 0.08, 0.10, 1], [0.15, 0.25, 0.60, 1], [0.85, 0.20, 0.20, 1], [1.00, 0.60, 0.15, 1],
            [1.00, 0.92, 0.35, 1], [0.25, 0.65, 0.30, 1], [0.45, 0.75, 0.95, 1], [0.97, 0.97, 0.95, 1],
        ]
        var buffer = try PixelBuffer(width: colors.count, height: 1, format: .rgba8)
        for (x, c) in colors.enumerated() { buffer[x, 0] = c }
        return buffer
    }
}
