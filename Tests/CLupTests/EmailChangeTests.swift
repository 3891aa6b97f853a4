import Foundation
import Testing

@testable import CLupData
@testable import CLupSupport
@testable import CLupWeb

/// A customer moves their account to another address: a link to the new address, opened
/// there, moves it; the old address is told; an address with an account of its own is never
/// taken over, and the person asking cannot tell it has one.
@Suite("Changing one's email address")
struct EmailChangeTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App

    init() throws {
        (clock, database, app) = try Fixture.start()
    }

    func signedUp(_ email: String) throws -> Browser {
        let browser = Browser(app)
        try browser.signUpAndConfirm(email: email)
        try browser.signIn(email: email)
        try browser.get("/account")
        return browser
    }

    /// The change-of-address link in the last email to `email`, made relative.
    func link(to email: String) throws -> String? {
        try database.notices.mail(to: email).last.flatMap { message in
            message.body.firstMatch(of: /https?:\/\/[^\/\s]+(\/confirm\/email\?token=[A-Za-z0-9_-]+)/).map { String($0.1) }
        }
    }

    @Test("the new address must open the link: then the account moves, the old address is told, and sign-in follows")
    func change() throws {
        let ada = try signedUp("ada@example.org")
        #expect(try ada.get("/account").bodyText.contains("CLup writes to ada@example.org."))
        let sent = try ada.post("/account/email", [("newEmail", "ada.new@example.org"), ("password", "correct horse battery")])
        #expect(sent.status == 200 && sent.bodyText.contains(
            "We sent a link to ada.new@example.org. Open it within a day to move your account there; until then CLup "
                + "keeps writing to ada@example.org."))
        let mail = try #require(try database.notices.mail(to: "ada.new@example.org").last)
        #expect(mail.subject == "Confirm your new address for CLup" && !mail.body.contains("Ada"))
        // Until the link is opened, nothing has moved.
        #expect(try database.accounts.user(email: "ada@example.org") != nil)
        #expect(try database.accounts.user(email: "ada.new@example.org") == nil)

        // Opened in another browser (the new mailbox's): a page and a button, nothing changed by the GET.
        let mailbox = Browser(app)
        let target = try #require(try link(to: "ada.new@example.org"))
        let stashed = try mailbox.get(target)
        #expect(stashed.status == 303 && stashed.header("Location") == "/confirm/email")
        let page = try mailbox.get("/confirm/email")
        #expect(page.bodyText.contains("Your CLup account will use ada.new@example.org from now on"))
        #expect(try database.accounts.user(email: "ada@example.org") != nil)
        let token = String(try #require(page.bodyText.firstMatch(of: /name="token" value="([^"]+)"/)).1)
        let done = try mailbox.post("/confirm/email", [("token", token)])
        #expect(done.status == 200 && done.bodyText.contains("Your email address is changed."))
        #expect(try database.accounts.user(email: "ada@example.org") == nil)
        #expect(try database.accounts.user(email: "ada.new@example.org")?.displayName == "Ada")
        let told = try #require(try database.notices.mail(to: "ada@example.org").last)
        #expect(told.subject == "Your CLup address was changed" && told.body.contains("now uses ada.new@example.org"))
        // The signed-in browser stays signed in and sees the new address; sign-in follows it.
        #expect(try ada.get("/account").bodyText.contains("CLup writes to ada.new@example.org."))
        #expect(try Browser(app).signIn(email: "ada@example.org").status == 401)
        #expect(try Browser(app).signIn(email: "ada.new@example.org").status == 303)
        // The link works once.
        #expect(try mailbox.post("/confirm/email", [("token", token)]).status == 410)
    }

    @Test("the password, a well-formed address and a different one are needed; nothing is sent otherwise")
    func refusals() throws {
        let ada = try signedUp("ada@example.org")
        let before = try database.notices.mail(to: "new@example.org").count
        for (fields, message, status) in [
            ([("newEmail", "new@example.org"), ("password", "wrong password")], "Your current password is not right", 422),
            ([("newEmail", "not an address"), ("password", "correct horse battery")], "email address", 422),
            ([("newEmail", "ADA@example.org"), ("password", "correct horse battery")], "That is already your address.", 422),
        ] {
            let refused = try ada.post("/account/email", fields)
            #expect(refused.status == status && refused.bodyText.contains(message), "\(fields)")
        }
        #expect(try database.notices.mail(to: "new@example.org").count == before)
        // A guest cannot ask.
        #expect(try Browser(app).post("/account/email", [("newEmail", "x@example.org"), ("password", "p")]).status == 403)
    }

    @Test("an address with an account is never taken: its owner is told, and the page says the same as ever")
    func taken() throws {
        let bob = try signedUp("bob@example.org")
        _ = try signedUp("ada@example.org")
        let sent = try bob.post("/account/email", [("newEmail", "ada@example.org"), ("password", "correct horse battery")])
        #expect(sent.status == 200 && sent.bodyText.contains("We sent a link to ada@example.org."))
        let note = try #require(try database.notices.mail(to: "ada@example.org").last)
        #expect(note.subject == "Someone tried to move a CLup account to your address")
        #expect(try link(to: "ada@example.org") == nil)
        #expect(try database.accounts.user(email: "bob@example.org") != nil)
    }

    @Test("an address that gets an account of its own before the link is opened is not taken over; a day-old link has expired")
    func meanwhile() throws {
        let bob = try signedUp("bob@example.org")
        #expect(try bob.post("/account/email", [("newEmail", "carla@example.org"), ("password", "correct horse battery")])
            .status == 200)
        let target = try #require(try link(to: "carla@example.org"))
        _ = try signedUp("carla@example.org")
        let mailbox = Browser(app)
        try mailbox.get(target)
        let token = String(try #require(try mailbox.get("/confirm/email").bodyText
            .firstMatch(of: /name="token" value="([^"]+)"/)).1)
        #expect(try mailbox.post("/confirm/email", [("token", token)]).status == 409)
        #expect(try database.accounts.user(email: "bob@example.org") != nil)

        #expect(try bob.post("/account/email", [("newEmail", "dan@example.org"), ("password", "correct horse battery")])
            .status == 200)
        let late = try #require(try link(to: "dan@example.org"))
        clock.advance(24 * 3600 + 60)
        let expired = Browser(app)
        try expired.get(late)
        #expect(try expired.get("/confirm/email").status == 410)
        #expect(try database.accounts.user(email: "dan@example.org") == nil)
    }
}
