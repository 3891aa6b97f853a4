import CLupDomain
import Foundation
import PostgresNIO

/// The entrance on PostgreSQL: scans, walk-in tickets (printed online or from a kiosk's block
/// while offline) and staff's actions at the door — the same named methods as
/// `AppDatabase+Entrance.swift`, `+TicketBlocks.swift` and `+Door.swift`. Every one locks the
/// store's row before it decides, so two doors of one store, on two workers, never let in
/// more than its capacity.
extension PostgresEngine {
    // MARK: Scanning

    func scan(reservationId: ReservationID?, walkIn: WalkInCode?, at storeId: StoreID, now: Date) throws -> ScanResult {
        try write { transaction in
            try Self.recordedScan(reservationId, walkIn: walkIn, at: storeId, now: now, transaction)
        }
    }

    func scan(reservationId: ReservationID?, walkIn: WalkInCode?, at storeId: StoreID, by scan: KioskScan, now: Date,
              answer: (ScanResult) throws -> String) throws -> ScanAnswer
    {
        try write { transaction in
            // A kiosk's scan is done once: the store's lock orders two deliveries of it, and
            // the second finds the first's receipt.
            guard try Self.lockStore(storeId, transaction) != nil else { throw StoreError.noSuchStore }
            if let kept = try transaction.value("""
                SELECT answer FROM scanReceipt WHERE kioskId = \(scan.kioskId) AND scanId = \(scan.scanId)
                """, as: String.self)
            {
                return .replayed(kept)
            }
            let at = min(scan.scannedAt, now)
            let result = try Self.recordedScan(reservationId, walkIn: walkIn, at: storeId, now: at, doorDid: scan.doorDid,
                                               kioskId: scan.kioskId, transaction)
            let text = try answer(result)
            try transaction.execute("""
                INSERT INTO scanReceipt (kioskId, scanId, scannedAt, receivedAt, answer)
                VALUES (\(scan.kioskId), \(scan.scanId), \(at), \(now), \(text))
                """)
            return .fresh(result, answer: text)
        }
    }

    private static func recordedScan(_ reservationId: ReservationID?, walkIn: WalkInCode?, at storeId: StoreID,
                                     now: Date, doorDid: KioskScan.DoorDid? = nil, kioskId: Int64? = nil,
                                     _ transaction: PostgresTransaction) throws -> ScanResult
    {
        guard try lockStore(storeId, transaction) != nil else { throw StoreError.noSuchStore }
        var reservation = try reservationId.flatMap { try Self.reservation($0, transaction) }
        if reservation == nil, let reservationId, let walkIn,
           let block = try ticketBlock(containing: reservationId, storeId: walkIn.storeId, transaction)
        {
            reservation = try printedOfflineTicket(reservationId, of: block, people: walkIn.people,
                                                   residenceMinutes: ResidenceTime.defaultMinutes, issuedAt: now,
                                                   transaction)
        }
        let result = try scan(reservation, at: storeId, now: now, doorDid: doorDid, transaction)
        switch result.outcome {
        case .refused(let refusal, let ticket):
            try recordDoorAction(.scanRefused, storeId: storeId, reservation: ticket, reason: refusal.code,
                                 outcome: "refused", staff: nil, now: now, transaction)
        case .disagreed(let door, let verdict, let ticket):
            let reason = switch verdict {
            case .refused(let refusal): refusal.code
            case .enter: "notInside"
            case .exit: "alreadyInside"
            }
            try recordDoorAction(.offlineConflict, storeId: storeId, reservation: ticket, reason: reason,
                                 outcome: door.rawValue, staff: nil, kioskId: kioskId, now: now, transaction)
        case .entered, .left:
            break
        }
        return result
    }

    /// A scan of `reservation` at the store, whose row the caller has locked.
    static func scan(_ reservation: Reservation?, at storeId: StoreID, now: Date, doorDid: KioskScan.DoorDid? = nil,
                     _ transaction: PostgresTransaction) throws -> ScanResult
    {
        guard let store = try AppDatabase.storeDetails(storeId, transaction.statements).first?.store else { throw StoreError.noSuchStore }
        var inside = try peopleInside(storeId: storeId, transaction)
        var door = reservation?.doorTicket
        if let reservation, reservation.walkIn, reservation.status == .waiting {
            door?.printedOffline = try ticketBlock(containing: reservation.id, storeId: reservation.storeId, transaction) != nil
        }
        let verdict = Entrance.verdict(for: door, at: storeId, settings: store.settings, peopleInside: inside, now: now)
        var otherStoreName: String?
        let outcome: ScanResult.Outcome
        switch (verdict, reservation) {
        case (_, let ticket) where doorDid.map { $0 != KioskScan.DoorDid(verdict) } ?? false:
            outcome = .disagreed(door: doorDid!, verdict: verdict, ticket)
        case (.enter, var ticket?):
            if ticket.status == .waiting {
                try setStatus(.called, .calledAt, to: now, id: ticket.id, from: .waiting, transaction)
                ticket.calledAt = now
            }
            inside += ticket.people
            try setStatus(.inside, .enteredAt, to: now, id: ticket.id, from: .active, insideAfter: inside, transaction)
            ticket.status = .inside
            ticket.enteredAt = now
            outcome = .entered(ticket)
        case (.exit, var ticket?):
            try setStatus(.done, .exitedAndEndedAt, to: now, id: ticket.id, from: .inside, transaction)
            ticket.status = .done
            ticket.exitedAt = now
            ticket.endedAt = now
            inside -= ticket.people
            try advanceQueue(storeId: storeId, now: now, transaction)
            outcome = .left(ticket)
        case (.refused(let refusal), _):
            if case .otherStore(let otherId) = refusal {
                otherStoreName = try transaction.value("SELECT name FROM store WHERE id = \(otherId)", as: String.self)
            }
            outcome = .refused(refusal, reservation)
        case (.enter, nil), (.exit, nil):
            outcome = .refused(.unknownCode, nil)
        }
        return ScanResult(outcome: outcome, otherStoreName: otherStoreName, peopleInside: inside,
                          capacity: store.capacity, zone: store.zone)
    }

    // MARK: Walk-in tickets

    func issueWalkInTicket(storeId: StoreID, people: Int, residenceMinutes: Int, requestKey: String?,
                           priority staff: DoorStaff?, now: Date) throws -> WalkInOutcome
    {
        let priority = staff != nil
        return try write { transaction in
            guard let details = try Self.lockStore(storeId, transaction) else { return .noSuchStore }
            if let requestKey, let earlier = try transaction.row("""
                SELECT \(unescaped: Self.reservationColumns) FROM reservation
                WHERE storeId = \(storeId) AND requestKey = \(requestKey)
                """)?.record(Reservation.self)
            {
                return .alreadyIssued(earlier)
            }
            let settings = details.store.settings
            guard settings.walkInPlaces > 0 else { return .noWalkInPlaces }
            guard settings.priority.isOn || !priority else { return .noPriorityLane }
            let live = try Self.traffic(storeId: storeId, now: now, transaction)
            let (decision, before) = live.lineUpDecision(
                people: people, residence: Double(residenceMinutes) * 60, priority: priority, settings: settings,
                hours: details.openingHours, now: now, pool: .walkIn)
            guard case .accepted(_, let expectedEntry) = decision else { return .refused(decision) }
            let day = details.openingHours.businessDay(at: now)
            let ticket = try Self.insert(NewReservation(
                storeId: storeId, userId: nil, kind: .lineUp, walkIn: true, day: day,
                number: try Self.nextNumber(storeId: storeId, day: day, transaction), people: people,
                residenceMinutes: residenceMinutes, status: .waiting, createdAt: now, requestKey: requestKey,
                expectedEntry: expectedEntry, priority: priority, queuePosition: before), transaction)
            if let staff {
                try Self.recordDoorAction(.priority, storeId: storeId, reservation: ticket, reason: "",
                                          outcome: ticket.status.rawValue, staff: staff, now: now, transaction)
            }
            try Self.advanceQueue(storeId: storeId, now: now, transaction)
            return .issued(try Self.reservation(ticket.id, transaction) ?? ticket)
        }
    }

    func walkInTicket(id: ReservationID, storeId: StoreID) throws -> Reservation? {
        try read { transaction in
            try transaction.row("""
                SELECT \(unescaped: Self.reservationColumns) FROM reservation
                WHERE id = \(id) AND storeId = \(storeId) AND walkIn
                """)?.record(Reservation.self)
        }
    }

    // MARK: Ticket blocks

    private static let blockColumns = "id, storeId, kioskId, day, firstNumber, firstReservationId, size, createdAt"

    func ticketBlock(for kiosk: Kiosk, now: Date) throws -> (block: TicketBlock, spare: [SpareTicket])? {
        guard let day = board.entry(kiosk.storeId)?.hours.businessDay(at: now) else { return nil }
        let kept = try read { transaction in
            try Self.ticketBlock(kioskId: kiosk.id, day: day, transaction).map { ($0, try Self.spare(in: $0, transaction)) }
        }
        if let kept { return kept }
        return try write { transaction in
            guard let details = try Self.lockStore(kiosk.storeId, transaction) else { return nil }
            let day = details.openingHours.businessDay(at: now)
            let block = try Self.ticketBlock(kioskId: kiosk.id, day: day, transaction)
                ?? Self.reserveTicketBlock(kiosk: kiosk, day: day, now: now, transaction)
            return (block, try Self.spare(in: block, transaction))
        }
    }

    private static func ticketBlock(kioskId: Int64, day: Int, _ transaction: PostgresTransaction) throws -> TicketBlock? {
        try transaction.row("""
            SELECT \(unescaped: blockColumns) FROM ticketBlock WHERE kioskId = \(kioskId) AND day = \(day)
            """)?.record(TicketBlock.self)
    }

    private static func spare(in block: TicketBlock, _ transaction: PostgresTransaction) throws -> [SpareTicket] {
        let used = Set(try transaction.rows("""
            SELECT id FROM reservation WHERE id BETWEEN \(block.firstReservationId) AND \(block.lastReservationId)
            """).map { try $0[0].decode(ReservationID.self) })
        return block.reservationIds.filter { !used.contains($0) }.map { SpareTicket(id: $0, number: block.number(of: $0)) }
    }

    /// A new block for `kiosk` and `day`: the day's next numbers (the store is locked), and
    /// ids the reservation sequence will never hand out. The table is locked against inserts
    /// while the sequence is moved past the block, so no other store's reservation takes an id
    /// inside it meanwhile; this happens once per kiosk and day.
    private static func reserveTicketBlock(kiosk: Kiosk, day: Int, now: Date, _ transaction: PostgresTransaction) throws
        -> TicketBlock
    {
        let firstNumber = try nextNumber(storeId: kiosk.storeId, day: day, transaction)
        let size = AppDatabase.ticketBlockSize
        try transaction.execute("LOCK TABLE reservation IN SHARE ROW EXCLUSIVE MODE")
        let lastId = try transaction.value("""
            SELECT GREATEST((SELECT last_value FROM reservation_id_seq), COALESCE((SELECT MAX(id) FROM reservation), 0))
            """, as: Int64.self) ?? 0
        try transaction.execute("SELECT setval('reservation_id_seq', \(lastId + Int64(size)))")
        guard let row = try transaction.row("""
            INSERT INTO ticketBlock (storeId, kioskId, day, firstNumber, firstReservationId, size, createdAt)
            VALUES (\(kiosk.storeId), \(kiosk.id), \(day), \(firstNumber), \(lastId + 1), \(size), \(now))
            RETURNING \(unescaped: blockColumns)
            """)
        else { preconditionFailure("INSERT … RETURNING returned no row") }
        return try row.record(TicketBlock.self)
    }

    func ticketBlocks(storeId: StoreID, days: ClosedRange<Int>) throws -> [TicketBlock] {
        try read { transaction in
            try transaction.rows("""
                SELECT \(unescaped: Self.blockColumns) FROM ticketBlock
                WHERE storeId = \(storeId) AND day BETWEEN \(days.lowerBound) AND \(days.upperBound)
                ORDER BY firstReservationId
                """).map { try $0.record(TicketBlock.self) }
        }
    }

    func reportOfflineTicket(_ id: ReservationID, kiosk: Kiosk, people: Int, residenceMinutes: Int, issuedAt: Date,
                             now: Date) throws -> OfflineTicketOutcome
    {
        try write { transaction in
            guard try Self.lockStore(kiosk.storeId, transaction) != nil,
                let block = try transaction.row("""
                    SELECT \(unescaped: Self.blockColumns) FROM ticketBlock
                    WHERE kioskId = \(kiosk.id) AND firstReservationId <= \(id) AND \(id) < firstReservationId + size
                    """)?.record(TicketBlock.self)
            else { return .notInBlock }
            if let known = try Self.reservation(id, transaction) { return .alreadyKnown(known) }
            let made = try Self.printedOfflineTicket(id, of: block, people: people, residenceMinutes: residenceMinutes,
                                                     issuedAt: min(issuedAt, now), transaction)
            try Self.advanceQueue(storeId: kiosk.storeId, now: now, transaction)
            return .recorded(try Self.reservation(made.id, transaction) ?? made)
        }
    }

    static func ticketBlock(containing id: ReservationID, storeId: StoreID, _ transaction: PostgresTransaction) throws
        -> TicketBlock?
    {
        try transaction.row("""
            SELECT \(unescaped: blockColumns) FROM ticketBlock
            WHERE storeId = \(storeId) AND firstReservationId <= \(id) AND \(id) < firstReservationId + size
            """)?.record(TicketBlock.self)
    }

    static func printedOfflineTicket(_ id: ReservationID, of block: TicketBlock, people: Int, residenceMinutes: Int,
                                     issuedAt: Date, _ transaction: PostgresTransaction) throws -> Reservation
    {
        try insert(NewReservation(
            storeId: block.storeId, userId: nil, kind: .lineUp, walkIn: true, day: block.day, number: block.number(of: id),
            people: people, residenceMinutes: residenceMinutes, status: .waiting, createdAt: issuedAt, requestKey: nil),
                   id: id, transaction)
    }

    // MARK: Staff at the door

    func door(_ kind: DoorAction.Kind, storeId: StoreID, number: Int, reason: String, by staff: DoorStaff, now: Date) throws
        -> DoorOutcome
    {
        try write { transaction in
            guard let details = try Self.lockStore(storeId, transaction) else { throw StoreError.noSuchStore }
            let today = details.openingHours.businessDay(at: now)
            guard var reservation = try transaction.row("""
                SELECT \(unescaped: Self.reservationColumns) FROM reservation
                WHERE storeId = \(storeId) AND day = \(today) AND number = \(number)
                """)?.record(Reservation.self)
            else { return .noSuchTicket }
            let status = reservation.status
            switch kind {
            case .recall:
                guard status == .called else { return .notApplicable(status) }
                try transaction.execute("""
                    UPDATE reservation SET calledAt = \(now) WHERE id = \(reservation.id) AND status = 'called'
                    """)
                transaction.changed(reservation: reservation.id, of: storeId)
                reservation.calledAt = now
            case .noShow:
                let from: Reservation.StatusSet = status == .booked ? .booked : .waitingOrCalled
                guard [.waiting, .called, .booked].contains(status),
                    try Self.setStatus(.expired, .endedAt, to: now, id: reservation.id, from: from, transaction)
                else { return .notApplicable(status) }
                try Self.notice(.expired, reservationId: reservation.id, reason: .markedNoShow, now: now, transaction)
                try Self.advanceQueue(storeId: storeId, now: now, transaction)
                reservation.status = .expired
            case .admit, .letOut:
                guard (kind == .admit) == (status != .inside) else { return .notApplicable(status) }
                let scan = try Self.scan(reservation, at: storeId, now: now, transaction)
                switch (kind, scan.outcome) {
                case (.admit, .entered(let scanned)), (.letOut, .left(let scanned)): reservation = scanned
                default: return .refusedByRules(scan)
                }
            case .leftUnscanned:
                guard status == .inside,
                    try Self.setStatus(.done, .endedAt, to: now, id: reservation.id, from: .inside, transaction)
                else { return .notApplicable(status) }
                try Self.advanceQueue(storeId: storeId, now: now, transaction)
                reservation.status = .done
            case .scanRefused, .offlineConflict, .priority:
                return .notApplicable(status)
            }
            try Self.recordDoorAction(kind, storeId: storeId, reservation: reservation, reason: reason,
                                      outcome: reservation.status.rawValue, staff: staff, now: now, transaction)
            return .done(reservation)
        }
    }

    static func recordDoorAction(_ kind: DoorAction.Kind, storeId: StoreID, reservation: Reservation?, reason: String,
                                 outcome: String, staff: DoorStaff?, kioskId: Int64? = nil, now: Date,
                                 _ transaction: PostgresTransaction) throws
    {
        let own = reservation?.storeId == storeId ? reservation : nil
        var userId: UserID?
        var kioskId = kioskId
        var staffName: String?
        switch staff {
        case .user(let id)?: userId = id
        case .kiosk(let id, let name)?: (kioskId, staffName) = (id, Sealed.seal(String(name.prefix(60))))
        case nil: break
        }
        // What staff typed is sealed (`PersonalColumns`); a refusal's or a conflict's code is not.
        let reason = staff == nil ? String(reason.prefix(200)) : Sealed.seal(String(reason.prefix(200)))
        try transaction.execute("""
            INSERT INTO doorAction (storeId, reservationId, number, action, reason, outcome, userId, kioskId, staffName, at)
            VALUES (\(storeId), \(own?.id), \(own?.number), \(kind.rawValue), \(reason), \(outcome),
                    \(userId), \(kioskId), \(staffName), \(now))
            """)
    }

    func doorLog(storeId: StoreID, limit: Int, kiosksSince: Date?) throws -> [DoorLogEntry] {
        try read { transaction in
            try transaction.rows("""
                SELECT d.at, d.action, d.number, d.reason, d.outcome, u.displayName, d.staffName, k.label FROM doorAction d
                LEFT JOIN "user" u ON u.id = d.userId LEFT JOIN kiosk k ON k.id = d.kioskId
                WHERE d.storeId = \(storeId)
                  AND (\(kiosksSince)::timestamptz IS NULL OR (d.kioskId IS NOT NULL AND d.at >= \(kiosksSince)))
                ORDER BY d.at DESC, d.id DESC LIMIT \(limit)
                """).compactMap { row in
                let staff: DoorLogEntry.Staff? = if let name = try row[5].decode(String?.self) {
                    .user(try Sealed.open(name))
                } else if let name = try row[6].decode(String?.self) {
                    .atKiosk(name: try Sealed.open(name), kiosk: try row[7].decode(String?.self) ?? "")
                } else {
                    nil
                }
                return try DoorAction.Kind(rawValue: row[1].decode(String.self)).map {
                    DoorLogEntry(at: try row[0].decode(Date.self), kind: $0, number: try row[2].decode(Int?.self),
                                 reason: PersonalColumns.logValue(try row[3].decode(String.self)),
                                 outcome: try row[4].decode(String.self), staff: staff)
                }
            }
        }
    }

    func doorActionCount(kioskId: Int64, since: Date) throws -> Int {
        try read { transaction in
            try transaction.value("SELECT COUNT(*) FROM doorAction WHERE kioskId = \(kioskId) AND at >= \(since)") ?? 0
        }
    }

    func refusedScans(storeId: StoreID, from: Date, to: Date) throws -> [Date] {
        try read { transaction in
            try transaction.rows("""
                SELECT at FROM doorAction
                WHERE storeId = \(storeId) AND action = 'scanRefused' AND at >= \(from) AND at < \(to)
                """).map { try $0[0].decode(Date.self) }
        }
    }
}
