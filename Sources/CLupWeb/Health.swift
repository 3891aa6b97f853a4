import CLupData
import Foundation
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
/// a second, find room on its disk — whether its loops are turning, and whether its outbox
/// keeps up. 200 with "ok"
/// throughout, or 503 naming what is wrong, for a load balancer, a supervisor or a person.
struct Health: Encodable {
    var status: String
    var database: String
    var writes: String
    var disk: String
    var loops: String
    var outbox: String
    var problems: [String]?

    /// Free space below which the disk counts as full: writes fail soon after.
    static let minimumFree: Int64 = 64 << 20
    /// How long mail due may wait before the outbox counts as falling behind: an urgent message
    /// ("leave now", "your turn") a minute, any message a quarter of an hour.
    static let urgentMailLag: TimeInterval = 60
    static let mailLag: TimeInterval = 15 * 60

    static func check(_ database: AppDatabase, heartbeats: Heartbeats, now: Date) -> (Health, Int) {
        var problems: [String] = []
        let readable = database.isHealthy()
        if !readable { problems.append("the database cannot be read") }
        let writes = database.writeLockIsFree() ? nil : "the database's write lock is held elsewhere"
        if let writes { problems.append(writes) }
        let free = database.freeDiskSpace()
        if let free, free < minimumFree { problems.append("the disk is nearly full (\(free >> 20) MB free)") }
        let silent = heartbeats.silent()
        if !silent.isEmpty { problems.append("stopped: " + silent.joined(separator: ", ")) }
        let backlog: (urgent: TimeInterval?, any: TimeInterval?) = (try? database.notices.mailBacklog(now: now)) ?? (nil, nil)
        let behind = (backlog.urgent ?? 0) > urgentMailLag || (backlog.any ?? 0) > mailLag
        if behind {
            problems.append("the outbox is falling behind (oldest due mail waiting \(Int(backlog.any ?? 0)) s, "
                            + "urgent \(Int(backlog.urgent ?? 0)) s)")
        }
        let health = Health(
            status: problems.isEmpty ? "ok" : "error", database: readable ? "ok" : "unavailable",
            writes: writes == nil ? "ok" : "blocked", disk: free.map { $0 < minimumFree ? "full" : "ok" } ?? "ok",
            loops: silent.isEmpty ? "ok" : "stopped", outbox: behind ? "behind" : "ok",
            problems: problems.isEmpty ? nil : problems)
        return (health, problems.isEmpty ? 200 : 503)
    }
}
