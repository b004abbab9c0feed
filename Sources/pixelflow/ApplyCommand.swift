import PixelFlow

/// `pixelflow apply`: runs a chain of filters on one image, or on a batch of images into a
/// folder.
///
/// ```
/// pixelflow apply IN OUT [--filter 'NAME key=value ...']... [--threads N] [--format F]
///                        [--quality Q] [--lossless] [--effort N] [--compression C]
///                        [--no-restart-markers]
///                        [--keep-profile] [--keep-metadata] [--strip] [--page N] [--explain]
///                        [--keep-extent] [--force]
/// pixelflow apply IN1 IN2 ... OUTDIR [--filter ...]... [--jobs N]
/// pixelflow apply --manifest FILE [OUTDIR] [--shard I/N] [--resume] [--json] [--summary-json F] ...
/// ```
///
/// The command line is checked completely (options, filter names, keys, values) before any
/// file is read, so a usage error exits with 2 without side effects.
enum ApplyCommand: Subcommand {
    static let name = "apply"
    static let summary = "apply a chain of filters to an image, or to a batch of images"

    static let options: [Arguments.Option] = [
        .value("--filter", "-f"), .value("--threads"), .value("--quality", "-q"),
        .value("--format"), .flag("--explain"), .value("--jobs", "-j"), .flag("--overwrite"), .flag("--help", "-h"),
        .flag("--lossless"), .value("--effort"), .value("--compression"), .flag("--keep-profile"),
        .flag("--keep-metadata"), .flag("--strip"), .value("--page", "--frame"), .flag("--force"),
        .flag("--keep-extent"), .value("--manifest"), .value("--shard"), .flag("--resume"), .flag("--json"),
        .value("--summary-json"), .flag("--no-restart-markers"),
    ]

    static var help: String {
        """
        Usage: pixelflow apply IN OUT [options]
               pixelflow apply IN1 IN2 ... OUTDIR [options]
               pixelflow apply --manifest FILE [OUTDIR] [--shard I/N] [--resume] [options]

        Applies the filters given with --filter, in order, to IN and writes the result to OUT.
        IN and OUT may be `-` for standard input and output. Outputs are written atomically (a
        temporary file renamed into place), so a failure never leaves half a file.

        Batch mode: with more than two paths, or when the last one ends in `/` or is an
        existing directory, every input is filtered into OUTDIR/<input file name>; OUTDIR must
        exist. Files are processed in parallel (--jobs). On a terminal a progress bar is
        drawn on standard error; otherwise one line per finished file. A file that fails is
        named on standard error with the reason and skipped, its output is not touched, the
        others are still written, and the exit status is 1. A summary ends the run:
        processed, failed, time.

        Manifest: --manifest FILE (`-` for standard input) lists the batch, one item a line:
        an input path (written into OUTDIR as above), or input<TAB>output (written to output,
        in the format its extension names). Blank lines and lines starting with `#` are
        ignored. A bad line or two items with the same output is a usage error naming the
        line, before anything runs. For runs spread over many machines (Kubernetes, Slurm,
        GNU parallel: Docs/BatchJobs.md), --shard I/N takes every N-th item from the I-th
        (I from 0), --resume skips items whose output exists, and --summary-json writes what
        happened to each item.

        An input file is never overwritten (in either mode) unless --overwrite is given, and a
        read-only output file is never replaced unless --force is given. A missing output
        folder is an error in both modes: create it first (mkdir -p).

        Options:
          -f, --filter 'NAME key=value ...'
                            A filter and its inputs; repeat for a chain. NAME is Core Image's
                            name with or without `CI` (CISepiaTone, SepiaTone); a key may drop
                            its `input` prefix (intensity=0.8). Inputs not given take their
                            defaults. `pixelflow filters` lists the filters and
                            `pixelflow describe NAME` their inputs.
              --threads N   Render each image with N threads (default: one per processor,
                            shared among the batch's jobs). The pixels do not depend on N.
          -j, --jobs N      Batch mode: process N files at once, as make -j and parallel -j
                            do (default: one per processor, at most one per file).
              --overwrite   Allow an output to replace an input file (for example filtering
                            a folder in place: pixelflow apply photos/*.png photos/ --overwrite).
              --force       Replace output files that are read-only (default: refused, exit 1).
              --keep-extent Keep Core Image's extents: a blur's result is larger than its
                            input and fades out at the edges, and OUT takes the whole extent
                            (see "Size of the result").
              --format F    Output format: png, jpeg, webp, tiff, gif, heif, avif, pnm or bmp.
                            Default: from OUT's extension (.png, .jpg/.jpeg, .webp, .tif/.tiff,
                            .gif, .heic/.heif, .avif, .pnm/.pgm/.ppm/.pam, .bmp), png when OUT
                            is `-`. In batch mode the output names take F's extension; inputs
                            whose extension names no format are written as PNG.
          -q, --quality Q   Quality 1...100 of JPEG, lossy WebP, HEIF and AVIF, and of TIFF
                            with --compression jpeg (default 90).
              --lossless    WebP, AVIF and HEIF: compress without loss.
              --effort N    WebP, AVIF and HEIF: 0 (fastest) ... 9 (smallest file); default 4.
              --compression C
                            A number 0...9 is PNG's compression level (default 2); a name is TIFF's
                            compression: none, lzw, deflate (default), packbits or jpeg. A
                            kind that no output format takes is a usage error.
              --no-restart-markers
                            JPEG: write no restart marker after each row of MCUs (about 0.1%
                            smaller) and compress on one thread. Default: large baseline
                            images get them and are compressed in parallel bands.
              --keep-profile
                            Keep the input's ICC color profile: render into its color space and
                            embed it (a Display P3 photo stays P3). Default: sRGB output with
                            the sRGB profile. Gray and CMYK profiles are not kept.
              --keep-metadata
                            Copy the input's EXIF (its orientation reset to 1, since pixels are
                            written upright) and XMP. Default: they are stripped.
              --strip       Write no metadata at all, not even the color profile. Not with
                            --keep-profile or --keep-metadata.
              --page N, --frame N
                            Read page or frame N (from 0) of a multi-page TIFF, an animated
                            GIF or WebP, or a HEIF with several images (default 0).
              --explain     Print the filter chain, with every input's value (defaults
                            included), the optimized render plan (stages, fused nodes,
                            folded matrices and transforms, buffers) and each render's
                            size to standard error.
              --manifest FILE
                            Batch mode: the items, one a line (see "Manifest"); `-` reads the
                            list from standard input. OUTDIR is then optional: needed only for
                            lines without an output.
              --shard I/N   Batch mode: run only items I, I+N, I+2N, ... (from 0) of the
                            manifest or of the inputs; the N shards together run each item
                            once. I is Kubernetes' $JOB_COMPLETION_INDEX, or Slurm's
                            $SLURM_ARRAY_TASK_ID with --array=0-(N-1).
              --resume      Batch mode: skip items whose output file exists (outputs are
                            renamed into place only when complete, so an existing one is
                            whole), and remove the temporary files a killed run left beside
                            this run's outputs.
              --json        Batch mode: print a summary as JSON on standard output: total,
                            in_shard, done, skipped, failed, and each item's status and error.
              --summary-json FILE
                            Batch mode: write that summary to FILE (atomically; `-` is
                            standard output).
          -h, --help        Show this help.

        Values (quote the whole --filter argument in the shell):
          numbers           0.8   -2   1e-3;  booleans: true, false, yes, no
          vectors           '[x y z]'  or  x,y,z
          colors            '[r g b]' or '[r g b a]' in 0...1, or '#rrggbb' / '#rrggbbaa'
          transforms        '[a b c d tx ty]': (x, y) -> (a x + c y + tx, b x + d y + ty)
          images            a file path, for second images such as inputBackgroundImage

        Size of the result: OUT has IN's size, as with ImageMagick and vips, unless a geometry
        filter (CICrop, CIAffineTransform, CILanczosScaleTransform) sets a new frame: the
        size of its result (a rotation's bounding box, a scaled size). Each filter sees the
        image cropped to the frame; a filter that reads around each pixel (blurs,
        convolutions, morphology) sees the edge pixels repeated beyond it, so the edges keep
        their opacity, and its result is cropped back to the frame, as is one that makes the
        image infinite (compositing over a constant color). A 1000x872 photo blurred, then
        scaled by 0.5, gives a 500x436 opaque image. With --keep-extent the filters get Core
        Image's extents instead: the blurred photo is 1012x884 with a translucent border, and
        scaled, 506x442; only an infinite result is cropped, to the frame.
        Images are rendered as 8-bit RGBA; a 16-bit PNG input stays 16-bit when OUT is PNG or PNM.
        Options a format does not take (--quality for PNG, --lossless for JPEG) are ignored.

        Examples:
          pixelflow apply photo.jpg sepia.png --filter 'CISepiaTone inputIntensity=0.8'
          pixelflow apply in.png out.jpg -q 85 \\
              --filter 'ExposureAdjust inputEV=0.5' --filter 'GaussianBlur radius=3'
          pixelflow apply photo.heic photo.webp --lossless --keep-profile --keep-metadata
          pixelflow apply scan.tif page3.png --page 2 --compression 9 --strip
          pixelflow apply a.png b.png tiffs/ --format tiff --compression lzw
          pixelflow apply in.png out.png --filter 'SourceOverCompositing inputBackgroundImage=bg.png'
          pixelflow apply in.png out.png --filter 'AffineTransform inputTransform=[0.5 0 0 0.5 0 0]'
          pixelflow apply a.png b.jpg c.bmp thumbs/ --filter 'LanczosScaleTransform inputScale=0.25'
          find photos -name '*.jpg' | pixelflow apply --manifest - sepia/ --filter SepiaTone
          pixelflow apply --manifest list.txt out/ --shard 0/3 --resume --summary-json s0.json -f SepiaTone
          pixelflow apply in.png out.png --explain --filter SepiaTone --filter 'ExposureAdjust EV=1'
          curl -s https://example.com/x.png | pixelflow apply - - --format jpeg --filter ColorInvert > x.jpg

        Exit status: 0 on success (skipped items included), 1 when a file could not be read,
        decoded, rendered or written, 2 for a usage error (unknown option, filter or key; a bad
        or out-of-range value; a bad manifest line).
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: options)
        if args.flag("--help") {
            Terminal.output(help)
            return ExitCode.success
        }
        var job = try ApplyJob(args)
        try job.loadFilterImages()
        return try job.run()
    }
}

/// One `apply` invocation, checked: the chain, the inputs and outputs, and the render settings.
struct ApplyJob {
    var steps: [FilterStep]
    /// The inputs on the command line (none with `--manifest`).
    var inputs: [String]
    /// The output file, or the output directory in batch mode (empty when a manifest names
    /// every output).
    var output: String
    var isBatch: Bool
    /// Batch mode: every item of the batch (the manifest's or the command line's), in order,
    /// before `--shard` picks its part.
    var items: [BatchItem]
    /// `--manifest`: the manifest's name in messages (`<stdin>` for `-`); nil without one.
    var manifestName: String?
    /// `--shard`: the part of `items` this process runs; nil runs them all.
    var shard: BatchShard?
    /// `--resume`: skip the items whose output file exists.
    var resume: Bool
    /// `--json`: print the batch's summary as JSON on standard output.
    var printsJSON: Bool
    /// `--summary-json FILE`: write the batch's summary as JSON to FILE.
    var summaryFile: String?
    /// `--threads`, when given.
    var threads: Int?
    var format: ImageFileFormat?
    /// Page, encoder and metadata choices.
    var settings: OutputSettings
    var explain: Bool
    var context: RenderContext
    /// True when outputs may replace input files (`--overwrite`).
    var overwrite: Bool
    /// Files processed at once in batch mode.
    var jobs: Int
    /// True when read-only output files may be replaced (`--force`).
    var force: Bool
    /// True for Core Image's extents (`--keep-extent`); false keeps IN's size.
    var keepExtent: Bool

    /// Checks the whole command line; reads no image.
    ///
    /// - Throws: `CLIError.usage` for anything wrong with it.
    init(_ args: Arguments) throws {
        let paths = args.positionals
        let manifestPath = try args.value("--manifest")
        if manifestPath != nil {
            guard paths.count <= 1 else {
                throw CLIError.usage(
                    "with --manifest, give only the output folder on the command line (got \(paths.count) paths); list the inputs in the manifest"
                )
            }
            output = paths.first ?? ""
            inputs = []
            isBatch = true
            if output == "-" {
                throw CLIError.usage("`-` cannot be the output folder of a manifest; give a folder, or an output on each line")
            }
        } else {
            guard paths.count >= 2 else {
                throw CLIError.usage(
                    "apply needs an input and an output, as in `pixelflow apply in.png out.png --filter 'SepiaTone'`, or --manifest FILE; run `pixelflow apply --help`"
                )
            }
            output = paths[paths.count - 1]
            inputs = Array(paths.dropLast())
            isBatch = paths.count > 2 || output.hasSuffix("/") || (output != "-" && Terminal.isDirectory(output))
        }
        if isBatch {
            if inputs.contains("-") || output == "-" {
                throw CLIError.usage(
                    "`-` (standard input or output) works only with one input and one output; in batch mode give files and an output directory"
                )
            }
        }
        shard = try args.value("--shard").map(BatchShard.init(parsing:))
        resume = args.flag("--resume")
        printsJSON = args.flag("--json")
        summaryFile = try args.value("--summary-json")
        if !isBatch, shard != nil || resume || printsJSON || summaryFile != nil {
            let given = ["--shard", "--resume", "--json", "--summary-json"].filter {
                args.flag($0) || !args.values($0).isEmpty
            }
            throw CLIError.usage(
                "\(given.joined(separator: ", ")) \(given.count == 1 ? "works" : "work") in batch mode only: --manifest FILE, or several inputs and an output folder"
            )
        }
        if let summaryFile, summaryFile.isEmpty || summaryFile.hasSuffix("/") || Terminal.isDirectory(summaryFile) {
            throw CLIError.usage("--summary-json needs a file name (or `-` for standard output), got '\(summaryFile)'")
        }
        threads = try args.integer("--threads", in: 1...4096)
        overwrite = args.flag("--overwrite")
        force = args.flag("--force")
        keepExtent = args.flag("--keep-extent")
        let cores = RenderContext.activeProcessorCount
        let requestedJobs = try args.integer("--jobs", in: 1...1024)
        explain = args.flag("--explain")
        var format: ImageFileFormat?
        if let f = try args.value("--format") {
            guard let parsed = ImageFileFormat(rawValue: f.lowercased()) ?? ImageFileFormat(pathExtension: f) else {
                let names = ImageFileFormat.allCases.map(\.rawValue).joined(separator: ", ")
                throw CLIError.usage("unknown --format '\(f)'; use \(names)")
            }
            format = parsed
        }
        self.format = format
        steps = try args.values("--filter").map(FilterStep.init(parsing:))
        for step in steps { try step.validate() }
        // The command line is checked; the manifest is read last.
        var items: [BatchItem] = []
        let folder = output
        if let manifestPath {
            let name = manifestPath == "-" ? "<stdin>" : manifestPath
            manifestName = name
            items = try ApplyJob.items(of: BatchManifest.read(manifestPath), name: name, folder: folder, format: format)
        } else if isBatch {
            items = inputs.enumerated().map { position, input in
                let (name, fmt) = ApplyJob.batchOutput(for: input, format: format)
                return BatchItem(input: input, destination: joinPath(folder, name), format: fmt, line: nil, position: position)
            }
        }
        self.items = items
        // --explain prints each file's plan: one file at a time keeps them readable.
        let inShard = shard.map { s in items.indices.filter(s.contains).count } ?? items.count
        jobs = isBatch && !explain ? max(1, min(requestedJobs ?? cores, inShard)) : 1
        let outputFormats: Set<ImageFileFormat>
        if isBatch {
            outputFormats = Set(items.map(\.format))
        } else if let format {
            outputFormats = [format]
        } else if output == "-" {
            outputFormats = [.png]
        } else {
            guard let ext = pathExtension(output), let f = ImageFileFormat(pathExtension: ext) else {
                throw CLIError.usage(
                    "cannot tell the output format from '\(output)'; name it .png, .jpg, .webp, .tif, .gif, .heic, .avif, .pnm or .bmp, or pass --format"
                )
            }
            outputFormats = [f]
        }
        settings = try OutputSettings(args, outputFormats: outputFormats)
        // Jobs share the processors unless --threads says otherwise; the pixels do not depend on it.
        context = RenderContext(threadCount: threads ?? max(1, cores / jobs))
    }

    /// Loads the second images of composite filters (the same for every input).
    ///
    /// - Throws: `CLIError.runtime` naming a file that cannot be read or decoded.
    mutating func loadFilterImages() throws {
        for i in steps.indices {
            try steps[i].loadImages { path in try ApplyJob.load(path) }
        }
    }

    /// Filters every input; returns the exit status.
    func run() throws -> Int32 {
        if explain { printChain() }
        // Every file read, which no output may replace.
        let read = isBatch ? items.map(\.input) : inputs
        let inputFiles = Set((read + steps.flatMap { $0.imagePaths.values }).compactMap(Terminal.fileIdentity))
        guard isBatch else {
            let fmt = format ?? (output == "-" ? .png : ImageFileFormat(pathExtension: pathExtension(output) ?? "") ?? .png)
            if !overwrite, output != "-", let id = Terminal.fileIdentity(output), inputFiles.contains(id) {
                throw CLIError.runtime("refusing to overwrite the input '\(output)'; write to another file, or pass --overwrite")
            }
            try Terminal.checkOutputFolder(of: output)
            if !force, output != "-", Terminal.isReadOnlyFile(output) {
                throw CLIError.runtime(ApplyJob.readOnlyRefusal(output))
            }
            try process(inputs[0], to: output, format: fmt)
            return ExitCode.success
        }
        guard output.isEmpty || Terminal.isDirectory(output) else {
            var dir = Substring(output)
            while dir.count > 1, dir.hasSuffix("/") { dir = dir.dropLast() }
            throw CLIError.runtime("the output directory '\(dir)' does not exist; create it first (mkdir -p '\(dir)')")
        }
        if let summaryFile, summaryFile != "-" { try Terminal.checkOutputFolder(of: summaryFile) }
        return try runBatch(tasks: planBatch(protecting: inputFiles))
    }

    /// The output file name and format for `input` in batch mode.
    func batchOutput(for input: String) -> (String, ImageFileFormat) {
        ApplyJob.batchOutput(for: input, format: format)
    }

    /// The output file name and format for `input` in batch mode with `--format format`.
    static func batchOutput(for input: String, format: ImageFileFormat?) -> (String, ImageFileFormat) {
        let name = baseName(input)
        let own = pathExtension(name).flatMap(ImageFileFormat.init(pathExtension:))
        if let format {
            if own == format { return (name, format) }
            return (replacingExtension(of: name, with: fileExtension(for: format)), format)
        }
        if let own { return (name, own) }
        return (name + ".png", .png)
    }

    /// Reads `input`, runs the chain, renders and writes `destination`.
    ///
    /// - Throws: `CLIError.runtime` or `PixelFlowError`, naming the file where it helps.
    func process(_ input: String, to destination: String, format: ImageFileFormat) throws {
        let (source, info) = try ApplyJob.loadImage(input, options: settings.decodeOptions)
        let metadata: ImageMetadata? = settings.needsInputMetadata ? info.metadata : nil
        var image = source
        // The frame the output is cropped to: the input's extent until a geometry filter
        // sets a new one.
        var frame = source.extent
        for step in steps {
            do {
                image = try apply(step, to: image, frame: &frame)
            } catch let error as PixelFlowError {
                throw CLIError.runtime("\(displayName(input)): \(step.descriptor.name) failed: \(error)")
            }
        }
        let extent = image.extent
        let mustCrop = extent.isInfinite || (!keepExtent && !ApplyJob.rect(frame, contains: extent))
        if mustCrop { image = image.cropped(to: frame) }
        if image.extent.isEmpty {
            throw CLIError.runtime(
                "\(displayName(input)): the result is empty: the filters leave no pixels inside \(frame) (a crop outside the image?)"
            )
        }
        let deep = info.bitsPerSample > 8 && info.colorModel != "palette"
        let pixelFormat: PixelFormat = deep && [.png, .pnm, .tiff].contains(format) ? .rgba16 : .rgba8
        // --keep-profile: the render's output space is the input's, and the file embeds it.
        var context = self.context
        let kept = settings.keptColorSpace(metadata, input: displayName(input))
        if let note = kept.note { Terminal.error("pixelflow apply: note: " + note) }
        if let space = kept.space { context.options.outputColorSpace = space }
        let encodeOptions = settings.encodeOptions(keeping: metadata)
        if explain, let plan = try? context.explain(image) {
            Terminal.error("plan for \(displayName(input)):")
            for line in plan.split(separator: "\n") { Terminal.error("  " + line) }
        }
        do {
            if destination == "-" {
                try writeStandardOutput(
                    image, context: context, format: format, pixelFormat: pixelFormat,
                    encodeOptions: encodeOptions)
            } else {
                try context.write(
                    image, toFile: destination, format: format, quality: settings.quality,
                    pixelFormat: pixelFormat, encodeOptions: encodeOptions)
            }
        } catch let error as PixelFlowError {
            throw CLIError.runtime(ApplyJob.message(error, about: displayName(input)))
        }
        if explain {
            let size = IntSize(covering: image.extent)
            var line =
                "\(displayName(input)) (\(info.width)x\(info.height) \(info.bitsPerSample)-bit \(info.colorModel)) -> "
                + "\(destination == "-" ? "<stdout>" : destination) (\(size.width)x\(size.height) \(pixelFormat), \(format.rawValue)"
                + ", \(context.options.outputColorSpace.name))"
            if mustCrop { line += "; cropped from \(extent) to \(frame)" }
            Terminal.error(line)
        }
    }

    /// Applies one filter of the chain with `apply`'s rule for sizes (the help's "Size of the
    /// result"), updating `frame` after a geometry filter.
    ///
    /// By default the filter sees `image` cropped to `frame`; a filter that grows the extent
    /// (one that reads around each pixel) is applied again to the cropped image with its edge
    /// pixels repeated (`clampedToExtent()`, the README's idiom for blurs), and its result,
    /// like any result that leaves the frame, is cropped to it. With `--keep-extent` the filter
    /// sees `image` as it is, with Core Image's extents.
    func apply(_ step: FilterStep, to image: Image, frame: inout Rect) throws -> Image {
        let isGeometry = step.descriptor.categories.contains(.geometryAdjustment)
        if keepExtent {
            let result = try step.apply(to: image)
            if isGeometry, !result.extent.isInfinite { frame = result.extent }
            return result
        }
        let input = ApplyJob.rect(frame, contains: image.extent) ? image : image.cropped(to: frame)
        let result = try step.apply(to: input)
        if isGeometry {
            if !result.extent.isInfinite { frame = result.extent }
            return result
        }
        if ApplyJob.rect(frame, contains: result.extent) { return result }
        // Grown but finite, from an input that fills the frame: the filter read beyond the
        // edges, where Core Image sees transparent pixels.
        if !result.extent.isInfinite, ApplyJob.rect(input.extent, contains: frame),
            let clamped = try? step.apply(to: input.clampedToExtent())
        {
            return clamped.cropped(to: frame)
        }
        return result.cropped(to: frame)
    }

    /// The message refusing to replace the read-only file `path`.
    static func readOnlyRefusal(_ path: String) -> String {
        "refusing to replace the read-only file '\(path)'; pass --force to replace it, or make it writable (chmod u+w '\(path)')"
    }

    /// Renders `image`, encodes it with the context's output profile and writes it to standard
    /// output.
    func writeStandardOutput(
        _ image: Image, context: RenderContext, format: ImageFileFormat, pixelFormat: PixelFormat,
        encodeOptions: EncodeOptions
    ) throws {
        try Terminal.writeStandardOutput(
            try context.encoded(
                image, as: format, quality: settings.quality,
                pixelFormat: pixelFormat, encodeOptions: encodeOptions))
    }

    /// Prints the chain, one filter a line, to standard error.
    func printChain() {
        Terminal.error("filter chain (\(steps.count) filter\(steps.count == 1 ? "" : "s")):")
        if steps.isEmpty { Terminal.error("  (none: the input is converted only)") }
        for (i, step) in steps.enumerated() {
            Terminal.error("  \(i + 1). " + step.explanation(source: i == 0 ? "input" : "step \(i)"))
        }
    }

    func displayName(_ path: String) -> String { path == "-" ? "<stdin>" : path }

    /// Decodes the image file at `path`, or standard input for `-`.
    ///
    /// - Throws: `CLIError.runtime` whose message names the file.
    static func load(_ path: String) throws -> PixelBuffer {
        try load(path, options: .default, withMetadata: false).buffer
    }

    /// Decodes the image file at `path` (standard input for `-`) with `options`, and reads
    /// its metadata (color profile, EXIF, XMP) when `withMetadata`.
    ///
    /// - Throws: `CLIError.runtime` whose message names the file.
    static func load(
        _ path: String, options: DecodeOptions,
        withMetadata: Bool
    ) throws -> (buffer: PixelBuffer, metadata: ImageMetadata?) {
        let (file, _) = try read(path, options: options)
        do {
            return (try file.decode(), withMetadata ? file.metadata : nil)
        } catch {
            throw CLIError.runtime(message(error, about: file.name))
        }
    }

    /// The headers of the image file at `path` (standard input for `-`) and its bytes.
    static func read(_ path: String, options: DecodeOptions) throws -> (file: ImageFile, bytes: [UInt8]) {
        do {
            let bytes: [UInt8]
            if path == "-" {
                bytes = try Terminal.readStandardInput()
                if bytes.isEmpty { throw CLIError.runtime("<stdin>: no data on standard input") }
            } else {
                if !Terminal.exists(path) {
                    throw CLIError.runtime("\(path): no such file")
                }
                if Terminal.isDirectory(path) {
                    throw CLIError.runtime("\(path): is a directory, not an image file")
                }
                bytes = try Terminal.readFile(path)
            }
            let name = path == "-" ? "<stdin>" : path
            return (try ImageFile(encoded: bytes, name: name, options: options), bytes)
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError.runtime(message(error, about: path == "-" ? "<stdin>" : path))
        }
    }

    /// The input as an image in the working space (colors outside sRGB kept: see
    /// `Image(encoded:name:options:streaming:)`), with its headers.
    static func loadImage(_ path: String, options: DecodeOptions) throws -> (image: Image, info: ImageFileInfo) {
        let (file, bytes) = try read(path, options: options)
        do {
            return (try Image(encoded: bytes, name: file.name, options: options), file.info)
        } catch {
            throw CLIError.runtime(message(error, about: file.name))
        }
    }

    /// The error's description, prefixed with `file` unless it already names it.
    static func message(_ error: any Error, about file: String) -> String {
        let text = "\(error)"
        return text.contains(file) ? text : "\(file): \(text)"
    }

    /// True when `outer` contains `inner`, up to rounding.
    static func rect(_ outer: Rect, contains inner: Rect) -> Bool {
        if outer.isInfinite { return true }
        if inner.isInfinite { return false }
        if inner.isEmpty { return true }
        let eps = 1e-6
        return inner.minX >= outer.minX - eps && inner.minY >= outer.minY - eps
            && inner.maxX <= outer.maxX + eps && inner.maxY <= outer.maxY + eps
    }
}

/// The extension written for `format` in batch mode: `jpg` for JPEG, `heic` for HEIF, else
/// the format's name.
func fileExtension(for format: ImageFileFormat) -> String {
    switch format {
    case .jpeg: return "jpg"
    case .heif: return "heic"
    default: return format.rawValue
    }
}

/// The size in pixels of a render of `rect`, for `--explain`: the whole pixels it covers,
/// with the 1e-7 tolerance a render uses (so 10.00000001 wide is 10 pixels).
struct IntSize {
    var width: Int
    var height: Int

    init(covering rect: Rect) {
        width = max(0, Int((rect.maxX - 1e-7).rounded(.up) - (rect.minX + 1e-7).rounded(.down)))
        height = max(0, Int((rect.maxY - 1e-7).rounded(.up) - (rect.minY + 1e-7).rounded(.down)))
    }
}
