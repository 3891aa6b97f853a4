import Foundation
import CLupDomain

/// Fixed instants the domain suites share. Time is always pinned: rules are tested by moving
/// the clock, never by sleeping.
enum Fixture {
    static let rome = TimeZone(identifier: "Europe/Rome")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// A local wall-clock time in `zone`.
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0,
                     in zone: TimeZone = rome) -> Date
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    /// Wednesday 18 November 2026, 10:00 in Milan.
    static let wednesdayMorning = date(2026, 11, 18, 10)

    /// Mon–Sat 08:00–21:00.
    static let weekdayHours = (1...6).map { OpeningInterval(weekday: $0, opens: 8 * 60, closes: 21 * 60) }
}
