import CLupDomain
import Foundation
import GRDB

/// The statements every reservation, scan and call runs, written as fixed SQL and prepared
/// once per connection (`cachedStatement`), with rows read by column position.
///
/// The write path's profile showed SQLite compiling statements — and GRDB's authorizer
/// inspecting each compiled column — as 40 % of the writer's time: the query interface builds
/// and prepares its SQL afresh on every call, and `Codable` decoding came next. The writer is
/// the one serial part of every write, so its statements are kept prepared here.
extension Reservation {
    /// Every column, in the order `init(columnsOf:)` reads them.
    static let columnList = """
        id, storeId, userId, kind, walkIn, day, number, people, residenceMinutes, travelMode, slotStart, status, \
        createdAt, calledAt, enteredAt, exitedAt, endedAt, requestKey, travelMetres, leftAt, remindedAt, confirmedAt, \
        priority, queuePosition
        """

    /// A row selected with `columnList`.
    init(columnsOf row: Row) throws {
        guard let kind = Kind(rawValue: row[3]), let status = Status(rawValue: row[11]) else {
            throw DatabaseError(resultCode: .SQLITE_MISMATCH, message: "unknown reservation kind or status")
        }
        self.init(
            id: row[0], storeId: row[1], userId: row[2], kind: kind, walkIn: row[4], day: row[5], number: row[6],
            people: row[7], residenceMinutes: row[8], travelMode: (row[9] as String?).flatMap(TravelMode.init(rawValue:)),
            slotStart: row[10], status: status, createdAt: row[12], calledAt: row[13], enteredAt: row[14],
            exitedAt: row[15], endedAt: row[16], requestKey: row[17], travelMetres: row[18], leftAt: row[19],
            remindedAt: row[20], confirmedAt: row[21], priority: row[22], queuePosition: row[23])
    }

    /// The reservation `id`, if it exists.
    static func find(_ id: ReservationID, _ db: Database) throws -> Reservation? {
        try first(db, "SELECT \(columnList) FROM reservation WHERE id = ?", [id])
    }

    /// The customer's active reservation (at most one, the schema says), if any.
    static func active(userId: UserID, _ db: Database) throws -> Reservation? {
        try first(db, """
            SELECT \(columnList) FROM reservation
            WHERE userId = ? AND status IN \(StatusSet.active.rawValue)
            """, [userId])
    }

    /// A walk-in ticket made with `requestKey` at the store, if any.
    static func walkIn(storeId: StoreID, requestKey: String, _ db: Database) throws -> Reservation? {
        try first(db, "SELECT \(columnList) FROM reservation WHERE storeId = ? AND requestKey = ?", [storeId, requestKey])
    }

    private static func first(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> Reservation? {
        try Row.fetchOne(db.cachedStatement(sql: sql), arguments: arguments).map(Reservation.init(columnsOf:))
    }

    /// Sets the status and the time columns of the reservation, if its status is still one of
    /// `from`, and counts the change in its store's statistics (`VisitAccounting`); true if it
    /// changed. Every change of a reservation's status goes through here. A caller that
    /// already knows the store's people inside after an entry (the door, from its live traffic)
    /// passes them as `insideAfter`, sparing the statistics a sum over everyone inside.
    @discardableResult
    static func setStatus(_ status: Status, _ columns: TimeColumns, to time: Date, id: ReservationID, from: StatusSet,
                          insideAfter: Int? = nil, _ db: Database) throws -> Bool
    {
        guard let (storeId, old) = try VisitFacts.find(id, db), from.statuses.contains(old.status) else { return false }
        try db.cachedStatement(sql: """
            UPDATE reservation SET status = ?1, \(columns.rawValue) WHERE id = ?3
            """).execute(arguments: [status.rawValue, time.databaseText, id])
        // Counted at the time as stored (to the millisecond), as a rebuild reads it back.
        let stored = Date(timeIntervalSince1970: (time.timeIntervalSince1970 * 1000).rounded() / 1000)
        var new = old
        new.status = status
        switch columns {
        case .calledAt: new.calledAt = stored
        case .enteredAt: new.enteredAt = stored
        case .endedAt: new.endedAt = stored
        case .exitedAndEndedAt: (new.exitedAt, new.endedAt) = (stored, stored)
        }
        try AppDatabase.count(from: old, to: new, storeId: storeId, reservationId: id, insideAfter: insideAfter, db)
        return true
    }

    /// The time columns a change of status sets, to the time given as `?2`.
    enum TimeColumns: String {
        case calledAt = "calledAt = ?2"
        case enteredAt = "enteredAt = ?2"
        case endedAt = "endedAt = ?2"
        case exitedAndEndedAt = "exitedAt = ?2, endedAt = ?2"
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
}

extension NewReservation {
    /// Inserts the reservation and returns it with its id: the one given (a ticket printed
    /// offline, whose id was kept for it), else the one the database gives it.
    func insert(returning db: Database, id: ReservationID? = nil) throws -> Reservation {
        try db.cachedStatement(sql: """
            INSERT INTO reservation (id, storeId, userId, kind, walkIn, day, number, people, residenceMinutes, travelMode,
                                     slotStart, status, createdAt, requestKey, travelMetres, expectedEntry, pace,
                                     priority, queuePosition)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """).execute(arguments: [
                id, storeId, userId, kind.rawValue, walkIn, day, number, people, residenceMinutes, travelMode?.rawValue,
                slotStart?.databaseText, status.rawValue, createdAt.databaseText, requestKey, travelMetres,
                expectedEntry?.databaseText, pace, priority, queuePosition,
            ])
        return Reservation(
            id: ReservationID(db.lastInsertedRowID), storeId: storeId, userId: userId, kind: kind, walkIn: walkIn, day: day,
            number: number, people: people, residenceMinutes: residenceMinutes, travelMode: travelMode,
            slotStart: slotStart, status: status, createdAt: createdAt, calledAt: nil, enteredAt: nil, exitedAt: nil,
            endedAt: nil, requestKey: requestKey, travelMetres: travelMetres, priority: priority,
            queuePosition: queuePosition)
    }
}

extension StoreLoad {
    /// The store's running totals, if the store exists.
    static func find(_ storeId: StoreID, _ db: Database) throws -> StoreLoad? {
        try StoreLoad.fetchOne(db.cachedStatement(sql: "SELECT * FROM storeLoad WHERE storeId = ?"), arguments: [storeId])
    }
}

extension Date {
    /// The date as GRDB stores it — `yyyy-MM-dd HH:mm:ss.SSS` in UTC, to the nearest
    /// millisecond, for dates after 1970 — written by arithmetic: GRDB formats through `DateFormatter` (ICU), which the
    /// write path's profile showed at 5 % of the writer's time. A test checks both agree.
    var databaseText: String {
        // Milliseconds since 1970, to the nearest, as Foundation hands a date to ICU.
        let milliseconds = Int64(((timeIntervalSinceReferenceDate + 978_307_200) * 1000).rounded())
        var days = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
        let inDay = milliseconds - days * 86_400_000
        // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        var text = ""
        text.reserveCapacity(23)
        func pad(_ value: Int64, _ width: Int) {
            let digits = String(value)
            if digits.count < width { text += String(repeating: "0", count: width - digits.count) }
            text += digits
        }
        pad(year, 4)
        text += "-"
        pad(month, 2)
        text += "-"
        pad(day, 2)
        text += " "
        pad(inDay / 3_600_000, 2)
        text += ":"
        pad(inDay / 60000 % 60, 2)
        text += ":"
        pad(inDay / 1000 % 60, 2)
        text += "."
        pad(inDay % 1000, 3)
        return text
    }
}
