import Foundation
import XCTest
import PixelFlow

/// Runs a built executable (an example or `pixelflow`) with standard input from bytes, and
/// reads the files it writes. Executables are found as `CLIProcess` finds them.
enum ExampleProcess {
    /// Runs `name` with `arguments` in `directory`; standard input is `stdin` (empty when nil).
    static func run(_ name: String, _ arguments: [String], in directory: URL, stdin: [UInt8]? = nil) throws -> CLIProcess.Result {
        let process = Process()
        process.executableURL = try CLIProcess.executable(name)
        process.arguments = arguments
        process.currentDirectoryURL = directory
        let id = UUID().uuidString
        let inURL = directory.appendingPathComponent(".stdin-\(id)")
        let outURL = directory.appendingPathComponent(".stdout-\(id)")
        let errURL = directory.appendingPathComponent(".stderr-\(id)")
        try Data(stdin ?? []).write(to: inURL)
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let input = try FileHandle(forReadingFrom: inURL)
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        defer {
            for h in [input, out, err] { try? h.close() }
            for u in [inURL, outURL, errURL] { try? FileManager.default.removeItem(at: u) }
        }
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        process.waitUntilExit()
        return CLIProcess.Result(
            status: process.terminationStatus, stdout: Array(try Data(contentsOf: outURL)),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

/// The largest difference in 8-bit levels between two images' stored values, over all
/// channels; fails the test when the sizes differ.
func maxLevelDifference(_ a: PixelBuffer, _ b: PixelBuffer, file: StaticString = #filePath, line: UInt = #line) -> Int {
    guard a.width == b.width, a.height == b.height else {
        XCTFail("sizes differ: \(a.width)x\(a.height) and \(b.width)x\(b.height)", file: file, line: line)
        return .max
    }
    var worst: Float = 0
    for y in 0..<a.height {
        for x in 0..<a.width { worst = max(worst, abs(a[x, y] - b[x, y]).max()) }
    }
    return Int((worst * 255).rounded())
}

/// A minimal YUV4MPEG2 stream for tests: 8-bit, full range, BT.601 (what LiveDetection
/// assumes for C420jpeg), chroma averaged over 2x2 blocks, or 4:4:4.
struct TestY4M {
    var width: Int
    var height: Int
    var chroma = "420jpeg"

    var header: String { "YUV4MPEG2 W\(width) H\(height) F25:1 Ip A1:1 C\(chroma)" }

    var chromaSize: (Int, Int) {
        switch chroma {
        case "444": return (width, height)
        case "mono": return (0, 0)
        default: return ((width + 1) / 2, (height + 1) / 2)
        }
    }
    var frameBytes: Int { width * height + 2 * chromaSize.0 * chromaSize.1 }

    /// The stream of `frames` (8-bit sRGB buffers of this size).
    func stream(_ frames: [PixelBuffer], frameParameters: String = "") -> [UInt8] {
        var bytes = Array((header + "\n").utf8)
        for f in frames {
            bytes += Array(("FRAME" + (frameParameters.isEmpty ? "" : " " + frameParameters) + "\n").utf8)
            bytes += planes(f)
        }
        return bytes
    }

    func planes(_ f: PixelBuffer) -> [UInt8] {
        func rgb(_ x: Int, _ y: Int) -> (Float, Float, Float) {
            let p = f[x, y] * 255
            return (p.x, p.y, p.z)
        }
        func byte(_ v: Float) -> UInt8 { UInt8(max(0, min(255, v.rounded()))) }
        var y8: [UInt8] = [], cb: [UInt8] = [], cr: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b) = rgb(x, y)
                y8.append(byte(0.299 * r + 0.587 * g + 0.114 * b))
            }
        }
        let (cw, ch) = chromaSize
        if chroma.hasPrefix("420") && chroma != "420jpeg" {
            // Video range: Y in 16...235, Cb and Cr in 16...240.
            y8 = y8.map { byte(16 + Float($0) * 219 / 255) }
        }
        let step = chroma == "444" ? 1 : 2
        for cy in 0..<ch {
            for cx in 0..<cw {
                var u: Float = 0, v: Float = 0, n: Float = 0
                for y in (cy * step)..<min(height, cy * step + step) {
                    for x in (cx * step)..<min(width, cx * step + step) {
                        let (r, g, b) = rgb(x, y)
                        u += -0.168736 * r - 0.331264 * g + 0.5 * b
                        v += 0.5 * r - 0.418688 * g - 0.081312 * b
                        n += 1
                    }
                }
                let scale: Float = chroma.hasPrefix("420") && chroma != "420jpeg" ? 224 / 255 : 1
                cb.append(byte(u / n * scale + 128))
                cr.append(byte(v / n * scale + 128))
            }
        }
        return y8 + cb + cr
    }

    /// Splits a stream into its header line and frames (each frame's line and planes).
    ///
    /// - Throws: when the stream does not match this layout.
    static func parse(_ bytes: [UInt8], frameBytes: Int) throws -> (header: String, frames: [(line: String, planes: [UInt8])]) {
        struct Malformed: Error, CustomStringConvertible { var description: String }
        guard let nl = bytes.firstIndex(of: 0x0A) else { throw Malformed(description: "no header line") }
        let header = String(decoding: bytes[..<nl], as: UTF8.self)
        var frames: [(String, [UInt8])] = []
        var i = nl + 1
        while i < bytes.count {
            guard let end = bytes[i...].firstIndex(of: 0x0A) else { throw Malformed(description: "no FRAME line at \(i)") }
            let line = String(decoding: bytes[i..<end], as: UTF8.self)
            guard line.hasPrefix("FRAME") else { throw Malformed(description: "expected FRAME, got \(line.prefix(10))") }
            let start = end + 1
            guard start + frameBytes <= bytes.count else { throw Malformed(description: "truncated frame") }
            frames.append((line, Array(bytes[start..<(start + frameBytes)])))
            i = start + frameBytes
        }
        return (header, frames)
    }
}
