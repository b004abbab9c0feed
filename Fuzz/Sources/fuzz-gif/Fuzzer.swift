// libFuzzer target: FuzzTarget.gif (see Fuzz/README.md). Built only with
// --sanitize=fuzzer, which supplies main().
import FuzzTargets

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    FuzzTarget.gif.run(bytes)
    return 0
}
