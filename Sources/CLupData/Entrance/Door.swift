import CLupDomain
import Foundation
import GRDB

/// What staff did at the door (or a scan that was refused), for the store's log.
public struct DoorAction: Codable, Sendable, Identifiable, FetchableRecord, TableRecord {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A called ticket called again: its grace period starts afresh.
        case recall
        /// A ticket or booking marked as not coming: it expires, and its places go to the queue.
        case noShow
        /// Let in by ticket number (a code that will not scan): the same rules as a scan.
        case admit
        /// Let out by ticket number.
        case letOut
        /// Someone left without scanning out: the visit is closed, without an exit time.
        case leftUnscanned
        /// A code refused at the entrance.
        case scanRefused
        /// A priority ticket issued by staff (`PriorityLane`).
        case priority
        /// What a door kiosk did while CLup could not be reached (`outcome`: enter or exit) and
        /// CLup did not accept (`reason`): staff check the ticket.
        case offlineConflict
        /// Staff let a door admit while offline (`outcome` on) or not (off); `reason` is its label.
        case offlineDoor
        /// An ordinary walk-in ticket staff issued for someone who phoned the store.
        case phoneIn
    }

    public var id: Int64
    public var storeId: StoreID
    public var reservationId: ReservationID?
    public var number: Int?
    public var kind: Kind
    /// Why (staff's words), or the refusal's code for a refused scan.
    public var reason: String
    public var outcome: String
    /// The member of staff who did it; nil for a scan.
    public var userId: UserID?
    public var at: Date

    public static let databaseTableName = "doorAction"

    enum CodingKeys: String, CodingKey {
        case id, storeId, reservationId, number, kind = "action", reason, outcome, userId, at
    }
}

/// Who acts at the door: a signed-in member of staff, or whoever is at an enrolled kiosk's
/// screen, who gives their name (a kiosk has no account to sign in with).
public enum DoorStaff: Sendable, Equatable {
    case user(UserID)
    /// Signed in on a door kiosk: with their own PIN (`person`, their account, whose name
    /// `name` is), or with the store's shared PIN and the name they typed.
    case kiosk(id: Int64, name: String, person: UserID? = nil)
}

/// A door action's entry in the log, with the name of who did it.
public struct DoorLogEntry: Sendable, Equatable {
    public var at: Date
    public var kind: DoorAction.Kind
    public var number: Int?
    public var reason: String
    public var outcome: String
    /// Who acted: a manager's name, or the name staff gave at a kiosk with the kiosk's label.
    public var staff: Staff?

    public enum Staff: Sendable, Equatable {
        case user(String)
        case atKiosk(name: String, kiosk: String)
    }
}

/// What became of a door action. Only `.done` changed anything.
public enum DoorOutcome: Sendable, Equatable {
    case done(Reservation)
    /// A scan's rules refused it (admitting someone not called, a full store…).
    case refusedByRules(ScanResult)
    case noSuchTicket
    /// The ticket is not in a state the action applies to.
    case notApplicable(ReservationStatus)
}

extension ScanResult: Equatable {
    public static func == (lhs: ScanResult, rhs: ScanResult) -> Bool {
        lhs.verdict == rhs.verdict && lhs.reservation?.id == rhs.reservation?.id && lhs.peopleInside == rhs.peopleInside
    }
}

extension AppDatabase {

    /// `staff` nil: the scanner refused a code.
    static func recordDoorAction(_ kind: DoorAction.Kind, storeId: StoreID, reservation: Reservation?, reason: String,
                                 outcome: String, staff: DoorStaff?, kioskId: Int64? = nil, now: Date,
                                 _ transaction: some SQLTransaction) throws
    {
        // Another store's ticket is not linked to this store's log.
        let own = reservation?.storeId == storeId ? reservation : nil
        var userId: UserID?
        var kioskId = kioskId
        var staffName: String?
        switch staff {
        case .user(let id)?: userId = id
        case .kiosk(let id, let name, let person)?:
            (kioskId, staffName, userId) = (id, Sealed.seal(String(name.prefix(60))), person)
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
}

extension Doors {
    /// Does `kind` to ticket `number` at the store, for `staff` who gave `reason`, and records
    /// it — all in one transaction. Admitting and letting out follow the scan's rules exactly
    /// (a ticket not called is not let in; the capacity holds).
    ///
    /// The number is of the store's business day: just after midnight, a store open late
    /// still numbers by the evening's day (`OpeningHours.businessDay`).
    public func door(_ kind: DoorAction.Kind, storeId: StoreID, number: Int, reason: String, by staff: DoorStaff,
                     now: Date) throws -> DoorOutcome
    {
        precondition(![.scanRefused, .offlineConflict, .priority, .offlineDoor, .phoneIn].contains(kind),
                     "a scan's refusal or conflict is recorded by the scan, a priority ticket as it is issued")
        return try database.transaction { transaction in
            guard let details = try transaction.lockStore(storeId) else { throw StoreError.noSuchStore }
            let today = details.openingHours.businessDay(at: now)
            guard var reservation = try Reservation.all("""
                SELECT \(unescaped: Reservation.columnList) FROM reservation
                WHERE storeId = \(storeId) AND day = \(today) AND number = \(number)
                """, transaction).first
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
                    try AppDatabase.setStatus(.expired, .endedAt, to: now, id: reservation.id, from: from, transaction)
                else { return .notApplicable(status) }
                try AppDatabase.notice(.expired, reservationId: reservation.id, reason: .markedNoShow, now: now, transaction)
                try AppDatabase.advanceQueue(storeId: storeId, now: now, transaction)
                reservation.status = .expired
            case .admit, .letOut:
                guard (kind == .admit) == (status != .inside) else { return .notApplicable(status) }
                // Staff's own entry leaves every door's lease alone: the door's page does not
                // see it to spend its copy.
                let held = try AppDatabase.heldElsewhere(storeId: storeId, except: nil, now: now, transaction)
                let scan = try AppDatabase.scan(reservation, at: storeId, now: now, heldElsewhere: held, transaction)
                switch (kind, scan.outcome) {
                case (.admit, .entered(let scanned)), (.letOut, .left(let scanned)): reservation = scanned
                default: return .refusedByRules(scan)
                }
            case .leftUnscanned:
                guard status == .inside,
                    try AppDatabase.setStatus(.done, .endedAt, to: now, id: reservation.id, from: .inside, transaction)
                else { return .notApplicable(status) }
                try AppDatabase.advanceQueue(storeId: storeId, now: now, transaction)
                reservation.status = .done
            case .scanRefused, .offlineConflict, .priority, .offlineDoor, .phoneIn:
                return .notApplicable(status)
            }
            try AppDatabase.recordDoorAction(kind, storeId: storeId, reservation: reservation, reason: reason,
                                      outcome: reservation.status.rawValue, staff: staff, now: now, transaction)
            return .done(reservation)
        }
    }

    /// The store's latest door actions and refused scans, newest first; with `kiosksSince`, only
    /// the actions staff took on a kiosk's screen and the conflicts kiosks reported since then
    /// (for the manager's store page).
    public func doorLog(storeId: StoreID, limit: Int = 30, kiosksSince: Date? = nil) throws -> [DoorLogEntry] {
        try database.reading { transaction in
            try transaction.rows("""
                SELECT d.at, d.action, d.number, d.reason, d.outcome, u.displayName, d.staffName, k.label FROM doorAction d
                LEFT JOIN "user" u ON u.id = d.userId LEFT JOIN kiosk k ON k.id = d.kioskId
                WHERE d.storeId = \(storeId)
                  AND (\(kiosksSince == nil) OR (d.kioskId IS NOT NULL AND d.action <> 'scanRefused'
                                                  AND d.at >= \(kiosksSince ?? .distantPast)))
                ORDER BY d.at DESC, d.id DESC LIMIT \(limit)
                """).compactMap { row in
                // A kiosk's row names whoever signed in there (their account too, if it was
                // their own PIN), as they were named then.
                let staff: DoorLogEntry.Staff? = if let name = try row.value(6, as: String.self) {
                    .atKiosk(name: try Sealed.open(name), kiosk: try row.value(7) ?? "")
                } else if let name = try row.value(5, as: String.self) {
                    .user(try Sealed.open(name))
                } else {
                    nil
                }
                return try DoorAction.Kind(rawValue: row.decode(1)).map {
                    DoorLogEntry(at: try row.decode(0), kind: $0, number: try row.value(2),
                                 reason: PersonalColumns.logValue(try row.decode(3)), outcome: try row.decode(4),
                                 staff: staff)
                }
            }
        }
    }

    /// How many door actions staff took on this kiosk's screen since `since` (its rate limit).
    public func doorActionCount(kioskId: Int64, since: Date) throws -> Int {
        try database.reading { transaction in
            try transaction.value("SELECT COUNT(*) FROM doorAction WHERE kioskId = \(kioskId) AND at >= \(since)") ?? 0
        }
    }

    /// When the store refused scans between two instants, for the statistics (the caller counts them by day).
    public func refusedScans(storeId: StoreID, from: Date, to: Date) throws -> [Date] {
        try database.reading { transaction in
            try transaction.column("""
                SELECT at FROM doorAction
                WHERE storeId = \(storeId) AND action = 'scanRefused' AND at >= \(from) AND at < \(to)
                """, as: Date.self).compactMap { $0 }
        }
    }
}
