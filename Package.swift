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
        .systemLibrary(name: "CWebP", path: "Sources/CWebP", pkgConfig: "libwebpdemux",
                       providers: [.apt(["libwebp-dev"])]),
        .systemLibrary(name: "CTIFF", path: "Sources/CTIFF", pkgConfig: "libtiff-4",
                       providers: [.apt(["libtiff-dev"])]),
        // libdeflate: whole-buffer inflate for PNG image data (the direct decode in pf_png.c).
        .systemLibrary(name: "CDeflate", path: "Sources/CDeflate", pkgConfig: "libdeflate",
                       providers: [.apt(["libdeflate-dev"])]),
        // giflib ships no pkg-config file on every distribution; its header is in /usr/include.
        .systemLibrary(name: "CGIF", path: "Sources/CGIF", providers: [.apt(["libgif-dev"])]),
        .systemLibrary(name: "CHEIF", path: "Sources/CHEIF", pkgConfig: "libheif",
                       providers: [.apt(["libheif-dev"])]),
        .systemLibrary(name: "CLCMS2", path: "Sources/CLCMS2", pkgConfig: "lcms2",
                       providers: [.apt(["liblcms2-dev"])]),
        // Text (Sources/PixelFlow/Text, Docs/Text.md): FreeType for glyph outlines and metrics,
        // HarfBuzz for shaping, fontconfig to find fonts by name and per-script fallbacks.
        .systemLibrary(name: "CFreeType", path: "Sources/CFreeType", pkgConfig: "freetype2",
                       providers: [.apt(["libfreetype-dev"])]),
        .systemLibrary(name: "CHarfBuzz", path: "Sources/CHarfBuzz", pkgConfig: "harfbuzz",
                       providers: [.apt(["libharfbuzz-dev"])]),
        .systemLibrary(name: "CFontconfig", path: "Sources/CFontconfig", pkgConfig: "fontconfig",
                       providers: [.apt(["libfontconfig-dev"])]),
        .target(name: "CCodecShims", dependencies: ["CPNG", "CJPEG", "CWebP", "CTIFF", "CDeflate", "CGIF", "CHEIF", "CLCMS2"],
                path: "Sources/CCodecShims",
                // A C target does not take the `link` lines of the system modules it depends on
                // (only a Swift import does), and pkg-config does not name every library these use.
                linkerSettings: [.linkedLibrary("webpmux"), .linkedLibrary("webpdemux"), .linkedLibrary("webp"),
                                 .linkedLibrary("tiff"), .linkedLibrary("gif"), .linkedLibrary("heif"),
                                 .linkedLibrary("lcms2"), .linkedLibrary("deflate"), .linkedLibrary("z")]),
        .target(name: "CSIMD", path: "Sources/CSIMD"),
        // The library in layers (Docs/Architecture.md, "Layers"): each target uses only the
        // ones before it, with `package` access between them; PixelFlow re-exports the lower
        // ones (`@_exported import`), so `import PixelFlow` gives a user everything.
        // PixelFlowCore: pixels, geometry, errors, and the Tile and Arena of the tile loop.
        .target(name: "PixelFlowCore", path: "Sources/PixelFlowCore"),
        // PixelFlowKernels: row functions on pointers and tiles (C ones in CSIMD); no graph
        // types, no scheduler.
        .target(name: "PixelFlowKernels", dependencies: ["PixelFlowCore", "CSIMD"], path: "Sources/PixelFlowKernels"),
        // PixelFlowGraph: the node kinds and their descriptions (Graph), the optimizer's passes.
        .target(name: "PixelFlowGraph", dependencies: ["PixelFlowCore", "PixelFlowKernels", "CSIMD"], path: "Sources/PixelFlowGraph"),
        // PixelFlowEngine: lowering a graph into a Pipeline, the evaluator, the scheduler, byte
        // forms, render plans, RenderContext's renders of a graph (its Image entry points and
        // file writes are in PixelFlow).
        .target(name: "PixelFlowEngine", dependencies: ["PixelFlowCore", "PixelFlowKernels", "PixelFlowGraph", "CSIMD"],
                path: "Sources/PixelFlowEngine"),
        .target(name: "PixelFlow", dependencies: ["PixelFlowCore", "PixelFlowKernels", "PixelFlowGraph", "PixelFlowEngine", "CCodecShims", "CSIMD",
                                                  "CFreeType", "CHarfBuzz", "CFontconfig"], path: "Sources/PixelFlow",
                // The face detector's models (OpenCV cascades, licences beside them), read
                // through Bundle.module: Detectors/Face/Resources/README.md.
                resources: [.copy("Detectors/Face/Resources")]),
        .target(name: "PixelFlowCLI", dependencies: ["PixelFlow"], path: "Sources/PixelFlowCLI"),
        .executableTarget(name: "pixelflow", dependencies: ["PixelFlow", "PixelFlowCLI"], path: "Sources/pixelflow"),
        .executableTarget(name: "pixelflow-demo", dependencies: ["PixelFlow"], path: "Sources/pixelflow-demo"),
        .executableTarget(name: "pixelflow-bench", dependencies: ["PixelFlow"], path: "Benchmarks/pixelflow-bench"),
        // Examples (Examples/README.md): small programs that a newcomer copies from, each run
        // with `swift run <Name>`. ExampleSupport holds what they share (command line, the
        // built-in scene, YUV4MPEG2 streams, a tiny font); it is not a product.
        .target(name: "ExampleSupport", dependencies: ["PixelFlow"], path: "Examples/ExampleSupport"),
        .executableTarget(name: "ImagePlayground", dependencies: ["PixelFlow", "ExampleSupport"], path: "Examples/ImagePlayground"),
        .executableTarget(name: "PocketFilters", dependencies: ["PixelFlow", "ExampleSupport"], path: "Examples/PocketFilters"),
        .executableTarget(name: "SpookCam", dependencies: ["PixelFlow", "ExampleSupport"], path: "Examples/SpookCam"),
        .executableTarget(name: "LiveDetection", dependencies: ["PixelFlow", "ExampleSupport"], path: "Examples/LiveDetection"),
        .executableTarget(name: "Transitions", dependencies: ["PixelFlow", "ExampleSupport"], path: "Examples/Transitions"),
        .executableTarget(name: "FaceMarkers", dependencies: ["PixelFlow", "ExampleSupport"], path: "Examples/FaceMarkers"),
        .testTarget(name: "PixelFlowTests", dependencies: ["PixelFlow", "PixelFlowCore", "PixelFlowKernels", "PixelFlowGraph", "PixelFlowEngine", "CFreeType", "CHarfBuzz"],
                    path: "Tests/PixelFlowTests",
                    exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)
