extension RenderPlan {
    /// The byte plans of a strip write (`RenderContext.writeInStrips`), one per strip of
    /// `schedule`, or why the strips run the float path. Each strip then runs its plan into
    /// an 8-bit strip buffer that goes to the encoder as it is: no float conversion, and a
    /// streamed source's decoded rows are read in place in its window (`ByteSource`).
    ///
    /// The plans are those of rendering the whole rect into a buffer, strip by strip:
    /// - the encoder takes `rgba8` or `gray8` rows (sRGB, straight alpha) and the whole rect
    ///   has a byte plan (`BytePlan.make`), so a streamed source that might hold translucent
    ///   pixels only runs the forms that need no alpha scan (its rows are not decoded yet);
    /// - every strip's plan is the same form as the whole rect's (`summary`): a form chosen
    ///   per rect, such as the 2x2 box where a strip lies inside the crops but the whole rect
    ///   does not, would otherwise make the bytes depend on the strip height;
    /// - each strip reads only rows of its windows that are decoded before it renders and not
    ///   overwritten while it does (the rows `schedule` computed from the float path's
    ///   regions of interest).
    ///
    /// The byte forms compute each output row from its own taps, whatever the rows around
    /// it, so the strips' bytes are those of the in-memory byte render of the whole rect.
    ///
    /// - Complexity: per strip, the plan's taps (O(outputs x taps)); for an in-memory
    ///   straight-alpha source, the alpha scans of the pixels read.
    func stripBytePlans(
        schedule: StripSchedule, rowFormat: PixelFormat, windows: [RowWindow]
    ) -> Result<[BytePlan], BytePlan.Refusal> {
        // Without windows (explain()), plans are made but never run.
        var byNode: [ObjectIdentifier: RowWindow] = [:]
        for (s, w) in zip(schedule.sources, windows) { byNode[ObjectIdentifier(s.node)] = w }
        let streamed = streamedByteSources(windows: byNode)
        guard rowFormat == .rgba8 || rowFormat == .gray8 else {
            return .failure(BytePlan.Refusal("the encoder takes \(rowFormat) rows"))
        }
        guard
            let rows = try? PixelBuffer(
                _width: 1, height: 1, format: rowFormat, colorEncoding: .sRGB, alphaMode: .straight, zeroed: false)
        else { return .failure(BytePlan.Refusal("no strip buffer")) }
        let whole: BytePlan
        switch BytePlan.make(root: root, rect: rect, options: options, buffer: rows, streamed: streamed) {
        case let .success(p): whole = p
        case let .failure(why): return .failure(why)
        }
        var plans: [BytePlan] = []
        for (k, strip) in schedule.strips.enumerated() {
            let plan: BytePlan
            switch BytePlan.make(root: root, rect: strip, options: options, buffer: rows, streamed: streamed, reusing: whole) {
            case let .success(p): plan = p
            case let .failure(why): return .failure(BytePlan.Refusal("strip \(k): \(why)"))
            }
            guard plan.summary == whole.summary else {
                return .failure(
                    BytePlan.Refusal("strip \(k) would run another form (\(plan.summary)) than the whole rect"))
            }
            if case let .streamed(s, _) = plan.source.storage, let rows = plan.sourceRows(for: strip) {
                guard let i = schedule.sources.firstIndex(where: { $0.source === s }) else {
                    return .failure(BytePlan.Refusal("a streamed source without a window"))
                }
                let src = schedule.sources[i]
                let last = src.rowsBefore.count - 1
                let decoded = src.rowsBefore[Swift.min(k, last)]
                let kept = src.rowsBefore[Swift.min(k + StripSchedule.lookahead, last)] - src.capacity
                guard rows.upperBound <= decoded, rows.lowerBound >= kept else {
                    return .failure(
                        BytePlan.Refusal(
                            "strip \(k) reads rows \(rows) of the streamed source, outside its window's rows"))
                }
            }
            plans.append(plan)
        }
        return .success(plans)
    }
}

extension RenderPlan {
    /// The byte sources of the streamed sources the render reads, by node: through `windows`
    /// where given, else for planning only (`explain()`, or before decoding).
    func streamedByteSources(windows: [ObjectIdentifier: RowWindow]) -> [ObjectIdentifier: ByteSource] {
        var out: [ObjectIdentifier: ByteSource] = [:]
        for n in order where region(of: n) != nil {
            if case let .streamedSource(s) = n.op {
                out[ObjectIdentifier(n)] = ByteSource(s, window: windows[ObjectIdentifier(n)])
            }
        }
        return out
    }
}

extension BytePlan {
    /// The source rows the render of `rect` reads, nil when none; all rows when unknown.
    func sourceRows(for rect: IntRect) -> Range<Int>? {
        if case let .warp(.box2x2(_, y0)) = form { return 2 * rect.y + y0..<2 * rect.maxY + y0 }
        if case .warp(.affine) = form { return 0..<source.height }
        if let k = exactBox { return k * rect.y..<Swift.min(source.height, k * rect.maxY) }
        guard let r = sourceRegion(for: rect) else { return nil }
        if let k = shrink?.factor, k > 1 { return k * r.y..<Swift.min(source.height, k * r.maxY) }
        return r.y..<r.maxY
    }
}
