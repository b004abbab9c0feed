#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Memory for large pixel storage: on Linux, buffers of `hugePageThreshold` bytes or more are
/// mapped on their own, aligned to 2 MiB and advised for transparent huge pages (where the
/// system's setting is `madvise` or `always`), as NumPy does for its large arrays. A buffer
/// read or written from end to end then takes one TLB entry and one page fault per 2 MiB
/// instead of per 4 KiB. The mapping's pages are zero until written. Smaller buffers, and
/// systems without `MADV_HUGEPAGE`, use the allocator.
package struct LargeAllocation {
    /// The start of the memory, 64-byte aligned (2 MiB aligned when mapped).
    package let pointer: UnsafeMutableRawPointer
    /// The bytes mapped (a multiple of 2 MiB), or 0 when the allocator was used.
    package let mappedLength: Int

    /// Buffers at least this large are mapped: 4 MiB (NumPy's threshold), about a
    /// 1024 x 1024 RGBA8 image.
    package static let hugePageThreshold = 4 << 20
    static let hugePageSize = 2 << 20

    /// Whether the memory is known to be zero: mapped pages are, allocated memory is not.
    package var isZeroed: Bool { mappedLength > 0 }

    /// Allocates `byteCount` bytes (at least 1).
    package init(byteCount: Int) {
        #if os(Linux)
            if byteCount >= Self.hugePageThreshold, byteCount <= Int.max - 2 * Self.hugePageSize,
                let mapped = Self.mapAligned(byteCount)
            {
                pointer = mapped.pointer
                mappedLength = mapped.length
                return
            }
        #endif
        pointer = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(byteCount, 1), alignment: 64)
        mappedLength = 0
    }

    /// Returns the memory.
    package func deallocate() {
        #if os(Linux)
            if mappedLength > 0 {
                munmap(pointer, mappedLength)
                return
            }
        #endif
        pointer.deallocate()
    }

    #if os(Linux)
        /// Maps `byteCount` rounded up to 2 MiB at a 2 MiB boundary (mapping 2 MiB more and
        /// unmapping the ends), then advises huge pages; nil when the mapping fails.
        private static func mapAligned(_ byteCount: Int) -> (pointer: UnsafeMutableRawPointer, length: Int)? {
            let huge = hugePageSize
            let length = (byteCount + huge - 1) & ~(huge - 1)
            let span = length + huge
            guard let raw = mmap(nil, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                raw != MAP_FAILED
            else { return nil }
            let address = Int(bitPattern: raw)
            let aligned = (address + huge - 1) & ~(huge - 1)
            let head = aligned - address
            if head > 0 { munmap(raw, head) }
            let tail = span - head - length
            if tail > 0 { munmap(UnsafeMutableRawPointer(bitPattern: aligned + length)!, tail) }
            let pointer = UnsafeMutableRawPointer(bitPattern: aligned)!
            // Advice only: where huge pages are off, the mapping works with small pages.
            _ = madvise(pointer, length, MADV_HUGEPAGE)
            return (pointer, length)
        }
    #endif
}
