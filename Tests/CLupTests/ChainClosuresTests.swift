import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// An administrator closes every store on a run of days at once (a national holiday, a
/// strike): each store's bookings those days cancelled and their customers told, the days
/// closed on every store's calendar, and each lifted everywhere at once.
@Suite("Closures for every store")
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
        #expect(page.contains("<td>Thu 19 Nov 2026</td><td>Strike</td><td>3 of 3</td>"))
        #expect(page.contains("<td>Fri 20 Nov 2026</td><td>Strike</td><td>3 of 3</td>"))
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
        let reopened = try admin.post("/manage/closures", [("action", "reopen"), ("day", String(day + 1))])
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
            #expect(refused.bodyText.contains("Nothing was closed: please correct the fields marked below."))
        }
        #expect(try database.stores.closuresAcrossStores(from: 0).isEmpty)
        let boss = Browser(app)
        try boss.signIn(email: "boss@example.org")
        #expect(try boss.get("/manage/closures").status == 403)
        try boss.get("/manage")
        #expect(try boss.post("/manage/closures", [("action", "close"), ("from", "2026-11-19")]).status == 403)
        #expect(try database.stores.closuresAcrossStores(from: 0).isEmpty)
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
}
