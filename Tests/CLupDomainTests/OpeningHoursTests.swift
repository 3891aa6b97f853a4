import Foundation
import Testing

@testable import CLupDomain

@Suite("Opening hours")
struct OpeningHoursTests {
    typealias F = Fixture
    let weekdays = OpeningHours(intervals: Fixture.weekdayHours, timeZone: Fixture.rome)

    @Test("open during the day, until closing time")
    func openDuringTheDay() {
        #expect(weekdays.state(at: F.date(2026, 11, 18, 10)) == .open(until: F.date(2026, 11, 18, 21)))
    }

    @Test("opening is inclusive, closing exclusive")
    func edges() {
        #expect(weekdays.state(at: F.date(2026, 11, 18, 8)).isOpen)
        #expect(weekdays.state(at: F.date(2026, 11, 18, 21)) == .closed(opensAt: F.date(2026, 11, 19, 8)))
    }

    @Test("closed on Saturday night until Monday morning")
    func closedOnSunday() {
        #expect(weekdays.state(at: F.date(2026, 11, 21, 22)) == .closed(opensAt: F.date(2026, 11, 23, 8)))
        #expect(weekdays.state(at: F.date(2026, 11, 22, 12)) == .closed(opensAt: F.date(2026, 11, 23, 8)))
    }

    @Test("hours crossing midnight belong to the day they open")
    func acrossMidnight() {
        let late = OpeningHours(
            intervals: [OpeningInterval(weekday: 3, opens: 7 * 60, closes: 26 * 60)], timeZone: F.rome)
        // Wednesday 23:30 and Thursday 01:30 are both in Wednesday's interval.
        #expect(late.state(at: F.date(2026, 11, 18, 23, 30)) == .open(until: F.date(2026, 11, 19, 2)))
        #expect(late.state(at: F.date(2026, 11, 19, 1, 30)) == .open(until: F.date(2026, 11, 19, 2)))
        // Thursday 02:30: closed, and it opens again next Wednesday.
        #expect(late.state(at: F.date(2026, 11, 19, 2, 30)) == .closed(opensAt: F.date(2026, 11, 25, 7)))
    }

    @Test("back-to-back intervals read as one opening")
    func merged() {
        let hours = OpeningHours(intervals: [
            OpeningInterval(weekday: 3, opens: 18 * 60, closes: 24 * 60),
            OpeningInterval(weekday: 4, opens: 0, closes: 2 * 60),
        ], timeZone: F.rome)
        #expect(hours.state(at: F.date(2026, 11, 18, 20)) == .open(until: F.date(2026, 11, 19, 2)))
    }

    @Test("a lunch break closes the store and says when it reopens")
    func lunchBreak() {
        let hours = OpeningHours(intervals: [
            OpeningInterval(weekday: 3, opens: 8 * 60 + 30, closes: 13 * 60),
            OpeningInterval(weekday: 3, opens: 15 * 60 + 30, closes: 19 * 60 + 30),
        ], timeZone: F.rome)
        #expect(hours.state(at: F.date(2026, 11, 18, 14)) == .closed(opensAt: F.date(2026, 11, 18, 15, 30)))
        #expect(hours.state(at: F.date(2026, 11, 18, 12)) == .open(until: F.date(2026, 11, 18, 13)))
    }

    @Test("hours are read in the store's time zone, wherever the instant comes from")
    func timeZones() {
        let newYorkStore = OpeningHours(intervals: Fixture.weekdayHours, timeZone: F.newYork)
        // 10:00 in Milan is 04:00 in New York: the Milan store is open, the New York one not yet.
        let instant = F.date(2026, 11, 18, 10)
        #expect(weekdays.state(at: instant).isOpen)
        #expect(newYorkStore.state(at: instant) == .closed(opensAt: F.date(2026, 11, 18, 8, in: F.newYork)))
        // 16:00 in Milan is 10:00 in New York: both open.
        #expect(newYorkStore.state(at: F.date(2026, 11, 18, 16)).isOpen)
    }

    @Test("daylight saving: the store still opens at 08:00 local on the day clocks change")
    func daylightSaving() {
        // Sunday 29 March 2026 clocks go forward in Milan; open that Sunday 08:00–13:00.
        let hours = OpeningHours(intervals: [OpeningInterval(weekday: 7, opens: 8 * 60, closes: 13 * 60)],
                                 timeZone: F.rome)
        let opening = F.date(2026, 3, 29, 8)
        #expect(hours.state(at: F.date(2026, 3, 29, 7, 59)) == .closed(opensAt: opening))
        #expect(hours.state(at: opening) == .open(until: F.date(2026, 3, 29, 13)))
        #expect(F.date(2026, 3, 29, 13).timeIntervalSince(opening) == 5 * 3600)
    }

    @Test("a store with no hours is closed with no next opening")
    func neverOpen() {
        let hours = OpeningHours(intervals: [], timeZone: F.rome)
        #expect(hours.state(at: F.wednesdayMorning) == .closed(opensAt: nil))
    }

    @Test("intervals are validated")
    func validity() {
        #expect(OpeningInterval(weekday: 1, opens: 480, closes: 1260).isValid)
        #expect(OpeningInterval(weekday: 1, opens: 420, closes: 1560).isValid)
        #expect(!OpeningInterval(weekday: 0, opens: 480, closes: 1260).isValid)
        #expect(!OpeningInterval(weekday: 1, opens: 600, closes: 600).isValid)
        #expect(!OpeningInterval(weekday: 1, opens: 60, closes: 1600).isValid)
    }

    @Test("ISO weekdays from Foundation's", arguments: zip(1...7, [7, 1, 2, 3, 4, 5, 6]))
    func isoWeekday(foundation: Int, iso: Int) {
        #expect(OpeningHours.isoWeekday(foundation) == iso)
    }

    @Test("a closed day closes its openings, the one running past midnight too, and leaves the next day alone")
    func closedDay() throws {
        let thursday = try #require(LocalDate(text: "2026-11-19")).day
        // Every day 07:00–02:00; Thursday closed.
        let late = OpeningHours(intervals: (1...7).map { OpeningInterval(weekday: $0, opens: 7 * 60, closes: 26 * 60) },
                                timeZone: F.rome, closedDays: [thursday])
        // Wednesday night runs into Thursday as usual…
        #expect(late.state(at: F.date(2026, 11, 19, 1, 30)) == .open(until: F.date(2026, 11, 19, 2)))
        // …then the store stays closed through Thursday and its small hours, until Friday 07:00.
        #expect(late.state(at: F.date(2026, 11, 19, 12)) == .closed(opensAt: F.date(2026, 11, 20, 7)))
        #expect(late.state(at: F.date(2026, 11, 20, 1)) == .closed(opensAt: F.date(2026, 11, 20, 7)))
        #expect(late.intervals(on: F.date(2026, 11, 19, 12)).isEmpty)
        #expect(late.intervals(on: F.date(2026, 11, 20, 12)).count == 1)
        let calendar = SlotCalendar(hours: late, slotMinutes: 30)
        #expect(calendar.slots(localDay: thursday, now: F.date(2026, 11, 18, 12)).isEmpty)
        #expect(calendar.slots(localDay: thursday + 1, now: F.date(2026, 11, 18, 12)).count == 38)
    }

    @Test("special hours replace their day's and no other: an early closing, a late one, a closed day winning")
    func specialDay() throws {
        let eve = try #require(LocalDate(text: "2026-12-24")).day  // a Thursday
        // Every day 08:00–20:00; Christmas Eve 08:00–14:00, and New Year's Eve open late.
        let week = (1...7).map { OpeningInterval(weekday: $0, opens: 8 * 60, closes: 20 * 60) }
        let hours = OpeningHours(intervals: week, timeZone: F.rome, specialDays: [
            eve: [OpeningInterval(weekday: 4, opens: 8 * 60, closes: 14 * 60)],
            eve + 7: [OpeningInterval(weekday: 4, opens: 8 * 60, closes: 25 * 60)],
        ])
        #expect(hours.state(at: F.date(2026, 12, 24, 13)) == .open(until: F.date(2026, 12, 24, 14)))
        #expect(hours.state(at: F.date(2026, 12, 24, 15)) == .closed(opensAt: F.date(2026, 12, 25, 8)))
        #expect(hours.state(at: F.date(2026, 12, 23, 19)) == .open(until: F.date(2026, 12, 23, 20)))
        #expect(hours.state(at: F.date(2027, 1, 1, 0, 30)) == .open(until: F.date(2027, 1, 1, 1)))
        #expect(hours.businessDay(at: F.date(2027, 1, 1, 0, 30)) == eve + 7)
        #expect(hours.hasSpecialHours(localDay: eve) && !hours.hasSpecialHours(localDay: eve + 1))
        let calendar = SlotCalendar(hours: hours, slotMinutes: 60)
        #expect(calendar.slots(localDay: eve, now: F.date(2026, 12, 20, 12)).count == 6)
        #expect(calendar.slots(localDay: eve - 1, now: F.date(2026, 12, 20, 12)).count == 12)
        // Closed wins over special hours the same day.
        var closed = hours
        closed.closedDays = [eve]
        #expect(closed.intervals(localDay: eve).isEmpty)
        #expect(closed.state(at: F.date(2026, 12, 24, 10)) == .closed(opensAt: F.date(2026, 12, 25, 8)))
        // A day's special openings against the nights either side: New Year's Eve runs to 01:00.
        let early = [OpeningInterval(weekday: 5, opens: 0, closes: 12 * 60)]
        #expect(hours.nightClash(early, localDay: eve + 8) == .eveningBefore(closes: 25 * 60))
        #expect(hours.nightClash([OpeningInterval(weekday: 5, opens: 60, closes: 12 * 60)], localDay: eve + 8) == nil)
        let late = [OpeningInterval(weekday: 3, opens: 8 * 60, closes: 33 * 60)]
        #expect(hours.nightClash(late, localDay: eve - 1) == .nextMorning(opens: 8 * 60))
        #expect(hours.nightClash([], localDay: eve) == nil)
    }

    @Test("a local date reads and writes as year-month-day, as the calendar counts days")
    func localDates() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let epoch = Date(timeIntervalSince1970: 0)
        // Every day from 1900 to 2100, against Foundation's calendar.
        for day in stride(from: -25_567, through: 47_482, by: 1) {
            let date = calendar.date(byAdding: .day, value: day, to: epoch)!
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            let local = LocalDate(day: day)
            guard local.components == (parts.year!, parts.month!, parts.day!),
                  local.weekday == OpeningHours.isoWeekday(parts.weekday!), LocalDate(text: local.text) == local
            else {
                Issue.record("day \(day): \(local.text), expected \(parts)")
                return
            }
        }
        #expect(LocalDate(text: "2026-12-25")?.text == "2026-12-25")
        #expect(LocalDate(text: "2028-02-29") != nil)
        for wrong in ["2026-02-29", "2026-13-01", "2026-1-05", "26-01-05", "2026-01-05x", "", "2026-04-31"] {
            #expect(LocalDate(text: wrong) == nil, "\(wrong)")
        }
    }

    @Test("the business day: past midnight in a late opening it is still the evening's; after closing, the new day")
    func businessDay() throws {
        let wednesday = try #require(LocalDate(text: "2026-11-18")).day
        let late = OpeningHours(intervals: [OpeningInterval(weekday: 3, opens: 18 * 60, closes: 26 * 60)], timeZone: F.rome)
        #expect(late.businessDay(at: F.date(2026, 11, 18, 23)) == wednesday)
        #expect(late.businessDay(at: F.date(2026, 11, 19, 1, 59)) == wednesday)
        #expect(late.businessDay(at: F.date(2026, 11, 19, 2)) == wednesday + 1)
        #expect(weekdays.businessDay(at: F.date(2026, 11, 19, 1)) == wednesday + 1)
        // A closed Wednesday has no late opening to run into Thursday.
        let closed = OpeningHours(intervals: late.intervals, timeZone: F.rome, closedDays: [wednesday])
        #expect(closed.businessDay(at: F.date(2026, 11, 19, 1)) == wednesday + 1)
    }
}
