/// The orientation of a HEIF item, read from the file's boxes, since libheif 1.15 applies
/// irot and imir but does not report them.
///
/// HEIF (ISO/IEC 23008-12) stores an item's transformations as properties in
/// `meta/iprp/ipco`, tied to the item by `meta/iprp/ipma`, and applies them in the order
/// `ipma` lists them: `irot` turns the image anticlockwise by 90 degrees times its angle;
/// `imir` with axis 0 exchanges the top and bottom parts and with axis 1 the left and right
/// parts (the wording of ISO/IEC 23008-12:2022, which notes that EXIF orientation 4 is
/// axis 0 and EXIF 2 is axis 1; libheif and libavif read it so). `clap` (a crop) changes no
/// direction and is skipped.
extension _HEIFCodec {
    /// The EXIF orientation equivalent to item `itemID`'s irot and imir properties: how its
    /// coded pixels must be turned to be shown; `.up` when it has none or the boxes cannot
    /// be read.
    ///
    /// - Complexity: O(boxes before and in `meta`); reads no sample data.
    static func orientation(ofItem itemID: UInt32, in bytes: [UInt8]) -> EXIFOrientation {
        guard let meta = children(of: 0..<bytes.count, in: bytes).first(where: { $0.type == "meta" }),
            meta.body.count >= 4
        else { return .up }
        let metaChildren = children(of: (meta.body.lowerBound + 4)..<meta.body.upperBound, in: bytes)
        guard let iprp = metaChildren.first(where: { $0.type == "iprp" }) else { return .up }
        let iprpChildren = children(of: iprp.body, in: bytes)
        guard let ipco = iprpChildren.first(where: { $0.type == "ipco" }) else { return .up }
        let properties = children(of: ipco.body, in: bytes)
        var steps: [(rotation: Int, mirrorAxis: Int?)] = []
        for ipma in iprpChildren where ipma.type == "ipma" {
            for index in propertyIndices(ofItem: itemID, ipma: ipma.body, in: bytes) {
                guard index >= 1, index <= properties.count else { continue }
                let property = properties[index - 1]
                guard property.body.count >= 1 else { continue }
                let value = Int(bytes[property.body.lowerBound])
                if property.type == "irot" { steps.append((value & 3, nil)) }
                if property.type == "imir" { steps.append((0, value & 1)) }
            }
        }
        return orientation(applying: steps)
    }

    /// The EXIF orientation whose turn equals `steps` done in order (a rotation by
    /// `rotation` quarter turns anticlockwise, or a mirror about `mirrorAxis`), found by
    /// doing both on a 3x2 grid of distinct labels.
    static func orientation(applying steps: [(rotation: Int, mirrorAxis: Int?)]) -> EXIFOrientation {
        guard !steps.isEmpty else { return .up }
        let start = [[0, 1, 2], [3, 4, 5]]
        var grid = start
        for step in steps {
            if let axis = step.mirrorAxis {
                grid = axis == 0 ? grid.reversed() : grid.map { $0.reversed() }
            } else {
                for _ in 0..<step.rotation {
                    // Anticlockwise: the last column becomes the first row.
                    let h = grid.count, w = grid[0].count
                    grid = (0..<w).map { r in (0..<h).map { c in grid[c][w - 1 - r] } }
                }
            }
        }
        for candidate in EXIFOrientation.allCases where labels(start, turnedBy: candidate) == grid {
            return candidate
        }
        return .up
    }

    /// `grid` turned by `orientation` through `PixelBuffer.applyingOrientation`, so that the
    /// match uses the very turn the dispatcher does.
    private static func labels(_ grid: [[Int]], turnedBy orientation: EXIFOrientation) -> [[Int]] {
        var b = try! PixelBuffer(width: grid[0].count, height: grid.count, format: .gray8)
        b.withUnsafeMutableRows { y, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            for x in 0..<grid[0].count { p[x] = UInt8(grid[y][x]) }
        }
        let turned = b.applyingOrientation(orientation)
        var out: [[Int]] = []
        turned.withUnsafeRows { _, row in
            let p = row.assumingMemoryBound(to: UInt8.self)
            out.append((0..<turned.width).map { Int(p[$0]) })
        }
        return out
    }

    /// A box: its four-character type and the range of its body (after the header).
    struct _Box {
        var type: String
        var body: Range<Int>
    }

    /// The boxes that fill `range`, stopping at the first malformed header.
    static func children(of range: Range<Int>, in bytes: [UInt8]) -> [_Box] {
        var boxes: [_Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var size = bytes._be32(offset)
            var header = 8
            if size == 1 {
                guard offset + 16 <= range.upperBound else { break }
                let high = bytes._be32(offset + 8), low = bytes._be32(offset + 12)
                guard high == 0 else { break }  // no box of 4 GiB or more in memory here
                size = low
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else { break }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            boxes.append(_Box(type: type, body: (offset + header)..<(offset + size)))
            offset += size
        }
        return boxes
    }

    /// The 1-based ipco indices `ipma` associates with `itemID`, in the order listed.
    static func propertyIndices(ofItem itemID: UInt32, ipma body: Range<Int>, in bytes: [UInt8]) -> [Int] {
        guard body.count >= 8 else { return [] }
        let version = bytes[body.lowerBound]
        let wideIndices = bytes[body.lowerBound + 3] & 1 != 0
        let entries = bytes._be32(body.lowerBound + 4)
        var offset = body.lowerBound + 8
        for _ in 0..<min(entries, body.count) {
            let idSize = version < 1 ? 2 : 4
            guard offset + idSize + 1 <= body.upperBound else { return [] }
            let id = idSize == 2 ? bytes._be16(offset) : bytes._be32(offset)
            let count = Int(bytes[offset + idSize])
            offset += idSize + 1
            let indexSize = wideIndices ? 2 : 1
            guard offset + count * indexSize <= body.upperBound else { return [] }
            if id == Int(itemID) {
                return (0..<count).map { k in
                    wideIndices ? bytes._be16(offset + 2 * k) & 0x7FFF : Int(bytes[offset + k]) & 0x7F
                }
            }
            offset += count * indexSize
        }
        return []
    }
}
