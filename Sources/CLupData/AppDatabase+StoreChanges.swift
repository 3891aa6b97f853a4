import CLupDomain
import Foundation
import GRDB

/// A store's editable facts and rules, as a manager sends them.
public struct StoreEdit: Sendable, Equatable {
    public var name: String
    public var address: String
    public var phone: String
    public var capacity: Int
    public var walkInPercent: Int
    public var slotCapacity: Int
    public var entryBeforeMinutes: Int
    public var entryAfterMinutes: Int
    public var callGraceMinutes: Int

    public init(name: String, address: String, phone: String, capacity: Int, walkInPercent: Int, slotCapacity: Int,
                entryBeforeMinutes: Int, entryAfterMinutes: Int, callGraceMinutes: Int)
    {
        self.name = name
        self.address = address
        self.phone = phone
        self.capacity = capacity
        self.walkInPercent = walkInPercent
        self.slotCapacity = slotCapacity
        self.entryBeforeMinutes = entryBeforeMinutes
        self.entryAfterMinutes = entryAfterMinutes
        self.callGraceMinutes = callGraceMinutes
    }

    public init(_ store: Store) {
        self.init(name: store.name, address: store.address, phone: store.phone, capacity: store.capacity,
                  walkInPercent: store.walkInPercent, slotCapacity: store.slotCapacity,
                  entryBeforeMinutes: store.entryBeforeMinutes, entryAfterMinutes: store.entryAfterMinutes,
                  callGraceMinutes: store.callGraceMinutes)
    }

    /// Each field by its column name, with its value as text (the record of changes, forms).
    public var fields: [(String, String)] {
        [("name", name), ("address", address), ("phone", phone), ("capacity", String(capacity)),
         ("walkInPercent", String(walkInPercent)), ("slotCapacity", String(slotCapacity)),
         ("entryBeforeMinutes", String(entryBeforeMinutes)), ("entryAfterMinutes", String(entryAfterMinutes)),
         ("callGraceMinutes", String(callGraceMinutes))]
    }
}

/// One field of a store changed: by whom, when, from what to what.
public struct StoreChange: Sendable, Equatable {
    public var at: Date
    public var field: String
    public var before: String
    public var after: String
    public var by: String?
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
    public func editStore(_ id: Int64, to edit: StoreEdit, userId: Int64?, now: Date) throws -> StoreEditOutcome {
        let outcome = try saveStore(id, edit, userId: userId, now: now)
        if !outcome.changed.isEmpty { try write { db in try advanceQueue(storeId: id, now: now, db) } }
        return outcome
    }

    private func saveStore(_ id: Int64, _ edit: StoreEdit, userId: Int64?, now: Date) throws -> StoreEditOutcome {
        try write { db in
            guard var store = try Store.fetchOne(db, id: id) else { throw AccountError.noSuchStore }
            let before = StoreEdit(store).fields
            let after = edit.fields
            var changed: [String] = []
            for ((field, old), (_, new)) in zip(before, after) where old != new {
                changed.append(field)
                try db.execute(sql: """
                    INSERT INTO storeChange (storeId, userId, at, field, before, after) VALUES (?, ?, ?, ?, ?, ?)
                    """, arguments: [id, userId, now, field, old, new])
            }
            guard !changed.isEmpty else { return StoreEditOutcome(changed: [], overCapacity: 0, slotsOverBooked: 0) }
            store.name = edit.name
            store.address = edit.address
            store.phone = edit.phone
            store.capacity = edit.capacity
            store.walkInPercent = edit.walkInPercent
            store.slotCapacity = edit.slotCapacity
            store.entryBeforeMinutes = edit.entryBeforeMinutes
            store.entryAfterMinutes = edit.entryAfterMinutes
            store.callGraceMinutes = edit.callGraceMinutes
            try store.update(db)
            let inside = try Int.fetchOne(db, sql: """
                SELECT COALESCE(SUM(people), 0) FROM reservation WHERE storeId = ? AND status = 'inside'
                """, arguments: [id]) ?? 0
            let overBooked = try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM (SELECT slotStart FROM reservation
                                      WHERE storeId = ? AND status = 'booked' AND slotStart >= ?
                                      GROUP BY slotStart HAVING SUM(people) > ?)
                """, arguments: [id, now, edit.slotCapacity]) ?? 0
            return StoreEditOutcome(changed: changed, overCapacity: max(0, inside - edit.capacity),
                                    slotsOverBooked: overBooked)
        }
    }

    /// The store's latest changes, newest first, with who made them.
    public func storeChanges(storeId: Int64, limit: Int = 30) throws -> [StoreChange] {
        try reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT c.at, c.field, c.before, c.after, u.displayName FROM storeChange c
                LEFT JOIN user u ON u.id = c.userId WHERE c.storeId = ? ORDER BY c.at DESC, c.id DESC LIMIT ?
                """, arguments: [storeId, limit]).map { row in
                StoreChange(at: row[0], field: row[1], before: row[2], after: row[3], by: row[4])
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
    public func replaceHours(storeId: Int64, with intervals: [OpeningInterval], userId: Int64?, now: Date) throws -> Int {
        let cancelled = try write { db -> Int in
            guard let store = try Store.fetchOne(db, id: storeId) else { throw AccountError.noSuchStore }
            let old = try Self.storeDetails(id: storeId, db)?.openingHours.intervals ?? []
            let new = intervals.sorted { ($0.weekday, $0.opens) < ($1.weekday, $1.opens) }
            guard old.map(Self.text) != new.map(Self.text) else { return 0 }
            try db.execute(sql: "DELETE FROM openingInterval WHERE storeId = ?", arguments: [storeId])
            for interval in new { try OpeningIntervalRecord(storeId: storeId, interval: interval).insert(db) }
            try db.execute(sql: """
                INSERT INTO storeChange (storeId, userId, at, field, before, after) VALUES (?, ?, ?, 'hours', ?, ?)
                """, arguments: [storeId, userId, now, old.map(Self.text).joined(separator: ", "),
                                 new.map(Self.text).joined(separator: ", ")])
            let calendar = SlotCalendar(hours: OpeningHours(intervals: new, timeZone: store.zone),
                                        slotMinutes: store.slotMinutes)
            let booked = try Row.fetchAll(db, sql: """
                SELECT id, slotStart FROM reservation WHERE storeId = ? AND status = 'booked' AND slotStart >= ?
                """, arguments: [storeId, now])
            var cancelled = 0
            for row in booked {
                let start: Date = row["slotStart"]
                let stands = calendar.slots(startingOn: calendar.localDay(of: start), now: start).contains { $0.start == start }
                if !stands, try Reservation.setStatus(.cancelled, .endedAt, to: now, id: row["id"], from: .booked, db) {
                    try Self.notice(.cancelled, reservationId: row["id"], reason: .storeHoursChanged, now: now, db)
                    cancelled += 1
                }
            }
            return cancelled
        }
        try write { db in try advanceQueue(storeId: storeId, now: now, db) }
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
    public func recordRegistration(storeId: Int64, userId: Int64?, now: Date) throws {
        try write { db in
            try db.execute(sql: """
                INSERT INTO storeChange (storeId, userId, at, field, before, after) VALUES (?, ?, ?, 'store', '', 'registered')
                """, arguments: [storeId, userId, now])
        }
    }
}
