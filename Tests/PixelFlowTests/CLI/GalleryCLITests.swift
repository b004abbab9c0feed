import Foundation
import XCTest
import PixelFlow

/// `pixelflow docs --gallery`: every registered filter renders without an error on the
/// gallery's pictures (an end-to-end check of every filter, at a small size), one picture
/// per filter and one sheet per category are written, the reference links them, and the
/// files do not depend on the thread count. The pixels are not compared with stored ones.
final class GalleryCLITests: TemporaryDirectoryTestCase {
    func testGalleryRendersEveryFilterAndTheReferenceLinksIt() throws {
        let r = try CLIProcess.run(
            ["docs", "--gallery", "g", "--size", "24x16", "--threads", "2", "--output", "Filters.md"], in: directory)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("wrote \(FilterRegistry.all.count) filter pictures"), r.stderr)
        let folder = directory.appendingPathComponent("g").path
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: folder))
        let reference = try String(contentsOfFile: directory.appendingPathComponent("Filters.md").path, encoding: .utf8)
        for d in FilterRegistry.all {
            XCTAssertTrue(files.contains(d.name + ".jpg"), "\(d.name) has a picture")
            let category = d.categories.first { FilterCategory.effects.contains($0) }?.rawValue ?? "CICategoryOther"
            XCTAssertTrue(files.contains(category + ".jpg"), "\(category) has a sheet")
            XCTAssertTrue(
                reference.contains("[![\(d.displayName)](g/\(d.name).jpg)](g/\(category).jpg)"),
                "the reference shows \(d.name)'s picture, linked to its sheet")
        }
        // One cell, or two side by side, over a caption strip.
        let sepia = try PixelBuffer(contentsOfFile: folder + "/CISepiaTone.jpg")
        XCTAssertEqual(sepia.width, 24)
        XCTAssertEqual(sepia.height, 16 + 11)
        let wrap = try PixelBuffer(contentsOfFile: folder + "/CICircularWrap.jpg")
        XCTAssertEqual(wrap.width, 2 * 24 + 4, "CICircularWrap's defaults show nothing at this size: a second setting")

        // The same bytes with another thread count, and pictures of unknown filters removed.
        let other = directory.appendingPathComponent("h").path
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
        let stale = other + "/CINoSuchFilter.jpg"
        XCTAssertTrue(FileManager.default.createFile(atPath: stale, contents: Data([1, 2, 3])))
        let again = try CLIProcess.run(["docs", "--gallery", "h", "--size", "24x16", "--threads", "1"], in: directory)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stderr.contains("removed CINoSuchFilter.jpg"), again.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: other)), files)
        for name in files.sorted() {
            let a = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
            let b = try Data(contentsOf: URL(fileURLWithPath: other + "/" + name))
            XCTAssertTrue(a == b, "\(name) is the same with 1 and 2 threads")
        }
    }

    func testGalleryUsageErrors() throws {
        for args in [
            ["docs", "--size", "24x16"], ["docs", "--gallery", "g", "--size", "4x4"],
            ["docs", "--gallery", "g", "--size", "big"], ["docs", "--gallery", ""],
        ] {
            let r = try CLIProcess.run(args, in: directory)
            XCTAssertEqual(r.status, 2, "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.isEmpty, "\(args)")
        }
    }
}
