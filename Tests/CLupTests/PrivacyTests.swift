import Foundation
import GRDB
import Logging
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
        clock.advance(RetentionPolicy().visits + 86400)
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

    @Test("retention periods set to a day purge what they name, and nothing else; a dormant account is warned first")
    func periodsOfADay() throws {
        let day: TimeInterval = 86400
        let policy = RetentionPolicy(visits: day, dormantAccounts: day, doorLog: day, storeChanges: day)
        #expect(policy.dormantWarning == day / 2)
        let warning = DormantWarningWriter(settings: SiteSettings(baseURL: "https://clup.example.org")).write
        let start = clock.now
        let ids = try ["old@example.org", "back@example.org", "busy@example.org"].map { email in
            try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: Fixture.passwordHash,
                                             now: start, confirmation: nil).id
        }
        let boss = try database.accounts.createUser(email: "boss@example.org", displayName: "Bo", passwordHash: Fixture.passwordHash,
                                                    role: .manager, now: start, confirmation: nil).id
        for email in ["old@example.org", "back@example.org"] { try Browser(app).signIn(email: email) }
        // Busy has a visit over (cancelled) and a booking three days ahead, still to come.
        guard case .created(let over) = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: ids[2], kind: .lineUp, people: 1, residenceMinutes: 20, travelMode: .walking,
            requestKey: Secrets.token()), now: start)
        else { Issue.record("not lined up"); return }
        #expect(try database.reservations.cancelReservation(id: over.id, userId: ids[2], now: start))
        guard case .created(let booking) = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: ids[2], kind: .booking, people: 1, residenceMinutes: 15,
            slotStart: Fixture.date(2026, 11, 21, 10), requestKey: Secrets.token()), now: start)
        else { Issue.record("not booked"); return }
        func doorAction(at: Date, staff: String) throws {
            try database.execute(sql: """
                INSERT INTO doorAction (storeId, action, reason, outcome, at, staffName) VALUES (?, 'recall', '', 'done', ?, ?)
                """, store.id.rawValue, at, staff)
        }
        try doorAction(at: start, staff: "Gianni")
        try database.stores.recordRegistration(storeId: store.id, userId: boss, now: start)

        // 13 hours on: unused for more than the period less the warning, Old and Back are warned.
        clock.advance(13 * 3600)
        let warned = try database.privacy.retireDormantAccounts(now: clock.now, policy: policy, warning: warning)
        #expect(warned.warned == 2 && warned.deleted == 0)
        let mail = try #require(try database.notices.mail(to: "old@example.org").last)
        #expect(mail.subject == "Your CLup account will be deleted on Thu 19 Nov 2026")
        #expect(mail.body.contains("To keep it, sign in before then: https://clup.example.org/signin"))
        // Back signs in again: the warning is taken back.
        clock.advance(7 * 3600)
        try Browser(app).signIn(email: "back@example.org")

        // A day and a half on: what is older than a day goes; what is newer, and what was in use, stays.
        clock.advance(16 * 3600)
        try doorAction(at: clock.now, staff: "Lucia")
        try database.stores.recordRegistration(storeId: store.id, userId: boss, now: clock.now)
        let retired = try database.privacy.retireDormantAccounts(now: clock.now, policy: policy, warning: warning)
        // Old goes; Back, unused again for more than half a day, is warned again.
        #expect(retired.warned == 1 && retired.deleted == 1)
        try database.privacy.purgePersonalData(now: clock.now, sessionLifetime: Visitor.absoluteLifetime, policy: policy)
        #expect(try database.accounts.user(email: "old@example.org") == nil)
        for email in ["back@example.org", "busy@example.org", "boss@example.org"] {
            #expect(try database.accounts.user(email: email) != nil, "\(email)")
        }
        #expect(try database.reservations.reservation(id: over.id)?.reservation.userId == nil)  // anonymous, still counted
        #expect(try database.reservations.reservation(id: booking.id)?.reservation.userId == ids[2])
        #expect(try database.value(Int.self, sql: "SELECT count(*) FROM doorAction") == 1)
        #expect(try database.stores.storeChanges(storeId: store.id).count == 1)
        #expect(try database.stores.storeCount() == 1)
        // Nothing more to do.
        let again = try database.privacy.retireDormantAccounts(now: clock.now, policy: policy, warning: warning)
        #expect(again.warned == 0 && again.deleted == 0)
    }

    @Test("the privacy page states the periods in force, as the operator set them")
    func periodsStated() throws {
        let usual = try Browser(app).get("/privacy").bodyText
        #expect(usual.contains("or until nobody has signed in to it for 3 years: a customer&#39;s account is then deleted, "
            + "and you are written to 30 days before"))
        #expect(usual.contains("<td>a year</td>") && usual.contains("<td>2 years</td>"))
        var settings = SiteSettings(baseURL: "https://clup.example.org")
        settings.retention = RetentionPolicy(visits: 90 * 86400, dormantAccounts: nil, doorLog: 30 * 86400,
                                             storeChanges: 400 * 86400)
        let environment = AppEnvironment(database: database, now: { [clock] in clock.now }, logger: Logger(label: "test"),
                                         settings: settings, tickets: Fixture.tickets)
        let page = try Browser(App(environment: environment, views: try Fixture.views())).get("/privacy").bodyText
        #expect(page.contains("Linked to you for 90 days, then anonymous"))
        #expect(page.contains("<td>Until you delete your account</td>"))
        #expect(page.contains("<td>30 days</td>") && page.contains("<td>400 days</td>"))
    }
}
