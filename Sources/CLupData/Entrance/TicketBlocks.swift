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

    static let blockColumns = "id, storeId, kioskId, day, firstNumber, firstReservationId, size, createdAt"

    fileprivate static func ticketBlock(kioskId: Int64, day: Int, _ transaction: some SQLTransaction) throws -> TicketBlock? {
        try transaction.record("""
            SELECT \(unescaped: blockColumns) FROM ticketBlock WHERE kioskId = \(kioskId) AND day = \(day)
            """, as: TicketBlock.self)
    }

    /// The tickets of `block` that CLup has not heard of yet.
    fileprivate static func spare(in block: TicketBlock, _ transaction: some SQLTransaction) throws -> [SpareTicket] {
        let used = Set(try transaction.column("""
            SELECT id FROM reservation WHERE id BETWEEN \(block.firstReservationId) AND \(block.lastReservationId)
            """, as: ReservationID.self).compactMap { $0 })
        return block.reservationIds.filter { !used.contains($0) }.map { SpareTicket(id: $0, number: block.number(of: $0)) }
    }

    /// A new block for `kiosk` and `day`: the day's next numbers (the store is locked), and
    /// ids the reservation table will never hand out by itself (`SQLTransaction.setAsideReservationIds`).
    /// This happens once per kiosk and day.
    fileprivate static func reserveTicketBlock(kiosk: Kiosk, day: Int, now: Date, _ transaction: some SQLTransaction) throws
        -> TicketBlock
    {
        let firstNumber = try nextNumber(storeId: kiosk.storeId, day: day, transaction)
        let size = ticketBlockSize
        let firstId = try transaction.setAsideReservationIds(size)
        guard let block = try transaction.record("""
            INSERT INTO ticketBlock (storeId, kioskId, day, firstNumber, firstReservationId, size, createdAt)
            VALUES (\(kiosk.storeId), \(kiosk.id), \(day), \(firstNumber), \(firstId), \(size), \(now))
            RETURNING \(unescaped: blockColumns)
            """, as: TicketBlock.self)
        else { preconditionFailure("INSERT … RETURNING returned no row") }
        return block
    }

    /// The block of store `storeId` that ticket `id` is from, if it is from one.
    static func ticketBlock(containing id: ReservationID, storeId: StoreID, _ transaction: some SQLTransaction) throws
        -> TicketBlock?
    {
        try transaction.record("""
            SELECT \(unescaped: blockColumns) FROM ticketBlock
            WHERE storeId = \(storeId) AND firstReservationId <= \(id) AND \(id) < firstReservationId + size
            """, as: TicketBlock.self)
    }

    /// Makes reservation `id`, a ticket of `block` printed offline, as a walk-in waiting since
    /// `issuedAt`, inside the caller's transaction.
    static func printedOfflineTicket(_ id: ReservationID, of block: TicketBlock, people: Int, residenceMinutes: Int,
                                     issuedAt: Date, _ transaction: some SQLTransaction) throws -> Reservation
    {
        try insert(NewReservation(
            storeId: block.storeId, userId: nil, kind: .lineUp, walkIn: true, day: block.day, number: block.number(of: id),
            people: people, residenceMinutes: residenceMinutes, status: .waiting, createdAt: issuedAt, requestKey: nil),
                   id: id, transaction)
    }
}

extension Doors {

    /// The block `kiosk` keeps for its store's business day at `now`, reserved now if it has
    /// none yet, and which of its tickets are still spare; nil if the store is gone.
    public func ticketBlock(for kiosk: Kiosk, now: Date) throws -> (block: TicketBlock, spare: [SpareTicket])? {
        guard let day = database.board.entry(kiosk.storeId)?.hours.businessDay(at: now) else { return nil }
        // Read, as every dispenser page load asks: written only on the day's first asking.
        let kept = try database.reading { transaction in
            try AppDatabase.ticketBlock(kioskId: kiosk.id, day: day, transaction).map { ($0, try AppDatabase.spare(in: $0, transaction)) }
        }
        if let kept { return kept }
        return try database.transaction { transaction in
            guard let details = try transaction.lockStore(kiosk.storeId) else { return nil }
            let day = details.openingHours.businessDay(at: now)
            let block = try AppDatabase.ticketBlock(kioskId: kiosk.id, day: day, transaction)
                ?? AppDatabase.reserveTicketBlock(kiosk: kiosk, day: day, now: now, transaction)
            return (block, try AppDatabase.spare(in: block, transaction))
        }
    }

    /// The store's blocks for its business days `days` (what its doors must know to admit a
    /// ticket printed offline).
    public func ticketBlocks(storeId: StoreID, days: ClosedRange<Int>) throws -> [TicketBlock] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: AppDatabase.blockColumns) FROM ticketBlock
                WHERE storeId = \(storeId) AND day BETWEEN \(days.lowerBound) AND \(days.upperBound)
                ORDER BY firstReservationId
                """, as: TicketBlock.self)
        }
    }

    /// A ticket `kiosk` printed while CLup could not be reached, as it reports it once CLup
    /// answers: made now (if the door has not already made it) as a walk-in waiting since
    /// `issuedAt`, so the queue calls it in its turn and the board shows it.
    public func reportOfflineTicket(_ id: ReservationID, kiosk: Kiosk, people: Int, residenceMinutes: Int,
                                    issuedAt: Date, now: Date) throws -> OfflineTicketOutcome
    {
        try database.transaction { transaction in
            guard try transaction.lockStore(kiosk.storeId) != nil,
                let block = try transaction.record("""
                    SELECT \(unescaped: AppDatabase.blockColumns) FROM ticketBlock
                    WHERE kioskId = \(kiosk.id) AND firstReservationId <= \(id) AND \(id) < firstReservationId + size
                    """, as: TicketBlock.self)
            else { return .notInBlock }
            if let known = try Reservation.find(id, transaction) { return .alreadyKnown(known) }
            let made = try AppDatabase.printedOfflineTicket(id, of: block, people: people, residenceMinutes: residenceMinutes,
                                                     issuedAt: min(issuedAt, now), transaction)
            try AppDatabase.advanceQueue(storeId: kiosk.storeId, now: now, transaction)
            return .recorded(try Reservation.find(made.id, transaction) ?? made)
        }
    }
}
