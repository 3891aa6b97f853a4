import Foundation

/// A store's live situation for a shopper deciding where to go: open or not, people inside,
/// how long a new ticket would wait, and the traffic light that sums it up.
public struct StoreStatus: Sendable, Equatable {
    public var openState: OpenState
    public var peopleInside: Int
    public var capacity: Int
    /// Wait for a new party of one with the default visit; nil if it could never enter.
    public var wait: TimeInterval?
    /// The range that wait falls in four times in five (nil: no range worked out).
    public var waitRange: ClosedRange<TimeInterval>?
    public var light: TrafficLight
    public var reason: TrafficLight.Reason

    /// The visit length assumed for "how long would I wait" when nobody has said yet.
    public static let typicalVisit: TimeInterval = 30 * 60

    /// A status from a newcomer's `wait` already worked out (nil: could never enter).
    public init(capacity: Int, hours: OpeningHours, peopleInside: Int, wait: TimeInterval?,
                waitRange: ClosedRange<TimeInterval>? = nil, now: Date) {
        openState = hours.state(at: now)
        self.peopleInside = peopleInside
        self.capacity = capacity
        self.wait = wait
        self.waitRange = wait == nil ? nil : waitRange
        (light, reason) = TrafficLight.evaluate(wait: wait, openState: openState, now: now)
    }

    /// `estimator` decides the wait (by default: the whole capacity, no history correction).
    public init(capacity: Int, hours: OpeningHours, traffic: StoreTraffic, estimator: WaitEstimator? = nil, now: Date) {
        let estimator = estimator ?? WaitEstimator(capacity: capacity)
        self.openState = hours.state(at: now)
        self.peopleInside = traffic.peopleInside
        self.capacity = capacity
        self.wait = estimator.waitForNewParty(people: 1, residence: Self.typicalVisit, traffic: traffic, now: now)
        (self.light, self.reason) = TrafficLight.evaluate(wait: wait, openState: openState, now: now)
    }
}
