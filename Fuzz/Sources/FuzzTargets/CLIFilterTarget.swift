import PixelFlow
import PixelFlowCLI

/// The `pixelflow` command line's `--filter` parser: the bytes as UTF-8 text, one spec per
/// line (at most 8), each parsed with `FilterStep(parsing:)`, checked with `validate()`,
/// described with `explanation(source:)`, given a small image for every image input it
/// names, and applied in turn to a small image; the chain is rendered on a 24 x 24 rect.
/// Parsing may throw only `CLIError` (what the tool reports as a usage error); applying
/// and rendering only `PixelFlowError`.
enum CLIFilterTarget {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let placeholder = PixelFlowPlaceholder.image
        var image = placeholder
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).prefix(8) {
            var step: FilterStep
            do {
                step = try FilterStep(parsing: String(line))
                try step.validate()
            } catch is CLIError {
                continue
            } catch {
                preconditionFailure("FilterStep(parsing: \(String(reflecting: String(line)))) threw \(type(of: error)): \(error)")
            }
            _ = step.explanation(source: "input")
            do {
                try step.loadImages { _ in PixelFlowPlaceholder.buffer }
                image = try step.apply(to: image)
            } catch {
                expectPixelFlowError(error, "\(step.descriptor.name) from '\(line)'")
            }
        }
        do {
            let options = RenderContext.Options(threadCount: 1, maximumRenderPixelCount: FilterProgram.renderBudget)
            _ = try RenderContext(options: options).makeBuffer(image, rect: Rect(x: 0, y: 0, width: 24, height: 24))
        } catch {
            expectPixelFlowError(error, "render")
        }
    }
}

/// A 16 x 12 gradient, standing in for the files named on a command line.
enum PixelFlowPlaceholder {
    static let buffer: PixelBuffer = {
        guard var b = try? PixelBuffer(width: 16, height: 12, format: .rgba8) else {
            preconditionFailure("a 16x12 buffer must be creatable")
        }
        b.withUnsafeMutableRows { y, row in
            for x in 0..<16 {
                for c in 0..<4 {
                    row.storeBytes(
                        of: UInt8(truncatingIfNeeded: x * 16 + y * 20 + c * 60), toByteOffset: 4 * x + c, as: UInt8.self)
                }
            }
        }
        return b
    }()
    static let image = Image(buffer)
}
