import XCTest
@testable import PixelFlow
final class SmokeTests: XCTestCase {
    func testSRGBRoundTrip() {
        for v in 0..<256 { XCTAssertEqual(SRGB.encode8(SRGB.decodeTable[v]), UInt8(v)) }
    }
}
