import CLupDomain
import Foundation
import PostgresNIO

/// Reservations on PostgreSQL: making, cancelling and reading them, every change of status
/// counted in the statistics as on SQLite (`VisitAccounting`), and a store's queue brought up
/// to date. The same named methods as `AppDatabase+Reservations.swift`.
///
/// Where SQLite decides from the board (one writer: the board holds every commit), a worker
/// here cannot: another worker may have committed a moment ago. A transaction that decides on
/// a store's places therefore locks the store's row first and reads the store, its live
/// reservations and its learned sums from the primary, under the lock.
extension PostgresEngine {
    // MARK: Inside a transaction

    /// The store, locked until the transaction ends, with its hours and departments; nil if
    /// there is no such store. Locked a second time in one transaction (a line-up, then its
    /// store's queue), it is not read again.
    static func lockStore(_ storeId: StoreID, _ transaction: PostgresTransaction) throws -> StoreDetails? {
        if let details = transaction.lockedStore(storeId) { return details }
        guard try transaction.row("SELECT id FROM store WHERE id = \(storeId) FOR UPDATE") != nil,
            let details = try AppDatabase.storeDetails(storeId, transaction.statements).first
        else { return nil }
        transaction.remember(locked: details)
        return details
    }

    /// The store's live traffic as committed (and as this transaction changed it): its queued,
    /// called and inside tickets, its bookings near `now`, and its visit model.
    static func traffic(storeId: StoreID, now: Date, _ transaction: PostgresTransaction) throws -> LiveTraffic {
        let load = try transaction.row("SELECT * FROM storeLoad WHERE storeId = \(storeId)")?.record(StoreLoad.self)
        var traffic = LiveTraffic(live: [], model: load?.model ?? VisitModel())
        let reach = AppDatabase.bookingReach
        for row in try transaction.rows("""
            SELECT \(unescaped: AppDatabase.liveColumns) FROM reservation
            WHERE storeId = \(storeId) AND status IN ('waiting', 'called', 'inside')
            ORDER BY \(unescaped: AppDatabase.queueOrder)
            """) + transaction.rows("""
            SELECT \(unescaped: AppDatabase.liveColumns) FROM reservation
            WHERE storeId = \(storeId) AND status = 'booked' AND slotStart BETWEEN \(now - reach) AND \(now + reach)
            ORDER BY slotStart, id
            """)
        {
            if let live = AppDatabase.live(try row.record(AppDatabase.LiveColumns.self)) { traffic.live.append(live) }
        }
        return traffic
    }

    static let reservationColumns = Reservation.columnList

    static func reservation(_ id: ReservationID, _ transaction: PostgresTransaction) throws -> Reservation? {
        try transaction.row("SELECT \(unescaped: reservationColumns) FROM reservation WHERE id = \(id)")?
            .record(Reservation.self)
    }

    static func activeReservation(userId: UserID, _ transaction: PostgresTransaction) throws -> Reservation? {
        try transaction.row("""
            SELECT \(unescaped: reservationColumns) FROM reservation
            WHERE userId = \(userId) AND status IN ('waiting', 'called', 'inside', 'booked')
            """)?.record(Reservation.self)
    }

    /// Sets the status and time columns of reservation `id` if its status is still one of
    /// `from`, and counts the change in its store's statistics; true if it changed. Every
    /// change of a reservation's status on PostgreSQL goes through here. A caller that already
    /// knows the store's people inside after an entry (the door) passes them as `insideAfter`,
    /// as on SQLite.
    @discardableResult
    static func setStatus(_ status: Reservation.Status, _ columns: Reservation.TimeColumns, to time: Date,
                          id: ReservationID, from: Reservation.StatusSet, insideAfter: Int? = nil,
                          _ transaction: PostgresTransaction) throws -> Bool
    {
        guard let row = try transaction.row("""
            SELECT storeId, kind, walkIn, people, residenceMinutes, travelMetres, status, createdAt, calledAt, enteredAt,
                   exitedAt, endedAt, expectedEntry, priority
            FROM reservation WHERE id = \(id) FOR UPDATE
            """)
        else { return false }
        let storeId = try row[0].decode(StoreID.self)
        let old = try VisitFacts(
            kind: ReservationKind(rawValue: row[1].decode(String.self)) ?? .lineUp, walkIn: row[2].decode(Bool.self),
            people: row[3].decode(Int.self), residenceMinutes: row[4].decode(Int.self),
            travelMetres: row[5].decode(Int?.self),
            status: ReservationStatus(rawValue: row[6].decode(String.self)) ?? .done, createdAt: row[7].decode(Date.self),
            calledAt: row[8].decode(Date?.self), enteredAt: row[9].decode(Date?.self), exitedAt: row[10].decode(Date?.self),
            endedAt: row[11].decode(Date?.self), expectedEntry: row[12].decode(Date?.self),
            priority: row[13].decode(Bool.self))
        guard from.statuses.contains(old.status) else { return false }
        // Stored and counted to the millisecond, as on SQLite: a rebuild reads back what was counted.
        let stored = Date(timeIntervalSince1970: (time.timeIntervalSince1970 * 1000).rounded() / 1000)
        var new = old
        new.status = status
        switch columns {
        case .calledAt:
            new.calledAt = stored
            try transaction.execute("UPDATE reservation SET status = \(status.rawValue), calledAt = \(stored) WHERE id = \(id)")
        case .enteredAt:
            new.enteredAt = stored
            try transaction.execute("UPDATE reservation SET status = \(status.rawValue), enteredAt = \(stored) WHERE id = \(id)")
        case .endedAt:
            new.endedAt = stored
            try transaction.execute("UPDATE reservation SET status = \(status.rawValue), endedAt = \(stored) WHERE id = \(id)")
        case .exitedAndEndedAt:
            (new.exitedAt, new.endedAt) = (stored, stored)
            try transaction.execute("""
                UPDATE reservation SET status = \(status.rawValue), exitedAt = \(stored), endedAt = \(stored) WHERE id = \(id)
                """)
        }
        transaction.changed(reservation: id, of: storeId)
        try count(from: old, to: new, storeId: storeId, reservationId: id, insideAfter: insideAfter, transaction)
        return true
    }

    /// Counts a change of status in the store's hours, departments and learned sums;
    /// `insideAfter`, if given, is the store's people inside now.
    static func count(from old: VisitFacts, to new: VisitFacts, storeId: StoreID, reservationId: ReservationID,
                      insideAfter: Int? = nil, _ transaction: PostgresTransaction) throws
    {
        let inside = new.isInside && !old.isInside ? try insideAfter ?? peopleInside(storeId: storeId, transaction) : 0
        let change = VisitAccounting.change(from: old, to: new, peopleInside: Double(inside))
        for totals in change.hours { try add(totals, storeId: storeId, transaction) }
        if !change.learned.isEmpty {
            try apply(change.learned, storeId: storeId, transaction)
            transaction.changed(loadOf: storeId)
        }
        if let hour = change.entryHour {
            try transaction.execute("""
                INSERT INTO storeDepartmentHour (storeId, departmentId, hour, entries)
                SELECT \(storeId), departmentId, \(hour), 1 FROM reservationDepartment WHERE reservationId = \(reservationId)
                ON CONFLICT (storeId, departmentId, hour) DO UPDATE SET entries = storeDepartmentHour.entries + 1
                """)
        }
    }

    static func peopleInside(storeId: StoreID, _ transaction: PostgresTransaction) throws -> Int {
        try transaction.value("""
            SELECT COALESCE(SUM(people), 0)::bigint FROM reservation WHERE storeId = \(storeId) AND status = 'inside'
            """) ?? 0
    }

    /// Adds `totals` to the store's hour (the peak is the larger of the two).
    static func add(_ totals: HourTotals, storeId: StoreID, _ transaction: PostgresTransaction) throws {
        var binds = PostgresBindings()
        binds.append(storeId)
        binds.append(totals.hour)
        for value in totals.counters { binds.append(value) }
        try transaction.execute(PostgresQuery(unsafeSQL: addHour, binds: binds))
    }

    private static let addHour = """
        INSERT INTO storeHour (storeId, hour, \(HourTotals.counterNames.joined(separator: ", ")))
        VALUES ($1, $2, \(HourTotals.counterNames.indices.map { "$\($0 + 3)" }.joined(separator: ", ")))
        ON CONFLICT (storeId, hour) DO UPDATE SET \(HourTotals.counterNames.map { name in
            name == "peakInside" ? "peakInside = GREATEST(storeHour.peakInside, excluded.peakInside)"
                : "\(name) = storeHour.\(name) + excluded.\(name)"
        }.joined(separator: ", "))
        """

    /// Applies `change` to the store's learned sums, as `LearnedSums.apply` does.
    static func apply(_ change: LearnedSums.Change, storeId: StoreID, _ transaction: PostgresTransaction) throws {
        var binds = PostgresBindings()
        binds.append(change.entryDecay)
        for value in AppDatabase.sumValues(change.added) { binds.append(value) }
        binds.append(storeId)
        try transaction.execute(PostgresQuery(unsafeSQL: applySums, binds: binds))
    }

    private static let applySums = """
        UPDATE storeLoad SET \(AppDatabase.sumNames.enumerated().map { index, name in
            "\(name) = \(name)\(AppDatabase.decayedSums.contains(name) ? " * $1" : "") + $\(index + 2)"
        }.joined(separator: ", ")) WHERE storeId = $\(AppDatabase.sumNames.count + 2)
        """

    /// A notice for the customer of reservation `id` (none for a walk-in), once per kind.
    static func notice(_ kind: Notice.Kind, reservationId: ReservationID, reason: Notice.Reason? = nil, now: Date,
                       _ transaction: PostgresTransaction) throws
    {
        try transaction.execute("""
            INSERT INTO notice (reservationId, kind, reason, createdAt)
            SELECT id, \(kind.rawValue), \(reason?.rawValue), \(now) FROM reservation
            WHERE id = \(reservationId) AND userId IS NOT NULL
            ON CONFLICT (reservationId, kind) DO NOTHING
            """)
    }

    /// Tells the customer of waiting ticket `id` to leave for the store, once.
    @discardableResult
    static func sendOff(_ id: ReservationID, now: Date, _ transaction: PostgresTransaction) throws -> Bool {
        guard let storeId = try transaction.value("""
            UPDATE reservation SET leftAt = \(now) WHERE id = \(id) AND status IN ('waiting', 'called') AND leftAt IS NULL
            RETURNING storeId
            """, as: StoreID.self)
        else { return false }
        transaction.changed(reservation: id, of: storeId)
        try notice(.leaveNow, reservationId: id, now: now, transaction)
        return true
    }

    static func cancel(_ reservation: Reservation, reason: Notice.Reason, now: Date,
                       _ transaction: PostgresTransaction) throws
    {
        guard try setStatus(.cancelled, .endedAt, to: now, id: reservation.id, from: .active, transaction) else { return }
        try notice(.cancelled, reservationId: reservation.id, reason: reason, now: now, transaction)
    }

    /// The store's next ticket number for `day`, past any block a kiosk holds. The store's row
    /// is locked by the caller, so two tickets never take the same number.
    static func nextNumber(storeId: StoreID, day: Int, _ transaction: PostgresTransaction) throws -> Int {
        try transaction.value("""
            SELECT GREATEST(
                COALESCE((SELECT MAX(number) FROM reservation WHERE storeId = \(storeId) AND day = \(day)), 0),
                COALESCE((SELECT MAX(firstNumber + size - 1) FROM ticketBlock WHERE storeId = \(storeId) AND day = \(day)), 0)
            ) + 1
            """) ?? 1
    }

    /// One store's queue brought up to date inside the transaction (the store locked), with a
    /// notice for each customer it concerns: the same steps as on SQLite.
    @discardableResult
    static func advanceQueue(storeId: StoreID, now: Date, _ transaction: PostgresTransaction) throws -> QueueCaller.Plan {
        guard let details = try lockStore(storeId, transaction) else { return QueueCaller.Plan() }
        let settings = details.store.settings
        let missed = try transaction.rows("""
            SELECT id FROM reservation
            WHERE status = 'booked' AND slotStart < \(now - Double(settings.entryAfterMinutes) * 60) AND storeId = \(storeId)
            """).map { try $0[0].decode(ReservationID.self) }
        for id in missed where try setStatus(.expired, .endedAt, to: now, id: id, from: .booked, transaction) {
            try notice(.expired, reservationId: id, reason: .missedWindow, now: now, transaction)
        }
        let live = try traffic(storeId: storeId, now: now, transaction)
        let hours = details.openingHours
        let plan = QueueCaller.plan(live: live.live, settings: settings, today: hours.businessDay(at: now),
                                    isOpen: hours.state(at: now).isOpen, now: now, model: live.model)
        for id in plan.expire where try setStatus(.expired, .endedAt, to: now, id: id, from: .waitingOrCalled, transaction) {
            let wasCalled = live.live.first { $0.id == id }?.state.isCalled ?? false
            try notice(.expired, reservationId: id, reason: wasCalled ? .notScanned : .storeClosed, now: now, transaction)
        }
        var unscanned = 0
        for id in plan.close where try setStatus(.done, .endedAt, to: now, id: id, from: .inside, transaction) {
            unscanned += 1
        }
        if unscanned > 0 {
            try transaction.execute("""
                UPDATE storeLoad SET unscannedVisits = unscannedVisits + \(unscanned) WHERE storeId = \(storeId)
                """)
            transaction.changed(loadOf: storeId)
        }
        for id in plan.sendOff { try sendOff(id, now: now, transaction) }
        for id in plan.call where try setStatus(.called, .calledAt, to: now, id: id, from: .waiting, transaction) {
            try notice(.yourTurn, reservationId: id, now: now, transaction)
        }
        return plan
    }

    /// The customer's last visits to a store, most recent first.
    static func pastVisits(userId: UserID, storeId: StoreID, _ transaction: PostgresTransaction) throws
        -> [CustomerPace.Visit]
    {
        try transaction.rows("""
            SELECT (residenceMinutes * 60)::double precision, EXTRACT(EPOCH FROM exitedAt - enteredAt)::double precision
            FROM reservation
            WHERE userId = \(userId) AND storeId = \(storeId) AND exitedAt IS NOT NULL AND enteredAt IS NOT NULL
            ORDER BY exitedAt DESC LIMIT \(CustomerPace.visitsRead)
            """).map { CustomerPace.Visit(declared: try $0[0].decode(Double.self), actual: try $0[1].decode(Double.self)) }
    }

    /// The customer's own pace at the store, as on SQLite (`AppDatabase.pace`); nil before
    /// their first visit.
    static func pace(userId: UserID, storeId: StoreID, declared: TimeInterval, _ transaction: PostgresTransaction) throws
        -> Double?
    {
        let visits = try pastVisits(userId: userId, storeId: storeId, transaction)
        guard !visits.isEmpty else { return nil }
        let ratio = try transaction.row("SELECT * FROM storeLoad WHERE storeId = \(storeId)")?.record(StoreLoad.self)
            .model.ratio ?? 1
        return CustomerPace.factor(declared: declared, visits: visits, storeRatio: ratio)
    }

    /// People booked in each of `slots`, by slot start (a booking off the grid counts in the
    /// slot it starts in).
    static func bookedPeople(storeId: StoreID, in slots: [Slot], _ transaction: PostgresTransaction) throws -> [Date: Int] {
        guard let first = slots.first, let last = slots.last else { return [:] }
        let rows = try transaction.rows("""
            SELECT slotStart, SUM(people)::bigint FROM reservation
            WHERE status = 'booked' AND storeId = \(storeId) AND slotStart >= \(first.start) AND slotStart < \(last.end)
            GROUP BY slotStart
            """)
        var result: [Date: Int] = [:]
        for row in rows {
            let start = try row[0].decode(Date.self)
            guard let slot = slots.last(where: { $0.start <= start }), start < slot.end else { continue }
            result[slot.start, default: 0] += try row[1].decode(Int.self)
        }
        return result
    }

    // MARK: Named methods

    func liveTraffic(storeId: StoreID, now: Date) throws -> LiveTraffic {
        try read { transaction in try Self.traffic(storeId: storeId, now: now, transaction) }
    }

    func bookedPeople(storeId: StoreID, in slots: [Slot]) throws -> [Date: Int] {
        try read { transaction in try Self.bookedPeople(storeId: storeId, in: slots, transaction) }
    }

    /// Makes a reservation: the same checks, in the same order, as on SQLite, against the
    /// primary's committed state under the store's lock (and the replaced reservation's store's,
    /// when it is another).
    func reserve(_ request: ReservationRequest, now: Date) throws -> ReservationOutcome {
        do {
            return try write { transaction in
                // The customer first, then the store (every transaction that locks both does so
                // in this order): two of their requests at once, on two workers, are taken one
                // after the other, and the second sees the first's reservation.
                _ = try transaction.row("SELECT id FROM \"user\" WHERE id = \(request.userId) FOR UPDATE")
                guard let details = try Self.lockStore(request.storeId, transaction) else { return .noSuchStore }
                let store = details.store
                let active = try Self.activeReservation(userId: request.userId, transaction)
                if let active, active.requestKey == request.requestKey { return .alreadyMade(active) }
                if let retryAt = try AppDatabase.reservationRetry(userId: request.userId, now: now, transaction.statements) {
                    return .tooMany(retryAt: retryAt)
                }
                var day = details.openingHours.businessDay(at: now)
                var slot: Slot?
                var expectedEntry: Date?
                let priority = request.grantsPriority(store.settings)
                var position: ReservationID?
                switch request.kind {
                case .lineUp:
                    let traffic = try Self.traffic(storeId: request.storeId, now: now, transaction)
                    let (decision, before) = traffic.lineUpDecision(
                        people: request.people, residence: Double(request.residenceMinutes) * 60, priority: priority,
                        travel: request.travel, settings: store.settings, hours: details.openingHours, now: now,
                        pool: .online)
                    guard case .accepted(_, let entry) = decision else { throw Refusal.lineUp(decision) }
                    expectedEntry = entry
                    position = before
                case .booking:
                    guard let start = request.slotStart else { throw Refusal.slot(.notASlot) }
                    let verdict = details.slotCalendar.verdict(start: start, residence: Double(request.residenceMinutes) * 60,
                                                               now: now)
                    guard case .bookable(let bookable) = verdict else { throw Refusal.slot(verdict) }
                    slot = bookable
                    day = details.openingHours.businessDay(at: bookable.start)
                }
                if let active {
                    guard request.replacingActive, active.status != .inside else {
                        guard let activeStore = try AppDatabase.storeDetails(active.storeId, transaction.statements).first?.store else {
                            return .noSuchStore
                        }
                        return .hasActive(ReservationWithStore(reservation: active, store: activeStore))
                    }
                    if active.storeId != request.storeId { _ = try Self.lockStore(active.storeId, transaction) }
                    try Self.cancel(active, reason: .replaced, now: now, transaction)
                }
                if let slot {
                    // Places the slot's waiting list could take are the list's (`WaitingList`).
                    let booked = try Self.bookedPeople(storeId: request.storeId, in: [slot], transaction)
                    let listed = try Self.waitlist(storeId: request.storeId, slotStart: slot.start, transaction)
                    guard WaitingList.canBook(people: request.people, capacity: store.slotCapacity,
                                              booked: booked[slot.start] ?? 0, entries: listed.map(\.rule))
                    else { throw Refusal.slotFull }
                }
                let number = try Self.nextNumber(storeId: request.storeId, day: day, transaction)
                let reservation = try Self.insert(NewReservation(
                    storeId: request.storeId, userId: request.userId, kind: request.kind, walkIn: false, day: day,
                    number: number, people: request.people, residenceMinutes: request.residenceMinutes,
                    travelMode: request.kind == .lineUp ? request.travelMode : nil,
                    slotStart: request.kind == .booking ? request.slotStart : nil,
                    status: request.kind == .lineUp ? .waiting : .booked, createdAt: now,
                    requestKey: request.requestKey, travelMetres: request.kind == .lineUp ? request.travelMetres : nil,
                    expectedEntry: expectedEntry,
                    pace: try Self.pace(userId: request.userId, storeId: request.storeId,
                                        declared: Double(request.residenceMinutes) * 60, transaction),
                    priority: priority, queuePosition: position), transaction)
                for departmentId in request.departmentIds {
                    try transaction.execute("""
                        INSERT INTO reservationDepartment (reservationId, departmentId)
                        SELECT \(reservation.id), id FROM department WHERE id = \(departmentId) AND storeId = \(request.storeId)
                        ON CONFLICT DO NOTHING
                        """)
                }
                if let slot, slot.start.timeIntervalSince(now) < BookingReminder.lead + BookingReminder.lateBookingMargin {
                    try transaction.execute("UPDATE reservation SET confirmedAt = \(now) WHERE id = \(reservation.id)")
                }
                var queuesToAdvance: Set<StoreID> = []
                if request.kind == .lineUp { queuesToAdvance.insert(request.storeId) }
                if let active { queuesToAdvance.insert(active.storeId) }
                for storeId in queuesToAdvance.sorted() { try Self.advanceQueue(storeId: storeId, now: now, transaction) }
                return .created(try Self.reservation(reservation.id, transaction) ?? reservation)
            }
        } catch let refusal as Refusal {
            switch refusal {
            case .lineUp(let decision): return .lineUpRefused(decision)
            case .slot(let verdict): return .slotRefused(verdict)
            case .slotFull: return .slotFull
            }
        } catch let error as PostgresEngine.Refused where error.message == "slot full" {
            return .slotFull
        }
    }

    private enum Refusal: Error {
        case lineUp(LineUpPolicy.Decision)
        case slot(SlotCalendar.Verdict)
        case slotFull
    }

    /// Inserts a reservation (with the id given, for a ticket printed offline) and returns it.
    static func insert(_ new: NewReservation, id: ReservationID? = nil, _ transaction: PostgresTransaction) throws
        -> Reservation
    {
        guard let row = try transaction.row("""
            INSERT INTO reservation (id, storeId, userId, kind, walkIn, day, number, people, residenceMinutes, travelMode,
                                     slotStart, status, createdAt, requestKey, travelMetres, expectedEntry, pace,
                                     priority, queuePosition)
            VALUES (COALESCE(\(id), nextval('reservation_id_seq')), \(new.storeId), \(new.userId), \(new.kind.rawValue),
                    \(new.walkIn), \(new.day), \(new.number), \(new.people), \(new.residenceMinutes),
                    \(new.travelMode?.rawValue), \(new.slotStart), \(new.status.rawValue), \(new.createdAt),
                    \(new.requestKey), \(new.travelMetres), \(new.expectedEntry), \(new.pace), \(new.priority),
                    \(new.queuePosition))
            RETURNING \(unescaped: reservationColumns)
            """)
        else { preconditionFailure("INSERT … RETURNING returned no row") }
        let reservation = try row.record(Reservation.self)
        transaction.changed(reservation: reservation.id, of: new.storeId)
        return reservation
    }

    func cancelReservation(id: ReservationID, userId: UserID, now: Date) throws -> Bool {
        try write { transaction in
            guard let storeId = try transaction.value("SELECT storeId FROM reservation WHERE id = \(id)", as: StoreID.self),
                try Self.lockStore(storeId, transaction) != nil,
                let reservation = try Self.reservation(id, transaction), reservation.userId == userId,
                reservation.status.isCancellable
            else { return false }
            try Self.cancel(reservation, reason: .byCustomer, now: now, transaction)
            try Self.advanceQueue(storeId: reservation.storeId, now: now, transaction)
            return true
        }
    }

    // MARK: Reading reservations

    /// Reservations matching `condition`, each with its store.
    private func reservationsWithStores(_ query: PostgresQuery) throws -> [ReservationWithStore] {
        try read { transaction in
            let reservations = try transaction.rows(query).map { try $0.record(Reservation.self) }
            var stores: [StoreID: Store] = [:]
            return try reservations.compactMap { reservation in
                if stores[reservation.storeId] == nil {
                    stores[reservation.storeId] = try transaction.row("""
                        SELECT \(unescaped: AppDatabase.storeColumns) FROM store WHERE id = \(reservation.storeId)
                        """)?.record(Store.self)
                }
                return stores[reservation.storeId].map { ReservationWithStore(reservation: reservation, store: $0) }
            }
        }
    }

    func reservation(id: ReservationID) throws -> ReservationWithStore? {
        try reservationsWithStores("SELECT \(unescaped: Self.reservationColumns) FROM reservation WHERE id = \(id)").first
    }

    func activeReservation(userId: UserID) throws -> ReservationWithStore? {
        try reservationsWithStores("""
            SELECT \(unescaped: Self.reservationColumns) FROM reservation
            WHERE userId = \(userId) AND status IN ('waiting', 'called', 'inside', 'booked')
            """).first
    }

    func activeReservationFromBoard(userId: UserID) throws -> ReservationWithStore? {
        guard let reservation = try read({ transaction in try Self.activeReservation(userId: userId, transaction) }),
            let store = board.entry(reservation.storeId)?.store
        else { return nil }
        return ReservationWithStore(reservation: reservation, store: store)
    }

    func reservations(userId: UserID, limit: Int) throws -> [ReservationWithStore] {
        try reservationsWithStores("""
            SELECT \(unescaped: Self.reservationColumns) FROM reservation WHERE userId = \(userId) ORDER BY id DESC LIMIT \(limit)
            """)
    }

    func pastVisits(userId: UserID, storeId: StoreID) throws -> [CustomerPace.Visit] {
        try read { transaction in try Self.pastVisits(userId: userId, storeId: storeId, transaction) }
    }

    /// Brings every store's queue up to date, one transaction per store the board says has
    /// work (the board of this worker; each transaction reads the primary again under the lock).
    func advanceQueues(now: Date) throws -> Int {
        var called = 0
        for work in board.queueWork(now: now) {
            called += try write { transaction in
                guard try Self.lockStore(work.storeId, transaction) != nil else { return 0 }
                for id in work.sendOff { try Self.sendOff(id, now: now, transaction) }
                return try Self.advanceQueue(storeId: work.storeId, now: now, transaction).call.count
            }
        }
        return called
    }
}
