import CLupDomain
import CLupSupport
import Foundation
import GRDB

/// What a scan did: the verdict, the reservation the code named (if any) and the count inside
/// after it.
public struct ScanResult: Sendable {
    /// What the scan did. An entry and an exit always have the ticket they changed; a refusal
    /// has one when the code named a ticket (of this store or another).
    public enum Outcome: Sendable {
        case entered(Reservation)
        case left(Reservation)
        case refused(ScanRefusal, Reservation?)
        /// The kiosk let someone in or out while offline, and CLup's verdict differs
        /// (`verdict`): nothing was applied, and the conflict is logged for staff.
        case disagreed(door: KioskScan.DoorDid, verdict: ScanVerdict, Reservation?)
    }

    public var outcome: Outcome
    /// The store the ticket belongs to, when it is another one.
    public var otherStoreName: String?
    public var peopleInside: Int
    public var capacity: Int
    /// The store's zone, for the times a refusal names.
    public var zone: TimeZone

    public var verdict: ScanVerdict {
        switch outcome {
        case .entered: .enter
        case .left: .exit
        case .refused(let refusal, _): .refused(refusal)
        case .disagreed(_, let verdict, _): verdict
        }
    }

    /// The ticket the code named, if any.
    public var reservation: Reservation? {
        switch outcome {
        case .entered(let ticket), .left(let ticket): ticket
        case .refused(_, let ticket), .disagreed(_, _, let ticket): ticket
        }
    }
}

/// A scan as a kiosk names it: an id of its own (16 to 64 URL-safe characters) and when it
/// happened, so that sent twice it counts once.
public struct KioskScan: Sendable {
    public var kioskId: Int64
    public var scanId: String
    public var scannedAt: Date
    /// What the kiosk did by itself, while CLup could not be reached: CLup applies the scan
    /// only if its own verdict is the same, and otherwise logs the conflict for staff.
    public var doorDid: DoorDid?

    public enum DoorDid: String, Sendable {
        case enter
        case exit

        /// What a verdict lets the door do; nil for a refusal.
        init?(_ verdict: ScanVerdict) {
            switch verdict {
            case .enter: self = .enter
            case .exit: self = .exit
            case .refused: return nil
            }
        }
    }

    public init(kioskId: Int64, scanId: String, scannedAt: Date, doorDid: DoorDid? = nil) {
        (self.kioskId, self.scanId, self.scannedAt, self.doorDid) = (kioskId, scanId, scannedAt, doorDid)
    }

    /// How far ahead of CLup's clock a kiosk's may be.
    public static let clockSkew: TimeInterval = 60
    /// The oldest scan applied: a kiosk that could not send for longer says so to staff.
    public static let oldest: TimeInterval = 86400

    /// Why CLup cannot apply what the door did offline at the time the kiosk gives: sent more
    /// than a day later, or dated ahead of CLup's clock. Nil for a live scan.
    func unapplicable(now: Date) -> ScanRefusal? {
        guard doorDid != nil else { return nil }
        if scannedAt > now + Self.clockSkew { return .datedAhead }
        if scannedAt < now - Self.oldest { return .sentTooLate }
        return nil
    }
}

/// A kiosk's scan: done now, or done before (its first answer).
public enum ScanAnswer: Sendable {
    case fresh(ScanResult, answer: String)
    case replayed(String)

    public var answer: String {
        switch self {
        case .fresh(_, let answer), .replayed(let answer): answer
        }
    }
}

/// What a signed walk-in code says of its ticket: its store and party, enough to make the
/// reservation of a ticket printed offline that CLup has not heard of yet.
public struct WalkInCode: Sendable, Equatable {
    public var storeId: StoreID
    public var people: Int

    public init(storeId: StoreID, people: Int) {
        self.storeId = storeId
        self.people = people
    }
}

/// What became of a walk-in's request for a ticket. Only `.issued` changed anything.
public enum WalkInOutcome: Sendable {
    case issued(Reservation)
    /// The same form was sent again: the ticket it made.
    case alreadyIssued(Reservation)
    case refused(LineUpPolicy.Decision)
    /// The store keeps no places for walk-ins (its walk-in share is 0%).
    case noWalkInPlaces
    /// A priority ticket asked for at a store without a priority lane.
    case noPriorityLane
    case noSuchStore
}

extension AppDatabase {

    /// A scan inside the caller's transaction, a refusal or a conflict recorded for the store's staff.
    /// With `unapplicable`, what the door did offline is not applied but logged as a conflict
    /// with that reason.
    fileprivate static func recordedScan(_ reservationId: ReservationID?, walkIn: WalkInCode?, at storeId: StoreID,
                                     now: Date, doorDid: KioskScan.DoorDid? = nil, unapplicable: ScanRefusal? = nil,
                                     kioskId: Int64? = nil, _ transaction: some SQLTransaction) throws -> ScanResult
    {
        var reservation = try reservationId.flatMap { try Reservation.find($0, transaction) }
        if reservation == nil, unapplicable == nil, let reservationId, let walkIn,
           let block = try ticketBlock(containing: reservationId, storeId: walkIn.storeId, transaction)
        {
            // A ticket printed offline that CLup has not heard of yet: made now, from its code,
            // as if it had been printed at the moment it is scanned.
            reservation = try printedOfflineTicket(reservationId, of: block, people: walkIn.people,
                                                   residenceMinutes: ResidenceTime.defaultMinutes, issuedAt: now,
                                                   transaction)
            // As stored, its time has lost what is finer than a millisecond: it was made now.
            reservation?.createdAt = now
        }
        // A live scan leaves the places other doors hold for offline; one made offline was
        // decided within the door's own lease.
        let heldElsewhere = doorDid == nil
            ? try heldElsewhere(storeId: storeId, except: kioskId, now: now, transaction) : 0
        let result = try scan(reservation, at: storeId, now: now, doorDid: doorDid, unapplicable: unapplicable,
                              heldElsewhere: heldElsewhere, transaction)
        if let kioskId {
            // The door's lease changes as the door changed its copy: by what it did offline,
            // and by an entry it sees answered online.
            let people = result.reservation?.people ?? walkIn?.people ?? 0
            switch (doorDid, result.outcome) {
            case (.enter?, _), (nil, .entered): try changeLease(kioskId: kioskId, by: -people, transaction)
            case (.exit?, _): try changeLease(kioskId: kioskId, by: people, transaction)
            default: break
            }
        }
        switch result.outcome {
        case .refused(let refusal, let ticket):
            try recordDoorAction(.scanRefused, storeId: storeId, reservation: ticket, reason: refusal.code,
                                 outcome: "refused", staff: nil, kioskId: kioskId, now: now, transaction)
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

    /// A scan of `reservation` (nil: not a valid code), inside the caller's transaction. With
    /// `doorDid`, the scan is applied only if the verdict is what the door did; `unapplicable`
    /// is CLup's verdict instead of the rules'. An entry leaves `heldElsewhere` places free,
    /// the leases of doors other than the one scanning (`DoorLease`).
    static func scan(_ reservation: Reservation?, at storeId: StoreID, now: Date, doorDid: KioskScan.DoorDid? = nil,
                     unapplicable: ScanRefusal? = nil, heldElsewhere: Int = 0, _ transaction: some SQLTransaction)
        throws -> ScanResult
    {
        guard let store = try transaction.lockStore(storeId)?.store else { throw StoreError.noSuchStore }
        var inside = try transaction.peopleInside(storeId: storeId)
        var door = reservation?.doorTicket
        if let reservation, reservation.walkIn, reservation.status == .waiting {
            door?.printedOffline = try ticketBlock(containing: reservation.id, storeId: reservation.storeId, transaction) != nil
        }
        let verdict = unapplicable.map(ScanVerdict.refused)
            ?? Entrance.verdict(for: door, at: storeId, settings: store.settings, peopleInside: inside,
                                heldElsewhere: heldElsewhere, now: now)
        var otherStoreName: String?
        let outcome: ScanResult.Outcome
        switch (verdict, reservation) {
        case (_, let ticket) where doorDid.map { $0 != KioskScan.DoorDid(verdict) } ?? false:
            outcome = .disagreed(door: doorDid!, verdict: verdict, ticket)
        case (.enter, var ticket?):
            if ticket.status == .waiting {
                // Printed offline: called by the door itself, as it lets the holder in.
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
            // The rules admit or let out only a ticket they were given.
            outcome = .refused(.unknownCode, nil)
        }
        return ScanResult(outcome: outcome, otherStoreName: otherStoreName,
                          peopleInside: inside, capacity: store.capacity, zone: store.zone)
    }
}

extension Doors {
    // MARK: Scanning

    /// Scans the ticket `reservationId` (nil: the code was not a valid token) at store
    /// `storeId`'s entrance, in one transaction under the store's lock, so that concurrent
    /// scans see each other's entries and the store never holds more than its capacity. An
    /// exit frees places, so the queue is advanced in the same transaction. A refusal changes
    /// nothing but is recorded for the store's staff (`doorActions`), as pretix does, with the
    /// kiosk that scanned it.
    public func scan(reservationId: ReservationID?, walkIn: WalkInCode? = nil, at storeId: StoreID, kioskId: Int64? = nil,
                     now: Date) throws -> ScanResult
    {
        try database.transaction { transaction in
            try AppDatabase.recordedScan(reservationId, walkIn: walkIn, at: storeId, now: now, kioskId: kioskId, transaction)
        }
    }

    /// Scans as `scan(reservationId:at:now:)` does, once for each of a kiosk's scan ids: in the
    /// same transaction, the answer `answer` gives is kept with the id, and the same scan sent
    /// again (a retry, or a kiosk catching up) gets that answer back and changes nothing. The
    /// rules are applied at the time the scan happened, `scan.scannedAt` (never later than
    /// `now`), and an entry or exit is recorded at that time. What the door did offline that
    /// CLup cannot apply at that time (`KioskScan.unapplicable`) is logged as a conflict, now.
    public func scan(reservationId: ReservationID?, walkIn: WalkInCode? = nil, at storeId: StoreID, by scan: KioskScan,
                     now: Date, answer: (ScanResult) throws -> String) throws -> ScanAnswer
    {
        try database.transaction { transaction in
            // The store's lock orders two deliveries of one scan: the second finds the first's receipt.
            guard try transaction.lockStore(storeId) != nil else { throw StoreError.noSuchStore }
            if let kept = try transaction.value("""
                SELECT answer FROM scanReceipt WHERE kioskId = \(scan.kioskId) AND scanId = \(scan.scanId)
                """, as: String.self)
            {
                return .replayed(kept)
            }
            let unapplicable = scan.unapplicable(now: now)
            let at = unapplicable == nil ? min(scan.scannedAt, now) : now
            let result = try AppDatabase.recordedScan(reservationId, walkIn: walkIn, at: storeId, now: at, doorDid: scan.doorDid,
                                                      unapplicable: unapplicable, kioskId: scan.kioskId, transaction)
            let text = try answer(result)
            try transaction.execute("""
                INSERT INTO scanReceipt (kioskId, scanId, scannedAt, receivedAt, answer)
                VALUES (\(scan.kioskId), \(scan.scanId), \(at), \(now), \(text))
                """)
            return .fresh(result, answer: text)
        }
    }

    // MARK: Calling

    /// Brings every store's queue up to date at `now`: lapsed calls and missed bookings expire,
    /// customers whose turn nears are told to leave, and the next tickets are called where
    /// places are free. The server runs this every few seconds, since time alone frees places
    /// (a grace period ends, a booking's window closes) and brings turns nearer. Returns how
    /// many tickets were called.
    ///
    /// The board says, from memory, which stores have anything to do; only those get a
    /// transaction, which decides again from the committed rows.
    @discardableResult
    public func advanceQueues(now: Date) throws -> Int {
        var called = 0
        for work in database.board.queueWork(now: now) {
            called += try database.transaction { transaction in
                guard try transaction.lockStore(work.storeId) != nil else { return 0 }
                for id in work.sendOff { try AppDatabase.sendOff(id, of: work.storeId, now: now, transaction) }
                return try AppDatabase.advanceQueue(storeId: work.storeId, now: now, transaction).call.count
            }
        }
        return called
    }

    // MARK: Walk-in tickets

    /// Issues a walk-in's ticket at the kiosk (G1.2, R22): it joins the store's queue on the
    /// walk-in share of the capacity and is called at once if a place is free. Like an online
    /// line-up it is refused while the store is closed, when the wait exceeds two hours or the
    /// visit would end after closing. `requestKey` makes a repeated form print one ticket.
    /// Issued by `staff` at the door console — a `priority` ticket, or an ordinary one for
    /// someone who phoned — it is logged with who issued it.
    /// A walk-in may leave an address (`contact`) to be told by email when it is their turn.
    public func issueWalkInTicket(storeId: StoreID, people: Int, residenceMinutes: Int, requestKey: String?,
                                  issuedBy staff: DoorStaff? = nil, priority: Bool = false, contact: WalkInContact? = nil,
                                  now: Date) throws -> WalkInOutcome
    {
        precondition(staff != nil || !priority, "priority tickets are issued by staff")
        return try database.transaction { transaction in
            // What the ticket reads is read with the store's lock, in the same round trip on
            // PostgreSQL: the ticket its form printed already, the day's next number, its id.
            guard let (details, read) = try transaction.lockStore(storeId, board: database.board.entry(storeId)?.definition,
                                                                   reading: { store in
                WalkInReads(storeId: storeId, requestKey: requestKey, day: store.openingHours.businessDay(at: now), transaction)
            }), !details.isRetired else { return .noSuchStore }
            let day = details.openingHours.businessDay(at: now)
            if let earlier = read.earlier { return .alreadyIssued(earlier) }
            let settings = details.store.settings
            guard settings.walkInPlaces > 0 else { return .noWalkInPlaces }
            guard settings.priority.isOn || !priority else { return .noPriorityLane }
            let live = try transaction.traffic(storeId: storeId, now: now)
            let (decision, before) = live.lineUpDecision(
                people: people, residence: Double(residenceMinutes) * 60, priority: priority, settings: settings,
                hours: details.openingHours, now: now, pool: .walkIn)
            guard case .accepted(_, let expectedEntry) = decision else { return .refused(decision) }
            let ticket = try AppDatabase.insert(taking: read.id, NewReservation(
                storeId: storeId, userId: nil, kind: .lineUp, walkIn: true, day: day,
                number: read.number, people: people,
                residenceMinutes: residenceMinutes, status: .waiting, createdAt: now, requestKey: requestKey,
                expectedEntry: expectedEntry, priority: priority, queuePosition: before), transaction)
            if let staff {
                try AppDatabase.recordDoorAction(priority ? .priority : .phoneIn, storeId: storeId, reservation: ticket,
                                                 reason: "", outcome: ticket.status.rawValue, staff: staff, now: now,
                                                 transaction)
            }
            try AppDatabase.advanceQueue(storeId: storeId, now: now, transaction)
            let issued = try AppDatabase.reservationAsNow(ticket.id, transaction) ?? ticket
            // Kept only for a ticket that waits: one called at once is in the holder's hand.
            if let contact, issued.status == .waiting {
                try transaction.execute("""
                    INSERT INTO walkInContact (reservationId, email, language, createdAt)
                    VALUES (\(ticket.id), \(Sealed.seal(contact.email)), \(contact.language), \(now))
                    """)
            }
            return .issued(issued)
        }
    }

    /// Whether walk-in ticket `id`'s holder left an address to be told it is their turn.
    public func hasContact(_ id: ReservationID) throws -> Bool {
        try database.reading { transaction in
            try transaction.exists("SELECT 1 FROM walkInContact WHERE reservationId = \(id)")
        }
    }

    /// How staff issued walk-in ticket `id` at the door console (`.priority` or `.phoneIn`),
    /// if they did.
    public func issuedByStaff(_ id: ReservationID) throws -> DoorAction.Kind? {
        try database.reading { transaction in
            try transaction.value("""
                SELECT action FROM doorAction WHERE reservationId = \(id) AND action IN ('priority', 'phoneIn') LIMIT 1
                """, as: String.self).flatMap(DoorAction.Kind.init(rawValue:))
        }
    }

    /// A walk-in ticket of store `storeId`, for the kiosk that printed it.
    public func walkInTicket(id: ReservationID, storeId: StoreID) throws -> Reservation? {
        try database.reading { transaction in
            try Reservation.all("""
                SELECT \(unescaped: Reservation.columnList) FROM reservation
                WHERE id = \(id) AND storeId = \(storeId) AND walkIn
                """, transaction).first
        }
    }

    // MARK: The entrance board

    /// Called tickets (latest call first), the next waiting ones, and the count inside.
    public func entranceBoard(storeId: StoreID, now: Date, next: Int = 6) throws -> EntranceBoard {
        EntranceBoard(try database.reservations.liveTraffic(storeId: storeId, now: now), next: next)
    }
}

/// The entrance: scans, walk-in tickets and the blocks kiosks print while offline, and what staff
/// do at the door.
/// Reached from the database as `doors`; each write is one transaction.
public struct Doors: Sendable {
    let database: AppDatabase
}

extension AppDatabase {
    /// Scans, walk-in tickets and the door console.
    public var doors: Doors { Doors(database: self) }
}
