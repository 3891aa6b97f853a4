import Foundation

/// How the customer travels to the store (R5.1); changeable at any time (R5.2).
public enum TravelMode: String, Sendable, CaseIterable, Codable {
    /// The farthest a travel is counted from, in metres (a line-up's `travelMetres` is at most
    /// this): a shopper measuring from another continent waits as if 1,000 km away.
    public static let longestMetres = 1_000_000

    case walking
    case car
    case transit

    /// Travel time without a routing service (none is reachable offline): the straight-line
    /// distance lengthened by a detour factor for city streets, covered at a typical urban
    /// speed, plus a fixed overhead (parking; walking to the stop and waiting).
    ///
    /// The figures are averages for Milan and are deliberately conservative: telling a
    /// customer to leave a little early costs less than a missed turn.
    public func travelTime(metres: Double) -> TimeInterval {
        let parameters = self.parameters
        let seconds = metres * parameters.detour / (parameters.kilometresPerHour / 3.6)
        return seconds + parameters.overhead
    }

    /// A line-up's travel time, to the second: what its ticket keeps.
    public static func travel(mode: TravelMode, metres: Int) -> TimeInterval {
        mode.travelTime(metres: Double(metres)).rounded()
    }

    private var parameters: (detour: Double, kilometresPerHour: Double, overhead: TimeInterval) {
        switch self {
        case .walking: (1.3, 4.8, 0)
        case .car: (1.4, 22, 5 * 60)
        case .transit: (1.3, 16, 7 * 60)
        }
    }
}
