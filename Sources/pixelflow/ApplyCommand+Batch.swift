#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif
import Dispatch
import PixelFlow
import Synchronization

/// Batch mode of `pixelflow apply`: many inputs into one folder, or the items of a manifest,
/// processed in parallel, with progress on standard error and a summary at the end.
extension ApplyJob {
    /// One item of the batch's shard and what the run will do with it.
    struct BatchTask: Sendable {
        enum Action: Sendable, Equatable {
            /// Filter the input and write the output.
            case run
            /// `--resume`: the output exists; leave it.
            case skip
            /// Refused before any work, for this reason (a clash with another output or an
            /// input, a read-only output).
            case refuse(String)
        }

        var item: BatchItem
        var action: Action
    }

    /// The tasks of this process's shard, in batch order. A destination that another input
    /// already writes, or that is one of `protected` (every file read) without `--overwrite`,
    /// is refused up front, so the outcome does not depend on which job runs first. With
    /// `--resume`, an item whose output exists is skipped.
    func planBatch(protecting protected: Set<FileIdentity>) -> [BatchTask] {
        var claimed: [String: String] = [:]  // destination -> input that writes it
        var tasks: [BatchTask] = []
        for item in items where shard?.contains(item.position) ?? true {
            let destination = item.destination
            var action = BatchTask.Action.run
            if let first = claimed[destination] {
                action = .refuse("its output '\(destination)' would overwrite the output of '\(first)'; rename one of them")
            } else if !overwrite, let id = Terminal.fileIdentity(destination), protected.contains(id) {
                action = .refuse(
                    "refusing to overwrite the input '\(destination)'; choose another output directory, or pass --overwrite")
            } else if resume, Terminal.exists(destination), !Terminal.isDirectory(destination) {
                action = .skip
            } else if !force, Terminal.isReadOnlyFile(destination) {
                action = .refuse(ApplyJob.readOnlyRefusal(destination))
            }
            if case .refuse = action {} else { claimed[destination] = item.input }
            tasks.append(BatchTask(item: item, action: action))
        }
        return tasks
    }

    /// Runs `tasks` on `jobs` workers; a failing file is reported and skipped. Prints the
    /// summary (and writes it as JSON when asked); returns 0 when no file failed, 1 otherwise.
    ///
    /// - Throws: `CLIError.runtime` when the `--summary-json` file cannot be written.
    func runBatch(tasks: [BatchTask]) throws -> Int32 {
        let clock = ContinuousClock()
        let start = clock.now
        let pending = tasks.indices.filter { tasks[$0].action != .skip }
        let skipped = tasks.count - pending.count
        if let shard {
            Terminal.error("pixelflow apply: shard \(shard.description): \(tasks.count) of \(items.count) items")
        }
        if resume {
            let removed = ApplyJob.removeTemporaryFiles(of: tasks.map(\.item.destination))
            if removed > 0 {
                Terminal.error(
                    "pixelflow apply: --resume: removed \(removed) temporary file\(removed == 1 ? "" : "s") of an interrupted run"
                )
            }
            if skipped > 0 {
                Terminal.error("pixelflow apply: --resume: \(skipped) of \(tasks.count) outputs exist; skipping them")
            }
        }
        // Fewer files than jobs: give each render the processors the idle jobs leave.
        var job = self
        job.jobs = max(1, min(jobs, pending.count))
        if threads == nil, job.jobs < jobs {
            job.context = RenderContext(threadCount: max(1, RenderContext.activeProcessorCount / job.jobs))
        }
        let worker = job
        let progress = BatchProgress(total: pending.count, isTerminal: isatty(2) != 0)
        let outcomes = Locked([BatchOutcome](repeating: .skipped, count: tasks.count))
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: worker.jobs) { _ in
            while true {
                let n = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if n >= pending.count { break }
                let i = pending[n]
                let item = tasks[i].item
                let outcome: BatchOutcome
                do {
                    if case .refuse(let refusal) = tasks[i].action { throw CLIError.runtime(refusal) }
                    try Terminal.checkOutputFolder(of: item.destination)
                    try worker.process(item.input, to: item.destination, format: item.format)
                    outcome = .done
                } catch {
                    outcome = .failed(ApplyJob.message(error, about: item.input))
                }
                if case .failed(let message) = outcome {
                    progress.finished(item.input, destination: item.destination, error: message)
                } else {
                    progress.finished(item.input, destination: item.destination, error: nil)
                }
                outcomes.withLock { $0[i] = outcome }
            }
        }
        let elapsed = clock.now - start
        let written = output.isEmpty ? "the manifest's outputs" : output
        var prefix = ""
        if let shard { prefix = "shard \(shard.description): " }
        let failed = progress.summary(
            elapsed: elapsed, outputDirectory: written, prefix: prefix, skipped: resume ? skipped : nil)
        if printsJSON || summaryFile != nil {
            let summary = BatchSummary(
                total: items.count, shard: shard, tasks: tasks, outcomes: outcomes.withLock { $0 },
                seconds: seconds(elapsed))
            let json = summary.json
            if printsJSON || summaryFile == "-" { Terminal.output(json) }
            if let summaryFile, summaryFile != "-" {
                try Terminal.replaceFile(summaryFile, with: Array((json + "\n").utf8))
            }
        }
        return failed == 0 ? ExitCode.success : ExitCode.failure
    }

    /// Removes the temporary files that an interrupted run left beside `destinations`: an
    /// atomic write goes to `.NAME.XXXXXX` in the output's folder and renames it to NAME when
    /// complete, so a killed process leaves that file and never a partial NAME. Only names of
    /// that exact form, for this shard's own outputs, are removed. Returns how many were.
    static func removeTemporaryFiles(of destinations: [String]) -> Int {
        var names: [String: Set<String>] = [:]  // folder -> output file names
        for destination in destinations {
            let (folder, name) = splitPath(destination)
            names[folder, default: []].insert(name)
        }
        var removed = 0
        for (folder, outputs) in names {
            guard let dir = opendir(folder) else { continue }
            var stale: [String] = []
            while let entry = readdir(dir) {
                let file = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                if let output = temporaryFileTarget(file), outputs.contains(output) { stale.append(file) }
            }
            closedir(dir)
            for file in stale where unlink(joinPath(folder, file)) == 0 { removed += 1 }
        }
        return removed
    }

    /// NAME when `file` is `.NAME.XXXXXX`, a temporary file of an atomic write (`mkstemp`'s
    /// six letters or digits); nil otherwise.
    static func temporaryFileTarget(_ file: String) -> String? {
        let chars = Array(file.utf8)
        guard chars.count >= 9, chars[0] == UInt8(ascii: "."), chars[chars.count - 7] == UInt8(ascii: ".") else {
            return nil
        }
        let suffix = chars[(chars.count - 6)...]
        let isAlphanumeric = suffix.allSatisfy {
            ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z"))
                || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9"))
        }
        guard isAlphanumeric else { return nil }
        return String(decoding: chars[1..<(chars.count - 7)], as: UTF8.self)
    }
}

/// What became of one item of a batch.
enum BatchOutcome: Sendable {
    /// Written by this run.
    case done
    /// Not run: `--resume` found its output.
    case skipped
    /// Refused or failed, with the message printed on standard error.
    case failed(String)
}

/// The machine-readable summary of a batch (`--json`, `--summary-json FILE`).
///
/// ```
/// {"total": 10, "shard": {"index": 1, "count": 3}, "in_shard": 3, "done": 2, "skipped": 0,
///  "failed": 1, "seconds": 0.42,
///  "items": [{"position": 1, "line": 2, "input": "a.png", "output": "out/a.png", "status": "done", "error": null}, ...]}
/// ```
///
/// `total` counts the whole batch; `in_shard` the items of this process's shard
/// (`done + skipped + failed`), which `items` lists in batch order; `position` is an item's
/// place in the whole batch, from 0, and `line` its manifest line (null for inputs on the
/// command line).
struct BatchSummary {
    var total: Int
    var shard: BatchShard?
    var tasks: [ApplyJob.BatchTask]
    var outcomes: [BatchOutcome]
    var seconds: Double

    var json: String {
        var done = 0
        var skipped = 0
        var failed = 0
        var lines: [String] = []
        lines.reserveCapacity(tasks.count)
        for (task, outcome) in zip(tasks, outcomes) {
            let status: String
            var error = "null"
            switch outcome {
            case .done:
                done += 1
                status = "done"
            case .skipped:
                skipped += 1
                status = "skipped"
            case .failed(let message):
                failed += 1
                status = "failed"
                error = JSONText.string(message)
            }
            lines.append(
                JSONText.object([
                    ("position", String(task.item.position)), ("line", task.item.line.map(String.init) ?? "null"),
                    ("input", JSONText.string(task.item.input)), ("output", JSONText.string(task.item.destination)),
                    ("status", JSONText.string(status)), ("error", error),
                ]))
        }
        let shardValue = shard.map {
            JSONText.object([("index", String($0.index)), ("count", String($0.count))])
        }
        let members = [
            ("total", String(total)), ("shard", shardValue ?? "null"), ("in_shard", String(tasks.count)),
            ("done", String(done)), ("skipped", String(skipped)), ("failed", String(failed)),
            ("seconds", JSONText.number((seconds * 1000).rounded() / 1000)),
        ]
        let head = JSONText.object(members)
        // The counts on the first line, then one item a line, so `head -1` and grep work.
        return String(head.dropLast()) + ",\n\"items\": " + JSONText.lines(lines) + "}"
    }
}

/// `duration` in seconds.
func seconds(_ duration: Duration) -> Double {
    let c = duration.components
    return Double(c.seconds) + Double(c.attoseconds) / 1e18
}

/// The folder and the file name of `path` (`.` for a bare name).
func splitPath(_ path: String) -> (folder: String, name: String) {
    guard let slash = path.lastIndex(of: "/") else { return (".", path) }
    let folder = slash == path.startIndex ? "/" : String(path[..<slash])
    return (folder, String(path[path.index(after: slash)...]))
}

/// Reports a batch's progress on standard error, safely from many threads.
///
/// On a terminal it redraws one progress bar line (`\r`, then erase to the end of the line);
/// errors are printed above it. Elsewhere (a pipe, a log file) it prints one plain line per
/// finished file, so logs stay readable.
final class BatchProgress: Sendable {
    private struct State {
        var done = 0
        var failed: [String] = []
    }

    let total: Int
    let isTerminal: Bool
    private let state = Locked(State())

    init(total: Int, isTerminal: Bool) {
        self.total = total
        self.isTerminal = isTerminal
        if isTerminal { Terminal.errorWithoutNewline(bar(done: 0, current: "")) }
    }

    /// Records that `input` finished, written to `destination` or failed with `error`.
    func finished(_ input: String, destination: String, error: String?) {
        state.withLock { s in
            s.done += 1
            if error != nil { s.failed.append(input) }
            let counter = "[\(s.done)/\(total)]"
            if isTerminal {
                if let error { Terminal.errorWithoutNewline("\r\u{1B}[K" + "pixelflow apply: failed: \(error)\n") }
                Terminal.errorWithoutNewline(bar(done: s.done, current: baseName(input)))
            } else if let error {
                Terminal.error("\(counter) failed: \(error)")
            } else {
                Terminal.error("\(counter) \(input) -> \(destination)")
            }
        }
    }

    /// Ends the bar and prints `N processed, M failed in T s` (with `K skipped` when
    /// `skipped` is given, after `prefix`); returns the number of failures.
    func summary(elapsed: Duration, outputDirectory: String, prefix: String = "", skipped: Int? = nil) -> Int {
        state.withLock { s in
            if isTerminal { Terminal.errorWithoutNewline("\n") }
            let ok = s.done - s.failed.count
            let skippedText = skipped.map { "\($0) skipped (output exists), " } ?? ""
            var line =
                "pixelflow apply: \(prefix)\(ok) processed, \(skippedText)\(s.failed.count) failed, in \(formatSeconds(seconds(elapsed))); "
            if s.failed.isEmpty {
                line += "written to \(outputDirectory)"
            } else {
                line += "failed: \(s.failed.joined(separator: ", "))"
                line += ok == 0 ? " (nothing was written)" : " (the others were written to \(outputDirectory))"
            }
            Terminal.error(line)
            return s.failed.count
        }
    }

    /// `[#########...........]  45% 9/20 name`, starting with a carriage return.
    private func bar(done: Int, current: String) -> String {
        let width = 24
        let filled = total == 0 ? width : done * width / total
        let percent = total == 0 ? 100 : done * 100 / total
        let pct = String(repeating: " ", count: 3 - String(percent).count) + "\(percent)%"
        return "\r\u{1B}[K[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
            + "] \(pct) \(done)/\(total) \(current)"
    }
}

/// Seconds with two decimals: `0.42 s`.
func formatSeconds(_ seconds: Double) -> String {
    let hundredths = Int((seconds * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction) s"
}
