/// An encoder that takes rows top to bottom and writes the file to a descriptor as it goes,
/// with the settings (and so the bytes) of encoding the whole buffer in memory.
///
/// Used by one thread at a time, like `_RowDecoder`.
package protocol _RowEncoder: AnyObject, Sendable {
    /// The layout of the rows it takes: `rgba8`, `rgba16` or `gray8`, sRGB, straight alpha.
    var format: PixelFormat { get }
    /// Compresses the next `count` rows, `bytesPerRow` apart from `rows`.
    func write(rows: UnsafeRawPointer, bytesPerRow: Int, count: Int) throws
    /// Writes the end of the file once every row was written.
    func finish() throws
}
