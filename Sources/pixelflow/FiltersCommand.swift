import PixelFlow

/// `pixelflow filters`: lists the registered filters, optionally only those in given
/// categories.
///
/// ```
/// pixelflow filters [--category NAME]... [--json]
/// ```
enum FiltersCommand: Subcommand {
    static let name = "filters"
    static let summary = "list the filters, or those in given categories"

    static let options: [Arguments.Option] = [.value("--category", "-c"), .flag("--json"), .flag("--help", "-h")]

    static var help: String {
        """
        Usage: pixelflow filters [--category NAME]... [--json]

        Prints the name of every registered filter, one per line, sorted. The names are Core
        Image's (CISepiaTone); commands also accept them without `CI` (SepiaTone).

        Options:
          -c, --category NAME  Only filters in category NAME. Repeat it, or give a comma list,
                               for the filters in every one of them (the intersection). NAME is
                               a Core Image category (CICategoryBlur) or its short name (Blur,
                               blur). Categories: \(categoryList).
              --json           Print a JSON array of objects with "name", "displayName" and
                               "categories" (Core Image category names).
          -h, --help           Show this help.

        Examples:
          pixelflow filters
          pixelflow filters --category Blur
          pixelflow filters --category ColorEffect,Video --json
          pixelflow filters -c CICategoryCompositeOperation -c HighDynamicRange

        Exit status: 0 on success (also when no filter matches), 2 for a usage error (unknown
        option or category).
        """
    }

    /// Every category's short name, comma-separated.
    static var categoryList: String { FilterCategory.allCases.map(\.shortName).joined(separator: ", ") }

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try Arguments(arguments, options: options)
        if args.flag("--help") {
            Terminal.output(help)
            return ExitCode.success
        }
        if let extra = args.positionals.first {
            throw CLIError.usage(
                "unexpected argument '\(extra)'; to choose a category write --category \(extra). Run `pixelflow filters --help`")
        }
        let categories = try parseCategories(args.values("--category"))
        let names = FilterRegistry.filterNames(inCategories: categories)
        if args.flag("--json") {
            let objects = names.compactMap(FilterRegistry.descriptor(named:)).map { d in
                JSONText.object([
                    ("name", JSONText.string(d.name)), ("displayName", JSONText.string(d.displayName)),
                    ("categories", JSONText.array(d.categories.map { JSONText.string($0.rawValue) })),
                ])
            }
            Terminal.output(JSONText.lines(objects))
        } else if !names.isEmpty {
            Terminal.output(names.joined(separator: "\n"))
        }
        return ExitCode.success
    }

    /// The categories named by the `--category` values, each a name or a comma list.
    ///
    /// - Throws: `CLIError.usage` naming an unknown or empty category and listing the known ones.
    static func parseCategories(_ values: [String]) throws -> [FilterCategory] {
        var categories: [FilterCategory] = []
        for value in values {
            for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                let word = String(part.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
                guard let c = FilterCategory(named: word) else {
                    let shown = word.isEmpty ? "an empty category name" : "unknown category '\(word)'"
                    throw CLIError.usage(
                        "\(shown); the categories are: \(categoryList) (Core Image names such as CICategoryBlur work too)")
                }
                if !categories.contains(c) { categories.append(c) }
            }
        }
        return categories
    }
}
