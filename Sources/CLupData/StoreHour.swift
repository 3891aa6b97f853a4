import CLupDomain
import Foundation
import GRDB

/// A store's statistics, kept per hour as visits happen: triggers on the reservation table
/// (written out in migrations v7, v8 and v15) add each entry, call, exit, expiry and
/// cancellation to its hour (`HourTotals`), so a statistics page reads a few hundred rows
/// whatever the length of the history. `AppDatabase.rebuildStatistics` recomputes the same
/// rows from the raw visits, in Swift; a test checks both agree.
enum StoreHour {
    /// The longest visit whose time inside is spread over its hours: the triggers add a
    /// visit's person-seconds to each hour it overlaps, up to this many (SQLite triggers have
    /// no loops, so v7 writes the hours out), and the rebuild does the same.
    static let spreadHours = 8
}

/// A department's entries in one hour.
public struct DepartmentEntries: Sendable, Equatable {
    public var departmentId: Int64
    public var name: String
    public var entries: Int
}

/// A customer who opted in to the store's loyal-customer list, with their visits in a range.
public struct LoyalCustomer: Sendable, Equatable {
    public var name: String
    public var visits: Int
    public var lastVisit: Date
}

extension AppDatabase {
    /// The store's kept hours from `from` to `to` (hours since 1970, both included).
    public func storeHours(storeId: Int64, from: Int, to: Int) throws -> [HourTotals] {
        try reader.read { db in try Self.storeHours(storeId: storeId, from: from, to: to, db) }
    }

    static func storeHours(storeId: Int64?, from: Int, to: Int, _ db: Database) throws -> [HourTotals] {
        let store = storeId == nil ? "" : "storeId = ? AND"
        let arguments: StatementArguments = (storeId.map { [$0] } ?? []) + [from, to]
        let rows = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT hour, \(HourTotals.counterNames.joined(separator: ", ")) FROM storeHour
            WHERE \(store) hour BETWEEN ? AND ? ORDER BY storeId, hour
            """), arguments: arguments)
        var hours: [HourTotals] = []
        var values = [Double](repeating: 0, count: HourTotals.counterNames.count)
        while let row = try rows.next() {
            for index in values.indices { values[index] = row[index + 1] }
            hours.append(HourTotals(hour: row[0], counters: values))
        }
        return hours
    }

    /// Entries per department of the store between two hours, most visited first.
    public func departmentEntries(storeId: Int64, from: Int, to: Int) throws -> [DepartmentEntries] {
        try reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT d.id, d.name, COALESCE(SUM(h.entries), 0) AS entries
                FROM department d LEFT JOIN storeDepartmentHour h
                  ON h.departmentId = d.id AND h.storeId = d.storeId AND h.hour BETWEEN ? AND ?
                WHERE d.storeId = ? GROUP BY d.id ORDER BY entries DESC, d.position
                """, arguments: [from, to, storeId]).map { row in
                DepartmentEntries(departmentId: row[0], name: row[1], entries: row[2])
            }
        }
    }

    /// Customers who opted in to being listed, with their visits to the store that began in
    /// `from..<to`; nobody who did not opt in. Most visits first.
    public func loyalCustomers(storeId: Int64, from: Date, to: Date) throws -> [LoyalCustomer] {
        try reader.read { db in
            // From the customers who opted in (a partial index holds only them), each one's
            // visits to the store through `reservation_user`: the cost follows how many opted
            // in, not how many visits the range or the history holds.
            try Row.fetchAll(db, sql: """
                SELECT u.displayName, COUNT(*), MAX(r.enteredAt) FROM user u INDEXED BY user_loyal
                CROSS JOIN reservation r INDEXED BY reservation_user ON r.userId = u.id AND r.storeId = ?
                WHERE u.loyaltyOptIn = 1 AND r.enteredAt IS NOT NULL AND r.enteredAt >= ? AND r.enteredAt < ?
                GROUP BY u.id ORDER BY COUNT(*) DESC, u.displayName, u.id
                """, arguments: [storeId, from.databaseText, to.databaseText]).map { row in
                LoyalCustomer(name: row[0], visits: row[1], lastVisit: row[2])
            }
        }
    }

    /// Recomputes every store's statistics from the raw visits (after an import, or to check
    /// the kept ones): the same accounting as the triggers, written in Swift. Returns the
    /// number of hours written.
    @discardableResult
    public func rebuildStatistics() throws -> Int {
        try write { db in
            try db.execute(sql: "DELETE FROM storeHour; DELETE FROM storeDepartmentHour;")
            var hours: [Int64: [Int: HourTotals]] = [:]
            func bump(_ store: Int64, _ date: Date, _ change: (inout HourTotals) -> Void) {
                let hour = HourTotals.hour(of: date)
                change(&hours[store, default: [:]][hour, default: HourTotals(hour: hour)])
            }
            struct Visit { var store: Int64; var people: Double; var entered: Date; var left: Date? }
            var visits: [Visit] = []
            let rows = try Row.fetchCursor(db, sql: """
                SELECT storeId, kind, walkIn, people, residenceMinutes, status, createdAt, calledAt, enteredAt,
                       exitedAt, endedAt FROM reservation ORDER BY id
                """)
            while let row = try rows.next() {
                let store: Int64 = row[0]
                let kind: String = row[1]
                let walkIn: Bool = row[2]
                let people = Double(row[3] as Int)
                let status: String = row[5]
                let created: Date = row[6]
                let called: Date? = row[7]
                let entered: Date? = row[8]
                let exited: Date? = row[9]
                let ended: Date? = row[10]
                if let called {
                    bump(store, called) { $0.calls += 1; $0.callSeconds += called.timeIntervalSince(created) }
                }
                if let entered {
                    bump(store, entered) { totals in
                        totals.entries += 1
                        totals.entryPeople += people
                        if kind == "lineUp" && !walkIn { totals.lineUps += 1 }
                        if walkIn { totals.walkIns += 1 }
                        if kind == "booking" { totals.bookings += 1 }
                        if kind == "lineUp" {
                            totals.waitSeconds += entered.timeIntervalSince(created)
                            totals.waitCount += 1
                        }
                        if let called {
                            totals.doorSeconds += entered.timeIntervalSince(called)
                            totals.doorCount += 1
                        }
                    }
                    // Inside until scanned out, or until the visit was closed without a scan.
                    visits.append(Visit(store: store, people: people, entered: entered,
                                        left: exited ?? (status == "inside" ? nil : ended)))
                    if let exited {
                        let minutes: Int = row[4]
                        bump(store, entered) { totals in
                            totals.exits += 1
                            totals.declaredSeconds += Double(minutes) * 60
                            totals.actualSeconds += exited.timeIntervalSince(entered)
                        }
                        let first = HourTotals.hour(of: entered)
                        for k in 0..<StoreHour.spreadHours {
                            let start = Double(first + k) * 3600
                            let end = exited.timeIntervalSince1970
                            guard start < end else { break }
                            let overlap = min(end, start + 3600) - max(entered.timeIntervalSince1970, start)
                            bump(store, Date(timeIntervalSince1970: start)) { $0.personSeconds += people * overlap }
                        }
                    }
                }
                if let ended, status == "expired" || status == "cancelled" {
                    bump(store, ended) { totals in
                        if status == "expired" && kind == "booking" { totals.noShows += 1 }
                        if status == "expired" && kind == "lineUp" { totals.expiries += 1 }
                        if status == "cancelled" { totals.cancellations += 1 }
                    }
                }
            }
            // The peak: the people inside just after each entry, replaying entries and leavings
            // in time order (a leaving at the same instant as an entry comes first).
            for (store, storeVisits) in Dictionary(grouping: visits, by: \.store) {
                var events: [(time: Date, change: Double)] = []
                for visit in storeVisits {
                    events.append((visit.entered, visit.people))
                    if let left = visit.left { events.append((left, -visit.people)) }
                }
                events.sort { ($0.time, $0.change) < ($1.time, $1.change) }
                var inside = 0.0
                for event in events {
                    inside += event.change
                    if event.change > 0 {
                        bump(store, event.time) { $0.peakInside = max($0.peakInside, inside) }
                    }
                }
            }
            let columns = HourTotals.counterNames
            let insert = try db.makeStatement(sql: """
                INSERT INTO storeHour (storeId, hour, \(columns.joined(separator: ", ")))
                VALUES (?, ?, \(columns.map { _ in "?" }.joined(separator: ", ")))
                """)
            var written = 0
            for (store, byHour) in hours {
                for totals in byHour.values {
                    try insert.execute(arguments: StatementArguments([store, totals.hour] as [any DatabaseValueConvertible])
                        + StatementArguments(totals.counters))
                    written += 1
                }
            }
            try db.execute(sql: """
                INSERT INTO storeDepartmentHour (storeId, departmentId, hour, entries)
                SELECT r.storeId, rd.departmentId, CAST(strftime('%s', r.enteredAt) AS INTEGER) / 3600, COUNT(*)
                FROM reservation r JOIN reservationDepartment rd ON rd.reservationId = r.id
                WHERE r.enteredAt IS NOT NULL GROUP BY 1, 2, 3
                """)
            return written
        }
    }
}
