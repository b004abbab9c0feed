import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowEngine

/// `CIBarcodeGenerator`: a descriptor made from a message draws exactly what the generator of
/// its kind draws for that message; a payload with corrupted codewords is drawn as given (the
/// QR decoder corrects it); bad descriptors throw naming `inputBarcodeDescriptor`.
final class BarcodeGeneratorTests: XCTestCase {
    func pixels(_ image: Image) throws -> PixelBuffer { try RenderContext().makeBuffer(image) }

    func testDescriptorsDrawWhatTheGeneratorsDraw() throws {
        let messages = [
            "PixelFlow", "", "0123456789012345678901234567890", "Grüße, 東京 ✓", String(repeating: "long text ", count: 30),
        ]
        for m in messages {
            let bytes = Array(m.utf8)
            for level in [QRErrorCorrectionLevel.low, .medium, .quartile, .high] {
                let d = try BarcodeDescriptor.qrCode(encoding: bytes, correctionLevel: level)
                let named = try FilterRegistry.apply(
                    "CIQRCodeGenerator", ["inputMessage": .data(bytes), "inputCorrectionLevel": .string(level.letter)])
                XCTAssertEqual(try pixels(Image.barcode(d)), try pixels(named), "QR \(m.prefix(10)) \(level)")
            }
            for (level, layers, compact) in [(23.0, 0, Bool?.none), (50, 0, false), (5, 0, nil), (33, 12, false)] {
                let d = try BarcodeDescriptor.aztecCode(encoding: bytes, correctionLevel: level, layers: layers, compact: compact)
                let named = try Image.aztecCode(
                    message: m, correctionLevel: level, layers: layers == 0 ? nil : layers, compact: compact)
                XCTAssertEqual(try pixels(Image.barcode(d)), try pixels(named), "Aztec \(m.prefix(10)) \(level)")
            }
            for (level, compact) in [(2, false), (5, true), (0, false)] {
                let d = try BarcodeDescriptor.pdf417Code(encoding: bytes, correctionLevel: level, compact: compact)
                let named = try Image.pdf417Barcode(message: m, correctionLevel: level, compact: compact)
                // Through the registry too.
                let byName = try FilterRegistry.apply("CIBarcodeGenerator", ["inputBarcodeDescriptor": .barcodeDescriptor(d)])
                XCTAssertEqual(try pixels(byName), try pixels(named), "PDF417 \(m.prefix(10)) \(level)")
            }
        }
        // The default draws the QR code of "PixelFlow".
        let standard = try FilterRegistry.apply("CIBarcodeGenerator", [:])
        XCTAssertEqual(try pixels(standard), try pixels(Image.qrCode(message: "PixelFlow")))
    }

    func testCorruptedPayloadIsDrawnAsGivenAndStillReads() throws {
        let message = "https://example.com/descriptor"
        guard
            case let .qrCode(payload, version, mask, level) = try BarcodeDescriptor.qrCode(
                encoding: Array(message.utf8), correctionLevel: .high)
        else { return XCTFail("a QR descriptor") }
        var damaged = payload
        for i in stride(from: 0, to: 12, by: 4) { damaged[i] ^= 0x5A }
        let image = try Image.barcode(
            .qrCode(payload: damaged, symbolVersion: version, maskPattern: mask, errorCorrectionLevel: level))
        let drawn = try pixels(image)
        XCTAssertNotEqual(drawn, try pixels(Image.qrCode(message: message, correctionLevel: .high)))
        let big = try RenderContext().makeBuffer(
            try image.transformed(by: AffineTransform(scaleX: 4, y: 4), sampling: .nearest), format: .gray8)
        let found = try QRCodeDetector().features(in: big)
        XCTAssertEqual(found.map(\.message), [message])
        XCTAssertGreaterThan(found.first?.decoded.correctedErrors ?? 0, 0)
    }

    func testBadDescriptorsThrow() throws {
        let qr = try BarcodeDescriptor.qrCode(encoding: Array("x".utf8))
        guard case let .qrCode(payload, _, _, _) = qr else { return XCTFail() }
        guard case let .pdf417Code(pdf, _, rows, columns) = try BarcodeDescriptor.pdf417Code(encoding: Array("x".utf8)) else {
            return XCTFail()
        }
        var tooBig = pdf
        tooBig[3] = 0xFF
        tooBig[2] = 0x03
        var badLength = pdf
        badLength[1] = badLength[1] &+ 1
        let bad: [BarcodeDescriptor] = [
            .qrCode(payload: payload, symbolVersion: 41, maskPattern: 0, errorCorrectionLevel: .medium),
            .qrCode(payload: payload, symbolVersion: 1, maskPattern: 8, errorCorrectionLevel: .medium),
            .qrCode(payload: Array(payload.dropLast()), symbolVersion: 1, maskPattern: 0, errorCorrectionLevel: .medium),
            .aztecCode(payload: [0, 1, 2], isCompact: true, layerCount: 5, dataCodewordCount: 1),
            .aztecCode(payload: [UInt8](repeating: 0, count: 3), isCompact: true, layerCount: 1, dataCodewordCount: 1),
            .aztecCode(payload: [UInt8](repeating: 0, count: 13), isCompact: true, layerCount: 1, dataCodewordCount: 17),
            .pdf417Code(payload: pdf, isCompact: false, rowCount: 2, columnCount: columns),
            .pdf417Code(payload: Array(pdf.dropLast()), isCompact: false, rowCount: rows, columnCount: columns),
            .pdf417Code(payload: tooBig, isCompact: false, rowCount: rows, columnCount: columns),
            .pdf417Code(payload: badLength, isCompact: false, rowCount: rows, columnCount: columns),
        ]
        for d in bad {
            XCTAssertThrowsError(
                try FilterRegistry.apply("CIBarcodeGenerator", ["inputBarcodeDescriptor": .barcodeDescriptor(d)]), "\(d)"
            ) {
                guard case let PixelFlowError.invalidParameter(_, key, _) = $0 else { return XCTFail("\($0)") }
                XCTAssertEqual(key, "inputBarcodeDescriptor")
            }
        }
        XCTAssertThrowsError(try FilterRegistry.apply("CIBarcodeGenerator", ["inputBarcodeDescriptor": .data([1])]))
    }
}
