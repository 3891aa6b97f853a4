import Foundation
import GRDB
import Metrics

/// The metrics only the database can answer, read when `/metrics` is scraped rather than kept
/// up to date on every write: how much of each outbox is unsent and how late, and how many
/// people are inside and waiting over all stores.
public struct OutboxGauge: Sendable, Equatable {
    /// "mail" or "push".
    public var channel: String
    /// Mail: urgent, account, reminder or informational (`MailPriority`); push: its urgency.
    public var priority: String
    /// Messages not yet sent, due or not.
    public var unsent: Int
    /// How long the oldest message due has waited past its time, or nil if none is due.
    public var oldestDue: TimeInterval?
}

/// People over every store the board holds.
public struct TrafficTotals: Sendable, Equatable {
    public var stores = 0
    /// In a store now, counting each ticket's party.
    public var inside = 0
    /// In a queue: waiting or called, not yet in.
    public var waiting = 0
    /// Stores with no place free.
    public var full = 0
}

extension MailPriority {
    /// Its name in metrics and logs.
    public var name: String {
        switch self {
        case .urgent: "urgent"
        case .account: "account"
        case .reminder: "reminder"
        case .informational: "informational"
        }
    }
}

extension Statistics {
    /// Each outbox by channel and priority; every mail priority and both push urgencies are
    /// listed, empty or not, so a graph's series do not come and go.
    public func outboxGauges(now: Date) throws -> [OutboxGauge] {
        let rows = try database.reading { transaction in
            try transaction.rows("""
                SELECT 'mail', CAST(priority AS TEXT), COUNT(*), MIN(CASE WHEN nextAttemptAt <= \(now) THEN nextAttemptAt END)
                FROM outboxMessage WHERE sentAt IS NULL GROUP BY priority
                UNION ALL
                SELECT 'push', urgency, COUNT(*), MIN(CASE WHEN nextAttemptAt <= \(now) THEN nextAttemptAt END)
                FROM pushMessage WHERE sentAt IS NULL GROUP BY urgency
                """).map { row -> (channel: String, priority: String, unsent: Int, oldest: Date?) in
                (try row.decode(0), try row.decode(1), try row.decode(2), try row.value(3))
            }
        }
        var gauges = MailPriority.allCases.map { OutboxGauge(channel: "mail", priority: $0.name, unsent: 0) }
            + ["high", "normal"].map { OutboxGauge(channel: "push", priority: $0, unsent: 0) }
        for row in rows {
            let priority = row.channel == "mail" ? Int(row.priority).flatMap(MailPriority.init)?.name ?? row.priority
                : row.priority
            let gauge = OutboxGauge(channel: row.channel, priority: priority, unsent: row.unsent,
                                    oldestDue: row.oldest.map { max(0, now.timeIntervalSince($0)) })
            if let index = gauges.firstIndex(where: { $0.channel == gauge.channel && $0.priority == gauge.priority }) {
                gauges[index] = gauge
            } else {
                gauges.append(gauge)
            }
        }
        return gauges
    }

    /// People inside and waiting over every store, from the board (no database read).
    public func trafficTotals() -> TrafficTotals {
        database.board.totals()
    }
}

/// The metrics the data layer records as it works (see docs/operations.md). Made on each
/// use: the metrics system is bootstrapped by the executable, and a handle made before that
/// would count nowhere for good.
enum DataMetrics {
    /// Callers waiting for the writing thread when it takes a group.
    static func writeQueue(depth: Int) {
        Gauge(label: "clup_write_queue_depth").record(depth)
    }

    /// Requests written by one commit.
    static func groupCommit(size: Int) {
        Recorder(label: "clup_group_commit_size", aggregate: true).record(size)
    }

    /// PostgreSQL: a store a write locked, read from the board (it held the store as committed
    /// at the version locked) or from the store's rows.
    static func storeRead(fromBoard: Bool) {
        Counter(label: "clup_locked_store_reads_total", dimensions: [("from", fromBoard ? "board" : "rows")]).increment()
    }

    /// The board read whole from the database (at start, after another process wrote).
    static func boardReloaded() {
        Counter(label: "clup_board_reloads_total").increment()
    }
}
