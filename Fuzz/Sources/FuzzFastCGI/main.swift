import CFastCGIRecords
import Foundation
import FuzzDriver

#if canImport(Glibc)
import Glibc
#endif

// FastCGI records as they come over the worker's socket, through libfcgi's own parser (built
// from Debian's source, instrumented), then read as the worker reads them: the parameters out
// of the environment it builds, and the body. A connection per input, its writing side closed
// after the bytes, so a record cut short ends the request rather than waiting for more.
let socketPath = NSTemporaryDirectory() + "clup-fuzz-fastcgi-\(getpid()).sock"
let listener: Int32 = {
    signal(SIGPIPE, SIG_IGN)  // libfcgi answers on a connection the fuzzer has closed
    precondition(FCGX_Init() == 0)
    unlink(socketPath)
    let fd = FCGX_OpenSocket(socketPath, 16)
    precondition(fd >= 0, "cannot listen on \(socketPath)")
    // Non-blocking: when a connection ends before a whole request, libfcgi goes back to
    // accept the next one; with none pending it must give up, not wait for ever.
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    return fd
}()

func connectClient() -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
        for (index, byte) in socketPath.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    precondition(connected == 0, "cannot connect: errno \(errno)")
    return fd
}

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = bytes(data, count)
    _ = listener  // a global is made on first use: listening before the first connection
    let client = connectClient()
    defer { close(client) }
    var written = 0
    while written < input.count {
        let sent = input[written...].withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        if sent <= 0 { break }
        written += sent
    }
    shutdown(client, Int32(SHUT_WR))

    var request = FCGX_Request()
    guard FCGX_InitRequest(&request, listener, 0) == 0 else { return 0 }
    defer { FCGX_Free(&request, 1) }
    guard FCGX_Accept_r(&request) >= 0 else { return 0 }
    // As the worker does: NAME=VALUE entries, then the body to its end.
    var params: [String: [UInt8]] = [:]
    if var entry = request.envp {
        while let pointer = entry.pointee {
            let entryBytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                                 count: strlen(pointer))
            if let equals = entryBytes.firstIndex(of: UInt8(ascii: "=")) {
                params[String(decoding: entryBytes[..<equals], as: UTF8.self)] = Array(entryBytes[(equals + 1)...])
            }
            entry += 1
        }
    }
    var buffer = [CChar](repeating: 0, count: 4096)
    while FCGX_GetStr(&buffer, Int32(buffer.count), request.in) > 0 {}
    _ = params
    FCGX_Finish_r(&request)
    return 0
}

@_cdecl("FuzzFastCGI_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, testOneInput)
}
