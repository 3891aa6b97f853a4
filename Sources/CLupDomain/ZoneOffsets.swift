import Foundation

/// Converts between instants and a time zone's wall-clock time with integer arithmetic.
///
/// Foundation's `Calendar` and `TimeZone` go through ICU behind a process-wide lock; the store
/// list evaluates opening hours for every store on every request, and hundreds of calendar
/// calls per page made the worker slow and its threads contend. A zone's UTC offset only
/// changes at daylight-saving transitions, so this asks ICU for the transitions in a two-week
/// window once and answers everything else by arithmetic.
public struct ZoneOffsets: Sendable {
    public let zone: TimeZone
    /// The window this table is exact in.
    let windowStart: Int
    let windowEnd: Int
    /// UTC seconds where each offset starts (the first is `windowStart`), and the offset.
    private let segments: [(start: Int, offset: Int)]

    public static let secondsPerDay = 86_400

    /// Exact from three days before `instant` to eleven days after.
    public init(zone: TimeZone, around instant: Date) {
        self.zone = zone
        let anchor = Int(instant.timeIntervalSince1970.rounded(.down))
        windowStart = anchor - 3 * Self.secondsPerDay
        windowEnd = anchor + 11 * Self.secondsPerDay
        var segments = [(start: windowStart, offset: zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(windowStart))))]
        var cursor = Date(timeIntervalSince1970: Double(windowStart))
        while let transition = zone.nextDaylightSavingTimeTransition(after: cursor),
            transition.timeIntervalSince1970 < Double(windowEnd)
        {
            let start = Int(transition.timeIntervalSince1970.rounded(.down))
            segments.append((start, zone.secondsFromGMT(for: transition)))
            cursor = transition
        }
        self.segments = segments
    }

    /// Whether `instant` lies where this table is exact, with a margin of a day before and
    /// eight days after for the hours of the coming week.
    func covers(_ instant: Date) -> Bool {
        let seconds = Int(instant.timeIntervalSince1970.rounded(.down))
        return seconds >= windowStart + 2 * Self.secondsPerDay && seconds <= windowEnd - 9 * Self.secondsPerDay
    }

    /// The UTC offset in force at UTC second `utc`.
    func offset(atUTC utc: Int) -> Int {
        segments.last { $0.start <= utc }?.offset ?? segments[0].offset
    }

    /// Seconds since 1970-01-01 00:00 wall-clock time in the zone.
    public func localSeconds(_ instant: Date) -> Int {
        let utc = Int(instant.timeIntervalSince1970.rounded(.down))
        return utc + offset(atUTC: utc)
    }

    /// The instant a wall-clock time (in local seconds) occurs. In the autumn's repeated hour
    /// the first occurrence; a time in the spring's skipped hour is read with the offset before
    /// the jump (02:30 becomes 03:30 summer time), as clocks that were not changed would read it.
    public func instant(localSeconds local: Int) -> Date {
        for (index, segment) in segments.enumerated() {
            let utc = local - segment.offset
            let end = index + 1 < segments.count ? segments[index + 1].start : Int.max
            if (index == 0 || utc >= segment.start) && utc < end {
                return Date(timeIntervalSince1970: Double(utc))
            }
        }
        // No segment holds it: it is in a skipped hour. Take the last offset whose reading
        // falls at or after that segment's end, i.e. the offset before the jump.
        let before = segments.last { local - $0.offset >= $0.start } ?? segments[0]
        return Date(timeIntervalSince1970: Double(local - before.offset))
    }

    /// The local day number (days since 1970-01-01 in the zone) and second of that day.
    public func localDay(_ instant: Date) -> (day: Int, second: Int) {
        let local = localSeconds(instant)
        let day = local >= 0 ? local / Self.secondsPerDay : (local - Self.secondsPerDay + 1) / Self.secondsPerDay
        return (day, local - day * Self.secondsPerDay)
    }

    /// ISO weekday (1 = Monday) of a local day number; 1970-01-01 was a Thursday.
    public static func isoWeekday(day: Int) -> Int {
        ((day % 7 + 7) % 7 + 3) % 7 + 1
    }

    // MARK: Shared tables

    private static let cache = NSLock()
    nonisolated(unsafe) private static var tables: [String: ZoneOffsets] = [:]  // guarded by `cache`

    /// A table for `zone` that covers `instant`: built at most every couple of days per zone
    /// and shared by all threads.
    /// The local day (days since 1970-01-01 on `zone`'s clock) `instant` falls on.
    public static func day(of instant: Date, in zone: TimeZone) -> Int {
        table(for: zone, around: instant).localDay(instant).day
    }

    public static func table(for zone: TimeZone, around instant: Date) -> ZoneOffsets {
        if let table = cache.withLock({ tables[zone.identifier] }), table.covers(instant) { return table }
        let table = ZoneOffsets(zone: zone, around: instant)
        cache.withLock { tables[zone.identifier] = table }
        return table
    }
}
