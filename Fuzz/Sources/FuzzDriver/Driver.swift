/// libFuzzer's driver, for an executable whose `main` SwiftPM names `<Target>_main`: that
/// function calls `runFuzzer` with the target's `LLVMFuzzerTestOneInput`.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

public func runFuzzer(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                      _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> CInt
{
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv, callback)
}

/// The input as bytes.
public func bytes(_ data: UnsafePointer<UInt8>?, _ count: Int) -> [UInt8] {
    guard let data, count > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: count))
}
