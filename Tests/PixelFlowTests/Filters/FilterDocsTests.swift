import Foundation
import XCTest
@testable import PixelFlow

/// Docs/Filters.md is generated from the descriptors and must match them.
final class FilterDocsTests: XCTestCase {
    func testCheckedInReferenceIsUpToDate() throws {
        let path = packageRoot + "/Docs/Filters.md"
        let checkedIn = try String(contentsOfFile: path, encoding: .utf8)
        let generated = FilterRegistry.markdownReference()
        if checkedIn != generated {
            let a = checkedIn.split(separator: "\n", omittingEmptySubsequences: false)
            let b = generated.split(separator: "\n", omittingEmptySubsequences: false)
            let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
            let old = line < a.count ? String(a[line]) : "<end of file>"
            let new = line < b.count ? String(b[line]) : "<end of file>"
            XCTFail(
                """
                Docs/Filters.md is out of date with the filter descriptors; \
                run `swift run pixelflow docs --output Docs/Filters.md` and commit the result. \
                First difference at line \(line + 1): file has '\(old)', descriptors give '\(new)'.
                """)
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
