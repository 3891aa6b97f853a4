import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// A full slot's waiting list as a customer uses it: joined from the "slot full" page, a place
/// offered by email, accepted from the page (or declined), on both engines.
@Suite("Waiting list pages")
struct WaitingListPagesTests {
    /// Thursday 19 November 2026, 10:00 in Milan.
    let slot = Fixture.date(2026, 11, 19, 10)
    var slotValue: String { String(Int(slot.timeIntervalSince1970)) }

    func setUp() throws -> (clock: TestClock, database: AppDatabase, app: App, store: Store) {
        let (clock, database, app) = try Fixture.start()
        var new = Fixture.store("Bottega Piena", at: Place.milan[0].position)
        new.slotCapacity = 1
        let store = try database.stores.createStore(new, hours: Fixture.weekdayHours, departments: [])
        return (clock, database, app, store)
    }

    func customer(_ email: String, _ app: App, _ database: AppDatabase, now: Date) throws -> Browser {
        _ = try database.accounts.createUser(email: email, displayName: "Cliente", passwordHash: Fixture.passwordHash, now: now,
                                    confirmation: nil)
        let browser = Browser(app)
        try browser.signIn(email: email)
        return browser
    }

    func hiddenFields(_ html: String, form action: String) throws -> [(String, String)] {
        let start = try #require(html.range(of: "action=\"\(action)\""))
        let form = html[start.upperBound...].prefix { _ in true }
        let end = form.range(of: "</form>")?.lowerBound ?? form.endIndex
        return form[..<end].matches(of: /<input type="hidden" name="([^"]+)" value="([^"]*)">/).map {
            (String($0.1), String($0.2))
        }.filter { $0.0 != "csrf" }
    }

    @Test("a full slot offers its waiting list; a freed place is offered by email and booked from the page")
    func joinOfferAccept() throws {
        let (clock, database, app, store) = try setUp()
        let first = try customer("prima@example.org", app, database, now: clock.now)
        let recap = "/stores/\(store.id)/reserve/recap?kind=booking&slot=\(slotValue)&minutes=30&people=1&place=duomo"
        let booked = try first.post("/stores/\(store.id)/reservations", try hiddenFields(
            try first.get(recap).bodyText, form: "/stores/\(store.id)/reservations"))
        #expect(booked.status == 303)

        // The slot picker says it is full, with a list; the recap offers the list.
        let second = try customer("seconda@example.org", app, database, now: clock.now)
        let day = Int(slot.timeIntervalSince1970 / 86400)  // 10:00 in Milan is the same day in UTC
        let picker = try second.get("/stores/\(store.id)/reserve/slots?minutes=30&people=1&place=duomo&day=\(day)")
        #expect(picker.bodyText.contains("10:00–10:15</span> <span class=\"slot-note\">full · waiting list"))
        let full = try second.get(recap)
        #expect(full.status == 409)
        #expect(full.bodyText.contains("Join the waiting list"))
        #expect(full.bodyText.contains("with up to 30 minutes to book it"))
        let fields = try hiddenFields(full.bodyText, form: "/stores/\(store.id)/waitlist")
        let joined = try second.post("/stores/\(store.id)/waitlist", fields)
        #expect(joined.status == 303)
        let page = try #require(joined.header("Location"))
        #expect(page.hasPrefix("/waitlist/"))
        // The same form again joins once.
        #expect(try second.post("/stores/\(store.id)/waitlist", fields).header("Location") == page)
        let waiting = try second.get(page)
        #expect(waiting.status == 200)
        #expect(waiting.bodyText.contains("You are first on the list."))
        #expect(try second.get("/reservations").bodyText.contains("You are first on the list."))
        // Nobody else may see it.
        #expect(try first.get(page).status == 404)

        // The first customer cancels: the timer offers the place, and the email says until when.
        let ticket = try #require(booked.header("Location"))
        #expect(try first.post(ticket + "/cancel").status == 303)
        #expect(try database.waitingLists.passWaitingLists(now: clock.now).offered == 1)
        let writer = NoticeWriter(settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets)
        try database.waitingLists.dispatchWaitlistNotices(now: clock.now, render: writer.renderWaitlist)
        let mail = try #require(try database.notices.mail(to: "seconda@example.org").last)
        #expect(mail.subject == "A place at Bottega Piena is yours until 10:30: tomorrow, 10:00–10:15")
        #expect(mail.body.contains(page))
        let offered = try second.get(page)
        #expect(offered.bodyText.contains("A place is held for you until 10:30."))
        let accepted = try second.post(page + "/accept")
        #expect(accepted.status == 303)
        #expect(try #require(accepted.header("Location")).hasPrefix("/reservations/"))
        #expect(try second.get(page).bodyText.contains("You took the place: it is booked."))
        #expect(try second.post(page + "/accept").status == 409)
    }

    @Test("declined, the place goes to the next; nobody may join a list of a slot with room")
    func decline() throws {
        let (clock, database, app, store) = try setUp()
        let ids = try database.accounts.createCustomers(emails: ["a@example.org"], now: clock.now)
        guard case .created(let held) = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: ids[0], kind: .booking, people: 1, residenceMinutes: 30, slotStart: slot,
            requestKey: Secrets.token()), now: clock.now)
        else { Issue.record("not booked"); return }
        let browsers = try ["b@example.org", "c@example.org"].map { try customer($0, app, database, now: clock.now) }
        var pages: [String] = []
        for browser in browsers {
            let full = try browser.get("/stores/\(store.id)/reserve/recap?kind=booking&slot=\(slotValue)&minutes=30&people=1")
            let joined = try browser.post("/stores/\(store.id)/waitlist",
                                          try hiddenFields(full.bodyText, form: "/stores/\(store.id)/waitlist"))
            pages.append(try #require(joined.header("Location")))
        }
        #expect(try browsers[1].get(pages[1]).bodyText.contains("Parties ahead of you: 1."))
        #expect(try database.reservations.cancelReservation(id: held.id, userId: ids[0], now: clock.now))
        try database.waitingLists.passWaitingLists(now: clock.now)
        #expect(try browsers[0].post(pages[0] + "/leave").status == 303)
        #expect(try browsers[0].get(pages[0]).bodyText.contains("You left the waiting list."))
        #expect(try browsers[1].get(pages[1]).bodyText.contains("A place is held for you until 10:30."))

        // A slot with room: the join form is not offered, and a forged join books nothing.
        let free = String(Int((slot + 3600).timeIntervalSince1970))
        let recap = try browsers[0].get("/stores/\(store.id)/reserve/recap?kind=booking&slot=\(free)&minutes=30&people=1")
        #expect(recap.status == 200 && !recap.bodyText.contains("Join the waiting list"))
        let forged = try browsers[0].post("/stores/\(store.id)/waitlist", [
            ("slot", free), ("minutes", "30"), ("people", "1"), ("requestKey", Secrets.token()),
        ])
        #expect(forged.status == 303)
        #expect(try #require(forged.header("Location")).contains("/reserve/recap"))
    }
}
