import CFastCGI
import CThread
import Dispatch
import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A FastCGI responder over libfcgi: a fixed pool of OS threads, each owning one `FCGX_Request`
/// and blocking in `FCGX_Accept_r`, so blocking calls never occupy Swift's cooperative pool.
///
/// It may listen on several sockets, each with threads of its own: a request on one socket
/// never waits for a thread busy with another's (the entrance's scans are not queued behind
/// pages).
///
/// Each request is copied into a `FastCGIRequest` before the handler runs, and the response is
/// written with `FCGX_PutStr` (the variadic `FCGX_FPrintF` cannot be called from Swift).
/// SIGTERM or SIGINT stops accepting; requests in flight finish; `run` then returns.
public final class FastCGIServer: @unchecked Sendable {
    // @unchecked: the mutable state is `stopping`, guarded by `lock`; the listening descriptors
    // are written once in `init` and only read afterwards.

    /// Where the server listens.
    public enum Endpoint: Sendable, CustomStringConvertible {
        /// A unix socket at `path`, created with the given permission bits and, if given,
        /// owned by `group` (the web server's, so only it may connect).
        case unix(path: String, mode: mode_t, group: gid_t? = nil)
        /// TCP on 127.0.0.1 (for tests and benchmarks; production uses the unix socket).
        case tcp(port: Int)

        public var description: String {
            switch self {
            case .unix(let path, _, _): "unix:\(path)"
            case .tcp(let port): "127.0.0.1:\(port)"
            }
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
        case initFailed(Int32)
        case cannotListen(String, errno: Int32)

        public var description: String {
            switch self {
            case .initFailed(let code): "FCGX_Init failed with code \(code)"
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

    /// Opens the listening socket. Nothing is accepted until `run`.
    public init(configuration: Configuration, logger: Logger) throws {
        self.configuration = configuration
        self.logger = logger
        let code = FCGX_Init()
        guard code == 0 else { throw Error.initFailed(code) }
        var descriptors: [Int32] = []
        for listener in configuration.listeners {
            let fd: Int32
            switch listener.endpoint {
            case .unix(let path, let mode, let group):
                unlink(path)  // a socket left by a killed worker would make bind fail
                fd = FCGX_OpenSocket(path, configuration.backlog)
                guard fd >= 0 else { throw Error.cannotListen(listener.endpoint.description, errno: errno) }
                if let group, chown(path, uid_t.max, group) != 0 {
                    throw Error.cannotListen(listener.endpoint.description, errno: errno)
                }
                chmod(path, mode)
            case .tcp(let port):
                fd = FCGX_OpenSocket("127.0.0.1:\(port)", configuration.backlog)
                guard fd >= 0 else { throw Error.cannotListen(listener.endpoint.description, errno: errno) }
            }
            descriptors.append(fd)
        }
        listenFDs = descriptors
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
        FCGX_ShutdownPending()
        for fd in listenFDs { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// Serves requests on `configuration.threads` threads until SIGTERM, SIGINT or `stop()`.
    public func run(handler: @escaping Handler) {
        signal(SIGPIPE, SIG_IGN)  // a client gone mid-response must not kill the worker
        let signalQueue = DispatchQueue(label: "clup.fastcgi.signals")
        var sources: [DispatchSourceSignal] = []
        for number in [SIGTERM, SIGINT] {
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
                let thread = Thread { [self] in
                    #if os(Linux)
                    if niceness != 0 {
                        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(clup_thread_id()), niceness)
                    }
                    #endif
                    serveLoop(listenFD: fd, handler: handler)
                    group.leave()
                }
                thread.name = "fastcgi-\(listener.name)-\(index)"
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

    private func serveLoop(listenFD: Int32, handler: Handler) {
        var request = FCGX_Request()
        guard FCGX_InitRequest(&request, listenFD, 0) == 0 else {
            logger.critical("FCGX_InitRequest failed")
            return
        }
        defer { FCGX_Free(&request, 0) }
        while !isStopping {
            // A request accepted while stopping is still served: only a failed accept (the
            // listening socket shut down) ends the loop.
            guard FCGX_Accept_r(&request) >= 0 else {
                if isStopping { break }
                logger.error("FCGX_Accept_r failed: \(String(cString: strerror(errno)))")
                usleep(10_000)  // e.g. out of descriptors: back off instead of spinning
                continue
            }
            let incoming = readRequest(&request)
            let response = handler(incoming)
            write(response, to: &request, includeBody: incoming.params["REQUEST_METHOD"] != Array("HEAD".utf8))
            FCGX_Finish_r(&request)
        }
        if request.ipcFd >= 0 { FCGX_Finish_r(&request) }
    }

    /// Copies parameters and body out of libfcgi, whose buffers are freed by `FCGX_Finish_r`.
    private func readRequest(_ request: inout FCGX_Request) -> FastCGIRequest {
        var params: [String: [UInt8]] = [:]
        if var entry = request.envp {
            while let pointer = entry.pointee {
                let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self),
                                                count: strlen(pointer))
                if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
                    let name = String(decoding: bytes[..<equals], as: UTF8.self)
                    params[name] = Array(bytes[(equals + 1)...])
                }
                entry += 1
            }
        }
        // nginx buffers request bodies and always declares their length; no length means no body.
        let declaredLength = params["CONTENT_LENGTH"].flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
        if declaredLength > configuration.maxBodySize {
            return FastCGIRequest(params: params, bodyTooLarge: true)
        }
        var body = [UInt8](repeating: 0, count: max(0, declaredLength))
        var filled = 0
        while filled < body.count {
            let count = body.withUnsafeMutableBytes { buffer in
                Int(FCGX_GetStr(buffer.baseAddress!.assumingMemoryBound(to: CChar.self) + filled,
                                Int32(buffer.count - filled), request.in))
            }
            if count <= 0 { break }
            filled += count
        }
        body.removeSubrange(filled...)
        return FastCGIRequest(params: params, body: body)
    }

    private func write(_ response: FastCGIResponse, to request: inout FCGX_Request, includeBody: Bool) {
        let head = Array(response.head.utf8)
        let out = request.out
        head.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { _ = FCGX_PutStr($0.baseAddress, Int32($0.count), out) }
        }
        guard includeBody, !response.body.isEmpty else { return }
        response.body.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { _ = FCGX_PutStr($0.baseAddress, Int32($0.count), out) }
        }
    }
}
