import CLupData
import CLupDomain
import CLupSupport
import CLupWeb
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The real deployment on loopback: the `clup` worker on a unix socket with a temporary SQLite
/// file, and nginx on a free port with the configuration `clup nginx-config` writes. Or, with
/// a PostgreSQL URL, several workers over it, each on a socket of its own or on a host of its
/// own (`WorkerHost`), nginx in front.
// @unchecked: the processes it holds are started and killed by the test's own thread; what
// other threads call (HTTP through curl, running commands) shares nothing.
final class Stack: @unchecked Sendable {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// The `clup` executable built beside this test bundle (`swift build --build-tests` builds both).
    static var clupBinary: String {
        if let path = ProcessInfo.processInfo.environment["CLUP_BIN"] { return path }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("clup").path
    }

    static var nginxBinary: String {
        ["/usr/sbin/nginx", "/usr/bin/nginx"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "nginx"
    }

    let directory: String
    let port: Int
    let database: String
    /// PostgreSQL instead of `database`, if given.
    let databaseURL: String?
    /// The server secret the worker signs QR codes with, so tests can verify them.
    let secret = "end-to-end secret, long enough to key an HMAC"
    var socket: String { directory + "/clup.sock" }
    /// Each worker's socket: `clup.sock`, then `clup-2.sock`…
    let sockets: [String]
    /// The workers after the first, by their index in `sockets`.
    private(set) var others: [Int: Process] = [:]
    /// `--database` or `--database-url`, for every command.
    var databaseArguments: [String] { databaseURL.map { ["--database-url", $0] } ?? ["--database", database] }
    /// The worker's clock is real time plus the seconds this file holds (see `advanceClock`).
    var clockFile: String { directory + "/clock-offset" }
    private(set) var worker: Process?
    private var nginx: Process?

    var baseURL: String { "http://127.0.0.1:\(port)" }
    var accessLog: String { directory + "/access.log" }

    /// Extra arguments for `clup serve` (e.g. an SMTP server).
    private let serveArguments: [String]

    /// A worker on a host of its own (a network namespace): `run` runs a command there, and the
    /// worker listens on `address`, port 9000 (its entrance on 9001), for nginx's address
    /// `web` alone, as a worker on another machine than nginx does.
    struct WorkerHost {
        var run: [String]
        var address: String
        var web: String
    }
    /// The workers' hosts, if they are not on this one.
    private let hosts: [WorkerHost]
    static let workerPort = 9000

    /// `directory`: where the database, socket and logs go (a fresh temporary folder if nil).
    init(maxBody: String = "64k", serveArguments: [String] = [], directory chosen: String? = nil,
         databaseURL: String? = nil, workers: Int = 1, hosts: [WorkerHost] = []) throws
    {
        self.serveArguments = serveArguments
        self.databaseURL = databaseURL
        self.hosts = hosts
        let workers = hosts.isEmpty ? workers : hosts.count
        let directory = chosen ?? NSTemporaryDirectory() + "clup-e2e-" + UUID().uuidString.prefix(8)
        self.directory = directory
        sockets = (1...max(1, workers)).map { $0 == 1 ? directory + "/clup.sock" : directory + "/clup-\($0).sock" }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o755)  // nginx's workers run unprivileged and must reach the socket
        database = directory + "/clup.sqlite"
        try secret.write(toFile: directory + "/secret", atomically: true, encoding: .utf8)
        // Every command this stack runs seals with the scratch key, which the test opens its
        // database with too (one process, one key).
        try DataKey.scratchSecret.write(toFile: directory + "/data-key", atomically: true, encoding: .utf8)
        try "0".write(toFile: directory + "/clock-offset", atomically: true, encoding: .utf8)
        port = try Self.freePort()
        try Self.check(FileManager.default.isExecutableFile(atPath: Self.clupBinary),
                       "clup is not built at \(Self.clupBinary); run scripts/test")
        _ = try run(Self.clupBinary, ["migrate"] + databaseArguments)
        _ = try run(Self.clupBinary, ["seed-demo", "--weeks", "0"] + databaseArguments)
        _ = try run(Self.clupBinary, ["generate", "--public",
                                      Self.root + "/Public", "--output", Self.root + "/Public/errors"])
        let upstreams = hosts.isEmpty
            ? sockets.flatMap { ["--socket", $0] }
            : hosts.flatMap { ["--worker", "\($0.address):\(Self.workerPort)"] }
        let config = try run(Self.clupBinary, [
            "nginx-config", "--template", Self.root + "/nginx/clup-local.conf.in", "--port", String(port),
            "--run-dir", directory, "--public", Self.root + "/Public",
        ] + upstreams + [
            "--nginx-dir", Self.root + "/nginx", "--max-body", maxBody, "--access-log", accessLog,
            "--user", Self.nginxUser,
        ])
        try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        try startWorker()
        for index in sockets.indices.dropFirst() { try startWorker(index) }
        // As scripts/run starts it: logs 0640 (umask 027).
        let nginx = try launch("/bin/sh", ["-c", "umask 027; exec \"$0\" \"$@\"", Self.nginxBinary,
                                           "-e", directory + "/nginx-error.log", "-p", directory,
                                           "-c", directory + "/nginx.conf"])
        self.nginx = nginx
        try waitUntil("nginx answers on port \(port)") { (try? self.get("/healthz").status) == 200 }
    }

    /// Starts worker `index` (0: the first, `worker`) on its socket, or its host.
    func startWorker(_ index: Int = 0) throws {
        let serve = ["serve"] + databaseArguments + [
            "--threads", "4", "--public", Self.root + "/Public", "--max-body", "65536",
            "--base-url", baseURL, "--mail-dir", directory + "/mail", "--secret-file", directory + "/secret",
            "--vapid-key-file", directory + "/vapid-key", "--clock-offset-file", clockFile,
        ] + serveArguments
        if hosts.isEmpty {
            let socket = sockets[index]
            keep(try launch(Self.clupBinary, serve + [
                "--socket", socket, "--socket-mode", "0660", "--socket-group", Self.nginxGroup,
            ]), as: index)
            try waitUntil("the worker's socket appears") { FileManager.default.fileExists(atPath: socket) }
        } else {
            let host = hosts[index]
            keep(try launch(host.run[0], Array(host.run.dropFirst()) + [Self.clupBinary] + serve + [
                "--listen", "\(host.address):\(Self.workerPort)", "--allow-from", host.web,
            ]), as: index)
            try waitUntil("the worker on \(host.address) takes connections") {
                guard let fd = Self.connect(from: host.web, to: host.address, port: Self.workerPort) else { return false }
                close(fd)
                return true
            }
        }
    }

    private func keep(_ process: Process, as index: Int) {
        if index == 0 { worker = process } else { others[index] = process }
    }

    /// Kills worker `index` as a crash would (SIGKILL), leaving it dead.
    func killWorker(_ index: Int) {
        guard let process = index == 0 ? worker : others[index] else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        if index == 0 { worker = nil } else { others[index] = nil }
    }

    /// The user nginx's workers run as when nginx starts as root (made by scripts/test), and
    /// its group: the only one given the worker's socket.
    static let nginxUser = geteuid() == 0 ? "clup-nginx" : String(cString: getpwuid(geteuid()).pointee.pw_name)
    static let nginxGroup: String = {
        guard let user = getpwnam(nginxUser), let group = getgrgid(user.pointee.pw_gid) else { return "nogroup" }
        return String(cString: group.pointee.gr_name)
    }()

    /// The worker's time now.
    var now: Date {
        Date() + (Double((try? String(contentsOfFile: clockFile, encoding: .utf8)) ?? "0") ?? 0)
    }

    /// Moves the worker's clock `seconds` forward, without waiting.
    func advanceClock(by seconds: TimeInterval) throws {
        let offset = Double((try? String(contentsOfFile: clockFile, encoding: .utf8)) ?? "0") ?? 0
        try String(offset + seconds).write(toFile: clockFile, atomically: true, encoding: .utf8)
    }

    /// Kills the worker as a crash would (SIGKILL: no cleanup), then starts a new one and waits
    /// until it answers through nginx.
    func crashAndRestartWorker() throws {
        guard let worker else { return }
        kill(worker.processIdentifier, SIGKILL)
        worker.waitUntilExit()
        self.worker = nil
        try FileManager.default.removeItem(atPath: socket)
        try startWorker()
        try waitUntil("the new worker answers") { (try? self.get("/healthz").status) == 200 }
    }

    /// Kills the worker and nginx at once, as a power cut would (SIGKILL: no cleanup, no last
    /// write); the stack is not restarted.
    func killEverything() {
        var pids = [worker, nginx].compactMap { $0?.processIdentifier }
        // nginx's own workers outlive a killed master: they go too.
        if let master = nginx?.processIdentifier { pids += Self.children(of: master) }
        for pid in pids { kill(pid, SIGKILL) }
        try? waitUntil("every process of the stack is gone", seconds: 10) { pids.allSatisfy(Self.isGone) }
    }

    /// The direct children of `pid` (Linux's /proc).
    static func children(of pid: pid_t) -> [pid_t] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0) }
    }

    /// Exited (a zombie not yet reaped counts: it runs nothing and holds no socket).
    static func isGone(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return true }
        return stat[stat.index(close, offsetBy: 2)] == "Z"
    }

    /// Sends SIGTERM to the worker and returns its exit status.
    func stopWorker() throws -> Int32 {
        guard let worker else { return 0 }
        worker.terminate()
        try waitUntil("the worker exits") { !worker.isRunning }
        self.worker = nil
        return worker.terminationStatus
    }

    deinit {
        for process in ([worker, nginx] + others.values.map { $0 }).compactMap({ $0 }) where process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    // MARK: HTTP through curl, as a user's client would see it

    struct HTTPResponse {
        var status: Int
        var headers: [String: String]
        var cookies: [String] = []
        var body: String

        func header(_ name: String) -> String? { headers[name.lowercased()] }
        /// The Set-Cookie value for cookie `name`.
        func cookie(_ name: String) -> String? { cookies.last { $0.hasPrefix(name + "=") } }
    }

    func get(_ path: String) throws -> HTTPResponse {
        try curl([baseURL + path])
    }

    /// Waits until the worker serves store `id`, which was written from outside it (as `clup
    /// admin` does): the worker picks up other processes' writes within about a second.
    func waitForStore(_ id: StoreID) throws {
        let deadline = Date() + 10
        while try get("/stores/\(id)").status != 200 {
            guard Date() < deadline else { throw StackError("store \(id) never appeared in the worker") }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    func post(_ path: String, body: String, contentType: String = "application/x-www-form-urlencoded") throws
        -> HTTPResponse
    {
        let file = directory + "/body-" + UUID().uuidString
        try body.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        return try curl(["-X", "POST", "-H", "Content-Type: \(contentType)", "--data-binary", "@" + file, baseURL + path])
    }

    func curl(_ arguments: [String]) throws -> HTTPResponse {
        try Self.parse(try run("/usr/bin/curl", ["-s", "-S", "-i", "--max-time", "10", "--globoff"] + arguments))
    }

    /// An HTTP response as `curl -i` writes it.
    static func parse(_ output: String) throws -> HTTPResponse {
        guard let split = output.range(of: "\r\n\r\n") else { throw StackError("no HTTP head in: \(output)") }
        let headLines = output[..<split.lowerBound].components(separatedBy: "\r\n")
        let status = Int(headLines[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        var cookies: [String] = []
        for line in headLines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = value
            if name == "set-cookie" { cookies.append(value) }
        }
        return HTTPResponse(status: status, headers: headers, cookies: cookies, body: String(output[split.upperBound...]))
    }

    // MARK: Processes

    struct StackError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Runs `body(0)` … `body(count - 1)` each on a thread of its own, all at once, and
    /// waits for them all. (`DispatchQueue.concurrentPerform` runs only as many at once as
    /// there are cores: on two, a third loop would start only when one of the first ended.)
    static func together(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        for index in 0..<count {
            group.enter()
            Thread.detachNewThread {
                body(index)
                group.leave()
            }
        }
        group.wait()
    }

    static func check(_ condition: Bool, _ message: String) throws {
        if !condition { throw StackError(message) }
    }

    @discardableResult
    func run(_ executable: String, _ arguments: [String]) throws -> String {
        let (status, output) = try finish(executable, arguments, keeping: .standardOutput)
        try Self.check(status == 0, "\(executable) \(arguments.joined(separator: " ")) failed")
        return output
    }

    /// Runs `clup` with `arguments` where it may refuse: its exit status and what it said on
    /// standard error (`run` throws on a failure and drops the message).
    func clupRefusal(_ arguments: [String]) throws -> (status: Int32, said: String) {
        let (status, said) = try finish(Self.clupBinary, arguments, keeping: .standardError)
        return (status, said)
    }

    /// Runs `executable` to its end: its exit status and what it wrote on the one stream kept
    /// (the other goes to /dev/null). Through `ChildProcess` (posix_spawn), not Foundation's
    /// `Process`, whose `run()` reads past the end of a directory entry while closing the
    /// parent's descriptors and now and then faults (swift-corelibs-foundation#5472): the
    /// tests spawn curl and clup hundreds of times.
    private func finish(_ executable: String, _ arguments: [String], keeping stream: ChildProcess.Stream)
        throws -> (status: Int32, text: String)
    {
        let outcome = try ChildProcess.run(executable, arguments, reading: stream, environment: environment)
        return (outcome.status, outcome.text)
    }

    /// This process's environment, with the stack's data key for every `clup` it runs.
    var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["CLUP_DATA_KEY_FILE": directory + "/data-key"]) { $1 }
    }

    func launch(_ executable: String, _ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        return process
    }

    func waitUntil(_ what: String, seconds: Double = 15, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return }
            usleep(50_000)
        }
        throw StackError("timed out waiting until \(what)")
    }

    /// A TCP connection from a chosen loopback address to `destination`:`port`; nil if it
    /// could not be made.
    static func connect(from source: String, to destination: String, port: Int) -> Int32? {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        remote.sin_addr.s_addr = inet_addr(destination)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    static func freePort() throws -> Int {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        try check(bound == 0, "no free port")
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// A browser's view over curl: a cookie jar, and forms posted with the CSRF token of the last
/// page loaded.
final class Client {
    let stack: Stack
    let jar: String
    private(set) var csrf: String?

    init(_ stack: Stack) {
        self.stack = stack
        jar = stack.directory + "/cookies-" + UUID().uuidString
    }

    @discardableResult
    func get(_ path: String) throws -> Stack.HTTPResponse {
        remember(try stack.curl(["-b", jar, "-c", jar, stack.baseURL + path]))
    }

    /// Opens a link from an email, following its redirect to the clean address (`EmailedLink`).
    @discardableResult
    func open(_ link: String) throws -> Stack.HTTPResponse {
        let first = try get(link)
        guard first.status == 303, let location = first.header("Location"), location.hasPrefix("/") else { return first }
        return try get(location)
    }

    @discardableResult
    func post(_ path: String, _ fields: [(String, String)]) throws -> Stack.HTTPResponse {
        let pairs = (fields + [("csrf", csrf ?? "")]).map { (name: $0.0, value: $0.1) }
        let body = stack.directory + "/form-" + UUID().uuidString
        try FormData(pairs: pairs).urlEncoded.write(toFile: body, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: body) }
        return remember(try stack.curl(["-b", jar, "-c", jar, "-H", "Content-Type: application/x-www-form-urlencoded",
                                        "--data-binary", "@" + body, stack.baseURL + path]))
    }

    private func remember(_ response: Stack.HTTPResponse) -> Stack.HTTPResponse {
        if let match = response.body.firstMatch(of: /name="csrf" value="([^"]*)"/) { csrf = String(match.1) }
        return response
    }
}

/// A real SMTP server on loopback (Python's aiosmtpd from Debian) storing what it receives in
/// a Maildir.
final class MailServer {
    let port: Int
    let maildir: String
    private let process: Process

    init(directory: String) throws {
        port = try Stack.freePort()
        maildir = directory + "/maildir"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-m", "aiosmtpd", "-n", "-l", "127.0.0.1:\(port)", "-c", "aiosmtpd.handlers.Mailbox", maildir]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: maildir + "/new"), Date() < deadline { usleep(50_000) }
    }

    deinit {
        // aiosmtpd ignores SIGTERM; it holds nothing that needs a clean shutdown.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    var url: String { "smtp://127.0.0.1:\(port)" }

    /// Waits for a message to `recipient` with `subject` and returns it whole. Found by
    /// subject, not by position: Maildir names do not sort in arrival order within a second.
    func message(to recipient: String, subject: String, timeout: Double = 15) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: maildir + "/new")) ?? []
            if let message = files.lazy.compactMap({ try? String(contentsOfFile: self.maildir + "/new/" + $0, encoding: .utf8) })
                .first(where: { $0.contains("To: \(recipient)") && $0.contains("Subject: \(subject)") })
            {
                return message
            }
            usleep(100_000)
        }
        throw Stack.StackError("no message \"\(subject)\" to \(recipient) within \(timeout) s")
    }

    /// The site-relative link `path?token=…` in a message.
    static func link(_ path: String, in message: String) throws -> String {
        guard let match = message.firstMatch(of: /https?:\/\/[^\/\s]+(\/[a-z]+\?token=[A-Za-z0-9_-]+)/),
            match.1.hasPrefix(path)
        else { throw Stack.StackError("no \(path) link in: \(message)") }
        return String(match.1)
    }
}
