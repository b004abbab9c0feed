// Replays corpora through the fuzz entry points in an ordinary build (no libFuzzer):
//
//     fuzz-replay TARGET FILE_OR_FOLDER...     one target
//     fuzz-replay --all CORPUS_ROOT            every target, on CORPUS_ROOT/<target>/
//
// A file that breaks a promise stops the process (see FuzzTarget); otherwise it prints how
// many files each target ran and exits 0.
import Foundation
import FuzzTargets

func files(in path: String) -> [String] {
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return [] }
    guard isFolder.boolValue else { return [path] }
    let names = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
    return names.sorted().filter { !$0.hasPrefix(".") }.flatMap { files(in: path + "/" + $0) }
}

func replay(_ target: FuzzTarget, _ paths: [String]) -> Int {
    var count = 0
    for path in paths.flatMap(files(in:)) {
        guard let data = FileManager.default.contents(atPath: path) else {
            FileHandle.standardError.write(Data("fuzz-replay: cannot read \(path)\n".utf8))
            exit(1)
        }
        target.run([UInt8](data))
        count += 1
    }
    return count
}

let arguments = Array(CommandLine.arguments.dropFirst())
let usage =
    "usage: fuzz-replay TARGET PATH... | fuzz-replay --all CORPUS_ROOT\ntargets: "
    + FuzzTarget.allCases.map(\.rawValue).joined(separator: " ")
if arguments.count == 2, arguments[0] == "--all" {
    var total = 0
    for target in FuzzTarget.allCases {
        let folder = arguments[1] + "/" + target.rawValue
        let start = Date()
        let n = replay(target, [folder])
        guard n > 0 else {
            FileHandle.standardError.write(Data("fuzz-replay: no corpus in \(folder)\n".utf8))
            exit(1)
        }
        print("\(target.rawValue): \(n) files replayed in \(String(format: "%.1f", Date().timeIntervalSince(start))) s")
        total += n
    }
    print("fuzz-replay: \(total) files, no failure")
} else if arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[0]) {
    print("\(target.rawValue): \(replay(target, Array(arguments.dropFirst()))) files replayed, no failure")
} else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
