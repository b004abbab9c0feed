// The streamed sources of the formats whose decoders take their input in pieces: JPEG and
// TIFF (the other formats' are beside their codecs, in *Codec+Rows.swift).

extension StreamedSource {
    /// Reads the header of the JPEG in `bytes` (checking limits and decoding nothing else).
    ///
    /// - Parameter rawCMYK: a CMYK file's rows are its ink values, for `converted(_:)`.
    convenience init(jpeg bytes: [UInt8], name: String, options: DecodeOptions, rawCMYK: Bool = false) throws {
        // One copy of the file, shared by every decoder this source makes: the caller's array
        // can go once the image is made.
        try self.init(jpeg: _JPEGInput(_FileBytes(bytes)), name: name, options: options, rawCMYK: rawCMYK)
    }

    /// The same over `input`: a copy of the bytes, or the open file read as rows are decoded.
    convenience init(jpeg input: _JPEGInput, name: String, options: DecodeOptions, rawCMYK: Bool = false) throws {
        let decoder = try _JPEGRowDecoder(input: input, name: name, options: options, rawCMYK: rawCMYK)
        let (w, h, format) = (decoder.width, decoder.height, decoder.format)
        let held = input.heldBytes
        self.init(
            name: name, width: w, height: h, format: format, isOpaque: true, kind: "JPEG", heldBytes: held,
            makeShrunk: { k in
                StreamedSource(
                    name: name, width: (w + k - 1) / k, height: (h + k - 1) / k, format: format,
                    isOpaque: true, kind: "JPEG", heldBytes: held, shrinkFactor: k
                ) {
                    let d = try _JPEGRowDecoder(
                        input: input, name: name, options: options, shrinkFactor: k,
                        rawCMYK: rawCMYK)
                    guard d.width == (w + k - 1) / k, d.height == (h + k - 1) / k, d.format == format else {
                        throw PixelFlowError.decodingFailed(file: name, reason: "JPEG: the header changed between reads")
                    }
                    return d
                }
            }
        ) {
            // A file rewritten in place since it was opened may declare another size.
            let d = try _JPEGRowDecoder(input: input, name: name, options: options, rawCMYK: rawCMYK)
            guard d.width == w, d.height == h, d.format == format else {
                throw PixelFlowError.decodingFailed(file: name, reason: "JPEG: the header changed between reads")
            }
            return d
        }
    }

    /// Reads the header of the TIFF in `bytes`, or `nil` when its first page cannot be
    /// streamed (see `_TIFFRowDecoder`).
    /// The source holds one copy of the bytes, shared by its decoders.
    convenience init?(tiff data: [UInt8], name: String, options: DecodeOptions) throws {
        try self.init(tiff: _TIFFRowDecoder.Bytes(data), name: name, options: options)
    }

    /// The same over `bytes`, which may read an open file.
    convenience init?(tiff bytes: _TIFFRowDecoder.Bytes, name: String, options: DecodeOptions) throws {
        guard let decoder = try _TIFFRowDecoder(bytes: bytes, name: name, options: options) else { return nil }
        self.init(
            name: name, width: decoder.width, height: decoder.height, format: decoder.format,
            isOpaque: decoder.isOpaque, kind: "TIFF", heldBytes: bytes.heldBytes
        ) {
            guard let decoder = try _TIFFRowDecoder(bytes: bytes, name: name, options: options) else {
                throw PixelFlowError.decodingFailed(file: name, reason: "TIFF: the page can no longer be streamed")
            }
            return decoder
        }
    }
}
