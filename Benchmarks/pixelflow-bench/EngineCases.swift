import Foundation
import PixelFlow

/// The peer benchmark's SEPIA matrix and bias.
let sepiaRows: [SIMD4<Float>] = [
    SIMD4(0.393, 0.769, 0.189, 0), SIMD4(0.349, 0.686, 0.168, 0), SIMD4(0.272, 0.534, 0.131, 0), SIMD4(0, 0, 0, 1),
]
let sepiaBias = SIMD4<Float>(0.05, 0.02, -0.03, 0)

/// invert -> color controls (1.2, 0.1, 1.1) -> gamma 0.75 -> sepia matrix with bias -> exposure +0.5,
/// as the peer benchmark's chain5.
func chain5(_ image: Image) throws -> Image {
    try image.colorInverted().colorControls(saturation: 1.2, brightness: 0.1, contrast: 1.1).gammaAdjusted(power: 0.75)
        .colorMatrix(r: sepiaRows[0], g: sepiaRows[1], b: sepiaRows[2], a: sepiaRows[3], bias: sepiaBias)
        .exposureAdjusted(ev: 0.5)
}

/// Mean absolute difference of two float buffers of the same size.
func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
    var total = 0.0
    for y in 0..<a.height {
        for x in 0..<a.width { let d = a[x, y] - b[x, y]; total += Double(abs(d.x) + abs(d.y) + abs(d.z) + abs(d.w)) }
    }
    return total / Double(a.width * a.height * 4)
}

/// The engine's cases: roofline ratio of a color matrix, fusion and folding gains, region
/// of interest, and peak memory.
func runEngineCases(input8: PixelBuffer, inputF: PixelBuffer, out8: inout PixelBuffer, outF: inout PixelBuffer) throws {
    let W = input8.width, H = input8.height, pixels = W * H
    let sepia = ColorMatrix(rows: sepiaRows[0], sepiaRows[1], sepiaRows[2], sepiaRows[3], bias: sepiaBias)
    print("== engine cases")
    // Straight sRGB-valued floats, as the peer benchmark's f32 images.
    let straightF = input8.converted(to: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
    var outStraight = try PixelBuffer(width: W, height: H, format: .rgbaF32, colorEncoding: .sRGB, alphaMode: .straight)
    for t in options.threads {
        let ctx = RenderContext(threadCount: t)
        let raw = RenderContext(threadCount: t, colorManagement: .none)
        let rawOff = RenderContext(threadCount: t, colorManagement: .none, optimizes: false)
        let roof16 = rooflines[t]?.bound(bytesPerPixelRead: 16, written: 16)

        let cm = try Image(inputF).colorMatrix(
            r: sepia.row(0), g: sepia.row(1), b: sepia.row(2), a: sepia.row(3), bias: sepia.bias)
        let m1 = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
            try ctx.render(cm, to: &outF)
        }
        emit(
            record(
                "color_matrix", variant: "color_matrix_linear_pm", dtype: "rgbaF32->rgbaF32", threads: t, pixels: pixels, m1,
                roofline: roof16))

        let cmStraight = try Image(straightF).colorMatrix(
            r: sepiaRows[0], g: sepiaRows[1], b: sepiaRows[2], a: sepiaRows[3], bias: sepiaBias)
        let mOne = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
            try raw.render(cmStraight, to: &outStraight)
        }
        emit(
            record(
                "color_matrix", variant: "color_matrix_straight", dtype: "f32->f32", threads: t, pixels: pixels, mOne,
                roofline: roof16))
        // The chain's most expensive step alone: gamma 0.75 is six square roots per pixel.
        let gammaAlone = try Image(straightF).gammaAdjusted(power: 0.75)
        let mGamma = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
            try raw.render(gammaAlone, to: &outStraight)
        }
        emit(record("gamma", variant: "gamma_straight", dtype: "f32->f32", threads: t, pixels: pixels, mGamma, roofline: roof16))
        let c5 = try chain5(Image(straightF))
        let mOn = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
            try raw.render(c5, to: &outStraight)
        }
        emit(
            record(
                "chain5", variant: "chain5_f32_optimized", dtype: "f32->f32", threads: t, pixels: pixels, mOn, roofline: roof16))
        let mOff = try Measurement.run(warmup: 1, runs: max(3, options.runs / 2), minTime: 0) {
            try rawOff.render(c5, to: &outStraight)
        }
        emit(
            record(
                "chain5", variant: "chain5_f32_unoptimized", dtype: "f32->f32", threads: t, pixels: pixels, mOff, roofline: roof16
            ))
        print(
            String(
                format:
                    "  chain5 / color matrix alone = %.2f (goal <= 1.3); chain5 / gamma alone = %.2f; unoptimized / optimized = %.1f (goal >= 3)",
                mOn.median / mOne.median, mOn.median / mGamma.median, mOff.median / mOn.median))

        let c5u8 = try chain5(Image(input8))
        let m5 = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
            try ctx.render(c5u8, to: &out8)
        }
        emit(
            record(
                "chain5", variant: "chain5_u8_srgb", dtype: "rgba8->rgba8", threads: t, pixels: pixels, m5,
                roofline: rooflines[t]?.bound(bytesPerPixelRead: 4, written: 4)))
        let chain3 = try Image(input8).sepiaTone(intensity: 0.8).exposureAdjusted(ev: 0.5).colorInverted()
        let m3 = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
            try ctx.render(chain3, to: &out8)
        }
        emit(
            record(
                "chain3_sepia_exposure_invert", dtype: "rgba8->rgba8", threads: t, pixels: pixels, m3,
                roofline: rooflines[t]?.bound(bytesPerPixelRead: 4, written: 4)))
        // The chain5 goal for 8-bit sRGB images, as photographs come: one color matrix rgba8 ->
        // rgba8 with the same decoding to linear light and encoding back as chain5_u8_srgb.
        let cm8 = try Image(input8).colorMatrix(
            r: sepia.row(0), g: sepia.row(1), b: sepia.row(2), a: sepia.row(3), bias: sepia.bias)
        let mCM8 = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
            try ctx.render(cm8, to: &out8)
        }
        emit(
            record(
                "color_matrix", variant: "color_matrix_u8_srgb", dtype: "rgba8->rgba8", threads: t, pixels: pixels, mCM8,
                roofline: rooflines[t]?.bound(bytesPerPixelRead: 4, written: 4)))
        print(String(format: "  rgba8 sRGB: chain5 / color matrix alone = %.2f (goal <= 1.3)", m5.median / mCM8.median))

        // Rotate 15 degrees about the center, scale 0.8, translate: folded into one warp.
        let cx = Double(W) / 2, cy = Double(H) / 2
        let rotate = AffineTransform(translationX: -cx, y: -cy).concatenating(AffineTransform(rotationAngle: 15 * .pi / 180))
            .concatenating(AffineTransform(translationX: cx, y: cy))
        let scale = AffineTransform(scaleX: 0.8, y: 0.8), move = AffineTransform(translationX: 40, y: 25)
        let chained = try Image(straightF).transformed(by: rotate).transformed(by: scale).transformed(by: move)
        let single = try Image(straightF).transformed(by: rotate.concatenating(scale).concatenating(move))
        let rect = Rect(x: 0, y: 0, width: W, height: H)
        let mChain = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
            try raw.render(chained, rect: rect, to: &outStraight)
        }
        emit(record("affine_chain3", dtype: "f32->f32", threads: t, pixels: pixels, mChain))
        let chainedOut = outStraight
        let mSingle = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
            try raw.render(single, rect: rect, to: &outStraight)
        }
        emit(record("affine_single", dtype: "f32->f32", threads: t, pixels: pixels, mSingle))
        let singleOut = outStraight
        let mChainOff = try Measurement.run(warmup: 1, runs: 3, minTime: 0) {
            try rawOff.render(chained, rect: rect, to: &outStraight)
        }
        emit(
            record(
                "affine_chain3", variant: "affine_chain3_unoptimized", dtype: "f32->f32", threads: t, pixels: pixels, mChainOff))
        if t == options.threads.first {
            print(
                String(
                    format:
                        "  affine chain / single warp = %.2f; mean |difference| from the exact composite: folded %.2e, three resamplings %.2e",
                    mChain.median / mSingle.median, meanDifference(chainedOut, singleOut), meanDifference(outStraight, singleOut))
            )
        }

        // Region of interest: a 100x100 crop of a blurred image against the whole blur.
        let blurred = try Image(input8).clampedToExtent().gaussianBlurred(radius: 10)
        var whole = try PixelBuffer(width: W, height: H, format: .rgba8)
        let mWhole = try Measurement.run(warmup: 1, runs: max(3, options.runs / 2), minTime: 0) {
            try ctx.render(blurred, rect: rect, to: &whole)
        }
        emit(record("gaussian_r10_whole", dtype: "rgba8->rgba8", threads: t, pixels: pixels, mWhole))
        var small = try PixelBuffer(width: 100, height: 100, format: .rgba8)
        let cropRect = Rect(x: Double(W / 2), y: Double(H / 2), width: 100, height: 100)
        let mCrop = try Measurement.run(warmup: options.warmup, runs: options.runs, minTime: options.minTime) {
            try ctx.render(blurred.cropped(to: cropRect), to: &small)
        }
        emit(record("gaussian_r10_crop100", dtype: "rgba8->rgba8", threads: t, pixels: 10_000, mCrop))
        print(String(format: "  100x100 crop of the blur / whole blur = %.2f%% (goal < 2%%)", 100 * mCrop.median / mWhole.median))
    }
    for name in ["chain3_u8", "chain5_u8"] {
        if let peak = childPeak(name, width: W, height: H) {
            let inOut = Double(2 * W * H * 4) / 1_048_576
            print(
                String(
                    format:
                        "peak RSS %@ (child process): %.1f MiB; before rendering %.1f MiB (input %.1f MiB); input + output + 64 MiB = %.1f MiB; a full-size float intermediate alone would be %.1f MiB",
                    name as NSString, Double(peak.after) / 1_048_576, Double(peak.before) / 1_048_576, inOut / 2, inOut + 64,
                    Double(W * H * 16) / 1_048_576))
            let variant = name == "chain5_u8" ? "chain5_u8_srgb" : "chain3_sepia_exposure_invert"
            for i in results.indices where results[i].variant == variant {
                results[i].peak_rss_mb = Double(peak.after) / 1_048_576
                results[i].rss_before_mb = Double(peak.before) / 1_048_576
            }
        }
    }
}

// MARK: Child processes for peak memory

/// Renders one named case once and prints the resident set before rendering and the peak
/// after, in bytes (the peak is reset after the input is made, where the kernel allows).
func runEngineChild(_ name: String, width: Int, height: Int) throws {
    let input = try makeTestImage(width: width, height: height)
    let before = resetPeakResident() ? residentBytes() : peakResidentBytes()
    var out = try PixelBuffer(width: width, height: height, format: .rgba8)
    let image: Image
    switch name {
    case "chain3_u8": image = try Image(input).sepiaTone(intensity: 0.8).exposureAdjusted(ev: 0.5).colorInverted()
    case "chain5_u8": image = try chain5(Image(input))
    default: fail("unknown child case \(name)")
    }
    try RenderContext().render(image, to: &out)
    print("\(before) \(peakResidentBytes())")
}

func childPeak(_ name: String, width: Int, height: Int) -> (before: Int, after: Int)? {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    p.arguments = ["--child", name, "--size", "\(width)x\(height)"]
    let pipe = Pipe()
    p.standardOutput = pipe
    do { try p.run() } catch { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    let parts = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    return parts.count == 2 ? (parts[0], parts[1]) : nil
}
