import Foundation
import HeapModule

/// A party (1 or 2 people, R14) inside the store, expected to leave at `expectedExit`.
public struct Occupant: Sendable, Hashable {
    public var people: Int
    public var expectedExit: Date

    public init(people: Int, expectedExit: Date) {
        self.people = people
        self.expectedExit = expectedExit
    }
}

/// A party waiting in the virtual queue, with the time it declared it will stay.
public struct QueuedParty: Sendable, Hashable {
    public var people: Int
    public var residence: TimeInterval

    public init(people: Int, residence: TimeInterval) {
        self.people = people
        self.residence = residence
    }
}

/// What the estimator needs to know about a store right now.
public struct StoreTraffic: Sendable, Hashable {
    /// Parties inside.
    public var inside: [Occupant]
    /// The virtual queue, first in line first.
    public var queue: [QueuedParty]
    /// Parties expected any moment — bookings due soon and tickets already called: their
    /// places are held from now until they are expected to leave.
    public var bookingsDue: [Occupant]

    public init(inside: [Occupant] = [], queue: [QueuedParty] = [], bookingsDue: [Occupant] = []) {
        self.inside = inside
        self.queue = queue
        self.bookingsDue = bookingsDue
    }

    public static let empty = StoreTraffic()

    public var peopleInside: Int { inside.reduce(0) { $0 + $1.people } }
}

/// Estimates when each party in a store's queue will enter, by simulating expected exits:
/// people inside leave at their expected exit, places held for bookings due are not given
/// away, and the queue enters in order as places free.
///
/// The simulation keeps pending exits in a min-heap, so the cost is O(n log n) in the queue
/// length and independent of the store's history.
public struct WaitEstimator: Sendable {
    /// Places available to the queue (the store's capacity, less any share kept for others).
    public var capacity: Int
    /// Observed actual ÷ declared residence time for the store; 1 until history exists.
    public var residenceRatio: Double

    public init(capacity: Int, residenceRatio: Double = 1) {
        self.capacity = capacity
        self.residenceRatio = residenceRatio
    }

    private struct Exit: Comparable {
        var time: Date
        var people: Int
        static func < (lhs: Exit, rhs: Exit) -> Bool { lhs.time < rhs.time }
    }

    /// The expected entry time of every party in `traffic.queue` followed by `newcomers`,
    /// in order; nil from the first party that can never enter (larger than the capacity).
    public func entryTimes(traffic: StoreTraffic, appending newcomers: [QueuedParty] = [], now: Date) -> [Date?] {
        var exits = Heap<Exit>()
        var free = capacity
        for occupant in [traffic.inside, traffic.bookingsDue].joined() {
            exits.insert(Exit(time: max(now, occupant.expectedExit), people: occupant.people))
            free -= occupant.people
        }
        var clock = now
        let total = traffic.queue.count + newcomers.count
        var result: [Date?] = []
        result.reserveCapacity(total)
        // The queue, then the newcomers, without joining the two arrays.
        func enter(_ party: QueuedParty) -> Bool {
            while free < party.people, let exit = exits.popMin() {
                clock = max(clock, exit.time)
                free += exit.people
            }
            guard free >= party.people else { return false }
            result.append(clock)
            free -= party.people
            exits.insert(Exit(time: clock + party.residence * residenceRatio, people: party.people))
            return true
        }
        for party in traffic.queue where !enter(party) {
            result.append(contentsOf: repeatElement(nil, count: total - result.count))
            return result
        }
        for party in newcomers where !enter(party) {
            result.append(contentsOf: repeatElement(nil, count: total - result.count))
            return result
        }
        return result
    }

    /// How long a new party of `people` joining the back of the queue would wait, to the second
    /// (date arithmetic leaves sub-microsecond residue); nil if it could never enter.
    public func waitForNewParty(
        people: Int, residence: TimeInterval = 30 * 60, traffic: StoreTraffic, now: Date
    ) -> TimeInterval? {
        let newcomer = QueuedParty(people: people, residence: residence)
        guard let entry = entryTimes(traffic: traffic, appending: [newcomer], now: now).last ?? nil else { return nil }
        return entry.timeIntervalSince(now).rounded()
    }
}
