#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PixelFlow

// YUV4MPEG2 ("y4m"): the uncompressed video stream that `ffmpeg -f yuv4mpegpipe` writes and
// reads. A stream is one header line, then frames, each a `FRAME` line and the raw planes:
//
//     YUV4MPEG2 W640 H480 F30:1 Ip A1:1 C420jpeg XYSCSS=420JPEG\n
//     FRAME\n  <Y: W*H bytes> <Cb> <Cr>          (4:2:0: each chroma plane ceil(W/2)*ceil(H/2))
//     FRAME\n  ...
//
// Header parameters: W width, H height, F frame rate, I interlacing, A pixel aspect,
// C chroma layout (420jpeg, 420, 420mpeg2, 420paldv, 422, 444, mono), X extensions
// (ffmpeg writes XCOLORRANGE=FULL or LIMITED). Only 8-bit samples are supported here.
// References: the yuv4mpeg(5) manual page of mjpegtools; ffmpeg's libavformat/yuv4mpegdec.c.

/// A malformed or unsupported YUV4MPEG2 stream, with what was wrong and where.
public struct Y4MError: Error, CustomStringConvertible {
    public var description: String
    /// True when the input held no byte at all (no stream was given), as opposed to a
    /// malformed one; a program can then say how to run without a stream.
    public var isEmptyInput = false
    public init(_ description: String, isEmptyInput: Bool = false) {
        self.description = description
        self.isEmptyInput = isEmptyInput
    }
}

/// How the chroma planes are laid out.
public enum Y4MChroma: Sendable, Equatable {
    /// Cb and Cr at half width and half height (C420, C420jpeg, C420mpeg2, C420paldv).
    case yuv420
    /// Cb and Cr at half width, full height (C422).
    case yuv422
    /// Cb and Cr at full size (C444).
    case yuv444
    /// Luma only (Cmono).
    case mono

    /// The chroma plane size for a `width` x `height` frame (sizes round up).
    func chromaSize(width: Int, height: Int) -> (width: Int, height: Int) {
        switch self {
        case .yuv420: return ((width + 1) / 2, (height + 1) / 2)
        case .yuv422: return ((width + 1) / 2, height)
        case .yuv444: return (width, height)
        case .mono: return (0, 0)
        }
    }
}

/// The stream header: size, chroma layout, color range, and every parameter as written,
/// so a filter can write back the header it read.
public struct Y4MHeader: Sendable {
    public var width: Int
    public var height: Int
    public var chroma: Y4MChroma
    /// True for full-range samples (0...255; C420jpeg, Cmono or XCOLORRANGE=FULL); false for
    /// video range (Y 16...235, Cb/Cr 16...240), ffmpeg's default for the other layouts.
    public var fullRange: Bool
    /// The header's parameters after `YUV4MPEG2`, in order (`W640`, `H480`, `F30:1`, ...).
    public var parameters: [String]

    /// A header for `width` x `height` frames at `frameRate` (such as `25:1`), 4:2:0,
    /// full range, as ffmpeg writes for `-pix_fmt yuvj420p`.
    public init(width: Int, height: Int, frameRate: String = "25:1", chroma: Y4MChroma = .yuv420) {
        self.width = width
        self.height = height
        self.chroma = chroma
        fullRange = true
        let c: String
        switch chroma {
        case .yuv420: c = "C420jpeg"
        case .yuv422: c = "C422"
        case .yuv444: c = "C444"
        case .mono: c = "Cmono"
        }
        parameters = ["W\(width)", "H\(height)", "F\(frameRate)", "Ip", "A1:1", c, "XCOLORRANGE=FULL"]
    }

    /// Parses a header line (without its newline).
    ///
    /// - Throws: `Y4MError` saying what is missing or unsupported.
    public init(line: String) throws {
        var words = line.split(separator: " ").map(String.init)
        guard words.first == "YUV4MPEG2" else {
            let start = String(line.prefix(16)).unicodeScalars.map { $0.isASCII && $0.value >= 32 ? String($0) : "?" }.joined()
            throw Y4MError(
                "not a YUV4MPEG2 stream: it starts with '\(start)', not 'YUV4MPEG2' (make one with `ffmpeg -i in.mp4 -f yuv4mpegpipe -`)"
            )
        }
        words.removeFirst()
        parameters = words
        var width: Int?, height: Int?
        var chroma = Y4MChroma.yuv420
        var chromaName = "420jpeg"
        var range: Bool?
        for word in words {
            guard let tag = word.first else { continue }
            let value = String(word.dropFirst())
            switch tag {
            case "W": width = Int(value)
            case "H": height = Int(value)
            case "C":
                chromaName = value
                switch value {
                case "420", "420jpeg", "420mpeg2", "420paldv": chroma = .yuv420
                case "422": chroma = .yuv422
                case "444": chroma = .yuv444
                case "mono": chroma = .mono
                default:
                    throw Y4MError(
                        "unsupported chroma layout C\(value): this reader takes 8-bit C420jpeg, C420, C420mpeg2, C420paldv, C422, C444 and Cmono (convert with `ffmpeg ... -pix_fmt yuv420p -f yuv4mpegpipe -`)"
                    )
                }
            case "X":
                if value == "COLORRANGE=FULL" { range = true }
                if value == "COLORRANGE=LIMITED" { range = false }
            default: break
            }
        }
        guard let width, width > 0, width <= 16384 else {
            throw Y4MError("the YUV4MPEG2 header has no valid width (W1...W16384): '\(line)'")
        }
        guard let height, height > 0, height <= 16384 else {
            throw Y4MError("the YUV4MPEG2 header has no valid height (H1...H16384): '\(line)'")
        }
        self.width = width
        self.height = height
        self.chroma = chroma
        // ffmpeg writes C420jpeg for full-range 4:2:0 and Cmono for gray, which it keeps full range.
        fullRange = range ?? (chromaName == "420jpeg" || chromaName == "mono")
    }

    /// The header line, without its newline.
    public var line: String { (["YUV4MPEG2"] + parameters).joined(separator: " ") }

    /// Bytes of one frame's planes.
    public var frameByteCount: Int {
        let c = chroma.chromaSize(width: width, height: height)
        return width * height + 2 * c.width * c.height
    }
}

/// One frame: its `FRAME` line parameters and its planes, Y then Cb then Cr.
public struct Y4MFrame: Sendable {
    /// The parameters after `FRAME` (usually none), written back as they were.
    public var parameters: [String]
    /// Y, Cb and Cr planes, one byte per sample, rows without padding.
    public var bytes: [UInt8]

    public init(parameters: [String] = [], bytes: [UInt8]) {
        self.parameters = parameters
        self.bytes = bytes
    }
}

/// Reads a YUV4MPEG2 stream from a file descriptor (standard input by default).
///
/// ```swift
/// let reader = try Y4MReader(fileDescriptor: 0)
/// while let frame = try reader.nextFrame() {
///     let rgb = try reader.header.pixelBuffer(from: frame)
///     ...
/// }
/// ```
public final class Y4MReader {
    public let header: Y4MHeader
    private let source: ByteSource
    /// Frames read so far.
    public private(set) var frameCount = 0

    /// Reads and parses the header.
    ///
    /// - Throws: `Y4MError` for an empty stream or a malformed header.
    public init(fileDescriptor: Int32 = 0) throws {
        source = ByteSource(fileDescriptor: fileDescriptor)
        guard let line = try source.line(maximumLength: 1024) else {
            throw Y4MError(
                "the input is empty: expected a YUV4MPEG2 stream (for example from `ffmpeg -i in.mp4 -f yuv4mpegpipe -`)",
                isEmptyInput: true)
        }
        header = try Y4MHeader(line: line)
    }

    /// The next frame, or nil at the end of the stream.
    ///
    /// - Throws: `Y4MError` when a frame does not start with `FRAME` or is cut short.
    public func nextFrame() throws -> Y4MFrame? {
        guard let line = try source.line(maximumLength: 1024) else { return nil }
        var words = line.split(separator: " ").map(String.init)
        guard words.first == "FRAME" else {
            throw Y4MError(
                "frame \(frameCount + 1): expected a 'FRAME' line, found '\(line.prefix(20))' (is the header's size right? each frame has \(header.frameByteCount) bytes)"
            )
        }
        words.removeFirst()
        let bytes = try source.bytes(header.frameByteCount)
        guard bytes.count == header.frameByteCount else {
            throw Y4MError("frame \(frameCount + 1) is truncated: \(bytes.count) of \(header.frameByteCount) bytes")
        }
        frameCount += 1
        return Y4MFrame(parameters: words, bytes: bytes)
    }
}

/// Buffered reads from a file descriptor: lines and byte counts.
private final class ByteSource {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var position = 0
    private var ended = false

    init(fileDescriptor: Int32) { fd = fileDescriptor }

    /// Reads more bytes; false at the end of the input.
    private func fill() throws -> Bool {
        if ended { return false }
        if position > 0 {
            buffer.removeFirst(position)
            position = 0
        }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n > 0 {
                buffer.append(contentsOf: chunk[0..<n])
                return true
            }
            if n == 0 {
                ended = true
                return false
            }
            if errno != EINTR { throw Y4MError("cannot read the input: \(String(cString: strerror(errno)))") }
        }
    }

    /// The next line without its newline; nil at the end of the input.
    func line(maximumLength: Int) throws -> String? {
        while true {
            if let newline = buffer[position...].firstIndex(of: 0x0A) {
                let text = String(decoding: buffer[position..<newline], as: UTF8.self)
                position = newline + 1
                return text
            }
            if buffer.count - position > maximumLength {
                throw Y4MError("a header or FRAME line is longer than \(maximumLength) bytes: this is not a YUV4MPEG2 stream")
            }
            if try !fill() {
                if position == buffer.count { return nil }
                throw Y4MError(
                    "the stream ends in the middle of a line: '\(String(decoding: buffer[position...].prefix(20), as: UTF8.self))'"
                )
            }
        }
    }

    /// Up to `count` bytes (fewer only at the end of the input).
    func bytes(_ count: Int) throws -> [UInt8] {
        while buffer.count - position < count {
            if try !fill() { break }
        }
        let n = min(count, buffer.count - position)
        let out = Array(buffer[position..<(position + n)])
        position += n
        return out
    }
}

/// Writes a YUV4MPEG2 stream to a file descriptor (standard output by default).
public struct Y4MWriter {
    public let header: Y4MHeader
    private let fd: Int32

    /// Writes the header line.
    ///
    /// - Throws: `Y4MError` when the write fails (for example a closed pipe).
    public init(header: Y4MHeader, fileDescriptor: Int32 = 1) throws {
        self.header = header
        fd = fileDescriptor
        try write(Array((header.line + "\n").utf8))
    }

    /// Writes one frame.
    public func write(_ frame: Y4MFrame) throws {
        precondition(
            frame.bytes.count == header.frameByteCount,
            "a frame of \(header.width)x\(header.height) has \(header.frameByteCount) bytes")
        try write(Array(((["FRAME"] + frame.parameters).joined(separator: " ") + "\n").utf8))
        try write(frame.bytes)
    }

    private func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = posixWrite(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw Y4MError("cannot write the YUV4MPEG2 output: \(String(cString: strerror(errno)))")
                }
                offset += n
            }
        }
    }
}

/// POSIX `write`, under a name that `Y4MWriter.write` does not shadow.
private func posixWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(fd, bytes, count)
}

// MARK: Color conversion

extension Y4MHeader {
    /// The frame as an opaque 8-bit sRGB image, converting Y'CbCr with the BT.601 matrix
    /// (what ffmpeg assumes for y4m) in this header's range, and upsampling chroma by
    /// repeating each sample.
    ///
    /// - Complexity: O(width x height), one pass.
    public func pixelBuffer(from frame: Y4MFrame) throws -> PixelBuffer {
        var out = try PixelBuffer(width: width, height: height, format: .rgba8)
        let (cw, ch) = chroma.chromaSize(width: width, height: height)
        let (sx, sy) = (chroma == .yuv444 ? 1 : 2, chroma == .yuv420 ? 2 : 1)
        let ySize = width * height
        let yScale: Float = fullRange ? 1 : 255 / 219, yOffset: Float = fullRange ? 0 : 16
        let cScale: Float = fullRange ? 1 : 255 / 224
        let bytesPerRow = out.bytesPerRow
        frame.bytes.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBytes { dst in
                for y in 0..<height {
                    for x in 0..<width {
                        let luma = (Float(src[y * width + x]) - yOffset) * yScale
                        var cb: Float = 0, cr: Float = 0
                        if chroma != .mono {
                            let ci = (y / sy) * cw + x / sx
                            cb = (Float(src[ySize + ci]) - 128) * cScale
                            cr = (Float(src[ySize + cw * ch + ci]) - 128) * cScale
                        }
                        let r = luma + 1.402 * cr
                        let g = luma - 0.344136 * cb - 0.714136 * cr
                        let b = luma + 1.772 * cb
                        let o = y * bytesPerRow + 4 * x
                        dst[o] = clamp8(r)
                        dst[o + 1] = clamp8(g)
                        dst[o + 2] = clamp8(b)
                        dst[o + 3] = 255
                    }
                }
            }
        }
        return out
    }

    /// An 8-bit sRGB image (of this header's size) as a frame: BT.601 in this header's
    /// range, chroma averaged over each 2x2 (4:2:0) or 2x1 (4:2:2) block; alpha is ignored.
    ///
    /// - Throws: `Y4MError` when the image's size is not the stream's.
    public func frame(from image: PixelBuffer, parameters: [String] = []) throws -> Y4MFrame {
        guard image.width == width, image.height == height else {
            throw Y4MError("a \(image.width)x\(image.height) image does not fit a \(width)x\(height) stream")
        }
        let rgb = image.format == .rgba8 ? image : try RenderContext().makeBuffer(Image(image), format: .rgba8)
        let (cw, ch) = chroma.chromaSize(width: width, height: height)
        let (sx, sy) = (chroma == .yuv444 ? 1 : 2, chroma == .yuv420 ? 2 : 1)
        var bytes = [UInt8](repeating: 128, count: frameByteCount)
        let ySize = width * height
        let yScale: Float = fullRange ? 1 : 219 / 255, yOffset: Float = fullRange ? 0 : 16
        let cScale: Float = fullRange ? 1 : 224 / 255
        let bytesPerRow = rgb.bytesPerRow
        rgb.withUnsafeBytes { src in
            func pixel(_ x: Int, _ y: Int) -> (Float, Float, Float) {
                let o = y * bytesPerRow + 4 * x
                return (Float(src[o]), Float(src[o + 1]), Float(src[o + 2]))
            }
            for y in 0..<height {
                for x in 0..<width {
                    let (r, g, b) = pixel(x, y)
                    bytes[y * width + x] = clamp8((0.299 * r + 0.587 * g + 0.114 * b) * yScale + yOffset)
                }
            }
            guard chroma != .mono else { return }
            for cy in 0..<ch {
                for cx in 0..<cw {
                    var cb: Float = 0, cr: Float = 0, n: Float = 0
                    for y in (cy * sy)..<min(height, cy * sy + sy) {
                        for x in (cx * sx)..<min(width, cx * sx + sx) {
                            let (r, g, b) = pixel(x, y)
                            cb += -0.168736 * r - 0.331264 * g + 0.5 * b
                            cr += 0.5 * r - 0.418688 * g - 0.081312 * b
                            n += 1
                        }
                    }
                    bytes[ySize + cy * cw + cx] = clamp8(cb / n * cScale + 128)
                    bytes[ySize + cw * ch + cy * cw + cx] = clamp8(cr / n * cScale + 128)
                }
            }
        }
        return Y4MFrame(parameters: parameters, bytes: bytes)
    }
}

/// `v` rounded to the nearest integer and clamped to 0...255.
@inline(__always) private func clamp8(_ v: Float) -> UInt8 {
    UInt8(max(0, min(255, v.rounded())))
}
