import CCodecShims

/// WebP through libwebp (via the `CCodecShims` C target): lossy (VP8) and lossless (VP8L)
/// still images with or without alpha, animations, and the ICCP, EXIF and XMP chunks.
///
/// Decoding always gives `rgba8` (alpha 255 where the file has none). An animation's frame
/// is the whole canvas after compositing every frame up to it (libwebp's animation decoder
/// blends and disposes as each frame says, on a transparent canvas; the background color is
/// ignored, as the specification allows). Durations are stored in milliseconds.
///
/// Encoding writes lossy WebP at `quality`, or lossless (`EncodeOptions.lossless`, exact RGB
/// under transparent pixels) where `quality` trades size for speed; the method is
/// `min(effort, 6)`. Alpha is written only when some pixel is not opaque. 16-bit and gray
/// buffers are written as 8-bit RGB(A). Metadata goes through libwebp's muxer.
///
/// - Complexity: O(pixels) for a still image; O(canvas pixels x frames up to the one asked)
///   for an animation, plus libwebp's two canvases of 4 bytes a pixel.
enum _WebPCodec {
    /// libwebp's largest side, for both decoding and encoding.
    static let maximumSide = 16383

    static func inspect(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> ImageFileInfo {
        try checkChunks(bytes, name: name, options: options)
        return try withDecoder(bytes, name: name) { decoder, header in
            let count = Int(header.frame_count)
            try options._checkImageCount(count, file: name)
            try options._checkDimensions(
                width: Int(header.canvas_width), height: Int(header.canvas_height),
                file: name)
            return ImageFileInfo(
                format: .webp, width: Int(header.canvas_width), height: Int(header.canvas_height),
                imageCount: count, bitsPerSample: 8, colorModel: "rgb",
                hasAlpha: header.has_alpha != 0, isAnimated: header.is_animated != 0,
                metadata: try metadata(decoder, header, name: name))
        }
    }

    /// Image `options.imageIndex`: a still image, or that frame of an animation composited
    /// on the canvas.
    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> _DecodedImage {
        try checkChunks(bytes, name: name, options: options)
        return try withDecoder(bytes, name: name) { decoder, header in
            let count = Int(header.frame_count)
            try options._checkImageCount(count, file: name)
            try options._checkImageIndex(count: count, file: name)
            let width = Int(header.canvas_width), height = Int(header.canvas_height)
            try options._checkDimensions(width: width, height: height, file: name)
            let metadata = try metadata(decoder, header, name: name)
            var buffer = try _Codec.makeDecodedBuffer(width: width, height: height, format: .rgba8)
            if header.is_animated == 0 {
                try readStill(decoder, into: &buffer, name: name)
            } else {
                try call(name) { pf_webp_start_frames(decoder, &$0) }
                for _ in 0..<options.imageIndex {
                    try call(name) { pf_webp_read_next_frame(decoder, nil, 0, &$0) }
                }
                try readNextFrame(decoder, into: &buffer, name: name)
            }
            return _DecodedImage(buffer: buffer, metadata: metadata)
        }
    }

    /// Every frame, each the whole canvas after compositing, with its duration in seconds
    /// (0 for a still image).
    static func decodeFrames(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> [_DecodedFrame] {
        try checkChunks(bytes, name: name, options: options)
        return try withDecoder(bytes, name: name) { decoder, header in
            let count = Int(header.frame_count)
            try options._checkImageCount(count, file: name)
            let width = Int(header.canvas_width), height = Int(header.canvas_height)
            try options._checkDimensions(width: width, height: height, file: name)
            try options._checkFramesTotal(count: count, width: width, height: height, file: name)
            let metadata = try metadata(decoder, header, name: name)
            if header.is_animated == 0 {
                var buffer = try _Codec.makeDecodedBuffer(width: width, height: height, format: .rgba8)
                try readStill(decoder, into: &buffer, name: name)
                return [_DecodedFrame(image: _DecodedImage(buffer: buffer, metadata: metadata), duration: 0)]
            }
            try call(name) { pf_webp_start_frames(decoder, &$0) }
            var frames: [_DecodedFrame] = []
            frames.reserveCapacity(count)
            for index in 0..<count {
                var milliseconds: Int32 = 0
                try call(name) { pf_webp_frame_duration(decoder, UInt32(index), &milliseconds, &$0) }
                var buffer = try _Codec.makeDecodedBuffer(width: width, height: height, format: .rgba8)
                try readNextFrame(decoder, into: &buffer, name: name)
                frames.append(
                    _DecodedFrame(
                        image: _DecodedImage(buffer: buffer, metadata: metadata),
                        duration: Double(milliseconds) / 1000))
            }
            return frames
        }
    }

    static func encode(
        _ source: PixelBuffer, quality: Int, name: String, options: EncodeOptions,
        metadata: _EmbeddedMetadata
    ) throws -> [UInt8] {
        let buffer = try rgba8(source, name: name)
        let hasAlpha = !_Codec.isOpaque(buffer)
        let method = Int32(min(options.effort, 6))
        func block(_ b: [UInt8]?) -> [UInt8]? { b?.isEmpty == false ? b : nil }
        return try withOptionalBytes(block(metadata.iccProfile)) { icc, iccSize in
            try withOptionalBytes(block(metadata.exif)) { exif, exifSize in
                try withOptionalBytes(block(metadata.xmp)) { xmp, xmpSize in
                    try encoded(name) { output, size, message in
                        buffer.withUnsafeBytes { pixels in
                            pf_webp_encode(
                                pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), buffer.bytesPerRow,
                                UInt32(buffer.width), UInt32(buffer.height), hasAlpha ? 1 : 0,
                                options.lossless ? 1 : 0, Int32(quality), method, icc, iccSize, exif,
                                exifSize, xmp, xmpSize, &output, &size, &message)
                        }
                    }
                }
            }
        }
    }

    /// An animated WebP of `frames` (each a whole canvas of the same size, shown for its
    /// duration rounded to milliseconds), looping forever, lossy at `quality` or lossless as
    /// `options.lossless` says. libwebp's animation encoder chooses the sub-rectangles,
    /// blending and disposal.
    ///
    /// - Throws: `invalidParameter` for no frames, frames of different sizes or a duration
    ///   outside 0...16777.215 seconds; `encodingFailed` when libwebp fails or a side is over
    ///   16383.
    static func encodeAnimation(
        _ frames: [ImageFrame], quality: Int, name: String,
        options: EncodeOptions
    ) throws -> [UInt8] {
        try _Codec.checkQuality(quality, format: .webp)
        try options._validate(format: .webp)
        guard let first = frames.first else {
            throw PixelFlowError.invalidParameter(filter: "webp encoder", key: "frames", reason: "must not be empty")
        }
        var durations: [Int32] = []
        var buffers: [PixelBuffer] = []
        for (index, frame) in frames.enumerated() {
            guard frame.buffer.width == first.buffer.width, frame.buffer.height == first.buffer.height else {
                throw PixelFlowError.invalidParameter(
                    filter: "webp encoder", key: "frames",
                    reason:
                        "frame \(index) is \(frame.buffer.width)x\(frame.buffer.height), frame 0 is \(first.buffer.width)x\(first.buffer.height)"
                )
            }
            guard frame.duration.isFinite, (0...16777.215).contains(frame.duration) else {
                throw PixelFlowError.invalidParameter(
                    filter: "webp encoder", key: "duration",
                    reason: "frame \(index): must be in 0...16777.215 seconds, got \(frame.duration)")
            }
            durations.append(Int32((frame.duration * 1000).rounded()))
            buffers.append(try rgba8(frame.buffer, name: name))
        }
        let width = first.buffer.width, height = first.buffer.height
        // Every rgba8 buffer of one size has the same row length.
        let stride = buffers[0].bytesPerRow
        return try withPointers(to: buffers) { pointers in
            try encoded(name) { output, size, message in
                pf_webp_encode_animation(
                    pointers, durations, UInt32(buffers.count), stride, UInt32(width),
                    UInt32(height), options.lossless ? 1 : 0, Int32(quality),
                    Int32(min(options.effort, 6)), &output, &size, &message)
            }
        }
    }

    // MARK: - Decoding steps

    /// Walks the RIFF chunks before libwebp parses them: throws `limitExceeded` for a VP8X
    /// canvas over the limits and as soon as more than `options.maximumImageCount` ANMF
    /// chunks are counted, so that a huge declared size or frame count is reported as such
    /// even when the rest of the file is garbage. Nothing inside a chunk is checked here.
    ///
    /// - Complexity: O(chunks).
    static func checkChunks(_ bytes: [UInt8], name: String, options: DecodeOptions) throws {
        guard bytes.count >= 12 else { return }
        let end = min(bytes.count, 8 + bytes._le32(4))
        var offset = 12, frames = 0
        while offset + 8 <= end {
            let size = bytes._le32(offset + 4)
            let type = bytes[offset..<(offset + 4)]
            if type.elementsEqual("VP8X".utf8), size >= 10, offset + 18 <= end {
                let width = 1 + (bytes._le32(offset + 12) & 0xFF_FFFF)
                let height = 1 + (bytes._le32(offset + 14) >> 8)
                try options._checkDimensions(width: width, height: height, file: name)
            } else if type.elementsEqual("ANMF".utf8) {
                frames += 1
                try options._checkImageCount(frames, file: name)
            }
            // size < 2^32 and the file is under 2^63 bytes: no overflow.
            offset += 8 + size + (size & 1)
        }
    }

    /// Runs `body` with a decoder over `bytes` whose header was read.
    private static func withDecoder<R>(
        _ bytes: [UInt8], name: String,
        _ body: (OpaquePointer, pf_webp_header) throws -> R
    ) throws -> R {
        try bytes.withUnsafeBufferPointer { input in
            guard let decoder = pf_webp_decoder_create(input.baseAddress, input.count) else {
                throw PixelFlowError.decodingFailed(file: name, reason: "WebP: out of memory")
            }
            defer { pf_webp_decoder_destroy(decoder) }
            var header = pf_webp_header()
            try call(name) { pf_webp_read_header(decoder, &header, &$0) }
            return try body(decoder, header)
        }
    }

    /// The ICC profile, EXIF (without an `Exif\0\0` prefix some writers keep) with its
    /// orientation, and XMP.
    private static func metadata(
        _ decoder: OpaquePointer, _ header: pf_webp_header,
        name: String
    ) throws -> ImageMetadata {
        let chunkSizes = [header.chunk_sizes.0, header.chunk_sizes.1, header.chunk_sizes.2]
        func chunk(_ kind: Int) throws -> [UInt8]? {
            let size = chunkSizes[kind]
            guard size > 0 else { return nil }
            // A chunk lies inside the file, so its size is bounded by the file's.
            var bytes = [UInt8](repeating: 0, count: size)
            try bytes.withUnsafeMutableBufferPointer { out in
                try call(name) { pf_webp_copy_chunk(decoder, Int32(kind), out.baseAddress, size, &$0) }
            }
            return bytes
        }
        var metadata = ImageMetadata()
        metadata.iccProfile = try chunk(Int(PF_WEBP_CHUNK_ICCP))
        metadata.xmp = try chunk(Int(PF_WEBP_CHUNK_XMP))
        if var exif = try chunk(Int(PF_WEBP_CHUNK_EXIF)) {
            if exif.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) { exif.removeFirst(6) }
            metadata.exif = exif
            metadata.orientation = EXIFOrientation(exif: exif) ?? .up
        }
        return metadata
    }

    private static func readStill(_ decoder: OpaquePointer, into buffer: inout PixelBuffer, name: String) throws {
        let stride = buffer.bytesPerRow
        try buffer.withUnsafeMutableBytes { pixels in
            try call(name) {
                pf_webp_read_pixels(decoder, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), stride, &$0)
            }
        }
    }

    private static func readNextFrame(_ decoder: OpaquePointer, into buffer: inout PixelBuffer, name: String) throws {
        let stride = buffer.bytesPerRow
        try buffer.withUnsafeMutableBytes { pixels in
            try call(name) {
                pf_webp_read_next_frame(decoder, pixels.baseAddress!.assumingMemoryBound(to: UInt8.self), stride, &$0)
            }
        }
    }

    /// Calls a shim function with a message buffer; throws `decodingFailed` unless it returns
    /// `PF_OK`.
    private static func call(_ name: String, _ body: (inout [CChar]) -> Int32) throws {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        guard body(&message) == PF_OK else {
            throw PixelFlowError.decodingFailed(file: name, reason: "WebP: " + _Codec.message(message))
        }
    }

    // MARK: - Encoding steps

    /// `buffer` as sRGB `rgba8` with straight alpha (WebP stores 8 bits); throws
    /// `encodingFailed` for a side over 16383.
    private static func rgba8(_ source: PixelBuffer, name: String) throws -> PixelBuffer {
        guard source.width <= maximumSide, source.height <= maximumSide else {
            throw PixelFlowError.encodingFailed(
                file: name,
                reason: "WebP: \(source.width)x\(source.height) is too large (WebP holds at most \(maximumSide) pixels a side)")
        }
        let buffer = _Codec.encodable(source)
        return buffer.format == .rgba8 ? buffer : buffer.converted(to: .rgba8, colorEncoding: .sRGB, alphaMode: .straight)
    }

    /// Runs an encoding shim call and returns its output; throws `encodingFailed` on failure.
    private static func encoded(
        _ name: String,
        _ body: (inout UnsafeMutablePointer<UInt8>?, inout Int, inout [CChar]) -> Int32
    ) throws -> [UInt8] {
        var message = [CChar](repeating: 0, count: Int(PF_MESSAGE_CAPACITY))
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let status = body(&output, &size, &message)
        defer { pf_free(output) }
        guard status == PF_OK, let output else {
            throw PixelFlowError.encodingFailed(file: name, reason: "WebP: " + _Codec.message(message))
        }
        return Array(UnsafeBufferPointer(start: output, count: size))
    }

    private static func withOptionalBytes<R>(
        _ bytes: [UInt8]?,
        _ body: (UnsafePointer<UInt8>?, Int) throws -> R
    ) rethrows -> R {
        guard let bytes else { return try body(nil, 0) }
        return try bytes.withUnsafeBufferPointer { try body($0.baseAddress, $0.count) }
    }

    /// Runs `body` with the base addresses of `buffers`' pixels, all kept alive meanwhile
    /// (read only: the storage is never written through them).
    private static func withPointers<R>(
        to buffers: [PixelBuffer],
        _ body: ([UnsafePointer<UInt8>?]) throws -> R
    ) rethrows -> R {
        try withExtendedLifetime(buffers) {
            try body(buffers.map { UnsafePointer($0._storage.bytes.assumingMemoryBound(to: UInt8.self)) })
        }
    }
}
