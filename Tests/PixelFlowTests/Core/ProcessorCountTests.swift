import Foundation
import XCTest

@testable import PixelFlow
@testable import PixelFlowKernels
@testable import PixelFlowGraph
@testable import PixelFlowCore
@testable import PixelFlowEngine

/// The default thread count follows the processors the process may use, as a batch job on a
/// cluster gets them: affinity masks and control-group CPU quotas.
final class ProcessorCountTests: XCTestCase {
    func testQuotasOfBothCgroupVersions() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("pf-cgroup-\(getpid())")
        defer { try? FileManager.default.removeItem(at: root) }
        func write(_ path: String, _ text: String) throws {
            let url = root.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        XCTAssertNil(ProcessorCount.cgroupQuota(root: root.path), "no files: no quota")
        try write("cpu/cpu.cfs_quota_us", "-1\n")
        try write("cpu/cpu.cfs_period_us", "100000\n")
        XCTAssertNil(ProcessorCount.cgroupQuota(root: root.path), "v1, quota -1: none")
        try write("cpu/cpu.cfs_quota_us", "150000\n")
        XCTAssertEqual(ProcessorCount.cgroupQuota(root: root.path), 2, "v1, 1.5 processors: 2")
        try write("cpu.max", "max 100000\n")
        XCTAssertNil(ProcessorCount.cgroupQuota(root: root.path), "v2 takes precedence: no limit")
        try write("cpu.max", "300000 100000\n")
        XCTAssertEqual(ProcessorCount.cgroupQuota(root: root.path), 3)
        try write("cpu.max", "50000 100000\n")
        XCTAssertEqual(ProcessorCount.cgroupQuota(root: root.path), 1, "half a processor: 1")
        try write("cpu.max", "garbage\n")
        XCTAssertNil(ProcessorCount.cgroupQuota(root: root.path))
        XCTAssertNil(ProcessorCount.wholeProcessors(quota: .infinity, period: 1))
        XCTAssertNil(ProcessorCount.wholeProcessors(quota: 1, period: 0))
    }

    func testAffinityBoundsTheCount() throws {
        let affinity = try XCTUnwrap(ProcessorCount.affinityCount())
        XCTAssertGreaterThanOrEqual(affinity, 1)
        XCTAssertLessThanOrEqual(RenderContext.activeProcessorCount, affinity)
        XCTAssertEqual(RenderContext().options.threadCount, RenderContext.activeProcessorCount)
    }

    /// A process started on one processor (`taskset -c N`) renders with one thread by
    /// default: `pixelflow apply --explain` says how many.
    func testTasksetLimitsTheDefaultThreadCount() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/taskset") else {
            throw XCTSkip("no taskset")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pf-taskset-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.png").path
        try RenderContext().write(Image(color: .white).cropped(to: Rect(x: 0, y: 0, width: 8, height: 8)), toFile: input)
        // The first processor this process may run on (CPU 0 may not be in a container's set).
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        guard let list = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") }),
            let first = list.dropFirst("Cpus_allowed_list:".count).split(whereSeparator: { !$0.isNumber }).first
        else { throw XCTSkip("no Cpus_allowed_list") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
        process.arguments = [
            "-c", String(first), try CLITests.executable("pixelflow").path, "apply", input,
            dir.appendingPathComponent("out.png").path,
            "--filter", "CISepiaTone", "--explain",
        ]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("; 1 thread(s);"), text)
    }
}
