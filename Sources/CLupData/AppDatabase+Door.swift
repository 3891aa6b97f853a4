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
    case kiosk(id: Int64, name: String)
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
    /// Does `kind` to ticket `number` at the store, for `staff` who gave `reason`, and records
    /// it — all in one transaction. Admitting and letting out follow the scan's rules exactly
    /// (a ticket not called is not let in; the capacity holds).
    ///
    /// The number is of the store's business day: just after midnight, a store open late
    /// still numbers by the evening's day (`OpeningHours.businessDay`).
    public func door(_ kind: DoorAction.Kind, storeId: StoreID, number: Int, reason: String, by staff: DoorStaff,
                     now: Date) throws -> DoorOutcome
    {
        precondition(![.scanRefused, .offlineConflict, .priority].contains(kind),
                     "a scan's refusal or conflict is recorded by the scan, a priority ticket as it is issued")
        if let postgres { return try postgres.door(kind, storeId: storeId, number: number, reason: reason, by: staff, now: now) }
        return try write { db in
            guard let details = try transactionDefinition(storeId: storeId, db) else { throw StoreError.noSuchStore }
            let today = details.openingHours.businessDay(at: now)
            guard var reservation = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT \(Reservation.columnList) FROM reservation WHERE storeId = ? AND day = ? AND number = ?
                """), arguments: [storeId, today, number]).map(Reservation.init(columnsOf:))
            else { return .noSuchTicket }
            let status = reservation.status
            switch kind {
            case .recall:
                guard status == .called else { return .notApplicable(status) }
                try db.cachedStatement(sql: "UPDATE reservation SET calledAt = ? WHERE id = ? AND status = 'called'")
                    .execute(arguments: [now.databaseText, reservation.id])
                reservation.calledAt = now
            case .noShow:
                let from: Reservation.StatusSet = status == .booked ? .booked : .waitingOrCalled
                guard [.waiting, .called, .booked].contains(status),
                    try Reservation.setStatus(.expired, .endedAt, to: now, id: reservation.id, from: from, db)
                else { return .notApplicable(status) }
                try Self.notice(.expired, reservationId: reservation.id, reason: .markedNoShow, now: now, db)
                try advanceQueue(storeId: storeId, now: now, db)
                reservation.status = .expired
            case .admit, .letOut:
                guard (kind == .admit) == (status != .inside) else { return .notApplicable(status) }
                let scan = try self.scan(reservation, at: storeId, now: now, db)
                switch (kind, scan.outcome) {
                case (.admit, .entered(let scanned)), (.letOut, .left(let scanned)): reservation = scanned
                default: return .refusedByRules(scan)
                }
            case .leftUnscanned:
                guard status == .inside,
                    try Reservation.setStatus(.done, .endedAt, to: now, id: reservation.id, from: .inside, db)
                else { return .notApplicable(status) }
                try advanceQueue(storeId: storeId, now: now, db)
                reservation.status = .done
            case .scanRefused, .offlineConflict, .priority:
                return .notApplicable(status)
            }
            try Self.recordDoorAction(kind, storeId: storeId, reservation: reservation, reason: reason,
                                      outcome: reservation.status.rawValue, staff: staff, now: now, db)
            return .done(reservation)
        }
    }

    /// `staff` nil: the scanner refused a code.
    static func recordDoorAction(_ kind: DoorAction.Kind, storeId: StoreID, reservation: Reservation?, reason: String,
                                 outcome: String, staff: DoorStaff?, kioskId: Int64? = nil, now: Date, _ db: Database) throws
    {
        // Another store's ticket is not linked to this store's log.
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
        try db.cachedStatement(sql: """
            INSERT INTO doorAction (storeId, reservationId, number, action, reason, outcome, userId, kioskId, staffName, at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [storeId, own?.id, own?.number, kind.rawValue, reason, outcome,
                                     userId, kioskId, staffName, now.databaseText])
    }

    /// The store's latest door actions and refused scans, newest first; with `kiosksSince`, only
    /// the actions staff took on a kiosk's screen since then (for the manager's store page).
    public func doorLog(storeId: StoreID, limit: Int = 30, kiosksSince: Date? = nil) throws -> [DoorLogEntry] {
        if let postgres { return try postgres.doorLog(storeId: storeId, limit: limit, kiosksSince: kiosksSince) }
        return try reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT d.at, d.action, d.number, d.reason, d.outcome, u.displayName, d.staffName, k.label FROM doorAction d
                LEFT JOIN user u ON u.id = d.userId LEFT JOIN kiosk k ON k.id = d.kioskId
                WHERE d.storeId = ? AND (? IS NULL OR (d.kioskId IS NOT NULL AND d.at >= ?))
                ORDER BY d.at DESC, d.id DESC LIMIT ?
                """, arguments: [storeId, kiosksSince?.databaseText, kiosksSince?.databaseText, limit]).compactMap { row in
                let staff: DoorLogEntry.Staff? = if let name: String = row[5] {
                    .user(try Sealed.open(name))
                } else if let name: String = row[6] {
                    .atKiosk(name: try Sealed.open(name), kiosk: row[7] ?? "")
                } else {
                    nil
                }
                return DoorAction.Kind(rawValue: row[1]).map {
                    DoorLogEntry(at: row[0], kind: $0, number: row[2], reason: PersonalColumns.logValue(row[3]), outcome: row[4],
                                 staff: staff)
                }
            }
        }
    }

    /// How many door actions staff took on this kiosk's screen since `since` (its rate limit).
    public func doorActionCount(kioskId: Int64, since: Date) throws -> Int {
        if let postgres { return try postgres.doorActionCount(kioskId: kioskId, since: since) }
        return try reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM doorAction WHERE kioskId = ? AND at >= ?",
                             arguments: [kioskId, since.databaseText]) ?? 0
        }
    }

    /// When the store refused scans between two instants, for the statistics (the caller counts them by day).
    public func refusedScans(storeId: StoreID, from: Date, to: Date) throws -> [Date] {
        if let postgres { return try postgres.refusedScans(storeId: storeId, from: from, to: to) }
        return try reader.read { db in
            try Date.fetchAll(db, sql: """
                SELECT at FROM doorAction WHERE storeId = ? AND action = 'scanRefused' AND at >= ? AND at < ?
                """, arguments: [storeId, from.databaseText, to.databaseText])
        }
    }
}
