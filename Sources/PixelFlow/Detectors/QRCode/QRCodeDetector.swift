/// Finds and reads QR codes in images (Core Image's `CIDetectorTypeQRCode`).
///
/// ```swift
/// let buffer = try PixelBuffer(contentsOfFile: "photo.jpg")
/// for code in try QRCodeDetector().features(in: buffer) {
///     print(code.message ?? "<binary>", code.topLeft, code.version, code.correctionLevel)
/// }
/// ```
///
/// The pipeline (see Docs/QRCode.md): luminance; local-mean thresholding on 8 x 8 blocks
/// (uneven lighting); finder patterns from 1:1:3:1:1 runs on scan lines, checked across;
/// every plausible triple of finders (about a right isosceles triangle, similar module sizes,
/// with room for about 60 degrees of tilt), best first; the symbol size from the finder
/// distances or the version information; a homography fitted to the twelve outer corners of
/// the finders (each finder's corners from its own edges, so foreshortened ones count; each
/// right-ish corner of a triple tried as top-left); the bottom-right alignment pattern by
/// template matching where that grid puts it, and the grid refitted with it (from version 7,
/// and when that fails, refitted to every alignment pattern found), to sample every module
/// centre; `QRCodeDecoder` with its
/// error correction, which rejects grids that are not a QR code. Codes whose finders are
/// used up are removed, so one image can hold several. Light-on-dark codes are read from
/// the inverted threshold image when nothing else was found (or always with `tryHarder`).
/// The first pass scans every other row, and every row again when it read nothing but saw a
/// finder candidate of modules under 3 pixels. At accuracy high, an image with no readable
/// code is searched again, cheapest pass per code read first (Docs/QRCode.md): a low-contrast
/// pass at half resolution (every block with any contrast thresholded at its mean, over a 3 x
/// 3-block window); then, for a polarity whose first scan confirmed a finder candidate on 3 or
/// more lines, twice the resolution over the candidates' region (blurred 2-5 pixel modules;
/// images up to a megapixel, or any size with `tryHarder`); last, when some scan confirmed a
/// candidate on 3 or more lines (or the first saw two of modules under 3 pixels), the
/// low-contrast pass at full resolution (every other row unless the first scan saw small
/// modules). With `tryHarder` every pass runs (and the usual
/// binarization at half resolution too), whole, with no evidence asked.
///
/// Only decoded codes are reported: a symbol damaged beyond its correction capacity gives no
/// feature rather than a wrong message.
///
/// `features(in:cancellation:progress:)` reports progress per search pass and stops within
/// one pass's scan or one decoding attempt when cancelled.
///
/// - Complexity: O(pixels) for thresholding and scanning, plus O(s^2) per decoding attempt
///   for an s x s symbol; attempts are capped (`accuracy` sets how many).
public struct QRCodeDetector: Detector {
    public var options: DetectorOptions

    /// A detector with the given options; the defaults search at high accuracy for codes of any
    /// size.
    public init(options: DetectorOptions = DetectorOptions()) {
        self.options = options
    }

    /// The QR codes in `buffer`, in the order found; empty when none can be read.
    /// Never traps; an empty or tiny buffer gives `[]`.
    public func features(in buffer: PixelBuffer) throws -> [QRCodeFeature] {
        try features(in: buffer, cancellation: nil, progress: nil)
    }

    /// `features(in:)`, watched and cancellable as a render is.
    ///
    /// ```swift
    /// let token = CancellationToken()
    /// let codes = try QRCodeDetector().features(in: buffer, cancellation: token) { print($0) }
    /// ```
    ///
    /// - Parameters:
    ///   - buffer: the image to search, in any pixel format.
    ///   - cancellation: cancels the detection from any thread; it then throws
    ///     `PixelFlowError.cancelled` within about one unit of work (one search pass's
    ///     thresholding and finder scan, or one decoding attempt: the token is checked
    ///     between attempts) and returns no codes, not even those already read.
    ///   - progress: fractions of the work done, increasing, one step per search pass (up to
    ///     six: two polarities at full, half and double resolution; skipped passes count as
    ///     done), ending with exactly one call with 1 on success. Calls never overlap.
    public func features(
        in buffer: PixelBuffer, cancellation: CancellationToken? = nil,
        progress: (@Sendable (Double) -> Void)? = nil
    ) throws -> [QRCodeFeature] {
        try RenderControl.run(cancellation: cancellation, progress: progress, units: 6) { control in
            guard buffer.width >= 21, buffer.height >= 21 else { return [] }
            return features(in: QRLuminance(buffer), control: control)
        }
    }

    /// The codes in `luminance`. With a `control`, advances 6 units (2 per resolution) and
    /// stops early once it is cancelled, returning partial results the caller must drop.
    func features(in luminance: QRLuminance, control: RenderControl? = nil) -> [QRCodeFeature] {
        var evidence = (dark: QRFinderEvidence(), light: QRFinderEvidence())
        var results = searchBothPolarities(luminance, control: control, evidence: &evidence)
        let high = options.accuracy == .high
        let exhaustive = options.tryHarder
        // The half-resolution plane, made once for the passes that use it.
        var halfPlane: QRLuminance?
        func half() -> QRLuminance {
            if let halfPlane { return halfPlane }
            let plane = luminance.halved()
            halfPlane = plane
            return plane
        }
        let halvable = Swift.min(luminance.width, luminance.height) >= 2 * 29
        // The retries, cheapest per code read first (see Docs/QRCode.md, "Retries by cost per
        // code"). Nothing at full resolution: low-contrast codes (15-40 gray levels) fall
        // under the binarizer's flat-block rule; at half resolution, every block with any
        // contrast thresholded at its own mean reads most of them (and blurred large modules),
        // at a quarter of the pixels.
        var lowContrastEvidence = (dark: QRFinderEvidence(), light: QRFinderEvidence())
        if results.isEmpty && high && halvable && control?.isCancelled != true {
            results = searchLowContrast(half(), control: control, evidence: &lowContrastEvidence)
                .map { $0.scaled(by: 2) }
        }
        // Trying harder: the half-resolution plane with the usual binarization too (blurred or
        // noisy large modules; it read no code of the hard set that the other passes miss),
        // and for more codes even when some were found.
        if exhaustive && high && halvable && control?.isCancelled != true {
            var more = searchBothPolarities(half(), control: control, retry: results.isEmpty)
                .map { $0.scaled(by: 2) }
            more.removeAll { f in results.contains { $0.bounds.intersects(f.bounds) && $0.message == f.message } }
            results += more
        } else {
            control?.advanceUnlessCancelled(2)
        }
        // Still nothing: blurred modules of 2-5 pixels read better at twice the resolution
        // (images up to a megapixel, or any size when trying harder). Only for a polarity
        // whose full-resolution scan confirmed a finder candidate on at least
        // `retryEvidence` lines (unless trying harder): every code of the hard set read
        // this way had one, and most images without a code have none, so they skip the
        // costliest pass (four times the pixels).
        let doubleDark = exhaustive || evidence.dark.lines >= QRCodeDetector.retryEvidence
        let doubleLight = exhaustive || evidence.light.lines >= QRCodeDetector.retryEvidence
        if results.isEmpty && high && (luminance.width * luminance.height <= 1 << 20 || exhaustive),
            doubleDark || doubleLight, control?.isCancelled != true
        {
            // Only the part of the image around that polarity's candidates, from the first scan
            // and the half-resolution low-contrast one (all of it when trying harder): the
            // symbols this pass reads have their three finders among them.
            var region = (x0: 0, y0: 0, x1: luminance.width, y1: luminance.height)
            if !exhaustive {
                func twice(_ e: QRFinderEvidence) -> (x0: Int, y0: Int, x1: Int, y1: Int)? {
                    e.lines > 0 ? (2 * e.region.x0, 2 * e.region.y0, 2 * e.region.x1, 2 * e.region.y1) : nil
                }
                var boxes: [(x0: Int, y0: Int, x1: Int, y1: Int)] = []
                if doubleDark { boxes += [evidence.dark.region] + [twice(lowContrastEvidence.dark)].compactMap { $0 } }
                if doubleLight { boxes += [evidence.light.region] + [twice(lowContrastEvidence.light)].compactMap { $0 } }
                region.x0 = Swift.max(boxes.map(\.x0).min() ?? 0, 0)
                region.y0 = Swift.max(boxes.map(\.y0).min() ?? 0, 0)
                region.x1 = Swift.min(boxes.map(\.x1).max() ?? 0, luminance.width)
                region.y1 = Swift.min(boxes.map(\.y1).max() ?? 0, luminance.height)
            }
            let origin = Point(x: Double(region.x0), y: Double(region.y0))
            if region.x1 - region.x0 >= 21 && region.y1 - region.y0 >= 21 {
                let part = luminance.cropped(
                    x: region.x0, y: region.y0, width: region.x1 - region.x0, height: region.y1 - region.y0)
                results = searchBothPolarities(
                    part.doubled(), control: control, dark: doubleDark, light: doubleLight, retry: true
                )
                .map { $0.withCorners { Point(x: $0.x * 0.5 + origin.x, y: $0.y * 0.5 + origin.y) } }
            } else {
                control?.advanceUnlessCancelled(2)
            }
        } else {
            control?.advanceUnlessCancelled(2)
        }
        // Still nothing: the low-contrast binarization at full resolution, for faint codes of
        // small modules; only when a scan so far (full resolution, or the low-contrast one at
        // half) confirmed a finder candidate on `retryEvidence` lines (unless trying harder).
        // Or when the first scan saw two candidates of modules under 3 pixels in one polarity:
        // a finder of 2-pixel modules gives two lines at most under noise.
        let strongest = Swift.max(
            evidence.dark.lines, evidence.light.lines, lowContrastEvidence.dark.lines, lowContrastEvidence.light.lines)
        let smallModules = evidence.dark.smallCount >= 2 || evidence.light.smallCount >= 2
        if results.isEmpty && high && (exhaustive || strongest >= QRCodeDetector.retryEvidence || smallModules),
            control?.isCancelled != true
        {
            // Every other row, unless the full-resolution scan saw a finder candidate of modules
            // under 3 pixels (a finder's centre is then under 9 rows high, and noise breaks
            // the two hits it needs at every other row).
            let sparse = !exhaustive && Swift.min(evidence.dark.smallestModule, evidence.light.smallestModule) >= 3
            var unused = (dark: QRFinderEvidence(), light: QRFinderEvidence())
            results = searchLowContrast(luminance, control: control, sparse: sparse, evidence: &unused)
        }
        let minSide = options.minimumFeatureSize * Double(Swift.min(luminance.width, luminance.height))
        if minSide > 0 {
            results.removeAll { Swift.min($0.bounds.width, $0.bounds.height) < minSide }
        }
        if let cap = options.maximumFeatureCount { results = Array(results.prefix(Swift.max(cap, 0))) }
        return results
    }

    /// Codes from the low-contrast binarization (`QRBinarizer.lowContrastRange` and
    /// `lowContrastNeighbourhood`), dark-on-light then light-on-dark; `sparse` scans every
    /// other row (see `_search(_:options:control:evidence:sparse:)`). `evidence` is set from
    /// the finder candidates of each polarity.
    func searchLowContrast(
        _ luminance: QRLuminance, control: RenderControl?, sparse: Bool = false,
        evidence found: inout (dark: QRFinderEvidence, light: QRFinderEvidence)
    ) -> [QRCodeFeature] {
        let binary = QRBinarizer.binarize(
            luminance, minimumRange: QRBinarizer.lowContrastRange,
            neighbourhood: QRBinarizer.lowContrastNeighbourhood)
        // A retry: both polarities are usually searched, so one scan finds both.
        let finders = QRCodeDetector._scanBoth(binary, options: options, sparse: sparse)
        found = (QRFinderEvidence(finders.dark), QRFinderEvidence(finders.light))
        var evidence = QRFinderEvidence()
        let results = QRCodeDetector._search(
            binary, options: options, control: control, evidence: &evidence, sparse: sparse, finders: finders.dark,
            retry: true)
        if !results.isEmpty || control?.isCancelled == true || finders.light.count < 3 { return results }
        return QRCodeDetector._search(
            binary.inverted(), options: options, control: control, evidence: &evidence, sparse: sparse,
            finders: finders.light, retry: true)
    }

    /// Finder candidates confirmed on this many scan lines let the costlier retries run: the
    /// doubled pass for their polarity (from the full-resolution scan), the full-resolution
    /// low-contrast pass (from that scan or the half-resolution low-contrast one).
    static let retryEvidence = 3

    /// Dark-on-light codes, then light-on-dark ones when none were found (or always when
    /// trying harder); `dark` or `light` false skips that polarity. Advances `control` by 2
    /// (one per polarity, searched or not).
    func searchBothPolarities(
        _ luminance: QRLuminance, control: RenderControl? = nil, dark: Bool = true, light: Bool = true,
        retry: Bool = false
    ) -> [QRCodeFeature] {
        var evidence = (dark: QRFinderEvidence(), light: QRFinderEvidence())
        return searchBothPolarities(
            luminance, control: control, dark: dark, light: light, retry: retry, evidence: &evidence)
    }

    /// `searchBothPolarities`, also reporting each polarity's finder evidence (see
    /// `_search(_:options:control:evidence:sparse:)`; empty for a polarity not searched).
    ///
    /// `retry`: the pass is a retry after nothing was found, where both polarities are
    /// usually searched, so both are found in one scan of the rows, and fewer finder triples
    /// are tried (`_search`'s `retry`).
    func searchBothPolarities(
        _ luminance: QRLuminance, control: RenderControl? = nil, dark: Bool = true, light: Bool = true,
        retry: Bool = false, evidence: inout (dark: QRFinderEvidence, light: QRFinderEvidence)
    ) -> [QRCodeFeature] {
        if control?.isCancelled == true { return [] }
        let binary = QRBinarizer.binarize(luminance)
        let finders = retry && dark && light ? QRCodeDetector._scanBoth(binary, options: options) : nil
        var results: [QRCodeFeature] = []
        // The first pass scans every other row (as zxing-cpp scans every third), and every row
        // again only when that saw a candidate of modules under 3 pixels (whose centre, under 9
        // rows high, may need every row for the two hits).
        let sparseFirst = !retry && !options.tryHarder && options.accuracy == .high
        func search(_ img: QRBinaryImage, _ given: [QRFinderPattern]?, _ evidence: inout QRFinderEvidence) -> [QRCodeFeature] {
            if sparseFirst {
                // Candidates need two lines, but one line of a finder of small modules is
                // enough to ask for every row.
                let scan = QRCodeDetector._scanParameters(img, options: options, sparse: true)
                let hits = QRFinderPatternFinder.find(
                    in: img, rowStep: scan.rowStep, maximumCount: scan.maximumCount, quorum: 1)
                let found = QRCodeDetector._search(
                    img, options: options, control: control, evidence: &evidence, finders: hits.filter { $0.count >= 2 })
                if !found.isEmpty || control?.isCancelled == true || !hits.contains(where: { $0.moduleSize < 3 }) {
                    return found
                }
            }
            return QRCodeDetector._search(
                img, options: options, control: control, evidence: &evidence, finders: given, retry: retry)
        }
        if dark {
            results = search(binary, finders?.dark, &evidence.dark)
        }
        control?.advanceUnlessCancelled(1)
        if light && (results.isEmpty || options.tryHarder) && control?.isCancelled != true {
            var more = search(binary.inverted(), finders?.light, &evidence.light)
            more.removeAll { f in results.contains { $0.bounds.intersects(f.bounds) && $0.message == f.message } }
            results += more
        }
        control?.advanceUnlessCancelled(1)
        return results
    }
}

extension QRCodeFeature {
    /// The same feature with its corners scaled by `factor` (from a resampled image back to
    /// the original's coordinates).
    func scaled(by factor: Double) -> QRCodeFeature {
        withCorners { Point(x: $0.x * factor, y: $0.y * factor) }
    }
}

extension Rect {
    fileprivate func intersects(_ o: Rect) -> Bool { !intersection(o).isEmpty }
}
