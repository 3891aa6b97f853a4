import Foundation

/// How many reservations one account may make in an hour. One is active at a time; a real
/// customer changes their mind a few times, not dozens: lining up and cancelling in a loop
/// must flood neither a store's queue (every line-up is called in turn) nor the account's own
/// inbox (every cancellation is a notice).
public enum ReservationRate {
    public static let perHour = 10

    /// When the account may make its next reservation, given when it made its latest ones
    /// (newest first; the first `perHour` are enough), or nil if it may now.
    public static func retryAt(latest: [Date], now: Date) -> Date? {
        guard latest.count >= perHour else { return nil }
        let freed = latest[perHour - 1] + 3600
        return freed > now ? freed : nil
    }
}
