import Foundation

/// A store's status as a traffic light (RASD §2.2.1): green when a new ticket waits under an
/// hour, yellow from one to two hours, red from two hours, when closed, or when the store
/// closes before a new ticket could be served and shopped.
public enum TrafficLight: String, Sendable, Equatable {
    case green
    case yellow
    case red

    /// The shortest visit a customer can declare: a store closing sooner after the expected
    /// entry cannot serve a new ticket.
    public static let shortestVisit: TimeInterval = 15 * 60
    public static let yellowFrom: TimeInterval = 60 * 60
    public static let redFrom: TimeInterval = 2 * 60 * 60

    /// Why the light shows what it shows, in words a shopper reads at a glance.
    public enum Reason: Sendable, Equatable {
        case shortWait, mediumWait, longWait, closed, closingSoon, full
    }

    /// The light and its reason for a store in `openState` where a new ticket would wait `wait`
    /// (nil: it could never enter).
    public static func evaluate(wait: TimeInterval?, openState: OpenState, now: Date) -> (TrafficLight, Reason) {
        guard case .open(let closes) = openState else { return (.red, .closed) }
        guard let wait else { return (.red, .full) }
        if wait >= redFrom { return (.red, .longWait) }
        if now.addingTimeInterval(wait + shortestVisit) > closes { return (.red, .closingSoon) }
        if wait >= yellowFrom { return (.yellow, .mediumWait) }
        return (.green, .shortWait)
    }
}
