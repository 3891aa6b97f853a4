import CLupData
import CLupDomain
import CLupText
import Foundation

/// How numbers and times are written on pages: short, unambiguous, 24-hour clock.
enum Formatting {
    /// "450 m", "2.3 km", "12 km".
    static func distance(metres: Double) -> String {
        if metres < 950 { return "\(Int((metres / 50).rounded()) * 50) m" }
        let kilometres = metres / 1000
        if kilometres < 10 { return Numbers.decimal(NumberText.fixed(kilometres, digits: 1)) + " km" }
        return "\(Int(kilometres.rounded())) km"
    }

    /// "4 min", "1 h 05 min", "2 h"; rounded up to the minute, since a wait is never shorter
    /// than promised.
    static func duration(_ interval: TimeInterval) -> String {
        let minutes = max(0, Int((interval / 60).rounded(.up)))
        if minutes < 60 { return "\(minutes) min" }
        let rest = minutes % 60
        return rest == 0 ? "\(minutes / 60) h" : "\(minutes / 60) h \(NumberText.twoDigits(rest)) min"
    }

    /// "under 1 min" or an approximate duration: it reads after a label ("Wait under 1 min",
    /// "Estimated wait: about 25 min", "wait about 25 min").
    static func wait(_ interval: TimeInterval?) -> String {
        guard let interval else { return tr("wait.notTaking") }
        return interval < 60 ? tr("wait.underMinute") : tr("wait.about", ["time": duration(interval)])
    }

    /// The wait as the range it falls in four times in five ("12–18 min", "50 min–1 h 10 min"),
    /// or as `wait(_:)` says it when there is no range or it is under two minutes wide.
    static func wait(_ interval: TimeInterval?, range: ClosedRange<TimeInterval>?) -> String {
        guard let interval, interval >= 60, let range else { return wait(interval) }
        let low = max(0, Int((range.lowerBound / 60).rounded(.down)))
        let high = max(low, Int((range.upperBound / 60).rounded(.up)))
        guard high - low >= 2 else { return wait(interval) }
        let from = high < 60 ? String(low) : duration(Double(low) * 60)
        return tr("wait.range", ["from": from, "to": duration(Double(high) * 60)])
    }

    /// "21:00", "tomorrow 08:00", or "Tue 08:00" when further: `date` as read on the store's
    /// clock, relative to `now`.
    static func clock(_ date: Date, now: Date, timeZone: TimeZone) -> String {
        let (time, day, later) = local(date, now: now, timeZone: timeZone)
        switch later {
        case 0: return time
        case 1: return tr("day.tomorrowAt", ["time": time])
        default: return weekdayShort(ZoneOffsets.isoWeekday(day: day)) + " " + time
        }
    }

    /// `date` on the store's clock ("08:30"), its store-local day, and how many days after
    /// `now`'s that is.
    private static func local(_ date: Date, now: Date, timeZone: TimeZone) -> (time: String, day: Int, later: Int) {
        let offsets = ZoneOffsets.table(for: timeZone, around: now)
        let (day, second) = offsets.localDay(date)
        return (NumberText.clock(hours: second / 3600, minutes: second % 3600 / 60), day, day - offsets.localDay(now).day)
    }

    /// "at 10:40", "tomorrow at 00:30" or "Fri at 09:00": when something happens, as a sentence
    /// says it ("Your visit … tomorrow at 00:30", never "at tomorrow 00:30").
    static func at(_ date: Date, now: Date, timeZone: TimeZone) -> String {
        let (time, day, later) = local(date, now: now, timeZone: timeZone)
        switch later {
        case 0: return tr("when.at", ["time": time])
        case 1: return tr("when.tomorrowAt", ["time": time])
        default: return tr("when.dayAt", ["day": weekdayShort(ZoneOffsets.isoWeekday(day: day)), "time": time])
        }
    }

    /// "08:00–13:00, 15:00–20:00" or "Closed".
    static func intervals(_ intervals: [OpeningInterval]) -> String {
        guard !intervals.isEmpty else { return tr("hours.closed") }
        return intervals.map { "\(OpeningHours.clockText($0.opens))–\(OpeningHours.clockText($0.closes))" }
            .joined(separator: ", ")
    }
}

extension Formatting {
    /// "today", "tomorrow", or "Fri 20 Nov": the store-local day of `date`, relative to `now`.
    static func day(_ date: Date, now: Date, timeZone: TimeZone) -> String {
        let offsets = ZoneOffsets.table(for: timeZone, around: now)
        switch offsets.localDay(date).day - offsets.localDay(now).day {
        case 0: return tr("day.today")
        case 1: return tr("day.tomorrow")
        default:
            let local = LocalDate(day: offsets.localDay(date).day)
            let (_, month, dayOfMonth) = local.components
            return weekdayShort(local.weekday) + " " + String(dayOfMonth) + " " + tr("month.short.\(month)")
        }
    }

    /// A store's hours on local day `day`: "08:00–21:00", "Closed", "Closed: Christmas" on a
    /// day it stays closed, or "08:00–14:00 (Christmas Eve)" on a day with hours of its own.
    static func hours(of store: StoreBoard.Definition, localDay day: Int) -> String {
        guard store.openingHours.isClosed(localDay: day) else {
            let hours = intervals(store.openingHours.intervals(localDay: day))
            guard let special = store.specialHours.first(where: { $0.day == day }), !special.reason.isEmpty else { return hours }
            return tr("hours.specialFor", ["hours": hours, "reason": special.reason])
        }
        let reason = store.closures.first { $0.day == day }?.reason ?? ""
        return reason.isEmpty ? tr("hours.closed") : tr("hours.closedFor", ["reason": reason])
    }

    /// "Fri 25 Dec 2026": a calendar date (a day the store closes).
    static func date(_ date: LocalDate) -> String {
        let (year, month, day) = date.components
        return weekdayShort(date.weekday) + " \(day) " + tr("month.short.\(month)") + " \(year)"
    }

    /// "Monday", "lunedì": ISO weekday 1–7.
    static func weekday(_ weekday: Int) -> String { tr("weekday.\(weekday)") }

    /// "Mon", "lun".
    static func weekdayShort(_ weekday: Int) -> String { tr("weekday.short.\(weekday)") }

    /// "14:30" on the store's clock.
    static func time(_ date: Date, timeZone: TimeZone, now: Date) -> String {
        let second = ZoneOffsets.table(for: timeZone, around: now).localDay(date).second
        return NumberText.clock(hours: second / 3600, minutes: second % 3600 / 60)
    }

    /// "tomorrow, 14:30–14:45".
    static func slot(_ slot: Slot, now: Date, timeZone: TimeZone) -> String {
        "\(day(slot.start, now: now, timeZone: timeZone)), \(time(slot.start, timeZone: timeZone, now: now))–"
            + time(slot.end, timeZone: timeZone, now: now)
    }

    /// "today at 10:05", "Fri 20 Nov at 14:30".
    static func moment(_ date: Date, now: Date, timeZone: TimeZone) -> String {
        tr("moment", ["day": day(date, now: now, timeZone: timeZone), "time": time(date, timeZone: timeZone, now: now)])
    }

    /// A maintenance window's start and end, as its texts fill them: "tomorrow at 02:00" and
    /// "04:00" (or the end's day too when it is another one).
    static func span(_ window: MaintenanceWindow, now: Date) -> (from: String, until: String) {
        let zone = window.zone
        let offsets = ZoneOffsets.table(for: zone, around: window.startsAt)
        let sameDay = offsets.localDay(window.startsAt).day == offsets.localDay(window.endsAt - 1).day
        return (moment(window.startsAt, now: now, timeZone: zone),
                sameDay ? time(window.endsAt, timeZone: zone, now: now) : moment(window.endsAt, now: now, timeZone: zone))
    }

    /// "an hour", "a day", "30 days", "a year": a period stated in a policy.
    static func period(_ interval: TimeInterval) -> String {
        let hours = Int(interval / 3600)
        if hours < 24 { return tr("period.hours", count: hours) }
        let days = hours / 24
        if days % 365 == 0 { return tr("period.years", count: days / 365) }
        return tr("period.days", count: days)
    }

    /// "1 place left", "7 places left".
    static func placesLeft(_ count: Int) -> String {
        tr("placesLeft", count: count)
    }

    /// "1 person", "2 people".
    static func people(_ count: Int) -> String {
        tr("people", count: count)
    }
}
