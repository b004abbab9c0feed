import Foundation

/// A boosted cascade of weak classifiers over Haar-like or LBP features, as trained by
/// OpenCV's `opencv_traincascade` and stored in its cascade XML files (the files Debian's
/// `opencv-data` installs under `/usr/share/opencv4/haarcascades` and `.../lbpcascades`).
///
/// ```swift
/// let cascade = try CascadeClassifier(contentsOf: CascadeClassifier.locate("haarcascade_frontalface_default.xml"))
/// let faces = cascade.detectObjects(in: buffer, options: CascadeSearchOptions(scaleFactor: 1.1, minimumNeighbors: 3))
/// ```
///
/// Reads the format `opencv_traincascade` writes (`<cascade><stageType>BOOST</stageType>
/// <featureType>HAAR|LBP</featureType><height>…<width>…<stages>…<features>`), with stumps or
/// deeper trees, upright and tilted (45°) Haar features and LBP features. The older
/// `haartraining` format (only `haarcascade_licence_plate_rus_16stages.xml` among opencv-data's
/// files still uses it) is rejected with `PixelFlowError.unsupportedFormat`.
///
/// Loading validates everything the detector later indexes with (feature indices, tree child
/// links, leaf counts, rectangles inside the window), so a malformed or truncated file throws
/// a `PixelFlowError.decodingFailed` naming the problem; no file makes detection trap.
///
/// The value is immutable and `Sendable`: one instance can serve many threads.
public final class CascadeClassifier: Sendable {
    /// The kind of features the cascade's weak classifiers look at.
    public enum FeatureKind: String, Sendable {
        /// Haar-like features: weighted sums of two or three rectangles, upright or tilted 45°
        /// (Viola and Jones 2001; Lienhart and Maydt 2002), normalised by the window's
        /// standard deviation.
        case haar
        /// Multi-block local binary patterns: a 3x3 grid of equal blocks, each compared with
        /// the centre block, giving an 8-bit code (Liao et al. 2007).
        case lbp
    }

    /// The training window's width in pixels (the smallest object the cascade finds).
    public let windowWidth: Int
    /// The training window's height in pixels.
    public let windowHeight: Int
    /// Haar or LBP.
    public let featureKind: FeatureKind
    /// Where the cascade was read from (a path, or "<data>").
    public let source: String

    // The model, flattened for the evaluator (see CascadeClassifier+Evaluation.swift).
    let stages: [_Stage]
    let trees: [_Tree]
    let nodes: [_Node]
    let leaves: [Float]
    /// 8 words (256 category bits) per node, LBP only.
    let subsets: [Int32]
    let haarFeatures: [_HaarFeature]
    let lbpFeatures: [_LBPFeature]
    /// True when every tree is a single node (a stump), which has a faster evaluator.
    let isStumpBased: Bool
    /// True when some Haar feature is tilted, so the tilted integral is needed.
    let hasTiltedFeatures: Bool
    /// The last compiled form (see `_compiled(for:plan:)`).
    let _compiledCache = Locked<(key: _LayoutKey, value: _CompiledCascade)?>(nil)

    struct _Stage: Sendable { var firstTree: Int; var treeCount: Int; var threshold: Float }
    struct _Tree: Sendable { var firstNode: Int; var nodeCount: Int; var firstLeaf: Int }
    /// A split: `left`/`right` > 0 index a node of the same tree, <= 0 the leaf `-value`.
    struct _Node: Sendable { var featureIndex: Int; var threshold: Float; var left: Int; var right: Int }
    struct _HaarFeature: Sendable {
        /// Up to three rectangles (x, y, width, height) with weights; unused ones have weight 0.
        var rects: [(x: Int, y: Int, width: Int, height: Int, weight: Float)]
        var tilted: Bool
    }
    struct _LBPFeature: Sendable { var x: Int; var y: Int; var width: Int; var height: Int }

    /// Reads a cascade XML file.
    ///
    /// - Throws: `PixelFlowError.io` when the file cannot be read, `.decodingFailed` when it is
    ///   malformed or truncated (the message says what is wrong), `.unsupportedFormat` for the
    ///   old `haartraining` format or another stage/feature type.
    public convenience init(contentsOf url: URL) throws {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw PixelFlowError.io(file: url.path, reason: "cannot read the cascade file (\(error.localizedDescription))")
        }
        try self.init(xmlData: data, source: url.path)
    }

    /// Reads a cascade from the bytes of an XML file; `source` names it in error messages.
    public init(xmlData data: Data, source: String = "<data>") throws {
        func bad(_ reason: String) -> PixelFlowError { .decodingFailed(file: source, reason: reason) }
        let root: _XMLElement
        do { root = try _XMLParser.parse(data) } catch {
            switch error {
            case let .malformed(offset, reason): throw bad("not well-formed XML at byte \(offset): \(reason)")
            }
        }
        guard root.name == "opencv_storage" else {
            throw bad("the root element is <\(root.name)>, not <opencv_storage>: not an OpenCV cascade file")
        }
        guard let cascade = root.children.first else { throw bad("<opencv_storage> is empty") }
        if cascade.child("stageType") == nil {
            if cascade.child("stages") != nil || cascade.attributes["type_id"] == "opencv-haar-classifier" {
                throw PixelFlowError.unsupportedFormat(
                    file: source,
                    reason:
                        "old-style haartraining cascade (<\(cascade.name)> without <stageType>); only the opencv_traincascade format is read"
                )
            }
            throw bad("<\(cascade.name)> has no <stageType>: not a cascade classifier")
        }
        let parsed = try _CascadeReader(source: source).read(cascade)
        windowWidth = parsed.width
        windowHeight = parsed.height
        featureKind = parsed.kind
        self.source = source
        stages = parsed.stages
        trees = parsed.trees
        nodes = parsed.nodes
        leaves = parsed.leaves
        subsets = parsed.subsets
        haarFeatures = parsed.haar
        lbpFeatures = parsed.lbp
        isStumpBased = parsed.trees.allSatisfy { $0.nodeCount == 1 }
        hasTiltedFeatures = parsed.haar.contains { $0.tilted }
    }

    /// Number of stages.
    public var stageCount: Int { stages.count }
}

/// Turns the `<cascade>` element into the flat model, checking every index it will be used with.
struct _CascadeReader {
    let source: String
    /// Largest window side accepted (OpenCV's cascades use 20...60).
    static let maximumWindowSide = 1024

    struct Parsed {
        var width = 0, height = 0
        var kind = CascadeClassifier.FeatureKind.haar
        var stages: [CascadeClassifier._Stage] = []
        var trees: [CascadeClassifier._Tree] = []
        var nodes: [CascadeClassifier._Node] = []
        var leaves: [Float] = []
        var subsets: [Int32] = []
        var haar: [CascadeClassifier._HaarFeature] = []
        var lbp: [CascadeClassifier._LBPFeature] = []
    }

    func bad(_ reason: String) -> PixelFlowError { .decodingFailed(file: source, reason: reason) }

    func required(_ element: _XMLElement, _ name: String, in context: String) throws -> _XMLElement {
        guard let c = element.child(name) else { throw bad("missing <\(name)> in \(context) (truncated or not a cascade file?)") }
        return c
    }

    func integer(_ element: _XMLElement, _ name: String, in context: String) throws -> Int {
        let text = try required(element, name, in: context).text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let v = Int(text) else { throw bad("<\(name)> in \(context) is '\(text.prefix(40))', not an integer") }
        return v
    }

    /// Whitespace-separated numbers, as Doubles (OpenCV reads every number as a double).
    /// (`Character.isWhitespace` also covers "\r\n", one Character, in CRLF files.)
    func numbers(_ text: String, what: String) throws -> [Double] {
        var out: [Double] = []
        for token in text.split(whereSeparator: \.isWhitespace) {
            guard let v = Double(token), v.isFinite else { throw bad("\(what) holds '\(token.prefix(40))', not a finite number") }
            out.append(v)
        }
        return out
    }

    func asInt(_ v: Double, what: String) throws -> Int {
        guard v == v.rounded(), abs(v) < 2_147_483_648 else { throw bad("\(what): \(v) is not a 32-bit integer") }
        return Int(v)
    }

    func read(_ cascade: _XMLElement) throws -> Parsed {
        var p = Parsed()
        let ctx = "<\(cascade.name)>"
        let stageType = try required(cascade, "stageType", in: ctx).text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard stageType == "BOOST" else {
            throw PixelFlowError.unsupportedFormat(
                file: source, reason: "stage type '\(stageType)'; only BOOST cascades are read")
        }
        let featureType = try required(cascade, "featureType", in: ctx).text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch featureType {
        case "HAAR": p.kind = .haar
        case "LBP": p.kind = .lbp
        default:
            throw PixelFlowError.unsupportedFormat(
                file: source, reason: "feature type '\(featureType)'; only HAAR and LBP cascades are read")
        }
        p.width = try integer(cascade, "width", in: ctx)
        p.height = try integer(cascade, "height", in: ctx)
        guard (3...Self.maximumWindowSide).contains(p.width), (3...Self.maximumWindowSide).contains(p.height) else {
            throw bad("window size \(p.width)x\(p.height) is outside 3...\(Self.maximumWindowSide)")
        }
        let featureParams = try required(cascade, "featureParams", in: ctx)
        let categories = (try? integer(featureParams, "maxCatCount", in: "<featureParams>")) ?? 0
        switch p.kind {
        case .haar:
            guard categories == 0 else { throw bad("a HAAR cascade with maxCatCount \(categories) (expected 0)") }
        case .lbp:
            guard categories == 256 else { throw bad("an LBP cascade with maxCatCount \(categories) (expected 256)") }
        }
        let subsetSize = p.kind == .lbp ? 8 : 0
        let nodeStep = 3 + (subsetSize > 0 ? subsetSize : 1)

        // Features first, so that node feature indices can be checked.
        let features = try required(cascade, "features", in: ctx).children
        guard !features.isEmpty else { throw bad("<features> is empty") }
        for (fi, f) in features.enumerated() {
            let what = "feature \(fi)"
            switch p.kind {
            case .haar:
                let rectsElement = try required(f, "rects", in: what)
                guard (1...3).contains(rectsElement.children.count) else {
                    throw bad("\(what) has \(rectsElement.children.count) rectangles (expected 1 to 3)")
                }
                let tilted = ((try? integer(f, "tilted", in: what)) ?? 0) != 0
                var rects: [(x: Int, y: Int, width: Int, height: Int, weight: Float)] = []
                for r in rectsElement.children {
                    let v = try numbers(r.text, what: "\(what) rectangle")
                    guard v.count == 5 else {
                        throw bad("\(what) has a rectangle with \(v.count) numbers (expected x y width height weight)")
                    }
                    let x = try asInt(v[0], what: what), y = try asInt(v[1], what: what)
                    let w = try asInt(v[2], what: what), h = try asInt(v[3], what: what)
                    guard w >= 0, h >= 0 else { throw bad("\(what) has a rectangle of negative size") }
                    // Every corner the evaluator reads must lie inside the window's integral.
                    let inside: Bool
                    if tilted {
                        inside = x - h >= 0 && x + w <= p.width && y >= 0 && y + w + h <= p.height
                    } else {
                        inside = x >= 0 && y >= 0 && x + w <= p.width && y + h <= p.height
                    }
                    guard inside else {
                        throw bad("\(what) has a rectangle (\(x), \(y), \(w), \(h)) outside the \(p.width)x\(p.height) window")
                    }
                    rects.append((x, y, w, h, Float(v[4])))
                }
                p.haar.append(.init(rects: rects, tilted: tilted))
            case .lbp:
                let v = try numbers(try required(f, "rect", in: what).text, what: "\(what) rect")
                guard v.count == 4 else { throw bad("\(what) has \(v.count) numbers in <rect> (expected 4)") }
                let x = try asInt(v[0], what: what), y = try asInt(v[1], what: what)
                let w = try asInt(v[2], what: what), h = try asInt(v[3], what: what)
                guard x >= 0, y >= 0, w >= 1, h >= 1, x + 3 * w <= p.width, y + 3 * h <= p.height else {
                    throw bad("\(what) has a block grid (\(x), \(y), 3x\(w), 3x\(h)) outside the \(p.width)x\(p.height) window")
                }
                p.lbp.append(.init(x: x, y: y, width: w, height: h))
            }
        }
        let featureCount = features.count

        let stagesElement = try required(cascade, "stages", in: ctx)
        guard !stagesElement.children.isEmpty else { throw bad("<stages> is empty") }
        if let declared = try? integer(cascade, "stageNum", in: ctx), declared != stagesElement.children.count {
            throw bad("<stageNum> says \(declared) stages but <stages> holds \(stagesElement.children.count) (truncated file?)")
        }
        for (si, s) in stagesElement.children.enumerated() {
            let what = "stage \(si)"
            let thresholdText = try required(s, "stageThreshold", in: what).text
            let t = try numbers(thresholdText, what: "\(what) threshold")
            guard t.count == 1 else { throw bad("\(what) threshold is not one number") }
            let weak = try required(s, "weakClassifiers", in: what).children
            guard !weak.isEmpty else { throw bad("\(what) has no weak classifiers") }
            // OpenCV subtracts 1e-5 from every stage threshold (THRESHOLD_EPS).
            p.stages.append(.init(firstTree: p.trees.count, treeCount: weak.count, threshold: Float(t[0]) - 1e-5))
            for (wi, w) in weak.enumerated() {
                let wwhat = "\(what) tree \(wi)"
                let internalValues = try numbers(try required(w, "internalNodes", in: wwhat).text, what: "\(wwhat) internalNodes")
                let leafValues = try numbers(try required(w, "leafValues", in: wwhat).text, what: "\(wwhat) leafValues")
                guard !internalValues.isEmpty, internalValues.count % nodeStep == 0 else {
                    throw bad("\(wwhat) has \(internalValues.count) internal-node numbers, not a multiple of \(nodeStep)")
                }
                let nodeCount = internalValues.count / nodeStep
                guard leafValues.count == nodeCount + 1 else {
                    throw bad("\(wwhat) has \(leafValues.count) leaves for \(nodeCount) nodes (expected \(nodeCount + 1))")
                }
                p.trees.append(.init(firstNode: p.nodes.count, nodeCount: nodeCount, firstLeaf: p.leaves.count))
                for n in 0..<nodeCount {
                    let base = n * nodeStep
                    let left = try asInt(internalValues[base], what: wwhat)
                    let right = try asInt(internalValues[base + 1], what: wwhat)
                    let featureIndex = try asInt(internalValues[base + 2], what: wwhat)
                    guard featureIndex >= 0, featureIndex < featureCount else {
                        throw bad("\(wwhat) uses feature \(featureIndex) but there are \(featureCount) features")
                    }
                    // Children must point forward (so evaluation always ends) or to a leaf.
                    for child in [left, right] {
                        guard (child > n && child < nodeCount) || (child <= 0 && -child <= nodeCount) else {
                            throw bad("\(wwhat) node \(n) links to \(child), outside the tree")
                        }
                    }
                    var threshold: Float = 0
                    if subsetSize > 0 {
                        for k in 0..<subsetSize {
                            let word = try asInt(internalValues[base + 3 + k], what: wwhat)
                            p.subsets.append(Int32(truncatingIfNeeded: word))
                        }
                    } else {
                        threshold = Float(internalValues[base + 3])
                    }
                    p.nodes.append(.init(featureIndex: featureIndex, threshold: threshold, left: left, right: right))
                }
                p.leaves.append(contentsOf: leafValues.map { Float($0) })
            }
        }
        return p
    }
}
