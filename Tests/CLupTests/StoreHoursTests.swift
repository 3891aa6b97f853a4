import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// A manager sets a store's weekly hours: each day checked, past midnight allowed, and
/// bookings in slots the new hours no longer have cancelled with a message that says why.
@Suite("Opening hours")
struct StoreHoursTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let store: Store
    var storeId: StoreID { store.id }
    let writer = NoticeWriter(settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets)

    init() throws {
        (clock, database, app) = try Fixture.start()
        store = try database.stores.createStore(
            NewStore(name: "Bottega Ore", address: "Via Ore 1", phone: "", position: Place.milan[0].position, capacity: 10,
                     timeZone: "Europe/Rome"),
            hours: Fixture.weekdayHours, departments: [])
        try Fixture.manager("boss@example.org", of: store.id, in: database, now: clock.now)
    }

    func boss() throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: "boss@example.org")
        try browser.get("/manage/stores/\(storeId)/hours")
        return browser
    }

    /// The form as it is, with `changes` ("opens-4-a": "08:00"…) applied.
    func hours(_ changes: [String: String]) -> [(String, String)] {
        var fields: [(String, String)] = []
        for weekday in 1...7 {
            for part in ["a", "b"] {
                let open = part == "a" && weekday <= 6 ? "08:00" : ""
                let close = part == "a" && weekday <= 6 ? "21:00" : ""
                fields.append(("opens-\(weekday)-\(part)", changes["opens-\(weekday)-\(part)"] ?? open))
                fields.append(("closes-\(weekday)-\(part)", changes["closes-\(weekday)-\(part)"] ?? close))
            }
        }
        return fields
    }

    func book(_ email: String, at slot: Date) throws -> Reservation {
        let user = try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: "x", now: clock.now,
                                           confirmation: nil)
        guard case .created(let booking) = try database.reservations.reserve(ReservationRequest(
            storeId: storeId, userId: user.id, kind: .booking, people: 1, residenceMinutes: 30, slotStart: slot,
            requestKey: Secrets.token()), now: clock.now)
        else { throw RequireError(message: "not booked") }
        return booking
    }

    @Test("shorter hours cancel the bookings they no longer have, and say why to the manager and the customer")
    func shorterHours() throws {
        let browser = try boss()
        let form = try browser.get("/manage/stores/\(storeId)/hours").bodyText
        #expect(form.contains("<input type=\"time\" name=\"opens-1-a\" value=\"08:00\" aria-label=\"Monday: opens\">"))
        #expect(form.contains("<input type=\"time\" name=\"opens-7-a\" value=\"\" aria-label=\"Sunday: opens\">"))
        let late = try book("late@example.org", at: Fixture.date(2026, 11, 19, 15))
        let early = try book("early@example.org", at: Fixture.date(2026, 11, 19, 9))
        // Thursday: 08:00–13:00 only. Saturday: until 02:00.
        let saved = try browser.post("/manage/stores/\(storeId)/hours",
                                     hours(["closes-4-a": "13:00", "closes-6-a": "02:00"]))
        #expect(saved.status == 303)
        let page = try browser.get(try require(saved.header("Location"))).bodyText
        #expect(page.contains("The opening hours are saved. 1 booking was in a slot the new hours do not have: it is "
            + "cancelled, and its customer told why."))
        #expect(page.contains("Thu 08:00–21:00"))  // the change, with before and after
        #expect(try database.reservations.reservation(id: late.id)?.reservation.status == .cancelled)
        #expect(try database.reservations.reservation(id: early.id)?.reservation.status == .booked)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let mail = try require(try database.notices.mail(to: "late@example.org").first)
        #expect(mail.body.contains("The store changed its opening hours, and your slot (tomorrow 15:00) is no longer open."))
        // The store's pages follow.
        let hours = try require(database.board.entry(storeId)?.hours.intervals)
        #expect(hours.contains(OpeningInterval(weekday: 4, opens: 480, closes: 780)))
        #expect(hours.contains(OpeningInterval(weekday: 6, opens: 480, closes: 1560)))
        #expect(!hours.contains { $0.weekday == 7 })
    }

    @Test("a time that is not one is named with its problem: past 23:59, bad minutes, not hours and minutes, a half missing")
    func timeProblems() {
        func problem(_ opens: String, _ closes: String) -> String? { ManageArea.parseDay(1, [(opens, closes)]).1 }
        #expect(problem("08:00", "25:00") == "“25:00” is not a time of day: hours run from 00 to 23. To close after "
            + "midnight, give the time on the next day (02:00): a closing earlier than the opening runs past midnight.")
        #expect(problem("08:00", "24:00")?.hasPrefix("“24:00” is not a time of day: hours run from 00 to 23.") == true)
        #expect(problem("08:75", "20:00") == "“08:75” is not a time of day: minutes run from 00 to 59.")
        #expect(problem("8", "20:00") == "Write times as hours and minutes, like 08:00: “8” is not one.")
        #expect(problem("8.30", "20:00") == "Write times as hours and minutes, like 08:00: “8.30” is not one.")
        #expect(problem("-1:00", "20:00") == "Write times as hours and minutes, like 08:00: “-1:00” is not one.")
        #expect(problem("", "20:00") == "Give the opening time too.")
        #expect(problem("08:00", "") == "Give the closing time too.")
        #expect(problem("08:00", "02:00") == nil && problem("8:00", "20:00") == nil)
    }

    @Test("each day is checked, and a refused form changes nothing")
    func validation() throws {
        let browser = try boss()
        let refused = try browser.post("/manage/stores/\(storeId)/hours", hours([
            "opens-5-a": "25:00",
            "opens-2-b": "12:00", "closes-2-b": "14:00",
            "opens-3-b": "19:00",
            "opens-7-a": "22:00", "closes-7-a": "09:00",
        ]))
        #expect(refused.status == 422)
        let html = refused.bodyText
        #expect(html.contains("Nothing was changed: please correct the days marked below."))
        #expect(html.contains("id=\"day-5-error\">“25:00” is not a time of day: hours run from 00 to 23."))
        #expect(html.contains("id=\"day-2-error\">The two openings overlap.</p>"))
        #expect(html.contains("id=\"day-3-error\">Give the closing time too.</p>"))
        #expect(html.contains("id=\"day-7-error\">It runs past midnight beyond Monday&#39;s opening at 08:00.</p>"))
        #expect(try database.stores.storeChanges(storeId: storeId).isEmpty)
        #expect(try database.board.entry(storeId)?.hours.intervals.count == 6)
        // The same hours again change nothing.
        #expect(try browser.post("/manage/stores/\(storeId)/hours", hours([:])).status == 303)
        #expect(try database.stores.storeChanges(storeId: storeId).isEmpty)
    }

    @Test("closing a day cancels its bookings and tells their customers; shoppers see it closed; it can open again")
    func closedDay() throws {
        let browser = try boss()
        let thursday = try book("thu@example.org", at: Fixture.date(2026, 11, 19, 15))
        let friday = try book("fri@example.org", at: Fixture.date(2026, 11, 20, 9))
        let day = try require(LocalDate(text: "2026-11-19")).day
        let closed = try browser.post("/manage/stores/\(storeId)/closures",
                                      [("action", "close"), ("date", "2026-11-19"), ("reason", "Stocktake")])
        #expect(closed.status == 303)
        let page = try browser.get(try require(closed.header("Location"))).bodyText
        #expect(page.contains("The store is closed on Thu 19 Nov 2026. Its 1 booking is cancelled, and its customer told why."))
        #expect(page.contains("<td>Thu 19 Nov 2026</td><td>Stocktake</td>"))
        #expect(try database.reservations.reservation(id: thursday.id)?.reservation.status == .cancelled)
        #expect(try database.reservations.reservation(id: friday.id)?.reservation.status == .booked)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let mail = try require(try database.notices.mail(to: "thu@example.org").first)
        #expect(mail.body.contains("The store is closed on the day of your slot (tomorrow 15:00). We are sorry: please choose another day."))
        #expect(try database.notices.mail(to: "fri@example.org").isEmpty)
        // Shoppers: the store's week says so, and the day has no slots to book.
        let storePage = try Browser(app).get("/stores/\(storeId)").bodyText
        #expect(storePage.contains("<th scope=\"row\">Thursday</th><td>Closed: Stocktake</td>"))
        #expect(storePage.contains("<th scope=\"row\">Friday</th><td>08:00–21:00</td>"))
        let calendar = try require(database.board.entry(storeId)?.calendar)
        #expect(calendar.slots(startingOn: day, now: clock.now).isEmpty)
        #expect(calendar.verdict(start: Fixture.date(2026, 11, 19, 15), residence: 1800, now: clock.now) == .notASlot)
        // Recorded, with who did it.
        let change = try require(try database.stores.storeChanges(storeId: storeId).first)
        #expect(change.field == "closed" && change.after == "2026-11-19: Stocktake" && change.by == "Boss")
        // Open again: the day's hours are back; the cancelled booking stays cancelled.
        let reopened = try browser.post("/manage/stores/\(storeId)/closures", [("action", "reopen"), ("day", String(day))])
        let after = try browser.get(try require(reopened.header("Location"))).bodyText
        #expect(after.contains("The store opens on Thu 19 Nov 2026 as its weekly hours say."))
        #expect(after.contains("No closed days coming."))
        #expect(try require(database.board.entry(storeId)?.calendar).slots(startingOn: day, now: clock.now).count == 52)
        #expect(try database.reservations.reservation(id: thursday.id)?.reservation.status == .cancelled)
    }

    @Test("a run of days closed at once (a refit): each day's bookings cancelled, each day closed; the run is checked")
    func closedRun() throws {
        let browser = try boss()
        let thursday = try book("thu@example.org", at: Fixture.date(2026, 11, 19, 15))
        let friday = try book("fri@example.org", at: Fixture.date(2026, 11, 20, 9))
        func refused(_ until: String) throws -> String {
            let answer = try browser.post("/manage/stores/\(storeId)/closures",
                                          [("action", "close"), ("date", "2026-11-19"), ("until", until), ("reason", "Refit")])
            #expect(answer.status == 422)
            return answer.bodyText
        }
        #expect(try refused("2026-11-18").contains("id=\"closure-until-error\">Choose the first day or a later one."))
        #expect(try refused("2026-12-25").contains("Close at most 31 days at once."))
        #expect(try refused("next week").contains("id=\"closure-until-error\">Enter a date, like 2026-12-25."))
        let closed = try browser.post("/manage/stores/\(storeId)/closures", [
            ("action", "close"), ("date", "2026-11-19"), ("until", "2026-11-25"), ("reason", "Refit"),
        ])
        let page = try browser.get(try require(closed.header("Location"))).bodyText
        #expect(page.contains("The store is closed from Thu 19 Nov 2026 to Wed 25 Nov 2026. Its 2 bookings are cancelled"))
        for booking in [thursday, friday] {
            #expect(try database.reservations.reservation(id: booking.id)?.reservation.status == .cancelled)
        }
        let day = try require(LocalDate(text: "2026-11-19")).day
        let calendar = try require(database.board.entry(storeId)?.calendar)
        #expect((day...(day + 6)).allSatisfy { calendar.slots(startingOn: $0, now: clock.now).isEmpty })
        #expect(!calendar.slots(startingOn: day + 7, now: clock.now).isEmpty)
        #expect(try database.stores.storeChanges(storeId: storeId).filter { $0.field == "closed" }.count == 7)
        // Entered again, every day of it closed already: said so.
        let again = try refused("2026-11-25")
        #expect(again.contains("The store is already closed on each of those days."))
    }

    @Test("a closed day is checked: a real date, from today to a year ahead, not closed already; a short reason")
    func closedDayValidation() throws {
        let browser = try boss()
        func close(_ date: String, _ reason: String = "") throws -> String {
            let answer = try browser.post("/manage/stores/\(storeId)/closures",
                                          [("action", "close"), ("date", date), ("reason", reason)])
            #expect(answer.status == 422)
            #expect(answer.bodyText.contains("The day was not closed: please correct the fields marked below."))
            return answer.bodyText
        }
        #expect(try close("2026-02-30").contains("id=\"closure-date-error\">Enter a date, like 2026-12-25.</p>"))
        #expect(try close("tomorrow").contains("Enter a date, like 2026-12-25."))
        #expect(try close("2026-11-17").contains("Choose today or a later day."))
        #expect(try close("2027-11-20").contains("Choose a day within a year."))
        let long = try close("2026-12-25", String(repeating: "x", count: 101))
        #expect(long.contains("id=\"closure-reason-error\">Use at most 100 characters.</p>"))
        #expect(long.contains("value=\"2026-12-25\""))  // what was typed is kept
        #expect(try database.stores.storeChanges(storeId: storeId).isEmpty)
        #expect(try browser.post("/manage/stores/\(storeId)/closures", [("action", "close"), ("date", "2026-12-25")])
            .status == 303)
        #expect(try close("2026-12-25").contains("The store is already closed on that day."))
        #expect(try database.stores.storeChanges(storeId: storeId).count == 1)
    }

    @Test("closing today cancels the line-ups waiting for it, each customer told; people inside stay")
    func closedToday() throws {
        let users = try (1...2).map { index in
            try database.accounts.createUser(email: "q\(index)@example.org", displayName: "Q", passwordHash: "x", now: clock.now,
                                    confirmation: nil)
        }
        let tickets = try users.map { user -> Reservation in
            guard case .created(let ticket) = try database.reservations.reserve(ReservationRequest(
                storeId: storeId, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
                requestKey: Secrets.token()), now: clock.now)
            else { throw RequireError(message: "not created") }
            return ticket
        }
        #expect(try database.doors.scan(reservationId: tickets[0].id, at: storeId, now: clock.now).verdict == .enter)
        let today = try require(LocalDate(text: "2026-11-18")).day
        #expect(try database.stores.closeDay(storeId: storeId, day: today, reason: "Power cut", userId: nil, now: clock.now) == 0)
        #expect(try database.reservations.reservation(id: tickets[0].id)?.reservation.status == .inside)
        #expect(try database.reservations.reservation(id: tickets[1].id)?.reservation.status == .cancelled)
        #expect(database.board.live(storeId, now: clock.now)?.standing.status.openState.isOpen == false)
        // The store's page says so once: "Closed · opens tomorrow 08:00", not "Closed · Closed · …".
        #expect(try Browser(app).get("/stores/\(storeId)").bodyText.contains(
            "<p class=\"status status-red\">Closed · opens tomorrow 08:00</p>"))
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let mail = try require(try database.notices.mail(to: "q2@example.org").first)
        #expect(mail.body.contains("The store has closed for today. We are sorry: please come another day."))
    }

    @Test("special hours on a date: bookings outside cancelled and told, shoppers see them, the usual hours come back")
    func specialHours() throws {
        let browser = try boss()
        let late = try book("late@example.org", at: Fixture.date(2026, 11, 19, 15))
        let morning = try book("morning@example.org", at: Fixture.date(2026, 11, 19, 9))
        let day = try require(LocalDate(text: "2026-11-19")).day
        let set = try browser.post("/manage/stores/\(storeId)/special-hours", [
            ("action", "set"), ("date", "2026-11-19"), ("opens-a", "08:00"), ("closes-a", "12:00"),
            ("opens-b", "16:00"), ("closes-b", "19:00"), ("reason", "Inventory"),
        ])
        #expect(set.status == 303)
        let page = try browser.get(try require(set.header("Location"))).bodyText
        #expect(page.contains("The store keeps special hours on Thu 19 Nov 2026. Its 1 booking is cancelled, and its customer told why."))
        #expect(page.contains("<td>Thu 19 Nov 2026</td><td>08:00–12:00, 16:00–19:00</td><td>Inventory</td>"))
        #expect(try database.reservations.reservation(id: late.id)?.reservation.status == .cancelled)
        #expect(try database.reservations.reservation(id: morning.id)?.reservation.status == .booked)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let mail = try require(try database.notices.mail(to: "late@example.org").first)
        #expect(mail.body.contains("The store keeps shorter hours on the day of your slot (tomorrow 15:00)"))
        // Shoppers: the week shows the day's hours and why; the slot picker offers only them.
        let storePage = try Browser(app).get("/stores/\(storeId)").bodyText
        #expect(storePage.contains("<th scope=\"row\">Thursday</th><td>08:00–12:00, 16:00–19:00 (Inventory)</td>"))
        let calendar = try require(database.board.entry(storeId)?.calendar)
        #expect(calendar.slots(startingOn: day, now: clock.now).count == 28)
        #expect(calendar.verdict(start: Fixture.date(2026, 11, 19, 13), residence: 900, now: clock.now) == .notASlot)
        let change = try require(try database.stores.storeChanges(storeId: storeId).first)
        #expect(change.field == "specialHours" && change.after == "2026-11-19 08:00–12:00, 16:00–19:00: Inventory")
        // The same again changes nothing; other hours replace them.
        #expect(try browser.post("/manage/stores/\(storeId)/special-hours", [
            ("action", "set"), ("date", "2026-11-19"), ("opens-a", "08:00"), ("closes-a", "12:00"),
            ("opens-b", "16:00"), ("closes-b", "19:00"), ("reason", "Inventory"),
        ]).status == 303)
        #expect(try database.stores.storeChanges(storeId: storeId).count == 1)
        // Usual hours again: the weekday's slots are back; the cancelled booking stays cancelled.
        let cleared = try browser.post("/manage/stores/\(storeId)/special-hours", [("action", "clear"), ("day", String(day))])
        let after = try browser.get(try require(cleared.header("Location"))).bodyText
        #expect(after.contains("The store keeps its weekly hours on Thu 19 Nov 2026 again."))
        #expect(after.contains("No special hours coming."))
        #expect(try require(database.board.entry(storeId)?.calendar).slots(startingOn: day, now: clock.now).count == 52)
        #expect(try database.reservations.reservation(id: late.id)?.reservation.status == .cancelled)
    }

    @Test("special hours are checked as a weekday's, against the nights either side, and not on a closed day")
    func specialHoursValidation() throws {
        let browser = try boss()
        func refused(_ fields: [(String, String)]) throws -> String {
            let answer = try browser.post("/manage/stores/\(storeId)/special-hours", [("action", "set")] + fields)
            #expect(answer.status == 422)
            #expect(answer.bodyText.contains("The special hours were not kept: please correct the fields marked below."))
            return answer.bodyText
        }
        #expect(try refused([("date", "2026-11-19")]).contains(
            "id=\"special-hours-error\">Give the time the store opens and the time it closes."))
        #expect(try refused([("date", "2026-11-17"), ("opens-a", "08:00"), ("closes-a", "12:00")])
            .contains("id=\"special-date-error\">Choose today or a later day."))
        // Thursday running past midnight beyond Friday's 08:00 opening.
        #expect(try refused([("date", "2026-11-19"), ("opens-a", "18:00"), ("closes-a", "09:00")])
            .contains("It runs past midnight beyond Friday&#39;s opening at 08:00."))
        // A late Wednesday (special too) runs into Thursday's early opening.
        #expect(try browser.post("/manage/stores/\(storeId)/special-hours", [
            ("action", "set"), ("date", "2026-11-18"), ("opens-a", "18:00"), ("closes-a", "03:00"),
        ]).status == 303)
        let night = try refused([("date", "2026-11-19"), ("opens-a", "02:00"), ("closes-a", "12:00"), ("reason", "Dawn")])
        #expect(night.contains("The night before, the store is open until 03:00: open at that time or later."))
        #expect(night.contains("value=\"Dawn\""))  // what was typed is kept
        _ = try database.stores.closeDay(storeId: storeId, day: try require(LocalDate(text: "2026-11-20")).day,
                                         reason: "", userId: nil, now: clock.now)
        #expect(try refused([("date", "2026-11-20"), ("opens-a", "08:00"), ("closes-a", "12:00")])
            .contains("The store is closed that day: open it as usual first."))
        #expect(try database.stores.storeChanges(storeId: storeId).filter { $0.field == "specialHours" }.count == 1)
    }
}
