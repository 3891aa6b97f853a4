import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// What CLup says it keeps, what it gives back, and that it keeps no longer than it says.
@Suite("Privacy")
struct PrivacyTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let store: Store

    init() throws {
        (clock, database, app) = try Fixture.start()
        store = try database.stores.createStore(
            NewStore(name: "Bottega Dati", address: "Via Dati 1", phone: "", position: Place.milan[0].position, capacity: 10,
                     timeZone: "Europe/Rome"),
            hours: Fixture.weekdayHours, departments: [("Bakery", 10), ("Deli", 8)])
    }

    @Test("the privacy page says what is kept, why, how long and who sees it; sign-up and every page link to it")
    func page() throws {
        let guest = Browser(app)
        let page = try guest.get("/privacy")
        #expect(page.status == 200)
        let text = page.bodyText
        #expect(text.contains("<h1>Privacy</h1>"))
        #expect(text.contains("Linked to you for a year, then anonymous"))
        #expect(text.contains("Messages 30 days, emails 30 days after sending; push messages a day"))
        #expect(text.contains("<td>an hour</td>"))  // failed sign-ins
        #expect(text.contains("7 days without use, 30 days at most"))
        #expect(text.contains("<strong>Loyal customers:</strong> only if you tick it in your account"))
        #expect(try guest.get("/signup").bodyText.contains("<a href=\"/privacy\">what is kept, for how long and who sees it</a>"))
        #expect(try guest.get("/").bodyText.contains("<p><a href=\"/privacy\">Privacy</a> · "))
    }

    @Test("download my data: everything about the account as JSON, nothing secret, nobody else's, only when signed in")
    func download() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        try Browser(app).signUpAndConfirm(email: "bob@example.org")
        let ada = try require(try database.accounts.user(email: "ada@example.org"))
        let bakery = try require(try database.stores.storeDetails(id: store.id)?.departments.first?.id)
        guard case .created(let ticket) = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: ada.id, kind: .lineUp, people: 2, residenceMinutes: 25, travelMode: .walking,
            requestKey: Secrets.token(), travelMetres: 640, departmentIds: [bakery]), now: clock.now)
        else { throw RequireError(message: "not created") }
        // As if their past visits had set a pace (`CustomerPace`): what the estimate made of them is theirs to see.
        try database.execute(sql: "UPDATE reservation SET pace = 1.25 WHERE id = ?", ticket.id)
        // From another network: a sign-in that succeeds forgives failures from its own address only.
        try Browser(app, address: "192.0.2.99").signIn(email: "ada@example.org", password: "a typo in it")

        #expect(try Browser(app).get("/account/data").header("Location")?.hasPrefix("/signin") == true)
        let browser = Browser(app)
        try browser.signIn(email: "ada@example.org")
        #expect(try browser.get("/account").bodyText.contains("<a class=\"button secondary\" href=\"/account/data\" download>"))
        let answer = try browser.get("/account/data")
        #expect(answer.status == 200)
        #expect(answer.header("Content-Type") == "application/json; charset=utf-8")
        #expect(answer.header("Content-Disposition") == "attachment; filename=\"clup-my-data.json\"")
        #expect(answer.header("Cache-Control") == "private, no-store")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        let account = try #require(json["account"] as? [String: Any])
        #expect(account["email"] as? String == "ada@example.org" && account["loyalCustomerOptIn"] as? Bool == false)
        #expect(account["termsOfServiceVersion"] as? Int == TermsOfService.version && account["termsOfServiceAcceptedAt"] != nil)
        let visits = try #require(json["reservations"] as? [[String: Any]])
        #expect(visits.count == 1)
        #expect(visits.first?["store"] as? String == "Bottega Dati" && visits.first?["number"] as? Int == ticket.number)
        #expect(visits.first?["departments"] as? [String] == ["Bakery"] && visits.first?["travelMetres"] as? Int == 640)
        #expect(visits.first?["paceFromPastVisits"] as? Double == 1.25)
        #expect((json["emails"] as? [[String: Any]])?.first?["subject"] as? String == "Confirm your CLup account")
        #expect((json["failedSignIns"] as? [[String: Any]])?.count == 1)
        #expect((json["sessions"] as? [[String: Any]])?.isEmpty == false)
        let text = answer.bodyText
        for secret in ["argon2", "passwordHash", "csrf", "idHash", "keyHash", "p256dh", "bob@example.org"] {
            #expect(!text.contains(secret), "\(secret)")
        }
    }

    @Test("what the privacy page says is no longer kept is deleted or made anonymous, in batches; the rest stays")
    func retention() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let ada = try require(try database.accounts.user(email: "ada@example.org"))
        func lineUp() throws -> Reservation {
            guard case .created(let ticket) = try database.reservations.reserve(ReservationRequest(
                storeId: store.id, userId: ada.id, kind: .lineUp, people: 1, residenceMinutes: 20, travelMode: .walking,
                requestKey: Secrets.token()), now: clock.now)
            else { throw RequireError(message: "not created") }
            return ticket
        }
        let old = try lineUp()  // called at once: "your turn"
        #expect(try database.reservations.cancelReservation(id: old.id, userId: ada.id, now: clock.now))  // "cancelled"
        try database.notices.dispatchNotices(now: clock.now, render: NoticeWriter(
            settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets).render)
        try database.accounts.recordSignInFailure(account: "ada@example.org", clientAddress: "192.0.2.1", now: clock.now)
        try database.execute(sql: "UPDATE outboxMessage SET sentAt = ?", clock.now)
        let oldNotices = "SELECT count(*) FROM notice WHERE reservationId = \(old.id) AND dispatchedAt IS NOT NULL"
        #expect(try database.value(Int.self, sql: oldNotices) == 2)

        // A year and a day later.
        clock.advance(Retention.reservations + 86400)
        let recent = try lineUp()
        try database.accounts.recordSignInFailure(account: "ada@example.org", clientAddress: "192.0.2.1", now: clock.now)
        let changed = try database.privacy.purgePersonalData(now: clock.now, sessionLifetime: Visitor.absoluteLifetime)
        #expect(changed >= 4)
        #expect(try database.reservations.reservation(id: old.id)?.reservation.userId == nil)  // anonymous, still counted
        #expect(try database.reservations.reservation(id: old.id)?.reservation.status == .cancelled)
        #expect(try database.reservations.reservation(id: recent.id)?.reservation.userId == ada.id)
        let counts = try ["outboxMessage", "signInFailure", "session", "notice"].map {
            try database.value(Int.self, sql: "SELECT count(*) FROM \($0)") ?? -1
        }
        #expect(counts[0...2] == [0, 1, 0])
        // The old reservation's messages are gone; the new one's stay.
        #expect(try database.value(Int.self, sql: oldNotices) == 0)
        #expect(try database.accounts.user(email: "ada@example.org") != nil)
        // Nothing more to do: a second run changes nothing.
        #expect(try database.privacy.purgePersonalData(now: clock.now, sessionLifetime: Visitor.absoluteLifetime) == 0)
    }
}
