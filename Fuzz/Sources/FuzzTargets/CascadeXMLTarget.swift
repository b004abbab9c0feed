import Foundation
import PixelFlow

/// The face detector's cascade parser on arbitrary bytes: it loads or throws a
/// `PixelFlowError`; a cascade that loads must then scan a small image without trapping.
enum CascadeXMLTarget {
    static func run(_ bytes: [UInt8]) {
        let cascade: CascadeClassifier
        do {
            cascade = try CascadeClassifier(xmlData: Data(bytes), source: "fuzz.xml")
        } catch {
            expectPixelFlowError(error, "cascade-xml")
            return
        }
        do {
            var image = try PixelBuffer(width: 48, height: 40, format: .gray8)
            for y in 0..<40 {
                for x in 0..<48 {
                    let v = Float((x * 7 + y * 13 + Int(bytes.count)) % 256) / 255
                    image[x, y] = SIMD4(v, v, v, 1)
                }
            }
            let configuration = FaceDetector.Configuration(cascade: .classifier(cascade), findsLandmarks: false, threadCount: 1)
            _ = try FaceDetector(configuration: configuration).features(in: image)
        } catch {
            expectPixelFlowError(error, "cascade-xml detection")
        }
    }
}
