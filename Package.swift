// swift-tools-version: 6.0
import PackageDescription

let package = Package(
    name: "PixelFlow",
    products: [
        .library(name: "PixelFlow", targets: ["PixelFlow"]),
        // The command line's parsing of `--filter` specs, as a library so that the fuzz
        // targets in Fuzz/ can reach it; the `pixelflow` tool is its only other client.
        .library(name: "PixelFlowCLI", targets: ["PixelFlowCLI"]),
        .executable(name: "pixelflow", targets: ["pixelflow"]),
        .executable(name: "pixelflow-demo", targets: ["pixelflow-demo"]),
        .executable(name: "pixelflow-bench", targets: ["pixelflow-bench"]),
    ],
    targets: [
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        .systemLibrary(name: "CJPEG", path: "Sources/CJPEG", pkgConfig: "libjpeg",
                       providers: [.apt(["libjpeg62-turbo-dev"])]),
        .target(name: "CCodecShims", dependencies: ["CPNG", "CJPEG"], path: "Sources/CCodecShims"),
        .target(name: "CSIMD", path: "Sources/CSIMD"),
        .target(name: "PixelFlow", dependencies: ["CCodecShims", "CSIMD"], path: "Sources/PixelFlow"),
        .target(name: "PixelFlowCLI", dependencies: ["PixelFlow"], path: "Sources/PixelFlowCLI"),
        .executableTarget(name: "pixelflow", dependencies: ["PixelFlow", "PixelFlowCLI"], path: "Sources/pixelflow"),
        .executableTarget(name: "pixelflow-demo", dependencies: ["PixelFlow"], path: "Sources/pixelflow-demo"),
        .executableTarget(name: "pixelflow-bench", dependencies: ["PixelFlow"], path: "Benchmarks/pixelflow-bench"),
        .testTarget(name: "PixelFlowTests", dependencies: ["PixelFlow"], path: "Tests/PixelFlowTests",
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
