import Foundation

/// Failed sign-ins in the last hour, oldest first.
public struct SignInHistory: Sendable, Equatable {
    /// For the address typed, from this client.
    public var pair: [Date]
    /// For the address typed, from any client.
    public var account: [Date]
    /// From this client, for any address.
    public var client: [Date]

    public init(pair: [Date] = [], account: [Date] = [], client: [Date] = []) {
        self.pair = pair
        self.account = account
        self.client = client
    }
}

/// When the next sign-in attempt may be made, given recent failures.
///
/// - From one client for one address: 5 failures in 15 minutes are free; then each attempt
///   must wait 30 s after the last failure, doubling with each further failure, at most 15 min.
/// - From one client for any address: after 50 failures in 15 minutes, 60 s between attempts
///   (one machine trying many accounts).
/// - For one address from anywhere: never more than 100 failures an hour.
///
/// Delays are keyed by client so an attacker elsewhere cannot lock the owner out; only the
/// hourly cap applies across clients, lasts an hour at most, and a password reset clears it.
/// Unknown addresses are throttled exactly like known ones, so throttling reveals nothing.
public enum SignInThrottle {
    public static let memory: TimeInterval = 3600
    public static let window: TimeInterval = 15 * 60
    public static let freeFailures = 5
    public static let firstDelay: TimeInterval = 30
    public static let longestDelay: TimeInterval = 15 * 60
    public static let clientLimit = 50
    public static let clientDelay: TimeInterval = 60
    public static let accountHourlyLimit = 100

    /// Seconds to wait before another attempt is allowed, or nil if one is allowed now.
    public static func wait(history: SignInHistory, now: Date) -> TimeInterval? {
        var until = now
        let recentPair = history.pair.filter { $0 > now - window }
        if recentPair.count >= freeFailures, let last = recentPair.last {
            let doublings = Double(recentPair.count - freeFailures)
            until = max(until, last + min(longestDelay, firstDelay * pow(2, doublings)))
        }
        let recentClient = history.client.filter { $0 > now - window }
        if recentClient.count >= clientLimit, let last = recentClient.last {
            until = max(until, last + clientDelay)
        }
        let lastHour = history.account.filter { $0 > now - memory }
        if lastHour.count >= accountHourlyLimit {
            // Allowed again when enough of them are an hour old.
            until = max(until, lastHour[lastHour.count - accountHourlyLimit] + memory)
        }
        let wait = until.timeIntervalSince(now)
        return wait > 0 ? wait.rounded(.up) : nil
    }
}
