import CLupDomain
import Foundation
import GRDB

/// What `clup measure-board` writes to time the kept store status: tickets put straight into
/// the table, past what the line-up rules would accept (two hours of queue), and changes made
/// without those rules, so that only the board's share of an update is measured. Straight on
/// the writer, as before group commit, so the figures stay comparable. Never used by the worker.
extension AppDatabase {
    /// `inside` people inside, then `waiting` tickets behind them, on `day`.
    public func fillForMeasurement(storeId: StoreID, day: Int, inside: Int, waiting: Int, now: Date) throws {
        try writer.write { db in
            for number in 1...(waiting + inside) {
                let isInside = number <= inside
                try db.execute(sql: """
                    INSERT INTO reservation (storeId, kind, walkIn, day, number, people, residenceMinutes, status,
                                             createdAt, enteredAt)
                    VALUES (?, 'lineUp', ?, ?, ?, 1, ?, ?, ?, ?)
                    """, arguments: [storeId, number % 5 == 0, day, number, [15, 30, 45, 60][number % 4],
                                     isInside ? "inside" : "waiting", now, isInside ? now - Double(number * 20) : nil])
            }
        }
    }

    /// One more waiting ticket, numbered `number`. Its statement is prepared once and kept, as
    /// the worker keeps its own: preparing an UPDATE of `reservation` compiles its triggers too.
    public func addWaitingForMeasurement(storeId: StoreID, day: Int, number: Int, now: Date) throws {
        try writer.write { db in
            try db.cachedStatement(sql: """
                INSERT INTO reservation (storeId, kind, walkIn, day, number, people, residenceMinutes, status, createdAt)
                VALUES (?, 'lineUp', 0, ?, ?, 1, 30, 'waiting', ?)
                """).execute(arguments: [storeId, day, number, now])
        }
    }

    /// Cancels the ticket as the worker does (`AppDatabase.setStatus`, statistics counted).
    public func cancelForMeasurement(id: ReservationID, now: Date) throws {
        try writer.write { db in
            try Self.setStatus(.cancelled, .endedAt, to: now, id: id, from: .active, SQLiteTransaction(db: db))
        }
    }

    /// Ids of the store's reservations with `status`, in order, `limit` from `offset`.
    public func idsForMeasurement(storeId: StoreID, status: ReservationStatus, limit: Int, offset: Int = 0) throws -> [ReservationID] {
        try reader.read { db in
            try ReservationID.fetchAll(db, sql: """
                SELECT id FROM reservation WHERE storeId = ? AND status = ? ORDER BY id LIMIT ? OFFSET ?
                """, arguments: [storeId, status.rawValue, limit, offset])
        }
    }
}
