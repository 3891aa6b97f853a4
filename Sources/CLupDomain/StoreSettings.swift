import Foundation

/// A store's rules for reservations, as its manager sets them (R16, R22, D4).
///
/// All counts are people, not parties: a party of two takes two places inside and two places
/// of a slot's booking capacity.
public struct StoreSettings: Sendable, Hashable {
    /// Most people inside at once.
    public var capacity: Int
    /// Share of the capacity, in percent, kept for walk-ins who take a ticket at the kiosk.
    public var walkInPercent: Int
    /// Length of a booking slot.
    public var slotMinutes: Int
    /// People who may book one slot.
    public var slotCapacity: Int
    /// A booking may enter from this long before its slot starts…
    public var entryBeforeMinutes: Int
    /// …to this long after.
    public var entryAfterMinutes: Int
    /// How long a called ticket may take to reach the entrance before it expires.
    public var callGraceMinutes: Int
    /// Whether, and how, people who cannot wait long standing are called sooner.
    public var priority: PriorityLane
    /// The most people one ticket or booking may be for: 2 by default, as the requirements
    /// say (a customer and one companion); a store may allow families up to `partyLimit`.
    public var largestParty: Int

    public static let defaultWalkInPercent = 20
    public static let defaultSlotMinutes = 15
    public static let slotLengths = [10, 15, 20, 30, 60]
    public static let defaultLargestParty = 2
    /// The largest party any store may allow.
    public static let partyLimit = 8

    public init(
        capacity: Int, walkInPercent: Int = defaultWalkInPercent, slotMinutes: Int = defaultSlotMinutes,
        slotCapacity: Int? = nil, entryBeforeMinutes: Int = 10, entryAfterMinutes: Int = 15, callGraceMinutes: Int = 10,
        priority: PriorityLane = .off, largestParty: Int = defaultLargestParty
    ) {
        self.capacity = capacity
        self.walkInPercent = walkInPercent
        self.slotMinutes = slotMinutes
        self.slotCapacity = slotCapacity
            ?? Self.defaultSlotCapacity(capacity: capacity, walkInPercent: walkInPercent, slotMinutes: slotMinutes)
        self.entryBeforeMinutes = entryBeforeMinutes
        self.entryAfterMinutes = entryAfterMinutes
        self.callGraceMinutes = callGraceMinutes
        self.priority = priority
        self.largestParty = largestParty
    }

    /// The party sizes the store takes, 1 to `largestParty`.
    public var partySizes: ClosedRange<Int> { 1...max(1, largestParty) }

    /// Places kept for walk-ins (rounded down, so a small store keeps at least one place online).
    public var walkInPlaces: Int { capacity * walkInPercent / 100 }

    /// Places customers who line up or book online share.
    public var onlinePlaces: Int { capacity - walkInPlaces }

    /// By default bookings may take about half of what the online places let in over the slot,
    /// assuming half-hour visits, so line-ups are never starved by bookings. The v3 migration
    /// applies the same formula to existing stores.
    public static func defaultSlotCapacity(capacity: Int, walkInPercent: Int, slotMinutes: Int) -> Int {
        max(1, (capacity - capacity * walkInPercent / 100) * slotMinutes / 120)
    }

    /// When a booking for the slot starting at `slotStart` may enter.
    public func entryWindow(slotStart: Date) -> ClosedRange<Date> {
        slotStart.addingTimeInterval(-Double(entryBeforeMinutes) * 60)...slotStart.addingTimeInterval(
            Double(entryAfterMinutes) * 60)
    }
}
