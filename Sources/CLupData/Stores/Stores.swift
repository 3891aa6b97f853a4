import CLupDomain
import Foundation
import GRDB

/// A store asked for by id that does not exist (any more): its own error, not an account's.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case noSuchStore

    /// As a command line prints it.
    public var description: String { "no store with that id" }
}

/// Stores with their hours, closed days and departments: read, and registered.
extension AppDatabase {

    /// The columns of `Store`, in its order.
    static let storeColumns = """
        id, name, address, phone, latitude, longitude, capacity, timeZone, walkInPercent, slotMinutes, slotCapacity,
        entryBeforeMinutes, entryAfterMinutes, callGraceMinutes, priorityEvery, priorityOnline, largestParty
        """

    /// One store with its hours, closures and departments (those not retired), or every
    /// store in id order when `id` is nil: six statements, whatever the number of stores
    /// (PostgreSQL sends them in one round trip).
    static func storeDetails(_ id: StoreID?, _ transaction: some SQLTransaction) throws -> [StoreDetails] {
        try storeDetails(from: transaction.rows(of: storeDetailsStatements(id)))
    }

    /// `storeDetails`' six statements.
    static func storeDetailsStatements(_ id: StoreID?) -> [SQL] {
        // A store's rows by their index, or every store's: a condition that matched both
        // (`? IS NULL OR id = ?`) made SQLite scan every table for one store.
        let store: SQL = id.map { "WHERE id = \($0)" } ?? ""
        let ofStore: SQL = id.map { "AND storeId = \($0)" } ?? ""
        return [
            "SELECT \(unescaped: storeColumns) FROM store \(store) ORDER BY id",
            """
            SELECT storeId, weekday, opens, closes FROM openingInterval WHERE TRUE \(ofStore)
            ORDER BY storeId, weekday, opens
            """,
            "SELECT storeId, day, reason FROM storeClosure WHERE TRUE \(ofStore) ORDER BY storeId, day",
            "SELECT storeId, day, opens, closes, reason FROM specialHours WHERE TRUE \(ofStore) ORDER BY storeId, day, opens",
            """
            SELECT id, storeId, name, estimatedMinutes, position FROM department
            WHERE NOT retired \(ofStore)
            ORDER BY storeId, position
            """,
            "SELECT storeId, retiredAt FROM storeRetirement WHERE TRUE \(ofStore)",
        ]
    }

    /// The stores from the rows `storeDetailsStatements` returned.
    static func storeDetails(from answers: some Collection<[SQLRow]>) throws -> [StoreDetails] {
        var answers = answers.makeIterator()
        func next<Record: SQLRecord>(_ type: Record.Type) throws -> [Record] {
            try (answers.next() ?? []).map { try $0.record(Record.self) }
        }
        let stores = try next(Store.self)
        var intervals = Dictionary(grouping: try next(OpeningIntervalRecord.self), by: \.storeId)
        var closures = Dictionary(grouping: try next(StoreClosure.self), by: \.storeId)
        var special = Dictionary(grouping: try next(StoreSpecialHours.self), by: \.storeId)
        var departments = Dictionary(grouping: try next(Department.self), by: \.storeId)
        var retired: [StoreID: Date] = [:]
        for row in answers.next() ?? [] { retired[try row.decode(0)] = try row.decode(1) }
        return stores.map { store in
            defer {
                intervals[store.id] = nil
                closures[store.id] = nil
                special[store.id] = nil
                departments[store.id] = nil
            }
            return StoreDetails(store: store, openingIntervals: intervals[store.id] ?? [], closures: closures[store.id] ?? [],
                                specialHours: special[store.id] ?? [], departments: departments[store.id] ?? [],
                                retiredAt: retired[store.id])
        }
    }

    /// Every store with its hours and departments, in id order, read with three cursors and
    /// columns by position rather than decoded: the board loads a hundred thousand stores at
    /// start-up, and GRDB's associated-record decoding held several times their size at once.
    static func streamStoreDetails(_ db: Database, _ each: (StoreDetails) -> Void) throws {
        // Three cursors in store order, merged as they go: nothing is held for more than one
        // store at a time (holding every store's hours first left the heap fragmented).
        let intervalRows = try Row.fetchCursor(db, sql: """
            SELECT storeId, weekday, opens, closes FROM openingInterval ORDER BY storeId, weekday, opens
            """)
        let departmentRows = try Row.fetchCursor(db, sql: """
            SELECT id, storeId, name, estimatedMinutes, position FROM department WHERE NOT retired
            ORDER BY storeId, position
            """)
        let closureRows = try Row.fetchCursor(db, sql: "SELECT storeId, day, reason FROM storeClosure ORDER BY storeId, day")
        // Few: read whole.
        let retired = Dictionary(uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT storeId, retiredAt FROM storeRetirement")
            .map { (StoreID(rawValue: $0[0]), $0[1] as Date) })
        let special = Dictionary(grouping: try StoreSpecialHours.fetchAll(db, sql: """
            SELECT storeId, day, opens, closes, reason FROM specialHours ORDER BY storeId, day, opens
            """), by: \.storeId)
        var nextClosure = try closureRows.next().map { StoreClosure(storeId: $0[0], day: $0[1], reason: $0[2]) }
        var nextInterval = try intervalRows.next().map { row -> OpeningIntervalRecord in
            OpeningIntervalRecord(storeId: row[0], interval: OpeningInterval(weekday: row[1], opens: row[2], closes: row[3]))
        }
        var nextDepartment = try departmentRows.next().map { row -> Department in
            Department(id: row[0], storeId: row[1], name: row[2], estimatedMinutes: row[3], position: row[4])
        }
        let storeRows = try Row.fetchCursor(db, sql: """
            SELECT id, name, address, phone, latitude, longitude, capacity, timeZone, walkInPercent, slotMinutes,
                   slotCapacity, entryBeforeMinutes, entryAfterMinutes, callGraceMinutes, priorityEvery, priorityOnline,
                   largestParty
            FROM store ORDER BY id
            """)
        while let row = try storeRows.next() {
            let store = Store(
                id: row[0], name: row[1], address: row[2], phone: row[3], latitude: row[4], longitude: row[5],
                capacity: row[6], timeZone: row[7], walkInPercent: row[8], slotMinutes: row[9], slotCapacity: row[10],
                entryBeforeMinutes: row[11], entryAfterMinutes: row[12], callGraceMinutes: row[13],
                priorityEvery: row[14], priorityOnline: row[15], largestParty: row[16])
            var intervals: [OpeningIntervalRecord] = []
            while let interval = nextInterval, interval.storeId <= store.id {
                if interval.storeId == store.id { intervals.append(interval) }
                nextInterval = try intervalRows.next().map { row in
                    OpeningIntervalRecord(storeId: row[0],
                                          interval: OpeningInterval(weekday: row[1], opens: row[2], closes: row[3]))
                }
            }
            var departments: [Department] = []
            while let department = nextDepartment, department.storeId <= store.id {
                if department.storeId == store.id { departments.append(department) }
                nextDepartment = try departmentRows.next().map { row in
                    Department(id: row[0], storeId: row[1], name: row[2], estimatedMinutes: row[3], position: row[4])
                }
            }
            var closures: [StoreClosure] = []
            while let closure = nextClosure, closure.storeId <= store.id {
                if closure.storeId == store.id { closures.append(closure) }
                nextClosure = try closureRows.next().map { StoreClosure(storeId: $0[0], day: $0[1], reason: $0[2]) }
            }
            each(StoreDetails(store: store, openingIntervals: intervals, closures: closures,
                              specialHours: special[store.id] ?? [], departments: departments, retiredAt: retired[store.id]))
        }
    }

    /// A store as registered: the store, its weekly hours and its departments in display order.
    public typealias StoreRegistration = (
        store: NewStore, hours: [OpeningInterval], departments: [(name: String, minutes: Int)]
    )

    /// The space of `SQLTransaction.serialize`'s key for registering the first stores.
    static let registrationLocks: Int64 = 7_311_004

    fileprivate static func insert(_ new: StoreRegistration, _ transaction: some SQLTransaction) throws -> Store {
        let store = new.store
        guard let inserted = try transaction.record("""
            INSERT INTO store (name, address, phone, latitude, longitude, capacity, timeZone, walkInPercent, slotMinutes,
                               slotCapacity, entryBeforeMinutes, entryAfterMinutes, callGraceMinutes, priorityEvery,
                               priorityOnline, largestParty)
            VALUES (\(store.name), \(store.address), \(store.phone), \(store.latitude), \(store.longitude), \(store.capacity),
                    \(store.timeZone), \(store.walkInPercent), \(store.slotMinutes), \(store.slotCapacity),
                    \(store.entryBeforeMinutes), \(store.entryAfterMinutes), \(store.callGraceMinutes),
                    \(store.priorityEvery), \(store.priorityOnline), \(store.largestParty))
            RETURNING \(unescaped: storeColumns)
            """, as: Store.self)
        else { preconditionFailure("INSERT … RETURNING returned no row") }
        transaction.changed(store: inserted.id)
        // The insert's trigger made the store's learned sums: its model is a new store's
        // (`VisitModel`'s priors), not the plain default, from the start.
        transaction.changed(loadOf: inserted.id)
        for interval in new.hours {
            try transaction.execute("""
                INSERT INTO openingInterval (storeId, weekday, opens, closes)
                VALUES (\(inserted.id), \(interval.weekday), \(interval.opens), \(interval.closes))
                """)
        }
        for (index, department) in new.departments.enumerated() {
            try transaction.execute("""
                INSERT INTO department (storeId, name, estimatedMinutes, position)
                VALUES (\(inserted.id), \(department.name), \(department.minutes), \(index))
                """)
        }
        return inserted
    }
}

extension Stores {
    /// Every store with its opening hours, in id order.
    public func storeListings() throws -> [StoreListing] {
        try database.reading { transaction in
            try AppDatabase.storeDetails(nil, transaction).map {
                StoreListing(store: $0.store, openingIntervals: $0.openingIntervals, closures: $0.closures,
                             specialHours: $0.specialHours)
            }
        }
    }

    public func store(id: StoreID) throws -> Store? {
        try database.reading { transaction in
            try transaction.record("SELECT \(unescaped: AppDatabase.storeColumns) FROM store WHERE id = \(id)", as: Store.self)
        }
    }

    /// One store with hours and departments, or nil if there is no such store.
    public func storeDetails(id: StoreID) throws -> StoreDetails? {
        try database.reading { transaction in try AppDatabase.storeDetails(id, transaction).first }
    }

    public func storeCount() throws -> Int {
        try database.reading { transaction in try transaction.value("SELECT COUNT(*) FROM store") ?? 0 }
    }

    /// Registers a store with its hours and departments in one transaction.
    @discardableResult
    public func createStore(_ store: NewStore, hours: [OpeningInterval], departments: [(name: String, minutes: Int)])
        throws -> Store
    {
        try database.transaction { transaction in try AppDatabase.insert((store, hours, departments), transaction) }
    }

    /// Registers `stores` in one transaction, each recorded as registered by `userId` (nil: the
    /// command line): all of them, or none if any insert fails. Returns them in order.
    /// With `regions` (the stores', in order; nil for none), each store goes in the region of
    /// that name (whatever its case), made if there is none yet.
    public func importStores(_ stores: [AppDatabase.StoreRegistration], regions: [String?] = [], userId: UserID?, now: Date)
        throws -> [Store]
    {
        try database.transaction { transaction in
            var groups: [String: Int64] = [:]
            for row in try transaction.rows("SELECT id, name FROM storeGroup") {
                groups[try row.decode(1, as: String.self).lowercased()] = try row.decode(0)
            }
            return try stores.enumerated().map { index, registration in
                let store = try AppDatabase.insert(registration, transaction)
                try AppDatabase.recordChange(storeId: store.id, userId: userId, now: now, field: "store", before: "",
                                             after: "registered", transaction)
                if index < regions.count, let name = regions[index] {
                    var group = groups[name.lowercased()]
                    if group == nil {
                        group = try transaction.value("""
                            INSERT INTO storeGroup (name, createdAt) VALUES (\(name), \(now)) RETURNING id
                            """, as: Int64.self)
                        groups[name.lowercased()] = group
                    }
                    try transaction.execute("INSERT INTO storeGroupMember (storeId, groupId) VALUES (\(store.id), \(group))")
                }
                return store
            }
        }
    }

    /// Every store's name and address, in id order: what an import is checked against.
    public func namesAndAddresses() throws -> [(id: StoreID, name: String, address: String)] {
        try database.reading { transaction in
            try transaction.rows("SELECT id, name, address FROM store ORDER BY id").map { row in
                (try row.decode(0), try row.decode(1), try row.decode(2))
            }
        }
    }

    /// Registers `stores` in one transaction if there are none yet; returns how many were added.
    public func createStoresIfEmpty(_ stores: [AppDatabase.StoreRegistration]) throws -> Int {
        try database.transaction { transaction in
            // Two workers starting on an empty database at once: the second waits here, then
            // finds the stores the first added.
            try transaction.serialize("stores", in: AppDatabase.registrationLocks)
            guard try transaction.value("SELECT COUNT(*) FROM store", as: Int.self) == 0 else { return 0 }
            for store in stores { _ = try AppDatabase.insert(store, transaction) }
            return stores.count
        }
    }
}

/// Stores as registered and changed: their hours, closed days, departments, change log and signing
/// keys.
/// Reached from the database as `stores`; each write is one transaction.
public struct Stores: Sendable {
    let database: AppDatabase
}

extension AppDatabase {
    /// Stores, their changes and their signing keys.
    public var stores: Stores { Stores(database: self) }
}
