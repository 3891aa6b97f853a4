import Foundation

/// One opening interval on one day of the week, in the store's local time.
///
/// `closes` may pass midnight (a store open 07:00–02:00 has `closes` = 26 × 60), so an
/// interval always belongs to the day it opens on.
public struct OpeningInterval: Sendable, Hashable, Codable {
    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var weekday: Int
    /// Minutes after local midnight, 0..<1440.
    public var opens: Int
    /// Minutes after the opening day's midnight, greater than `opens`, at most `opens` + 1440.
    public var closes: Int

    public init(weekday: Int, opens: Int, closes: Int) {
        self.weekday = weekday
        self.opens = opens
        self.closes = closes
    }

    public var isValid: Bool {
        (1...7).contains(weekday) && (0..<1440).contains(opens) && closes > opens && closes <= opens + 1440
    }
}

/// Whether a store is open at an instant, and until or from when.
public enum OpenState: Sendable, Equatable {
    case open(until: Date)
    case closed(opensAt: Date?)

    public var isOpen: Bool {
        if case .open = self { return true }
        return false
    }
}

/// A store's weekly opening hours, evaluated in the store's own time zone, so that hours
/// crossing midnight and daylight-saving changes come out right wherever the server runs.
///
/// A closed day (a holiday) removes the intervals that open on it, so a closing day's late
/// opening that runs past midnight is closed whole, and the next day's hours are untouched.
/// A special day (an early closing on Christmas Eve) replaces its weekday's intervals with
/// its own, in the same way; a day both closed and special stays closed.
public struct OpeningHours: Sendable, Hashable {
    public var intervals: [OpeningInterval]
    public var timeZone: TimeZone
    /// Local day numbers (days since 1970-01-01 on the store's clock) the store stays closed,
    /// whatever its weekly hours say; in order.
    public var closedDays: [Int]
    /// The intervals that open on a local day in place of its weekday's, by day.
    public var specialDays: [Int: [OpeningInterval]]

    public init(intervals: [OpeningInterval], timeZone: TimeZone, closedDays: [Int] = [],
                specialDays: [Int: [OpeningInterval]] = [:])
    {
        self.closedDays = closedDays.sorted()
        self.specialDays = specialDays.mapValues { $0.sorted(by: Self.precedes) }
        // Intervals already in order are kept as given, so stores that share one week of hours
        // share its storage too (a sorted copy per store was 200 bytes each).
        let inOrder = zip(intervals, intervals.dropFirst()).allSatisfy(Self.precedes)
        self.intervals = inOrder ? intervals : intervals.sorted(by: Self.precedes)
        self.timeZone = timeZone
    }

    private static func precedes(_ first: OpeningInterval, _ second: OpeningInterval) -> Bool {
        (first.weekday, first.opens) < (second.weekday, second.opens)
    }

    /// Open or closed at `instant`; when open, until when (a run of back-to-back intervals
    /// counts as one); when closed, the next opening within a week, if any.
    public func state(at instant: Date) -> OpenState {
        let occurrences = self.occurrences(around: instant)
        if var current = occurrences.first(where: { $0.start <= instant && instant < $0.end }) {
            // Merge intervals that touch, e.g. 18:00–24:00 followed by 00:00–02:00.
            for next in occurrences where next.start <= current.end && next.end > current.end {
                current.end = next.end
            }
            return .open(until: current.end)
        }
        return .closed(opensAt: occurrences.first(where: { $0.start > instant })?.start)
    }

    /// ISO weekday of `instant` in the store's zone.
    public func weekday(at instant: Date) -> Int {
        ZoneOffsets.isoWeekday(day: ZoneOffsets.table(for: timeZone, around: instant).localDay(instant).day)
    }

    /// The intervals that open on the local day containing `instant` (none on a closed day).
    public func intervals(on instant: Date) -> [OpeningInterval] {
        let day = ZoneOffsets.table(for: timeZone, around: instant).localDay(instant).day
        return intervals(localDay: day)
    }

    /// The intervals that open on local day `day`: its special hours if it has them, else its
    /// weekday's; none if the day is closed.
    public func intervals(localDay day: Int) -> [OpeningInterval] {
        if isClosed(localDay: day) { return [] }
        return specialDays[day] ?? intervals(weekday: ZoneOffsets.isoWeekday(day: day))
    }

    /// How openings for local day `day` would run into the nights either side, as they stand.
    public enum NightClash: Sendable, Equatable {
        /// The evening before is open until `closes` (minutes after that evening's midnight),
        /// past the first opening.
        case eveningBefore(closes: Int)
        /// The last opening runs past midnight beyond the next day's first, at `opens`.
        case nextMorning(opens: Int)
    }

    /// Whether `openings` (one day's, in order) would overlap the evening before running past
    /// midnight or the next day's first opening; nil if they fit.
    public func nightClash(_ openings: [OpeningInterval], localDay day: Int) -> NightClash? {
        guard let first = openings.first, let last = openings.last else { return nil }
        if let night = intervals(localDay: day - 1).map(\.closes).max(), night - 1440 > first.opens {
            return .eveningBefore(closes: night)
        }
        if last.closes > 1440, let next = intervals(localDay: day + 1).map(\.opens).min(), last.closes - 1440 > next {
            return .nextMorning(opens: next)
        }
        return nil
    }

    /// Whether local day `day` keeps hours of its own rather than its weekday's.
    public func hasSpecialHours(localDay day: Int) -> Bool {
        specialDays[day] != nil
    }

    /// The store's business day at `instant`: the local day whose opening holds it. Past
    /// midnight in an opening that began the evening before, that is still the evening's day,
    /// so its tickets keep their numbers and stay in the queue until the store closes.
    public func businessDay(at instant: Date) -> Int {
        let local = ZoneOffsets.table(for: timeZone, around: instant).localDay(instant)
        let minute = local.second / 60 + 1440  // on the day before's clock
        let lateOpening = intervals(localDay: local.day - 1).contains { $0.opens <= minute && minute < $0.closes }
        return lateOpening ? local.day - 1 : local.day
    }

    /// Whether local day `day` is one the store stays closed.
    public func isClosed(localDay day: Int) -> Bool {
        // Few, and in order: a binary search would not pay.
        closedDays.contains(day)
    }

    /// The intervals of one ISO weekday.
    public func intervals(weekday: Int) -> [OpeningInterval] {
        intervals.filter { $0.weekday == weekday }
    }

    /// Concrete occurrences from the day before `instant` (its intervals may run past
    /// midnight) to a week after, sorted by start. Wall-clock arithmetic on local days, so a
    /// daylight-saving change does not shift the hours.
    private func occurrences(around instant: Date) -> [(start: Date, end: Date)] {
        let offsets = ZoneOffsets.table(for: timeZone, around: instant)
        let today = offsets.localDay(instant).day
        var result: [(start: Date, end: Date)] = []
        for day in (today - 1)...(today + 7) {
            let midnight = day * ZoneOffsets.secondsPerDay
            for interval in intervals(localDay: day) {
                result.append((offsets.instant(localSeconds: midnight + interval.opens * 60),
                               offsets.instant(localSeconds: midnight + interval.closes * 60)))
            }
        }
        return result.sorted { $0.start < $1.start }
    }

    /// Foundation numbers weekdays from Sunday = 1; ISO from Monday = 1.
    public static func isoWeekday(_ foundationWeekday: Int) -> Int {
        (foundationWeekday + 5) % 7 + 1
    }

    /// Minutes after midnight of "HH:MM"; nil if it is not a time of day.
    public static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours),
            (0..<60).contains(minutes), parts[1].count == 2
        else { return nil }
        return hours * 60 + minutes
    }

    /// "08:00", "01:30" — minutes past midnight as a 24-hour clock reading.
    public static func clockText(_ minutes: Int) -> String {
        let rest = minutes % 1440
        return NumberText.clock(hours: rest / 60, minutes: rest % 60)
    }

    public static let weekdayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
}
