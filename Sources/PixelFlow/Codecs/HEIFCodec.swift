import CCodecShims

/// HEIF through the system library (placeholder until the codec lands: every entry point
/// throws `unsupportedFormat`).
/// Serves both `.heif` and `.avif`; `format` says which one to write.
enum _HEIFCodec {
    static func inspect(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> ImageFileInfo {
        throw PixelFlowError.unsupportedFormat(file: name, reason: "HEIF is not available in this build")
    }

    static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> _DecodedImage {
        throw PixelFlowError.unsupportedFormat(file: name, reason: "HEIF is not available in this build")
    }

    static func decodeFrames(_ bytes: [UInt8], name: String, options: DecodeOptions) throws -> [_DecodedFrame] {
        throw PixelFlowError.unsupportedFormat(file: name, reason: "HEIF is not available in this build")
    }

    static func encode(_ buffer: PixelBuffer, format: ImageFileFormat, quality: Int, name: String, options: EncodeOptions,
                       metadata: _EmbeddedMetadata) throws -> [UInt8] {
        throw PixelFlowError.unsupportedFormat(file: name, reason: "HEIF is not available in this build")
    }
}
