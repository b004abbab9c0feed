// swift-tools-version: 6.0
// The fuzz targets of PixelFlow: a package of its own so that the main package's build is
// unaffected. Each `fuzz-*` executable is a libFuzzer target and only links when built with
// the fuzzer sanitizer (scripts/fuzz.sh):
//
//     swift build -c release --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address
//
// `fuzz-replay` is an ordinary executable that feeds files to the same entry points
// (FuzzTargets) without libFuzzer; CI uses it to replay every corpus in a normal build.
import PackageDescription

/// The libFuzzer targets, by the name of their entry point in `FuzzTarget`.
let fuzzers = ["png", "jpeg", "pnm", "bmp", "roundtrip", "qr-matrix", "qr-pixels", "filter-graph", "cli-filter",
               "cascade-xml", "webp", "tiff", "heif", "gif"]

let package = Package(
    name: "PixelFlowFuzz",
    dependencies: [.package(name: "PixelFlow", path: "..")],
    targets: [
        .target(
            name: "FuzzTargets",
            dependencies: [
                .product(name: "PixelFlow", package: "PixelFlow"),
                .product(name: "PixelFlowCLI", package: "PixelFlow"),
            ]),
        .executableTarget(name: "fuzz-replay", dependencies: ["FuzzTargets"]),
        .executableTarget(
            name: "fuzz-seeds",
            dependencies: [
                "FuzzTargets", .product(name: "PixelFlow", package: "PixelFlow"),
            ]),
    ]
        + fuzzers.map { name in
            .executableTarget(name: "fuzz-\(name)", dependencies: ["FuzzTargets"])
        },
    swiftLanguageModes: [.v6]
)
