// The filter reference (Docs/Filters.md), generated from the descriptors.

extension FilterRegistry {
    /// The filter reference in Markdown, generated from `descriptors` (default: every
    /// registered filter). Docs/Filters.md is this text; `swift run pixelflow docs --output
    /// Docs/Filters.md` regenerates it, and a test fails when the checked-in file is stale.
    ///
    /// One section per effect category, in `FilterCategory.effects` order (then filters with
    /// no effect category, if any), listing its filters by Core Image name. A filter is
    /// described in full under the first effect category it declares, with an anchor named
    /// after it (`#CISepiaTone`), its display name, Core Image name, summary, categories and a
    /// table of its inputs (key, type, class, default, identity, min, max, slider range and
    /// description); other categories link to it. The output depends only on the descriptors:
    /// filters are sorted by name and numbers are printed in their shortest exact form.
    ///
    /// - Complexity: O(filters x inputs).
    public static func markdownReference(for descriptors: [FilterDescriptor] = FilterRegistry.all) -> String {
        let filters = descriptors.sorted { $0.name < $1.name }
        var sections: [(id: String, title: String, members: [FilterDescriptor])] = []
        for c in FilterCategory.effects {
            let members = filters.filter { $0.categories.contains(c) }
            if !members.isEmpty { sections.append((c.rawValue, _title(c), members)) }
        }
        let other = filters.filter { _primaryCategory($0) == nil }
        if !other.isEmpty { sections.append(("other", "Other", other)) }

        var out = """
            # Filter reference

            <!-- Generated from the filter descriptors by `swift run pixelflow docs --output Docs/Filters.md`. Do not edit by hand. -->

            PixelFlow registers \(filters.count) \(filters.count == 1 ? "filter" : "filters") under their Core Image names, with Core Image's \
            input keys. `Filter(named:)`, `FilterRegistry.descriptor(named:)` and the command line \
            (`pixelflow apply`, `pixelflow describe`) accept a name with or without its `CI` prefix.

            In the input tables, **Type** is the attribute type (Core Image's `CIAttributeType` \
            followed by the name shown) and **Class** the class of value the input takes. **Min** \
            and **Max** are hard limits: a value outside them, NaN or an infinity throws \
            `PixelFlowError.invalidParameter` naming the key. **Slider** is the range a user \
            interface offers. **Identity** is the value for which the input leaves the image \
            unchanged. Distances are in pixels, angles in radians, positions `[x y]` in image \
            coordinates (origin top-left, y down), colors `[r g b a]` sRGB-encoded and unpremultiplied.

            ## Categories

            | Category | Filters |
            |---|---|

            """
        for s in sections {
            out += "| [\(s.title)](#\(s.id)) | \(s.members.count) |\n"
        }
        for s in sections {
            out += "\n<a id=\"\(s.id)\"></a>\n\n## \(s.title)\n\n"
            out += s.members.map { "[`\($0.name)`](#\($0.name))" }.joined(separator: ", ") + "\n"
            for f in s.members where _sectionID(of: f) == s.id {
                out += "\n" + _markdown(f)
            }
        }
        return out
    }

    /// The section where `f` is described in full: its first declared effect category, or
    /// "other".
    private static func _sectionID(of f: FilterDescriptor) -> String { _primaryCategory(f)?.rawValue ?? "other" }

    private static func _primaryCategory(_ f: FilterDescriptor) -> FilterCategory? {
        f.categories.first { FilterCategory.effects.contains($0) }
    }

    /// `ColorAdjustment` -> `Color Adjustment`.
    static func _title(_ c: FilterCategory) -> String {
        var out = ""
        for ch in c.shortName {
            if ch.isUppercase, let last = out.last, last.isLowercase { out.append(" ") }
            out.append(ch)
        }
        return out
    }

    /// One filter's entry: anchor, heading, names, categories, summary, inputs table.
    private static func _markdown(_ f: FilterDescriptor) -> String {
        var out = "<a id=\"\(f.name)\"></a>\n\n### \(_cell(f.displayName))\n\n"
        out += "**Core Image name:** `\(f.name)`  \n"
        out += "**Categories:** " + f.categories.map(_title).joined(separator: ", ") + "\n\n"
        out += _cell(f.summary) + "\n\n"
        if f.inputs.isEmpty { return out + "No inputs.\n" }
        out += "| Input | Type | Class | Default | Identity | Min | Max | Slider | Description |\n"
        out += "|---|---|---|---|---|---|---|---|---|\n"
        for i in f.inputs {
            let type = i.attributeType.map { String($0.rawValue.dropFirst("CIAttributeType".count)) }
            let cells = [
                "`\(i.key)`", type ?? "-", i.valueClass.rawValue, _text(i.defaultValue), _text(i.identity),
                _text(i.minimum.map(FilterValue.number)), _text(i.maximum.map(FilterValue.number)),
                _range(i.sliderMinimum, i.sliderMaximum), i.summary,
            ]
            out += "| " + cells.map(_cell).joined(separator: " | ") + " |\n"
        }
        return out
    }

    private static func _text(_ v: FilterValue?) -> String {
        guard let v else { return "-" }
        switch v {
        case .image: return "-"
        case let .string(s): return "`\(s)`"
        case let .data(d):
            // Text when the bytes are UTF-8 (a QR message), else their count.
            let text = String(decoding: d, as: UTF8.self)
            return Array(text.utf8) == d ? "`\"\(text)\"`" : v.description
        default: return v.description
        }
    }

    private static func _range(_ lo: Double?, _ hi: Double?) -> String {
        if lo == nil && hi == nil { return "-" }
        return _text(lo.map(FilterValue.number)) + " ... " + _text(hi.map(FilterValue.number))
    }

    /// Text safe inside a table cell: one line, pipes escaped.
    private static func _cell(_ s: String) -> String {
        s.replacingOccurrences("|", with: "\\|").replacingOccurrences("\n", with: " ")
    }
}

extension String {
    /// `self` with every `target` replaced (the package does not use Foundation).
    fileprivate func replacingOccurrences(_ target: Character, with replacement: String) -> String {
        guard contains(target) else { return self }
        var out = ""
        for ch in self { if ch == target { out += replacement } else { out.append(ch) } }
        return out
    }
}
