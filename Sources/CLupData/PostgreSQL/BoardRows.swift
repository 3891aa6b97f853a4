import CLupDomain
import Foundation

/// What the board's reload reads on PostgreSQL beside the stores (`AppDatabase.storeDetails`).
extension PostgresEngine {
    /// Every store's learned sums.
    static func storeLoads(_ transaction: PostgresTransaction) throws -> [StoreLoad] {
        try transaction.rows("SELECT * FROM storeLoad ORDER BY storeId").map { try $0.record() }
    }

    /// Every reservation that has not ended, with its store, as the estimate sees it, in id
    /// order: the board's live rows.
    static func liveReservations(_ transaction: PostgresTransaction) throws -> [(StoreID, LiveReservation)] {
        try transaction.rows("""
            SELECT \(unescaped: AppDatabase.liveColumns) FROM reservation
            WHERE status IN ('waiting', 'called', 'inside', 'booked') ORDER BY id
            """).compactMap { row in
            let row = SQLRow(row)
            return try AppDatabase.live(row).map { (try row.decode(1, as: StoreID.self), $0) }
        }
    }

    /// Every store's version (`storeVersion`).
    static func storeVersions(_ transaction: PostgresTransaction) throws -> [(StoreID, Int64)] {
        try transaction.rows("SELECT storeId, version FROM storeVersion").map { row in
            (StoreID(rawValue: try row[0].decode(Int64.self)), try row[1].decode(Int64.self))
        }
    }
}
