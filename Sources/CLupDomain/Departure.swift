import Foundation

/// When a customer who has to travel is told to leave, and when their place is theirs.
///
/// A remote line-up carries its travel time. Its customer is told to **leave** when their
/// expected entry less their travel time is `noticeMargin` away — from the estimate while the
/// queue is ahead of them, or at once when places are free for them and they are still at
/// home. Places that free for a customer still on the way are **held** for them (nobody behind
/// is called in their stead), and the ticket is **called** — "it is your turn", with the
/// grace period to reach the door — `callMargin` before they are expected at the door: a
/// travel time after they were told to leave. So the call's grace starts when they are about
/// to arrive, and a customer who left when told never finds their ticket expired.
public enum Departure {
    /// "Leave now" goes out this long before the time to leave.
    public static let noticeMargin: TimeInterval = 3 * 60
    /// A customer on the way is called this long before they are expected at the door.
    public static let callMargin: TimeInterval = 2 * 60

    /// The time to leave for an entry expected at `entry`.
    public static func leaveBy(entry: Date, travel: TimeInterval) -> Date {
        entry - travel
    }

    /// Whether a customer `travel` away, expected to enter at `entry`, should be told to leave.
    public static func isDue(entry: Date, travel: TimeInterval, now: Date) -> Bool {
        travel > 0 && leaveBy(entry: entry, travel: travel) - noticeMargin <= now
    }

    /// Whether a customer who has places and was told to leave at `leftAt` may be called.
    public static func mayCall(leftAt: Date, travel: TimeInterval, now: Date) -> Bool {
        now >= leftAt + travel - callMargin
    }
}

/// A booking's reminder and the answer it asks for (R17, UC8).
public enum BookingReminder {
    /// The reminder goes out this long before the slot starts.
    public static let lead: TimeInterval = 2 * 3600
    /// A booking not confirmed this long after its reminder is cancelled, and its place freed.
    public static let replyWindow: TimeInterval = 3600
    /// A booking made less than `lead` plus this before its slot is not reminded: the customer
    /// has just chosen it, so it counts as confirmed.
    public static let lateBookingMargin: TimeInterval = 15 * 60
}

/// Whether a line-up takes a new travel time — another way of travelling, or a distance from
/// where its customer now is — after it was made. The line-up's own rules hold for every
/// change, so no report of where someone is can make a store hold places for them all day:
///
/// - a travel longer than `LineUpPolicy.longestWait` is refused: from that far, the customer
///   could not have lined up (a bad position fix, a browser located by its VPN, a jump of
///   hundreds of kilometres);
/// - once told to leave, a longer travel is not taken: the places freed for the customer are
///   held for the travel they were told to leave by, then they are called, and the call's
///   grace period is all the time they have (`Departure.mayCall`). A shorter one is taken.
public enum TravelChange {
    public enum Refusal: Sendable, Equatable {
        /// Longer than any line-up may wait.
        case tooFar(travel: TimeInterval)
        /// Told to leave at `leftAt` with `travel`: the place is held for that, not longer.
        case onTheWay(leftAt: Date, travel: TimeInterval)
    }

    /// Why the line-up may not take travel `new` in place of `current`, or nil if it may.
    /// `leftAt`: when its customer was told to leave, if they were.
    public static func refusal(current: TimeInterval, new: TimeInterval, leftAt: Date?) -> Refusal? {
        if new > LineUpPolicy.longestWait { return .tooFar(travel: new) }
        if let leftAt, new > current { return .onTheWay(leftAt: leftAt, travel: current) }
        return nil
    }
}
