import Foundation

/// The harness this process runs, from YOULL_FUZZ_TARGET (read once).
let selectedHarness: @Sendable ([UInt8]) -> Void = {
    let name = ProcessInfo.processInfo.environment["YOULL_FUZZ_TARGET"] ?? ""
    guard let harness = harnesses[name] else {
        let known = harnesses.keys.sorted().joined(separator: ", ")
        FileHandle.standardError.write(Data("YOULL_FUZZ_TARGET must be one of: \(known)\n".utf8))
        exit(2)
    }
    return harness
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func llvmFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    selectedHarness(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

/// SwiftPM links an executable with `main` aliased to `<Target>_main`; this hands that
/// entry to libFuzzer's driver.
@_cdecl("YoullFuzz_main")
public func youllFuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { data, size in
        selectedHarness(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }
}
