// Writes the seed corpora of the fuzz targets (Fuzz/corpus/<target>/seed-*):
//
//     swift run --package-path Fuzz fuzz-seeds Fuzz/corpus Tests/PixelFlowTests/Fixtures
//
// Seeds are the codec and QR test fixtures plus small files made here with PixelFlow's own
// encoders, one filter-graph program and one `--filter` spec per registered filter, and a
// few chains. Everything is deterministic, so rerunning it rewrites the same files.
import Foundation
import FuzzTargets
import PixelFlow

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: fuzz-seeds CORPUS_ROOT FIXTURES_DIR\n".utf8))
    exit(2)
}
let root = arguments[1], fixtures = arguments[2]
var written = 0

@MainActor func write(_ target: FuzzTarget, _ name: String, _ bytes: [UInt8]) throws {
    let folder = root + "/" + target.rawValue
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    try Data(bytes).write(to: URL(fileURLWithPath: folder + "/seed-" + name))
    written += 1
}

func fixtureFiles(_ folder: String, _ extensions: [String]) throws -> [(String, [UInt8])] {
    let path = fixtures + "/" + folder
    return try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        .filter { name in extensions.contains { name.hasSuffix("." + $0) } }
        .map { ($0, [UInt8](try Data(contentsOf: URL(fileURLWithPath: path + "/" + $0)))) }
}

/// A small test picture: gradients, a hard edge and varying alpha.
func picture(_ width: Int, _ height: Int, _ format: PixelFormat) throws -> PixelBuffer {
    var b = try PixelBuffer(width: width, height: height, format: .rgba8)
    b.withUnsafeMutableRows { y, row in
        for x in 0..<width {
            let v: [Int] = [
                x * 255 / max(1, width - 1), y * 255 / max(1, height - 1), x < width / 2 ? 40 : 220,
                (x + y) % 3 == 0 ? 255 : 128 + 10 * x,
            ]
            for c in 0..<4 { row.storeBytes(of: UInt8(truncatingIfNeeded: v[c]), toByteOffset: 4 * x + c, as: UInt8.self) }
        }
    }
    return format == .rgba8 ? b : b.converted(to: format)
}

// Decoders: the fixtures, and PixelFlow's own files of each layout.
for (name, bytes) in try fixtureFiles("Codecs", ["png"]) { try write(.png, name, bytes) }
for (name, bytes) in try fixtureFiles("Codecs", ["jpg"]) { try write(.jpeg, name, bytes) }
for (name, bytes) in try fixtureFiles("Codecs", ["pgm", "ppm", "pam"]) { try write(.pnm, name, bytes) }
for (name, bytes) in try fixtureFiles("Codecs", ["bmp"]) { try write(.bmp, name, bytes) }
for format in [PixelFormat.rgba8, .gray8, .rgba16] {
    let b = try picture(9, 7, format)
    try write(.png, "\(format).png", try b.encoded(as: .png))
    try write(.png, "\(format)-interlaced.png", try b.encoded(as: .png, options: EncodeOptions(interlaced: true)))
    try write(.pnm, "\(format).pnm", try b.encoded(as: .pnm))
    try write(.bmp, "\(format).bmp", try b.encoded(as: .bmp))
}
let photo = try picture(17, 13, .rgba8)
try write(.jpeg, "baseline.jpg", try photo.encoded(as: .jpeg, quality: 75))
try write(
    .jpeg, "progressive-444.jpg",
    try photo.encoded(
        as: .jpeg, quality: 90,
        options: EncodeOptions(progressive: true, chromaSubsampling: .yuv444)))
try write(.jpeg, "gray.jpg", try picture(8, 8, .gray8).encoded(as: .jpeg, quality: 50))
for (magic, body) in [
    ("P1", "4 2\n0 1 0 1\n1 0 1 0\n"), ("P2", "3 2\n255\n0 128 255\n255 128 0\n"),
    ("P3", "2 2\n65535\n0 0 0 65535 1 2\n3 4 5 6 7 8\n"), ("P4", "8 1\n\u{55}"),
] {
    try write(.pnm, "\(magic)-ascii.pnm", Array((magic + "\n# comment\n" + body).utf8))
}

// Round trip: format index, width, height, flags, pixels.
for (i, format) in [PixelFormat.rgba8, .gray8, .rgba16, .rgbaF32, .grayF32].enumerated() {
    try write(.roundtrip, "\(format)", [UInt8(i), 11, 6, UInt8(i * 37)] + (0..<64).map { UInt8($0 * 29 % 256) })
}

// QR: the fixtures' module grids, packed; generated symbols drawn as gray pixels.
func packed(_ matrix: QRBitMatrix) -> [UInt8] {
    var out = [UInt8((matrix.size - 21) / 4)]
    var byte: UInt8 = 0, n = 0
    for m in matrix.modules {
        byte = byte << 1 | (m ? 1 : 0)
        n += 1
        if n == 8 { out.append(byte); byte = 0; n = 0 }
    }
    if n > 0 { out.append(byte << UInt8(8 - n)) }
    return out
}
for (name, bytes) in try fixtureFiles("QR", ["txt"]) {
    let rows = String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
    guard let matrix = QRBitMatrix(rows: rows) else { continue }
    try write(.qrMatrix, name.replacingOccurrences(of: ".txt", with: ""), packed(matrix))
}
for (text, level, scale) in [
    ("PixelFlow", QRErrorCorrectionLevel.medium, 4), ("https://example.com/a?b=1", .low, 3),
    ("01234567", .high, 6), ("HELLO WORLD 42", .quartile, 2),
] {
    let symbol = try QRCodeEncoder(correctionLevel: level).encode(text)
    try write(.qrMatrix, "encoded-" + text.filter(\.isLetter).prefix(12), packed(symbol.matrix))
    let side = (symbol.size + 8) * scale
    guard side <= 256 else { continue }
    var pixels: [UInt8] = [UInt8(side - 1), UInt8(side - 1), 0]
    for y in 0..<side {
        for x in 0..<side {
            let mx = x / scale - 4, my = y / scale - 4
            let dark = mx >= 0 && my >= 0 && mx < symbol.size && my < symbol.size && symbol.matrix[mx, my]
            pixels.append(dark ? 20 : 235)
        }
    }
    try write(.qrPixels, "encoded-" + text.filter(\.isLetter).prefix(12), pixels)
}

// Filter graph: each registered filter alone with its defaults on a 15 x 11 image; a few chains.
let gradient: [UInt8] = (0..<(15 * 11 * 4)).map { UInt8(truncatingIfNeeded: $0 * 7) }
for (i, d) in FilterRegistry.all.enumerated() {
    try write(.filterGraph, d.name, [14, 10, 0, 0, UInt8(i & 0xFF), UInt8(i >> 8), 0] + gradient)
}
func index(_ name: String) -> [UInt8] {
    let i = FilterRegistry.all.firstIndex { $0.name == name } ?? 0
    return [UInt8(i & 0xFF), UInt8(i >> 8)]
}
try write(
    .filterGraph, "chain-blur-sepia-crop",
    [14, 10, 1, 2] + index("CIGaussianBlur") + [1, 0, 0, 12]
        + index("CISepiaTone") + [0] + gradient)
try write(.filterGraph, "chain-nan-radius", [14, 10, 2, 1] + index("CIGaussianBlur") + [1, 1, 0, 0] + gradient)

// Command-line specs: one per filter with every settable input at its default, and chains.
for d in FilterRegistry.all {
    var words = [d.name]
    for input in d.inputs where input.key != "inputImage" {
        if input.valueClass == .image { words.append("\(input.key)=background.png"); continue }
        guard let value = input.defaultValue else { continue }
        switch value {
        case .string(let s) where s.contains(" ") || s.isEmpty: words.append("\(input.key)='\(s)'")
        case .data: continue
        default: words.append("\(input.key)=\(value)")
        }
    }
    try write(.cliFilter, d.name, Array(words.joined(separator: " ").utf8))
}
try write(
    .cliFilter, "chain",
    Array(
        """
        CISepiaTone inputIntensity=0.8
        CIGaussianBlur radius=2
        ExposureAdjust EV=1
        CIConstantColorGenerator inputColor=#ff8000
        CICrop inputRectangle=[1 1 10 10]
        CIColorMatrix inputRVector=(1,0,0,0) inputBiasVector=0,0,0,0
        CIAffineTransform inputTransform=[1 0 0 1 2 3]
        """.utf8))
try write(.cliFilter, "bad-words", Array("CISepia intensity\n'unbalanced\nCIGaussianBlur [1 2\n#fff".utf8))

print("fuzz-seeds: \(written) files under \(root)")
