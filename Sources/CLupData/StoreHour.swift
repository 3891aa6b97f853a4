import CLupDomain
import Foundation
import GRDB

/// A store's statistics, kept per hour as visits happen: each change of a reservation's status
/// (`Reservation.setStatus`) adds what `VisitAccounting` says to its hour (`HourTotals`) and
/// to the store's learned sums (`storeLoad`), so a statistics page reads a few hundred rows
/// whatever the length of the history. `AppDatabase.rebuildStatistics` folds the same function
/// over the raw visits; a test checks both agree.
extension VisitFacts {
    /// The columns `init(columnsOf:)` reads, after the store's id. Times are read as whole
    /// milliseconds since 1970, which SQLite works out in C: GRDB reads a date from its text
    /// through Foundation's calendar, the largest cost of a rebuild over a long history.
    static let columnList = """
        storeId, kind, walkIn, people, residenceMinutes, travelMetres, status, \
        \(["createdAt", "calledAt", "enteredAt", "exitedAt", "endedAt", "expectedEntry"].map { column in
            "CAST(ROUND((julianday(\(column)) - 2440587.5) * 86400000.0) AS INTEGER)"
        }.joined(separator: ", ")), priority
        """

    init(columnsOf row: Row) throws {
        guard let kind = ReservationKind(rawValue: row[1]), let status = ReservationStatus(rawValue: row[6]),
              let created = Self.time(row, 7)
        else {
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "unknown reservation kind or status")
        }
        self.init(kind: kind, walkIn: row[2], people: row[3], residenceMinutes: row[4], travelMetres: row[5],
                  status: status, createdAt: created, calledAt: Self.time(row, 8), enteredAt: Self.time(row, 9),
                  exitedAt: Self.time(row, 10), endedAt: Self.time(row, 11), expectedEntry: Self.time(row, 12),
                  priority: row[13])
    }

    private static func time(_ row: Row, _ index: Int) -> Date? {
        (row[index] as Int64?).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// The reservation `id` as its statistics see it, with its store, if it exists.
    static func find(_ id: ReservationID, _ db: Database) throws -> (storeId: StoreID, facts: VisitFacts)? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT \(columnList) FROM reservation WHERE id = ?"),
                                         arguments: [id])
        else { return nil }
        return (row[0], try VisitFacts(columnsOf: row))
    }
}

extension AppDatabase {
    /// Counts a reservation's change of status, inside the caller's transaction (which has just
    /// made the change); `insideAfter`, if given, is the store's people inside now.
    static func count(from old: VisitFacts, to new: VisitFacts, storeId: StoreID, reservationId: ReservationID,
                      insideAfter: Int? = nil, _ db: Database) throws
    {
        let inside = new.isInside && !old.isInside ? try insideAfter ?? peopleInside(storeId: storeId, db) : 0
        let change = VisitAccounting.change(from: old, to: new, peopleInside: Double(inside))
        for totals in change.hours { try add(totals, storeId: storeId, db) }
        if !change.learned.isEmpty { try apply(change.learned, storeId: storeId, db) }
        if let hour = change.entryHour {
            try db.cachedStatement(sql: """
                INSERT INTO storeDepartmentHour (storeId, departmentId, hour, entries)
                SELECT ?1, departmentId, ?2, 1 FROM reservationDepartment WHERE reservationId = ?3
                ON CONFLICT(storeId, departmentId, hour) DO UPDATE SET entries = entries + 1
                """).execute(arguments: [storeId, hour, reservationId])
        }
    }

    /// The people inside the store now, inside the caller's transaction.
    static func peopleInside(storeId: StoreID, _ db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: peopleInsideSQL), arguments: [storeId]) ?? 0
    }

    /// A store's people inside, as the capacity guard keeps them (migration 35): one row.
    static let peopleInsideSQL = "SELECT COALESCE((SELECT people FROM storeInside WHERE storeId = ?), 0)"

    /// Adds `totals` to the store's hour (the peak is the larger of the two).
    static func add(_ totals: HourTotals, storeId: StoreID, _ db: Database) throws {
        try db.cachedStatement(sql: addHour).execute(
            arguments: StatementArguments([storeId, totals.hour] as [any DatabaseValueConvertible])
                + StatementArguments(totals.counters))
    }

    /// Written once: each change of status looks its statement up by this text.
    private static let addHour = """
        INSERT INTO storeHour (storeId, hour, \(HourTotals.counterNames.joined(separator: ", ")))
        VALUES (?, ?, \(HourTotals.counterNames.map { _ in "?" }.joined(separator: ", ")))
        ON CONFLICT(storeId, hour) DO UPDATE SET \(HourTotals.counterNames.map { name in
            name == "peakInside" ? "peakInside = MAX(peakInside, excluded.peakInside)" : "\(name) = \(name) + excluded.\(name)"
        }.joined(separator: ", "))
        """

    /// The learned sums' columns, in `sumValues` order.
    static let sumNames = [
        "measuredVisits", "declaredSeconds", "actualSeconds", "loggedVisits", "logRatioSum", "logRatioSquares",
        "calls", "noShows", "callToDoorSeconds", "atHandEntries", "entries", "entryErrorSum", "entryErrorSquares",
    ]
    static let decayedSums: Set = ["entries", "entryErrorSum", "entryErrorSquares"]

    static func sumValues(_ sums: LearnedSums) -> [Double] {
        [sums.measuredVisits, sums.declaredSeconds, sums.actualSeconds, sums.loggedVisits, sums.logRatioSum,
         sums.logRatioSquares, sums.calls, sums.noShows, sums.callToDoorSeconds, sums.atHandEntries, sums.entries,
         sums.entryErrorSum, sums.entryErrorSquares]
    }

    /// Applies `change` to the store's learned sums, as `LearnedSums.apply` does.
    static func apply(_ change: LearnedSums.Change, storeId: StoreID, _ db: Database) throws {
        try db.cachedStatement(sql: applySums).execute(
            arguments: StatementArguments([change.entryDecay] + sumValues(change.added) + [Double(storeId.rawValue)]))
    }

    private static let applySums = """
        UPDATE storeLoad SET \(sumNames.enumerated().map { index, name in
            "\(name) = \(name)\(decayedSums.contains(name) ? " * ?1" : "") + ?\(index + 2)"
        }.joined(separator: ", ")) WHERE storeId = ?\(sumNames.count + 2)
        """
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

    /// Most visits first, then by name; equal ones keep their order (the account's id).
    static func mostVisitsFirst(_ a: LoyalCustomer, _ b: LoyalCustomer) -> Bool {
        a.visits != b.visits ? a.visits > b.visits : a.name < b.name
    }
}

extension AppDatabase {
    /// The store's kept hours from `from` to `to` (hours since 1970, both included).
    public func storeHours(storeId: StoreID, from: Int, to: Int) throws -> [HourTotals] {
        if let postgres { return try postgres.storeHours(storeId: storeId, from: from, to: to) }
        return try reader.read { db in try Self.storeHours(storeId: storeId, from: from, to: to, db) }
    }

    static func storeHours(storeId: StoreID?, from: Int, to: Int, _ db: Database) throws -> [HourTotals] {
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
    public func departmentEntries(storeId: StoreID, from: Int, to: Int) throws -> [DepartmentEntries] {
        if let postgres { return try postgres.departmentEntries(storeId: storeId, from: from, to: to) }
        return try reader.read { db in
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
    /// `from..<to`; nobody who did not opt in. Most visits first, then by name (sorted here:
    /// the rows hold names sealed).
    public func loyalCustomers(storeId: StoreID, from: Date, to: Date) throws -> [LoyalCustomer] {
        if let postgres { return try postgres.loyalCustomers(storeId: storeId, from: from, to: to) }
        return try reader.read { db in
            // From the customers who opted in (a partial index holds only them), each one's
            // visits to the store through `reservation_user`: the cost follows how many opted
            // in, not how many visits the range or the history holds.
            try Row.fetchAll(db, sql: """
                SELECT u.displayName, COUNT(*), MAX(r.enteredAt) FROM user u INDEXED BY user_loyal
                CROSS JOIN reservation r INDEXED BY reservation_user ON r.userId = u.id AND r.storeId = ?
                WHERE u.loyaltyOptIn = 1 AND r.enteredAt IS NOT NULL AND r.enteredAt >= ? AND r.enteredAt < ?
                GROUP BY u.id ORDER BY u.id
                """, arguments: [storeId, from.databaseText, to.databaseText]).map { row in
                LoyalCustomer(name: try Sealed.open(row[0]), visits: row[1], lastVisit: row[2])
            }
        }.sorted(by: LoyalCustomer.mostVisitsFirst)
    }

    /// Recomputes every store's statistics and learned sums from the raw visits (after an
    /// import, or to check the kept ones): `VisitAccounting` folded over each reservation's
    /// changes, in the order they happened (`StatisticsRebuild`). Returns the number of hours
    /// written.
    @discardableResult
    public func rebuildStatistics() throws -> Int {
        if let postgres { return try postgres.rebuildStatistics() }
        return try write { db in
            var rebuild = StatisticsRebuild()
            rebuild.reserve(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reservation") ?? 0)
            let rows = try Row.fetchCursor(db, sql: "SELECT \(VisitFacts.columnList), id FROM reservation")
            while let row = try rows.next() { rebuild.add(id: row[14], storeId: row[0], facts: try VisitFacts(columnsOf: row)) }
            // Only the visits of customers who named departments need their entry's hour.
            let withDepartments = Set(try Int64.fetchAll(db, sql: "SELECT DISTINCT reservationId FROM reservationDepartment"))
            let result = rebuild.fold(withDepartments: withDepartments)
            try db.execute(sql: "DELETE FROM storeHour; DELETE FROM storeDepartmentHour;")
            var written = 0
            for (store, totals) in result.hours {
                try Self.add(totals, storeId: store, db)
                written += 1
            }
            // Each department a customer named counts at their entry's hour.
            var departmentEntries: [[Int64]: Int] = [:]
            let named = try Row.fetchCursor(db, sql: """
                SELECT r.storeId, rd.departmentId, rd.reservationId FROM reservationDepartment rd
                JOIN reservation r ON r.id = rd.reservationId
                """)
            while let row = try named.next() {
                if let hour = result.departmentHours[row[2]] {
                    departmentEntries[[row[0], row[1], Int64(hour)], default: 0] += 1
                }
            }
            let departments = try db.makeStatement(sql: """
                INSERT INTO storeDepartmentHour (storeId, departmentId, hour, entries) VALUES (?, ?, ?, ?)
                """)
            for (key, entries) in departmentEntries { try departments.execute(arguments: [key[0], key[1], key[2], entries]) }
            // Every store's sums, those with no visits too (the unscanned counts are the queue
            // timer's, kept as they are).
            try db.execute(sql: "UPDATE storeLoad SET \(Self.sumNames.map { "\($0) = 0" }.joined(separator: ", "))")
            for (store, sums) in result.sums {
                var change = LearnedSums.Change()
                change.added = sums
                try Self.apply(change, storeId: store, db)
            }
            return written
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

extension AppDatabase {
    /// Finished anonymous visits, written in one transaction (the demo's history).
    func insertFinishedVisits(_ visits: [DemoData.FinishedVisit]) throws {
        if let postgres { return try postgres.insertFinishedVisits(visits) }
        try write { db in
            let insert = try db.makeStatement(sql: """
                INSERT INTO reservation (storeId, kind, walkIn, day, number, people, residenceMinutes, status, createdAt,
                                         calledAt, enteredAt, exitedAt, endedAt)
                VALUES (?, 'lineUp', ?, ?, ?, ?, ?, 'done', ?, ?, ?, ?, ?)
                """)
            for visit in visits {
                try insert.execute(arguments: [
                    visit.storeId, visit.walkIn, visit.day, visit.number, visit.people, visit.minutes, visit.created,
                    visit.entered, visit.entered, visit.exited, visit.exited,
                ])
            }
        }
    }
}
