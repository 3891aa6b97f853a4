import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// An administrator closes every store on a run of days at once (a national holiday, a
/// strike), or gives a region's stores an early closing: each store's bookings left outside
/// cancelled and their customers told, the days on every store's calendar, and each lifted
/// at once.
@Suite("Closures and special hours for every store or a region")
struct ChainClosuresTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let stores: [Store]
    let writer = NoticeWriter(settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets)

    init() throws {
        let (clock, database, app) = try Fixture.start()
        (self.clock, self.database, self.app) = (clock, database, app)
        stores = try ["Bottega Uno", "Bottega Due", "Bottega Tre"].enumerated().map { index, name in
            try database.stores.createStore(Fixture.store(name, at: Place.milan[index].position), hours: Fixture.weekdayHours,
                                            departments: [])
        }
        try Fixture.manager("boss@example.org", of: stores[0].id, in: database, now: clock.now)
        _ = try database.accounts.createUser(email: "admin@example.org", displayName: "Alba", passwordHash: Fixture.passwordHash,
                                             role: .admin, now: clock.now, confirmation: nil)
    }

    func admin() throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: "admin@example.org")
        try browser.get("/manage/closures")
        return browser
    }

    func book(_ email: String, at store: Store, _ slot: Date) throws -> Reservation {
        let user = try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: "x", now: clock.now,
                                                    confirmation: nil)
        guard case .created(let booking) = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: user.id, kind: .booking, people: 1, residenceMinutes: 30, slotStart: slot,
            requestKey: Secrets.token()), now: clock.now)
        else { throw RequireError(message: "not booked") }
        return booking
    }

    @Test("two days entered once close every store: their bookings cancelled and told, the days closed everywhere")
    func closeEveryStore() throws {
        let thursday = Fixture.date(2026, 11, 19, 15)
        let first = try book("uno@example.org", at: stores[0], thursday)
        let second = try book("due@example.org", at: stores[1], thursday + 3600)
        let saturday = try book("tre@example.org", at: stores[2], Fixture.date(2026, 11, 21, 10))
        let admin = try admin()
        let closed = try admin.post("/manage/closures", [("action", "close"), ("from", "2026-11-19"), ("until", "2026-11-20"),
                                                         ("reason", "Strike")])
        #expect(closed.status == 303 && closed.header("Location") == "/manage/closures?closed=6&cancelled=2")
        let page = try admin.get("/manage/closures?closed=6&cancelled=2").bodyText
        #expect(page.contains("6 closures added (one per store and day). 2 bookings are cancelled, and their customers told why."))
        #expect(page.contains("<td>Thu 19 Nov 2026</td><td>Closed</td><td>Strike</td><td>3 of 3</td>"))
        #expect(page.contains("<td>Fri 20 Nov 2026</td><td>Closed</td><td>Strike</td><td>3 of 3</td>"))
        for booking in [first, second] {
            #expect(try database.reservations.reservation(id: booking.id)?.reservation.status == .cancelled)
        }
        #expect(try database.reservations.reservation(id: saturday.id)?.reservation.status == .booked)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        for email in ["uno@example.org", "due@example.org"] {
            let mail = try #require(try database.notices.mail(to: email).first, "\(email)")
            #expect(mail.body.contains("The store is closed on the day of your slot"))
            #expect(!mail.body.contains("Open that day near it"))  // every store is closed
        }
        #expect(try database.notices.mail(to: "tre@example.org").isEmpty)
        // Every store's calendar has the two days closed, with the reason on its page.
        let day = try #require(LocalDate(text: "2026-11-19")).day
        for store in stores {
            let calendar = try #require(database.board.entry(store.id)?.calendar)
            #expect(calendar.slots(startingOn: day, now: clock.now).isEmpty && calendar.slots(startingOn: day + 1, now: clock.now).isEmpty)
            #expect(!calendar.slots(startingOn: day + 2, now: clock.now).isEmpty)
            #expect(try Browser(app).get("/stores/\(store.id)").bodyText.contains("<td>Closed: Strike</td>"))
            #expect(try database.stores.storeChanges(storeId: store.id).filter { $0.field == "closed" }.count == 2)
        }
        // Entered again, nothing is closed twice.
        #expect(try admin.post("/manage/closures", [("action", "close"), ("from", "2026-11-19"), ("reason", "Strike")])
            .header("Location") == "/manage/closures?closed=0&cancelled=0")

        // Friday lifted everywhere at once.
        let reopened = try admin.post("/manage/closures", [("action", "reopen"), ("day", String(day + 1)), ("reason", "Strike")])
        #expect(try admin.get(try #require(reopened.header("Location"))).bodyText.contains(
            "3 stores open as their weekly hours say."))
        for store in stores {
            #expect(try !(#require(database.board.entry(store.id)?.calendar)).slots(startingOn: day + 1, now: clock.now).isEmpty)
        }
    }

    @Test("a customer whose store closes on their day is told the nearest stores open that day")
    func alternatives() throws {
        let booking = try book("uno@example.org", at: stores[0], Fixture.date(2026, 11, 19, 15))
        let day = try #require(LocalDate(text: "2026-11-19")).day
        _ = try database.stores.closeDays(storeIds: [stores[0].id, stores[2].id], days: day...day, reason: "Stocktake",
                                          userId: nil, now: clock.now)
        #expect(try database.reservations.reservation(id: booking.id)?.reservation.status == .cancelled)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let mail = try #require(try database.notices.mail(to: "uno@example.org").first)
        let metres = Place.milan[0].position.distance(to: Place.milan[1].position)
        #expect(mail.body.contains("Open that day near it, with places to book:\n- Bottega Due, Via Test 1, Milano ("
            + Formatting.distance(metres: metres) + "): https://clup.example.org/stores/\(stores[1].id)"))
        #expect(!mail.body.contains("Bottega Tre"))  // closed that day too
    }

    @Test("the days are checked; only administrators close every store")
    func refusals() throws {
        let admin = try admin()
        for (fields, message) in [
            ([("from", "2026-11-20"), ("until", "2026-11-19")], "Choose the first day or a later one."),
            ([("from", "2026-11-20"), ("until", "2026-12-31")], "Close at most 31 days at once."),
            ([("from", "2001-01-01")], "Choose today or a later day."),
            ([("from", "soon")], "Enter a date, like 2026-12-25."),
        ] {
            let refused = try admin.post("/manage/closures", [("action", "close")] + fields)
            #expect(refused.status == 422 && refused.bodyText.contains(message), "\(fields)")
            #expect(refused.bodyText.contains("Nothing was changed: please correct the fields marked below."))
        }
        #expect(try database.stores.closuresAcrossStores(from: 0).isEmpty)
        let boss = Browser(app)
        try boss.signIn(email: "boss@example.org")
        #expect(try boss.get("/manage/closures").status == 403)
        try boss.get("/manage")
        #expect(try boss.post("/manage/closures", [("action", "close"), ("from", "2026-11-19")]).status == 403)
        #expect(try database.stores.closuresAcrossStores(from: 0).isEmpty)
    }

    @Test("an early closing entered once for a region: bookings after it cancelled with stores open then, the rest kept")
    func regionEarlyClosing() throws {
        let region = try database.stores.createGroup(name: "Milano Centro", now: clock.now)
        try database.stores.addToGroup(region, storeIds: [stores[0].id, stores[1].id], now: clock.now, loggedAs: .commandLine)
        let late = try book("uno@example.org", at: stores[0], Fixture.date(2026, 11, 19, 15))
        let early = try book("due@example.org", at: stores[1], Fixture.date(2026, 11, 19, 10))
        let outside = try book("tre@example.org", at: stores[2], Fixture.date(2026, 11, 19, 15))
        let admin = try admin()
        #expect(try admin.get("/manage/closures").bodyText.contains("<option value=\"\(region)\">Region: Milano Centro</option>"))
        let set = try admin.post("/manage/closures", [
            ("action", "close"), ("stores", String(region)), ("from", "2026-11-19"), ("kind", "hours"),
            ("opens-a", "08:00"), ("closes-a", "13:00"), ("opens-b", ""), ("closes-b", ""), ("reason", "Early closing"),
        ])
        #expect(set.status == 303 && set.header("Location") == "/manage/closures?special=2&leftClosed=0&clashed=0&cancelled=1")
        let page = try admin.get(try #require(set.header("Location"))).bodyText
        #expect(page.contains("2 store-days keep special hours. 1 booking is cancelled, and its customer told why."))
        #expect(page.contains("<td>Thu 19 Nov 2026</td><td>08:00–13:00</td><td>Early closing</td><td>2 of 3</td>"))
        #expect(try database.reservations.reservation(id: late.id)?.reservation.status == .cancelled)
        #expect(try database.reservations.reservation(id: early.id)?.reservation.status == .booked)
        #expect(try database.reservations.reservation(id: outside.id)?.reservation.status == .booked)
        // Told why, with the store open at that time: not the region's other store, closed by then.
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let mail = try #require(try database.notices.mail(to: "uno@example.org").first)
        #expect(mail.body.contains("The store keeps shorter hours on the day of your slot (tomorrow 15:00), and your slot is outside them."))
        #expect(mail.body.contains("- Bottega Tre, Via Test 1, Milano") && !mail.body.contains("Bottega Due"))
        // The slot picker and the store's page follow them; the store outside the region does not change.
        let day = try #require(LocalDate(text: "2026-11-19")).day
        for store in stores.prefix(2) {
            let slots = try #require(database.board.entry(store.id)?.calendar).slots(startingOn: day, now: clock.now)
            #expect(slots.count == 20 && slots.last?.end == Fixture.date(2026, 11, 19, 13))
            #expect(try Browser(app).get("/stores/\(store.id)").bodyText.contains("<td>08:00–13:00 (Early closing)</td>"))
            #expect(try database.stores.storeChanges(storeId: store.id).first?.after == "2026-11-19 08:00–13:00: Early closing")
        }
        #expect(try #require(database.board.entry(stores[2].id)?.calendar).slots(startingOn: day, now: clock.now).count == 52)
        // Lifted at once: the region's stores keep their weekly hours again, and only they are
        // read again (the store outside the region keeps the very definition it had).
        let untouched = try #require(database.board.entry(stores[2].id)?.definition)
        let usual = try admin.post("/manage/closures", [("action", "clear"), ("day", String(day)), ("reason", "Early closing")])
        #expect(try admin.get(try #require(usual.header("Location"))).bodyText.contains(
            "2 stores have their weekly hours again that day."))
        #expect(try database.stores.specialHoursAcrossStores(from: 0).isEmpty)
        #expect(try #require(database.board.entry(stores[0].id)?.calendar).slots(startingOn: day, now: clock.now).count == 52)
        #expect(database.board.entry(stores[2].id)?.definition === untouched)
    }

    @Test("special hours for every store leave a day closed already closed, and are checked as a weekday's")
    func everyStoreSpecialHours() throws {
        let day = try #require(LocalDate(text: "2026-11-19")).day
        _ = try database.stores.closeDay(storeId: stores[2].id, day: day, reason: "Stocktake", userId: nil, now: clock.now)
        let admin = try admin()
        func post(_ fields: [(String, String)]) throws -> Response {
            try admin.post("/manage/closures", [("action", "close"), ("stores", "all"), ("from", "2026-11-19"),
                                                ("kind", "hours"), ("reason", "Late night")] + fields)
        }
        for (fields, message) in [
            ([("opens-a", ""), ("closes-a", "")], "Give the time the store opens and the time it closes."),
            ([("opens-a", "08:00"), ("closes-a", "14:00"), ("opens-b", "13:00"), ("closes-b", "18:00")], "The two openings overlap."),
            ([("opens-a", "8"), ("closes-a", "14:00")], "Write times as hours and minutes, like 08:00: “8” is not one."),
        ] {
            let refused = try post(fields)
            #expect(refused.status == 422 && refused.bodyText.contains(message), "\(fields)")
        }
        let badRegion = try admin.post("/manage/closures", [("action", "close"), ("stores", "999"), ("from", "2026-11-19")])
        #expect(badRegion.status == 422 && badRegion.bodyText.contains("Choose every store or a region from the list."))
        #expect(try database.stores.specialHoursAcrossStores(from: 0).isEmpty)
        let set = try post([("opens-a", "10:00"), ("closes-a", "01:00")])
        #expect(set.header("Location") == "/manage/closures?special=2&leftClosed=1&clashed=0&cancelled=0")
        #expect(try admin.get(try #require(set.header("Location"))).bodyText.contains(
            "2 store-days keep special hours. 1 store-day was closed already and stays closed."))
        #expect(try database.board.entry(stores[2].id)?.hours.intervals(localDay: day).isEmpty == true)
        // Past midnight, as a weekday's hours may run.
        #expect(database.board.entry(stores[0].id)?.hours.state(at: Fixture.date(2026, 11, 20, 0, 30))
            == .open(until: Fixture.date(2026, 11, 20, 1)))
    }

    @Test("opening one store on a closed day reads that store again, not every store")
    func reopenReadsOneStore() throws {
        let day = try #require(LocalDate(text: "2026-11-19")).day
        _ = try database.stores.closeDays(storeIds: [stores[0].id, stores[2].id], days: day...day, reason: "Stocktake",
                                          userId: nil, now: clock.now)
        let others = try stores.dropFirst().map { try #require(database.board.entry($0.id)?.definition) }
        #expect(try database.stores.reopenDay(storeId: stores[0].id, day: day, userId: nil, now: clock.now))
        #expect(try !(#require(database.board.entry(stores[0].id)?.calendar)).slots(startingOn: day, now: clock.now).isEmpty)
        // The closure's row is gone and its store cannot be read back from it: the store the
        // transaction named is read again, the others keep the very definitions they had.
        for (store, before) in zip(stores.dropFirst(), others) {
            #expect(database.board.entry(store.id)?.definition === before, "\(store.name)")
        }
        #expect(try #require(database.board.entry(stores[2].id)?.calendar).slots(startingOn: day, now: clock.now).isEmpty)
    }

    @Test("special hours for many stores leave a store whose night runs into them as it was, and say so")
    func nightClash() throws {
        // Bottega Due stays open on Wednesday night until 03:00.
        _ = try database.stores.replaceHours(storeId: stores[1].id, with: Fixture.weekdayHours.map {
            $0.weekday == 3 ? OpeningInterval(weekday: 3, opens: 8 * 60, closes: 27 * 60) : $0
        }, userId: nil, now: clock.now)
        let admin = try admin()
        let set = try admin.post("/manage/closures", [
            ("action", "close"), ("stores", "all"), ("from", "2026-11-19"), ("kind", "hours"),
            ("opens-a", "02:00"), ("closes-a", "12:00"), ("reason", "Market day"),
        ])
        #expect(set.header("Location") == "/manage/closures?special=2&leftClosed=0&clashed=1&cancelled=0")
        #expect(try admin.get(try #require(set.header("Location"))).bodyText.contains(
            "1 store-day was left as it was: its store&#39;s night before or after runs into these hours."))
        let day = try #require(LocalDate(text: "2026-11-19")).day
        #expect(database.board.entry(stores[1].id)?.hours.hasSpecialHours(localDay: day) == false)
        #expect(database.board.entry(stores[0].id)?.hours.hasSpecialHours(localDay: day) == true)
        // The same from the data layer for one store: refused, with the clash.
        #expect(try database.stores.setSpecialHours(
            storeId: stores[1].id, day: day, intervals: [OpeningInterval(weekday: 4, opens: 120, closes: 720)], reason: "",
            userId: nil, now: clock.now) == .clashesWithNight(.eveningBefore(closes: 27 * 60)))
    }
}
