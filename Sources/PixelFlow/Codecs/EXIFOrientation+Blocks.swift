extension EXIFOrientation {
    /// The orientation in an EXIF block, with or without the `Exif\0\0` prefix; `nil` when
    /// the tag is missing or the block is malformed.
    init?(exif block: [UInt8]) {
        let prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]
        if block.starts(with: prefix) {
            self.init(exifPayload: block[...])
        } else {
            self.init(exifPayload: (prefix + block)[...])
        }
    }

    /// `exif` (a TIFF structure, with or without the `Exif\0\0` prefix, returned without it)
    /// with its IFD0 Orientation tag set to 1, for files whose pixels are written upright.
    /// Malformed blocks come back unchanged apart from the prefix.
    static func resettingOrientation(in exif: [UInt8]) -> [UInt8] {
        var bytes = exif.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) ? Array(exif.dropFirst(6)) : exif
        guard bytes.count >= 8 else { return bytes }
        let little: Bool
        switch (bytes[0], bytes[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return bytes
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return little ? bytes._le16(at) : bytes._be16(at)
        }
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return little ? bytes._le32(at) : bytes._be32(at)
        }
        guard u16(2) == 42, let ifd = u32(4), ifd >= 8, let count = u16(ifd) else { return bytes }
        for i in 0..<count {
            let entry = ifd + 2 + 12 * i
            guard let tag = u16(entry) else { return bytes }
            if tag == 0x0112, u16(entry + 2) == 3, entry + 10 <= bytes.count {
                if little { bytes[entry + 8] = 1; bytes[entry + 9] = 0 } else { bytes[entry + 8] = 0; bytes[entry + 9] = 1 }
                return bytes
            }
        }
        return bytes
    }
}
