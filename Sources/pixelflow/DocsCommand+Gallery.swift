#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import PixelFlow

// `pixelflow docs --gallery DIR`: writing the gallery's files, and the reference that shows
// them.

extension DocsCommand {
    /// The file name stem of the contact sheet that shows `category` (its Core Image name).
    static func sheetName(_ category: FilterCategory?) -> String { category?.rawValue ?? "CICategoryOther" }

    /// The category under which the reference describes `filter` in full: its first effect
    /// category (as `FilterRegistry.markdownReference()` orders them), nil when it has none.
    static func primaryCategory(of filter: FilterDescriptor) -> FilterCategory? {
        filter.categories.first { FilterCategory.effects.contains($0) }
    }

    /// The sheets and their filters, in the reference's order: each effect category with
    /// its filters by name, then filters with no effect category.
    static func sheets(_ filters: [FilterDescriptor] = FilterRegistry.all) -> [(FilterCategory?, [FilterDescriptor])] {
        let sorted = filters.sorted { $0.name < $1.name }
        var out: [(FilterCategory?, [FilterDescriptor])] = []
        for c in FilterCategory.effects {
            let members = sorted.filter { $0.categories.contains(c) }
            if !members.isEmpty { out.append((c, members)) }
        }
        let other = sorted.filter { primaryCategory(of: $0) == nil }
        if !other.isEmpty { out.append((nil, other)) }
        return out
    }

    /// `CICategoryColorAdjustment` -> `Color Adjustment`, as the reference titles it.
    static func title(_ category: FilterCategory) -> String {
        var out = ""
        for ch in category.shortName {
            if ch.isUppercase, let last = out.last, last.isLowercase { out.append(" ") }
            out.append(ch)
        }
        return out
    }

    /// The file names `--gallery` writes: one per filter and one per sheet.
    static func galleryFileNames(_ filters: [FilterDescriptor] = FilterRegistry.all) -> Set<String> {
        Set(filters.map { $0.name + ".jpg" } + sheets(filters).map { sheetName($0.0) + ".jpg" })
    }

    /// The filter reference with the gallery: each filter's picture under its heading,
    /// linked to its category's sheet, and each category's sheet linked under its heading.
    static func reference(galleryLink link: String) -> String {
        let names = Set(FilterRegistry.all.map(\.name))
        let primary = Dictionary(
            FilterRegistry.all.map { ($0.name, sheetName(primaryCategory(of: $0))) }, uniquingKeysWith: { a, _ in a })
        let sections = Set(sheets().map { $0.0?.rawValue ?? "other" })
        var anchor: String?
        var out: [Substring] = []
        for line in FilterRegistry.markdownReference().split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("<!-- Generated") {
                out.append(
                    """
                    <!-- Generated from the filter descriptors by `swift run -c release pixelflow docs --output \
                    Docs/Filters.md --gallery Docs/Gallery`. Do not edit by hand. -->
                    """)
                continue
            }
            out.append(line)
            if line.hasPrefix("<a id=\""), line.hasSuffix("\"></a>") {
                anchor = String(line.dropFirst(7).dropLast(6))
            } else if line.hasPrefix("## Categories") {
                out.append("")
                out.append(
                    """
                    Each filter is shown on a small picture drawn in code, at its defaults and, where those \
                    show little at that size, at a second setting named under it ([\(link)](\(link)/), rendered by \
                    `pixelflow docs --gallery`). A picture links to its category's contact sheet.
                    """)
            } else if let a = anchor, line.hasPrefix("## "), sections.contains(a) {
                let sheet = a == "other" ? sheetName(nil) : a
                out.append("")
                out.append("Contact sheet: [\(sheet).jpg](\(link)/\(sheet).jpg)")
                anchor = nil
            } else if let a = anchor, line.hasPrefix("### "), names.contains(a), let sheet = primary[a] {
                out.append("")
                out.append("[![\(line.dropFirst(4))](\(link)/\(a).jpg)](\(link)/\(sheet).jpg)")
                anchor = nil
            }
        }
        return out.joined(separator: "\n")
    }

    /// Renders every registered filter and writes its picture and the category sheets into
    /// `directory`, removing pictures of filters no longer registered; reports on standard
    /// error. Returns the exit status: 1 when a filter failed at its defaults (the others are
    /// still written).
    ///
    /// - Throws: `CLIError.runtime` when the folder cannot be made or a file cannot be written.
    static func writeGallery(into directory: String, width: Int, height: Int, context: RenderContext) throws -> Int32 {
        try makeDirectory(directory)
        let gallery = try Gallery(width: width, height: height, context: context)
        var entries: [String: Gallery.Entry] = [:]
        var failures: [String] = []
        for filter in FilterRegistry.all.sorted(by: { $0.name < $1.name }) {
            do {
                let entry = try gallery.entry(for: filter)
                entries[filter.name] = entry
                try write(try gallery.picture(of: entry), to: joinPath(directory, filter.name + ".jpg"))
            } catch let error as CLIError {
                throw error
            } catch {
                failures.append("\(filter.name): \(error)")
            }
        }
        for (category, members) in sheets() {
            let title = category.map(title) ?? "Other"
            let shown = members.compactMap { entries[$0.name] }
            try write(
                try gallery.sheet(title: "\(title) (\(members.count))", entries: shown),
                to: joinPath(directory, sheetName(category) + ".jpg"))
        }
        let removed = try removeStale(in: directory, keeping: galleryFileNames())
        let second = entries.values.filter { $0.panels.count > 1 }.count
        let little = entries.values.filter(\.showsLittle).map(\.filter.name).sorted()
        var report =
            "pixelflow docs: wrote \(entries.count) filter pictures and \(sheets().count) sheets to \(directory)"
            + " (\(second) with a second setting)"
        if !removed.isEmpty { report += "; removed \(removed.joined(separator: ", "))" }
        Terminal.error(report)
        if !little.isEmpty {
            Terminal.error("pixelflow docs: little shows at any setting tried: \(little.joined(separator: ", "))")
        }
        for f in failures { Terminal.error("pixelflow docs: \(f)") }
        return failures.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// Encodes `buffer` as a JPEG of quality 80 and replaces `path` with it.
    static func write(_ buffer: PixelBuffer, to path: String) throws {
        try Terminal.replaceFile(path, with: try buffer.encoded(as: .jpeg, quality: 80))
    }

    /// Creates `path` (one level) unless it is already a folder.
    ///
    /// - Throws: `CLIError.runtime` with the system's reason.
    static func makeDirectory(_ path: String) throws {
        if Terminal.isDirectory(path) { return }
        if mkdir(path, 0o755) != 0 {
            let reason = String(cString: strerror(errno))
            throw CLIError.runtime("cannot create the folder '\(path)': \(reason)")
        }
    }

    /// Removes the files of `directory` that look like gallery pictures (`CI...` or
    /// `PF...` ending in `.jpg`) but are not in `keeping`; returns their names.
    static func removeStale(in directory: String, keeping: Set<String>) throws -> [String] {
        guard let dir = opendir(directory) else {
            throw CLIError.runtime("cannot read the folder '\(directory)': \(String(cString: strerror(errno)))")
        }
        var stale: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if (name.hasPrefix("CI") || name.hasPrefix("PF")) && name.hasSuffix(".jpg") && !keeping.contains(name) {
                stale.append(name)
            }
        }
        closedir(dir)
        for name in stale.sorted() where unlink(joinPath(directory, name)) != 0 {
            throw CLIError.runtime("cannot remove '\(joinPath(directory, name))': \(String(cString: strerror(errno)))")
        }
        return stale.sorted()
    }
}
