/// An image as a recipe: an immutable node of a filter graph with an extent.
///
/// Nothing is computed when an image is made or filtered; a `RenderContext` computes the
/// pixels of a rect when asked. Filtering returns a new image that refers to this one, so
/// chains are cheap to build and share.
///
/// ```swift
/// let image = Image(buffer)
/// let chain = try image.exposureAdjusted(ev: 0.5).sepiaTone(intensity: 0.8)
/// let pixels = try RenderContext().makeBuffer(chain)
/// ```
///
/// Coordinates have their origin at the top-left and y pointing down; a buffer's pixel
/// `(x, y)` covers `[x, x+1) x [y, y+1)`. An extent may be infinite (generators, clamped
/// images): render those with an explicit rect.
public struct Image: Sendable, Hashable, CustomStringConvertible {
    let node: Node

    /// The orientation the file this image was read from declared, and whether reading it
    /// applied it; nil for an image not read from a file (`Image(contentsOfFile:)`,
    /// `Image(encoded:)`), including the images filters make from one. See `FileOrientation`.
    /// Not part of equality, which compares recipes.
    public internal(set) var fileOrientation: FileOrientation?

    init(node: Node, fileOrientation: FileOrientation? = nil) {
        self.node = node
        self.fileOrientation = fileOrientation
    }

    /// An image of the pixels of `buffer`, with its top-left corner at the origin.
    public init(_ buffer: PixelBuffer) {
        node = Node(.source(buffer), inputs: [], extent: buffer.bounds)
    }

    /// An infinite image of one color (`CIConstantColorGenerator`).
    public init(color: Color) {
        node = Image.constantNode(color)
    }

    static func constantNode(_ color: Color) -> Node {
        let c = color
        let kernel = GeneratorKernel(name: "constant \(c)", constant: nil) { _, _, count, out, linear in
            out.update(repeating: c.working(linear: linear), count: count)
        }
        return Node(.generator(kernel), inputs: [], extent: .infinite)
    }

    /// The empty image: transparent everywhere, with an empty extent.
    public static let empty = Image(node: Node(.crop(.empty), inputs: [Image.constantNode(.clear)], extent: .empty))

    /// Where the image can be non-transparent; possibly infinite.
    public var extent: Rect { node.extent }

    /// The image restricted to `rect`: transparent outside it (`CICrop`).
    ///
    /// A rect outside the extent gives an image with an empty extent, which renders as an error
    /// unless a rect is given.
    public func cropped(to rect: Rect) -> Image {
        let e = extent.intersection(rect)
        return Image(node: Node(.crop(rect), inputs: [node], extent: e.isEmpty ? .empty : e))
    }

    /// The image with its edge pixels repeated to infinity in every direction.
    ///
    /// Blurring a clamped image and cropping the result back to the original extent avoids the
    /// dark fringe that transparent surroundings would blend in.
    public func clampedToExtent() -> Image {
        if extent.isInfinite { return self }
        let e = IntRect(covering: extent)
        if e.isEmpty { return self }
        return Image(node: Node(.warp(.clamp(extent: e)), inputs: [node], extent: .infinite))
    }

    /// Moves, scales, rotates or shears the image; each output pixel samples the input at the
    /// inverse-transformed position of its center.
    ///
    /// - Parameters:
    ///   - transform: maps input coordinates to output coordinates.
    ///   - sampling: how the image is resampled (default `.bilinear`).
    /// - Throws: `PixelFlowError.invalidParameter` when the transform is not finite or not invertible.
    public func transformed(by transform: AffineTransform, sampling: Sampling = .bilinear) throws -> Image {
        guard transform.isFinite, transform.inverted() != nil else {
            throw PixelFlowError.invalidParameter(
                filter: "CIAffineTransform", key: "inputTransform",
                reason: "must be finite and invertible, got \(transform)")
        }
        if transform.isIdentity { return self }
        let e = extent.isInfinite ? Rect.infinite : transform.apply(to: extent)
        return Image(node: Node(.warp(.affine(transform, sampling)), inputs: [node], extent: e))
    }

    /// The image composited over `background` (Porter-Duff source-over).
    public func composited(over background: Image) -> Image {
        blended(with: background, kernel: BuiltinBlend.sourceOver.kernel(name: "sourceOver", extentRule: .union))
    }

    // MARK: Builders used by filters

    /// Applies a color matrix to the unpremultiplied pixels.
    func applyingColorMatrix(_ m: ColorMatrix) -> Image {
        if m.isIdentity { return self }
        return Image(node: Node(.colorMatrix(m), inputs: [node], extent: extent))
    }

    /// Applies a per-pixel color kernel to the unpremultiplied pixels.
    func applyingColorKernel(_ k: ColorKernel) -> Image {
        Image(node: Node(.color(k), inputs: [node], extent: extent))
    }

    /// Combines `self` (foreground) with `background` through a blend kernel.
    func blended(with background: Image, kernel: BlendKernel) -> Image {
        let e: Rect
        switch kernel.extentRule {
        case .union: e = extent.union(background.extent)
        case .background: e = background.extent
        case .foreground: e = extent
        case .intersection: e = extent.intersection(background.extent)
        }
        return Image(node: Node(.blend(kernel), inputs: [node, background.node], extent: e))
    }

    /// Applies a stencil; the extent grows by its reach.
    func applyingStencil(_ s: Stencil) -> Image {
        let h = s.halo
        let e = extent.isInfinite ? extent : extent.insetBy(dx: -Double(h.x), dy: -Double(h.y))
        return Image(node: Node(.stencil(s), inputs: [node], extent: e))
    }

    /// Applies a stencil that also reads `others` (its inputs 1, 2, ...; see
    /// `StencilKernel.reading`), with the output extent `extent`.
    func applyingStencil(_ k: StencilKernel, reading others: [Image], extent: Rect) -> Image {
        Image(node: Node(.stencil(.custom(k)), inputs: [node] + others.map(\.node), extent: extent))
    }

    public static func == (l: Image, r: Image) -> Bool { l.node === r.node }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(node)) }
    public var description: String { "Image(\(node), extent \(extent))" }
}
