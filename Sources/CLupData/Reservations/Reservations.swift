import CLupDomain
import CLupSupport
import Foundation
import GRDB

/// A reservation as the customer asks for it, before the database gives it a number.
public struct ReservationRequest: Sendable {
    public var storeId: StoreID
    public var userId: UserID
    public var kind: Reservation.Kind
    public var people: Int
    public var residenceMinutes: Int
    public var travelMode: TravelMode?
    /// The chosen slot's start, for a booking.
    public var slotStart: Date?
    /// The confirming form's one-time key.
    public var requestKey: String
    /// Cancel the customer's active reservation to make this one (R13, they said so).
    public var replacingActive: Bool
    /// How far from the store the customer is, for a line-up's travel time.
    public var travelMetres: Int?
    /// The departments they said they would visit (ids of other stores' are ignored).
    public var departmentIds: [Int64]
    /// A line-up asking for a priority place (`PriorityLane`): granted only where the store
    /// lets customers ask online, otherwise an ordinary place.
    public var priority: Bool

    public init(
        storeId: StoreID, userId: UserID, kind: Reservation.Kind, people: Int, residenceMinutes: Int,
        travelMode: TravelMode? = nil, slotStart: Date? = nil, requestKey: String, replacingActive: Bool = false,
        travelMetres: Int? = nil, departmentIds: [Int64] = [], priority: Bool = false
    ) {
        self.priority = priority
        self.travelMetres = travelMetres
        self.departmentIds = departmentIds
        self.storeId = storeId
        self.userId = userId
        self.kind = kind
        self.people = people
        self.residenceMinutes = residenceMinutes
        self.travelMode = travelMode
        self.slotStart = slotStart
        self.requestKey = requestKey
        self.replacingActive = replacingActive
    }
}

extension ReservationRequest {
    /// The line-up's travel time, from the means of transport and the distance.
    var travel: TimeInterval {
        guard kind == .lineUp, let travelMode, let travelMetres else { return 0 }
        return TravelMode.travel(mode: travelMode, metres: travelMetres)
    }

    /// For a booking, the store's verdict on its slot, checked first from the store alone;
    /// the slot if it may be booked; and the day whose ticket numbers the reservation takes:
    /// its slot's, or today's.
    func slotAndDay(at store: StoreBoard.Definition, now: Date) -> (verdict: SlotCalendar.Verdict?, slot: Slot?, day: Int) {
        let verdict = kind == .booking
            ? slotStart.map { store.slotCalendar.verdict(start: $0, residence: Double(residenceMinutes) * 60, now: now) }
                ?? .notASlot
            : nil
        var slot: Slot?
        if case .bookable(let bookable)? = verdict { slot = bookable }
        return (verdict, slot, store.openingHours.businessDay(at: slot?.start ?? now))
    }

    /// Whether the line-up is given a priority place: asked for, at a store that lets its
    /// customers ask online.
    func grantsPriority(_ settings: StoreSettings) -> Bool {
        priority && kind == .lineUp && settings.priority.asksOnline
    }
}

/// What became of a reservation request. Only `.created` changed anything.
public enum ReservationOutcome: Sendable {
    case created(Reservation)
    /// The same form was sent again (a double click, a retry): the reservation it made.
    case alreadyMade(Reservation)
    /// The customer has an active reservation and has not said to replace it.
    case hasActive(ReservationWithStore)
    case slotFull
    case slotRefused(SlotCalendar.Verdict)
    case lineUpRefused(LineUpPolicy.Decision)
    /// The account has made `ReservationRate.perHour` reservations this hour: another may be
    /// made at `retryAt`.
    case tooMany(retryAt: Date)
    case noSuchStore
}

extension AppDatabase {
    /// When the customer's latest reservations were made, as many as the rate limit counts
    /// (`ReservationRate`).
    static func latestReservationsSQL(userId: UserID) -> SQL {
        "SELECT createdAt FROM reservation WHERE userId = \(userId) ORDER BY createdAt DESC LIMIT \(ReservationRate.perHour)"
    }
}

extension AppDatabase {

    /// Bookings further than this from now neither hold places now nor will within the
    /// estimate's horizon (entry windows are at most an hour either side of the slot, plus the
    /// lookahead, plus the horizon).
    public static let bookingReach: TimeInterval = 3600 + StoreTraffic.bookingLookahead + StoreTraffic.holdHorizon

    /// The store's live traffic as its rows hold it (`liveTraffic`).
    static func committedTraffic(storeId: StoreID, now: Date, _ transaction: some SQLTransaction) throws -> LiveTraffic {
        let load = try transaction.record("SELECT * FROM storeLoad WHERE storeId = \(storeId)", as: StoreLoad.self)
        var traffic = LiveTraffic(live: [], model: load?.model ?? VisitModel())
        for row in try transaction.rows("""
            SELECT \(unescaped: liveColumns) FROM reservation
            WHERE storeId = \(storeId) AND status IN ('waiting', 'called', 'inside')
            ORDER BY \(unescaped: queueOrder)
            """) + transaction.rows("""
            SELECT \(unescaped: liveColumns) FROM reservation
            WHERE storeId = \(storeId) AND status = 'booked' AND slotStart BETWEEN \(now - bookingReach) AND \(now + bookingReach)
            ORDER BY slotStart, id
            """)
        {
            if let live = try live(row) { traffic.live.append(live) }
        }
        return traffic
    }

    /// The columns the wait estimate reads, in the order `live(_:)` reads them by position.
    static let liveColumns =
        "id, storeId, status, people, residenceMinutes, calledAt, enteredAt, slotStart, walkIn, number, day, "
            + "travelMode, travelMetres, leftAt, pace, priority, queuePosition, createdAt"

    /// A store's queue in the order it is called (`QueueKey`), on either engine.
    static let queueOrder = "COALESCE(queuePosition, id), priority DESC, id"

    /// A reservation row selected as `liveColumns` (first) as the wait estimate sees it; nil
    /// once it has ended. Read by position: a name is looked up by comparing it, without case,
    /// with every column's, and the write path reads back every row it changes.
    static func live(_ row: SQLRow) throws -> LiveReservation? {
        live(LiveColumns(id: try row.decode(0), status: try row.decode(2), people: try row.decode(3),
                         residenceMinutes: try row.decode(4), calledAt: try row.value(5), enteredAt: try row.value(6),
                         slotStart: try row.value(7), walkIn: try row.decode(8), number: try row.decode(9),
                         day: try row.decode(10), travelMode: try row.value(11), travelMetres: try row.value(12),
                         leftAt: try row.value(13), pace: try row.value(14), priority: try row.decode(15),
                         queuePosition: try row.value(16), createdAt: try row.decode(17)))
    }

    /// The columns of a reservation the wait estimate reads (`liveColumns`), from either engine.
    struct LiveColumns {
        var id: ReservationID
        var status: String
        var people: Int
        var residenceMinutes: Int
        var calledAt: Date?
        var enteredAt: Date?
        var slotStart: Date?
        var walkIn: Bool
        var number: Int
        var day: Int
        var travelMode: String?
        var travelMetres: Int?
        var leftAt: Date?
        var pace: Double?
        var priority: Bool
        var queuePosition: ReservationID?
        var createdAt: Date
    }

    /// A reservation as the wait estimate sees it; nil once it has ended.
    static func live(_ row: LiveColumns) -> LiveReservation? {
        let state: LiveReservation.State
        switch Reservation.Status(rawValue: row.status) {
        case .waiting: state = .waiting
        case .called: state = .called(at: row.calledAt ?? .distantPast)
        case .inside: state = .inside(since: row.enteredAt ?? .distantPast)
        case .booked: state = .booked(slotStart: row.slotStart ?? .distantPast)
        default: return nil
        }
        // The customer's own pace, when their history set one (`CustomerPace`): the estimate
        // takes them to declare that much more or less than they will stay.
        let pace = row.pace ?? 1
        var travel: TimeInterval = 0
        if !row.walkIn, state == .waiting || state.isCalled, let metres = row.travelMetres,
            let mode = row.travelMode.flatMap(TravelMode.init(rawValue:))
        {
            travel = TravelMode.travel(mode: mode, metres: metres)
        }
        return LiveReservation(id: row.id, state: state, people: row.people,
                               residence: Double(row.residenceMinutes) * 60 * pace, walkIn: row.walkIn, number: row.number,
                               day: row.day, travel: travel, leftAt: row.leftAt, priority: row.priority,
                               position: row.queuePosition, issuedAt: row.createdAt)
    }

    /// The reservations `ids` as the estimate sees them, each with its store and customer (nil:
    /// a walk-in) and nil once ended, in id order; an id with no row is left out. One prepared
    /// statement per id: a SQLite transaction's observer reads back the few rows it changed.
    static func liveRows(ids: Set<ReservationID>, _ db: Database) throws
        -> [(storeId: StoreID, id: ReservationID, userId: UserID?, live: LiveReservation?)]
    {
        let statement = try db.cachedStatement(sql: "SELECT \(liveColumns), userId FROM reservation WHERE id = ?")
        return try ids.sorted().compactMap { id in
            try Row.fetchOne(statement, arguments: [id]).map { row in (row[1], id, row[18], try live(SQLRow(row))) }
        }
    }

    /// Reservations matching `condition` that have not ended, each with its store and as the
    /// estimate sees it, in id order: SQLite's board as it loads.
    static func liveRows(where condition: String, arguments: StatementArguments, _ db: Database) throws
        -> [(storeId: StoreID, id: ReservationID, live: LiveReservation)]
    {
        let rows = try Row.fetchCursor(db, sql: "SELECT \(liveColumns) FROM reservation WHERE \(condition) ORDER BY id",
                                       arguments: arguments)
        var result: [(storeId: StoreID, id: ReservationID, live: LiveReservation)] = []
        while let row = try rows.next() {
            if let live = try live(SQLRow(row)) { result.append((row[1], row[0], live)) }
        }
        return result
    }

    /// Inserts a reservation and returns it with its id: the one given (a ticket printed
    /// offline, whose id was kept for it), else the one the database gives it. The rest of
    /// the transaction finds it in `SQLTransaction.own`.
    static func insert(_ new: NewReservation, id: ReservationID? = nil, _ transaction: some SQLTransaction) throws
        -> Reservation
    {
        let statement = insertSQL(OwnReservations.Row(new, id: id ?? ReservationID(rawValue: 0)), givingId: id != nil)
        guard let reservation = try Reservation.all(statement + " RETURNING \(unescaped: Reservation.columnList)",
                                                    transaction).first
        else { preconditionFailure("INSERT … RETURNING returned no row") }
        return remember(OwnReservations.Row(reservation: reservation, pace: new.pace,
                                            expectedEntry: new.expectedEntry.map { transaction.asStored($0.toTheMillisecond) }),
                        transaction)
    }

    /// Inserts a reservation with `id`, an id the engine gave before (`ReservationReads.id`):
    /// the row is known as it will be read without reading it back, and the INSERT goes with
    /// the transaction's next statement (on PostgreSQL, a round trip fewer; a refusal fails
    /// the transaction there). Until then, the changes the transaction makes to it are made to
    /// the INSERT (`change(_:_:own:_:)`). Without an id, `insert(_:id:_:)`.
    static func insert(taking id: ReservationID?, _ new: NewReservation, _ transaction: some SQLTransaction) throws
        -> Reservation
    {
        guard let id else { return try insert(new, transaction) }
        let row = OwnReservations.Row(new, id: id, stored: transaction.asStored)
        try transaction.insertLater(insertSQL(row, givingId: true), reservation: id)
        return remember(row, transaction)
    }

    /// Changes reservation `id` with `update`, sent with the transaction's next statement. One
    /// this transaction inserted is changed as it is kept (`own`, which says whether anything
    /// changes: false, nothing is written), and written into its INSERT if that has not been
    /// sent yet (one statement, not two). False if nothing was written.
    @discardableResult
    static func change(_ id: ReservationID, _ update: SQL, own: (inout OwnReservations.Row) -> Bool,
                       _ transaction: some SQLTransaction) throws -> Bool
    {
        guard var row = transaction.own[id] else {
            try transaction.executeLater(update)
            return true
        }
        guard own(&row) else { return false }
        transaction.own[id] = row
        if !transaction.replaceLater(reservation: id, with: insertSQL(row, givingId: true)) {
            try transaction.executeLater(update)
        }
        return true
    }

    /// The INSERT of `row`, with its id or (`givingId` false) the one the table gives.
    private static func insertSQL(_ row: OwnReservations.Row, givingId: Bool) -> SQL {
        let r = row.reservation
        let values: SQL = """
            \(r.storeId), \(r.userId), \(r.kind.rawValue), \(r.walkIn), \(r.day), \(r.number), \(r.people),
            \(r.residenceMinutes), \(r.travelMode?.rawValue), \(r.slotStart), \(r.status.rawValue), \(r.createdAt),
            \(r.requestKey), \(r.travelMetres), \(row.expectedEntry), \(row.pace), \(r.priority), \(r.queuePosition),
            \(r.confirmedAt), \(r.remindedAt), \(r.calledAt), \(r.enteredAt), \(r.exitedAt), \(r.endedAt), \(r.leftAt)
            """
        let columns = """
            storeId, userId, kind, walkIn, day, number, people, residenceMinutes, travelMode, slotStart, status, createdAt,
            requestKey, travelMetres, expectedEntry, pace, priority, queuePosition, confirmedAt, remindedAt,
            calledAt, enteredAt, exitedAt, endedAt, leftAt
            """
        return if givingId {
            "INSERT INTO reservation (id, \(unescaped: columns)) VALUES (\(r.id), \(values))"
        } else {
            "INSERT INTO reservation (\(unescaped: columns)) VALUES (\(values))"
        }
    }

    /// Notes `row`, just inserted, as changed and as the transaction's own.
    private static func remember(_ row: OwnReservations.Row, _ transaction: some SQLTransaction) -> Reservation {
        transaction.changed(reservation: row.reservation.id, of: row.reservation.storeId)
        transaction.own[row.reservation.id] = row
        return row.reservation
    }
}

extension Reservations {
    // MARK: Reading traffic

    /// One store's live traffic at `now`, read from the committed rows through partial
    /// indexes — queued, called and inside tickets, and bookings whose slot is near — so its
    /// cost does not grow with the history. Transactions decide from `SQLTransaction.traffic`;
    /// pages read the board.
    public func liveTraffic(storeId: StoreID, now: Date) throws -> LiveTraffic {
        try database.reading { transaction in try AppDatabase.committedTraffic(storeId: storeId, now: now, transaction) }
    }

    /// People booked in each of `slots` (in order) at a store, by slot start.
    public func bookedPeople(storeId: StoreID, in slots: [Slot]) throws -> [Date: Int] {
        try database.reading { transaction in try AppDatabase.bookedPeople(storeId: storeId, in: slots, transaction) }
    }

    /// People booked in `slot`.
    public func bookedPeople(storeId: StoreID, in slot: Slot) throws -> Int {
        try bookedPeople(storeId: storeId, in: [slot])[slot.start] ?? 0
    }

    // MARK: Making and ending reservations

    /// Makes a reservation in one transaction, checking everything the answer depends on
    /// against the committed state, under the store's lock (`SQLTransaction.lockStore`): the
    /// request key (a form sent twice makes one reservation), the customer's active
    /// reservation, and for a line-up the store's wait and hours, for a booking the slot's
    /// rules and free places. Nothing changes unless the outcome is `.created`.
    public func reserve(_ request: ReservationRequest, now: Date) throws -> ReservationOutcome {
        do {
            return try database.transaction { transaction in
                // The customer first, then the store: two of their requests at once, on two
                // PostgreSQL workers, are taken one after the other, and the second sees the
                // first's reservation.
                try transaction.lockCustomer(request.userId)
                // What the checks read is read with the store's lock, in the same round trip on
                // PostgreSQL, for the slot and day the store gives.
                let declared = Double(request.residenceMinutes) * 60
                guard let (details, reads) = try transaction.lockStore(
                    request.storeId, board: database.board.entry(request.storeId)?.definition, reading: { store in
                        let (_, slot, day) = request.slotAndDay(at: store, now: now)
                        return ReservationReads(userId: request.userId, storeId: request.storeId, day: day, slot: slot,
                                                transaction)
                    }), !details.isRetired
                else { return .noSuchStore }
                let store = details.store
                let (verdict, slot, day) = request.slotAndDay(at: details, now: now)
                let active = reads.active
                if let active, active.requestKey == request.requestKey { return .alreadyMade(active) }
                if let retryAt = reads.retryAt(now: now) { return .tooMany(retryAt: retryAt) }
                // The rules of time come first: there is no point asking whether to replace the
                // active reservation with one that cannot be made.
                var expectedEntry: Date?
                let priority = request.grantsPriority(store.settings)
                var position: ReservationID?
                // The store's traffic as locked, before this transaction changes it: the queue
                // and the learned sums the customer's pace is measured against.
                let traffic = try transaction.traffic(storeId: request.storeId, now: now)
                switch request.kind {
                case .lineUp:
                    let (decision, before) = traffic.lineUpDecision(
                        people: request.people, residence: declared, priority: priority,
                        travel: request.travel, settings: store.settings, hours: details.openingHours, now: now,
                        pool: .online)
                    guard case .accepted(_, let entry) = decision else { throw Refusal.lineUp(decision) }
                    expectedEntry = entry
                    position = before
                case .booking:
                    guard slot != nil else { throw Refusal.slot(verdict ?? .notASlot) }
                }
                if let active {
                    guard request.replacingActive, active.status != .inside else {
                        guard let activeStore = try AppDatabase.storeDetails(active.storeId, transaction).first?.store else {
                            return .noSuchStore
                        }
                        return .hasActive(ReservationWithStore(reservation: active, store: activeStore))
                    }
                    if active.storeId != request.storeId { _ = try transaction.lockStore(active.storeId) }
                    try AppDatabase.cancel(active, reason: .replaced, now: now, transaction)
                }
                if let slot {
                    // Places the slot's waiting list could take are the list's (`WaitingList`).
                    // The bookings are the store's, under its lock, with a replaced one cancelled.
                    let booked = try transaction.traffic(storeId: request.storeId, now: now).peopleBooked(in: slot)
                    guard WaitingList.canBook(people: request.people, capacity: store.slotCapacity, booked: booked,
                                              entries: reads.waitlist.map(\.rule))
                    else { throw Refusal.slotFull }
                }
                let reservation = try AppDatabase.insert(taking: reads.id, NewReservation(
                    storeId: request.storeId, userId: request.userId, kind: request.kind, walkIn: false, day: day,
                    number: reads.number, people: request.people, residenceMinutes: request.residenceMinutes,
                    travelMode: request.kind == .lineUp ? request.travelMode : nil,
                    slotStart: request.kind == .booking ? request.slotStart : nil,
                    status: request.kind == .lineUp ? .waiting : .booked, createdAt: now,
                    requestKey: request.requestKey, travelMetres: request.kind == .lineUp ? request.travelMetres : nil,
                    expectedEntry: expectedEntry,
                    pace: reads.pace(declared: declared, storeRatio: traffic.model.ratio),
                    priority: priority, queuePosition: position,
                    // A booking made too close to its slot for a reminder to make sense counts as
                    // confirmed: the customer has just chosen it.
                    confirmedAt: slot.flatMap {
                        $0.start.timeIntervalSince(now) < BookingReminder.lead + BookingReminder.lateBookingMargin ? now : nil
                    }), transaction)
                for departmentId in request.departmentIds {
                    try transaction.execute("""
                        INSERT INTO reservationDepartment (reservationId, departmentId)
                        SELECT \(reservation.id), id FROM department WHERE id = \(departmentId) AND storeId = \(request.storeId)
                        ON CONFLICT DO NOTHING
                        """)
                }
                // A queue with free places calls a new line-up at once; a replaced
                // reservation's places go to the next in its store's queue. A booking alone
                // (two hours ahead at least) changes nobody's turn.
                var queuesToAdvance: Set<StoreID> = []
                if request.kind == .lineUp { queuesToAdvance.insert(request.storeId) }
                if let active { queuesToAdvance.insert(active.storeId) }
                for storeId in queuesToAdvance.sorted() { try AppDatabase.advanceQueue(storeId: storeId, now: now, transaction) }
                return .created(try AppDatabase.reservationAsNow(reservation.id, transaction) ?? reservation)
            }
        } catch let refusal as Refusal {
            // Thrown inside the transaction so that a replaced reservation's cancellation is
            // rolled back with it.
            switch refusal {
            case .lineUp(let decision): return .lineUpRefused(decision)
            case .slot(let verdict): return .slotRefused(verdict)
            case .slotFull: return .slotFull
            }
        } catch let error where AppDatabase.isRefusal(error, "slot full") {
            return .slotFull
        }
    }

    private enum Refusal: Error {
        case lineUp(LineUpPolicy.Decision)
        case slot(SlotCalendar.Verdict)
        case slotFull
    }

    /// Cancels the customer's reservation if it is theirs and not yet used; false otherwise.
    /// Its place goes to the next in the queue.
    public func cancelReservation(id: ReservationID, userId: UserID, now: Date) throws -> Bool {
        try database.transaction { transaction in
            guard let storeId = try transaction.value("SELECT storeId FROM reservation WHERE id = \(id)", as: StoreID.self),
                try transaction.lockStore(storeId) != nil,
                let reservation = try Reservation.find(id, transaction), reservation.userId == userId,
                reservation.status.isCancellable
            else { return false }
            try AppDatabase.cancel(reservation, reason: .byCustomer, now: now, transaction)
            try AppDatabase.advanceQueue(storeId: reservation.storeId, now: now, transaction)
            return true
        }
    }

    // MARK: Reading reservations

    /// The reservations `sql` selects (its columns `Reservation.columnList`), each with its store.
    private func reservationsWithStores(_ sql: SQL) throws -> [ReservationWithStore] {
        try database.reading { transaction in
            var stores: [StoreID: Store] = [:]
            return try Reservation.all(sql, transaction).compactMap { reservation in
                if stores[reservation.storeId] == nil {
                    stores[reservation.storeId] = try transaction.record("""
                        SELECT \(unescaped: AppDatabase.storeColumns) FROM store WHERE id = \(reservation.storeId)
                        """, as: Store.self)
                }
                return stores[reservation.storeId].map { ReservationWithStore(reservation: reservation, store: $0) }
            }
        }
    }

    public func reservation(id: ReservationID) throws -> ReservationWithStore? {
        try reservationsWithStores("SELECT \(unescaped: Reservation.columnList) FROM reservation WHERE id = \(id)").first
    }

    /// The customer's active reservation, if any.
    public func activeReservation(userId: UserID) throws -> ReservationWithStore? {
        try reservationsWithStores("""
            SELECT \(unescaped: Reservation.columnList) FROM reservation
            WHERE userId = \(userId) AND status IN \(unescaped: Reservation.StatusSet.active.rawValue)
            """).first
    }

    /// The customer's active reservation with its store as the board keeps it: one prepared
    /// statement, for the top of every page a signed-in shopper browses, remembered where the
    /// engine can tell when it changes (`CredentialCache`).
    public func activeReservationFromBoard(userId: UserID) throws -> ReservationWithStore? {
        let read = { try self.database.reading(oneStatement: true) { transaction in try Reservation.active(userId: userId, transaction) } }
        let active = database.remembersCredentials ? try database.credentials.activeReservation(userId, orRead: read) : try read()
        guard let reservation = active, let store = database.board.entry(reservation.storeId)?.store else { return nil }
        return ReservationWithStore(reservation: reservation, store: store)
    }

    /// The customer's reservations, newest first.
    public func forCustomer(userId: UserID, limit: Int = 50) throws -> [ReservationWithStore] {
        try reservationsWithStores("""
            SELECT \(unescaped: Reservation.columnList) FROM reservation WHERE userId = \(userId) ORDER BY id DESC LIMIT \(limit)
            """)
    }

    /// The customer's last visits to a store (R1.3), most recent first: what they declared and
    /// how long they really stayed.
    public func pastVisits(userId: UserID, storeId: StoreID) throws -> [CustomerPace.Visit] {
        try database.reading { transaction in try AppDatabase.pastVisits(userId: userId, storeId: storeId, transaction) }
    }
}

/// Line-ups and bookings: made, cancelled and read; bookings reminded and confirmed; a line-up's
/// travel.
/// Reached from the database as `reservations`; each write is one transaction.
public struct Reservations: Sendable {
    let database: AppDatabase
}

extension AppDatabase {
    /// Line-ups and bookings.
    public var reservations: Reservations { Reservations(database: self) }
}
