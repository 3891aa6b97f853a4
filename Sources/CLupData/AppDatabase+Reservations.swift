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
    /// When the account may make another reservation (`ReservationRate`), from when it made
    /// its latest ones; nil if it may now. Written once for both engines.
    static func reservationRetry(userId: UserID, now: Date, _ transaction: some SQLTransaction) throws -> Date? {
        let latest = try transaction.column("""
            SELECT createdAt FROM reservation WHERE userId = \(userId) ORDER BY createdAt DESC LIMIT \(ReservationRate.perHour)
            """, as: Date.self).compactMap { $0 }
        return ReservationRate.retryAt(latest: latest, now: now)
    }
}

extension AppDatabase {
    // MARK: Reading traffic

    /// One store's live traffic at `now`, read from the committed rows through partial
    /// indexes — queued, called and inside tickets, and bookings whose slot is near — so its
    /// cost does not grow with the history. Transactions decide from it; pages read the board.
    public func liveTraffic(storeId: StoreID, now: Date) throws -> LiveTraffic {
        if let postgres { return try postgres.liveTraffic(storeId: storeId, now: now) }
        return try reader.read { db in try Self.liveTraffic(storeId: storeId, now: now, db)[storeId] ?? .none }
    }

    /// Bookings further than this from now neither hold places now nor will within the
    /// estimate's horizon (entry windows are at most an hour either side of the slot, plus the
    /// lookahead, plus the horizon).
    public static let bookingReach: TimeInterval = 3600 + StoreTraffic.bookingLookahead + StoreTraffic.holdHorizon

    static func liveTraffic(storeId: StoreID?, now: Date, _ db: Database) throws -> [StoreID: LiveTraffic] {
        let storeFilter = storeId == nil ? "" : "AND storeId = ?"
        let storeArgument: StatementArguments = storeId.map { [$0] } ?? []
        var result: [StoreID: LiveTraffic] = [:]
        let ratios = try Row.fetchAll(db, sql: "SELECT * FROM storeLoad WHERE 1 \(storeFilter)",
                                      arguments: storeArgument)
        for row in ratios {
            let load = try StoreLoad(row: row)
            result[load.storeId] = LiveTraffic(live: [], model: load.model)
        }
        let live = try Row.fetchCursor(db, sql: """
            SELECT \(liveColumns) FROM reservation
            WHERE status IN ('waiting', 'called', 'inside') \(storeFilter) ORDER BY storeId, \(queueOrder)
            """, arguments: storeArgument)
        while let row = try live.next() { try append(row, to: &result) }
        let booked = try Row.fetchCursor(db, sql: """
            SELECT \(liveColumns) FROM reservation
            WHERE status = 'booked' AND slotStart BETWEEN ? AND ? \(storeFilter) ORDER BY slotStart, id
            """, arguments: [now - bookingReach, now + bookingReach] + storeArgument)
        while let row = try booked.next() { try append(row, to: &result) }
        return result
    }

    /// The columns the wait estimate reads, in the order `live(_:)` reads them by position.
    static let liveColumns =
        "id, storeId, status, people, residenceMinutes, calledAt, enteredAt, slotStart, walkIn, number, day, "
            + "travelMode, travelMetres, leftAt, pace, priority, queuePosition, createdAt"

    /// A store's queue in the order it is called (`QueueKey`), on either engine.
    static let queueOrder = "COALESCE(queuePosition, id), priority DESC, id"

    private static func append(_ row: Row, to result: inout [StoreID: LiveTraffic]) throws {
        guard let live = live(row) else { return }
        result[row[1], default: .none].live.append(live)
    }

    /// A reservation row selected as `liveColumns` (first) as the wait estimate sees it; nil
    /// once it has ended. Read by position: a name is looked up by comparing it, without case,
    /// with every column's, and the write path reads back every row it changes.
    private static func live(_ row: Row) -> LiveReservation? {
        live(LiveColumns(id: row[0], status: row[2], people: row[3], residenceMinutes: row[4], calledAt: row[5],
                         enteredAt: row[6], slotStart: row[7], walkIn: row[8], number: row[9], day: row[10],
                         travelMode: row[11], travelMetres: row[12], leftAt: row[13], pace: row[14], priority: row[15],
                         queuePosition: row[16], createdAt: row[17]))
    }

    /// The columns of a reservation the wait estimate reads (`liveColumns`), from either engine.
    struct LiveColumns: Decodable {
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
    /// statement per id: a transaction reads back the few rows it changed.
    static func liveRows(ids: Set<ReservationID>, _ db: Database) throws
        -> [(storeId: StoreID, id: ReservationID, userId: UserID?, live: LiveReservation?)]
    {
        let statement = try db.cachedStatement(sql: "SELECT \(liveColumns), userId FROM reservation WHERE id = ?")
        return try ids.sorted().compactMap { id in
            try Row.fetchOne(statement, arguments: [id]).map { row in (row[1], id, row[18], live(row)) }
        }
    }

    /// Reservations matching `condition` that have not ended, each with its store and as the
    /// estimate sees it, in id order.
    static func liveRows(where condition: String, arguments: StatementArguments, _ db: Database) throws
        -> [(storeId: StoreID, id: ReservationID, live: LiveReservation)]
    {
        let rows = try Row.fetchCursor(db, sql: "SELECT \(liveColumns) FROM reservation WHERE \(condition) ORDER BY id",
                                       arguments: arguments)
        var result: [(storeId: StoreID, id: ReservationID, live: LiveReservation)] = []
        while let row = try rows.next() {
            if let live = live(row) { result.append((row[1], row[0], live)) }
        }
        return result
    }

    /// People booked in each of `slots` (in order) at a store, by slot start.
    public func bookedPeople(storeId: StoreID, in slots: [Slot]) throws -> [Date: Int] {
        if let postgres { return try postgres.bookedPeople(storeId: storeId, in: slots) }
        return try reader.read { db in try Self.bookedPeople(storeId: storeId, in: slots, db) }
    }

    /// People booked in `slot`.
    public func bookedPeople(storeId: StoreID, in slot: Slot) throws -> Int {
        try bookedPeople(storeId: storeId, in: [slot])[slot.start] ?? 0
    }

    /// People booked by slot start at a store from one time to another: read from
    /// `reservation_bookedByStore` alone (it holds the people), never from the rows.
    static let bookedPeopleSQL = """
        SELECT slotStart, SUM(people) AS people FROM reservation
        WHERE status = 'booked' AND storeId = ? AND slotStart >= ? AND slotStart < ?
        GROUP BY slotStart
        """

    /// A booking counts in the slot during which it starts, not only the slot starting at its
    /// start: one made before the store changed its slot length keeps its time, off the new
    /// grid, and still takes its places.
    static func bookedPeople(storeId: StoreID, in slots: [Slot], _ db: Database) throws -> [Date: Int] {
        guard let first = slots.first, let last = slots.last else { return [:] }
        let rows = try Row.fetchAll(db.cachedStatement(sql: bookedPeopleSQL),
                                    arguments: [storeId, first.start.databaseText, last.end.databaseText])
        var result: [Date: Int] = [:]
        for row in rows {
            let start: Date = row["slotStart"]
            // The last slot starting at or before it; counted if the booking starts within it.
            var low = 0
            var high = slots.count
            while low < high {
                let middle = (low + high) / 2
                if slots[middle].start <= start { low = middle + 1 } else { high = middle }
            }
            guard low > 0, start < slots[low - 1].end else { continue }
            result[slots[low - 1].start, default: 0] += row["people"] as Int
        }
        return result
    }

    // MARK: Making and ending reservations

    /// Makes a reservation in one IMMEDIATE transaction (GRDB begins every write that way),
    /// checking everything the answer depends on against the committed state: the request key
    /// (a form sent twice makes one reservation), the customer's active reservation, and for a
    /// line-up the store's wait and hours, for a booking the slot's rules and free places.
    /// Nothing changes unless the outcome is `.created`.
    public func reserve(_ request: ReservationRequest, now: Date) throws -> ReservationOutcome {
        if let postgres { return try postgres.reserve(request, now: now) }
        do {
            return try write { db in
                guard let details = try transactionDefinition(storeId: request.storeId, db) else { return .noSuchStore }
                let store = details.store
                let active = try Reservation.active(userId: request.userId, db)
                if let active, active.requestKey == request.requestKey { return .alreadyMade(active) }
                if let retryAt = try Self.reservationRetry(userId: request.userId, now: now, SQLiteTransaction(db: db, database: self)) { return .tooMany(retryAt: retryAt) }
                // The rules of time come first: there is no point asking whether to replace the
                // active reservation with one that cannot be made.
                let calendar = details.slotCalendar
                var day = details.openingHours.businessDay(at: now)
                var slot: Slot?
                var expectedEntry: Date?
                let priority = request.grantsPriority(store.settings)
                var position: ReservationID?
                switch request.kind {
                case .lineUp:
                    let traffic = try transactionTraffic(storeId: request.storeId, db)
                    let (decision, before) = traffic.lineUpDecision(
                        people: request.people, residence: Double(request.residenceMinutes) * 60, priority: priority,
                        travel: request.travel, settings: store.settings, hours: details.openingHours, now: now,
                        pool: .online)
                    guard case .accepted(_, let entry) = decision else { throw Refusal.lineUp(decision) }
                    expectedEntry = entry
                    position = before
                case .booking:
                    guard let start = request.slotStart else { throw Refusal.slot(.notASlot) }
                    let verdict = calendar.verdict(start: start, residence: Double(request.residenceMinutes) * 60, now: now)
                    guard case .bookable(let bookable) = verdict else { throw Refusal.slot(verdict) }
                    slot = bookable
                    day = details.openingHours.businessDay(at: bookable.start)
                }
                if let active {
                    guard request.replacingActive, active.status != .inside else {
                        guard let activeStore = try Store.fetchOne(db, id: active.storeId) else { return .noSuchStore }
                        return .hasActive(ReservationWithStore(reservation: active, store: activeStore))
                    }
                    try Self.cancel(active, reason: .replaced, now: now, db)
                }
                if let slot {
                    // Places the slot's waiting list could take are the list's (`WaitingList`).
                    let booked = try Self.bookedPeople(storeId: request.storeId, in: [slot], db)
                    let listed = try Self.waitlist(storeId: request.storeId, slotStart: slot.start, db)
                    guard WaitingList.canBook(people: request.people, capacity: store.slotCapacity,
                                              booked: booked[slot.start] ?? 0, entries: listed.map(\.rule))
                    else { throw Refusal.slotFull }
                }
                let number = try Self.nextNumber(storeId: request.storeId, day: day, db)
                let reservation = try NewReservation(
                    storeId: request.storeId, userId: request.userId, kind: request.kind, walkIn: false, day: day,
                    number: number, people: request.people, residenceMinutes: request.residenceMinutes,
                    travelMode: request.kind == .lineUp ? request.travelMode : nil,
                    slotStart: request.kind == .booking ? request.slotStart : nil,
                    status: request.kind == .lineUp ? .waiting : .booked, createdAt: now,
                    requestKey: request.requestKey, travelMetres: request.kind == .lineUp ? request.travelMetres : nil,
                    expectedEntry: expectedEntry,
                    pace: try Self.pace(userId: request.userId, storeId: request.storeId,
                                        declared: Double(request.residenceMinutes) * 60, db),
                    priority: priority, queuePosition: position
                ).insert(returning: db)
                for departmentId in request.departmentIds {
                    try db.cachedStatement(sql: """
                        INSERT OR IGNORE INTO reservationDepartment (reservationId, departmentId)
                        SELECT ?, id FROM department WHERE id = ? AND storeId = ?
                        """).execute(arguments: [reservation.id, departmentId, request.storeId])
                }
                // A booking made too close to its slot for a reminder to make sense counts as
                // confirmed: the customer has just chosen it.
                if let slot, slot.start.timeIntervalSince(now) < BookingReminder.lead + BookingReminder.lateBookingMargin {
                    try db.cachedStatement(sql: "UPDATE reservation SET confirmedAt = ? WHERE id = ?")
                        .execute(arguments: [now.databaseText, reservation.id])
                }
                // A queue with free places calls a new line-up at once; a replaced
                // reservation's places go to the next in its store's queue. A booking alone
                // (two hours ahead at least) changes nobody's turn.
                var queuesToAdvance: Set<StoreID> = []
                if request.kind == .lineUp { queuesToAdvance.insert(request.storeId) }
                if let active { queuesToAdvance.insert(active.storeId) }
                for storeId in queuesToAdvance.sorted() { try advanceQueue(storeId: storeId, now: now, db) }
                return .created(try Reservation.find(reservation.id, db) ?? reservation)
            }
        } catch let refusal as Refusal {
            // Thrown inside the transaction so that a replaced reservation's cancellation is
            // rolled back with it.
            switch refusal {
            case .lineUp(let decision): return .lineUpRefused(decision)
            case .slot(let verdict): return .slotRefused(verdict)
            case .slotFull: return .slotFull
            }
        } catch let error as DatabaseError where error.message == "slot full" {
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
        if let postgres { return try postgres.cancelReservation(id: id, userId: userId, now: now) }
        return try write { db in
            guard let reservation = try Reservation.find(id, db), reservation.userId == userId,
                reservation.status.isCancellable
            else { return false }
            try Self.cancel(reservation, reason: .byCustomer, now: now, db)
            try advanceQueue(storeId: reservation.storeId, now: now, db)
            return true
        }
    }

    static func cancel(_ reservation: Reservation, reason: Notice.Reason, now: Date, _ db: Database) throws {
        guard try Reservation.setStatus(.cancelled, .endedAt, to: now, id: reservation.id, from: .active, db) else {
            return
        }
        try notice(.cancelled, reservationId: reservation.id, reason: reason, now: now, db)
    }

    // MARK: Reading reservations

    public func reservation(id: ReservationID) throws -> ReservationWithStore? {
        if let postgres { return try postgres.reservation(id: id) }
        return try reader.read { db in
            try Reservation.filter(id: id).including(required: Reservation.store)
                .asRequest(of: ReservationWithStore.self).fetchOne(db)
        }
    }

    /// The customer's active reservation, if any.
    public func activeReservation(userId: UserID) throws -> ReservationWithStore? {
        if let postgres { return try postgres.activeReservation(userId: userId) }
        return try reader.read { db in
            try Reservation.filter(Reservation.Columns.userId == userId)
                .filter(Reservation.Status.active.map(\.rawValue).contains(Reservation.Columns.status))
                .including(required: Reservation.store)
                .asRequest(of: ReservationWithStore.self).fetchOne(db)
        }
    }

    /// The customer's active reservation with its store as the board keeps it: one prepared
    /// statement, for the top of every page a signed-in shopper browses.
    public func activeReservationFromBoard(userId: UserID) throws -> ReservationWithStore? {
        if let postgres { return try postgres.activeReservationFromBoard(userId: userId) }
        // Remembered until one of the customer's reservations changes (`CredentialCache`): every
        // page a signed-in customer opens shows it.
        let active = try credentials.activeReservation(userId) {
            try reader.read { db in try Reservation.active(userId: userId, db) }
        }
        guard let reservation = active, let store = board.entry(reservation.storeId)?.store
        else { return nil }
        return ReservationWithStore(reservation: reservation, store: store)
    }

    /// The customer's reservations, newest first.
    public func reservations(userId: UserID, limit: Int = 50) throws -> [ReservationWithStore] {
        if let postgres { return try postgres.reservations(userId: userId, limit: limit) }
        return try reader.read { db in
            try Reservation.filter(Reservation.Columns.userId == userId)
                .order(Reservation.Columns.id.desc).limit(limit)
                .including(required: Reservation.store)
                .asRequest(of: ReservationWithStore.self).fetchAll(db)
        }
    }

    /// The customer's last visits to a store (R1.3), most recent first: what they declared and
    /// how long they really stayed.
    public func pastVisits(userId: UserID, storeId: StoreID) throws -> [CustomerPace.Visit] {
        if let postgres { return try postgres.pastVisits(userId: userId, storeId: storeId) }
        return try reader.read { db in try Self.pastVisits(userId: userId, storeId: storeId, db) }
    }

    /// The customer's own pace, from their visits to the store (`CustomerPace`), for a visit
    /// declared as `declared`; nil before their first. Kept with the reservation, so the
    /// estimate reads it with the live rows.
    static func pace(userId: UserID, storeId: StoreID, declared: TimeInterval, _ db: Database) throws -> Double? {
        let visits = try pastVisits(userId: userId, storeId: storeId, db)
        guard !visits.isEmpty else { return nil }
        return CustomerPace.factor(declared: declared, visits: visits,
                                   storeRatio: try StoreLoad.find(storeId, db)?.model.ratio ?? 1)
    }

    static func pastVisits(userId: UserID, storeId: StoreID, _ db: Database) throws -> [CustomerPace.Visit] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT residenceMinutes * 60, (julianday(exitedAt) - julianday(enteredAt)) * 86400 FROM reservation
            WHERE userId = ? AND storeId = ? AND exitedAt IS NOT NULL AND enteredAt IS NOT NULL
            ORDER BY exitedAt DESC LIMIT ?
            """), arguments: [userId, storeId, CustomerPace.visitsRead]).map { row in
            CustomerPace.Visit(declared: row[0], actual: row[1])
        }
    }
}
