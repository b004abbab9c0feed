/// Scratch memory for one worker thread: a bump allocator that is reset after each tile, so
/// rendering allocates nothing per row and almost nothing per tile once warmed up.
///
/// Not thread-safe: each worker owns one.
package final class Arena {
    private var chunks: [(pointer: UnsafeMutableRawPointer, size: Int)] = []
    private var chunkIndex = 0
    private var offset = 0
    private let minimumChunk: Int

    package init(minimumChunkBytes: Int = 4 << 20) { minimumChunk = minimumChunkBytes }

    deinit { for c in chunks { c.pointer.deallocate() } }

    /// Memory for `count` values of `T`, 64-byte aligned, uninitialized, valid until `reset()`.
    package func allocate<T>(_ count: Int, of: T.Type = T.self) -> UnsafeMutablePointer<T> {
        let bytes = (Swift.max(count, 1) * MemoryLayout<T>.stride + 63) & ~63
        while chunkIndex < chunks.count {
            if offset + bytes <= chunks[chunkIndex].size {
                let p = chunks[chunkIndex].pointer + offset
                offset += bytes
                return p.bindMemory(to: T.self, capacity: count)
            }
            chunkIndex += 1
            offset = 0
        }
        let size = Swift.max(bytes, minimumChunk)
        let p = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        chunks.append((p, size))
        chunkIndex = chunks.count - 1
        offset = bytes
        return p.bindMemory(to: T.self, capacity: count)
    }

    /// A tile of `rect.width` x `rect.height` pixels from this arena.
    package func tile(_ rect: IntRect) -> Tile {
        Tile(base: allocate(rect.width * rect.height), stride: rect.width, rect: rect)
    }

    /// Makes all memory available again.
    package func reset() { chunkIndex = 0; offset = 0 }

    /// Bytes held by this arena.
    package var capacity: Int { chunks.reduce(0) { $0 + $1.size } }
}

/// A rectangle of working-space pixels in memory: `rect` in image coordinates, rows
/// `stride` pixels apart, starting at `base`.
///
/// `@unchecked Sendable`: a tile is a view of memory owned elsewhere (an arena, a
/// `StageBuffer` buffer or a destination `PixelBuffer`). When one tile is seen by several
/// workers, they either only read it (stage buffers) or write disjoint rows or
/// sub-rects of it (a render's destination), and the memory outlives the parallel section.
package struct Tile: @unchecked Sendable {
    package var base: UnsafeMutablePointer<SIMD4<Float>>
    package var stride: Int
    package var rect: IntRect

    /// The tile of `rect` whose rows start `stride` pixels apart at `base`.
    @inlinable package init(base: UnsafeMutablePointer<SIMD4<Float>>, stride: Int, rect: IntRect) {
        self.base = base
        self.stride = stride
        self.rect = rect
    }

    /// The first pixel of image row `y` (which must be inside `rect`).
    @inlinable @inline(__always) package func row(_ y: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
        base + (y - rect.y) * stride
    }
    /// The pixel at image column `x` of image row `y`.
    @inlinable @inline(__always) package func pointer(x: Int, y: Int) -> UnsafeMutablePointer<SIMD4<Float>> {
        base + (y - rect.y) * stride + (x - rect.x)
    }

    /// The same memory seen as the sub-rect `r` (inside `rect`).
    @inlinable package func view(_ r: IntRect) -> Tile {
        Tile(base: pointer(x: r.x, y: r.y), stride: stride, rect: r)
    }

    /// Sets every pixel to transparent black.
    package func clear() {
        for y in rect.y..<rect.maxY { row(y).update(repeating: .zero, count: rect.width) }
    }

    /// Sets the pixels outside `inner` to transparent black.
    package func clear(outside inner: IntRect) {
        if inner.isEmpty { clear(); return }
        for y in rect.y..<rect.maxY {
            let r = row(y)
            if y < inner.y || y >= inner.maxY {
                r.update(repeating: .zero, count: rect.width)
            } else {
                let left = inner.x - rect.x, right = rect.maxX - inner.maxX
                if left > 0 { r.update(repeating: .zero, count: left) }
                if right > 0 { (r + (inner.maxX - rect.x)).update(repeating: .zero, count: right) }
            }
        }
    }
}
