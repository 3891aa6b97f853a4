import CLupDomain
import Foundation
import GRDB

/// A store's editable facts and rules, as a manager sends them.
public struct StoreEdit: Sendable, Equatable {
    public var name: String
    public var address: String
    public var position: GeoPoint
    public var phone: String
    public var capacity: Int
    public var walkInPercent: Int
    public var slotMinutes: Int
    public var slotCapacity: Int
    public var entryBeforeMinutes: Int
    public var entryAfterMinutes: Int
    public var callGraceMinutes: Int
    /// The priority lane (`PriorityLane`): one priority call in every `priorityEvery` (0: none).
    public var priorityEvery: Int
    public var priorityOnline: Bool

    public init(name: String, address: String, position: GeoPoint, phone: String, capacity: Int, walkInPercent: Int,
                slotMinutes: Int, slotCapacity: Int, entryBeforeMinutes: Int, entryAfterMinutes: Int, callGraceMinutes: Int,
                priorityEvery: Int = 0, priorityOnline: Bool = false)
    {
        self.name = name
        self.address = address
        self.position = position
        self.phone = phone
        self.capacity = capacity
        self.walkInPercent = walkInPercent
        self.slotMinutes = slotMinutes
        self.slotCapacity = slotCapacity
        self.entryBeforeMinutes = entryBeforeMinutes
        self.entryAfterMinutes = entryAfterMinutes
        self.callGraceMinutes = callGraceMinutes
        self.priorityEvery = priorityEvery
        self.priorityOnline = priorityOnline
    }

    public init(_ store: Store) {
        self.init(name: store.name, address: store.address, position: store.position, phone: store.phone,
                  capacity: store.capacity,
                  walkInPercent: store.walkInPercent, slotMinutes: store.slotMinutes, slotCapacity: store.slotCapacity,
                  entryBeforeMinutes: store.entryBeforeMinutes, entryAfterMinutes: store.entryAfterMinutes,
                  callGraceMinutes: store.callGraceMinutes, priorityEvery: store.priorityEvery,
                  priorityOnline: store.priorityOnline)
    }

    /// Each field by its column name, with its value as text (the record of changes, forms).
    public var fields: [(String, String)] {
        [("name", name), ("address", address), ("latitude", String(position.latitude)),
         ("longitude", String(position.longitude)), ("phone", phone), ("capacity", String(capacity)),
         ("walkInPercent", String(walkInPercent)), ("slotMinutes", String(slotMinutes)),
         ("slotCapacity", String(slotCapacity)),
         ("entryBeforeMinutes", String(entryBeforeMinutes)), ("entryAfterMinutes", String(entryAfterMinutes)),
         ("callGraceMinutes", String(callGraceMinutes)), ("priorityEvery", String(priorityEvery)),
         ("priorityOnline", priorityOnline ? "1" : "0")]
    }
}

/// One field of a store changed: by whom, when, from what to what.
public struct StoreChange: Sendable, Equatable {
    public var at: Date
    public var field: String
    public var before: String
    public var after: String
    public var by: String?

    /// A kiosk as the log names it: "Entrance left (door)".
    static func kiosk(label: String, role: KioskRole) -> String { "\(label) (\(role.rawValue))" }
}

extension AppDatabase {
    /// Writes one entry of a store's change log (`StoreChange`), in the caller's transaction.
    static func recordChange(storeId: StoreID, userId: UserID?, now: Date, field: String, before: String, after: String,
                             _ transaction: some SQLTransaction) throws
    {
        try transaction.execute("""
            INSERT INTO storeChange (storeId, userId, at, field, before, after)
            VALUES (\(storeId), \(userId), \(now), \(field), \(before), \(after))
            """)
    }

    static func recordChange(storeId: StoreID, userId: UserID?, now: Date, field: String, before: String, after: String,
                             _ db: Database) throws
    {
        try db.cachedStatement(sql: """
            INSERT INTO storeChange (storeId, userId, at, field, before, after) VALUES (?, ?, ?, ?, ?, ?)
            """).execute(arguments: [storeId, userId, now, field, before, after])
    }
}

/// What a store's edit did, and what it means for the reservations it already holds.
public struct StoreEditOutcome: Sendable, Equatable {
    public var changed: [String]
    /// People inside beyond the new capacity: nobody new is let in until they are fewer.
    public var overCapacity: Int
    /// Slots from now on already holding more bookings than the new slot capacity (they stand).
    public var slotsOverBooked: Int
}

extension AppDatabase {
    /// Changes the store's facts and rules for staff member `userId` and records each changed
    /// field, in one transaction; then brings the queue up to date under the new rules (more
    /// places call the next customers at once) — in a transaction of its own, since calling
    /// decides from the board, which takes the new rules when the first commits. Reservations
    /// already made stand: the outcome says where the new rules are already exceeded.
    /// `userId` nil: an administrator at the command line.
    public func editStore(_ id: StoreID, to edit: StoreEdit, userId: UserID?, now: Date) throws -> StoreEditOutcome {
        if let postgres { return try postgres.editStore(id, to: edit, userId: userId, now: now) }
        let outcome = try saveStore(id, edit, userId: userId, now: now)
        if !outcome.changed.isEmpty { _ = try write { db in try advanceQueue(storeId: id, now: now, db) } }
        return outcome
    }

    private func saveStore(_ id: StoreID, _ edit: StoreEdit, userId: UserID?, now: Date) throws -> StoreEditOutcome {
        try write { db in
            guard var store = try Store.fetchOne(db, id: id) else { throw StoreError.noSuchStore }
            let before = StoreEdit(store).fields
            let after = edit.fields
            var changed: [String] = []
            for ((field, old), (_, new)) in zip(before, after) where old != new {
                changed.append(field)
                try Self.recordChange(storeId: id, userId: userId, now: now, field: field, before: old, after: new, db)
            }
            guard !changed.isEmpty else { return StoreEditOutcome(changed: [], overCapacity: 0, slotsOverBooked: 0) }
            store.name = edit.name
            store.address = edit.address
            store.latitude = edit.position.latitude
            store.longitude = edit.position.longitude
            store.phone = edit.phone
            store.capacity = edit.capacity
            store.walkInPercent = edit.walkInPercent
            store.slotMinutes = edit.slotMinutes
            store.slotCapacity = edit.slotCapacity
            store.entryBeforeMinutes = edit.entryBeforeMinutes
            store.entryAfterMinutes = edit.entryAfterMinutes
            store.callGraceMinutes = edit.callGraceMinutes
            store.priorityEvery = edit.priorityEvery
            store.priorityOnline = edit.priorityOnline
            try store.update(db)
            let inside = try Self.peopleInside(storeId: id, db)
            // Counted as the booking handler counts them, in the slots of the new length.
            var overBooked = 0
            if let calendar = try Self.storeDetails(id, SQLiteTransaction(db: db)).first?.slotCalendar {
                let days = calendar.bookingDays(now: now)
                let slots = ((days.first ?? 0) - 1...(days.last ?? 0)).flatMap { calendar.slots(localDay: $0, now: now) }
                    .filter { $0.end > now }
                overBooked = try Self.bookedPeople(storeId: id, in: slots, db).values.count { $0 > edit.slotCapacity }
            }
            return StoreEditOutcome(changed: changed, overCapacity: max(0, inside - edit.capacity),
                                    slotsOverBooked: overBooked)
        }
    }

    /// The store's latest changes, newest first, with who made them.
    public func storeChanges(storeId: StoreID, limit: Int = 30) throws -> [StoreChange] {
        if let postgres { return try postgres.storeChanges(storeId: storeId, limit: limit) }
        return try reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT c.at, c.field, c.before, c.after, u.displayName FROM storeChange c
                LEFT JOIN user u ON u.id = c.userId WHERE c.storeId = ? ORDER BY c.at DESC, c.id DESC LIMIT ?
                """, arguments: [storeId, limit]).map { row in
                StoreChange(at: row[0], field: row[1], before: PersonalColumns.logValue(row[2]), after: row[3],
                            by: try (row[4] as String?).map(Sealed.open))
            }
        }
    }
}

extension AppDatabase {
    /// Replaces the store's weekly hours for staff member `userId` (nil: an administrator at
    /// the command line), records the change, and cancels — telling each customer why — the
    /// coming bookings whose slot the new hours no longer have, all in one transaction; then
    /// brings the queue up to date under the new hours. Returns how many bookings were
    /// cancelled.
    public func replaceHours(storeId: StoreID, with intervals: [OpeningInterval], userId: UserID?, now: Date) throws -> Int {
        if let postgres { return try postgres.replaceHours(storeId: storeId, with: intervals, userId: userId, now: now) }
        let cancelled = try write { db -> Int in
            guard let store = try Store.fetchOne(db, id: storeId) else { throw StoreError.noSuchStore }
            let old = try Self.storeDetails(storeId, SQLiteTransaction(db: db)).first?.openingHours.intervals ?? []
            let new = intervals.sorted { ($0.weekday, $0.opens) < ($1.weekday, $1.opens) }
            guard old.map(Self.text) != new.map(Self.text) else { return 0 }
            try db.execute(sql: "DELETE FROM openingInterval WHERE storeId = ?", arguments: [storeId])
            for interval in new { try OpeningIntervalRecord(storeId: storeId, interval: interval).insert(db) }
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "hours",
                                  before: old.map(Self.text).joined(separator: ", "),
                                  after: new.map(Self.text).joined(separator: ", "), db)
            let closed = try Int.fetchAll(db, sql: "SELECT day FROM storeClosure WHERE storeId = ?", arguments: [storeId])
            let hours = OpeningHours(intervals: new, timeZone: store.zone, closedDays: closed)
            return try Self.cancelBookings(outside: hours, store: store, reason: .storeHoursChanged, now: now, db)
        }
        _ = try write { db in try advanceQueue(storeId: storeId, now: now, db) }
        return cancelled
    }

    /// Cancels the store's coming bookings whose slot `hours` no longer keeps open from its
    /// start to its end, telling each customer `reason`; returns how many.
    ///
    /// Asks whether the store is open through the booking's slot rather than whether the slot
    /// is still on the grid: a booking made before the slot length changed stands where it is.
    static func cancelBookings(outside hours: OpeningHours, store: Store, reason: Notice.Reason, now: Date,
                               _ db: Database) throws -> Int
    {
        let booked = try Row.fetchAll(db, sql: """
            SELECT id, slotStart FROM reservation WHERE storeId = ? AND status = 'booked' AND slotStart >= ?
            """, arguments: [store.id, now])
        var cancelled = 0
        for row in booked {
            let start: Date = row["slotStart"]
            if case .open(let until) = hours.state(at: start), until >= start + Double(store.slotMinutes) * 60 { continue }
            if try Reservation.setStatus(.cancelled, .endedAt, to: now, id: row["id"], from: .booked, db) {
                try Self.notice(.cancelled, reservationId: row["id"], reason: reason, now: now, db)
                cancelled += 1
            }
        }
        return cancelled
    }

    /// "Mon 08:00–21:00".
    static func text(_ interval: OpeningInterval) -> String {
        String(OpeningHours.weekdayNames[interval.weekday - 1].prefix(3)) + " "
            + OpeningHours.clockText(interval.opens) + "–" + OpeningHours.clockText(interval.closes % 1440)
    }
}

extension AppDatabase {
    /// Records that staff member `userId` registered the store.
    public func recordRegistration(storeId: StoreID, userId: UserID?, now: Date) throws {
        if let postgres { return try postgres.recordRegistration(storeId: storeId, userId: userId, now: now) }
        try write { db in
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "store", before: "", after: "registered",
                                  db)
        }
    }
}

extension AppDatabase {
    /// Closes the store on local day `day` for staff member `userId` (nil: an administrator at
    /// the command line): records the closure and the change, and cancels the day's bookings
    /// and, if the day is today, the line-ups waiting for it, telling each customer why, in one
    /// transaction; people inside stay. Returns how many bookings were cancelled, or nil if the
    /// day was closed already.
    public func closeDay(storeId: StoreID, day: Int, reason: String, userId: UserID?, now: Date) throws -> Int? {
        if let postgres { return try postgres.closeDay(storeId: storeId, day: day, reason: reason, userId: userId, now: now) }
        let cancelled = try write { db -> Int? in
            guard let details = try Self.storeDetails(storeId, SQLiteTransaction(db: db)).first else { throw StoreError.noSuchStore }
            guard !details.closures.contains(where: { $0.day == day }) else { return nil }
            try StoreClosure(storeId: storeId, day: day, reason: reason).insert(db)
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "closed", before: "",
                                  after: Self.closureText(day: day, reason: reason), db)
            var hours = details.openingHours
            hours.closedDays.append(day)
            // Closed the same day (a power cut): those queuing for it are told at once, rather
            // than left waiting for a store that will not open.
            let queued = try ReservationID.fetchAll(db, sql: """
                SELECT id FROM reservation WHERE storeId = ? AND day = ? AND status IN ('waiting', 'called')
                """, arguments: [storeId, day])
            for id in queued where try Reservation.setStatus(.cancelled, .endedAt, to: now, id: id, from: .waitingOrCalled, db) {
                try Self.notice(.cancelled, reservationId: id, reason: .storeClosedThatDay, now: now, db)
            }
            return try Self.cancelBookings(outside: hours, store: details.store, reason: .storeClosedThatDay,
                                           now: now, db)
        }
        return cancelled
    }

    /// Opens the store again on local day `day`, as its weekly hours say; false if it was not
    /// closed that day. Bookings cancelled by the closure stay cancelled: their customers were
    /// told, and may have booked elsewhere.
    public func reopenDay(storeId: StoreID, day: Int, userId: UserID?, now: Date) throws -> Bool {
        if let postgres { return try postgres.reopenDay(storeId: storeId, day: day, userId: userId, now: now) }
        return try write { db in
            guard let reason = try String.fetchOne(db, sql: """
                SELECT reason FROM storeClosure WHERE storeId = ? AND day = ?
                """, arguments: [storeId, day])
            else { return false }
            try db.execute(sql: "DELETE FROM storeClosure WHERE storeId = ? AND day = ?", arguments: [storeId, day])
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "closed",
                                  before: Self.closureText(day: day, reason: reason), after: "", db)
            return true
        }
    }

    /// "2026-12-25: Christmas".
    static func closureText(day: Int, reason: String) -> String {
        LocalDate(day: day).text + (reason.isEmpty ? "" : ": " + reason)
    }

    /// Replaces the store's departments with `departments`, in that order, for staff member
    /// `userId`: a name already there (in any case) keeps its department — and the influx
    /// counted for it — with the new minutes; a new name is added; a department left out is
    /// retired, no longer offered, its past influx kept. Records the change; false if nothing
    /// changed. Reservations already made keep the departments they chose.
    public func replaceDepartments(storeId: StoreID, with departments: [(name: String, minutes: Int)], userId: UserID?,
                                   now: Date) throws -> Bool
    {
        if let postgres { return try postgres.replaceDepartments(storeId: storeId, with: departments, userId: userId, now: now) }
        return try write { db in
            guard let details = try Self.storeDetails(storeId, SQLiteTransaction(db: db)).first else { throw StoreError.noSuchStore }
            func text(_ list: [(name: String, minutes: Int)]) -> String {
                list.map { "\($0.name) \($0.minutes) min" }.joined(separator: ", ")
            }
            let old = details.departments.map { (name: $0.name, minutes: $0.estimatedMinutes) }
            guard text(old) != text(departments) else { return false }
            let all = try Row.fetchAll(db, sql: "SELECT id, name FROM department WHERE storeId = ?", arguments: [storeId])
            var idByName: [String: Int64] = [:]
            for row in all { idByName[(row["name"] as String).lowercased()] = row["id"] }
            try db.execute(sql: "UPDATE department SET retired = 1 WHERE storeId = ?", arguments: [storeId])
            for (position, department) in departments.enumerated() {
                if let id = idByName[department.name.lowercased()] {
                    try db.execute(sql: """
                        UPDATE department SET name = ?, estimatedMinutes = ?, position = ?, retired = 0 WHERE id = ?
                        """, arguments: [department.name, department.minutes, position, id])
                } else {
                    try NewDepartment(storeId: storeId, name: department.name, estimatedMinutes: department.minutes,
                                      position: position).insert(db)
                }
            }
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "departments", before: text(old),
                                  after: text(departments), db)
            return true
        }
    }
}
