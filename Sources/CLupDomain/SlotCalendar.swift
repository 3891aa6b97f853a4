import Foundation

/// A bookable stretch of time at a store (R16): customers who book it may enter in its entry
/// window and the store keeps places for them.
public struct Slot: Sendable, Hashable {
    public var start: Date
    public var end: Date

    public init(start: Date, end: Date) {
        self.start = start
        self.end = end
    }
}

/// The slots a store offers: each opening interval cut into slots of the store's length from
/// its opening time, a slot only where it ends by closing time. Booking is allowed from two
/// hours ahead (R18) to seven days ahead (R19).
public struct SlotCalendar: Sendable {
    public var hours: OpeningHours
    public var slotMinutes: Int

    public static let leadTime: TimeInterval = 2 * 3600
    public static let horizon: TimeInterval = 7 * 24 * 3600

    public init(hours: OpeningHours, slotMinutes: Int) {
        self.hours = hours
        self.slotMinutes = slotMinutes
    }

    /// Why a slot can or cannot be booked at `now`.
    public enum Verdict: Sendable, Equatable {
        case bookable(Slot)
        /// Within the lead time; `earliest` is the first slot that can be booked, if any.
        case tooSoon(earliest: Slot?)
        /// Beyond the horizon; `latest` is the last instant a slot may start.
        case tooFar(latest: Date)
        /// Not the start of one of the store's slots (closed then, or not on the grid).
        case notASlot
        /// A visit of that length entering at the slot's start would still be going on when
        /// the store closes at `closes` (the same rule as a line-up's "closes first").
        case endsAfterClosing(Slot, closes: Date)
    }

    /// The store-local day number (days since 1970-01-01 on the store's clock) of `instant`.
    public func localDay(of instant: Date) -> Int {
        ZoneOffsets.table(for: hours.timeZone, around: instant).localDay(instant).day
    }

    /// The slots of intervals opening on local day `day`. `now` picks the zone table, so `day`
    /// should be within a week or so of it.
    public func slots(localDay day: Int, now: Date) -> [Slot] {
        let offsets = ZoneOffsets.table(for: hours.timeZone, around: now)
        let midnight = day * ZoneOffsets.secondsPerDay
        var slots: [Slot] = []
        for interval in hours.intervals(localDay: day) {
            var minute = interval.opens
            while minute + slotMinutes <= interval.closes {
                slots.append(Slot(start: offsets.instant(localSeconds: midnight + minute * 60),
                                  end: offsets.instant(localSeconds: midnight + (minute + slotMinutes) * 60)))
                minute += slotMinutes
            }
        }
        return slots
    }

    /// The slots starting on local day `day`, in order, as a customer reads a day: a late
    /// opening that runs past midnight gives its small hours to the next day.
    public func slots(startingOn day: Int, now: Date) -> [Slot] {
        (slots(localDay: day - 1, now: now) + slots(localDay: day, now: now)).filter { localDay(of: $0.start) == day }
    }

    /// The local days a booking made at `now` can fall on: today to the day the horizon ends.
    public func bookingDays(now: Date) -> [Int] {
        Array(localDay(of: now)...localDay(of: now + Self.horizon))
    }

    /// Whether `slot` may be booked at `now`: far enough ahead, and not too far.
    public func isBookable(_ slot: Slot, now: Date) -> Bool {
        slot.start >= now + Self.leadTime && slot.start <= now + Self.horizon
    }

    /// The first slot that may be booked at `now` for a visit of `residence`, if the store
    /// opens within the horizon: as the slot picker offers them, so a slot the visit would
    /// still be going on at closing is not the first (a 30-minute visit at a store closing at
    /// 21:00 is not offered 20:45).
    public func firstBookable(now: Date, residence: TimeInterval = 0) -> Slot? {
        for day in bookingDays(now: now) {
            if let slot = slots(localDay: day, now: now).first(where: {
                isBookable($0, now: now) && closing(ifVisitOf: residence, startsAt: $0) == nil
            }) { return slot }
        }
        return nil
    }

    /// The verdict on booking the slot that starts at `start` for a visit of `residence`.
    public func verdict(start: Date, residence: TimeInterval, now: Date) -> Verdict {
        if start < now + Self.leadTime { return .tooSoon(earliest: firstBookable(now: now, residence: residence)) }
        if start > now + Self.horizon { return .tooFar(latest: now + Self.horizon) }
        guard let slot = slots(localDay: localDay(of: start), now: now).first(where: { $0.start == start })
            ?? slots(localDay: localDay(of: start) - 1, now: now).first(where: { $0.start == start })
        else { return .notASlot }
        if let closes = closing(ifVisitOf: residence, startsAt: slot) { return .endsAfterClosing(slot, closes: closes) }
        return .bookable(slot)
    }

    /// When the store closes, if a visit of `residence` entering at `slot`'s start would not
    /// be over by then; nil if it fits. Back-to-back intervals count as one opening (a store
    /// open 18:00–24:00 and 00:00–02:00 closes at 02:00).
    public func closing(ifVisitOf residence: TimeInterval, startsAt slot: Slot) -> Date? {
        guard case .open(let until) = hours.state(at: slot.start) else { return nil }
        return slot.start + residence > until ? until : nil
    }

    /// The store's slot during which `instant` falls (for suggesting "the same time" at a store
    /// whose slots are cut differently), if the store is open then.
    public func slot(containing instant: Date, now: Date) -> Slot? {
        let day = localDay(of: instant)
        return (slots(localDay: day - 1, now: now) + slots(localDay: day, now: now))
            .first { $0.start <= instant && instant < $0.end }
    }
}

/// How full a slot is, as the slot picker colours it (RASD §3.1.1 "Booking – Time Slot").
public enum SlotAvailability: String, Sendable, Equatable {
    case free
    /// A quarter or less of the places left (at least the last one).
    case nearlyFull
    case full

    /// The availability of a slot with `capacity` places of which `booked` are taken, for a
    /// party of `people`: full when the party no longer fits.
    public static func of(booked: Int, capacity: Int, people: Int = 1) -> SlotAvailability {
        let left = capacity - booked
        if left < people { return .full }
        if left <= max(1, capacity / 4) { return .nearlyFull }
        return .free
    }
}
