import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Statistics from a generated history made through the real write paths (line-ups, the
/// kiosk, bookings, scans, cancellations, the queue timer), with every figure checked
/// against a hand computation.
///
/// Three Mondays (26 Oct, 2 and 9 Nov 2026), each: six line-ups from 10:00, one every two
/// minutes, let in a minute after their ticket and out 30 minutes later, three of them for the
/// bakery and three for the deli; one line-up at 18:00 for 20 minutes. On 9 November also a
/// walk-in (11:00, in at 11:02 for 10 minutes), a line-up cancelled (12:00), a booking used
/// (15:00 for 20 minutes), a booking missed (16:00) and a call never answered (13:00).
@Suite("Statistics")
struct StatisticsTests {
    let clock = TestClock(Fixture.date(2026, 10, 26, 9))
    let database: AppDatabase
    let app: App
    let store: Store
    var storeId: StoreID { store.id }
    let mondays = [Fixture.date(2026, 10, 26, 0), Fixture.date(2026, 11, 2, 0), Fixture.date(2026, 11, 9, 0)]

    init() throws {
        database = try Fixture.database()
        store = try database.stores.createStore(
            NewStore(name: "Bottega Statistica", address: "Via Conti 1", phone: "+39 02 1", position: Place.milan[0].position,
                     capacity: 10, timeZone: "Europe/Rome",
                     settings: StoreSettings(capacity: 10, walkInPercent: 20, slotCapacity: 4)),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 8 * 60, closes: 21 * 60) },
            departments: [("Bakery", 10), ("Deli", 12)])
        let clock = self.clock
        app = try Fixture.app(clock: { clock.now }, database: database)
        try makeHistory()
    }

    func user(_ email: String, name: String, loyal: Bool) throws -> User {
        let user = try database.accounts.createUser(email: email, displayName: name, passwordHash: Fixture.passwordHash,
                                           now: clock.now, confirmation: nil)
        try database.accounts.updateProfile(userId: user.id, displayName: name, travelMode: .walking, loyaltyOptIn: loyal)
        return user
    }

    func at(_ day: Date, _ hour: Int, _ minute: Int) -> Date { day + Double(hour * 3600 + minute * 60) }

    func move(to date: Date) {
        #expect(date >= clock.now, "time only moves forward")
        clock.advance(date.timeIntervalSince(clock.now))
    }

    func lineUp(_ user: User, departments: [Int64] = []) throws -> Reservation {
        let outcome = try database.reservations.reserve(ReservationRequest(
            storeId: storeId, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
            requestKey: Secrets.token(), departmentIds: departments), now: clock.now)
        guard case .created(let reservation) = outcome else { throw RequireError(message: "not created: \(outcome)") }
        return reservation
    }

    func book(_ user: User, slot: Date) throws -> Reservation {
        let outcome = try database.reservations.reserve(ReservationRequest(
            storeId: storeId, userId: user.id, kind: .booking, people: 1, residenceMinutes: 30, slotStart: slot,
            requestKey: Secrets.token()), now: clock.now)
        guard case .created(let reservation) = outcome else { throw RequireError(message: "not booked: \(outcome)") }
        return reservation
    }

    func scan(_ id: ReservationID, _ expected: ScanVerdict) throws {
        #expect(try database.doors.scan(reservationId: id, at: storeId, now: clock.now).verdict == expected)
    }

    func makeHistory() throws {
        let departments = try database.statistics.departmentEntries(storeId: storeId, from: 0, to: 0).sorted { $0.name < $1.name }
        let (bakery, deli) = (departments[0].departmentId, departments[1].departmentId)
        let morning = try (0..<6).map { index in
            try user("c\(index)@example.org", name: ["Ada", "Bruno", "Carla", "Dario", "Elena", "Fabio"][index],
                     loyal: index == 0)
        }
        let evening = try user("g@example.org", name: "Gina", loyal: true)
        let others = try (0..<5).map { try user("o\($0)@example.org", name: "Other \($0)", loyal: false) }
        for (week, monday) in mondays.enumerated() {
            let lastWeek = week == mondays.count - 1
            var tickets: [Reservation] = []
            for index in 0..<6 {
                move(to: at(monday, 10, 2 * index))
                tickets.append(try lineUp(morning[index], departments: [index % 2 == 0 ? bakery : deli]))
                move(to: at(monday, 10, 2 * index + 1))
                try scan(tickets[index].id, .enter)
            }
            for index in 0..<6 {
                move(to: at(monday, 10, 2 * index + 31))
                try scan(tickets[index].id, .exit)
            }
            if lastWeek {
                move(to: at(monday, 11, 0))
                guard case .issued(let walkIn) = try database.doors.issueWalkInTicket(
                    storeId: storeId, people: 1, residenceMinutes: 30, requestKey: nil, now: clock.now)
                else { throw RequireError(message: "no walk-in ticket") }
                move(to: at(monday, 11, 2))
                try scan(walkIn.id, .enter)
                move(to: at(monday, 11, 12))
                try scan(walkIn.id, .exit)
                move(to: at(monday, 12, 0))
                let cancelled = try lineUp(others[0])
                #expect(try database.reservations.cancelReservation(id: cancelled.id, userId: others[0].id, now: clock.now))
                let used = try book(others[1], slot: at(monday, 15, 0))
                _ = try book(others[2], slot: at(monday, 16, 0))
                move(to: at(monday, 13, 0))
                _ = try lineUp(others[3])
                move(to: at(monday, 13, 11))
                try database.doors.advanceQueues(now: clock.now)  // the 13:00 call lapses
                move(to: at(monday, 15, 0))
                try scan(used.id, .enter)
                move(to: at(monday, 15, 20))
                try scan(used.id, .exit)
                move(to: at(monday, 16, 16))
                try database.doors.advanceQueues(now: clock.now)  // the 16:00 booking's window has closed
            }
            move(to: at(monday, 18, 0))
            let late = try lineUp(evening)
            move(to: at(monday, 18, 1))
            try scan(late.id, .enter)
            move(to: at(monday, 18, 21))
            try scan(late.id, .exit)
        }
        _ = others[4]
        // Monday 16 November, 10:30: the day the pages are read.
        move(to: Fixture.date(2026, 11, 16, 10, 30))
    }

    func manager() throws -> Browser {
        _ = try database.accounts.createUser(email: "boss@example.org", displayName: "Boss", passwordHash: Fixture.passwordHash,
                                    role: .manager, now: clock.now, confirmation: nil)
        try database.accounts.assignStore(storeId: storeId, toManager: "boss@example.org")
        let browser = Browser(app)
        try browser.signIn(email: "boss@example.org")
        return browser
    }

    /// The cells of the table with `caption`, row by row (header first), as text.
    static func table(_ caption: String, in html: String) throws -> [[String]] {
        let start = try require(html.range(of: "<caption>\(caption)"))
        let end = try require(html[start.upperBound...].range(of: "</table>"))
        let body = html[start.upperBound..<end.lowerBound]
        return body.matches(of: /<tr>(.*?)<\/tr>/).map { row in
            row.1.matches(of: /<t[hd][^>]*>(.*?)<\/t[hd]>/).map { String($0.1) }
        }
    }

    @Test("the public page: the usual share in use and wait by hour, now against the usual, and hidden thin hours")
    func publicPage() throws {
        let page = try Browser(app).get("/stores/\(storeId)/stats?day=1")
        #expect(page.status == 200)
        let html = page.bodyText
        let rows = try Self.table("Monday, hour by hour", in: html)
        // 10:00: 6 people × 30 min on each of the 3 Mondays with visits: 9 person-hours ÷ 3 = 3
        // people, 30 % of 10. Each waited a minute.
        #expect(rows.contains(["10:00–11:00", "30 %", "about 1 min"]))
        // 18:00: three visits in eight weeks, under the five shown.
        #expect(rows.contains(["18:00–19:00", "too few visits", "—"]))
        #expect(rows.contains(["11:00–12:00", "too few visits", "—"]))
        #expect(html.contains("Now: 0 people inside (0 % full), usually 30 % at this hour."))
        // Visits: 18 of 30 min, 3 of 20, a walk-in of 10, a booking of 20: 37,800 s ÷ 23.
        #expect(html.contains("A visit usually lasts about 28 min."))
        // The chart says the same, and names nobody.
        #expect(html.contains("<title id=\"usual-title\">Monday: how full Bottega Statistica usually is, by hour</title>"))
        #expect(html.contains("<title>10: 30 %</title>"))
        for name in ["Ada", "Bruno", "Gina"] { #expect(!html.contains(name)) }
        // Best times later today: only hours shown count, and only 10:00 is.
        #expect(html.contains("Not enough visits yet to say which hours left today are quietest."))
        #expect(try Browser(app).get("/stores/\(storeId)/stats?day=9").status == 200)  // an odd day: today
        #expect(try Browser(app).get("/stores/999/stats").status == 404)
    }

    @Test("the manager's page: each figure of 9 November by hand, the CSV the same as the table, only opted-in names")
    func managerPage() throws {
        let browser = try manager()
        let page = try browser.get("/manage/stores/\(storeId)/stats?from=2026-11-09&to=2026-11-09")
        #expect(page.status == 200)
        let html = page.bodyText
        let days = try Self.table("Day by day", in: html)
        // 9 visits: 6 + 1 line-ups, a walk-in, a booking. Waits: the 8 queue tickets entered a
        // minute after their call (the walk-in two): 540 s ÷ 8 = 67.5 s. Visits declared 30 min;
        // actual (6 × 30 + 20 + 10 + 20) ÷ 9 = 25.6 min. The peak: six inside at 10:11.
        #expect(days == [
            ["Day", "Visits", "People", "Line-ups", "Bookings", "Walk-ins", "Ticket → call", "Call → entry",
             "Ticket → entry", "Declared visit", "Actual visit", "No-shows", "Expired", "Cancelled", "Refused scans",
             "Peak inside"],
            ["2026-11-09", "9", "9", "7", "1", "1", "0 min", "2 min", "2 min", "30 min", "26 min", "1", "1", "1", "0",
             "60 %"],
        ])
        let hours = try Self.table("Hour by hour over the range", in: html)
        #expect(hours.contains(["10:00", "30 %", "60 %"]))  // 3 person-hours in the hour; six at once
        #expect(hours.contains(["18:00", "3 %", "10 %"]))   // 20 min ÷ 60 of one person
        #expect(try Self.table("Visits by department (as customers said when reserving)", in: html)
            == [["Department", "Visits"], ["Bakery", "3"], ["Deli", "3"]])
        let loyal = try Self.table("Loyal customers (only those who chose to be listed)", in: html)
        #expect(loyal == [["Customer", "Visits", "Last visit"], ["Ada", "1", "2026-11-09 10:01"],
                          ["Gina", "1", "2026-11-09 18:01"]])
        #expect(html.contains("<title id=\"visits-title\">Visits per day</title>"))

        // Every CSV is its table, and names only who opted in.
        for (name, caption) in [("days", "Day by day"), ("hours", "Hour by hour over the range"),
                                ("departments", "Visits by department (as customers said when reserving)"),
                                ("loyal", "Loyal customers (only those who chose to be listed)")] {
            let csv = try browser.get("/manage/stores/\(storeId)/stats.csv?table=\(name)&from=2026-11-09&to=2026-11-09")
            #expect(csv.status == 200 && csv.header("Content-Type") == "text/csv; charset=utf-8")
            // Every field is quoted; none of these holds a quote or a comma of its own.
            let parsed = csv.bodyText.split(separator: "\r\n").map {
                $0.split(separator: ",", omittingEmptySubsequences: false).map { String($0.dropFirst().dropLast()) }
            }
            #expect(parsed == (try Self.table(caption, in: html)), "\(name)")
            for hidden in ["Bruno", "Carla", "Other"] { #expect(!csv.bodyText.contains(hidden)) }
        }
        for hidden in ["Bruno", "Carla", "Dario", "Other 1"] { #expect(!html.contains(hidden)) }

        // Three Mondays and the days between: 3 × 7 + 3 Monday visits + the 9 November extras.
        let range = try browser.get("/manage/stores/\(storeId)/stats?from=2026-10-26&to=2026-11-15").bodyText
        #expect(range.contains("<div><dt>Visits</dt><dd>23 (23 people)</dd></div>"))
        #expect(try Self.table("Day by day", in: range).count == 22)

        // Bad ranges say why and change nothing; a CSV needs a known table.
        let backwards = try browser.get("/manage/stores/\(storeId)/stats?from=2026-11-09&to=2026-11-01")
        #expect(backwards.status == 422 && backwards.bodyText.contains("The first day must not come after the last."))
        #expect(try browser.get("/manage/stores/\(storeId)/stats?from=2026-02-30").status == 422)
        #expect(try browser.get("/manage/stores/\(storeId)/stats?from=2025-01-01&to=2026-11-09").status == 422)
        #expect(try browser.get("/manage/stores/\(storeId)/stats.csv?table=users").status == 400)
        // A customer is not let in.
        _ = try user("nosy@example.org", name: "Nosy", loyal: false)
        let nosy = Browser(app)
        try nosy.signIn(email: "nosy@example.org")
        #expect(try nosy.get("/manage/stores/\(storeId)/stats").status == 403)
        #expect(try nosy.get("/manage/stores/\(storeId)/stats.csv?table=loyal").status == 403)
    }

    @Test("the hours kept as visits happened equal the hours rebuilt from the raw visits")
    func rebuildAgrees() throws {
        let kept = try database.statistics.storeHours(storeId: storeId, from: 0, to: Int.max / 7200)
        #expect(kept.count == 11)  // Mondays 10:00 and 18:00 × 3, and 11, 12, 13, 15 and 16 on 9 November
        let departmentsKept = try database.statistics.departmentEntries(storeId: storeId, from: 0, to: Int.max / 7200)
        /// The store's learned sums, column by column.
        func load() throws -> [String: Double] {
            let record = try require(try database.storeLoad(storeId))
            let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(record)) as? [String: Any] ?? [:]
            return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
        }
        let loadKept = try load()
        #expect(loadKept.count == 16)
        #expect(loadKept["measuredVisits", default: 0] > 0 && loadKept["calls", default: 0] > 0
            && loadKept["entries", default: 0] > 0)
        try database.statistics.rebuildStatistics()
        // The learned sums too, column by column.
        let loadRebuilt = try load()
        for (column, a) in loadKept {
            let b = loadRebuilt[column, default: .nan]
            #expect(abs(a - b) < 1e-6 * max(1, abs(a)), "storeLoad.\(column): kept \(a), rebuilt \(b)")
        }
        let rebuilt = try database.statistics.storeHours(storeId: storeId, from: 0, to: Int.max / 7200)
        #expect(rebuilt.map(\.hour) == kept.map(\.hour))
        for (old, new) in zip(kept, rebuilt) {
            for (name, (a, b)) in zip(HourTotals.counterNames, zip(old.counters, new.counters)) {
                #expect(abs(a - b) < 0.01, "hour \(old.hour) \(name): kept \(a), rebuilt \(b)")
            }
        }
        #expect(try database.statistics.departmentEntries(storeId: storeId, from: 0, to: Int.max / 7200) == departmentsKept)
    }

    @Test("security: CSV fields are all quoted, and never run as a formula, whatever the separator")
    func csvFields() {
        #expect(CSV.text(header: ["a", "b"], rows: [["x,y", "say \"hi\""], ["=1+1", "-2"]])
            == "\"a\",\"b\"\r\n\"x,y\",\"say \"\"hi\"\"\"\r\n\"'=1+1\",\"'-2\"\r\n")
        // A display name that an Italian-locale spreadsheet (`;`) would split into a formula cell.
        #expect(CSV.field("Mario;=HYPERLINK(A1);") == "\"Mario;'=HYPERLINK(A1);\"")
        #expect(CSV.field("a, +cmd|' /C calc'!A0") == "\"a, '+cmd|' /C calc'!A0\"")
        // "=" with a combining mark is one grapheme but still starts with "=".
        #expect(CSV.field("=\u{301}SUM(1)") == "\"'=\u{301}SUM(1)\"")
        #expect(CSV.field("\tx") == "\"'\tx\"")
        #expect(CSV.field("Rossi-Bianchi") == "\"Rossi-Bianchi\"")
    }

    @Test("a store open past midnight shows its small hours on the evening's weekday, after its late hours")
    func smallHours() throws {
        // Open 18:00–02:00 every day. Six visits, an hour each, begin at 00:30 on Tuesday 17 November:
        // Monday evening's opening.
        let weekly = (1...7).map { OpeningInterval(weekday: $0, opens: 18 * 60, closes: 26 * 60) }
        let hour = HourTotals.hour(of: Fixture.date(2026, 11, 17, 0, 30))
        var totals = HourTotals(hour: hour)
        totals.entries = 6
        totals.personSeconds = 6 * 1800  // the first half of each visit
        let usual = PopularTimes(hours: [totals], zone: Fixture.rome, weekly: weekly)
        #expect(usual.cell(weekday: 1, hour: 24).visits == 6)
        #expect(usual.cell(weekday: 1, hour: 24).inside == 3)  // 6 people × half an hour: 3 inside on average
        #expect(usual.cell(weekday: 2, hour: 0).visits == 0)
        #expect(StoresArea.openHours(of: 1, in: OpeningHours(intervals: weekly, timeZone: Fixture.rome))
            == Array(18...25))
        // Without a late opening, 00:30 is Tuesday's.
        #expect(PopularTimes(hours: [totals], zone: Fixture.rome).cell(weekday: 2, hour: 0).visits == 6)
    }
}
