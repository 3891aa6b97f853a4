import ArgumentParser
import FastCGI
import Foundation

/// Asks a worker for `/healthz?live` over its own FastCGI socket, as nginx would, and says
/// whether it answered in time: the liveness check a supervisor runs (`scripts/run`, the
/// production unit's watchdog). It asks nothing of the database, so a worker waiting on a
/// lock held elsewhere is not taken for a hung one; silence or a refused connection fails.
struct Probe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask a worker for /healthz over its FastCGI socket; exit 0 if it answers within the timeout.")

    @Option(help: "The worker's unix socket (its entrance socket has threads of its own, so busy pages do not delay the answer).")
    var socket: String

    @Option(help: "Seconds to wait for the answer.")
    var timeout: Double = 3

    func run() throws {
        switch FastCGIProbe.ask(socket: socket, path: "/healthz?live", timeout: timeout) {
        case .answered(let status):
            print(status)
        case .failed(let reason):
            print(reason)
            throw ExitCode(1)
        }
    }
}

/// A minimal FastCGI client: one GET, no body, the status read back.
enum FastCGIProbe {
    enum Outcome: Equatable {
        case answered(String)
        case failed(String)
    }

    static func ask(socket path: String, path uri: String, timeout: Double) -> Outcome {
        let fd = Foundation.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return .failed("no socket: errno \(errno)") }
        defer { close(fd) }
        var seconds = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &seconds, socklen_t(MemoryLayout<timeval>.size))
        guard var address = unixAddress(Array(path.utf8)) else { return .failed("socket path too long") }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return .failed("cannot connect: errno \(errno)") }

        let parts = uri.split(separator: "?", maxSplits: 1).map(String.init)
        let params: [(name: String, value: String)] = [
            ("REQUEST_METHOD", "GET"), ("REQUEST_URI", uri), ("DOCUMENT_URI", parts[0]), ("SCRIPT_NAME", parts[0]),
            ("QUERY_STRING", parts.count > 1 ? parts[1] : ""), ("SERVER_PROTOCOL", "HTTP/1.1"), ("REMOTE_ADDR", "127.0.0.1"),
            ("SERVER_NAME", "localhost"), ("SERVER_PORT", "0"), ("GATEWAY_INTERFACE", "CGI/1.1"),
        ]
        var message: [UInt8] = []
        // BEGIN_REQUEST: responder, close after; the parameters; an empty body.
        FastCGIRecords.append(type: .beginRequest, requestID: 1, content: [0, 1, 0, 0, 0, 0, 0, 0], to: &message)
        FastCGIRecords.appendStream(type: .params, requestID: 1, bytes: FastCGIRecords.encodePairs(params), to: &message)
        FastCGIRecords.appendStream(type: .stdin, requestID: 1, bytes: [], to: &message)
        guard message.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == message.count else {
            return .failed("cannot send: errno \(errno)")
        }

        // Read records until END_REQUEST (type 3); the status is in the first STDOUT (type 6).
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        let deadline = Date() + timeout
        while Date() < deadline {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            received += buffer[..<count]
            if let status = status(in: received) { return .answered(status) }
        }
        return .failed(received.isEmpty ? "no answer within \(timeout) s" : "an incomplete answer")
    }

    /// The status of a complete answer: the STDOUT records' "Status:" header, once END_REQUEST
    /// has arrived.
    private static func status(in bytes: [UInt8]) -> String? {
        var rest = bytes[...]
        var output: [UInt8] = []
        while let record = try? FastCGIRecords.record(in: rest) {
            if record.type == FastCGIRecordType.stdout.rawValue { output += record.content }
            if record.type == FastCGIRecordType.endRequest.rawValue {
                let head = String(decoding: output.prefix(200), as: UTF8.self)
                let line = head.split(separator: "\r\n").first { $0.hasPrefix("Status:") }
                return line.map { $0.dropFirst("Status:".count).trimmingCharacters(in: .whitespaces) } ?? "200 OK"
            }
            rest = rest.dropFirst(record.length)
        }
        return nil
    }
}

/// Tells systemd how the worker is (`sd_notify`, without libsystemd): READY=1 once it listens,
/// and — when the unit sets `WatchdogSec` — WATCHDOG=1 only while it answers a probe over its
/// own entrance socket, so a worker that hangs stops the pings and systemd replaces it.
enum SystemdNotify {
    static func send(_ state: String) {
        guard let path = ProcessInfo.processInfo.environment["NOTIFY_SOCKET"], !path.isEmpty else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var bytes = Array(path.utf8)
        if bytes.first == UInt8(ascii: "@") { bytes[0] = 0 }  // an abstract socket's name starts with a NUL
        guard var address = unixAddress(bytes) else { return }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        _ = Array(state.utf8).withUnsafeBytes { message in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(fd, message.baseAddress, message.count, 0, $0, length)
                }
            }
        }
    }

    /// With `WatchdogSec` set (systemd passes `WATCHDOG_USEC`), probes `socket` three times per
    /// period from a thread of its own and pings systemd after each answer.
    static func startWatchdog(probing socket: String) {
        guard let micros = ProcessInfo.processInfo.environment["WATCHDOG_USEC"].flatMap(Double.init), micros > 0 else {
            return
        }
        let period = micros / 1_000_000 / 3
        let thread = Thread {
            while true {
                Thread.sleep(forTimeInterval: period)
                if case .answered = FastCGIProbe.ask(socket: socket, path: "/healthz?live", timeout: period) {
                    send("WATCHDOG=1")
                }
            }
        }
        thread.name = "watchdog"
        thread.start()
    }
}

/// A unix socket's address for `path` (its bytes, NUL-terminated by the zeroed struct); nil if
/// the path is too long for one.
func unixAddress(_ path: [UInt8]) -> sockaddr_un? {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    guard path.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
    return address
}
