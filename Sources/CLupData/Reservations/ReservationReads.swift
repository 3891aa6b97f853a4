import CLupDomain
import Foundation

/// What a transaction reads beside a store it locks, for what the store decides (its day, a
/// slot): statements sent with the store's lock (`SQLTransaction.lockStore(_:alongWith:)`), in
/// the same round trip on PostgreSQL. Which statements depends on the store, which is known
/// only once locked: they are chosen for the store as the board has it, and chosen again, and
/// read again, should the store locked give others (`SQLTransaction.lockStore(_:board:reading:)`).
protocol StoreReads: Equatable {
    associatedtype Answer
    var statements: [SQL] { get }
    /// What `statements` returned.
    func read(_ answers: [[SQLRow]]) throws -> Answer
}

extension StoreReads {
    /// Sends `statements` by themselves and reads their answers.
    func read(in transaction: some SQLTransaction) throws -> Answer {
        try read(transaction.rows(of: statements))
    }
}

extension SQLTransaction {
    /// Locks store `id` and reads what `reads` chooses for it, with the lock; nil if there is no
    /// such store. `board` is the store as the board has it, if it does.
    func lockStore<Reads: StoreReads>(_ id: StoreID, board: StoreBoard.Definition?,
                                      reading reads: (StoreBoard.Definition) -> Reads) throws
        -> (store: StoreBoard.Definition, read: Reads.Answer)?
    {
        let expected = board.map(reads)
        let (locked, answers) = try lockStore(id, alongWith: expected?.statements ?? [])
        guard let locked else { return nil }
        let chosen = reads(locked)
        if let expected, expected == chosen { return (locked, try expected.read(answers)) }
        return (locked, try chosen.read(in: self))
    }
}

/// What making a reservation reads beside its store — the customer's active reservation, when
/// their latest ones were made (the rate limit), the store's next ticket number on the day,
/// the customer's past visits there (their pace), for a booking the slot's waiting list, and on
/// PostgreSQL the new reservation's id: one round trip on PostgreSQL, where they were seven.
struct ReservationReads: StoreReads {
    var userId: UserID
    var storeId: StoreID
    var day: Int
    var slot: Slot?
    var idSQL: SQL?

    init(userId: UserID, storeId: StoreID, day: Int, slot: Slot? = nil, _ transaction: some SQLTransaction) {
        (self.userId, self.storeId, self.day, self.slot) = (userId, storeId, day, slot)
        idSQL = transaction.newReservationIdSQL
    }

    static func == (a: Self, b: Self) -> Bool {
        (a.userId, a.storeId, a.day, a.slot) == (b.userId, b.storeId, b.day, b.slot)
    }

    var statements: [SQL] {
        [
            Reservation.activeSQL(userId: userId),
            AppDatabase.latestReservationsSQL(userId: userId),
            AppDatabase.nextNumberSQL(storeId: storeId, day: day),
            AppDatabase.pastVisitsSQL(userId: userId, storeId: storeId),
        ] + (slot.map { [AppDatabase.waitlistSQL(storeId: storeId, slotStart: $0.start)] } ?? []) + (idSQL.map { [$0] } ?? [])
    }

    func read(_ answers: [[SQLRow]]) throws -> Answer {
        var rest = answers.dropFirst(4).makeIterator()
        return Answer(
            active: try answers[0].first.map(Reservation.init(columnsOf:)),
            latest: try answers[1].compactMap { try $0.value(0, as: Date.self) },
            number: try answers[2].first?.value(0, as: Int.self) ?? 1,
            visits: try AppDatabase.visits(answers[3]),
            waitlist: try slot == nil ? [] : rest.next()?.map { try $0.record(WaitlistEntry.self) } ?? [],
            id: try idSQL == nil ? nil : rest.next()?.first?.value(0, as: ReservationID.self))
    }

    struct Answer {
        var active: Reservation?
        /// When the customer's latest reservations were made, newest first.
        var latest: [Date]
        var number: Int
        /// The customer's last visits to the store (`CustomerPace`).
        var visits: [CustomerPace.Visit]
        /// The waiting list of the booked slot, if a slot is given (`WaitingList`).
        var waitlist: [WaitlistEntry]
        /// The new reservation's id, where the engine gives it before the INSERT
        /// (`SQLTransaction.newReservationIdSQL`).
        var id: ReservationID?

        /// When the customer may reserve again, if they have reserved too often just now.
        func retryAt(now: Date) -> Date? {
            ReservationRate.retryAt(latest: latest, now: now)
        }

        /// The customer's pace at the store for a visit of `declared` seconds, against the
        /// store's own ratio of real to declared visits (its learned sums, which the store's
        /// traffic carries); nil before their first visit there.
        func pace(declared: TimeInterval, storeRatio: Double) -> Double? {
            visits.isEmpty ? nil : CustomerPace.factor(declared: declared, visits: visits, storeRatio: storeRatio)
        }
    }
}

/// What a walk-in's ticket reads beside its store: the day's next number, the ticket its form
/// printed already (a form sent twice prints one ticket), and on PostgreSQL its id.
struct WalkInReads: StoreReads {
    var storeId: StoreID
    var requestKey: String?
    var day: Int
    var idSQL: SQL?

    init(storeId: StoreID, requestKey: String?, day: Int, _ transaction: some SQLTransaction) {
        (self.storeId, self.requestKey, self.day, idSQL) = (storeId, requestKey, day, transaction.newReservationIdSQL)
    }

    static func == (a: Self, b: Self) -> Bool {
        (a.storeId, a.requestKey, a.day) == (b.storeId, b.requestKey, b.day)
    }

    var statements: [SQL] {
        [AppDatabase.nextNumberSQL(storeId: storeId, day: day)]
            + (requestKey.map { [Reservation.walkInSQL(storeId: storeId, requestKey: $0)] } ?? [])
            + (idSQL.map { [$0] } ?? [])
    }

    func read(_ answers: [[SQLRow]]) throws -> (earlier: Reservation?, number: Int, id: ReservationID?) {
        var answers = answers.makeIterator()
        let number = try answers.next()?.first?.value(0, as: Int.self) ?? 1
        let earlier = try requestKey == nil ? nil : answers.next()?.first.map(Reservation.init(columnsOf:))
        let id = try idSQL == nil ? nil : answers.next()?.first?.value(0, as: ReservationID.self)
        return (earlier, number, id)
    }
}
