import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A worker listening for web servers on other hosts (`clup serve --listen … --allow-from …`):
/// it answers a peer in the networks it was given and closes on anyone else, and it will not
/// listen beyond this host without being told who may connect.
@Suite("A worker for web servers on other hosts")
struct RemoteWorkerEndToEndTests {
    /// FastCGI's GET_VALUES, asking how many connections the worker takes: a question any
    /// FastCGI responder answers (with GET_VALUES_RESULT), and one that changes nothing.
    static let getValues: [UInt8] = {
        let name = Array("FCGI_MAX_CONNS".utf8)
        let content = [UInt8(name.count), 0] + name
        return [1, 9, 0, 0, 0, UInt8(content.count), 0, 0] + content
    }()

    /// What the worker sends back to GET_VALUES from `source`, until it closes or 5 s pass.
    func ask(from source: String, to address: String, port: Int) throws -> [UInt8] {
        let fd = try #require(Stack.connect(from: source, to: address, port: port), "cannot connect from \(source)")
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = Self.getValues.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer[..<count]) : []
    }

    @Test("--listen answers the networks --allow-from names, closes on others, and needs --allow-from")
    func allowList() throws {
        let stack = try Stack()
        let port = try Stack.freePort()
        let arguments = ["serve"] + stack.databaseArguments + [
            "--listen", "127.0.0.2:\(port)", "--allow-from", "127.0.0.3", "--allow-from", "10.0.0.0/8",
            "--threads", "2", "--entrance-port", String(try Stack.freePort()),
            "--public", Stack.root + "/Public", "--base-url", stack.baseURL, "--mail-dir", stack.directory + "/mail-remote",
            "--secret-file", stack.directory + "/secret", "--vapid-key-file", stack.directory + "/vapid-key",
        ]
        let worker = try stack.launch(Stack.clupBinary, arguments)
        defer {
            worker.terminate()
            worker.waitUntilExit()
        }
        try stack.waitUntil("the worker listens on 127.0.0.2:\(port)") {
            Stack.connect(from: "127.0.0.3", to: "127.0.0.2", port: port).map { close($0) } != nil
        }
        let answer = try ask(from: "127.0.0.3", to: "127.0.0.2", port: port)
        #expect(answer.count > 8 && answer[1] == 10, "GET_VALUES_RESULT from an allowed peer: \(answer.prefix(8))")
        #expect(try ask(from: "127.0.0.4", to: "127.0.0.2", port: port).isEmpty, "a peer outside the networks gets nothing")

        // Without --allow-from, or with a network that is not one, it refuses to start.
        for extra in [[String](), ["--allow-from", "10.0.0.0/33"]] {
            let listen = ["serve"] + stack.databaseArguments + ["--listen", "127.0.0.2:\(try Stack.freePort())"] + extra
            let (status, said) = try stack.clupRefusal(listen + ["--public", Stack.root + "/Public", "--secret-file",
                                                                 stack.directory + "/secret", "--vapid-key-file",
                                                                 stack.directory + "/vapid-key"])
            #expect(status != 0 && said.contains("--allow-from"), "\(extra): \(said)")
        }
    }
}
