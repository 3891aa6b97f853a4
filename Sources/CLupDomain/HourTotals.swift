import Foundation

/// What happened at a store in one hour (an hour since 1970, UTC), as kept while visits
/// happen: entries by kind, waits, visit lengths, people inside, and tickets that ended
/// unused. Sums, not averages, so hours add up into days, weekdays and ranges.
public struct HourTotals: Sendable, Equatable, Codable {
    /// Hours since 1970 (UTC). Every such hour is one local hour of a whole-hour time zone.
    public var hour: Int
    /// Parties that entered in the hour, and their people.
    public var entries: Double = 0
    public var entryPeople: Double = 0
    /// Entries by kind: online line-ups, walk-ins (kiosk tickets), bookings.
    public var lineUps: Double = 0
    public var walkIns: Double = 0
    public var bookings: Double = 0
    /// Line-ups entering in the hour: seconds from ticket to entry, and how many.
    public var waitSeconds: Double = 0
    public var waitCount: Double = 0
    /// Tickets called in the hour: seconds from ticket to call.
    public var callSeconds: Double = 0
    public var calls: Double = 0
    /// Called tickets entering in the hour: seconds from call to entry.
    public var doorSeconds: Double = 0
    public var doorCount: Double = 0
    /// Visits that began in the hour and were scanned out: declared and actual seconds.
    public var exits: Double = 0
    public var declaredSeconds: Double = 0
    public var actualSeconds: Double = 0
    /// People × seconds inside during the hour (÷ 3600: the average number inside).
    public var personSeconds: Double = 0
    /// The most people inside just after an entry in the hour.
    public var peakInside: Double = 0
    /// Bookings whose window closed unused, line-up tickets that expired, and cancellations.
    public var noShows: Double = 0
    public var expiries: Double = 0
    public var cancellations: Double = 0
    /// Priority tickets let in (`PriorityLane`), and their waits from ticket to entry.
    public var priorityEntries: Double = 0
    public var priorityWaitSeconds: Double = 0

    public init(hour: Int) {
        self.hour = hour
    }

    /// The counters, by name, in a fixed order (the table's columns).
    public static let counterNames = [
        "entries", "entryPeople", "lineUps", "walkIns", "bookings", "waitSeconds", "waitCount", "callSeconds", "calls",
        "doorSeconds", "doorCount", "exits", "declaredSeconds", "actualSeconds", "personSeconds", "peakInside",
        "noShows", "expiries", "cancellations", "priorityEntries", "priorityWaitSeconds",
    ]

    public var counters: [Double] {
        [entries, entryPeople, lineUps, walkIns, bookings, waitSeconds, waitCount, callSeconds, calls, doorSeconds,
         doorCount, exits, declaredSeconds, actualSeconds, personSeconds, peakInside, noShows, expiries, cancellations,
         priorityEntries, priorityWaitSeconds]
    }

    public init(hour: Int, counters values: [Double]) {
        self.hour = hour
        (entries, entryPeople, lineUps, walkIns, bookings, waitSeconds, waitCount, callSeconds, calls) =
            (values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7], values[8])
        (doorSeconds, doorCount, exits, declaredSeconds, actualSeconds, personSeconds, peakInside) =
            (values[9], values[10], values[11], values[12], values[13], values[14], values[15])
        (noShows, expiries, cancellations) = (values[16], values[17], values[18])
        (priorityEntries, priorityWaitSeconds) = (values[19], values[20])
    }

    /// These totals and `other`'s together (the peak is the larger of the two). Field by field:
    /// a page adds up to a few thousand hours.
    public mutating func add(_ other: HourTotals) {
        entries += other.entries
        entryPeople += other.entryPeople
        lineUps += other.lineUps
        walkIns += other.walkIns
        bookings += other.bookings
        waitSeconds += other.waitSeconds
        waitCount += other.waitCount
        callSeconds += other.callSeconds
        calls += other.calls
        doorSeconds += other.doorSeconds
        doorCount += other.doorCount
        exits += other.exits
        declaredSeconds += other.declaredSeconds
        actualSeconds += other.actualSeconds
        personSeconds += other.personSeconds
        peakInside = max(peakInside, other.peakInside)
        noShows += other.noShows
        expiries += other.expiries
        cancellations += other.cancellations
        priorityEntries += other.priorityEntries
        priorityWaitSeconds += other.priorityWaitSeconds
    }

    public static func hour(of date: Date) -> Int {
        Int((date.timeIntervalSince1970 / 3600).rounded(.down))
    }

    public var start: Date { Date(timeIntervalSince1970: Double(hour) * 3600) }
}
