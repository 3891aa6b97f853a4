import CLupDomain
import Foundation

/// What every transaction that moves a reservation runs, written once for both engines: a
/// change of status with its statistics, the notices it sends, the next ticket number, and a
/// store's queue brought up to date.

extension Reservation {
    /// Every column, in the order `init(columnsOf:)` reads them.
    static let columnList = """
        id, storeId, userId, kind, walkIn, day, number, people, residenceMinutes, travelMode, slotStart, status, \
        createdAt, calledAt, enteredAt, exitedAt, endedAt, requestKey, travelMetres, leftAt, remindedAt, confirmedAt, \
        priority, queuePosition
        """

    /// A row selected with `columnList`, read by position.
    init(columnsOf row: SQLRow) throws {
        self.init(
            id: try row.decode(0), storeId: try row.decode(1), userId: try row.value(2), kind: try row.decodeRaw(3),
            walkIn: try row.decode(4), day: try row.decode(5), number: try row.decode(6), people: try row.decode(7),
            residenceMinutes: try row.decode(8), travelMode: try row.value(9, as: String.self).flatMap(TravelMode.init),
            slotStart: try row.value(10), status: try row.decodeRaw(11), createdAt: try row.decode(12),
            calledAt: try row.value(13), enteredAt: try row.value(14), exitedAt: try row.value(15),
            endedAt: try row.value(16), requestKey: try row.value(17), travelMetres: try row.value(18),
            leftAt: try row.value(19), remindedAt: try row.value(20), confirmedAt: try row.value(21),
            priority: try row.decode(22), queuePosition: try row.value(23))
    }

    /// The reservations `sql` selects (its columns `columnList`).
    static func all(_ sql: SQL, _ transaction: some SQLTransaction) throws -> [Reservation] {
        try transaction.rows(sql).map(Reservation.init(columnsOf:))
    }

    /// The reservation `id`, if it exists.
    static func find(_ id: ReservationID, _ transaction: some SQLTransaction) throws -> Reservation? {
        try all("SELECT \(unescaped: columnList) FROM reservation WHERE id = \(id)", transaction).first
    }

    /// The customer's active reservation (at most one, the schema says), if any.
    static func active(userId: UserID, _ transaction: some SQLTransaction) throws -> Reservation? {
        try all(activeSQL(userId: userId), transaction).first
    }

    static func activeSQL(userId: UserID) -> SQL {
        "SELECT \(unescaped: columnList) FROM reservation WHERE userId = \(userId) AND status IN \(unescaped: StatusSet.active.rawValue)"
    }

    /// A walk-in ticket made with `requestKey` at the store, if any.
    static func walkInSQL(storeId: StoreID, requestKey: String) -> SQL {
        "SELECT \(unescaped: columnList) FROM reservation WHERE storeId = \(storeId) AND requestKey = \(requestKey)"
    }

    /// Sets of statuses a change may start from, spelled as SQL.
    enum StatusSet: String {
        case waiting = "('waiting')"
        case waitingOrCalled = "('waiting', 'called')"
        case inside = "('inside')"
        case booked = "('booked')"
        case active = "('waiting', 'called', 'inside', 'booked')"

        var statuses: [Status] {
            switch self {
            case .waiting: [.waiting]
            case .waitingOrCalled: [.waiting, .called]
            case .inside: [.inside]
            case .booked: [.booked]
            case .active: Status.active
            }
        }
    }

    /// The time columns a change of status sets.
    enum TimeColumns {
        case calledAt, enteredAt, endedAt, exitedAndEndedAt

        /// The assignment of `time` to the columns.
        func assignment(_ time: Date) -> SQL {
            switch self {
            case .calledAt: "calledAt = \(time)"
            case .enteredAt: "enteredAt = \(time)"
            case .endedAt: "endedAt = \(time)"
            case .exitedAndEndedAt: "exitedAt = \(time), endedAt = \(time)"
            }
        }

        /// Sets the columns of `visit`, a reservation or what is counted of it.
        func set(_ time: Date, in visit: inout some VisitTimes) {
            switch self {
            case .calledAt: visit.calledAt = time
            case .enteredAt: visit.enteredAt = time
            case .endedAt: visit.endedAt = time
            case .exitedAndEndedAt: (visit.exitedAt, visit.endedAt) = (time, time)
            }
        }
    }
}

/// The times a change of status sets (`Reservation.TimeColumns`).
protocol VisitTimes {
    var calledAt: Date? { get set }
    var enteredAt: Date? { get set }
    var exitedAt: Date? { get set }
    var endedAt: Date? { get set }
}

extension Reservation: VisitTimes {}
extension VisitFacts: VisitTimes {}

extension VisitFacts {
    /// The columns `init(columnsOf:)` reads, after the store's id. Times are read as whole
    /// milliseconds since 1970, which the engine works out (`SQL.epochMilliseconds`): GRDB
    /// reads a date from SQLite's text through Foundation's calendar, the largest cost of a
    /// rebuild over a long history.
    static let columns: SQL = """
        storeId, kind, walkIn, people, residenceMinutes, travelMetres, status, \
        \(["createdAt", "calledAt", "enteredAt", "exitedAt", "endedAt", "expectedEntry"].map(SQL.epochMilliseconds)
            .joined(separator: ", ")), priority
        """

    init(columnsOf row: SQLRow) throws {
        guard let created = try Self.time(row, 7) else {
            throw DecodingError.valueNotFound(Date.self, .init(codingPath: [], debugDescription: "createdAt is NULL"))
        }
        self.init(kind: try row.decodeRaw(1), walkIn: try row.decode(2), people: try row.decode(3),
                  residenceMinutes: try row.decode(4), travelMetres: try row.value(5), status: try row.decodeRaw(6),
                  createdAt: created, calledAt: try Self.time(row, 8), enteredAt: try Self.time(row, 9),
                  exitedAt: try Self.time(row, 10), endedAt: try Self.time(row, 11),
                  expectedEntry: try Self.time(row, 12), priority: try row.decode(13))
    }

    private static func time(_ row: SQLRow, _ index: Int) throws -> Date? {
        try row.value(index, as: Int64.self).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }
}

extension AppDatabase {
    // MARK: Changes of status

    /// Sets the status and the time columns of reservation `id`, if its status is still one of
    /// `from`, and counts the change in its store's statistics (`VisitAccounting`); true if it
    /// changed. Every change of a reservation's status goes through here. A caller that
    /// already knows the store's people inside after an entry (the door, from its live traffic)
    /// passes them as `insideAfter`, sparing the statistics a count of everyone inside.
    @discardableResult
    static func setStatus(_ status: Reservation.Status, _ columns: Reservation.TimeColumns, to time: Date,
                          id: ReservationID, from: Reservation.StatusSet, insideAfter: Int? = nil,
                          _ transaction: some SQLTransaction) throws -> Bool
    {
        // One this transaction inserted is known as it is, and nobody else can change it.
        let storeId: StoreID
        let old: VisitFacts
        if let own = transaction.own[id] {
            (storeId, old) = (own.reservation.storeId, own.facts)
        } else {
            guard let row = try transaction.row("""
                SELECT \(VisitFacts.columns) FROM reservation WHERE id = \(id) \(SQL.forUpdate)
                """)
            else { return false }
            (storeId, old) = (try row.decode(0), try VisitFacts(columnsOf: row))
        }
        guard from.statuses.contains(old.status) else { return false }
        // Stored and counted to the millisecond: a rebuild reads back what was counted.
        let stored = time.toTheMillisecond
        transaction.changed(reservation: id, of: storeId)
        try change(id, "UPDATE reservation SET status = \(status.rawValue), \(columns.assignment(stored)) WHERE id = \(id)",
                   own: { row in
                       row.reservation.status = status
                       columns.set(transaction.asStored(stored), in: &row.reservation)
                       return true
                   }, transaction)
        var new = old
        new.status = status
        columns.set(stored, in: &new)
        try count(from: old, to: new, storeId: storeId, reservationId: id, insideAfter: insideAfter, transaction)
        return true
    }

    /// Counts a reservation's change of status, inside the caller's transaction (which has just
    /// made the change); `insideAfter`, if given, is the store's people inside now.
    static func count(from old: VisitFacts, to new: VisitFacts, storeId: StoreID, reservationId: ReservationID,
                      insideAfter: Int? = nil, _ transaction: some SQLTransaction) throws
    {
        let inside = new.isInside && !old.isInside ? try insideAfter ?? transaction.peopleInside(storeId: storeId) : 0
        let change = VisitAccounting.change(from: old, to: new, peopleInside: Double(inside))
        for totals in change.hours { try add(totals, storeId: storeId, transaction) }
        if !change.learned.isEmpty {
            try apply(change.learned, storeId: storeId, transaction)
            transaction.changed(loadOf: storeId)
        }
        if let hour = change.entryHour {
            try transaction.executeLater("""
                INSERT INTO storeDepartmentHour (storeId, departmentId, hour, entries)
                SELECT \(storeId), departmentId, \(hour), 1 FROM reservationDepartment WHERE reservationId = \(reservationId)
                ON CONFLICT (storeId, departmentId, hour) DO UPDATE SET entries = storeDepartmentHour.entries + 1
                """)
        }
    }

    /// Adds `totals` to the store's hour (the peak is the larger of the two).
    static func add(_ totals: HourTotals, storeId: StoreID, _ transaction: some SQLTransaction) throws {
        try transaction.executeLater(SQL(addHour, [storeId, totals.hour] + totals.counters.map { $0 as any SQLArgument }))
    }

    /// `add`'s statement: the hour's counters summed with those kept, its peak the larger.
    private static let addHour = SQLTemplate("""
        INSERT INTO storeHour (storeId, hour, \(unescaped: HourTotals.counterNames.joined(separator: ", ")))
        VALUES (?, ?, \(unescaped: HourTotals.counterNames.map { _ in "?" }.joined(separator: ", ")))
        ON CONFLICT (storeId, hour) DO UPDATE SET \(HourTotals.counterNames.map { name -> SQL in
            name == "peakInside" ? "peakInside = \(SQL.greatest)(storeHour.peakInside, excluded.peakInside)"
                : "\(unescaped: name) = storeHour.\(unescaped: name) + excluded.\(unescaped: name)"
        }.joined(separator: ", "))
        """)

    /// The learned sums' columns, in `sumValues` order.
    static let sumNames = [
        "measuredVisits", "declaredSeconds", "actualSeconds", "loggedVisits", "logRatioSum", "logRatioSquares",
        "calls", "noShows", "callToDoorSeconds", "atHandEntries", "entries", "entryErrorSum", "entryErrorSquares",
    ]
    static let decayedSums: Set = ["entries", "entryErrorSum", "entryErrorSquares"]

    static func sumValues(_ sums: LearnedSums) -> [Double] {
        [sums.measuredVisits, sums.declaredSeconds, sums.actualSeconds, sums.loggedVisits, sums.logRatioSum,
         sums.logRatioSquares, sums.calls, sums.noShows, sums.callToDoorSeconds, sums.atHandEntries, sums.entries,
         sums.entryErrorSum, sums.entryErrorSquares]
    }

    /// Applies `change` to the store's learned sums, as `LearnedSums.apply` does.
    static func apply(_ change: LearnedSums.Change, storeId: StoreID, _ transaction: some SQLTransaction) throws {
        // Built piece by piece, every change of status counts here: the text is the same each
        // time, and stays prepared.
        var statement = SQL.StringInterpolation(literalCapacity: 0, interpolationCount: 0)
        statement.appendLiteral("UPDATE storeLoad SET ")
        for ((assignment, decayed), added) in zip(sumAssignments, sumValues(change.added)) {
            statement.appendLiteral(assignment)
            if decayed {
                statement.appendInterpolation(change.entryDecay)
                statement.appendLiteral(" + ")
            }
            statement.appendInterpolation(added)
        }
        statement.appendLiteral(" WHERE storeId = ")
        statement.appendInterpolation(storeId)
        try transaction.executeLater(SQL(stringInterpolation: statement))
    }

    /// Each sum's assignment up to its value: "name = name + ", or "name = name * " and the
    /// decay for those that decay; separated by commas.
    private static let sumAssignments: [(text: String, decayed: Bool)] = sumNames.enumerated().map { index, name in
        let separator = index == 0 ? "" : ", "
        return decayedSums.contains(name) ? (separator + "\(name) = \(name) * ", true) : (separator + "\(name) = \(name) + ", false)
    }

    // MARK: Notices

    /// Records notice `kind` for reservation `reservationId`, inside the transaction that makes
    /// the event, if the reservation has a customer to tell (a walk-in has none) and has no
    /// notice of that kind yet.
    static func notice(_ kind: Notice.Kind, reservationId: ReservationID, reason: Notice.Reason? = nil, now: Date,
                       _ transaction: some SQLTransaction) throws
    {
        // A walk-in is told only that it is their turn, and only if they left an address.
        let walkIn: SQL = kind == .yourTurn
            ? "OR EXISTS (SELECT 1 FROM walkInContact c WHERE c.reservationId = reservation.id)" : ""
        // Told to leave only by the change that sent them off (`sendOff`).
        let sentOff: SQL = kind == .leaveNow ? "AND leftAt = \(now)" : ""
        try transaction.executeLater("""
            INSERT INTO notice (reservationId, kind, reason, createdAt)
            SELECT id, \(kind.rawValue), \(reason?.rawValue), \(now) FROM reservation
            WHERE id = \(reservationId) AND (userId IS NOT NULL \(walkIn)) \(sentOff)
            ON CONFLICT (reservationId, kind) DO NOTHING
            """)
    }

    /// Tells the customer of waiting ticket `id` of store `storeId` to leave for the store,
    /// once: their places are held from now on. Nothing if it is no longer waiting or called,
    /// or they were told already. Sent with the transaction's next statement: the notice is
    /// recorded only if the ticket was sent off now.
    static func sendOff(_ id: ReservationID, of storeId: StoreID, now: Date, _ transaction: some SQLTransaction) throws {
        let now = now.toTheMillisecond
        transaction.changed(reservation: id, of: storeId)
        let written = try change(id, """
            UPDATE reservation SET leftAt = \(now) WHERE id = \(id) AND status IN ('waiting', 'called') AND leftAt IS NULL
            """, own: { row in
                // Its status and its time are known: nothing to write if it was sent off already.
                guard [.waiting, .called].contains(row.reservation.status), row.reservation.leftAt == nil else { return false }
                row.reservation.leftAt = transaction.asStored(now)
                return true
            }, transaction)
        guard written else { return }
        try notice(.leaveNow, reservationId: id, now: now, transaction)
    }

    /// Cancels `reservation` if it is still active, telling its customer why.
    static func cancel(_ reservation: Reservation, reason: Notice.Reason, now: Date,
                       _ transaction: some SQLTransaction) throws
    {
        guard try setStatus(.cancelled, .endedAt, to: now, id: reservation.id, from: .active, transaction) else { return }
        try notice(.cancelled, reservationId: reservation.id, reason: reason, now: now, transaction)
    }

    // MARK: Tickets and queues

    /// The next ticket number of a store's day, past those its kiosks keep for printing
    /// offline. The store is locked by the caller (`lockStore`), so two tickets never take the
    /// same number.
    static func nextNumber(storeId: StoreID, day: Int, _ transaction: some SQLTransaction) throws -> Int {
        try transaction.value(nextNumberSQL(storeId: storeId, day: day)) ?? 1
    }

    static func nextNumberSQL(storeId: StoreID, day: Int) -> SQL {
        """
        SELECT \(SQL.greatest)(
            COALESCE((SELECT MAX(number) FROM reservation WHERE storeId = \(storeId) AND day = \(day)), 0),
            COALESCE((SELECT MAX(firstNumber + size - 1) FROM ticketBlock WHERE storeId = \(storeId) AND day = \(day)), 0)
        ) + 1
        """
    }

    /// One store's queue brought up to date inside the caller's transaction, with a notice for
    /// each customer it concerns: missed bookings and lapsed calls expire, visits left open
    /// close, those whose turn nears are told to leave, and the next tickets are called where
    /// places are free (`QueueCaller`).
    @discardableResult
    static func advanceQueue(storeId: StoreID, now: Date, _ transaction: some SQLTransaction) throws -> QueueCaller.Plan {
        guard let store = try transaction.lockStore(storeId) else { return QueueCaller.Plan() }
        let settings = store.settings
        // Bookings whose entry window has closed unused: a no-show. The store's traffic holds
        // every booking not ended, read under its lock, after the queue and by slot start
        // (`StoreBoard.Entry.reservations`): the earliest are found by two binary searches,
        // not by a pass over a queue of thousands, which every exit's transaction makes.
        var live = try transaction.traffic(storeId: storeId, now: now)
        let windowClosed = now - Double(settings.entryAfterMinutes) * 60
        let bookings = live.live.partitioningIndex(where: \.isBooked)
        let missed = live.live[bookings...].prefix { reservation in
            if case .booked(let start) = reservation.state { start < windowClosed } else { false }
        }.map(\.id)
        for id in missed where try setStatus(.expired, .endedAt, to: now, id: id, from: .booked, transaction) {
            try notice(.expired, reservationId: id, reason: .missedWindow, now: now, transaction)
        }
        if !missed.isEmpty { live = try transaction.traffic(storeId: storeId, now: now) }
        let hours = store.openingHours
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
            // Counted for the wait estimate (`VisitModel.unscannedRate`): such visits hold their
            // places until closed here.
            try transaction.execute("""
                UPDATE storeLoad SET unscannedVisits = unscannedVisits + \(unscanned) WHERE storeId = \(storeId)
                """)
            transaction.changed(loadOf: storeId)
        }
        for id in plan.sendOff { try sendOff(id, of: storeId, now: now, transaction) }
        for id in plan.call where try setStatus(.called, .calledAt, to: now, id: id, from: .waiting, transaction) {
            try notice(.yourTurn, reservationId: id, now: now, transaction)
        }
        return plan
    }

    // MARK: A customer's pace, a slot's bookings

    /// People booked by slot start at a store from one time to another: read from
    /// `reservation_bookedByStore` alone (it holds the people), never from the rows.
    static func bookedPeopleSQL(storeId: StoreID, from: Date, to: Date) -> SQL {
        """
        SELECT slotStart, CAST(SUM(people) AS BIGINT) FROM reservation
        WHERE status = 'booked' AND storeId = \(storeId) AND slotStart >= \(from) AND slotStart < \(to)
        GROUP BY slotStart
        """
    }

    /// A store's people inside as SQLite's capacity guard keeps them (migration 35): one row.
    static func peopleInsideSQL(storeId: StoreID) -> SQL {
        "SELECT COALESCE((SELECT people FROM storeInside WHERE storeId = \(storeId)), 0)"
    }

    /// The customer's last visits to a store, most recent first: what they declared and how
    /// long they really stayed.
    static func pastVisits(userId: UserID, storeId: StoreID, _ transaction: some SQLTransaction) throws
        -> [CustomerPace.Visit]
    {
        try visits(transaction.rows(pastVisitsSQL(userId: userId, storeId: storeId)))
    }

    static func pastVisitsSQL(userId: UserID, storeId: StoreID) -> SQL {
        """
        SELECT CAST(residenceMinutes * 60 AS DOUBLE PRECISION),
               CAST(\(SQL.epochMilliseconds("exitedAt")) - \(SQL.epochMilliseconds("enteredAt")) AS DOUBLE PRECISION) / 1000
        FROM reservation
        WHERE userId = \(userId) AND storeId = \(storeId) AND exitedAt IS NOT NULL AND enteredAt IS NOT NULL
        ORDER BY exitedAt DESC LIMIT \(CustomerPace.visitsRead)
        """
    }

    /// The visits `pastVisitsSQL` returned.
    static func visits(_ rows: [SQLRow]) throws -> [CustomerPace.Visit] {
        try rows.map { CustomerPace.Visit(declared: try $0.decode(0), actual: try $0.decode(1)) }
    }

    /// People booked in each of `slots` (in order) at a store, by slot start, read from
    /// `reservation_bookedByStore` alone. A booking counts in the slot during which it starts,
    /// not only the slot starting at its start: one made before the store changed its slot
    /// length keeps its time, off the new grid, and still takes its places.
    static func bookedPeople(storeId: StoreID, in slots: [Slot], _ transaction: some SQLTransaction) throws -> [Date: Int] {
        guard let first = slots.first, let last = slots.last else { return [:] }
        let rows = try transaction.rows(bookedPeopleSQL(storeId: storeId, from: first.start, to: last.end))
        var result: [Date: Int] = [:]
        for row in rows {
            let start: Date = try row.decode(0)
            // The last slot starting at or before it; counted if the booking starts within it.
            var low = 0
            var high = slots.count
            while low < high {
                let middle = (low + high) / 2
                if slots[middle].start <= start { low = middle + 1 } else { high = middle }
            }
            guard low > 0, start < slots[low - 1].end else { continue }
            result[slots[low - 1].start, default: 0] += try row.decode(1, as: Int.self)
        }
        return result
    }
}
