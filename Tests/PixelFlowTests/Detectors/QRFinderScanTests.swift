import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowEngine

/// The finder scan's fast parts against plain references: the runs of a row (a scalar loop),
/// the integer 1:1:3:1:1 test (the floating-point `ratioMatches` at tolerance 0.5), and the
/// one-scan search of both polarities (two scans, of the image and of its inverse).
final class QRFinderScanTests: XCTestCase {
    /// Runs by a loop over the pixels.
    private func referenceRuns(_ row: [UInt8]) -> [(start: Int, length: Int)] {
        var runs: [(start: Int, length: Int)] = []
        var start = 0
        for x in 1..<Swift.max(row.count, 1) where row[x] != row[x - 1] {
            runs.append((start, x - start))
            start = x
        }
        if !row.isEmpty { runs.append((start, row.count - start)) }
        return runs
    }

    func testRunsMatchAScalarLoopForEveryWidthAndPattern() {
        var rng = SeededRandom(seed: 7)
        for width in 1...80 {
            for trial in 0..<20 {
                // Noise, long runs and alternating pixels.
                let row: [UInt8] = (0..<width).map { x in
                    switch trial % 3 {
                    case 0: UInt8(rng.next() & 1)
                    case 1: UInt8((x / (1 + trial)) & 1)
                    default: UInt8(x & 1)
                    }
                }
                var starts = [Int](repeating: -1, count: width + 1)
                var lengths = [Int](repeating: -1, count: width + 1)
                let n = row.withUnsafeBufferPointer { r in
                    QRFinderPatternFinder.runs(
                        of: r.baseAddress!, width: width, starts: &starts, lengths: &lengths)
                }
                let expected = referenceRuns(row)
                XCTAssertEqual(n, expected.count, "width \(width) trial \(trial)")
                for (i, run) in expected.enumerated() where i < n {
                    XCTAssertEqual(starts[i], run.start, "width \(width) trial \(trial) run \(i)")
                    XCTAssertEqual(lengths[i], run.length, "width \(width) trial \(trial) run \(i)")
                }
            }
        }
    }

    func testIntegerRatioTestEqualsTheFloatingPointOne() {
        // Every combination of run lengths 1...12 (and the 3 up to 36).
        var checked = 0
        for c0 in 1...12 {
            for c1 in 1...12 {
                for c2 in 1...36 {
                    for c3 in 1...12 {
                        for c4 in stride(from: 1, through: 12, by: 1) {
                            let total = c0 + c1 + c2 + c3 + c4
                            let fast = QRFinderPatternFinder.scanRatioMatches(c0, c1, c2, c3, c4, total: total)
                            let slow = QRFinderPatternFinder.ratioMatches(c0, c1, c2, c3, c4, tolerance: 0.5)
                            if fast != slow {
                                XCTFail("runs \(c0) \(c1) \(c2) \(c3) \(c4): integer \(fast), float \(slow)")
                                return
                            }
                            checked += 1
                        }
                    }
                }
            }
        }
        XCTAssertEqual(checked, 12 * 12 * 36 * 12 * 12)
    }

    func testOneScanOfBothPolaritiesEqualsTwoScans() throws {
        let dir = URL(fileURLWithPath: packageRoot).appendingPathComponent("Tests/PixelFlowTests/Fixtures/QR/hard")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter {
            $0.hasSuffix(".png") || $0.hasSuffix(".jpg")
        }.sorted()
        XCTAssertGreaterThan(files.count, 3)
        var nonEmpty = 0
        for file in files {
            let luminance = QRLuminance(try PixelBuffer(contentsOfFile: dir.appendingPathComponent(file).path))
            // The normal and the low-contrast binarizations (the second is mostly noise).
            for binary in [
                QRBinarizer.binarize(luminance),
                QRBinarizer.binarize(
                    luminance, minimumRange: QRBinarizer.lowContrastRange,
                    neighbourhood: QRBinarizer.lowContrastNeighbourhood),
            ] {
                for (rowStep, quorum) in [(1, nil), (2, 2)] as [(Int, Int?)] {
                    let both = QRFinderPatternFinder.findBoth(
                        in: binary, rowStep: rowStep, maximumCount: 48, quorum: quorum)
                    let dark = QRFinderPatternFinder.find(in: binary, rowStep: rowStep, maximumCount: 48, quorum: quorum)
                    let light = QRFinderPatternFinder.find(
                        in: binary.inverted(), rowStep: rowStep, maximumCount: 48, quorum: quorum)
                    XCTAssertEqual(both.dark, dark, "\(file) step \(rowStep)")
                    XCTAssertEqual(both.light, light, "\(file) step \(rowStep)")
                    if !dark.isEmpty && !light.isEmpty { nonEmpty += 1 }
                }
            }
        }
        // The comparison must have had candidates of both polarities to compare.
        XCTAssertGreaterThan(nonEmpty, 4)
    }
}
