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
/// instead of per 4 KiB. Smaller buffers, and systems without `MADV_HUGEPAGE`, use the
/// allocator.
///
/// Freed mappings are kept for reuse, as the allocator keeps freed heap memory (glibc maps
/// blocks of more than 32 MiB afresh each time, so every decode of a 3840x2160 image paid
/// for faulting in and zeroing 33 MB): at most `cachedMappingLimit` of them, each taken again
/// by a request that fits it with at most a quarter to spare. A request that none fits
/// unmaps them all before mapping anew, so large buffers made one after another never hold
/// more than the ones in use plus the cached ones, which were in use just before
/// (`releaseCachedMappings()` returns them).
package struct LargeAllocation {
    /// The start of the memory, 64-byte aligned (2 MiB aligned when mapped).
    package let pointer: UnsafeMutableRawPointer
    /// The bytes mapped (a multiple of 2 MiB), or 0 when the allocator was used.
    package let mappedLength: Int
    /// Whether the memory is known to be zero: a new mapping is, a reused one and allocated
    /// memory are not.
    package let isZeroed: Bool

    /// Buffers at least this large are mapped: 4 MiB (NumPy's threshold), about a
    /// 1024 x 1024 RGBA8 image.
    package static let hugePageThreshold = 4 << 20
    static let hugePageSize = 2 << 20

    /// Allocates `byteCount` bytes (at least 1).
    package init(byteCount: Int) {
        #if os(Linux)
            if byteCount >= Self.hugePageThreshold, byteCount <= Int.max - 2 * Self.hugePageSize {
                let length = (byteCount + Self.hugePageSize - 1) & ~(Self.hugePageSize - 1)
                if let reused = Self.takeCached(length) {
                    pointer = reused.pointer
                    mappedLength = reused.length
                    isZeroed = false
                    return
                }
                if let mapped = Self.mapAligned(length) {
                    pointer = mapped
                    mappedLength = length
                    isZeroed = true
                    return
                }
            }
        #endif
        pointer = UnsafeMutableRawPointer.allocate(byteCount: Swift.max(byteCount, 1), alignment: 64)
        mappedLength = 0
        isZeroed = false
    }

    /// Returns the memory (a mapping to the cache, or to the system when the cache is full).
    package func deallocate() {
        #if os(Linux)
            if mappedLength > 0 {
                let evicted = Self.cache.withLock { cached -> Mapping? in
                    cached.append(Mapping(address: Int(bitPattern: pointer), length: mappedLength))
                    return cached.count > Self.cachedMappingLimit ? cached.removeFirst() : nil
                }
                if let evicted { munmap(UnsafeMutableRawPointer(bitPattern: evicted.address), evicted.length) }
                return
            }
        #endif
        pointer.deallocate()
    }

    /// Freed mappings kept for reuse: 2, so that a loop that makes an output while it holds an
    /// input (a decode, a conversion) reuses both.
    package static let cachedMappingLimit = 2

    struct Mapping {
        let address: Int
        let length: Int
    }

    private static let cache = Locked([Mapping]())

    /// The bytes held by freed mappings kept for reuse.
    package static var cachedBytes: Int { cache.withLock { $0.reduce(0) { $0 + $1.length } } }

    /// Unmaps the freed mappings kept for reuse.
    package static func releaseCachedMappings() {
        let all = cache.withLock { cached -> [Mapping] in
            defer { cached.removeAll() }
            return cached
        }
        #if os(Linux)
            for m in all { munmap(UnsafeMutableRawPointer(bitPattern: m.address), m.length) }
        #endif
    }

    /// A cached mapping of `length` to `length + length / 4` bytes, the most recently freed
    /// first; when none fits, every cached mapping is unmapped and nil returned.
    private static func takeCached(_ length: Int) -> (pointer: UnsafeMutableRawPointer, length: Int)? {
        let (hit, dropped) = cache.withLock { cached -> (Mapping?, [Mapping]) in
            if let i = cached.lastIndex(where: { $0.length >= length && $0.length <= length + length / 4 }) {
                return (cached.remove(at: i), [])
            }
            defer { cached.removeAll() }
            return (nil, cached)
        }
        #if os(Linux)
            for m in dropped { munmap(UnsafeMutableRawPointer(bitPattern: m.address), m.length) }
        #endif
        return hit.map { (UnsafeMutableRawPointer(bitPattern: $0.address)!, $0.length) }
    }

    #if os(Linux)
        /// Maps `length` bytes (a multiple of 2 MiB) at a 2 MiB boundary (mapping 2 MiB more and
        /// unmapping the ends), then advises huge pages; nil when the mapping fails.
        private static func mapAligned(_ length: Int) -> UnsafeMutableRawPointer? {
            let huge = hugePageSize
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
            return pointer
        }
    #endif
}
