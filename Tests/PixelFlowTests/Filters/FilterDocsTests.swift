import Foundation
import XCTest
@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// Docs/Filters.md is generated from the descriptors (with a picture of each filter from
/// Docs/Gallery) and must match them; the gallery holds exactly one picture per filter.
final class FilterDocsTests: XCTestCase {
    static let regenerate = "swift run -c release pixelflow docs --output Docs/Filters.md --gallery Docs/Gallery"

    func testCheckedInReferenceIsUpToDate() throws {
        let path = packageRoot + "/Docs/Filters.md"
        let checkedIn = try String(contentsOfFile: path, encoding: .utf8)
        // `pixelflow docs` adds the gallery's pictures to `FilterRegistry.markdownReference()`.
        let r = try CLIProcess.run(["docs"], in: URL(fileURLWithPath: packageRoot))
        XCTAssertEqual(r.status, 0, r.stderr)
        let generated = r.text
        if checkedIn != generated {
            let a = checkedIn.split(separator: "\n", omittingEmptySubsequences: false)
            let b = generated.split(separator: "\n", omittingEmptySubsequences: false)
            let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            let old = line < a.count ? String(a[line]) : "<end of file>"
            let new = line < b.count ? String(b[line]) : "<end of file>"
            XCTFail(
                """
                Docs/Filters.md is out of date with the filter descriptors; \
                run `\(Self.regenerate)` and commit the result. \
                First difference at line \(line + 1): file has '\(old)', descriptors give '\(new)'.
                """)
        }
        for d in FilterRegistry.all {
            XCTAssertTrue(generated.contains("](Gallery/\(d.name).jpg)](Gallery/CICategory"), "\(d.name) has its picture")
        }
    }

    /// Docs/Gallery holds a picture of every registered filter and a contact sheet of every
    /// category, nothing else, and stays small.
    func testGalleryHasAPictureOfEveryFilterAndNoOther() throws {
        let folder = packageRoot + "/Docs/Gallery"
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        var expected = Set(FilterRegistry.all.map { $0.name + ".jpg" })
        for c in FilterCategory.effects where !FilterRegistry.filterNames(inCategories: [c]).isEmpty {
            expected.insert(c.rawValue + ".jpg")
        }
        if FilterRegistry.all.contains(where: { d in !d.categories.contains { FilterCategory.effects.contains($0) } }) {
            expected.insert("CICategoryOther.jpg")
        }
        let missing = expected.subtracting(files).sorted()
        let extra = files.subtracting(expected).sorted()
        XCTAssertTrue(
            missing.isEmpty && extra.isEmpty,
            """
            Docs/Gallery is out of date: missing \(missing), not of a registered filter or category \(extra); \
            run `\(Self.regenerate)` and commit the result.
            """)
        var total = 0
        for name in files.intersection(expected) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            XCTAssertEqual(Array(bytes.prefix(3)), [0xFF, 0xD8, 0xFF], "\(name) is a JPEG")
            total += bytes.count
        }
        XCTAssertLessThan(total, 3_000_000, "the gallery stays under 3 MB")
        let readme = try String(contentsOfFile: packageRoot + "/README.md", encoding: .utf8)
        for sheet in expected where sheet.hasPrefix("CICategory") {
            XCTAssertTrue(readme.contains("(Docs/Gallery/\(sheet))"), "the README links \(sheet)")
        }
    }

    func testReferenceListsEveryFilterWithItsInputs() {
        let text = FilterRegistry.markdownReference()
        XCTAssertTrue(text.hasPrefix("# Filter reference\n"))
        XCTAssertTrue(text.hasSuffix("\n"))
        XCTAssertFalse(text.contains("\n\n\n"), "no runs of blank lines")
        for d in FilterRegistry.all {
            XCTAssertEqual(text.components(separatedBy: "<a id=\"\(d.name)\"></a>").count, 2, "\(d.name) has one anchor")
            XCTAssertTrue(text.contains("**Core Image name:** `\(d.name)`"), d.name)
            for input in d.inputs { XCTAssertTrue(text.contains("| `\(input.key)` |"), "\(d.name).\(input.key)") }
        }
        XCTAssertTrue(text.contains("| `inputRadius` | Distance | NSNumber | 10 | 0 | 0 | 1000 | 0 ... 100 |"), text)
        XCTAssertTrue(text.contains("| `inputImage` | Image | CIImage | - | - | - | - | - |"), text)
        // Categories in effect order, each listing its filters.
        var last = text.startIndex
        for c in FilterCategory.effects where !FilterRegistry.filterNames(inCategories: [c]).isEmpty {
            guard let r = text.range(of: "<a id=\"\(c.rawValue)\"></a>") else { return XCTFail("no section for \(c)") }
            XCTAssertGreaterThan(r.lowerBound, last, "\(c) comes in order")
            last = r.lowerBound
        }
    }

    func testReferenceIsDeterministic() {
        XCTAssertEqual(FilterRegistry.markdownReference(), FilterRegistry.markdownReference())
        XCTAssertEqual(FilterRegistry.markdownReference(for: FilterRegistry.all.reversed()), FilterRegistry.markdownReference())
        let one = FilterRegistry.markdownReference(for: [FilterDescriptor.sepiaTone])
        XCTAssertTrue(one.contains("registers 1 filter under"), one)
        XCTAssertTrue(one.contains("| [Color Effect](#CICategoryColorEffect) | 1 |"), one)
    }
}
