import CSIMD

extension RenderPlan {
    /// The plan as text: settings, what the optimizer changed, then each stage with the nodes
    /// it fuses (as a tree, outputs first) and the buffers that will be materialized.
    /// With `destination`, also whether the render into that buffer takes the byte path
    /// (`BytePlan`), and if not, why; without, whether the graph has the byte path's shape.
    func explain(destination: PixelBuffer? = nil) -> String {
        var lines: [String] = []
        let grid = outputGrid()
        let strips =
            grid.tileWidth == options.tileWidth
            ? ""
            : isPointwise
                ? " (full-width strips: every node is pointwise)"
                : " (full-width strips: rows read from left to right)"
        lines.append(
            "render \(rect.width)x\(rect.height) at (\(rect.x), \(rect.y)); \(grid.count) tiles of "
                + "\(grid.tileWidth)x\(grid.tileHeight)\(strips); \(options.threadCount) thread(s); working space "
                + (options.colorManagement == .linear ? "linear" : "none") + "; optimization "
                + (options.optimizes ? "on" : "off"))
        let before = GraphWalk.postOrder(original).count, after = order.count
        lines.append(
            "optimizer: \(before) node(s) -> \(after)" + (optimizerLog.isEmpty ? "" : "; " + optimizerLog.joined(separator: "; "))
        )
        var stageNumber: [ObjectIdentifier: Int] = [:]
        var total = 0
        for (i, n) in materializedNodes.enumerated() {
            stageNumber[ObjectIdentifier(n)] = i + 1
            let r = region(of: n) ?? .empty
            let bytes = r.area * 16
            total += bytes
            lines.append(
                "stage \(i + 1): buffer \(r.width)x\(r.height) rgbaF32 (\(mib(bytes))), \(reasons[ObjectIdentifier(n)]?.description ?? "")"
            )
            describe(n, into: &lines, indent: "  ", stages: stageNumber, isStageRoot: true)
        }
        lines.append("stage \(materializedNodes.count + 1): output tiles")
        describe(root, into: &lines, indent: "  ", stages: stageNumber, isStageRoot: true)
        lines.append("materialized buffers: \(materializedNodes.count), \(mib(total))")
        let schedule = StripSchedule(
            plan: self, stripHeight: RenderContext(options: options).stripHeight(rowBytes: rect.width * 4))
        for source in schedule.sources {
            let s = source.source
            let rowBytes = s.width * s.format.bytesPerPixel
            let streams = source.capacity < s.height
            lines.append(
                "streamed source \(s.description): "
                    + (streams
                        ? "a streaming write decodes it into a window of \(source.capacity) of \(s.height) rows (\(mib(source.capacity * rowBytes)))"
                        : "read in random order: decoded whole (\(mib(s.height * rowBytes))) even in a streaming write")
                    + "; a render into a buffer decodes it whole first; "
                    + (s.heldBytes > 0
                        ? "the file's bytes are held in memory (\(mib(s.heldBytes)))"
                        : "the file is read as rows are decoded"))
        }
        for n in order {
            guard case let .source(b) = n.op, let origin = n.origin else { continue }
            lines.append("source \(b.width)x\(b.height) \(b.format) (\(mib(b.height * b.bytesPerRow))): \(origin)")
        }
        if let destination {
            switch BytePlan.make(root: root, rect: rect, options: options, buffer: destination) {
            case let .success(p):
                lines.append(
                    "byte path: on: \(p.summary) into \(destination.format) \(destination.alphaMode); "
                        + "the stages above are not run")
            case let .failure(why):
                lines.append("byte path: off: \(why)")
                if let stage = stageWritingOutput(into: destination),
                    let k = materializedNodes.firstIndex(where: { $0 === stage })
                {
                    lines.append(
                        "stage \(k + 1) is computed straight into the destination (no buffer of its own, no output tiles)")
                }
            }
        } else if case let .success(p) = BytePlan.recognize(root) {
            lines.append(
                "byte path: possible for \(p.summary), when rendered into a \(p.source.format) buffer "
                    + "(explain(_:rect:into:) tells)")
        }
        return lines.joined(separator: "\n")
    }

    /// How the fused color chain that starts at `top` runs (see `Evaluator.evaluateColorChain`).
    private func colorChainNote(_ top: Node, stages: [ObjectIdentifier: Int]) -> String {
        var ops: [Op] = []
        var n = top
        while true {
            switch n.op {
            case .color, .colorMatrix:
                ops.append(n.op)
                n = n.inputs[0]
                if stages[ObjectIdentifier(n)] == nil { continue }
            default: break
            }
            break
        }
        let steps = "\(ops.count) step\(ops.count == 1 ? "" : "s")"
        if ops.count == 1, case let .colorMatrix(m) = ops[0], m.premultipliedForm != nil {
            return "{one matrix: on premultiplied values, or a planar program over a straight source}"
        }
        guard PointProgram(ops.reversed()) != nil else { return "{color chain: \(steps), interleaved kernels}" }
        return "{color chain: \(steps), planar program (\(pf_csimd_uses_avx2() != 0 ? "AVX2" : "baseline"))}"
    }

    private func mib(_ bytes: Int) -> String {
        let m = Double(bytes) / 1_048_576
        return m >= 10 ? "\(Int(m.rounded())) MiB" : "\((m * 10).rounded() / 10) MiB"
    }

    /// Appends `node` and its inputs, stopping at other stages' buffers. Iterative.
    private func describe(
        _ node: Node, into lines: inout [String], indent: String, stages: [ObjectIdentifier: Int],
        isStageRoot: Bool
    ) {
        var stack: [(Node, String, Bool, Bool)] = [(node, indent, isStageRoot, false)]
        var printed = Set<ObjectIdentifier>()
        while let (n, ind, isRoot, insideChain) = stack.popLast() {
            let id = ObjectIdentifier(n)
            if !isRoot, let k = stages[id] {
                lines.append(ind + "<- stage \(k) buffer (\(n.op.kindName) \(n.op.label))")
                continue
            }
            if !printed.insert(id).inserted {
                lines.append(ind + "\(n.op.kindName) \(n.op.label) (shared, computed above)")
                continue
            }
            var text = ind + "\(n.op.kindName) \(n.op.label)"
            if let r = region(of: n) { text += "  [\(r.width)x\(r.height)]" }
            if case let .stencil(s) = n.op, let note = s.formNote { text += " " + note }
            let isColor: Bool
            switch n.op {
            case .color, .colorMatrix: isColor = true
            default: isColor = false
            }
            if isColor && !insideChain { text += " " + colorChainNote(n, stages: stages) }
            lines.append(text)
            for input in n.inputs.reversed() { stack.append((input, ind + "  ", false, isColor)) }
        }
    }
}

extension RenderContext {
    /// The plan a render of `rect` of `image` (default: its extent) would run: the optimized
    /// graph, its stages, fused nodes, folded matrices and transforms, and the buffers that
    /// would be materialized with their sizes. Computes no pixels.
    public func explain(_ image: Image, rect: Rect? = nil) throws -> String {
        try validate()
        let r = try renderRect(image, rect)
        return RenderPlan(root: _colorManagedRoot(image.node, encodedDestination: true), rect: r, options: options).explain()
    }

    /// Like `explain(_:rect:)`, for a render into `buffer` (its format, encoding and alpha
    /// mode): the last line says whether the byte path runs (`byte path: on: ...`) or why not
    /// (`byte path: off: ...`). Reads the source's alpha when that decides.
    public func explain(_ image: Image, rect: Rect? = nil, into buffer: PixelBuffer) throws -> String {
        try validate()
        let r = try renderRect(image, rect)
        return RenderPlan(
            root: _colorManagedRoot(image.node, encodedDestination: buffer.colorEncoding == .sRGB),
            rect: r, options: options
        ).explain(destination: buffer)
    }
}
