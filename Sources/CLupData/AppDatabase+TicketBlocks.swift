import CLupDomain
import Foundation
import GRDB

/// Ticket numbers and reservation ids a kiosk keeps for its store's day, to print walk-in
/// tickets while CLup cannot be reached: ticket `i` of the block is reservation
/// `firstReservationId + i`, numbered `firstNumber + i`. Nothing else is given those ids or
/// numbers; the reservation is made when CLup first hears of the ticket — from the kiosk that
/// printed it, or from the door that scanned it, whichever comes first.
public struct TicketBlock: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public var id: Int64
    public var storeId: StoreID
    public var kioskId: Int64
    public var day: Int
    public var firstNumber: Int
    public var firstReservationId: ReservationID
    public var size: Int
    public var createdAt: Date

    public static let databaseTableName = "ticketBlock"

    /// The block's reservation ids, first to last.
    public var reservationIds: [ReservationID] {
        (0..<Int64(size)).map { ReservationID(firstReservationId.rawValue + $0) }
    }

    public var lastReservationId: ReservationID { ReservationID(firstReservationId.rawValue + Int64(size) - 1) }

    public func contains(_ id: ReservationID) -> Bool {
        (firstReservationId...lastReservationId).contains(id)
    }

    /// The ticket number of reservation `id` of the block.
    public func number(of id: ReservationID) -> Int {
        firstNumber + Int(id.rawValue - firstReservationId.rawValue)
    }
}

/// A ticket of a block that CLup has not heard of yet: still free to print.
public struct SpareTicket: Sendable, Equatable {
    public var id: ReservationID
    public var number: Int
}

/// What became of a kiosk's report of a ticket it printed offline.
public enum OfflineTicketOutcome: Sendable {
    /// Made now, waiting in the walk-in queue from the time it was printed.
    case recorded(Reservation)
    /// Already made (the report sent again, or the door scanned it first).
    case alreadyKnown(Reservation)
    /// Not a ticket of this kiosk's blocks.
    case notInBlock
}

extension AppDatabase {
    /// Tickets in a block: enough for an outage of a busy quarter of an hour at one dispenser.
    public static let ticketBlockSize = 10

    /// The block `kiosk` keeps for its store's business day at `now`, reserved now if it has
    /// none yet, and which of its tickets are still spare; nil if the store is gone.
    public func ticketBlock(for kiosk: Kiosk, now: Date) throws -> (block: TicketBlock, spare: [SpareTicket])? {
        if let postgres { return try postgres.ticketBlock(for: kiosk, now: now) }
        guard let day = board.entry(kiosk.storeId)?.hours.businessDay(at: now) else { return nil }
        // Read, as every dispenser page load asks: written only on the day's first asking.
        let kept = try reader.read { db in
            try Self.ticketBlock(kioskId: kiosk.id, day: day, db).map { ($0, try Self.spare(in: $0, db)) }
        }
        if let kept { return kept }
        return try write { db in
            guard let details = try transactionDefinition(storeId: kiosk.storeId, db) else { return nil }
            let day = details.openingHours.businessDay(at: now)
            let block = try Self.ticketBlock(kioskId: kiosk.id, day: day, db)
                ?? Self.reserveTicketBlock(kiosk: kiosk, day: day, now: now, db)
            return (block, try Self.spare(in: block, db))
        }
    }

    private static func ticketBlock(kioskId: Int64, day: Int, _ db: Database) throws -> TicketBlock? {
        try TicketBlock.filter(Column("kioskId") == kioskId && Column("day") == day).fetchOne(db)
    }

    /// The tickets of `block` that CLup has not heard of yet.
    private static func spare(in block: TicketBlock, _ db: Database) throws -> [SpareTicket] {
        let used = Set(try ReservationID.fetchAll(db.cachedStatement(sql: """
            SELECT id FROM reservation WHERE id BETWEEN ? AND ?
            """), arguments: [block.firstReservationId, block.lastReservationId]))
        return block.reservationIds.filter { !used.contains($0) }.map { SpareTicket(id: $0, number: block.number(of: $0)) }
    }

    /// A new block for `kiosk` and `day`: the day's next numbers, and ids past every
    /// reservation made or to be made (the table's sequence is moved past the block).
    private static func reserveTicketBlock(kiosk: Kiosk, day: Int, now: Date, _ db: Database) throws -> TicketBlock {
        let firstNumber = try nextNumber(storeId: kiosk.storeId, day: day, db)
        let lastId = try Int64.fetchOne(db, sql: """
            SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'reservation'), 0),
                       COALESCE((SELECT MAX(id) FROM reservation), 0))
            """) ?? 0
        let size = ticketBlockSize
        try db.execute(sql: "DELETE FROM sqlite_sequence WHERE name = 'reservation'")
        try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('reservation', ?)",
                       arguments: [lastId + Int64(size)])
        try db.execute(sql: """
            INSERT INTO ticketBlock (storeId, kioskId, day, firstNumber, firstReservationId, size, createdAt)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """, arguments: [kiosk.storeId, kiosk.id, day, firstNumber, lastId + 1, size, now.databaseText])
        return TicketBlock(id: db.lastInsertedRowID, storeId: kiosk.storeId, kioskId: kiosk.id, day: day,
                           firstNumber: firstNumber, firstReservationId: ReservationID(lastId + 1), size: size,
                           createdAt: now)
    }

    /// The store's blocks for its business days `days` (what its doors must know to admit a
    /// ticket printed offline).
    public func ticketBlocks(storeId: StoreID, days: ClosedRange<Int>) throws -> [TicketBlock] {
        if let postgres { return try postgres.ticketBlocks(storeId: storeId, days: days) }
        return try reader.read { db in
            try TicketBlock.filter(Column("storeId") == storeId && days.contains(Column("day")))
                .order(Column("firstReservationId")).fetchAll(db)
        }
    }

    /// A ticket `kiosk` printed while CLup could not be reached, as it reports it once CLup
    /// answers: made now (if the door has not already made it) as a walk-in waiting since
    /// `issuedAt`, so the queue calls it in its turn and the board shows it.
    public func reportOfflineTicket(_ id: ReservationID, kiosk: Kiosk, people: Int, residenceMinutes: Int,
                                    issuedAt: Date, now: Date) throws -> OfflineTicketOutcome
    {
        if let postgres {
            return try postgres.reportOfflineTicket(id, kiosk: kiosk, people: people, residenceMinutes: residenceMinutes,
                                                    issuedAt: issuedAt, now: now)
        }
        return try write { db in
            guard let block = try TicketBlock.fetchOne(db.cachedStatement(sql: """
                SELECT * FROM ticketBlock WHERE kioskId = ? AND firstReservationId <= ? AND ? < firstReservationId + size
                """), arguments: [kiosk.id, id, id])
            else { return .notInBlock }
            if let known = try Reservation.find(id, db) { return .alreadyKnown(known) }
            let made = try Self.printedOfflineTicket(id, of: block, people: people, residenceMinutes: residenceMinutes,
                                                     issuedAt: min(issuedAt, now), db)
            try advanceQueue(storeId: kiosk.storeId, now: now, db)
            return .recorded(try Reservation.find(made.id, db) ?? made)
        }
    }

    /// The block of store `storeId` that ticket `id` is from, if it is from one.
    static func ticketBlock(containing id: ReservationID, storeId: StoreID, _ db: Database) throws -> TicketBlock? {
        try TicketBlock.fetchOne(db.cachedStatement(sql: """
            SELECT * FROM ticketBlock WHERE storeId = ? AND firstReservationId <= ? AND ? < firstReservationId + size
            """), arguments: [storeId, id, id])
    }

    /// Makes reservation `id`, a ticket of `block` printed offline, as a walk-in waiting since
    /// `issuedAt`, inside the caller's transaction.
    static func printedOfflineTicket(_ id: ReservationID, of block: TicketBlock, people: Int, residenceMinutes: Int,
                                     issuedAt: Date, _ db: Database) throws -> Reservation
    {
        try NewReservation(
            storeId: block.storeId, userId: nil, kind: .lineUp, walkIn: true, day: block.day, number: block.number(of: id),
            people: people, residenceMinutes: residenceMinutes, status: .waiting, createdAt: issuedAt, requestKey: nil
        ).insert(returning: db, id: id)
    }
}
