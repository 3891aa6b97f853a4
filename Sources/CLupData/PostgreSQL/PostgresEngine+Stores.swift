import CLupDomain
import Foundation
import PostgresNIO

/// Stores, their hours, closures and departments, on PostgreSQL: the same named methods as
/// SQLite's in `AppDatabase.swift`, and the board's reload.
extension PostgresEngine {
    func storeListings() throws -> [StoreListing] {
        try read { transaction in
            try Self.storeDetails(nil, transaction).map {
                StoreListing(store: $0.store, openingIntervals: $0.openingIntervals, closures: $0.closures)
            }
        }
    }

    func store(id: StoreID) throws -> Store? {
        try read { transaction in
            try transaction.row("SELECT \(unescaped: AppDatabase.storeColumns) FROM store WHERE id = \(id)")?.record(Store.self)
        }
    }

    func storeDetails(id: StoreID) throws -> StoreDetails? {
        try read { transaction in try Self.storeDetails(id, transaction).first }
    }

    func storeCount() throws -> Int {
        try read { transaction in try transaction.value("SELECT COUNT(*) FROM store") ?? 0 }
    }

    func createStore(_ new: AppDatabase.StoreRegistration) throws -> Store {
        try write { transaction in try Self.insert(new, transaction) }
    }

    func createStoresIfEmpty(_ stores: [AppDatabase.StoreRegistration]) throws -> Int {
        try write { transaction in
            // Two workers starting on an empty database at once: the second waits here, then
            // finds the stores the first added.
            try transaction.execute("LOCK TABLE store IN SHARE ROW EXCLUSIVE MODE")
            guard try transaction.value("SELECT COUNT(*) FROM store", as: Int.self) == 0 else { return 0 }
            for store in stores { _ = try Self.insert(store, transaction) }
            return stores.count
        }
    }

    func isHealthy() -> Bool {
        (try? storeCount()) != nil
    }

    private static func insert(_ new: AppDatabase.StoreRegistration, _ transaction: PostgresTransaction) throws -> Store {
        let store = new.store
        guard let row = try transaction.row("""
            INSERT INTO store (name, address, phone, latitude, longitude, capacity, timeZone, walkInPercent, slotMinutes,
                               slotCapacity, entryBeforeMinutes, entryAfterMinutes, callGraceMinutes)
            VALUES (\(store.name), \(store.address), \(store.phone), \(store.latitude), \(store.longitude), \(store.capacity),
                    \(store.timeZone), \(store.walkInPercent), \(store.slotMinutes), \(store.slotCapacity),
                    \(store.entryBeforeMinutes), \(store.entryAfterMinutes), \(store.callGraceMinutes))
            RETURNING \(unescaped: AppDatabase.storeColumns)
            """)
        else { preconditionFailure("INSERT … RETURNING returned no row") }
        let inserted: Store = try row.record()
        transaction.changed(store: inserted.id)
        // The insert's trigger made the store's learned sums: its model is a new store's
        // (`VisitModel`'s priors), not the plain default, from the start, as on SQLite.
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

    /// One store with its hours, closures and departments (those not retired), or every
    /// store in id order when `id` is nil: four statements, whatever the number of stores.
    static func storeDetails(_ id: StoreID?, _ transaction: PostgresTransaction) throws -> [StoreDetails] {
        // NULL matches every store.
        let stores: [Store] = try transaction.rows("""
            SELECT \(unescaped: AppDatabase.storeColumns) FROM store WHERE \(id)::bigint IS NULL OR id = \(id) ORDER BY id
            """).map { try $0.record() }
        var intervals = try Dictionary(grouping: transaction.rows("""
            SELECT storeId, weekday, opens, closes FROM openingInterval WHERE \(id)::bigint IS NULL OR storeId = \(id)
            ORDER BY storeId, weekday, opens
            """).map { try $0.record(OpeningIntervalRecord.self) }, by: \.storeId)
        var closures = try Dictionary(grouping: transaction.rows("""
            SELECT storeId, day, reason FROM storeClosure WHERE \(id)::bigint IS NULL OR storeId = \(id)
            ORDER BY storeId, day
            """).map { try $0.record(StoreClosure.self) }, by: \.storeId)
        var departments = try Dictionary(grouping: transaction.rows("""
            SELECT id, storeId, name, estimatedMinutes, position FROM department
            WHERE NOT retired AND (\(id)::bigint IS NULL OR storeId = \(id))
            ORDER BY storeId, position
            """).map { try $0.record(Department.self) }, by: \.storeId)
        return stores.map { store in
            defer {
                intervals[store.id] = nil
                closures[store.id] = nil
                departments[store.id] = nil
            }
            return StoreDetails(store: store, openingIntervals: intervals[store.id] ?? [], closures: closures[store.id] ?? [],
                                departments: departments[store.id] ?? [])
        }
    }

    /// Every store's learned sums.
    static func storeLoads(_ transaction: PostgresTransaction) throws -> [StoreLoad] {
        try transaction.rows("SELECT * FROM storeLoad ORDER BY storeId").map { try $0.record() }
    }

    /// Every reservation that has not ended, with its store, as the estimate sees it, in id
    /// order: the board's live rows.
    static func liveReservations(_ transaction: PostgresTransaction) throws -> [(StoreID, LiveReservation)] {
        try transaction.rows("""
            SELECT storeId, \(unescaped: AppDatabase.liveColumns) FROM reservation
            WHERE status IN ('waiting', 'called', 'inside', 'booked') ORDER BY id
            """).compactMap { row in
            let columns = try row.record(AppDatabase.LiveColumns.self)
            return try AppDatabase.live(columns).map { (try row[column: "storeId"].decode(StoreID.self), $0) }
        }
    }
}
