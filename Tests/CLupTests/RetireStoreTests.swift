import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Retiring a store: it leaves every shopper's page and takes no more reservations; those it
/// held are cancelled, their customers told where else to go; its kiosks stop; its statistics
/// and history stay for its managers.
@Suite("Retiring a store")
struct RetireStoreTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let closing: Store
    let nearby: Store
    let writer = NoticeWriter(settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets)

    init() throws {
        (clock, database, app) = try Fixture.start()
        closing = try database.stores.createStore(Fixture.store("Bottega Chiusa", at: Place.milan[0].position),
                                                  hours: Fixture.weekdayHours, departments: [])
        nearby = try database.stores.createStore(Fixture.store("Mercato Aperto", at: Place.milan[1].position),
                                                 hours: Fixture.weekdayHours, departments: [])
        try Fixture.manager("boss@example.org", of: closing.id, in: database, now: clock.now)
        _ = try database.accounts.createUser(email: "admin@example.org", displayName: "Alba", passwordHash: Fixture.passwordHash,
                                             role: .admin, now: clock.now, confirmation: nil)
    }

    func signedIn(_ email: String) throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: email)
        try browser.get("/manage/stores/\(closing.id)")
        return browser
    }

    func customer(_ email: String) throws -> User {
        try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: Fixture.passwordHash, now: clock.now,
                                         confirmation: nil)
    }

    func reserve(_ user: User, at store: Store, slot: Date? = nil) throws -> ReservationOutcome {
        try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: user.id, kind: slot == nil ? .lineUp : .booking, people: 1, residenceMinutes: 30,
            travelMode: slot == nil ? .walking : nil, slotStart: slot, requestKey: Secrets.token()), now: clock.now)
    }

    @Test("only administrators retire, with a reason, and never with people inside")
    func refusals() throws {
        let boss = try signedIn("boss@example.org")
        #expect(try boss.post("/manage/stores/\(closing.id)/retire", [("reason", "lease ended")]).status == 403)
        let admin = try signedIn("admin@example.org")
        #expect(try admin.get("/manage/stores/\(closing.id)").bodyText.contains("action=\"/manage/stores/\(closing.id)/retire\""))
        #expect(try admin.post("/manage/stores/\(closing.id)/retire", [("reason", " ")]).status == 422)
        guard case .created(let ticket) = try reserve(try customer("in@example.org"), at: closing) else {
            throw RequireError(message: "no line-up")
        }
        let adminId = try #require(try database.accounts.user(email: "admin@example.org")).id
        guard case .done = try database.doors.door(.admit, storeId: closing.id, number: ticket.number, reason: "scanner off",
                                                   by: .user(adminId), now: clock.now)
        else { throw RequireError(message: "not let in") }
        let inside = try admin.post("/manage/stores/\(closing.id)/retire", [("reason", "lease ended")])
        #expect(inside.status == 409 && inside.bodyText.contains("1 person is inside: retire the store once they have left."))
        #expect(try database.board.entry(closing.id)?.definition.isRetired == false)
    }

    @Test("a retired store leaves every shopper's page, its bookings cancelled with where else to go; its managers keep its history")
    func retired() throws {
        let tomorrow = Fixture.date(2026, 11, 19, 11)
        guard case .created(let booking) = try reserve(try customer("uno@example.org"), at: closing, slot: tomorrow) else {
            throw RequireError(message: "not booked")
        }
        guard case .created(let lineUp) = try reserve(try customer("due@example.org"), at: closing) else {
            throw RequireError(message: "no line-up")
        }
        let key = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: closing.id, label: "Door", key: key, now: clock.now)
        let shopper = Browser(app)
        let position = "lat=\(Place.milan[0].position.latitude)&lon=\(Place.milan[0].position.longitude)"
        #expect(try shopper.get("/?\(position)").bodyText.contains("Bottega Chiusa"))

        let admin = try signedIn("admin@example.org")
        let done = try admin.post("/manage/stores/\(closing.id)/retire", [("reason", "The lease ended.")])
        #expect(done.status == 303 && done.header("Location") == "/manage/stores/\(closing.id)?retired=2")
        let page = try admin.get("/manage/stores/\(closing.id)?retired=2").bodyText
        #expect(page.contains("The store is retired. 2 reservations were cancelled and their customers told."))
        #expect(page.contains("Retired today at 10:00"))
        #expect(!page.contains("action=\"/manage/stores/\(closing.id)/retire\""))

        // Gone from the shoppers' pages, and nothing more can be reserved there.
        let home = try shopper.get("/?\(position)").bodyText
        #expect(!home.contains("Bottega Chiusa") && home.contains("Mercato Aperto"))
        #expect(try shopper.get("/stores/\(closing.id)").status == 410)
        #expect(try shopper.get("/stores/\(closing.id)/stats").status == 410)
        if case .noSuchStore = try reserve(try customer("tre@example.org"), at: closing) {} else {
            Issue.record("a retired store took a line-up")
        }
        #expect(try database.accounts.kiosk(key: key) == nil)

        // The customers are told, with the store open nearby.
        for id in [booking.id, lineUp.id] {
            #expect(try database.reservations.reservation(id: id)?.reservation.status == .cancelled)
        }
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let mail = try #require(try database.notices.mail(to: "uno@example.org").last)
        #expect(mail.body.contains("The store has closed for good."))
        #expect(mail.body.contains("Mercato Aperto"))

        // Its managers keep its page, statistics and history; the overview leaves it out.
        let boss = try signedIn("boss@example.org")
        let list = try boss.get("/manage").bodyText
        #expect(list.contains("Retired stores"))
        #expect(try boss.get("/manage/stores/\(closing.id)/stats").status == 200)
        #expect(try database.stores.storeChanges(storeId: closing.id).map(ManageArea.changeText)
                .contains("Store:  → retired for good"))
        #expect(!(try admin.get("/manage/overview").bodyText.contains("Bottega Chiusa")))
        // A holiday for every store passes it by.
        let day = Fixture.date(2026, 11, 20, 12)
        let closed = try database.stores.closeDays(storeIds: nil, days: ZoneOffsets.day(of: day, in: Fixture.rome)...ZoneOffsets.day(of: day, in: Fixture.rome),
                                                   reason: "Holiday", userId: nil, now: clock.now)
        #expect(closed.closed == 1)
        // Retired twice is retired once.
        #expect(try database.stores.retire(storeId: closing.id, reason: "again", now: clock.now, loggedAs: .commandLine)
                == .alreadyRetired)
    }
}
