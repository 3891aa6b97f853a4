import Foundation

/// Where a kept hour falls in the store's own time: its local day (days since 1970) and hour.
/// Hours are kept in UTC; in a whole-hour zone each is exactly one local hour, daylight saving
/// time included (a half-hour zone's hours are read as the local hour they start in).
public func localHour(_ hour: Int, in zone: TimeZone) -> (day: Int, hour: Int) {
    LocalHours(zone: zone, from: hour, to: hour).local(hour)
}

/// `localHour` for many hours of a range: the zone's offsets are looked up once per change
/// (a few daylight-saving transitions), not once per hour.
public struct LocalHours: Sendable {
    /// UTC hours where an offset starts, and the offset in seconds; the first covers `from`.
    private var changes: [(hour: Int, offset: Int)]

    public init(zone: TimeZone, from: Int, to: Int) {
        var cursor = Date(timeIntervalSince1970: Double(from) * 3600)
        changes = [(from, zone.secondsFromGMT(for: cursor))]
        let end = Double(to + 1) * 3600
        while let transition = zone.nextDaylightSavingTimeTransition(after: cursor),
            transition.timeIntervalSince1970 < end
        {
            changes.append((Int((transition.timeIntervalSince1970 / 3600).rounded(.down)), zone.secondsFromGMT(for: transition)))
            cursor = transition
        }
    }

    public func local(_ hour: Int) -> (day: Int, hour: Int) {
        let offset = changes.last { $0.hour <= hour }?.offset ?? changes[0].offset
        let local = hour * 3600 + offset
        let day = Int((Double(local) / 86_400).rounded(.down))
        return (day, (local - day * 86_400) / 3600)
    }
}

/// How busy a store usually is, for shoppers (R7): for each weekday and hour, the people
/// usually inside and the usual wait, from the last weeks' kept hours. Anonymous by
/// construction — sums over hours — and a weekday-hour with fewer than `minimumVisits` visits
/// in the window is not shown at all.
public struct PopularTimes: Sendable, Equatable {
    public struct Cell: Sendable, Equatable {
        /// Visits that began in this weekday-hour over the window.
        public var visits: Int
        /// People usually inside (averaged over the window's weeks); nil when too few visits.
        public var inside: Double?
        /// The usual wait from ticket to entry; nil when too few line-ups.
        public var wait: TimeInterval?
    }

    public static let minimumVisits = 5
    /// How far back the usual is taken from.
    public static let weeks = 8

    /// `cells[weekday - 1][hour]`, ISO weekdays (1 = Monday), hours 0–47: the small hours of
    /// an opening that runs past midnight belong to the evening's weekday, as hours 24 and on.
    public var cells: [[Cell]]
    /// The usual visit length, from visits scanned in and out; nil when too few.
    public var typicalVisit: TimeInterval?

    /// From the store's hours over the last weeks. A weekday's usual is the average over the
    /// days of that weekday with visits in the window (a store open for three weeks is not
    /// averaged over eight). `weekly`: the store's hours, to give its small hours to the
    /// evening they belong to.
    public init(hours: [HourTotals], zone: TimeZone, weekly: [OpeningInterval] = []) {
        var sums = Array(repeating: Array(repeating: HourTotals(hour: 0), count: 48), count: 7)
        var days = Array(repeating: Set<Int>(), count: 7)
        var visit = HourTotals(hour: 0)
        let clock = LocalHours(zone: zone, from: hours.first?.hour ?? 0, to: hours.last?.hour ?? 0)
        for totals in hours {
            var (day, hour) = clock.local(totals.hour)
            if Self.isLate(hour: hour, after: ZoneOffsets.isoWeekday(day: day - 1), in: weekly) {
                day -= 1
                hour += 24
            }
            let weekday = ZoneOffsets.isoWeekday(day: day)
            sums[weekday - 1][hour].add(totals)
            if totals.entries > 0 { days[weekday - 1].insert(day) }
            visit.add(totals)
        }
        cells = zip(sums, days).map { day, seen in
            day.map { totals in
                let visits = Int(totals.entries)
                let shown = visits >= Self.minimumVisits
                return Cell(
                    visits: visits, inside: shown ? totals.personSeconds / 3600 / Double(max(1, seen.count)) : nil,
                    wait: shown && totals.waitCount >= Double(Self.minimumVisits)
                        ? totals.waitSeconds / totals.waitCount : nil)
            }
        }
        typicalVisit = visit.exits >= Double(Self.minimumVisits) ? visit.actualSeconds / visit.exits : nil
    }

    /// Whether local hour `hour` (0–23) is within an opening of `weekday` that runs past its
    /// midnight into the next day.
    public static func isLate(hour: Int, after weekday: Int, in weekly: [OpeningInterval]) -> Bool {
        weekly.contains { $0.weekday == weekday && $0.closes > 1440 && $0.opens <= hour * 60 + 1440 && hour * 60 + 1440 < $0.closes }
    }

    public func cell(weekday: Int, hour: Int) -> Cell { cells[weekday - 1][hour] }

    /// The quietest shown hours from `fromHour` on, among `openHours` of `weekday`: up to
    /// `count`, quietest first (ties: earlier first).
    public func bestHours(weekday: Int, from fromHour: Int, openHours: [Int], count: Int = 3) -> [Int] {
        openHours.filter { $0 >= fromHour }
            .compactMap { hour in cell(weekday: weekday, hour: hour).inside.map { (hour, $0) } }
            .sorted { ($0.1, $0.0) < ($1.1, $1.0) }
            .prefix(count).map(\.0)
    }
}

/// A store's figures over a range of local days, for its manager.
public struct StoreReport: Sendable, Equatable {
    public struct Day: Sendable, Equatable {
        /// Local day (days since 1970).
        public var day: Int
        public var totals: HourTotals
    }

    public struct HourOfDay: Sendable, Equatable {
        public var hour: Int
        /// People inside on average in this hour over the range's days.
        public var averageInside: Double
        /// The most inside at once in this hour on any day of the range.
        public var peakInside: Double
    }

    public var days: [Day]
    public var hoursOfDay: [HourOfDay]
    public var total: HourTotals

    /// `hours` are the store's kept hours covering local days `firstDay...lastDay`.
    public init(hours: [HourTotals], zone: TimeZone, firstDay: Int, lastDay: Int) {
        var byDay = Dictionary(uniqueKeysWithValues: (firstDay...max(firstDay, lastDay)).map { ($0, HourTotals(hour: 0)) })
        var byHour = Array(repeating: HourTotals(hour: 0), count: 24)
        var total = HourTotals(hour: 0)
        let clock = LocalHours(zone: zone, from: hours.first?.hour ?? 0, to: hours.last?.hour ?? 0)
        for totals in hours {
            let (day, hour) = clock.local(totals.hour)
            guard day >= firstDay, day <= lastDay else { continue }
            byDay[day]?.add(totals)
            byHour[hour].add(totals)
            total.add(totals)
        }
        let dayCount = Double(max(1, lastDay - firstDay + 1))
        days = byDay.keys.sorted().map { Day(day: $0, totals: byDay[$0]!) }
        hoursOfDay = byHour.enumerated().map { hour, totals in
            HourOfDay(hour: hour, averageInside: totals.personSeconds / 3600 / dayCount, peakInside: totals.peakInside)
        }
        self.total = total
    }
}

extension HourTotals {
    /// Average seconds from ticket to entry, from ticket to call, from call to entry; the
    /// average declared and actual visit; nil where nothing was measured.
    public var averageWait: TimeInterval? { waitCount > 0 ? waitSeconds / waitCount : nil }
    /// Of priority tickets, and of the other line-ups and walk-in tickets.
    public var averagePriorityWait: TimeInterval? { priorityEntries > 0 ? priorityWaitSeconds / priorityEntries : nil }
    public var averageOtherWait: TimeInterval? {
        waitCount > priorityEntries ? (waitSeconds - priorityWaitSeconds) / (waitCount - priorityEntries) : nil
    }
    public var averageCallWait: TimeInterval? { calls > 0 ? callSeconds / calls : nil }
    public var averageDoorTime: TimeInterval? { doorCount > 0 ? doorSeconds / doorCount : nil }
    public var averageDeclared: TimeInterval? { exits > 0 ? declaredSeconds / exits : nil }
    public var averageActual: TimeInterval? { exits > 0 ? actualSeconds / exits : nil }
}
