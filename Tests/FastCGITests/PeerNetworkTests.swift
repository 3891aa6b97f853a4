import Foundation
import Logging
import Testing

@testable import FastCGI

#if canImport(Glibc)
import Glibc
#endif

/// A worker listening for web servers on other hosts: the networks it answers, and a real
/// socket refusing a peer outside them.
@Suite("FastCGI peers")
struct PeerNetworkTests {
    @Test("networks read as address or address/length, IPv4 and IPv6, and match what they cover")
    func networks() throws {
        let office = try #require(PeerNetwork("10.0.0.0/24"))
        #expect(office.contains([10, 0, 0, 5]) && office.contains([10, 0, 0, 255]) && !office.contains([10, 0, 1, 5]))
        #expect(office.description == "10.0.0.0/24")
        let host = try #require(PeerNetwork("192.168.7.9"))
        #expect(host.prefixLength == 32 && host.contains([192, 168, 7, 9]) && !host.contains([192, 168, 7, 8]))
        let odd = try #require(PeerNetwork("172.16.0.0/12"))
        #expect(odd.contains([172, 31, 255, 1]) && !odd.contains([172, 32, 0, 1]))
        let v6 = try #require(PeerNetwork("fd00::/8"))
        let inside = try #require(PeerNetwork.address("fd12:3456::1"))
        let linkLocal = try #require(PeerNetwork.address("fe80::1"))
        #expect(v6.contains(inside) && !v6.contains(linkLocal))
        // An IPv4 peer on an IPv6 socket is matched as itself; an IPv6 network never matches IPv4.
        let mapped = try #require(PeerNetwork.address("::ffff:10.0.0.7"))
        let unique = try #require(PeerNetwork.address("fd00::1"))
        #expect(mapped == [10, 0, 0, 7] && office.contains(mapped))
        #expect(!v6.contains([10, 0, 0, 5]) && !office.contains(unique))
        #expect(try #require(PeerNetwork("0.0.0.0/0")).contains([8, 8, 8, 8]))
        for bad in ["", "10.0.0.0/33", "10.0.0/24", "10.0.0.0/", "10.0.0.0/+8", "fd00::/129", "host.example", "10.0.0.0/24/1"] {
            #expect(PeerNetwork(bad) == nil, "\(bad)")
        }
    }

    /// A server on 127.0.0.1 answering only `allowed`, its port, and a way to stop it.
    func server(allowed: [PeerNetwork]) throws -> (port: Int, stop: () -> Void) {
        for port in (41_000...41_100).shuffled() {
            let endpoint = FastCGIServer.Endpoint.network(address: "127.0.0.1", port: port, allowed: allowed)
            var configuration = FastCGIServer.Configuration(listeners: [.init(endpoint: endpoint, threads: 1)], maxBodySize: 1024)
            // The test process's other tests start children, which must not inherit SIGTERM ignored.
            configuration.ownsSignals = false
            guard let server = try? FastCGIServer(configuration: configuration, logger: Logger(label: "test")) else { continue }
            let done = DispatchSemaphore(value: 0)
            Thread {
                server.run { _ in FastCGIResponse(status: 200, body: Array("hello".utf8)) }
                done.signal()
            }.start()
            return (port, { server.stop(); done.wait() })
        }
        throw POSIXError(.EADDRINUSE)
    }

    /// What the server sends back for one request from this host, until it closes.
    func ask(port: Int) throws -> [UInt8] {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = FastCGIRecordTests.request(params: [("REQUEST_METHOD", "GET"), ("REQUEST_URI", "/")])
        _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            received += buffer[..<count]
        }
        return received
    }

    @Test("a worker listening for other hosts answers the networks it allows and closes on anyone else")
    func allowList() throws {
        let open = try server(allowed: [try #require(PeerNetwork("127.0.0.0/8"))])
        defer { open.stop() }
        let answer = try ask(port: open.port)
        #expect(String(decoding: answer, as: UTF8.self).contains("hello"))

        let closed = try server(allowed: [try #require(PeerNetwork("10.0.0.0/8")), try #require(PeerNetwork("fd00::/8"))])
        defer { closed.stop() }
        #expect(try ask(port: closed.port).isEmpty, "a peer outside the allowed networks gets nothing")
        // A guest server leaves the process's signals alone: SIGTERM is not ignored, so the
        // children other tests start can still be stopped.
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let ignored = try #require(status.split(separator: "\n").first { $0.hasPrefix("SigIgn:") }
            .flatMap { UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) })
        #expect(ignored & (1 << (UInt64(SIGTERM) - 1)) == 0)
    }
}
