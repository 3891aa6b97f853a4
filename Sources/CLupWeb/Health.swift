import CLupData
import Foundation
import GRDB
import Synchronization

/// The worker's background loops (the queue timer, the notices, the mail) say they are alive
/// on each turn; `/healthz` reports one that has not for a while.
public final class Heartbeats: Sendable {
    private let beats = Mutex<[String: (last: Date, every: TimeInterval)]>([:])

    public init() {}

    /// Registers loop `name`, expected to beat about every `every` seconds.
    public func expect(_ name: String, every: TimeInterval) {
        beats.withLock { $0[name] = (Date(), every) }
    }

    public func beat(_ name: String) {
        beats.withLock { $0[name]?.last = Date() }
    }

    /// The loops silent for more than three of their turns and at least 30 s, by name.
    func silent(at now: Date = Date()) -> [String] {
        beats.withLock { beats in
            beats.filter { now.timeIntervalSince($0.value.last) > max(30, 3 * $0.value.every) }.map(\.key).sorted()
        }
    }
}

/// `/healthz`: whether this worker can serve — read its database, take its write lock within
/// a second, find room on its disk — and whether its loops are turning. 200 with "ok"
/// throughout, or 503 naming what is wrong, for a load balancer, a supervisor or a person.
struct Health: Encodable {
    var status: String
    var database: String
    var writes: String
    var disk: String
    var loops: String
    var problems: [String]?

    /// Free space below which the disk counts as full: writes fail soon after.
    static let minimumFree: Int64 = 64 << 20

    static func check(_ database: AppDatabase, heartbeats: Heartbeats) -> (Health, Int) {
        var problems: [String] = []
        let readable = database.isHealthy()
        if !readable { problems.append("the database cannot be read") }
        let writes = probeWrite(database)
        if let writes { problems.append(writes) }
        let free = freeSpace(database)
        if let free, free < minimumFree { problems.append("the disk is nearly full (\(free >> 20) MB free)") }
        let silent = heartbeats.silent()
        if !silent.isEmpty { problems.append("stopped: " + silent.joined(separator: ", ")) }
        let health = Health(
            status: problems.isEmpty ? "ok" : "error", database: readable ? "ok" : "unavailable",
            writes: writes == nil ? "ok" : "blocked", disk: free.map { $0 < minimumFree ? "full" : "ok" } ?? "ok",
            loops: silent.isEmpty ? "ok" : "stopped", problems: problems.isEmpty ? nil : problems)
        return (health, problems.isEmpty ? 200 : 503)
    }

    /// How long a write-lock probe's answer stands: however often `/healthz` is asked, the
    /// lock is taken at most once in this time (four times a second), and a blocked lock is
    /// still seen within a second.
    static let probeLifetime: TimeInterval = 0.25
    private static let lastProbe = Mutex<(at: Date, path: String, problem: String?)?>(nil)

    /// Takes the write lock on a connection of its own, waiting at most a second, and lets it
    /// go at once; nil if that worked. A file database only (an in-memory one has no other
    /// writer to wait for). Answered from the last probe within `probeLifetime`.
    private static func probeWrite(_ database: AppDatabase) -> String? {
        guard let pool = database.writer as? DatabasePool else { return nil }
        let now = Date()
        if let last = lastProbe.withLock({ $0 }), last.path == pool.path, now.timeIntervalSince(last.at) < probeLifetime {
            return last.problem
        }
        let problem = takeWriteLock(pool)
        lastProbe.withLock { $0 = (now, pool.path, problem) }
        return problem
    }

    private static func takeWriteLock(_ pool: DatabasePool) -> String? {
        var configuration = Configuration()
        configuration.busyMode = .timeout(1)
        configuration.allowsUnsafeTransactions = true
        do {
            let probe = try DatabaseQueue(path: pool.path, configuration: configuration)
            try probe.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "ROLLBACK")
            }
            return nil
        } catch {
            return "the database's write lock is held elsewhere"
        }
    }

    /// Bytes free to this process on the database's filesystem, if it is a file.
    private static func freeSpace(_ database: AppDatabase) -> Int64? {
        guard let pool = database.writer as? DatabasePool else { return nil }
        var stats = statvfs()
        guard statvfs((pool.path as NSString).deletingLastPathComponent, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}
