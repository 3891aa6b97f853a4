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
    public var largestParty: Int

    public init(name: String, address: String, position: GeoPoint, phone: String, capacity: Int, walkInPercent: Int,
                slotMinutes: Int, slotCapacity: Int, entryBeforeMinutes: Int, entryAfterMinutes: Int, callGraceMinutes: Int,
                priorityEvery: Int = 0, priorityOnline: Bool = false,
                largestParty: Int = StoreSettings.defaultLargestParty)
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
        self.largestParty = largestParty
    }

    public init(_ store: Store) {
        self.init(name: store.name, address: store.address, position: store.position, phone: store.phone,
                  capacity: store.capacity,
                  walkInPercent: store.walkInPercent, slotMinutes: store.slotMinutes, slotCapacity: store.slotCapacity,
                  entryBeforeMinutes: store.entryBeforeMinutes, entryAfterMinutes: store.entryAfterMinutes,
                  callGraceMinutes: store.callGraceMinutes, priorityEvery: store.priorityEvery,
                  priorityOnline: store.priorityOnline, largestParty: store.largestParty)
    }

    /// Each field by its column name, with its value as text (the record of changes, forms).
    public var fields: [(String, String)] {
        [("name", name), ("address", address), ("latitude", String(position.latitude)),
         ("longitude", String(position.longitude)), ("phone", phone), ("capacity", String(capacity)),
         ("walkInPercent", String(walkInPercent)), ("slotMinutes", String(slotMinutes)),
         ("slotCapacity", String(slotCapacity)),
         ("entryBeforeMinutes", String(entryBeforeMinutes)), ("entryAfterMinutes", String(entryAfterMinutes)),
         ("callGraceMinutes", String(callGraceMinutes)), ("priorityEvery", String(priorityEvery)),
         ("priorityOnline", priorityOnline ? "1" : "0"), ("largestParty", String(largestParty))]
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
}

/// What a store's edit did, and what it means for the reservations it already holds.
public struct StoreEditOutcome: Sendable, Equatable {
    public var changed: [String]
    /// People inside beyond the new capacity: nobody new is let in until they are fewer.
    public var overCapacity: Int
    /// Slots from now on already holding more bookings than the new slot capacity (they stand).
    public var slotsOverBooked: Int
}

extension Stores {
    /// Changes the store's facts and rules for staff member `userId`, records each changed
    /// field and brings the queue up to date under the new rules (more places call the next
    /// customers at once), in one transaction. Reservations already made stand: the outcome
    /// says where the new rules are already exceeded.
    /// `userId` nil: an administrator at the command line.
    public func editStore(_ id: StoreID, to edit: StoreEdit, userId: UserID?, now: Date) throws -> StoreEditOutcome {
        try database.transaction { transaction in
            guard let details = try transaction.lockStore(id) else { throw StoreError.noSuchStore }
            let before = StoreEdit(details.store).fields
            var changed: [String] = []
            for ((field, old), (_, new)) in zip(before, edit.fields) where old != new {
                changed.append(field)
                try AppDatabase.recordChange(storeId: id, userId: userId, now: now, field: field, before: old, after: new,
                                      transaction)
            }
            guard !changed.isEmpty else { return StoreEditOutcome(changed: [], overCapacity: 0, slotsOverBooked: 0) }
            try transaction.execute("""
                UPDATE store SET name = \(edit.name), address = \(edit.address), latitude = \(edit.position.latitude),
                    longitude = \(edit.position.longitude), phone = \(edit.phone), capacity = \(edit.capacity),
                    walkInPercent = \(edit.walkInPercent), slotMinutes = \(edit.slotMinutes),
                    slotCapacity = \(edit.slotCapacity), entryBeforeMinutes = \(edit.entryBeforeMinutes),
                    entryAfterMinutes = \(edit.entryAfterMinutes), callGraceMinutes = \(edit.callGraceMinutes),
                    priorityEvery = \(edit.priorityEvery), priorityOnline = \(edit.priorityOnline),
                    largestParty = \(edit.largestParty)
                WHERE id = \(id)
                """)
            transaction.changed(store: id)
            let inside = try transaction.peopleInside(storeId: id)
            // Counted as the booking handler counts them, in the slots of the new length.
            var overBooked = 0
            if let calendar = try transaction.lockStore(id)?.slotCalendar {
                let days = calendar.bookingDays(now: now)
                let slots = ((days.first ?? 0) - 1...(days.last ?? 0)).flatMap { calendar.slots(localDay: $0, now: now) }
                    .filter { $0.end > now }
                overBooked = try AppDatabase.bookedPeople(storeId: id, in: slots, transaction).values.count { $0 > edit.slotCapacity }
            }
            // The queue under the new rules (more places call the next customers at once).
            try AppDatabase.advanceQueue(storeId: id, now: now, transaction)
            return StoreEditOutcome(changed: changed, overCapacity: max(0, inside - edit.capacity),
                                    slotsOverBooked: overBooked)
        }
    }

    /// The store's latest changes, newest first, with who made them.
    public func storeChanges(storeId: StoreID, limit: Int = 30) throws -> [StoreChange] {
        try database.reading { transaction in
            try transaction.rows("""
                SELECT c.at, c.field, c.before, c.after, u.displayName FROM storeChange c
                LEFT JOIN "user" u ON u.id = c.userId WHERE c.storeId = \(storeId) ORDER BY c.at DESC, c.id DESC LIMIT \(limit)
                """).map { row in
                StoreChange(at: try row.decode(0), field: try row.decode(1),
                            before: PersonalColumns.logValue(try row.decode(2)), after: try row.decode(3),
                            by: try row.value(4, as: String.self).map(Sealed.open))
            }
        }
    }
}

extension AppDatabase {

    /// Cancels the store's coming bookings whose slot `hours` no longer keeps open from its
    /// start to its end, telling each customer `reason`; returns how many.
    ///
    /// Asks whether the store is open through the booking's slot rather than whether the slot
    /// is still on the grid: a booking made before the slot length changed stands where it is.
    static func cancelBookings(outside hours: OpeningHours, store: Store, reason: Notice.Reason, now: Date,
                               _ transaction: some SQLTransaction) throws -> Int
    {
        let booked = try transaction.rows("""
            SELECT id, slotStart FROM reservation WHERE storeId = \(store.id) AND status = 'booked' AND slotStart >= \(now)
            """)
        var cancelled = 0
        for row in booked {
            let (id, start): (ReservationID, Date) = (try row.decode(0), try row.decode(1))
            if case .open(let until) = hours.state(at: start), until >= start + Double(store.slotMinutes) * 60 { continue }
            if try setStatus(.cancelled, .endedAt, to: now, id: id, from: .booked, transaction) {
                try notice(.cancelled, reservationId: id, reason: reason, now: now, transaction)
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

extension Stores {
    /// Replaces the store's weekly hours for staff member `userId` (nil: an administrator at
    /// the command line), records the change, cancels — telling each customer why — the
    /// coming bookings whose slot the new hours no longer have, and brings the queue up to
    /// date under the new hours, all in one transaction. Returns how many bookings were
    /// cancelled.
    public func replaceHours(storeId: StoreID, with intervals: [OpeningInterval], userId: UserID?, now: Date) throws -> Int {
        try database.transaction { transaction in
            guard let details = try transaction.lockStore(storeId) else { throw StoreError.noSuchStore }
            let old = details.openingHours.intervals
            let new = intervals.sorted { ($0.weekday, $0.opens) < ($1.weekday, $1.opens) }
            guard old.map(AppDatabase.text) != new.map(AppDatabase.text) else { return 0 }
            try transaction.execute("DELETE FROM openingInterval WHERE storeId = \(storeId)")
            for interval in new {
                try transaction.execute("""
                    INSERT INTO openingInterval (storeId, weekday, opens, closes)
                    VALUES (\(storeId), \(interval.weekday), \(interval.opens), \(interval.closes))
                    """)
            }
            transaction.changed(store: storeId)
            try AppDatabase.recordChange(storeId: storeId, userId: userId, now: now, field: "hours",
                                  before: old.map(AppDatabase.text).joined(separator: ", "),
                                  after: new.map(AppDatabase.text).joined(separator: ", "), transaction)
            let hours = OpeningHours(intervals: new, timeZone: details.store.zone, closedDays: details.closures.map(\.day))
            let cancelled = try AppDatabase.cancelBookings(outside: hours, store: details.store, reason: .storeHoursChanged,
                                                    now: now, transaction)
            try AppDatabase.advanceQueue(storeId: storeId, now: now, transaction)
            return cancelled
        }
    }
}

extension Stores {
    /// Records that staff member `userId` registered the store.
    public func recordRegistration(storeId: StoreID, userId: UserID?, now: Date) throws {
        try database.transaction { transaction in
            try AppDatabase.recordChange(storeId: storeId, userId: userId, now: now, field: "store", before: "",
                                  after: "registered", transaction)
        }
    }
}

extension AppDatabase {

    /// "2026-12-25: Christmas".
    static func closureText(day: Int, reason: String) -> String {
        LocalDate(day: day).text + (reason.isEmpty ? "" : ": " + reason)
    }
}

extension Stores {
    /// Closes the store on local day `day` for staff member `userId` (nil: an administrator at
    /// the command line): records the closure and the change, and cancels the day's bookings
    /// and, if the day is today, the line-ups waiting for it, telling each customer why, in one
    /// transaction; people inside stay. Returns how many bookings were cancelled, or nil if the
    /// day was closed already.
    public func closeDay(storeId: StoreID, day: Int, reason: String, userId: UserID?, now: Date) throws -> Int? {
        try database.transaction { transaction in
            guard let details = try transaction.lockStore(storeId) else { throw StoreError.noSuchStore }
            guard !details.closures.contains(where: { $0.day == day }) else { return nil }
            try transaction.execute("INSERT INTO storeClosure (storeId, day, reason) VALUES (\(storeId), \(day), \(reason))")
            transaction.changed(store: storeId)
            try AppDatabase.recordChange(storeId: storeId, userId: userId, now: now, field: "closed", before: "",
                                  after: AppDatabase.closureText(day: day, reason: reason), transaction)
            var hours = details.openingHours
            hours.closedDays.append(day)
            // Closed the same day (a power cut): those queuing for it are told at once, rather
            // than left waiting for a store that will not open.
            let queued = try transaction.column("""
                SELECT id FROM reservation WHERE storeId = \(storeId) AND day = \(day) AND status IN ('waiting', 'called')
                """, as: ReservationID.self).compactMap { $0 }
            for id in queued where try AppDatabase.setStatus(.cancelled, .endedAt, to: now, id: id, from: .waitingOrCalled, transaction) {
                try AppDatabase.notice(.cancelled, reservationId: id, reason: .storeClosedThatDay, now: now, transaction)
            }
            return try AppDatabase.cancelBookings(outside: hours, store: details.store, reason: .storeClosedThatDay, now: now,
                                           transaction)
        }
    }

    /// Closes each of `storeIds` (nil: every store) on each local day of `days` — a national
    /// holiday, a strike — as `closeDay` closes one store on one day, each in its own
    /// transaction: bookings those days are cancelled and their customers told, and each
    /// closure is recorded in its store's change log. A day a store is closed already is left
    /// as it is. Returns how many store-days were closed and bookings cancelled.
    public func closeDays(storeIds: [StoreID]?, days: ClosedRange<Int>, reason: String, userId: UserID?, now: Date) throws
        -> (closed: Int, cancelled: Int)
    {
        var result = (closed: 0, cancelled: 0)
        for storeId in try storeIds ?? tradingStoreIds() {
            for day in days {
                guard let cancelled = try closeDay(storeId: storeId, day: day, reason: reason, userId: userId, now: now)
                else { continue }
                result.closed += 1
                result.cancelled += cancelled
            }
        }
        return result
    }

    /// Opens each of `storeIds` (nil: every store) again on local day `day` where it was
    /// closed for `reason`; returns how many were.
    public func reopenDays(storeIds: [StoreID]?, day: Int, reason: String, userId: UserID?, now: Date) throws -> Int {
        try count(storesIn: "storeClosure", day: day, reason: reason, among: storeIds) { storeId in
            try reopenDay(storeId: storeId, day: day, userId: userId, now: now)
        }
    }

    /// Runs `change` for each store with a row in `table` (storeClosure or specialHours) on
    /// local day `day` for `reason`, among `storeIds` (nil: any), each in its own transaction;
    /// returns how many it changed.
    func count(storesIn table: String, day: Int, reason: String, among storeIds: [StoreID]?,
               _ change: (StoreID) throws -> Bool) throws -> Int
    {
        let named = try database.reading { transaction in
            try transaction.column("""
                SELECT DISTINCT storeId FROM \(unescaped: table) WHERE day = \(day) AND reason = \(reason) ORDER BY storeId
                """, as: StoreID.self).compactMap { $0 }
        }
        let chosen = storeIds.map(Set.init)
        return try named.filter { chosen?.contains($0) ?? true }.reduce(0) { count, storeId in
            count + (try change(storeId) ? 1 : 0)
        }
    }

    /// The closed days from local day `from` on, across stores: each day and reason with how
    /// many stores it closes, soonest first.
    public func closuresAcrossStores(from day: Int) throws -> [(day: Int, reason: String, stores: Int)] {
        try database.reading { transaction in
            try transaction.rows("""
                SELECT day, reason, COUNT(*) FROM storeClosure WHERE day >= \(day) GROUP BY day, reason ORDER BY day, reason
                """).map { row in (try row.decode(0), try row.decode(1), try row.decode(2)) }
        }
    }

    /// Every store not retired, in id order.
    func tradingStoreIds() throws -> [StoreID] {
        try database.reading { transaction in
            // A retired store is closed for good already.
            try transaction.column("""
                SELECT id FROM store WHERE id NOT IN (SELECT storeId FROM storeRetirement) ORDER BY id
                """, as: StoreID.self).compactMap { $0 }
        }
    }

    /// Opens the store again on local day `day`, as its weekly hours say; false if it was not
    /// closed that day. Bookings cancelled by the closure stay cancelled: their customers were
    /// told, and may have booked elsewhere.
    public func reopenDay(storeId: StoreID, day: Int, userId: UserID?, now: Date) throws -> Bool {
        try database.transaction { transaction in
            guard try transaction.lockStore(storeId) != nil,
                let reason = try transaction.value("""
                    DELETE FROM storeClosure WHERE storeId = \(storeId) AND day = \(day) RETURNING reason
                    """, as: String.self)
            else { return false }
            transaction.changed(store: storeId)
            try AppDatabase.recordChange(storeId: storeId, userId: userId, now: now, field: "closed",
                                  before: AppDatabase.closureText(day: day, reason: reason), after: "", transaction)
            return true
        }
    }

    /// Replaces the store's departments with `departments`, in that order, for staff member
    /// `userId`: a name already there (in any case) keeps its department — and the influx
    /// counted for it — with the new minutes; a new name is added; a department left out is
    /// retired, no longer offered, its past influx kept. Records the change; false if nothing
    /// changed. Reservations already made keep the departments they chose.
    public func replaceDepartments(storeId: StoreID, with departments: [(name: String, minutes: Int)], userId: UserID?,
                                   now: Date) throws -> Bool
    {
        try database.transaction { transaction in
            guard let details = try transaction.lockStore(storeId) else { throw StoreError.noSuchStore }
            func text(_ list: [(name: String, minutes: Int)]) -> String {
                list.map { "\($0.name) \($0.minutes) min" }.joined(separator: ", ")
            }
            let old = details.departments.map { (name: $0.name, minutes: $0.estimatedMinutes) }
            guard text(old) != text(departments) else { return false }
            var idByName: [String: Int64] = [:]
            for row in try transaction.rows("SELECT id, name FROM department WHERE storeId = \(storeId)") {
                idByName[try row.decode(1, as: String.self).lowercased()] = try row.decode(0, as: Int64.self)
            }
            try transaction.execute("UPDATE department SET retired = TRUE WHERE storeId = \(storeId)")
            for (position, department) in departments.enumerated() {
                if let id = idByName[department.name.lowercased()] {
                    try transaction.execute("""
                        UPDATE department SET name = \(department.name), estimatedMinutes = \(department.minutes),
                            position = \(position), retired = FALSE
                        WHERE id = \(id)
                        """)
                } else {
                    try transaction.execute("""
                        INSERT INTO department (storeId, name, estimatedMinutes, position)
                        VALUES (\(storeId), \(department.name), \(department.minutes), \(position))
                        """)
                }
            }
            transaction.changed(store: storeId)
            try AppDatabase.recordChange(storeId: storeId, userId: userId, now: now, field: "departments", before: text(old),
                                  after: text(departments), transaction)
            return true
        }
    }
}
