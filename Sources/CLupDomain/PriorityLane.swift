import Foundation

/// A store's priority lane: people who cannot wait long standing (elderly, disabled, pregnant,
/// with small children) are called sooner than their arrival alone would call them.
///
/// The store's policy is one number, `every`: one priority call in every `every` calls. At 1
/// a priority ticket is called at the next free place; at 3, at most two other parties are
/// called between one priority ticket and the next. The lane has no memory of past calls:
/// a priority ticket is given its place in the queue when it is issued, and keeps it. That
/// place is behind every priority ticket already waiting (the lane is first come, first
/// served), behind at most `every − 1` other parties counted from the one before it (or the
/// head of the queue), and never ahead of a customer already told to leave, whose places are
/// held while they travel. From then on the queue is called in order, as always, so "people
/// ahead", the estimate and the store's wait follow the order the store really calls.
///
/// Staff issue priority tickets (the door console); customers may declare one when lining up
/// online only where the store allows it (`online`), never at the public dispenser.
public struct PriorityLane: Sendable, Hashable {
    /// 0: no priority lane; otherwise one priority call in every `every`.
    public var every: Int
    /// Customers may ask for a priority place when lining up online.
    public var online: Bool

    public static let off = PriorityLane(every: 0, online: false)
    /// The policies a store may choose: "one in every" 1 (the next free place) to 10.
    public static let cycles = 1...10

    public init(every: Int, online: Bool) {
        self.every = every
        self.online = online
    }

    public var isOn: Bool { every > 0 }

    /// Whether customers lining up online may ask for a priority place here.
    public var asksOnline: Bool { isOn && online }

    /// Where a new priority ticket goes in its pool's queue (`waiting`: the pool's waiting
    /// tickets, in queue order): just before the ticket whose id this returns, or at the back
    /// (nil).
    public func place(in waiting: some Sequence<LiveReservation>) -> ReservationID? {
        guard isOn else { return nil }
        // Others passed since the last ticket it may not overtake, and the candidate.
        var passed = 0
        var before: ReservationID?
        for ticket in waiting {
            if ticket.priority || ticket.leftAt != nil {
                passed = 0
                before = nil
            } else if before == nil {
                if passed == every - 1 { before = ticket.id } else { passed += 1 }
            }
        }
        return before
    }
}

/// A waiting ticket's place in its queue. Tickets are called in the order of `position` — a
/// ticket's own id, or, for a priority ticket, the id of the ticket it was placed before —
/// then priority first, then by id. Every other ticket's key is its id, so the queue is in id
/// order until a priority ticket joins it.
public struct QueueKey: Sendable, Hashable, Comparable {
    public var position: ReservationID
    public var priority: Bool
    public var id: ReservationID

    public init(position: ReservationID, priority: Bool, id: ReservationID) {
        self.position = position
        self.priority = priority
        self.id = id
    }

    /// The key of an ordinary ticket, in its place by arrival.
    public init(_ id: ReservationID) {
        self.init(position: id, priority: false, id: id)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        if lhs.position != rhs.position { return lhs.position < rhs.position }
        if lhs.priority != rhs.priority { return lhs.priority }
        return lhs.id < rhs.id
    }
}
