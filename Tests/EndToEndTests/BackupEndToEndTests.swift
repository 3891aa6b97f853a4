import CLupData
import CLupSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Continuous backup with Litestream, as `scripts/run` and the production unit run it: the
/// whole stack killed mid-load, the database restored into an empty folder from the replica
/// alone, checked whole, and every write acknowledged more than 10 seconds before the kill
/// found in it (the recovery point objective), within a minute (the recovery time objective).
@Suite("Backup and restore", .serialized)
struct BackupEndToEndTests {
    static var litestream: String {
        ProcessInfo.processInfo.environment["CLUP_LITESTREAM"] ?? Stack.root + "/.build/backup-tools/bin/litestream"
    }

    /// An acknowledged walk-in ticket: its reservation and when its 201 came back.
    struct Acknowledged {
        var id: Int64
        var at: Date
    }

    @Test("killed mid-load, restored into an empty folder: whole, and nothing acknowledged 10 s before the kill lost")
    func killRestoreCheck() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.litestream),
                     "Litestream is not installed at \(Self.litestream); run scripts/test")
        let stack = try Stack()
        let storeId = try EntranceEndToEndTests.store(stack, name: "Copia Sicura", capacity: 10_000, walkInPercent: 90)
        let key = try EntranceEndToEndTests.enrolKiosk(stack, store: storeId)
        // Someone with a name and an address, which the replica must not hold in clear.
        _ = try stack.run(Stack.clupBinary, ["admin", "create-user", "--email", "ada.lovelace@example.org", "--name",
                                             "Ada Lovelace", "--role", "customer"] + stack.databaseArguments)
        let keys = StoreKeys(try TicketToken(secret: stack.secret))

        // Litestream ships the WAL to a replica folder, as scripts/run configures it.
        let replica = stack.directory + "/backup"
        let config = stack.directory + "/litestream.yml"
        try """
            dbs:
              - path: \(stack.database)
                replica:
                  type: file
                  path: \(replica)
                  sync-interval: 1s
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let backup = Process()
        backup.executableURL = URL(fileURLWithPath: Self.litestream)
        backup.arguments = ["replicate", "-config", config]
        backup.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        backup.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try backup.run()
        defer { if backup.isRunning { kill(backup.processIdentifier, SIGKILL) } }
        try stack.waitUntil("the first snapshot is in the replica", seconds: 20) {
            (try? FileManager.default.subpathsOfDirectory(atPath: replica))?.contains { $0.hasSuffix(".ltx") } ?? false
        }

        // Walk-in tickets through the device API, one after another, for 15 seconds; then
        // everything is killed at once while they are still coming.
        let acknowledged = Locked<[Acknowledged]>([])
        let stop = Locked(false)
        // The load speaks HTTP over its own sockets rather than launching curl: starting
        // processes from a second thread while the other tests start theirs is not safe in
        // Foundation's Process.
        let port = stack.port
        let load = Thread {
            while !stop.value {
                let body = #"{"people": 1, "residenceMinutes": 30, "requestKey": "\#(Secrets.token())"}"#
                guard let answer = Self.post(port: port, path: "/api/v1/tickets", key: key, json: body),
                      answer.hasPrefix("HTTP/1.1 201"),
                      let code = answer.firstMatch(of: /"code":"([A-Za-z0-9_-]+)"/).map({ String($0.1) }),
                      let id = keys.verify(code, accepts: { _, _ in true })?.reservationId
                else { continue }
                acknowledged.mutate { $0.append(Acknowledged(id: id, at: Date())) }
            }
        }
        load.start()
        Thread.sleep(forTimeInterval: 15)
        let killedAt = Date()
        kill(backup.processIdentifier, SIGKILL)
        stack.killEverything()
        stop.mutate { $0 = true }
        Thread.sleep(forTimeInterval: 0.5)
        let writes = acknowledged.value

        // Restored from the replica alone, into a folder with nothing else in it.
        let empty = stack.directory + "/restored"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let restoreStarted = Date()
        _ = try stack.run(Self.litestream, ["restore", "-o", empty + "/clup.sqlite", "file://" + replica])
        let restored = try DatabaseQueue(path: empty + "/clup.sqlite")
        let integrity = try restored.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") }
        let present = Set(try restored.read { db in
            try Int64.fetchAll(db, sql: "SELECT id FROM reservation WHERE storeId = ?", arguments: [storeId])
        })
        let recovery = Date().timeIntervalSince(restoreStarted)

        let size = ((try? FileManager.default.attributesOfItem(atPath: empty + "/clup.sqlite"))?[.size] as? Int ?? 0) >> 10
        let lost = writes.filter { !present.contains($0.id) }
        let oldestLost = lost.map { killedAt.timeIntervalSince($0.at) }.max() ?? 0
        print("backup: \(writes.count) tickets acknowledged in 15 s; \(lost.count) lost, all acknowledged within "
              + "\(String(format: "%.2f", oldestLost)) s of the kill; restored (\(size) KB) and checked in "
              + "\(String(format: "%.2f", recovery)) s")
        #expect(writes.count > 100)
        #expect(integrity == "ok")
        #expect(writes.filter { killedAt.timeIntervalSince($0.at) > 10 && !present.contains($0.id) }.isEmpty)
        #expect(oldestLost < 10)
        #expect(recovery < 60)

        // Without the key, neither the restored file nor the replica's files show the name or
        // the address; with it, the account is there.
        let files = [empty + "/clup.sqlite"] + (FileManager.default.subpaths(atPath: replica) ?? []).map { replica + "/" + $0 }
        let contents = files.compactMap { FileManager.default.contents(atPath: $0) }
        for word in ["ada.lovelace", "Lovelace"] {
            #expect(!contents.contains { $0.range(of: Data(word.utf8)) != nil }, "\(word) is in clear in the backup")
        }
        let opened = try AppDatabase.open(path: empty + "/clup.sqlite", dataKey: .scratch)
        #expect(try opened.accounts.user(email: "ada.lovelace@example.org")?.displayName == "Ada Lovelace")
    }
}

extension BackupEndToEndTests {
    /// A JSON POST to the device API over one TCP connection; the whole answer, or nil if the
    /// connection failed (the stack was killed).
    static func post(port: Int, path: String, key: String, json: String) -> String? {
        guard let fd = Stack.connect(from: "127.0.0.1", to: "127.0.0.1", port: port) else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = "POST \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(key)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\nConnection: close\r\n\r\n" + json
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { return nil }
        var answer = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            answer += buffer[..<count]
        }
        return answer.isEmpty ? nil : String(decoding: answer, as: UTF8.self)
    }
}

/// A value shared between the test and its load thread.
final class Locked<Value>: @unchecked Sendable {
    private var current: Value
    private let lock = NSLock()

    init(_ value: Value) { current = value }

    var value: Value { lock.withLock { current } }

    func mutate(_ change: (inout Value) -> Void) { lock.withLock { change(&current) } }
}
