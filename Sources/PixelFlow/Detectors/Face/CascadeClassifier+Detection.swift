import Dispatch
import Foundation
import Synchronization

/// How `CascadeClassifier.detectObjects` searches: the parameters of OpenCV's
/// `detectMultiScale(image, scaleFactor, minNeighbors, flags, minSize, maxSize)`, plus a stride
/// multiplier and a thread count.
public struct CascadeSearchOptions: Sendable, Hashable {
    /// How much the window grows from one scale to the next (> 1; OpenCV's `scaleFactor`).
    public var scaleFactor: Double
    /// How many raw detections a group needs beyond the first to be reported (OpenCV's
    /// `minNeighbors`: a group of `n` windows is kept when `n > minimumNeighbors`); 0 reports
    /// every raw window, ungrouped.
    public var minimumNeighbors: Int
    /// The smallest object size, in pixels (OpenCV's `minSize`; 0 for the cascade's window).
    public var minimumSize: (width: Int, height: Int) {
        get { (minimumWidth, minimumHeight) }
        set { minimumWidth = newValue.width; minimumHeight = newValue.height }
    }
    /// The largest object size, in pixels (OpenCV's `maxSize`; nil for the image size).
    public var maximumSize: (width: Int, height: Int)? {
        get { maximumWidth.map { ($0, maximumHeight ?? $0) } }
        set { maximumWidth = newValue?.width; maximumHeight = newValue?.height }
    }
    /// Multiplies OpenCV's window stride (2 pixels of the scaled image below scale 2, else 1).
    /// 1 matches OpenCV; 2 visits a quarter of the windows (faster, may miss small objects).
    public var strideMultiplier: Int
    /// Worker threads (nil: one per processor). Results never depend on it.
    public var threadCount: Int?

    var minimumWidth = 0, minimumHeight = 0
    var maximumWidth: Int?, maximumHeight: Int?

    /// OpenCV's `detectMultiScale` defaults (1.1, 3, no size limits), OpenCV's stride, all processors.
    public init(
        scaleFactor: Double = 1.1, minimumNeighbors: Int = 3, minimumSize: (width: Int, height: Int) = (0, 0),
        maximumSize: (width: Int, height: Int)? = nil, strideMultiplier: Int = 1, threadCount: Int? = nil
    ) {
        self.scaleFactor = scaleFactor
        self.minimumNeighbors = minimumNeighbors
        self.strideMultiplier = strideMultiplier
        self.threadCount = threadCount
        self.minimumSize = minimumSize
        self.maximumSize = maximumSize
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.scaleFactor == b.scaleFactor && a.minimumNeighbors == b.minimumNeighbors && a.strideMultiplier == b.strideMultiplier
            && a.threadCount == b.threadCount && a.minimumWidth == b.minimumWidth && a.minimumHeight == b.minimumHeight
            && a.maximumWidth == b.maximumWidth && a.maximumHeight == b.maximumHeight
    }

    public func hash(into h: inout Hasher) {
        h.combine(scaleFactor); h.combine(minimumNeighbors); h.combine(strideMultiplier); h.combine(threadCount)
        h.combine(minimumWidth); h.combine(minimumHeight); h.combine(maximumWidth); h.combine(maximumHeight)
    }
}

/// An integer rectangle in pixels (OpenCV's `cv::Rect`).
struct _IntRect: Hashable, Sendable {
    var x: Int, y: Int, width: Int, height: Int
    var rect: Rect { Rect(x: x, y: y, width: width, height: height) }
}

extension CascadeClassifier {
    /// Finds objects in `buffer` as OpenCV's `CascadeClassifier::detectMultiScale` does with
    /// the same cascade and parameters, and returns their bounding boxes in pixels (origin at
    /// the top-left), in scan order of the first window of each group.
    ///
    /// The algorithm follows OpenCV 4's step by step, so that the boxes are the same:
    /// the image is converted to 8-bit gray (`BGR2GRAY` weights in fixed point; see
    /// `_CascadeKernels.gray`), no histogram equalisation; for each scale factor
    /// `f = scaleFactor^k` whose window `round(window x f)` fits the image and the size
    /// limits, the gray image is resized to `round(size / f)` with bit-exact bilinear
    /// interpolation; integral images are taken; windows are tried every 2 pixels of the scaled
    /// image (every pixel once `f >= 2`), skipping one more position after a window fails the
    /// first stage; a Haar window whose inner standard deviation (the window less a 1-pixel
    /// border) is below about 10 grey levels is rejected; each stage sums its trees' leaves in
    /// double precision and rejects below its threshold (less 1e-5). Accepted windows, mapped
    /// back to the image, are grouped as `cv::groupRectangles(rects, minNeighbors, 0.2)` does.
    ///
    /// Images above 33.5 million pixels (`maximumLevelPixels`) are searched from the first
    /// pyramid level that is not larger (smaller faces are not looked for), which caps the
    /// scratch memory at about 440 MB; below that size nothing differs from OpenCV.
    ///
    /// - Complexity: O(pixels x (1 + 1/scaleFactor² + …)) for the pyramid and integrals, plus
    ///   O(windows x features evaluated), parallel over rows; scratch of about 13 bytes per
    ///   pixel of the image (three 32-bit integral planes and the scaled image).
    public func detectObjects(in buffer: PixelBuffer, options: CascadeSearchOptions = CascadeSearchOptions()) -> [Rect] {
        let gray = _CascadeKernels.gray(from: buffer)
        return _detect(gray, options: options).map(\.rect)
    }

    /// Detection on a gray image: raw windows, then grouping.
    func _detect(_ gray: _Gray8, options: CascadeSearchOptions) -> [_IntRect] {
        _detectCounting(gray, options: options).map(\.rect)
    }

    /// `_detect`, with the number of raw windows behind each result.
    func _detectCounting(_ gray: _Gray8, options: CascadeSearchOptions, control: RenderControl? = nil)
        -> [(rect: _IntRect, count: Int)]
    {
        let raw = _candidates(gray, options: options, control: control)
        if control?.isCancelled == true { return [] }
        return _RectangleGrouping.groupCounting(raw, threshold: options.minimumNeighbors, eps: 0.2)
    }

    /// The most pixels a searched pyramid level may have (2^25, 33.5 million); see `_candidates`.
    static let maximumLevelPixels = 1 << 25

    /// The scale factors OpenCV's `detectMultiScaleNoGrouping` tries for an image of this size.
    func _scales(imageWidth: Int, imageHeight: Int, options: CascadeSearchOptions) -> [Float] {
        guard options.scaleFactor > 1, options.scaleFactor.isFinite else { return [] }
        let maxW = options.maximumWidth.map { $0 > 0 ? $0 : imageWidth } ?? imageWidth
        let maxH = options.maximumHeight.map { $0 > 0 ? $0 : imageHeight } ?? imageHeight
        var scales: [Float] = []
        var factor = 1.0
        while scales.count < 10_000 {
            let ww = Int((Double(windowWidth) * factor).rounded(.toNearestOrEven))
            let wh = Int((Double(windowHeight) * factor).rounded(.toNearestOrEven))
            if ww > maxW || wh > maxH || ww > imageWidth || wh > imageHeight { break }
            if ww >= options.minimumWidth && wh >= options.minimumHeight { scales.append(Float(factor)) }
            factor *= options.scaleFactor
        }
        return scales
    }

    /// The cascade compiled for `layout`, from a one-entry cache (a detector usually sees
    /// frames of one size, and landmark searches always use the same crop size).
    func _compiled(for layout: _PlaneLayout, plan: _EvaluationPlan) -> _CompiledCascade {
        let key = _LayoutKey(stride: layout.stride, planeSize: layout.planeSize)
        if let hit = _compiledCache.withLock({ $0?.key == key ? $0?.value : nil }) { return hit }
        let compiled = plan.compile(layout)
        _compiledCache.withLock { $0 = (key, compiled) }
        return compiled
    }

    /// How many progress units one pyramid (`_candidates` with a control) advances.
    static let _progressUnitsPerPass = 1000

    /// Every window the cascade accepts, before grouping, in (scale, y, x) order.
    ///
    /// With a `control`, advances `_progressUnitsPerPass` units in proportion to the window
    /// origins of the levels done, checks it before every level and between bands of window rows (inside
    /// the parallel scan), and stops early once it is cancelled, with partial results that the
    /// caller must drop.
    func _candidates(_ gray: _Gray8, options: CascadeSearchOptions, control: RenderControl? = nil) -> [_IntRect] {
        var advanced = 0
        defer { control?.advanceUnlessCancelled(Self._progressUnitsPerPass - advanced) }
        var scales = _scales(imageWidth: gray.width, imageHeight: gray.height, options: options)
        // Memory cap: the planes take 13 bytes per pixel of the largest level searched, so
        // levels above `maximumLevelPixels` (about 8K x 4K) are skipped: on larger images the
        // smallest faces looked for grow accordingly.
        while let first = scales.first,
            Double(gray.width) * Double(gray.height) / (Double(first) * Double(first)) > Double(Self.maximumLevelPixels)
        {
            scales.removeFirst()
        }
        guard !scales.isEmpty else { return [] }
        let plan = _EvaluationPlan(self)
        let threads = max(1, options.threadCount ?? ProcessInfo.processInfo.activeProcessorCount)
        let stride = max(1, options.strideMultiplier)

        // One set of planes sized for the first (largest) scale, reused for every scale, so that
        // the feature offsets (which depend on the row stride only) are computed once.
        let w0 = Int((Float(gray.width) / scales[0]).rounded(.toNearestOrEven))
        let h0 = Int((Float(gray.height) / scales[0]).rounded(.toNearestOrEven))
        let rowStride = w0 + 1
        let planeSize = rowStride * (h0 + 1)
        let layout = _PlaneLayout(
            stride: rowStride, planeSize: planeSize, tilted: hasTiltedFeatures,
            squares: featureKind == .haar)
        let compiled = _compiled(for: layout, plan: plan)
        var planes = [Int32](repeating: 0, count: planeSize * layout.planeCount)
        var scaled = [UInt8](repeating: 0, count: w0 * h0)
        var result: [_IntRect] = []
        // OpenCV splits rows into `nstripes` stripes of `stripeSize` rows (a multiple of the
        // step, computed with a truncating division), so on some scales the last row of window
        // origins is never visited; reproduce that. nstripes comes from the first scale.
        let nstripes = max(1, Int((Double(max(w0 + 1 - windowWidth, 0)) / 32).rounded(.up)))
        // Progress: the window origins of the levels done, out of all levels' (about the
        // pixels of a level over its step squared: levels at scale 2 and above visit every origin).
        let levelWindows = scales.map { sc in
            let step = Double((sc >= 2 ? 1 : 2) * stride)
            return Double(Int((Float(gray.width) / sc).rounded(.toNearestOrEven)))
                * Double(Int((Float(gray.height) / sc).rounded(.toNearestOrEven))) / (step * step)
        }
        let allWindows = max(1, levelWindows.reduce(0, +))
        var windowsDone = 0.0
        let token = control?.token

        for (level, sc) in scales.enumerated() {
            if token?.isCancelled == true { return result }
            if control != nil {
                let target = Int(Double(Self._progressUnitsPerPass) * windowsDone / allWindows)
                if target > advanced {
                    control?.advanceUnlessCancelled(target - advanced)
                    advanced = target
                }
                windowsDone += levelWindows[level]
            }
            let sw = Int((Float(gray.width) / sc).rounded(.toNearestOrEven))
            let sh = Int((Float(gray.height) / sc).rounded(.toNearestOrEven))
            // Working size: window origins x in 0..<(sw + 1 - window), as OpenCV's getWorkingSize.
            let workW = max(sw + 1 - windowWidth, 0), workH = max(sh + 1 - windowHeight, 0)
            guard workW > 0, workH > 0, sw <= w0, sh <= h0 else { continue }
            let openCVStep = sc >= 2 ? 1 : 2
            let stripeSize = max((workH / openCVStep + nstripes - 1) / nstripes, 1) * openCVStep
            let lastRow = min(nstripes * stripeSize, workH)  // origins y < lastRow
            let step = openCVStep * stride
            scaled.withUnsafeMutableBufferPointer { dst in
                gray.pixels.withUnsafeBufferPointer { src in
                    _CascadeKernels.resizeLinearExact(
                        src.baseAddress!, width: gray.width, height: gray.height,
                        into: dst.baseAddress!, width: sw, height: sh, threads: threads)
                }
            }
            planes.withUnsafeMutableBufferPointer { p in
                scaled.withUnsafeBufferPointer { s in
                    let base = p.baseAddress!
                    _CascadeKernels.integralParallel(
                        s.baseAddress!, width: sw, height: sh, sum: base,
                        squares: layout.squares ? base + layout.squaresOffset : nil,
                        stride: rowStride, threads: threads)
                    if layout.tilted {
                        _CascadeKernels.tiltedIntegral(
                            s.baseAddress!, width: sw, height: sh,
                            tilted: base + layout.tiltedOffset, stride: rowStride)
                    }
                }
            }
            let rows = (lastRow + step - 1) / step
            let winW = Int((Float(windowWidth) * sc).rounded(.toNearestOrEven))
            let winH = Int((Float(windowHeight) * sc).rounded(.toNearestOrEven))
            let hits = planes.withUnsafeBufferPointer { p in
                compiled.scan(
                    planes: p.baseAddress!, rows: rows, step: step, workWidth: workW, threads: threads,
                    cancellation: token)
            }
            for (x, y) in hits {
                result.append(
                    _IntRect(
                        x: Int((Float(x) * sc).rounded(.toNearestOrEven)),
                        y: Int((Float(y) * sc).rounded(.toNearestOrEven)), width: winW, height: winH))
            }
        }
        return result
    }
}

struct _LayoutKey: Equatable, Sendable { var stride: Int; var planeSize: Int }

/// Where the integral planes of one scale live in the shared buffer.
struct _PlaneLayout {
    var stride: Int
    var planeSize: Int
    var tilted: Bool
    var squares: Bool
    var tiltedOffset: Int { planeSize }
    var squaresOffset: Int { planeSize * (tilted ? 2 : 1) }
    var planeCount: Int { 1 + (tilted ? 1 : 0) + (squares ? 1 : 0) }
}

/// The cascade in the shape the scanner wants: per weak classifier, its feature's integral
/// offsets inlined (for the row stride of the planes), so a window evaluation is a walk over
/// one contiguous array.
struct _EvaluationPlan {
    let cascade: CascadeClassifier
    init(_ cascade: CascadeClassifier) { self.cascade = cascade }

    func compile(_ layout: _PlaneLayout) -> _CompiledCascade {
        let c = cascade
        let s = layout.stride
        func haarOpt(_ f: CascadeClassifier._HaarFeature) -> _HaarOpt {
            var o = [Int32](repeating: 0, count: 12)
            var w: [Float] = [0, 0, 0]
            for (k, r) in f.rects.enumerated() where k < 3 {
                w[k] = r.weight
                let p: [Int]
                if f.tilted {
                    let t = layout.tiltedOffset
                    p = [
                        t + r.x + s * r.y, t + r.x - r.height + s * (r.y + r.height),
                        t + r.x + r.width + s * (r.y + r.width), t + r.x + r.width - r.height + s * (r.y + r.width + r.height),
                    ]
                } else {
                    p = [
                        r.x + s * r.y, r.x + r.width + s * r.y, r.x + s * (r.y + r.height), r.x + r.width + s * (r.y + r.height),
                    ]
                }
                for j in 0..<4 { o[4 * k + j] = Int32(p[j]) }
            }
            return _HaarOpt(
                o0: o[0], o1: o[1], o2: o[2], o3: o[3], o4: o[4], o5: o[5], o6: o[6], o7: o[7],
                o8: o[8], o9: o[9], o10: o[10], o11: o[11], w0: w[0], w1: w[1], w2: w[2])
        }
        func lbpOpt(_ f: CascadeClassifier._LBPFeature) -> _LBPOpt {
            var o = [Int32](repeating: 0, count: 16)
            for j in 0..<4 { for i in 0..<4 { o[j * 4 + i] = Int32((f.y + j * f.height) * s + f.x + i * f.width) } }
            return _LBPOpt(
                o: (o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7], o[8], o[9], o[10], o[11], o[12], o[13], o[14], o[15]))
        }
        var compiled = _CompiledCascade(kind: c.featureKind, stumpBased: c.isStumpBased)
        compiled.stageCounts = c.stages.map { Int32($0.treeCount) }
        compiled.stageThresholds = c.stages.map(\.threshold)
        // Variance window: the window less a one-pixel border.
        let nw = c.windowWidth - 2, nh = c.windowHeight - 2
        compiled.norm = (Int32(1 + s), Int32(1 + nw + s), Int32(1 + s * (1 + nh)), Int32(1 + nw + s * (1 + nh)))
        compiled.normArea = Double(nw * nh)
        compiled.squaresOffset = layout.squaresOffset
        compiled.rowStride = s
        switch c.featureKind {
        case .haar:
            compiled.haarFeatures = c.haarFeatures.map(haarOpt)
            if c.isStumpBased {
                compiled.haarStumps = c.trees.map { t in
                    let n = c.nodes[t.firstNode]
                    return _HaarStump(
                        feature: compiled.haarFeatures[n.featureIndex], threshold: n.threshold,
                        left: c.leaves[t.firstLeaf], right: c.leaves[t.firstLeaf + 1])
                }
            }
        case .lbp:
            compiled.lbpFeatures = c.lbpFeatures.map(lbpOpt)
            if c.isStumpBased {
                compiled.lbpStumps = c.trees.map { t in
                    let n = c.nodes[t.firstNode]
                    let b = t.firstNode * 8
                    let sub = c.subsets
                    return _LBPStump(
                        feature: compiled.lbpFeatures[n.featureIndex],
                        subset: (sub[b], sub[b + 1], sub[b + 2], sub[b + 3], sub[b + 4], sub[b + 5], sub[b + 6], sub[b + 7]),
                        left: c.leaves[t.firstLeaf], right: c.leaves[t.firstLeaf + 1])
                }
            }
        }
        compiled.trees = c.trees.map { _CompiledTree(firstNode: Int32($0.firstNode), firstLeaf: Int32($0.firstLeaf)) }
        compiled.nodes = c.nodes.map {
            _CompiledNode(
                feature: Int32($0.featureIndex), threshold: $0.threshold,
                left: Int32($0.left), right: Int32($0.right))
        }
        compiled.leaves = c.leaves
        compiled.subsets = c.subsets
        return compiled
    }
}

struct _HaarOpt {
    var o0, o1, o2, o3, o4, o5, o6, o7, o8, o9, o10, o11: Int32
    var w0, w1, w2: Float

    /// The feature's weighted rectangle sums at window origin `p` (before variance
    /// normalisation), in float as OpenCV's `HaarEvaluator::OptFeature::calc`.
    @inline(__always)
    func value(_ p: UnsafePointer<Int32>) -> Float {
        let s0 = p[Int(o0)] &- p[Int(o1)] &- p[Int(o2)] &+ p[Int(o3)]
        let s1 = p[Int(o4)] &- p[Int(o5)] &- p[Int(o6)] &+ p[Int(o7)]
        var r = w0 * Float(s0) + w1 * Float(s1)
        if w2 != 0 {
            let s2 = p[Int(o8)] &- p[Int(o9)] &- p[Int(o10)] &+ p[Int(o11)]
            r += w2 * Float(s2)
        }
        return r
    }
}

struct _HaarStump { var feature: _HaarOpt; var threshold: Float; var left: Float; var right: Float }

struct _LBPOpt {
    var o: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32)

    /// The 8-bit multi-block LBP code at window origin `p`, bit order as OpenCV's
    /// `LBPEvaluator::OptFeature::calc` (clockwise from the top-left block, MSB first).
    @inline(__always)
    func code(_ p: UnsafePointer<Int32>) -> Int {
        @inline(__always) func at(_ i: Int32) -> Int32 { p[Int(i)] }
        @inline(__always) func box(_ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32) -> Int32 { at(a) &- at(b) &- at(c) &+ at(d) }
        let c = box(o.5, o.6, o.9, o.10)
        var code = box(o.0, o.1, o.4, o.5) >= c ? 128 : 0
        code |= box(o.1, o.2, o.5, o.6) >= c ? 64 : 0
        code |= box(o.2, o.3, o.6, o.7) >= c ? 32 : 0
        code |= box(o.6, o.7, o.10, o.11) >= c ? 16 : 0
        code |= box(o.10, o.11, o.14, o.15) >= c ? 8 : 0
        code |= box(o.9, o.10, o.13, o.14) >= c ? 4 : 0
        code |= box(o.8, o.9, o.12, o.13) >= c ? 2 : 0
        code |= box(o.4, o.5, o.8, o.9) >= c ? 1 : 0
        return code
    }
}

struct _LBPStump {
    var feature: _LBPOpt
    var subset: (Int32, Int32, Int32, Int32, Int32, Int32, Int32, Int32)
    var left: Float
    var right: Float

    @inline(__always)
    func contains(_ c: Int) -> Bool {
        let word: Int32
        switch c >> 5 {
        case 0: word = subset.0
        case 1: word = subset.1
        case 2: word = subset.2
        case 3: word = subset.3
        case 4: word = subset.4
        case 5: word = subset.5
        case 6: word = subset.6
        default: word = subset.7
        }
        return (word >> Int32(c & 31)) & 1 != 0
    }
}

struct _CompiledTree { var firstNode: Int32; var firstLeaf: Int32 }
struct _CompiledNode { var feature: Int32; var threshold: Float; var left: Int32; var right: Int32 }

/// A cascade compiled for one plane layout, with the window scanner.
struct _CompiledCascade: @unchecked Sendable {
    // `@unchecked Sendable`: all stored arrays are immutable after `compile`; the scanner only
    // reads them from several threads.
    let kind: CascadeClassifier.FeatureKind
    let stumpBased: Bool
    var stageCounts: [Int32] = []
    var stageThresholds: [Float] = []
    var norm: (Int32, Int32, Int32, Int32) = (0, 0, 0, 0)
    var normArea: Double = 0
    var squaresOffset = 0
    var rowStride = 0
    var haarFeatures: [_HaarOpt] = []
    var haarStumps: [_HaarStump] = []
    var lbpFeatures: [_LBPOpt] = []
    var lbpStumps: [_LBPStump] = []
    var trees: [_CompiledTree] = []
    var nodes: [_CompiledNode] = []
    var leaves: [Float] = []
    var subsets: [Int32] = []

    init(kind: CascadeClassifier.FeatureKind, stumpBased: Bool) {
        self.kind = kind
        self.stumpBased = stumpBased
    }

    /// Scans `rows` rows of window origins (`y = row x step`), `x` in `0..<workWidth` by `step`
    /// (one more step after a first-stage rejection), and returns the accepted origins in
    /// (y, x) order. Rows are shared among `threads` workers; the result does not depend on it.
    /// Once `cancellation` is cancelled, workers take no more bands (partial result).
    func scan(
        planes: UnsafePointer<Int32>, rows: Int, step: Int, workWidth: Int, threads: Int,
        cancellation: CancellationToken? = nil
    ) -> [(Int, Int)] {
        let chunkRows = max(1, min(8, rows / max(1, threads * 8)))
        let chunks = (rows + chunkRows - 1) / chunkRows
        let results = _ChunkResults(count: chunks)
        let shared = _SharedPlanes(base: planes)
        let body: @Sendable (Int) -> Void = { chunk in
            if cancellation?.isCancelled == true { return }
            var hits: [(Int, Int)] = []
            let r0 = chunk * chunkRows, r1 = min(rows, r0 + chunkRows)
            self.scanRows(shared.base, rows: r0..<r1, step: step, workWidth: workWidth, into: &hits)
            results.store(chunk, hits)
        }
        let workers = min(threads, chunks)
        if workers <= 1 {
            for c in 0..<chunks { body(c) }
        } else {
            let next = Atomic<Int>(0)
            DispatchQueue.concurrentPerform(iterations: workers) { _ in
                while true {
                    let c = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    if c >= chunks { break }
                    body(c)
                }
            }
        }
        return results.joined()
    }

    /// Scans the window origins of `rows` (row r is y = r x step). The stump cascades (all of
    /// OpenCV's face cascades) take a loop with every array pointer fetched once per call;
    /// tree cascades go through `evaluate`.
    func scanRows(_ planes: UnsafePointer<Int32>, rows: Range<Int>, step: Int, workWidth: Int, into hits: inout [(Int, Int)]) {
        let stride = rowStride
        if kind == .haar && stumpBased {
            haarStumps.withUnsafeBufferPointer { st in
                stageCounts.withUnsafeBufferPointer { counts in
                    stageThresholds.withUnsafeBufferPointer { thresholds in
                        let stumps = st.baseAddress!
                        let n0 = Int(norm.0), n1 = Int(norm.1), n2 = Int(norm.2), n3 = Int(norm.3)
                        let area = normArea, sqOffset = squaresOffset
                        for r in rows {
                            let y = r * step
                            let rowBase = planes + y * stride
                            var x = 0
                            while x < workWidth {
                                let p = rowBase + x
                                // OpenCV's HaarEvaluator::setWindow: reject flat windows.
                                let q = p + sqOffset
                                let valsum = p[n0] &- p[n1] &- p[n2] &+ p[n3]
                                let valsq = UInt32(bitPattern: q[n0] &- q[n1] &- q[n2] &+ q[n3])
                                let nf = area * Double(valsq) - Double(valsum) * Double(valsum)
                                var result = -1
                                if nf > 0 {
                                    let factor = Float(1 / nf.squareRoot())
                                    if area * Double(factor) < 0.1 {
                                        result = Self.haarStumpCascade(p, factor, stumps, counts, thresholds)
                                    }
                                }
                                if result > 0 { hits.append((x, y)) }
                                if result == 0 { x += step }
                                x += step
                            }
                        }
                    }
                }
            }
        } else if kind == .lbp && stumpBased {
            lbpStumps.withUnsafeBufferPointer { st in
                stageCounts.withUnsafeBufferPointer { counts in
                    stageThresholds.withUnsafeBufferPointer { thresholds in
                        let stumps = st.baseAddress!
                        for r in rows {
                            let y = r * step
                            let rowBase = planes + y * stride
                            var x = 0
                            while x < workWidth {
                                let result = Self.lbpStumpCascade(rowBase + x, stumps, counts, thresholds)
                                if result > 0 { hits.append((x, y)) }
                                if result == 0 { x += step }
                                x += step
                            }
                        }
                    }
                }
            }
        } else {
            for r in rows {
                let y = r * step
                let rowBase = planes + y * stride
                var x = 0
                while x < workWidth {
                    let result = evaluate(rowBase + x)
                    if result > 0 { hits.append((x, y)) }
                    if result == 0 { x += step }
                    x += step
                }
            }
        }
    }

    /// The stages of a Haar stump cascade at window `p` (variance factor already known):
    /// OpenCV's `predictOrderedStump`. 1 when accepted, `-stage` when rejected.
    @inline(__always)
    static func haarStumpCascade(
        _ p: UnsafePointer<Int32>, _ factor: Float, _ stumps: UnsafePointer<_HaarStump>,
        _ counts: UnsafeBufferPointer<Int32>, _ thresholds: UnsafeBufferPointer<Float>
    ) -> Int {
        var s = stumps
        for si in 0..<counts.count {
            var sum = 0.0
            let end = s + Int(counts[si])
            while s < end {
                let v = s.pointee.feature.value(p) * factor
                sum += Double(v < s.pointee.threshold ? s.pointee.left : s.pointee.right)
                s += 1
            }
            if sum < Double(thresholds[si]) { return -si }
        }
        return 1
    }

    /// OpenCV's `predictCategoricalStump` for an LBP stump cascade at window `p`.
    @inline(__always)
    static func lbpStumpCascade(
        _ p: UnsafePointer<Int32>, _ stumps: UnsafePointer<_LBPStump>,
        _ counts: UnsafeBufferPointer<Int32>, _ thresholds: UnsafeBufferPointer<Float>
    ) -> Int {
        var s = stumps
        for si in 0..<counts.count {
            var sum = 0.0
            let end = s + Int(counts[si])
            while s < end {
                let c = s.pointee.feature.code(p)
                sum += Double(s.pointee.contains(c) ? s.pointee.left : s.pointee.right)
                s += 1
            }
            if sum < Double(thresholds[si]) { return -si }
        }
        return 1
    }

    /// OpenCV's `runAt` for tree cascades (the stump cascades take `scanRows`' own loops): -1
    /// when the window is rejected by the variance test, `-stage` when stage `stage` rejects
    /// it, 1 when every stage accepts it.
    func evaluate(_ p: UnsafePointer<Int32>) -> Int {
        switch kind {
        case .haar:
            let q = p + squaresOffset
            let valsum = p[Int(norm.0)] &- p[Int(norm.1)] &- p[Int(norm.2)] &+ p[Int(norm.3)]
            let valsq = UInt32(bitPattern: q[Int(norm.0)] &- q[Int(norm.1)] &- q[Int(norm.2)] &+ q[Int(norm.3)])
            var nf = normArea * Double(valsq) - Double(valsum) * Double(valsum)
            guard nf > 0 else { return -1 }
            nf = nf.squareRoot()
            let factor = Float(1 / nf)
            guard normArea * Double(factor) < 0.1 else { return -1 }
            return haarTrees(p, factor)
        case .lbp:
            return lbpTrees(p)
        }
    }

    func haarTrees(_ p: UnsafePointer<Int32>, _ factor: Float) -> Int {
        var tree = 0
        for si in 0..<stageCounts.count {
            var sum = 0.0
            for _ in 0..<Int(stageCounts[si]) {
                let t = trees[tree]
                var idx: Int32 = 0
                repeat {
                    let n = nodes[Int(t.firstNode + idx)]
                    let v = haarFeatures[Int(n.feature)].value(p) * factor
                    idx = v < n.threshold ? n.left : n.right
                } while idx > 0
                sum += Double(leaves[Int(t.firstLeaf - idx)])
                tree += 1
            }
            if sum < Double(stageThresholds[si]) { return -si }
        }
        return 1
    }

    func lbpTrees(_ p: UnsafePointer<Int32>) -> Int {
        var tree = 0
        for si in 0..<stageCounts.count {
            var sum = 0.0
            for _ in 0..<Int(stageCounts[si]) {
                let t = trees[tree]
                var idx: Int32 = 0
                repeat {
                    let node = Int(t.firstNode + idx)
                    let n = nodes[node]
                    let c = lbpFeatures[Int(n.feature)].code(p)
                    let word = subsets[node * 8 + (c >> 5)]
                    idx = (word >> Int32(c & 31)) & 1 != 0 ? n.left : n.right
                } while idx > 0
                sum += Double(leaves[Int(t.firstLeaf - idx)])
                tree += 1
            }
            if sum < Double(stageThresholds[si]) { return -si }
        }
        return 1
    }
}

/// The integral planes, read by every scanning worker.
///
/// `@unchecked Sendable`: a raw pointer to planes that are fully written before the scan starts
/// and only read during it; the owning array outlives the scan (it is borrowed around it).
struct _SharedPlanes: @unchecked Sendable { let base: UnsafePointer<Int32> }

/// One result slot per chunk of rows; each chunk writes only its own slot, under a lock.
final class _ChunkResults: Sendable {
    private let slots: Locked<[[(Int, Int)]]>
    init(count: Int) { slots = Locked(Array(repeating: [], count: count)) }
    func store(_ i: Int, _ hits: [(Int, Int)]) {
        guard !hits.isEmpty else { return }
        slots.withLock { $0[i] = hits }
    }
    func joined() -> [(Int, Int)] { slots.withLock { $0.flatMap { $0 } } }
}
