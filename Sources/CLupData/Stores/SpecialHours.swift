import CLupDomain
import Foundation

/// Hours a store keeps on one date in place of its weekday's — an early closing on Christmas
/// Eve, a late opening on New Year's Eve — set for one store, a region or every store.
extension Stores {
    /// What setting a day's special hours did.
    public enum SpecialHoursOutcome: Equatable, Sendable {
        /// Kept, and this many bookings outside them were cancelled, each customer told.
        case set(cancelled: Int)
        /// The day kept these hours, with this reason, already.
        case unchanged
        /// The store is closed that day: reopen it first.
        case closedThatDay
        /// The hours would run into the store's night before or after (`OpeningHours.nightClash`).
        case clashesWithNight(OpeningHours.NightClash)
    }

    /// Keeps `intervals` (one or two openings of local day `day`, as `OpeningInterval`s of
    /// that day's weekday) as store `storeId`'s hours that day, for staff member `userId` (nil:
    /// an administrator at the command line), in one transaction: the change recorded, the
    /// bookings that day whose slot the hours no longer hold cancelled with their customers told
    /// why and where else is open, and the queue brought up to date if the day is today.
    public func setSpecialHours(storeId: StoreID, day: Int, intervals: [OpeningInterval], reason: String, userId: UserID?,
                                now: Date) throws -> SpecialHoursOutcome
    {
        try database.transaction { transaction in
            guard let definition = try transaction.lockStore(storeId) else { throw StoreError.noSuchStore }
            guard !definition.openingHours.isClosed(localDay: day) else { return .closedThatDay }
            let ordered = intervals.sorted { $0.opens < $1.opens }
            if let clash = definition.openingHours.nightClash(ordered, localDay: day) { return .clashesWithNight(clash) }
            let old = definition.specialHours.filter { $0.day == day }
            let new = ordered.map {
                StoreSpecialHours(storeId: storeId, day: day, interval: $0, reason: reason)
            }
            guard old != new else { return .unchanged }
            if !old.isEmpty { try transaction.execute("DELETE FROM specialHours WHERE storeId = \(storeId) AND day = \(day)") }
            for opening in new {
                try transaction.execute("""
                    INSERT INTO specialHours (storeId, day, opens, closes, reason)
                    VALUES (\(storeId), \(day), \(opening.opens), \(opening.closes), \(reason))
                    """)
            }
            transaction.changed(store: storeId)
            try AppDatabase.recordChange(storeId: storeId, userId: userId, now: now, field: "specialHours",
                                         before: AppDatabase.specialHoursText(old), after: AppDatabase.specialHoursText(new),
                                         transaction)
            var hours = definition.openingHours
            hours.specialDays[day] = new.map(\.interval)
            let cancelled = try AppDatabase.cancelBookings(outside: hours, store: definition.store,
                                                           reason: .specialHoursThatDay, now: now, transaction)
            try AppDatabase.advanceQueue(storeId: storeId, now: now, transaction)
            return .set(cancelled: cancelled)
        }
    }

    /// Gives store `storeId` its weekday's hours back on local day `day`; false if it kept
    /// no special hours that day. Bookings cancelled by them stay cancelled: their customers
    /// were told, and may have booked elsewhere.
    public func clearSpecialHours(storeId: StoreID, day: Int, userId: UserID?, now: Date) throws -> Bool {
        try database.transaction { transaction in
            guard let definition = try transaction.lockStore(storeId) else { throw StoreError.noSuchStore }
            let old = definition.specialHours.filter { $0.day == day }
            guard !old.isEmpty else { return false }
            try transaction.execute("DELETE FROM specialHours WHERE storeId = \(storeId) AND day = \(day)")
            transaction.changed(store: storeId)
            try AppDatabase.recordChange(storeId: storeId, userId: userId, now: now, field: "specialHours",
                                         before: AppDatabase.specialHoursText(old), after: "", transaction)
            return true
        }
    }

    /// Keeps the same special hours at each of `storeIds` (nil: every store not retired) on
    /// each local day of `days`, each store-day as `setSpecialHours` keeps it, in its own
    /// transaction; a day a store is closed is left closed, and one whose hours would run into
    /// the store's own nights either side is left as it was. `openings` are minutes after the
    /// day's midnight, as a weekday's. Returns how many store-days took the hours, how many were
    /// closed and left so, how many clashed with a night, and how many bookings were cancelled.
    public func setSpecialHours(storeIds: [StoreID]?, days: ClosedRange<Int>, openings: [(opens: Int, closes: Int)],
                                reason: String, userId: UserID?, now: Date) throws
        -> (set: Int, closed: Int, clashed: Int, cancelled: Int)
    {
        var result = (set: 0, closed: 0, clashed: 0, cancelled: 0)
        for storeId in try storeIds ?? tradingStoreIds() {
            for day in days {
                let intervals = openings.map {
                    OpeningInterval(weekday: ZoneOffsets.isoWeekday(day: day), opens: $0.opens, closes: $0.closes)
                }
                switch try setSpecialHours(storeId: storeId, day: day, intervals: intervals, reason: reason, userId: userId,
                                           now: now)
                {
                case .set(let cancelled):
                    result.set += 1
                    result.cancelled += cancelled
                case .closedThatDay: result.closed += 1
                case .clashesWithNight: result.clashed += 1
                case .unchanged: break
                }
            }
        }
        return result
    }

    /// Gives each of `storeIds` (nil: every store) its weekday's hours back on local day `day`
    /// where it kept special hours for `reason`; returns how many did.
    public func clearSpecialHours(storeIds: [StoreID]?, day: Int, reason: String, userId: UserID?, now: Date) throws -> Int {
        try count(storesIn: "specialHours", day: day, reason: reason, among: storeIds) { storeId in
            try clearSpecialHours(storeId: storeId, day: day, userId: userId, now: now)
        }
    }

    /// The special days from local day `from` on, across stores: each day, its openings and
    /// reason, with how many stores keep them, soonest first.
    public func specialHoursAcrossStores(from day: Int) throws -> [(day: Int, openings: [OpeningInterval], reason: String,
                                                                    stores: Int)]
    {
        let rows = try database.reading { transaction in
            try transaction.rows("""
                SELECT storeId, day, opens, closes, reason FROM specialHours WHERE day >= \(day) ORDER BY day, storeId, opens
                """).map { try $0.record(StoreSpecialHours.self) }
        }
        // Each store's day as one set of openings, then the stores that share it counted.
        var counts: [SpecialDayKey: Int] = [:]
        for (_, openings) in Dictionary(grouping: rows, by: { "\($0.storeId.rawValue) \($0.day)" }) {
            let first = openings[0]
            counts[SpecialDayKey(day: first.day, openings: openings.map(\.interval), reason: first.reason), default: 0] += 1
        }
        return counts.sorted { ($0.key.day, $0.key.reason) < ($1.key.day, $1.key.reason) }
            .map { ($0.key.day, $0.key.openings, $0.key.reason, $0.value) }
    }

    private struct SpecialDayKey: Hashable {
        var day: Int
        var openings: [OpeningInterval]
        var reason: String
    }
}

extension AppDatabase {
    /// "2026-12-24 08:00–14:00: Christmas Eve", as the change log keeps a day's special hours;
    /// "" for none.
    static func specialHoursText(_ openings: [StoreSpecialHours]) -> String {
        guard let first = openings.first else { return "" }
        let hours = openings.map { OpeningHours.clockText($0.opens) + "–" + OpeningHours.clockText($0.closes % 1440) }
        return LocalDate(day: first.day).text + " " + hours.joined(separator: ", ")
            + (first.reason.isEmpty ? "" : ": " + first.reason)
    }
}
