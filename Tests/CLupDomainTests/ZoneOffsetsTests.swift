import Foundation
import Testing

@testable import CLupDomain

@Suite("Wall-clock arithmetic agrees with Foundation's calendar")
struct ZoneOffsetsTests {
    static let zones = ["Europe/Rome", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "UTC"]

    @Test("local day, weekday and time of day, every 7 hours 13 minutes through 2026", arguments: zones)
    func localReadings(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var instant = Fixture.date(2026, 1, 1, 0, in: zone)
        let end = Fixture.date(2027, 1, 1, 0, in: zone)
        while instant < end {
            let table = ZoneOffsets.table(for: zone, around: instant)
            let (day, second) = table.localDay(instant)
            let parts = calendar.dateComponents([.weekday, .hour, .minute], from: instant)
            #expect(ZoneOffsets.isoWeekday(day: day) == OpeningHours.isoWeekday(parts.weekday!), "\(instant)")
            #expect(second / 3600 == parts.hour! && second % 3600 / 60 == parts.minute!, "\(instant) in \(zoneName)")
            // And back: the local reading names the same instant, or, in the autumn's repeated
            // hour, the first of the two instants that share it.
            let back = table.instant(localSeconds: table.localSeconds(instant))
            #expect(back == instant || (back == instant - 3600 && table.localSeconds(back) == table.localSeconds(instant)),
                    "\(instant)")
            instant += 7 * 3600 + 13 * 60
        }
    }

    @Test("in Milan's autumn repeated hour, 02:30 is its first occurrence")
    func repeatedHour() {
        // 25 October 2026: 03:00 summer time becomes 02:00 winter time.
        let table = ZoneOffsets(zone: Fixture.rome, around: Fixture.date(2026, 10, 24, 12))
        let local = (table.localDay(Fixture.date(2026, 10, 25, 0)).day) * 86_400 + 2 * 3600 + 30 * 60
        #expect(table.instant(localSeconds: local) == Date(timeIntervalSince1970: 1_792_888_200))  // 00:30 UTC
    }

    @Test("in Milan's spring skipped hour, 02:30 reads as 03:30 summer time")
    func skippedHour() {
        // 29 March 2026: 02:00 winter time becomes 03:00 summer time.
        let table = ZoneOffsets(zone: Fixture.rome, around: Fixture.date(2026, 3, 28, 12))
        let local = (table.localDay(Fixture.date(2026, 3, 29, 0)).day) * 86_400 + 2 * 3600 + 30 * 60
        #expect(table.instant(localSeconds: local) == Fixture.date(2026, 3, 29, 3, 30))
    }
}

@Suite("Local hours of kept statistics")
struct LocalHoursTests {
    @Test("a range's local hours equal the zone's own offsets, hour by hour, across both clock changes of 2026")
    func acrossDST() {
        for zoneName in ["Europe/Rome", "America/New_York", "Asia/Kolkata"] {
            let zone = TimeZone(identifier: zoneName)!
            let from = Int(Fixture.date(2026, 3, 1, 0, in: zone).timeIntervalSince1970 / 3600)
            let to = Int(Fixture.date(2026, 11, 30, 0, in: zone).timeIntervalSince1970 / 3600)
            let clock = LocalHours(zone: zone, from: from, to: to)
            for hour in stride(from: from, through: to, by: 1) {
                let local = hour * 3600 + zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(hour) * 3600))
                let day = Int((Double(local) / 86_400).rounded(.down))
                let expected = (day, (local - day * 86_400) / 3600)
                let got = clock.local(hour)
                #expect(got.day == expected.0 && got.hour == expected.1, "\(zoneName) \(hour)")
            }
        }
    }
}
