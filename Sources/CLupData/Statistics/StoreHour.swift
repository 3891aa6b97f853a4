import CLupDomain
import Foundation
import GRDB

/// A store's statistics, kept per hour as visits happen: each change of a reservation's status
/// (`AppDatabase.setStatus`) adds what `VisitAccounting` says to its hour (`HourTotals`) and
/// to the store's learned sums (`storeLoad`), so a statistics page reads a few hundred rows
/// whatever the length of the history. `AppDatabase.rebuildStatistics` folds the same function
/// over the raw visits; a test checks both agree.
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

    /// Most visits first, then by name; equal ones keep their order (the account's id).
    static func mostVisitsFirst(_ a: LoyalCustomer, _ b: LoyalCustomer) -> Bool {
        a.visits != b.visits ? a.visits > b.visits : a.name < b.name
    }
}

extension Statistics {
    /// The store's kept hours from `from` to `to` (hours since 1970, both included).
    public func storeHours(storeId: StoreID, from: Int, to: Int) throws -> [HourTotals] {
        try database.reading { transaction in
            var hours: [HourTotals] = []
            var counters = [Double](repeating: 0, count: HourTotals.counterNames.count)
            try transaction.each("""
                SELECT hour, \(unescaped: HourTotals.counterNames.joined(separator: ", ")) FROM storeHour
                WHERE storeId = \(storeId) AND hour BETWEEN \(from) AND \(to) ORDER BY hour
                """)
            { row in
                for index in counters.indices { counters[index] = try row.decode(index + 1, as: Double.self) }
                hours.append(HourTotals(hour: try row.decode(0), counters: counters))
            }
            return hours
        }
    }

    /// Entries per department of the store between two hours, most visited first.
    public func departmentEntries(storeId: StoreID, from: Int, to: Int) throws -> [DepartmentEntries] {
        try database.reading { transaction in
            try transaction.rows("""
                SELECT d.id, d.name, CAST(COALESCE(SUM(h.entries), 0) AS BIGINT) AS entries
                FROM department d LEFT JOIN storeDepartmentHour h
                  ON h.departmentId = d.id AND h.storeId = d.storeId AND h.hour BETWEEN \(from) AND \(to)
                WHERE d.storeId = \(storeId) GROUP BY d.id ORDER BY entries DESC, d.position
                """).map { row in
                DepartmentEntries(departmentId: try row.decode(0), name: try row.decode(1), entries: try row.decode(2))
            }
        }
    }

    /// Customers who opted in to being listed, with their visits to the store that began in
    /// `from..<to`; nobody who did not opt in. Most visits first, then by name (sorted here:
    /// the rows hold names sealed).
    public func loyalCustomers(storeId: StoreID, from: Date, to: Date) throws -> [LoyalCustomer] {
        try database.reading { transaction in
            // From the customers who opted in (a partial index holds only them), each one's
            // visits to the store through `reservation_user`: the cost follows how many opted
            // in, not how many visits the range or the history holds. SQLite is told so.
            try transaction.rows("""
                SELECT u.displayName, COUNT(*), MAX(r.enteredAt) FROM "user" u \(SQL.indexedBy("user_loyal"))
                \(SQL.joinInOrder) reservation r \(SQL.indexedBy("reservation_user")) ON r.userId = u.id AND r.storeId = \(storeId)
                WHERE \(SQL.isTrue("u.loyaltyOptIn")) AND r.enteredAt IS NOT NULL AND r.enteredAt >= \(from) AND r.enteredAt < \(to)
                GROUP BY u.id ORDER BY u.id
                """).map { row in
                LoyalCustomer(name: try Sealed.open(row.decode(0)), visits: try row.decode(1), lastVisit: try row.decode(2))
            }
        }.sorted(by: LoyalCustomer.mostVisitsFirst)
    }

    /// Recomputes every store's statistics and learned sums from the raw visits (after an
    /// import, or to check the kept ones): `VisitAccounting` folded over each reservation's
    /// changes, in the order they happened (`StatisticsRebuild`), in one transaction. Returns
    /// the number of hours written.
    @discardableResult
    public func rebuildStatistics() throws -> Int {
        try database.transaction { transaction in
            // Nothing else counts while the history is read and the totals replaced.
            try transaction.lockTables(["reservation", "storeHour", "storeLoad"])
            var rebuild = StatisticsRebuild()
            rebuild.reserve(try transaction.value("SELECT COUNT(*) FROM reservation", as: Int.self) ?? 0)
            try transaction.each("SELECT \(VisitFacts.columns), id FROM reservation") { row in
                rebuild.add(id: try row.decode(14), storeId: try row.decode(0), facts: try VisitFacts(columnsOf: row))
            }
            // Only the visits of customers who named departments need their entry's hour.
            let withDepartments = Set(try transaction.column("SELECT DISTINCT reservationId FROM reservationDepartment",
                                                             as: Int64.self).compactMap { $0 })
            let result = rebuild.fold(withDepartments: withDepartments)
            try transaction.execute("DELETE FROM storeHour")
            try transaction.execute("DELETE FROM storeDepartmentHour")
            for (store, totals) in result.hours { try AppDatabase.add(totals, storeId: store, transaction) }
            // Each department a customer named counts at their entry's hour.
            var departmentEntries: [[Int64]: Int] = [:]
            try transaction.each("""
                SELECT r.storeId, rd.departmentId, rd.reservationId FROM reservationDepartment rd
                JOIN reservation r ON r.id = rd.reservationId
                """)
            { row in
                if let hour = result.departmentHours[try row.decode(2)] {
                    departmentEntries[[try row.decode(0), try row.decode(1), Int64(hour)], default: 0] += 1
                }
            }
            for (key, entries) in departmentEntries {
                try transaction.execute("""
                    INSERT INTO storeDepartmentHour (storeId, departmentId, hour, entries)
                    VALUES (\(key[0]), \(key[1]), \(key[2]), \(entries))
                    """)
            }
            // Every store's sums, those with no visits too (the unscanned counts are the queue
            // timer's, kept as they are).
            try transaction.execute("UPDATE storeLoad SET \(unescaped: AppDatabase.sumNames.map { "\($0) = 0" }.joined(separator: ", "))")
            for (store, sums) in result.sums {
                var change = LearnedSums.Change()
                change.added = sums
                try AppDatabase.apply(change, storeId: store, transaction)
            }
            for storeId in try transaction.column("SELECT storeId FROM storeLoad", as: StoreID.self).compactMap({ $0 }) {
                transaction.changed(loadOf: storeId)
            }
            return result.hours.count
        }
    }
}

/// Every store's hours and learned sums folded afresh from its visits, whichever engine they
/// were read from: each visit's changes of state (`VisitAccounting.steps`), sorted by when
/// they happened (a leaving at the same instant as an entry first), each counted as it was
/// when it happened.
struct StatisticsRebuild {
    // Each change as a small key (a million visits make three million changes, sorted here);
    // the states are worked out again from the visit when it is counted. Stores are numbered
    // 0, 1, 2… for the rebuild, so each is an array's element.
    private struct Step { var at: Double; var entering: Bool; var visit: Int32; var state: Int8 }
    private var visits: [(id: Int64, store: Int, facts: VisitFacts)] = []
    private var steps: [Step] = []
    private var storeIds: [StoreID] = []
    private var storeIndex: [StoreID: Int] = [:]

    mutating func reserve(_ count: Int) {
        visits.reserveCapacity(count)
        steps.reserveCapacity(3 * count)
    }

    mutating func add(id: Int64, storeId: StoreID, facts: VisitFacts) {
        for (index, state) in VisitAccounting.steps(of: facts).enumerated().dropFirst() {
            steps.append(Step(at: state.at.timeIntervalSinceReferenceDate, entering: state.facts.isInside,
                              visit: Int32(visits.count), state: Int8(index)))
        }
        let store = storeIndex[storeId] ?? storeIds.count
        if store == storeIds.count {
            storeIndex[storeId] = store
            storeIds.append(storeId)
        }
        visits.append((id, store, facts))
    }

    struct Result {
        var hours: [(StoreID, HourTotals)] = []
        var sums: [(StoreID, LearnedSums)] = []
        /// The entry hour of each visit in `withDepartments` that entered.
        var departmentHours: [Int64: Int] = [:]
    }

    mutating func fold(withDepartments: Set<Int64>) -> Result {
        steps.sort { a, b in
            a.at != b.at ? a.at < b.at : a.entering != b.entering ? !a.entering : a.visit < b.visit
        }
        var hours = [[Int: HourTotals]](repeating: [:], count: storeIds.count)
        var sums = [LearnedSums](repeating: LearnedSums(), count: storeIds.count)
        var inside = [Double](repeating: 0, count: storeIds.count)
        var result = Result()
        for step in steps {
            let (id, store, facts) = visits[Int(step.visit)]
            let states = VisitAccounting.steps(of: facts)
            let (old, new) = (states[Int(step.state) - 1].facts, states[Int(step.state)].facts)
            let people = Double(new.people)
            if new.isInside != old.isInside { inside[store] += new.isInside ? people : -people }
            let change = VisitAccounting.change(from: old, to: new, peopleInside: inside[store])
            for totals in change.hours { hours[store][totals.hour, default: HourTotals(hour: totals.hour)].add(totals) }
            sums[store].apply(change.learned)
            if let hour = change.entryHour, withDepartments.contains(id) { result.departmentHours[id] = hour }
        }
        for (store, byHour) in zip(storeIds, hours) {
            for totals in byHour.values { result.hours.append((store, totals)) }
        }
        result.sums = Array(zip(storeIds, sums))
        return result
    }
}

extension Statistics {
    /// Finished anonymous visits, written in one transaction (the demo's history), a few
    /// hundred rows to a statement.
    func insertFinishedVisits(_ visits: [DemoData.FinishedVisit]) throws {
        try database.transaction { transaction in
            for batch in stride(from: 0, to: visits.count, by: 200).map({ visits[$0..<min($0 + 200, visits.count)] }) {
                let rows = batch.map { visit -> SQL in
                    """
                    (\(visit.storeId), 'lineUp', \(visit.walkIn), \(visit.day), \(visit.number), \(visit.people),
                     \(visit.minutes), 'done', \(visit.created), \(visit.entered), \(visit.entered), \(visit.exited), \(visit.exited))
                    """
                }
                try transaction.execute("""
                    INSERT INTO reservation (storeId, kind, walkIn, day, number, people, residenceMinutes, status, createdAt,
                                             calledAt, enteredAt, exitedAt, endedAt)
                    VALUES \(rows.joined(separator: ", "))
                    """)
            }
        }
    }
}

/// A store's kept statistics and their rebuild, and the gauges the metrics read.
/// Reached from the database as `statistics`; each write is one transaction.
public struct Statistics: Sendable {
    let database: AppDatabase
}

extension AppDatabase {
    /// Statistics and gauges.
    public var statistics: Statistics { Statistics(database: self) }
}
