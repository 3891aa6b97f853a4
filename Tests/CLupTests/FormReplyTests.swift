import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// A form sent again after its answer was lost is not done again, and is not answered as if
/// it had failed: it gets its first answer back.
@Suite("Forms sent twice")
struct FormReplyTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let store: Store

    init() throws {
        (clock, database, app) = try Fixture.start()
        store = try database.stores.createStore(
            NewStore(name: "Bottega Due Volte", address: "Via Doppia 2", phone: "", position: Place.milan[0].position,
                     capacity: 4, timeZone: "Europe/Rome", settings: StoreSettings(capacity: 4, walkInPercent: 0)),
            hours: Fixture.weekdayHours, departments: [])
    }

    func customer(_ email: String) throws -> (browser: Browser, id: UserID) {
        let user = try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: Fixture.passwordHash,
                                           now: clock.now, confirmation: nil)
        let browser = Browser(app)
        try browser.signIn(email: email)
        return (browser, user.id)
    }

    /// The one-time key of the form that posts to `action` on the page last shown.
    func formKey(_ page: Response, action: String) throws -> String {
        let html = page.bodyText
        let form = try #require(html.range(of: "action=\"\(action)\""), "no form to \(action)")
        let rest = html[form.upperBound...]
        return String(try #require(rest.firstMatch(of: /name="formKey" value="([A-Za-z0-9_-]{22})"/)).1)
    }

    @Test("every form that posts carries a key of its own, new on every page")
    func keys() throws {
        let (browser, _) = try customer("ada@example.org")
        let first = try formKey(try browser.get("/account"), action: "/account/password")
        let again = try formKey(try browser.get("/account"), action: "/account/password")
        #expect(first != again)
        #expect(try formKey(try browser.get("/account"), action: "/account/profile") != first)
    }

    @Test("a password change sent twice: changed once, and the retry gets the first answer, not \"wrong password\"")
    func passwordTwice() throws {
        let (browser, id) = try customer("ada@example.org")
        let key = try formKey(try browser.get("/account"), action: "/account/password")
        let fields = [("currentPassword", "correct horse battery"), ("newPassword", "a brand new passphrase"),
                      ("newPasswordAgain", "a brand new passphrase"), ("formKey", key)]
        let first = try browser.post("/account/password", fields)
        #expect(first.status == 303)
        let hash = try #require(try database.accounts.user(email: "ada@example.org")?.passwordHash)
        let retry = try browser.post("/account/password", fields)
        #expect(retry.status == 303 && retry.header("Location") == first.header("Location"))
        #expect(try database.accounts.user(email: "ada@example.org")?.passwordHash == hash)
        // Only one change: the first one's, whose new password signs in.
        #expect(PasswordHasher().verify("a brand new passphrase", against: hash))
        _ = id
    }

    @Test("a cancellation sent twice: the retry is redirected as the first was, not told it is over")
    func cancelTwice() throws {
        let (browser, id) = try customer("ada@example.org")
        guard case .created(let ticket) = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
            requestKey: Secrets.token()), now: clock.now)
        else { Issue.record("not created"); return }
        let key = try formKey(try browser.get("/reservations/\(ticket.id)"), action: "/reservations/\(ticket.id)/cancel")
        let first = try browser.post("/reservations/\(ticket.id)/cancel", [("formKey", key)])
        #expect(first.status == 303)
        let retry = try browser.post("/reservations/\(ticket.id)/cancel", [("formKey", key)])
        #expect(retry.status == 303 && retry.header("Location") == first.header("Location"))
        // A new cancellation of it (another form) is told the truth.
        #expect(try browser.post("/reservations/\(ticket.id)/cancel").status == 409)
    }

    @Test("a password change sent twice at once (a double click): done once; neither is told the password is wrong")
    func doubleClick() throws {
        let (first, _) = try customer("ada@example.org")
        let key = try formKey(try first.get("/account"), action: "/account/password")
        let second = Browser(app)
        second.cookies = first.cookies
        try second.get("/account")
        let fields = [("currentPassword", "correct horse battery"), ("newPassword", "a brand new passphrase"),
                      ("newPasswordAgain", "a brand new passphrase"), ("formKey", key)]
        let answers = LockedList()
        nonisolated(unsafe) let browsers = [first, second]
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let answer = try? browsers[index].post("/account/password", fields)
            answers.append("\(answer?.status ?? 0)")
        }
        // One did it (303); the other was told it was done (the same 303, or a "done already" page).
        #expect(answers.values.sorted() == ["303", "303"] || answers.values.sorted() == ["200", "303"])
        let hash = try #require(try database.accounts.user(email: "ada@example.org")?.passwordHash)
        #expect(PasswordHasher().verify("a brand new passphrase", against: hash))
    }

    @Test("a form whose answer was a page, sent again, is told it was done, and is not done twice")
    func doneWithAPage() throws {
        let (browser, _) = try customer("ada@example.org")
        // The worker committed a write for this key and died before answering: the retry.
        let lostKey = Secrets.token()
        try FormReply.$current.withValue(FormReply(key: lostKey)) {
            try database.accounts.updateNotificationChannels(userId: try #require(try database.accounts.user(email: "ada@example.org")).id,
                                                    email: false, push: true)
        }
        try browser.get("/account")
        let retry = try browser.post("/account/notifications", [("email", "on"), ("push", "on"), ("formKey", lostKey)])
        #expect(retry.status == 200)
        #expect(retry.bodyText.contains("<h1>Done already</h1>"))
        #expect(try database.accounts.user(email: "ada@example.org")?.notifyEmail == false)  // not done again
    }

    @Test("a form refused for what was typed changed nothing, so sent again corrected it runs")
    func refusedThenCorrected() throws {
        let (browser, _) = try customer("ada@example.org")
        let key = try formKey(try browser.get("/account"), action: "/account/profile")
        let refused = try browser.post("/account/profile", [("displayName", ""), ("travelMode", "walking"), ("formKey", key)])
        #expect(refused.status == 422)
        let saved = try browser.post("/account/profile", [("displayName", "Adele"), ("travelMode", "walking"), ("formKey", key)])
        #expect(saved.status == 303)
        #expect(try database.accounts.user(email: "ada@example.org")?.displayName == "Adele")
    }

    @Test("signing in sent twice signs in twice: an answer that sets a cookie is not replayed without it")
    func signInTwice() throws {
        _ = try database.accounts.createUser(email: "bob@example.org", displayName: "Bob", passwordHash: Fixture.passwordHash,
                                    now: clock.now, confirmation: nil)
        let browser = Browser(app)
        let key = try formKey(try browser.get("/signin"), action: "/signin")
        let fields = [("email", "bob@example.org"), ("password", "correct horse battery"), ("formKey", key)]
        let first = try browser.post("/signin", fields)
        #expect(first.status == 303 && first.setCookie(named: "clup_session") != nil)
        let other = Browser(app)
        other.cookies = browser.cookies.filter { $0.key != "clup_session" }
        let retry = try other.post("/signin", fields)
        #expect(retry.status == 303 && retry.setCookie(named: "clup_session") != nil)
    }
}
