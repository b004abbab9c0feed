import CCodecShims

/// GIF through giflib (via the `CCodecShims` C target), frames composited as browsers do
/// (see `_GIFCanvas`).
///
/// Decoding walks the records one frame at a time: the logical screen size is checked
/// against the limits before the canvas is allocated, and frames are counted against
/// `maximumImageCount` as they are met, so a file of 100,000 frames stops early. Every
/// frame is the whole canvas, `rgba8`.
///
/// - A frame rectangle reaching outside the screen is clipped; a frame of zero width or
///   height draws nothing but counts as a frame (its delay and disposal apply), as in
///   Chromium (Wuffs). A frame's pixels are always decoded in full, so a frame far larger
///   than the screen costs time in proportion to its data, never memory.
/// - Without a local or a global color map, index i is the gray (i, i, i), as in Pillow.
/// - Delays are centiseconds in the file, seconds in `duration`; a delay of 0 is reported
///   as 0 (browsers show such frames for about 0.1 s).
/// - A missing trailer after at least one frame ends the file; truncated or corrupt frame
///   data is an error.
/// - Metadata: the ICC profile of an ICCRGBG1012 extension and the XMP packet of an
///   "XMP DataXMP" one (the first of each). `inspect` and `decodeFrames` see the whole file;
///   `decode` reads only up to the frame it returns, so it sees the extensions before it
///   (where writers put them). GIF has no EXIF.
///
/// Encoding writes one GIF89a frame with a global palette of a power of two entries, chosen
/// by `_GIFQuantizer`, a Graphic Control Extension only when a transparent index is used,
/// and the ICC profile and XMP packet given.
enum _GIFCodec {
    static func inspect(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> ImageFileInfo {
        try withReader(bytes, name: name, options: options) { reader in
            var count = 0, transparency = false
            while let frame = try reader.nextFrame() {
                if frame.transparentIndex >= 0 { transparency = true }
                if count == 0 && !reader.clip(frame.rect).covers(width: reader.width, height: reader.height) {
                    transparency = true
                }
                if frame.disposal == 2 { transparency = true }
                try reader.skip()
                count += 1
            }
            guard count > 0 else { throw reader.failure("the file holds no image") }
            return ImageFileInfo(
                format: .gif, width: reader.width, height: reader.height, imageCount: count,
                bitsPerSample: 8, colorModel: "palette", hasAlpha: transparency,
                isAnimated: count > 1, metadata: reader.metadata)
        }
    }

    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> _DecodedImage {
        try withReader(bytes, name: name, options: options) { reader in
            var canvas = try _GIFCanvas(width: reader.width, height: reader.height)
            var count = 0
            while let frame = try reader.nextFrame() {
                if options.imageIndex < 0 {
                    try reader.skip()
                } else {
                    try reader.draw(frame, on: &canvas)
                    if count == options.imageIndex {
                        return _DecodedImage(buffer: canvas.buffer, metadata: reader.metadata)
                    }
                }
                count += 1
            }
            guard count > 0 else { throw reader.failure("the file holds no image") }
            try options._checkImageIndex(count: count, file: name)
            throw reader.failure("frame \(options.imageIndex) was not found")
        }
    }

    static func decodeFrames(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> [_DecodedFrame] {
        try withReader(bytes, name: name, options: options) { reader in
            var canvas = try _GIFCanvas(width: reader.width, height: reader.height)
            var frames: [_DecodedFrame] = []
            while let frame = try reader.nextFrame() {
                try options._checkFramesTotal(
                    count: frames.count + 1, width: reader.width, height: reader.height,
                    file: name)
                try reader.draw(frame, on: &canvas)
                frames.append(
                    _DecodedFrame(
                        image: _DecodedImage(buffer: canvas.buffer, metadata: ImageMetadata()),
                        duration: Double(frame.delay) / 100))
            }
            guard !frames.isEmpty else { throw reader.failure("the file holds no image") }
            let metadata = reader.metadata
            for i in frames.indices { frames[i].image.metadata = metadata }
            return frames
        }
    }

    /// Calls `body` with a reader whose screen was read and checked against the limits.
    static func withReader<R>(
        _ bytes: [UInt8], name: String, options: DecodeOptions,
        _ body: (_GIFReader) throws -> R
    ) throws -> R {
        // The logical screen size is at bytes 6...9: check it before giflib reads anything.
        if bytes.count >= 10 {
            let width = bytes._le16(6), height = bytes._le16(8)
            if width > 0, height > 0 { try options._checkDimensions(width: width, height: height, file: name) }
        }
        return try bytes.withUnsafeBufferPointer { input in
            guard let decoder = pf_gif_decoder_create(input.baseAddress, input.count) else {
                throw PixelFlowError.decodingFailed(file: name, reason: "GIF: out of memory")
            }
            defer { pf_gif_decoder_destroy(decoder) }
            let reader = try _GIFReader(decoder: decoder, name: name, options: options)
            return try body(reader)
        }
    }

    /// Encodes one frame: `_GIFQuantizer` picks the palette (`options.gifQuantizer`,
    /// `options.maximumColorCount`, `options.dithering`); alpha < 128 becomes the transparent
    /// index. 16-bit samples are rounded to 8 bits, gray is written as gray palette entries.
    ///
    /// - Throws: `encodingFailed` for a side over 65,535 pixels or an XMP packet holding a
    ///   NUL byte (which GIF's XMP extension cannot carry).
    static func encode(
        _ buffer: PixelBuffer, quality: Int, name: String, options: EncodeOptions,
        metadata: _EmbeddedMetadata
    ) throws -> [UInt8] {
        let image = _Codec.encodable(buffer)
        guard image.width <= 65535, image.height <= 65535 else {
            throw PixelFlowError.encodingFailed(
                file: name,
                reason: "GIF: \(image.width)x\(image.height) is larger than GIF's 65535 pixels on a side")
        }
        let q = _GIFQuantizer.quantize(
            rgba8Pixels(image), width: image.width, height: image.height,
            method: options.gifQuantizer, maximumColorCount: options.maximumColorCount,
            dithering: options.dithering)
        let frame = _GIFEncodedFrame(
            quantized: q, width: image.width, height: image.height, delay: 0,
            disposal: 0, hasControl: q.transparentIndex >= 0)
        return try write(
            width: image.width, height: image.height, frames: [frame], loopCount: -1,
            metadata: metadata, name: name)
    }

    /// Encodes an animation: every frame the whole canvas with its own palette (a local
    /// color map), disposal 2 so that transparent pixels show through to nothing, delays
    /// rounded to centiseconds (at most 655.35 s) and a NETSCAPE2.0 loop count (0 = forever).
    ///
    /// - Throws: `invalidParameter` for no frames, frames of different sizes, or a negative
    ///   loop count or duration; `encodingFailed` as `encode`.
    static func encodeAnimation(
        _ frames: [ImageFrame], loopCount: Int = 0, name: String = "<memory>",
        options: EncodeOptions = .default, metadata: _EmbeddedMetadata = .none
    ) throws -> [UInt8] {
        try options._validate(format: .gif)
        guard let first = frames.first else {
            throw PixelFlowError.invalidParameter(filter: "gif encoder", key: "frames", reason: "must not be empty")
        }
        guard (0...65535).contains(loopCount) else {
            throw PixelFlowError.invalidParameter(
                filter: "gif encoder", key: "loopCount",
                reason: "must be in 0...65535, got \(loopCount)")
        }
        let width = first.buffer.width, height = first.buffer.height
        guard width <= 65535, height <= 65535 else {
            throw PixelFlowError.encodingFailed(
                file: name,
                reason: "GIF: \(width)x\(height) is larger than GIF's 65535 pixels on a side")
        }
        var encoded: [_GIFEncodedFrame] = []
        for (i, frame) in frames.enumerated() {
            guard frame.buffer.width == width, frame.buffer.height == height else {
                throw PixelFlowError.invalidParameter(
                    filter: "gif encoder", key: "frames",
                    reason: "frame \(i) is \(frame.buffer.width)x\(frame.buffer.height), frame 0 is \(width)x\(height)")
            }
            guard frame.duration >= 0, frame.duration.isFinite else {
                throw PixelFlowError.invalidParameter(
                    filter: "gif encoder", key: "duration",
                    reason: "frame \(i) has duration \(frame.duration)")
            }
            let image = _Codec.encodable(frame.buffer)
            let q = _GIFQuantizer.quantize(
                rgba8Pixels(image), width: width, height: height,
                method: options.gifQuantizer, maximumColorCount: options.maximumColorCount,
                dithering: options.dithering)
            let delay = Int(min(655.35, frame.duration) * 100 + 0.5)
            encoded.append(
                _GIFEncodedFrame(
                    quantized: q, width: width, height: height, delay: delay, disposal: 2,
                    hasControl: true))
        }
        return try write(
            width: width, height: height, frames: encoded, loopCount: loopCount, metadata: metadata,
            name: name, localMaps: true)
    }

    /// Writes frames through the shim: one global map (the first frame's palette) or a
    /// local map per frame.
    private static func write(
        width: Int, height: Int, frames: [_GIFEncodedFrame], loopCount: Int,
        metadata: _EmbeddedMetadata, name: String, localMaps: Bool = false
    ) throws -> [UInt8] {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let maps = frames.map { $0.colorMap }
        // Every pointer handed to C must outlive the call: nest the borrows.
        func withFrames<R>(
            _ i: Int, _ inputs: [pf_gif_frame_input],
            _ body: ([pf_gif_frame_input]) -> R
        ) -> R {
            if i == frames.count { return body(inputs) }
            return frames[i].indices.withUnsafeBufferPointer { indices in
                maps[i].withUnsafeBufferPointer { map in
                    var input = pf_gif_frame_input()
                    input.indices = indices.baseAddress
                    input.stride = width
                    input.left = 0; input.top = 0
                    input.width = UInt32(width); input.height = UInt32(height)
                    input.colors = localMaps ? map.baseAddress : nil
                    input.color_count = localMaps ? Int32(map.count / 3) : 0
                    input.has_control = frames[i].hasControl ? 1 : 0
                    input.transparent_index = Int32(frames[i].transparentIndex)
                    input.delay = Int32(frames[i].delay)
                    input.disposal = Int32(frames[i].disposal)
                    return withFrames(i + 1, inputs + [input], body)
                }
            }
        }
        let global = maps[0]
        let status = withFrames(0, []) { inputs in
            global.withUnsafeBufferPointer { global in
                withOptionalBytes(metadata.iccProfile) { icc, iccSize in
                    withOptionalBytes(metadata.xmp) { xmp, xmpSize in
                        pf_gif_encode(
                            UInt32(width), UInt32(height), localMaps ? nil : global.baseAddress,
                            localMaps ? 0 : Int32(global.count / 3), inputs, inputs.count, Int32(loopCount),
                            icc, iccSize, xmp, xmpSize, &output, &size, &message)
                    }
                }
            }
        }
        defer { pf_free(output) }
        guard status == PF_OK, let output else {
            throw PixelFlowError.encodingFailed(file: name, reason: "GIF: " + _Codec.message(message))
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    private static func withOptionalBytes<R>(_ bytes: [UInt8]?, _ body: (UnsafePointer<UInt8>?, Int) -> R) -> R {
        guard let bytes else { return body(nil, 0) }
        // An empty array may have no base address; a zero-length block is still written.
        let padded = bytes.isEmpty ? [0] : bytes
        return padded.withUnsafeBufferPointer { body($0.baseAddress, bytes.count) }
    }

    /// The pixels of an `rgba8`, `rgba16` or `gray8` buffer as packed 8-bit RGBA (16-bit
    /// values rounded, gray repeated).
    static func rgba8Pixels(_ b: PixelBuffer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: b.width * b.height * 4)
        b.withUnsafeRows { y, row in
            let base = y * b.width * 4
            switch b.format {
            case .rgba8:
                let p = row.assumingMemoryBound(to: UInt8.self)
                for i in 0..<(b.width * 4) { out[base + i] = p[i] }
            case .rgba16:
                let p = row.assumingMemoryBound(to: UInt16.self)
                for i in 0..<(b.width * 4) { out[base + i] = UInt8((Int(p[i]) * 255 + 32767) / 65535) }
            case .gray8:
                let p = row.assumingMemoryBound(to: UInt8.self)
                for x in 0..<b.width {
                    out[base + 4 * x] = p[x]; out[base + 4 * x + 1] = p[x]; out[base + 4 * x + 2] = p[x]
                    out[base + 4 * x + 3] = 255
                }
            case .rgbaF32, .grayF32, .bgra8, .argb8:
                preconditionFailure("encodable returns rgba8, rgba16 or gray8")
            }
        }
        return out
    }
}

/// One quantized frame ready for the shim.
struct _GIFEncodedFrame {
    var indices: [UInt8]
    /// R, G, B, padded with black to a power of two entries (at least 2), the transparent
    /// entry included.
    var colorMap: [UInt8]
    var transparentIndex: Int
    var delay: Int
    var disposal: Int
    var hasControl: Bool

    init(quantized q: _GIFQuantizer.Result, width: Int, height: Int, delay: Int, disposal: Int, hasControl: Bool) {
        indices = q.indices
        let used = q.colorCount + (q.transparentIndex >= 0 ? 1 : 0)
        var size = 2
        while size < used { size *= 2 }
        colorMap = q.palette + [UInt8](repeating: 0, count: 3 * size - q.palette.count)
        transparentIndex = q.transparentIndex
        self.delay = delay
        self.disposal = disposal
        self.hasControl = hasControl
    }
}

/// A walk over a GIF's records through the shim, one frame at a time; frames are counted
/// against `maximumImageCount` as they are met.
final class _GIFReader {
    let decoder: OpaquePointer
    let name: String
    let options: DecodeOptions
    let width: Int, height: Int
    private let globalColors: [UInt8]
    private let globalColorCount: Int
    private var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
    private(set) var framesSeen = 0

    /// A frame's descriptor and Graphic Control Extension.
    struct Frame {
        var rect: _GIFRect
        var palette: [UInt8]
        var colorCount: Int
        var disposal: Int
        var delay: Int
        var transparentIndex: Int
    }

    init(decoder: OpaquePointer, name: String, options: DecodeOptions) throws {
        self.decoder = decoder
        self.name = name
        self.options = options
        var screen = pf_gif_screen()
        guard pf_gif_read_screen(decoder, &screen, &message) == PF_OK else {
            throw PixelFlowError.decodingFailed(file: name, reason: "GIF: " + _Codec.message(message))
        }
        width = Int(screen.width)
        height = Int(screen.height)
        try options._checkDimensions(width: width, height: height, file: name)
        globalColorCount = Int(screen.global_color_count)
        globalColors = withUnsafeBytes(of: screen.global_colors) { Array($0) }
    }

    func failure(_ reason: String) -> PixelFlowError {
        PixelFlowError.decodingFailed(file: name, reason: "GIF: " + reason)
    }

    private func check(_ status: Int32) throws {
        guard status == PF_OK else { throw failure(_Codec.message(message)) }
    }

    /// The next frame's descriptor, or nil at the end of the file.
    func nextFrame() throws -> Frame? {
        var frame = pf_gif_frame()
        var atEnd: Int32 = 0
        try check(pf_gif_next_frame(decoder, &frame, &atEnd, &message))
        if atEnd != 0 { return nil }
        framesSeen += 1
        try options._checkImageCount(framesSeen, file: name)
        let palette: [UInt8], count: Int
        if frame.local_color_count > 0 {
            palette = withUnsafeBytes(of: frame.local_colors) { Array($0) }
            count = Int(frame.local_color_count)
        } else if globalColorCount > 0 {
            (palette, count) = (globalColors, globalColorCount)
        } else {
            palette = (0..<768).map { UInt8($0 / 3) }
            count = 256
        }
        return Frame(
            rect: _GIFRect(
                x: Int(frame.left), y: Int(frame.top), width: Int(frame.width),
                height: Int(frame.height)),
            palette: palette, colorCount: count, disposal: Int(frame.disposal), delay: Int(frame.delay),
            transparentIndex: Int(frame.transparent_index))
    }

    /// The frame's rectangle clipped to the screen.
    func clip(_ rect: _GIFRect) -> _GIFRect {
        let x0 = min(rect.x, width), y0 = min(rect.y, height)
        let x1 = min(rect.x + rect.width, width), y1 = min(rect.y + rect.height, height)
        return _GIFRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }

    /// Skips the pixels of the frame `nextFrame` returned.
    func skip() throws {
        try check(pf_gif_skip_frame(decoder, &message))
    }

    /// Decodes the pixels of `frame` (just returned by `nextFrame`) and draws them on `canvas`.
    func draw(_ frame: Frame, on canvas: inout _GIFCanvas) throws {
        let visible = clip(frame.rect)
        canvas.beginFrame(visible, disposal: frame.disposal)
        var indices = [UInt8](repeating: 0, count: max(1, visible.width * visible.height))
        let empty = visible.width == 0 || visible.height == 0
        let status = indices.withUnsafeMutableBufferPointer { p in
            pf_gif_read_frame(
                decoder, empty ? 0 : UInt32(visible.x - frame.rect.x),
                empty ? 0 : UInt32(visible.y - frame.rect.y), UInt32(visible.width),
                UInt32(visible.height), p.baseAddress, max(1, visible.width), &message)
        }
        try check(status)
        canvas.draw(
            indices, in: visible, palette: frame.palette, colorCount: frame.colorCount,
            transparentIndex: frame.transparentIndex)
    }

    /// The ICC profile and XMP packet seen so far.
    var metadata: ImageMetadata {
        var m = ImageMetadata()
        var size = 0
        if let p = pf_gif_icc_profile(decoder, &size) { m.iccProfile = Array(UnsafeBufferPointer(start: p, count: size)) }
        if let p = pf_gif_xmp(decoder, &size) { m.xmp = Array(UnsafeBufferPointer(start: p, count: size)) }
        return m
    }

    /// The NETSCAPE2.0 loop count seen so far (0 = forever), or nil.
    var loopCount: Int? {
        let n = Int(pf_gif_loop_count(decoder))
        return n >= 0 ? n : nil
    }
}
