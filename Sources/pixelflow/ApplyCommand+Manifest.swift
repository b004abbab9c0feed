#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PixelFlow

/// A batch's list of work for `pixelflow apply --manifest FILE`: one image a line.
///
/// ```
/// # photos to sepia (a comment; blank lines are ignored too)
/// photos/a.jpg                    -> OUTDIR/a.jpg
/// photos/b.heic<TAB>web/b.webp    -> web/b.webp, in the format its extension names
/// ```
///
/// A line is an input path, or an input path, one tab and an output path. Paths are taken
/// as they are written (spaces are part of a name), relative to the current folder; a
/// trailing `\r` (a file saved on Windows) is dropped. Anything else is an error that names
/// the line, so a manifest is checked completely before any image is read.
struct BatchManifest {
    /// One line that names an image.
    struct Entry: Equatable {
        var input: String
        /// The output file the line names; nil for a line with an input only.
        var output: String?
        /// The line's number, from 1.
        var line: Int
    }

    /// The entries, in the order of their lines.
    var entries: [Entry]

    /// Parses `bytes`, the text of the manifest called `name` in messages (`<stdin>` for `-`).
    ///
    /// - Throws: `CLIError.usage` naming the manifest and the line: a line with more than one
    ///   tab, an empty path, `-` as a path, or bytes that are not UTF-8.
    init(parsing bytes: [UInt8], name: String) throws {
        entries = []
        var number = 0
        for rawLine in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            number += 1
            var line = rawLine[...]
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            let blank = line.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            if blank || line.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) == UInt8(ascii: "#") {
                continue
            }
            func fail(_ reason: String) -> CLIError { .usage("\(name):\(number): \(reason)") }
            guard let text = String(validating: line, as: UTF8.self) else {
                throw fail("the line is not UTF-8 text; a manifest holds one path a line, or input<TAB>output")
            }
            let fields = text.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count <= 2 else {
                throw fail(
                    "\(fields.count) fields separated by tabs; a line is an input path, or input<TAB>output (one tab)")
            }
            if fields.contains(where: \.isEmpty) {
                throw fail(
                    fields[0].isEmpty
                        ? "the input path is empty; a line is an input path, or input<TAB>output"
                        : "the output path after the tab is empty; give one, or drop the tab to write into the output folder")
            }
            if fields.contains("-") {
                throw fail("`-` (standard input or output) cannot be a manifest item; give file paths")
            }
            entries.append(Entry(input: fields[0], output: fields.count == 2 ? fields[1] : nil, line: number))
        }
    }

    /// Reads and parses the manifest at `path`, or standard input for `-`.
    ///
    /// - Throws: `CLIError.runtime` when the file cannot be read; `CLIError.usage` for a bad line.
    static func read(_ path: String) throws -> BatchManifest {
        if path == "-" { return try BatchManifest(parsing: Terminal.readStandardInput(), name: "<stdin>") }
        if Terminal.isDirectory(path) {
            throw CLIError.runtime("--manifest \(path): is a directory; give a file that lists one input a line")
        }
        if !Terminal.exists(path) { throw CLIError.runtime("--manifest \(path): no such file") }
        return try BatchManifest(parsing: Terminal.readFile(path), name: path)
    }
}

/// Which part of a batch one process runs: `--shard INDEX/COUNT`, INDEX from 0.
///
/// Shard `i` of `n` takes the items at positions `i`, `i + n`, `i + 2n`... of the whole list
/// (the manifest's image lines, or the command line's inputs), so the shards of one `n`
/// split any list into disjoint parts whose union is the list, whatever its length, and an
/// item's shard depends only on its position. Numbering from 0 takes Kubernetes'
/// `JOB_COMPLETION_INDEX` and Slurm's `SLURM_ARRAY_TASK_ID` (with `--array=0-N-1`) as they are.
///
/// ```swift
/// let shard = try BatchShard(parsing: "1/3")
/// shard.contains(4)   // true: items 1, 4, 7, ...
/// ```
struct BatchShard: Equatable {
    /// This shard's number, `0..<count`.
    var index: Int
    /// How many shards the batch is split into.
    var count: Int

    /// The most shards a batch may be split into.
    static let maximumCount = 1_000_000

    /// Parses `INDEX/COUNT`.
    ///
    /// - Throws: `CLIError.usage` saying what is wrong, including the usual cause of an empty
    ///   index or count: an unset environment variable.
    init(parsing text: String) throws {
        let usage = "--shard INDEX/COUNT, INDEX from 0 (the shards of 3 are 0/3, 1/3 and 2/3)"
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw CLIError.usage("--shard '\(text)' is not INDEX/COUNT; use \(usage)")
        }
        if parts[0].isEmpty || parts[1].isEmpty {
            let what = parts[0].isEmpty ? "index" : "count"
            throw CLIError.usage(
                "--shard '\(text)' has no \(what): is an environment variable unset (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT)? Use \(usage)"
            )
        }
        guard let count = Int(parts[1]), (1...BatchShard.maximumCount).contains(count) else {
            throw CLIError.usage("--shard '\(text)': the count must be a whole number in 1...\(BatchShard.maximumCount)")
        }
        guard let index = Int(parts[0]), index >= 0 else {
            throw CLIError.usage("--shard '\(text)': the index must be a whole number from 0; use \(usage)")
        }
        guard index < count else {
            throw CLIError.usage(
                "--shard \(text): shards are numbered from 0, so the shards of \(count) are 0/\(count) ... \(count - 1)/\(count) (Kubernetes' JOB_COMPLETION_INDEX; Slurm with --array=0-\(count - 1))"
            )
        }
        self.index = index
        self.count = count
    }

    /// True when the item at `position` (from 0, in the whole list) belongs to this shard.
    func contains(_ position: Int) -> Bool { position % count == index }

    /// `INDEX/COUNT`.
    var description: String { "\(index)/\(count)" }
}

/// The current folder, or nil when it cannot be read.
func currentFolder() -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return nil }
    return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// `path` made absolute (against `folder`, the current folder) and lexically normal: no `.`
/// components, no repeated slashes, `a/../` removed. Two outputs with the same normal path
/// are the same file (symbolic links aside).
func normalizedPath(_ path: String, in folder: String?) -> String {
    var full = path
    if !path.hasPrefix("/"), let folder { full = folder + "/" + path }
    var parts: [Substring] = []
    for part in full.split(separator: "/") {
        if part == "." { continue }
        if part == "..", let last = parts.last, last != ".." {
            parts.removeLast()
            continue
        }
        parts.append(part)
    }
    return "/" + parts.joined(separator: "/")
}

/// One image of a batch: its input, its output file and the output's format, and where it
/// came from.
struct BatchItem: Sendable {
    var input: String
    var destination: String
    var format: ImageFileFormat
    /// The manifest line that names it, from 1; nil for an input on the command line.
    var line: Int?
    /// Its position in the whole batch, from 0 (what `--shard` splits).
    var position: Int
}

extension ApplyJob {
    /// The items of `manifest` (called `name` in messages): a line with an input only writes
    /// `folder/<input's name>` as batch mode names it; `input<TAB>output` writes `output`, in
    /// `format` or the format its extension names.
    ///
    /// - Throws: `CLIError.usage` naming the line: an input-only line without an output
    ///   folder, an output whose extension names no format, or an output that an earlier
    ///   line writes too.
    static func items(
        of manifest: BatchManifest, name: String, folder: String, format: ImageFileFormat?
    ) throws -> [BatchItem] {
        var claimed: [String: BatchManifest.Entry] = [:]  // normalized output -> first line writing it
        let here = currentFolder()
        var items: [BatchItem] = []
        items.reserveCapacity(manifest.entries.count)
        for entry in manifest.entries {
            let item: BatchItem
            if let output = entry.output {
                guard let fmt = format ?? pathExtension(output).flatMap(ImageFileFormat.init(pathExtension:)) else {
                    throw CLIError.usage(
                        "\(name):\(entry.line): cannot tell the output format from '\(output)'; name it .png, .jpg, .webp, .tif, .gif, .heic, .avif, .pnm or .bmp, or pass --format"
                    )
                }
                item = BatchItem(
                    input: entry.input, destination: output, format: fmt, line: entry.line, position: items.count)
            } else {
                guard !folder.isEmpty else {
                    throw CLIError.usage(
                        "\(name):\(entry.line): '\(entry.input)' has no output: give the output folder after --manifest \(name), or write input<TAB>output"
                    )
                }
                let (file, fmt) = batchOutput(for: entry.input, format: format)
                item = BatchItem(
                    input: entry.input, destination: joinPath(folder, file), format: fmt, line: entry.line,
                    position: items.count)
            }
            let key = normalizedPath(item.destination, in: here)
            if let first = claimed[key] {
                throw CLIError.usage(
                    "\(name):\(entry.line): the output '\(item.destination)' is also the output of line \(first.line) ('\(first.input)'); every item needs its own output"
                )
            }
            claimed[key] = entry
            items.append(item)
        }
        return items
    }
}
