import CSIMD

extension RenderPlan {
    /// The lowered pipeline as text (`lower(into:)`): settings, what the optimizer changed,
    /// then each stage with its placement, the stages it reads and the nodes it runs (as a
    /// tree, outputs first), each with its kernel form and where each input's pixels come
    /// from (in place, converted rows, computed, a stage's buffer) and the edge-split rule.
    /// With `destination`, also whether the render into that buffer takes the byte path
    /// (`BytePlan`), and if not, why; without, whether the graph has the byte path's shape.
    func explain(destination: PixelBuffer? = nil) -> String {
        let pipeline = lower(into: destination)
        var lines: [String] = []
        let grid = outputGrid()
        let bands =
            grid.tileWidth == options.tileWidth
            ? ""
            : isPointwise
                ? " (full-width bands: every node is pointwise)"
                : " (full-width bands: rows read from left to right)"
        lines.append(
            "render \(rect.width)x\(rect.height) at (\(rect.x), \(rect.y)); \(grid.count) tiles of "
                + "\(grid.tileWidth)x\(grid.tileHeight)\(bands); \(options.threadCount) thread(s); working space "
                + (options.colorManagement == .linear ? "linear" : "none") + "; optimization "
                + (options.optimizes ? "on" : "off"))
        let before = GraphWalk.postOrder(original).count, after = order.count
        lines.append(
            "optimizer: \(before) node(s) -> \(after)" + (optimizerLog.isEmpty ? "" : "; " + optimizerLog.joined(separator: "; "))
        )
        var total = 0
        for stage in pipeline.stages {
            let placement = Self.describe(stage.placement)
            let reads =
                stage.reads.isEmpty
                ? ""
                : "; reads stage\(stage.reads.count == 1 ? "" : "s") "
                    + stage.reads.map(String.init).joined(separator: ", ")
            if let reason = stage.reason {
                let r = stage.region
                let bytes = stage.placement == .intoDestination ? 0 : r.area * 16
                total += bytes
                let buffer =
                    stage.placement == .intoDestination
                    ? "into the destination \(r.width)x\(r.height)" : "buffer \(r.width)x\(r.height) rgbaF32 (\(mib(bytes)))"
                lines.append("stage \(stage.number): \(buffer), \(reason); \(placement)\(reads)")
            } else {
                lines.append("stage \(stage.number): output tiles; \(placement)\(reads)")
            }
            describe(stage.node, into: &lines, indent: "  ", pipeline: pipeline, isStageRoot: true)
        }
        lines.append(
            "stage buffers: \(pipeline.stages.filter { $0.reason != nil && $0.placement != .intoDestination }.count), \(mib(total))"
        )
        let schedule = StripSchedule(
            plan: self, stripHeight: RenderContext(resolvedOptions: options).stripHeight(rowBytes: rect.width * 4))
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
        switch pipeline.bytePath {
        case let .success(p)?:
            lines.append(
                "byte path: on: \(p.summary) into \(destination!.format) \(destination!.alphaMode); "
                    + "the stages above are not run")
        case let .failure(why)?:
            lines.append("byte path: off: \(why)")
            if pipeline.output.placement == .intoDestination {
                lines.append(
                    "stage \(pipeline.output.number) is computed straight into the destination (no buffer of its own, no output tiles)"
                )
            }
        case nil:
            // A strip write (a file format with a row encoder) into 8-bit RGBA rows.
            let strips = stripBytePlans(schedule: schedule, rowFormat: .rgba8, windows: [])
            if case let .success(plans) = strips, let p = plans.first {
                lines.append(
                    "byte path: a strip write into rgba8 rows runs \(p.summary) strip by strip"
                        + (schedule.sources.isEmpty ? "" : ", reading the streamed rows in place"))
            } else if case let .success(p) = BytePlan.recognize(root, streamed: streamedByteSources(windows: [:])) {
                let why = if case let .failure(r) = strips { "\(r)" } else { "no strips" }
                lines.append(
                    "byte path: possible for \(p.summary), when rendered into a \(p.source.format) buffer "
                        + "(explain(_:rect:into:) tells); off for a strip write into rgba8 rows: \(why)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A placement in words.
    static func describe(_ p: Pipeline.Placement) -> String {
        switch p {
        case let .tiles(w, h, n): return "\(n) tiles of \(w)x\(h)"
        case let .bands(w, h, n): return "\(n) full-width bands of \(w)x\(h)"
        case .wholeRegion: return "whole region at once"
        case .intoDestination: return "whole region, written straight into the destination"
        }
    }

    /// A kernel form in words.
    static func describe(_ f: KernelForm) -> String {
        switch f {
        case .load: return "load rows"
        case .generator: return "row generator"
        case .pointProgram(1, true):
            return "{one matrix: on premultiplied values, or a planar program over a straight source}"
        case let .pointProgram(n, _):
            return
                "{color chain: \(n) step\(n == 1 ? "" : "s"), planar program (\(pf_csimd_uses_avx2() != 0 ? "AVX2" : "baseline"))}"
        case let .interleavedChain(n): return "{color chain: \(n) step\(n == 1 ? "" : "s"), interleaved kernels}"
        case let .builtinBlend(name): return "built-in blend \(name)"
        case let .blendClosure(name): return "blend closure \(name)"
        case let .sampler(name): return "sampler \(name)"
        case let .correlation2D(w, h): return "2-D taps \(w)x\(h)"
        case let .separableTaps(n): return "separable taps (\(n))"
        case let .wholeRegionPasses(what): return what
        case let .closure(name): return "closure \(name)"
        case .crop: return "crop"
        case let .reduction(name): return "reduction \(name)"
        }
    }

    /// An input's storage in words.
    static func describe(_ s: InputStorage) -> String {
        switch s {
        case .computed: return "computed"
        case .inPlace(nil): return "in place (source)"
        case let .inPlace(k?): return "in place (stage \(k))"
        case .convertedRows: return "converted rows"
        case let .stageBuffer(k): return "stage \(k) buffer"
        case .unused: return "unused"
        }
    }

    private func mib(_ bytes: Int) -> String {
        let m = Double(bytes) / 1_048_576
        return m >= 10 ? "\(Int(m.rounded())) MiB" : "\((m * 10).rounded() / 10) MiB"
    }

    /// Appends `node` and its inputs, stopping at other stages' buffers, each with its step's
    /// decisions. Iterative.
    private func describe(
        _ node: Node, into lines: inout [String], indent: String, pipeline: Pipeline, isStageRoot: Bool
    ) {
        var stack: [(Node, String, Bool, Bool)] = [(node, indent, isStageRoot, false)]
        var printed = Set<ObjectIdentifier>()
        while let (n, ind, isRoot, insideChain) = stack.popLast() {
            let id = ObjectIdentifier(n)
            let step = pipeline.step(n)
            if !isRoot, let k = step?.stage {
                lines.append(ind + "<- stage \(k) buffer (\(n.op.kindName) \(n.op.label))")
                continue
            }
            if !printed.insert(id).inserted {
                lines.append(ind + "\(n.op.kindName) \(n.op.label) (shared, computed above)")
                continue
            }
            var text = ind + "\(n.op.kindName) \(n.op.label)"
            if let r = region(of: n) { text += "  [\(r.width)x\(r.height)]" }
            let isColor = step?.chain != nil
            if let step, !(isColor && insideChain), step.form != .crop {
                text += " " + Self.describe(step.form)
            }
            if let step, !step.inputs.isEmpty, !(isColor && insideChain) {
                text += "; input" + (step.inputs.count == 1 ? " " : "s ") + step.inputs.map(Self.describe).joined(separator: ", ")
            }
            if let inner = step?.edgeSplit {
                text += "; edge split: tiles reaching outside \(inner) read a core in place, copy margins"
            }
            lines.append(text)
            for input in n.inputs.reversed() { stack.append((input, ind + "  ", false, isColor)) }
        }
    }
}

extension RenderContext {
    /// `RenderPlan.explain(destination:)` of a render of `rect` of the graph `root`
    /// (color-managed, as rendered): PixelFlow's `explain(_:rect:)` and `explain(_:rect:into:)`.
    package func explain(_ root: Node, rect: IntRect, destination: PixelBuffer? = nil) -> String {
        RenderPlan(root: root, rect: rect, options: options).explain(destination: destination)
    }
}
