import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Support: staff with the support role (and administrators) look a customer up by address,
/// each look-up logged with who and why; they cancel a reservation for the customer, who is
/// told the reason; administrators close an account under the terms, its owner emailed why.
@Suite("Support")
struct SupportTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let store: Store
    let customer: User
    let lineUp: Reservation
    let writer = NoticeWriter(settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets)

    init() throws {
        (clock, database, app) = try Fixture.start()
        store = try database.stores.createStore(Fixture.store("Bottega Duomo", at: Place.milan[0].position),
                                                hours: Fixture.weekdayHours, departments: [])
        try Fixture.manager("boss@example.org", of: store.id, in: database, now: clock.now)
        for (email, name, role) in [("help@example.org", "Sara Aiuto", Role.support), ("admin@example.org", "Alba", .admin)] {
            _ = try database.accounts.createUser(email: email, displayName: name, passwordHash: Fixture.passwordHash,
                                                 role: role, now: clock.now, confirmation: nil)
        }
        customer = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada Lovelace",
                                                    passwordHash: Fixture.passwordHash, now: clock.now, confirmation: nil)
        guard case .created(let made) = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: customer.id, kind: .lineUp, people: 2, residenceMinutes: 30, travelMode: .walking,
            requestKey: Secrets.token()), now: clock.now)
        else { throw TestFailure("the line-up was refused") }
        lineUp = made
    }

    struct TestFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    func signedIn(_ email: String) throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: email)
        try browser.get("/support")
        return browser
    }

    func lookUp(_ browser: Browser, _ email: String, why: String = "phoned at 10:05: lost ticket") throws -> Response {
        try browser.post("/support", [("email", email), ("reason", why)])
    }

    @Test("only support staff and administrators reach support; a look-up shows the account and is logged, found or not")
    func lookUps() throws {
        for email in ["ada@example.org", "boss@example.org"] {
            let browser = Browser(app)
            try browser.signIn(email: email)
            #expect(try browser.get("/support").status == 403, "\(email)")
        }
        #expect(try Browser(app).get("/support").header("Location")?.hasPrefix("/signin") == true)

        let help = try signedIn("help@example.org")
        let home = try help.get("/support")
        #expect(home.status == 200 && home.bodyText.contains("href=\"/support\" aria-current=\"page\">Support</a>"))
        let noReason = try lookUp(help, "ada@example.org", why: " ")
        #expect(noReason.status == 422 && noReason.bodyText.contains("Say why: the log keeps it."))
        #expect(try lookUp(help, "not an address").status == 422)
        #expect(try database.support.log().isEmpty)

        let unknown = try lookUp(help, "nobody@example.org", why: "asked by phone")
        #expect(unknown.status == 200 && unknown.bodyText.contains("No account has the address nobody@example.org."))
        let found = try lookUp(help, "ADA@example.org")
        #expect(found.status == 200)
        let page = found.bodyText
        #expect(page.contains("Ada Lovelace · ada@example.org"))
        #expect(page.contains("<strong>Bottega Duomo</strong> · ticket \(lineUp.number) · Line-up · 2 people"))
        #expect(page.contains("name=\"reservation\" value=\"\(lineUp.id)\""))
        #expect(!page.contains("action=\"/support/close\""))  // an administrator's
        #expect(try database.support.log() == [
            SupportLogEntry(at: clock.now, staff: "Sara Aiuto", action: .lookup, email: "ada@example.org",
                            reason: "phoned at 10:05: lost ticket", ticket: nil),
            SupportLogEntry(at: clock.now, staff: "Sara Aiuto", action: .lookup, email: "nobody@example.org",
                            reason: "asked by phone", ticket: nil),
        ])
        // Sealed at rest like every address (`DataAtRestTests` has the rest).
        let stored = try database.values(String.self, sql: "SELECT email || ' ' || reason FROM supportAction").compactMap { $0 }
        #expect(stored.count == 2 && stored.allSatisfy { $0.hasPrefix("s1:") && !$0.contains("example.org") })
        // The customer finds it in their data download.
        let data = try #require(try database.privacy.personalData(userId: customer.id, now: clock.now))
        #expect(data.supportActions.map(\.reason) == ["phoned at 10:05: lost ticket"])
    }

    @Test("support cancels a reservation for the customer, who is told the reason; the log names the ticket")
    func cancelForThem() throws {
        let help = try signedIn("help@example.org")
        _ = try lookUp(help, "ada@example.org")
        let noReason = try help.post("/support/cancel", [("customer", String(customer.id.rawValue)),
                                                         ("reservation", String(lineUp.id.rawValue)), ("reason", "")])
        #expect(noReason.status == 422 && noReason.bodyText.contains("id=\"cancel-reason-\(lineUp.id)-error\""))
        // Another customer's id with this reservation cancels nothing.
        let boss = try #require(try database.accounts.user(email: "boss@example.org"))
        let mismatched = try help.post("/support/cancel", [("customer", String(boss.id.rawValue)),
                                                           ("reservation", String(lineUp.id.rawValue)),
                                                           ("reason", "asked by phone")])
        #expect(mismatched.status == 409)
        #expect(try database.reservations.reservation(id: lineUp.id)?.reservation.status.isCancellable == true)

        let done = try help.post("/support/cancel", [("customer", String(customer.id.rawValue)),
                                                     ("reservation", String(lineUp.id.rawValue)),
                                                     ("reason", "You asked us by phone to cancel it.")])
        #expect(done.status == 200)
        #expect(done.bodyText.contains("Ticket \(lineUp.number) at Bottega Duomo is cancelled; the customer is told why"))
        #expect(try database.reservations.reservation(id: lineUp.id)?.reservation.status == .cancelled)
        #expect(try database.support.log(customerId: customer.id).first == SupportLogEntry(
            at: clock.now, staff: "Sara Aiuto", action: .cancel, email: "ada@example.org",
            reason: "You asked us by phone to cancel it.", ticket: (lineUp.number, "Bottega Duomo")))
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let mail = try #require(try database.notices.mail(to: "ada@example.org").last)
        #expect(mail.body.contains("CLup's support cancelled it for you: You asked us by phone to cancel it."))
        // Once ended, it cannot be cancelled again.
        let again = try help.post("/support/cancel", [("customer", String(customer.id.rawValue)),
                                                      ("reservation", String(lineUp.id.rawValue)), ("reason", "twice")])
        #expect(again.status == 409 && again.bodyText.contains("cannot be cancelled any more"))
    }

    @Test("administrators close an account under the terms, its owner emailed why; support staff cannot, nor close staff")
    func closeAccount() throws {
        let help = try signedIn("help@example.org")
        let form = [("customer", String(customer.id.rawValue)), ("reason", "Bookings resold for money, against section 4.")]
        #expect(try help.post("/support/close", form).status == 403)

        let admin = try signedIn("admin@example.org")
        let page = try lookUp(admin, "ada@example.org").bodyText
        #expect(page.contains("action=\"/support/close\""))
        #expect(try admin.post("/support/close", [("customer", String(customer.id.rawValue)), ("reason", "")]).status == 422)
        let boss = try #require(try database.accounts.user(email: "boss@example.org"))
        let manager = try admin.post("/support/close", [("customer", String(boss.id.rawValue)), ("reason", "a test")])
        #expect(manager.status == 409 && manager.bodyText.contains("runs stores or helps customers"))
        #expect(try database.accounts.user(email: "boss@example.org") != nil)

        let closed = try admin.post("/support/close", form)
        #expect(closed.status == 200 && closed.bodyText.contains("The account of ada@example.org is closed"))
        #expect(try database.accounts.user(email: "ada@example.org") == nil)
        #expect(try database.reservations.reservation(id: lineUp.id)?.reservation.status == .cancelled)
        let letter = try #require(try database.notices.mail(to: "ada@example.org").last)
        #expect(letter.body.contains("Bookings resold for money, against section 4."))
        // The log outlives the account it names.
        let last = try #require(try database.support.log().first)
        #expect(last.action == .close && last.email == "ada@example.org" && last.staff == "Alba")
        #expect(try admin.post("/support/close", form).status == 404)
    }

    @Test("the support log is purged with the stores' change logs, and not before")
    func retention() throws {
        let help = try signedIn("help@example.org")
        _ = try lookUp(help, "ada@example.org")
        let policy = RetentionPolicy(storeChanges: 86400)
        clock.advance(86400 - 60)
        try database.privacy.purgePersonalData(now: clock.now, sessionLifetime: Visitor.absoluteLifetime, policy: policy)
        #expect(try database.support.log().count == 1)
        clock.advance(120)
        try database.privacy.purgePersonalData(now: clock.now, sessionLifetime: Visitor.absoluteLifetime, policy: policy)
        #expect(try database.support.log().isEmpty)
    }
}
