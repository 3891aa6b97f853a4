import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The home page's address search with a geocoder that never answers, through nginx and the
/// real worker: the search is asked off the page threads, so the other pages do not wait.
@Suite("Address search, end to end")
struct AddressSearchEndToEndTests {
    /// A geocoder that takes connections and never answers: a socket that listens and never
    /// accepts (the kernel completes the handshakes; curl waits for an answer).
    final class BlackHole {
        let fd: Int32
        let port: Int

        init() throws {
            port = try Stack.freePort()
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 128) == 0 else { throw Stack.StackError("cannot listen on \(port)") }
        }

        deinit { close(fd) }
    }

    @Test("a geocoder that never answers: 20 searches at once each answered within 2 s, and store pages stay quick")
    func geocoderNeverAnswers() throws {
        let geocoder = try BlackHole()
        let stack = try Stack(serveArguments: ["--geocoder-url", "http://127.0.0.1:\(geocoder.port)"])
        @Sendable func timed(_ path: String) throws -> (status: Int, seconds: Double, body: String) {
            let started = Date()
            let response = try stack.get(path)
            return (response.status, Date().timeIntervalSince(started), response.body)
        }
        // Each store page asked with an address of its own, so nginx's page cache cannot answer it.
        let usual = try (0..<10).map { try timed("/stores/1?before=\($0)").seconds }.max() ?? 0

        let searches = LockedResults()
        let all = DispatchGroup()
        for index in 0..<20 {
            all.enter()
            Thread {
                defer { all.leave() }
                if let answer = try? timed("/?q=Via+Roma+\(index)") {
                    searches.append("\(answer.status) \(answer.seconds < 2) "
                        + "\(answer.body.contains("Address search is not available right now."))")
                }
            }.start()
        }
        // While they are on their way, the store pages answer as quickly as usual: no page
        // thread is held by the geocoder.
        usleep(200_000)
        let during = try (0..<10).map { try timed("/stores/1?during=\($0)") }
        all.wait()
        #expect(during.allSatisfy { $0.status == 200 })
        let slowest = during.map(\.seconds).max() ?? 0
        #expect(slowest < max(0.5, 5 * usual), "store pages took up to \(slowest) s while searching, \(usual) s before")
        #expect(searches.values.count == 20)
        #expect(searches.values.allSatisfy { $0 == "200 true true" }, "\(searches.values)")
    }
}

/// Strings appended from several threads.
final class LockedResults: @unchecked Sendable {
    // @unchecked: `items` is guarded by `lock`.
    private let lock = NSLock()
    private var items: [String] = []

    func append(_ item: String) { lock.withLock { items.append(item) } }
    var values: [String] { lock.withLock { items } }
}
