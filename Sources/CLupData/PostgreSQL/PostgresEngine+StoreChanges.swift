import CLupDomain
import Foundation
import PostgresNIO

/// Managers' changes to a store, and its signing keys, on PostgreSQL: the same named methods
/// as `AppDatabase+StoreChanges.swift` and `+SigningKeys.swift`. Each change locks the store's
/// row, so it is ordered with the reservations and scans that decide from the store's rules.
extension PostgresEngine {
    // MARK: Editing a store

    func editStore(_ id: StoreID, to edit: StoreEdit, userId: UserID?, now: Date) throws -> StoreEditOutcome {
        try write { transaction in
            guard let details = try Self.lockStore(id, transaction) else { throw StoreError.noSuchStore }
            let before = StoreEdit(details.store).fields
            var changed: [String] = []
            for ((field, old), (_, new)) in zip(before, edit.fields) where old != new {
                changed.append(field)
                try Self.recordChange(storeId: id, userId: userId, now: now, field: field, before: old, after: new,
                                      transaction)
            }
            guard !changed.isEmpty else { return StoreEditOutcome(changed: [], overCapacity: 0, slotsOverBooked: 0) }
            try transaction.execute("""
                UPDATE store SET name = \(edit.name), address = \(edit.address), latitude = \(edit.position.latitude),
                    longitude = \(edit.position.longitude), phone = \(edit.phone), capacity = \(edit.capacity),
                    walkInPercent = \(edit.walkInPercent), slotMinutes = \(edit.slotMinutes),
                    slotCapacity = \(edit.slotCapacity), entryBeforeMinutes = \(edit.entryBeforeMinutes),
                    entryAfterMinutes = \(edit.entryAfterMinutes), callGraceMinutes = \(edit.callGraceMinutes),
                    priorityEvery = \(edit.priorityEvery), priorityOnline = \(edit.priorityOnline)
                WHERE id = \(id)
                """)
            transaction.changed(store: id)
            let inside = try Self.peopleInside(storeId: id, transaction)
            var overBooked = 0
            if let calendar = try AppDatabase.storeDetails(id, transaction.statements).first?.slotCalendar {
                let days = calendar.bookingDays(now: now)
                let slots = ((days.first ?? 0) - 1...(days.last ?? 0)).flatMap { calendar.slots(localDay: $0, now: now) }
                    .filter { $0.end > now }
                overBooked = try Self.bookedPeople(storeId: id, in: slots, transaction).values.count { $0 > edit.slotCapacity }
            }
            // The queue under the new rules, in the same transaction: it reads them from the
            // primary, not from a board.
            try Self.advanceQueue(storeId: id, now: now, transaction)
            return StoreEditOutcome(changed: changed, overCapacity: max(0, inside - edit.capacity),
                                    slotsOverBooked: overBooked)
        }
    }

    /// Writes one entry of a store's change log, as SQLite's `AppDatabase.recordChange` does.
    static func recordChange(storeId: StoreID, userId: UserID?, now: Date, field: String, before: String,
                                     after: String, _ transaction: PostgresTransaction) throws
    {
        try transaction.execute("""
            INSERT INTO storeChange (storeId, userId, at, field, before, after)
            VALUES (\(storeId), \(userId), \(now), \(field), \(before), \(after))
            """)
    }

    func storeChanges(storeId: StoreID, limit: Int) throws -> [StoreChange] {
        try read { transaction in
            try transaction.rows("""
                SELECT c.at, c.field, c.before, c.after, u.displayName FROM storeChange c
                LEFT JOIN "user" u ON u.id = c.userId WHERE c.storeId = \(storeId) ORDER BY c.at DESC, c.id DESC LIMIT \(limit)
                """).map { row in
                StoreChange(at: try row[0].decode(Date.self), field: try row[1].decode(String.self),
                            before: PersonalColumns.logValue(try row[2].decode(String.self)),
                            after: try row[3].decode(String.self), by: try row[4].decode(String?.self).map(Sealed.open))
            }
        }
    }

    func recordRegistration(storeId: StoreID, userId: UserID?, now: Date) throws {
        try write { transaction in
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "store", before: "",
                                  after: "registered", transaction)
        }
    }

    // MARK: Hours, closed days, departments

    func replaceHours(storeId: StoreID, with intervals: [OpeningInterval], userId: UserID?, now: Date) throws -> Int {
        try write { transaction in
            guard let details = try Self.lockStore(storeId, transaction) else { throw StoreError.noSuchStore }
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
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "hours",
                                  before: old.map(AppDatabase.text).joined(separator: ", "),
                                  after: new.map(AppDatabase.text).joined(separator: ", "), transaction)
            let hours = OpeningHours(intervals: new, timeZone: details.store.zone, closedDays: details.closures.map(\.day))
            let cancelled = try Self.cancelBookings(outside: hours, store: details.store, reason: .storeHoursChanged,
                                                    now: now, transaction)
            try Self.advanceQueue(storeId: storeId, now: now, transaction)
            return cancelled
        }
    }

    /// Cancels the store's coming bookings whose slot `hours` no longer keeps open, as on SQLite.
    private static func cancelBookings(outside hours: OpeningHours, store: Store, reason: Notice.Reason, now: Date,
                                       _ transaction: PostgresTransaction) throws -> Int
    {
        let booked = try transaction.rows("""
            SELECT id, slotStart FROM reservation WHERE storeId = \(store.id) AND status = 'booked' AND slotStart >= \(now)
            """)
        var cancelled = 0
        for row in booked {
            let (id, start) = try (row[0].decode(ReservationID.self), row[1].decode(Date.self))
            if case .open(let until) = hours.state(at: start), until >= start + Double(store.slotMinutes) * 60 { continue }
            if try setStatus(.cancelled, .endedAt, to: now, id: id, from: .booked, transaction) {
                try notice(.cancelled, reservationId: id, reason: reason, now: now, transaction)
                cancelled += 1
            }
        }
        return cancelled
    }

    func closeDay(storeId: StoreID, day: Int, reason: String, userId: UserID?, now: Date) throws -> Int? {
        try write { transaction in
            guard let details = try Self.lockStore(storeId, transaction) else { throw StoreError.noSuchStore }
            guard !details.closures.contains(where: { $0.day == day }) else { return nil }
            try transaction.execute("INSERT INTO storeClosure (storeId, day, reason) VALUES (\(storeId), \(day), \(reason))")
            transaction.changed(store: storeId)
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "closed", before: "",
                                  after: AppDatabase.closureText(day: day, reason: reason), transaction)
            var hours = details.openingHours
            hours.closedDays.append(day)
            let queued = try transaction.rows("""
                SELECT id FROM reservation WHERE storeId = \(storeId) AND day = \(day) AND status IN ('waiting', 'called')
                """).map { try $0[0].decode(ReservationID.self) }
            for id in queued where try Self.setStatus(.cancelled, .endedAt, to: now, id: id, from: .waitingOrCalled, transaction) {
                try Self.notice(.cancelled, reservationId: id, reason: .storeClosedThatDay, now: now, transaction)
            }
            return try Self.cancelBookings(outside: hours, store: details.store, reason: .storeClosedThatDay, now: now,
                                           transaction)
        }
    }

    func reopenDay(storeId: StoreID, day: Int, userId: UserID?, now: Date) throws -> Bool {
        try write { transaction in
            guard try Self.lockStore(storeId, transaction) != nil,
                let reason = try transaction.value("""
                    DELETE FROM storeClosure WHERE storeId = \(storeId) AND day = \(day) RETURNING reason
                    """, as: String.self)
            else { return false }
            transaction.changed(store: storeId)
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "closed",
                                  before: AppDatabase.closureText(day: day, reason: reason), after: "", transaction)
            return true
        }
    }

    func replaceDepartments(storeId: StoreID, with departments: [(name: String, minutes: Int)], userId: UserID?,
                            now: Date) throws -> Bool
    {
        try write { transaction in
            guard let details = try Self.lockStore(storeId, transaction) else { throw StoreError.noSuchStore }
            func text(_ list: [(name: String, minutes: Int)]) -> String {
                list.map { "\($0.name) \($0.minutes) min" }.joined(separator: ", ")
            }
            let old = details.departments.map { (name: $0.name, minutes: $0.estimatedMinutes) }
            guard text(old) != text(departments) else { return false }
            var idByName: [String: Int64] = [:]
            for row in try transaction.rows("SELECT id, name FROM department WHERE storeId = \(storeId)") {
                idByName[try row[1].decode(String.self).lowercased()] = try row[0].decode(Int64.self)
            }
            try transaction.execute("UPDATE department SET retired = true WHERE storeId = \(storeId)")
            for (position, department) in departments.enumerated() {
                if let id = idByName[department.name.lowercased()] {
                    try transaction.execute("""
                        UPDATE department SET name = \(department.name), estimatedMinutes = \(department.minutes),
                            position = \(position), retired = false
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
            try Self.recordChange(storeId: storeId, userId: userId, now: now, field: "departments", before: text(old),
                                  after: text(departments), transaction)
            return true
        }
    }

    // MARK: Staff PINs' and kiosks' record is in +Accounts; signing keys

    static func signingKeys(storeId: StoreID, now: Date, _ transaction: PostgresTransaction) throws -> SigningKeys? {
        var accepted: [Int: Date?] = [:]
        var current: Int?
        for row in try transaction.rows("""
            SELECT keyId, retiresAt FROM storeSigningKey
            WHERE storeId = \(storeId) AND (retiresAt IS NULL OR retiresAt > \(now)) ORDER BY keyId
            """)
        {
            let (keyId, retires) = try (row[0].decode(Int.self), row[1].decode(Date?.self))
            accepted[keyId] = .some(retires)
            if retires == nil { current = keyId }
        }
        return current.map { SigningKeys(current: $0, accepted: accepted) }
    }

    func signingKeys(storeId: StoreID, now: Date) throws -> SigningKeys? {
        try read { transaction in try Self.signingKeys(storeId: storeId, now: now, transaction) }
    }

    func lastReservationId() throws -> ReservationID? {
        try read { transaction in try transaction.value("SELECT MAX(id) FROM reservation", as: ReservationID?.self) ?? nil }
    }

    func rotateSigningKey(storeId: StoreID, retireAtOnce: Bool, now: Date) throws -> Int {
        try write { transaction in
            guard try Self.lockStore(storeId, transaction) != nil,
                try Self.signingKeys(storeId: storeId, now: now, transaction) != nil
            else { throw StoreError.noSuchStore }
            let retires = retireAtOnce ? now : now + AppDatabase.keyOverlap
            try transaction.execute("""
                UPDATE storeSigningKey SET retiresAt = \(retires)
                WHERE storeId = \(storeId) AND (retiresAt IS NULL OR retiresAt > \(retires))
                """)
            let highest = try transaction.value("SELECT MAX(keyId) FROM storeSigningKey WHERE storeId = \(storeId)",
                                                as: Int?.self)
            let keyId = (highest.flatMap { $0 } ?? 0) + 1
            try transaction.execute("""
                INSERT INTO storeSigningKey (storeId, keyId, createdAt) VALUES (\(storeId), \(keyId), \(now))
                """)
            return keyId
        }
    }
}
