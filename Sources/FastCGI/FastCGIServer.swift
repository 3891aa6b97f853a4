import CThread
import Dispatch
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A FastCGI responder: a fixed pool of OS threads per listening socket, each accepting a
/// connection and serving its requests with blocking calls, so they never occupy Swift's
/// cooperative pool. The wire format is read by `FastCGIConnectionState` (pure Swift).
///
/// It may listen on several sockets, each with threads of its own: a request on one socket
/// never waits for a thread busy with another's (the entrance's scans are not queued behind
/// pages).
///
/// Each request is handed to the handler whole (`FastCGIRequest`, Sendable), and its response
/// leaves as STDOUT records and END_REQUEST in one buffer.
/// SIGTERM or SIGINT stops accepting; requests in flight finish; `run` then returns.
public final class FastCGIServer: @unchecked Sendable {
    // @unchecked: the mutable state is `stopping` and `lastRefusalLogged`, guarded by `lock`; the listening descriptors
    // are written once in `init` and only read afterwards.

    /// Where the server listens.
    public enum Endpoint: Sendable, CustomStringConvertible {
        /// A unix socket at `path`, created with the given permission bits and, if given,
        /// owned by `group` (the web server's, so only it may connect).
        case unix(path: String, mode: mode_t, group: gid_t? = nil)
        /// TCP on 127.0.0.1 (for tests and benchmarks; production uses the unix socket).
        case tcp(port: Int)
        /// TCP on `address` (an IPv4 or IPv6 address of this host, for web servers on other
        /// hosts), answering only peers in `allowed`: anyone else's connection is closed unread.
        case network(address: String, port: Int, allowed: [PeerNetwork])

        public var description: String {
            switch self {
            case .unix(let path, _, _): "unix:\(path)"
            case .tcp(let port): "127.0.0.1:\(port)"
            case .network(let address, let port, _): address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)"
            }
        }

        /// The peers it answers; nil for any (a unix socket's permissions, or loopback, decide).
        var allowed: [PeerNetwork]? {
            if case .network(_, _, let allowed) = self { return allowed }
            return nil
        }
    }

    /// A socket and the threads that serve it.
    public struct Listener: Sendable {
        public var endpoint: Endpoint
        /// Worker threads; each serves one request at a time.
        public var threads: Int
        /// Names the threads (`fastcgi-pages-0`).
        public var name: String
        /// The threads' nice value (Linux schedules threads one by one): a higher value yields
        /// the CPU to the other listeners' threads when both have work.
        public var niceness: Int32

        public init(endpoint: Endpoint, threads: Int, name: String = "main", niceness: Int32 = 0) {
            self.endpoint = endpoint
            self.threads = max(1, threads)
            self.name = name
            self.niceness = niceness
        }
    }

    public struct Configuration: Sendable {
        public var listeners: [Listener]
        /// Bodies larger than this are answered without being read.
        public var maxBodySize: Int
        public var backlog: Int32
        /// Whether `run` sets the process's signals: SIGPIPE ignored, SIGTERM and SIGINT
        /// stopping the server. Off for a server that is a guest in another process (a test),
        /// whose children would otherwise inherit SIGTERM and SIGINT ignored.
        public var ownsSignals = true

        public init(listeners: [Listener], maxBodySize: Int, backlog: Int32 = 1024) {
            self.listeners = listeners
            self.maxBodySize = maxBodySize
            self.backlog = backlog
        }

        /// One socket.
        public init(endpoint: Endpoint, threads: Int, maxBodySize: Int, backlog: Int32 = 1024) {
            self.init(listeners: [Listener(endpoint: endpoint, threads: threads)], maxBodySize: maxBodySize,
                      backlog: backlog)
        }
    }

    public enum Error: Swift.Error, CustomStringConvertible {
        case cannotListen(String, errno: Int32)

        public var description: String {
            switch self {
            case .cannotListen(let endpoint, let code):
                "cannot listen on \(endpoint): \(String(cString: strerror(code)))"
            }
        }
    }

    public typealias Handler = @Sendable (FastCGIRequest) -> FastCGIResponse

    private let configuration: Configuration
    private let logger: Logger
    private let listenFDs: [Int32]
    private let lock = NSLock()
    private var stopping = false
    /// When a refused peer was last logged (`refused`), guarded by `lock`.
    private var lastRefusalLogged: ContinuousClock.Instant?

    /// Opens the listening sockets. Nothing is accepted until `run`.
    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        var descriptors: [Int32] = []
        for listener in configuration.listeners {
            let fd: Int32
            switch listener.endpoint {
            case .unix(let path, let mode, let group):
                unlink(path)  // a socket left by a killed worker would make bind fail
                fd = try Self.listen(endpoint: listener.endpoint, backlog: configuration.backlog)
                if let group, chown(path, uid_t.max, group) != 0 {
                    throw Error.cannotListen(listener.endpoint.description, errno: errno)
                }
                chmod(path, mode)
            case .tcp, .network:
                fd = try Self.listen(endpoint: listener.endpoint, backlog: configuration.backlog)
            }
            descriptors.append(fd)
        }
        listenFDs = descriptors
    }

    /// A listening socket: a unix one at its path, or TCP on the loopback address.
    private static func listen(endpoint: Endpoint, backlog: Int32) throws -> Int32 {
        switch endpoint {
        case .unix(let path, _, _):
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else {
                throw Error.cannotListen(endpoint.description, errno: ENAMETOOLONG)
            }
            withUnsafeMutableBytes(of: &address.sun_path) { buffer in
                for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
            }
            return try listen(family: AF_UNIX, address: address, endpoint: endpoint, backlog: backlog)
        case .tcp(let port):
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
            return try listen(family: AF_INET, address: address, endpoint: endpoint, backlog: backlog)
        case .network(let host, let port, _):
            guard (1...65535).contains(port) else { throw Error.cannotListen(endpoint.description, errno: EINVAL) }
            if host.contains(":") {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = in_port_t(UInt16(port).bigEndian)
                guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                    throw Error.cannotListen(endpoint.description, errno: EINVAL)
                }
                return try listen(family: AF_INET6, address: address, endpoint: endpoint, backlog: backlog)
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
                throw Error.cannotListen(endpoint.description, errno: EINVAL)
            }
            return try listen(family: AF_INET, address: address, endpoint: endpoint, backlog: backlog)
        }
    }

    private static func listen<Address>(family: Int32, address: Address, endpoint: Endpoint,
                                        backlog: Int32) throws -> Int32 {
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Error.cannotListen(endpoint.description, errno: errno) }
        var on: Int32 = 1
        if family != AF_UNIX { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) }
        var address = address
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw Error.cannotListen(endpoint.description, errno: code)
        }
        return fd
    }

    private var isStopping: Bool {
        lock.withLock { stopping }
    }

    /// Stops accepting new requests. Threads finish the request they hold, then `run` returns.
    ///
    /// `shutdown` on a listening socket wakes every thread blocked in `accept` on Linux, which
    /// a flag alone would not.
    public func stop() {
        let first = lock.withLock {
            defer { stopping = true }
            return !stopping
        }
        guard first else { return }
        for fd in listenFDs { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Serves requests on `configuration.threads` threads until SIGTERM, SIGINT or `stop()`.
    public func run(handler: @escaping Handler) {
        if configuration.ownsSignals {
            signal(SIGPIPE, SIG_IGN)  // a client gone mid-response must not kill the worker
        }
        let signalQueue = DispatchQueue(label: "clup.fastcgi.signals")
        var sources: [DispatchSourceSignal] = []
        for number in configuration.ownsSignals ? [SIGTERM, SIGINT] : [] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
            source.setEventHandler { [weak self] in
                self?.logger.info("signal \(number): finishing requests in flight, then exiting")
                self?.stop()
            }
            source.resume()
            sources.append(source)
        }
        defer { sources.forEach { $0.cancel() } }

        let group = DispatchGroup()
        for (listener, fd) in zip(configuration.listeners, listenFDs) {
            logger.info("listening on \(listener.endpoint) with \(listener.threads) threads (\(listener.name))")
            for index in 0..<listener.threads {
                group.enter()
                let niceness = listener.niceness
                let name = "\(listener.name)-\(index)"
                let thread = Thread { [self] in
                    #if os(Linux)
                    clup_name_thread(name)  // Foundation does not pass its own name to the kernel
                    if niceness != 0 {
                        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(clup_thread_id()), niceness)
                    }
                    #endif
                    serveLoop(listenFD: fd, allowed: listener.endpoint.allowed, handler: handler)
                    group.leave()
                }
                thread.name = "fastcgi-" + name
                thread.start()
            }
        }
        group.wait()
        for (listener, fd) in zip(configuration.listeners, listenFDs) {
            close(fd)
            if case .unix(let path, _, _) = listener.endpoint { unlink(path) }
        }
        logger.info("stopped")
    }

    private func serveLoop(listenFD: Int32, allowed: [PeerNetwork]?, handler: Handler) {
        var readBuffer = [UInt8](repeating: 0, count: 64 * 1024)
        while !isStopping {
            // A connection accepted while stopping is still served: only a failed accept (the
            // listening socket shut down) ends the loop.
            var peer = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let connection = withUnsafeMutablePointer(to: &peer) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listenFD, $0, &length) }
            }
            guard connection >= 0 else {
                if isStopping { break }
                if errno == EINTR || errno == ECONNABORTED { continue }
                logger.error("accept failed: \(String(cString: strerror(errno)))")
                usleep(10_000)  // e.g. out of descriptors: back off instead of spinning
                continue
            }
            _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
            if let allowed {
                let address = Self.address(of: &peer)
                guard let address, allowed.contains(where: { $0.contains(address) }) else {
                    refused(address)
                    close(connection)
                    continue
                }
            }
            serve(connection: connection, handler: handler, readBuffer: &readBuffer)
            close(connection)
        }
    }

    /// The peer's address bytes (4 or 16), from what `accept` filled in.
    private static func address(of peer: inout sockaddr_storage) -> [UInt8]? {
        switch Int32(peer.ss_family) {
        case AF_INET:
            return withUnsafeBytes(of: &peer) { raw in
                let address = raw.load(as: sockaddr_in.self).sin_addr
                return withUnsafeBytes(of: address) { Array($0) }
            }
        case AF_INET6:
            return withUnsafeBytes(of: &peer) { raw in
                let address = raw.load(as: sockaddr_in6.self).sin6_addr
                return withUnsafeBytes(of: address) { Array($0) }
            }
        default:
            return nil
        }
    }

    /// Says that a peer outside the allowed networks was refused: at most once a second, so a
    /// stranger knocking cannot fill the log.
    private func refused(_ address: [UInt8]?) {
        let now = ContinuousClock.now
        let say = lock.withLock {
            guard lastRefusalLogged.map({ now - $0 >= .seconds(1) }) ?? true else { return false }
            lastRefusalLogged = now
            return true
        }
        guard say else { return }
        let who = address.flatMap { bytes in PeerNetwork.address(bytes: bytes) } ?? "an unknown address"
        logger.warning("refused a FastCGI connection from \(who): not among the allowed networks")
    }

    /// Reads requests off one connection and answers them, until the web server closes it, does
    /// not ask to keep it, breaks the protocol or stays silent past `peerTimeout`.
    private func serve(connection fd: Int32, handler: Handler, readBuffer: inout [UInt8]) {
        var timeout = timeval(tv_sec: Self.peerTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var state = FastCGIConnectionState(limits: .init(maxBodySize: configuration.maxBodySize))
        while true {
            let count = readBuffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            state.append(readBuffer[..<count])
            do {
                while let event = try state.next() {
                    switch event {
                    case .reply(let bytes):
                        guard writeAll(fd, bytes) else { return }
                    case .aborted(let requestID, let keepConnection):
                        var output: [UInt8] = []
                        FastCGIRecords.appendEndRequest(requestID: requestID, appStatus: 1, to: &output)
                        guard writeAll(fd, output), keepConnection, !isStopping else { return }
                    case .request(let request, let requestID, let keepConnection):
                        let response = handler(request)
                        let includeBody = request.params["REQUEST_METHOD"] != Array("HEAD".utf8)
                        guard writeAll(fd, Self.encode(response, requestID: requestID, includeBody: includeBody)),
                              keepConnection, !isStopping else { return }
                        state.answered()
                    }
                }
            } catch {
                logger.warning("closing a FastCGI connection: \(error)")
                return
            }
        }
    }

    /// How long a connection may stay silent mid-request, or refuse to take the answer, before
    /// its thread gives up on it (nginx sends a whole request at once and reads at once).
    static let peerTimeout = 30

    /// The response as STDOUT records (the CGI head, then the body), the empty record that ends
    /// them, and END_REQUEST: one buffer, so a page usually leaves in one write.
    public static func encode(_ response: FastCGIResponse, requestID: UInt16, includeBody: Bool) -> [UInt8] {
        let head = Array(response.head.utf8)
        let body = includeBody ? response.body : []
        var output: [UInt8] = []
        output.reserveCapacity(head.count + body.count + 64 + (body.count / FastCGIRecords.maxAlignedContent) * 8)
        FastCGIRecords.appendRecords(type: .stdout, requestID: requestID, bytes: head, to: &output)
        FastCGIRecords.appendStream(type: .stdout, requestID: requestID, bytes: body, to: &output)
        FastCGIRecords.appendEndRequest(requestID: requestID, to: &output)
        return output
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return false }
            written += count
        }
        return true
    }
}
