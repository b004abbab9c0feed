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

/// Batch mode of `pixelflow apply`: many inputs into one folder, processed in parallel, with
/// progress on standard error and a summary at the end.
extension ApplyJob {
    /// One input of a batch: where its result goes, or why it will not be written.
    struct BatchTask: Sendable {
        var input: String
        var destination: String
        var format: ImageFileFormat
        /// Set when the task is refused before any work (a clash with another output or an input).
        var refusal: String?
    }

    /// The tasks in input order. A destination that another input already writes, or that
    /// is one of `protected` (every file read) without `--overwrite`, is refused up front,
    /// so the outcome does not depend on which job runs first.
    func planBatch(protecting protected: Set<FileIdentity>) -> [BatchTask] {
        var claimed: [String: String] = [:]  // destination -> input that writes it
        return inputs.map { input in
            let (name, fmt) = batchOutput(for: input)
            let destination = joinPath(output, name)
            var task = BatchTask(input: input, destination: destination, format: fmt)
            if let first = claimed[destination] {
                task.refusal = "its output '\(destination)' would overwrite the output of '\(first)'; rename one of them"
            } else if !overwrite, let id = Terminal.fileIdentity(destination), protected.contains(id) {
                task.refusal =
                    "refusing to overwrite the input '\(destination)'; choose another output directory, or pass --overwrite"
            } else if !force, Terminal.isReadOnlyFile(destination) {
                task.refusal = ApplyJob.readOnlyRefusal(destination)
            } else {
                claimed[destination] = input
            }
            return task
        }
    }

    /// Runs `tasks` on `jobs` workers; a failing file is reported and skipped. Returns 0 when
    /// every file was written, 1 otherwise.
    func runBatch(tasks: [BatchTask]) -> Int32 {
        let clock = ContinuousClock()
        let start = clock.now
        let progress = BatchProgress(total: tasks.count, isTerminal: isatty(2) != 0)
        let next = Atomic<Int>(0)
        let job = self
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, tasks.count))) { _ in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                if i >= tasks.count { break }
                let task = tasks[i]
                do {
                    if let refusal = task.refusal { throw CLIError.runtime(refusal) }
                    try job.process(task.input, to: task.destination, format: task.format)
                    progress.finished(task.input, destination: task.destination, error: nil)
                } catch {
                    progress.finished(
                        task.input, destination: task.destination,
                        error: ApplyJob.message(error, about: task.input))
                }
            }
        }
        let failed = progress.summary(elapsed: clock.now - start, outputDirectory: output)
        return failed == 0 ? ExitCode.success : ExitCode.failure
    }
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

    /// Ends the bar and prints `N processed, M failed in T s`; returns the number of failures.
    func summary(elapsed: Duration, outputDirectory: String) -> Int {
        state.withLock { s in
            if isTerminal { Terminal.errorWithoutNewline("\n") }
            let c = elapsed.components
            let seconds = Double(c.seconds) + Double(c.attoseconds) / 1e18
            let ok = s.done - s.failed.count
            var line = "pixelflow apply: \(ok) processed, \(s.failed.count) failed, in \(formatSeconds(seconds)); "
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
