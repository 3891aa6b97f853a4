import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb
import CLupTemplates

/// Accounts through the real app, templates and an in-memory SQLite, the clock moved by hand.
@Suite("Accounts, sessions and the security baseline")
struct AccountsTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App

    init() throws {
        (clock, database, app) = try Fixture.start()
    }

    func user(_ email: String) throws -> User? { try database.accounts.user(email: email) }

    // MARK: Sign up and confirm

    @Test("signing up stores an argon2id hash and sends a confirmation link; the account starts unconfirmed")
    func signUp() throws {
        let browser = Browser(app)
        try browser.get("/signup")
        let response = try browser.post("/signup", [
            ("email", "ada@example.org"), ("displayName", "Ada"), ("password", "correct horse battery"),
            ("passwordAgain", "correct horse battery"), ("terms", "accepted"),
        ])
        #expect(response.status == 200)
        #expect(response.bodyText.contains("Check your email"))
        let ada = try #require(try user("ada@example.org"))
        #expect(!ada.isConfirmed)
        #expect(ada.passwordHash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(!ada.passwordHash.contains("correct horse"))
        let mail = try #require(try database.notices.mail(to: "ada@example.org").last)
        #expect(mail.subject == "Confirm your CLup account")
        #expect(Browser.link(in: mail, path: "/confirm") != nil)
        #expect(mail.body.contains("https://clup.example.org/confirm?token="))
    }

    @Test("weak, mismatched or malformed sign-ups are refused with a reason and create nothing", arguments: [
        ("ada@example.org", "Ada", "short", "short", "at least 8"),
        ("ada@example.org", "Ada", "password123", "password123", "most common"),
        ("ada@example.org", "Ada", "ada@example.org1", "ada@example.org1", "email address or name"),
        ("ada@example.org", "Ada", "correct horse battery", "correct horse batteri", "do not match"),
        ("not-an-email", "Ada", "correct horse battery", "correct horse battery", "name@example.com"),
        ("ada@example.org", "", "correct horse battery", "correct horse battery", "greet you with"),
    ])
    func refusedSignUps(email: String, name: String, password: String, again: String, reason: String) throws {
        let browser = Browser(app)
        try browser.get("/signup")
        let response = try browser.post("/signup", [
            ("email", email), ("displayName", name), ("password", password), ("passwordAgain", again), ("terms", "accepted"),
        ])
        #expect(response.status == 422)
        #expect(response.bodyText.contains(reason))
        #expect(!response.bodyText.contains(password) || password == email)  // passwords are never echoed
        #expect(try user(email) == nil)
        #expect(try database.notices.mail(to: email).isEmpty)
    }

    // MARK: Terms of service

    @Test("sign-up needs the terms of service accepted, and records the version and when")
    func termsAtSignUp() throws {
        let browser = Browser(app)
        let form = try browser.get("/signup").bodyText
        #expect(form.contains(#"<input id="terms" type="checkbox" name="terms" value="accepted" required>"#))
        #expect(form.contains(#"<a href="/terms" target="_blank">terms of service</a>"#))
        let fields = [("email", "ada@example.org"), ("displayName", "Ada"), ("password", "correct horse battery"),
                      ("passwordAgain", "correct horse battery")]
        let refused = try browser.post("/signup", fields)
        #expect(refused.status == 422)
        #expect(refused.bodyText.contains(#"<p class="field-error" id="terms-error">Accept the terms of service to create an account.</p>"#)
            || refused.bodyText.contains("Accept the terms of service to create an account."))
        #expect(refused.bodyText.contains(#"aria-describedby="terms-error""#))
        #expect(try user("ada@example.org") == nil)
        #expect(try browser.post("/signup", fields + [("terms", "accepted")]).status == 200)
        let ada = try #require(try user("ada@example.org"))
        #expect(ada.termsVersion == TermsOfService.version && ada.termsAcceptedAt == clock.now)
    }

    @Test("an account that has not accepted the terms in force is asked at sign-in, and cannot reserve until it does")
    func termsAtSignIn() throws {
        // Made by an administrator: no terms accepted yet.
        _ = try database.accounts.createUser(email: "boss@example.org", displayName: "Boss", passwordHash: Fixture.passwordHash,
                                    acceptedTerms: nil, now: clock.now, confirmation: nil)
        let browser = Browser(app)
        try browser.get("/signin")
        let signedIn = try browser.post("/signin", [("email", "boss@example.org"), ("password", "correct horse battery"),
                                                    ("next", "/reservations")])
        #expect(signedIn.status == 303 && signedIn.header("Location") == "/terms/accept?next=%2Freservations")
        let asked = try browser.get("/terms/accept?next=%2Freservations")
        #expect(asked.status == 200)
        #expect(asked.bodyText.contains("Please read the terms of service and accept them to go on."))
        #expect(asked.bodyText.contains("Version 1, in force from"))
        // Elsewhere it is sent back here; a form is refused; its account page stays open.
        let elsewhere = try browser.get("/reservations")
        #expect(elsewhere.status == 303 && elsewhere.header("Location") == "/terms/accept?next=%2Freservations")
        let form = try browser.post("/stores/1/reservations", [("kind", "lineUp"), ("minutes", "30"), ("people", "1")])
        #expect(form.status == 403 && form.bodyText.contains("Accept the terms of service first"))
        #expect(try browser.get("/account").status == 200)
        #expect(try browser.get("/account/data").status == 200)
        // Accepting records the version and goes on where it was going.
        try browser.get("/terms/accept?next=%2Freservations")
        let accepted = try browser.post("/terms/accept", [("next", "/reservations")])
        #expect(accepted.status == 303 && accepted.header("Location") == "/reservations")
        let boss = try #require(try user("boss@example.org"))
        #expect(boss.termsVersion == TermsOfService.version && boss.termsAcceptedAt == clock.now)
        #expect(try browser.get("/reservations").status == 200)
        #expect(try browser.get("/terms/accept?next=%2Freservations").header("Location") == "/reservations")
    }

    @Test("a new version of the terms is asked for at the next sign-in of an account that accepted an older one")
    func newTermsVersion() throws {
        _ = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada", passwordHash: Fixture.passwordHash,
                                    acceptedTerms: TermsOfService.version, now: clock.now, confirmation: nil)
        let browser = Browser(app)
        #expect(try browser.signIn(email: "ada@example.org").header("Location") == "/")
        #expect(!TermsOfService.mustAccept(TermsOfService.version))
        #expect(TermsOfService.mustAccept(TermsOfService.version - 1) && TermsOfService.mustAccept(nil))
        // Asked again, an account that accepted an earlier version is told the terms changed;
        // one that accepted none is asked to read them.
        let frame = Frame(title: "Terms", stylesheet: "/a.css", script: "/a.js", icon: "/i.svg", section: .stores,
                          csrf: "token", userName: "Ada", isManager: false, unconfirmed: false)
        #expect(TermsAcceptPage(version: "Version 2.", changed: true, next: "/").render(in: frame).text
            .contains("The terms of service have a new version."))
        #expect(TermsAcceptPage(version: "Version 2.", changed: false, next: "/").render(in: frame).text
            .contains("Please read the terms of service and accept them to go on."))
    }

    @Test("the terms of service have a page of their own in both languages, linked from every page")
    func termsPage() throws {
        let english = app.get("/terms")
        #expect(english.status == 200)
        #expect(english.bodyText.contains("<h1>Terms of service</h1>") && english.bodyText.contains("<h2>Fair use</h2>"))
        #expect(english.bodyText.contains("Version 1, in force from"))
        #expect(app.get("/").bodyText.contains(#"<a href="/terms">Terms of service</a>"#))
        let italian = app.request("GET", "/terms", cookies: "lang=it")
        #expect(italian.bodyText.contains("<h1>Condizioni d&#39;uso</h1>") && italian.bodyText.contains("<h2>Uso corretto</h2>"))
    }

    @Test("signing up with a taken address answers the same, creates nothing, and tells the owner")
    func duplicateSignUp() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let browser = Browser(app)
        try browser.get("/signup")
        let response = try browser.post("/signup", [
            ("email", "ADA@example.org"), ("displayName", "Mallory"), ("password", "another long pass"),
            ("passwordAgain", "another long pass"), ("terms", "accepted"),
        ])
        #expect(response.status == 200)
        #expect(response.bodyText.contains("Check your email"))
        #expect(try user("ada@example.org")?.displayName == "Ada")
        #expect(try database.notices.mail(to: "ada@example.org").last?.subject == "You already have a CLup account")
    }

    @Test("opening the confirmation link changes nothing; its button confirms, once")
    func confirmation() throws {
        let browser = Browser(app)
        try browser.get("/signup")
        try browser.post("/signup", [("email", "ada@example.org"), ("displayName", "Ada"),
                                     ("password", "correct horse battery"), ("passwordAgain", "correct horse battery"), ("terms", "accepted")])
        let link = try #require(Browser.link(in: try database.notices.mail(to: "ada@example.org").last, path: "/confirm"))
        let token = String(link.split(separator: "=")[1])

        let page = try browser.open(link)
        #expect(page.status == 200)
        #expect(page.bodyText.contains("Confirm my email address"))
        #expect(try user("ada@example.org")?.isConfirmed == false)  // no state change on GET

        #expect(try browser.post("/confirm", [("token", token)]).bodyText.contains("Your email is confirmed"))
        #expect(try user("ada@example.org")?.emailConfirmedAt == clock.now)
        #expect(try browser.post("/confirm", [("token", token)]).status == 410)
        #expect(try browser.open(link).status == 410)
    }

    @Test("a confirmation link expires after 7 days")
    func confirmationExpires() throws {
        let browser = Browser(app)
        try browser.get("/signup")
        try browser.post("/signup", [("email", "ada@example.org"), ("displayName", "Ada"),
                                     ("password", "correct horse battery"), ("passwordAgain", "correct horse battery"), ("terms", "accepted")])
        let link = try #require(Browser.link(in: try database.notices.mail(to: "ada@example.org").last, path: "/confirm"))
        clock.advance(7 * 24 * 3600 + 1)
        #expect(try browser.post("/confirm", [("token", String(link.split(separator: "=")[1]))]).status == 410)
        #expect(try user("ada@example.org")?.isConfirmed == false)
    }

    // MARK: Sign in, sessions, cookies

    @Test("signing in sets a fresh HttpOnly, SameSite=Lax session cookie whose id is stored only hashed")
    func signInCookie() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let browser = Browser(app)
        let response = try browser.signIn(email: "ada@example.org")
        #expect(response.status == 303)
        let cookie = try #require(response.setCookie(named: "clup_session"))
        #expect(cookie.contains("; Path=/") && cookie.contains("; HttpOnly") && cookie.contains("; SameSite=Lax"))
        #expect(cookie.contains("; Max-Age=2592000"))
        #expect(!cookie.contains("Secure"))
        let token = try #require(browser.cookies["clup_session"])
        #expect(token.count == 22)  // 128 bits, base64url
        let stored = try database.values(String.self, sql: "SELECT idHash FROM session")
        #expect(stored == [Secrets.hash(token)])
        #expect(try browser.get("/account").bodyText.contains("ada@example.org"))

        // A second sign-in gets a different id.
        let again = Browser(app)
        try again.signIn(email: "ada@example.org")
        #expect(again.cookies["clup_session"] != token)
    }

    @Test("over HTTPS the session and CSRF cookies are Secure and __Host- prefixed")
    func secureCookies() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let browser = Browser(app, https: true)
        let page = try browser.get("/signin")
        #expect(page.setCookie(named: "__Host-clup_csrf")?.contains("; Secure") == true)
        let response = try browser.post("/signin", [("email", "ada@example.org"), ("password", "correct horse battery")])
        let cookie = try #require(response.setCookie(named: "__Host-clup_session"))
        #expect(cookie.contains("; Secure") && cookie.contains("; Path=/") && !cookie.contains("Domain"))
    }

    @Test("a wrong password and an unknown address get the same answer")
    func sameAnswer() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let wrong = try Browser(app).signIn(email: "ada@example.org", password: "not her password")
        let unknown = try Browser(app).signIn(email: "nobody@example.org", password: "not her password")
        #expect(wrong.status == 401 && unknown.status == 401)
        let message = "That email address and password do not match an account."
        #expect(wrong.bodyText.contains(message) && unknown.bodyText.contains(message))
    }

    @Test("an unknown address takes about as long to refuse as a wrong password (both run argon2id)")
    func sameTime() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        // Taken in turns, and the quickest of each kept: argon2id's cost is a floor either
        // side, while a busy machine only ever adds to one try or another.
        var times: [String: [Double]] = [:]
        for index in 0..<7 {
            for email in ["ada@example.org", "nobody@example.org"] {
                let browser = Browser(app, address: "198.51.100.\(index)")  // stay under the throttle
                try browser.get("/signin")
                let start = DispatchTime.now().uptimeNanoseconds
                let response = try browser.post("/signin", [("email", email), ("password", "not her password")])
                times[email, default: []].append(Double(DispatchTime.now().uptimeNanoseconds - start))
                #expect(response.status == 401)  // refused as wrong, not throttled
            }
        }
        let wrong = try #require(times["ada@example.org"]?.min())
        let unknown = try #require(times["nobody@example.org"]?.min())
        #expect(unknown / wrong > 0.5 && unknown / wrong < 2, "unknown \(unknown) ns, wrong \(wrong) ns")
    }

    @Test("the sixth rapid wrong password is throttled, even when right; it eases with time and elsewhere")
    func throttling() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let attacker = Browser(app, address: "203.0.113.9")
        for _ in 1...5 {
            #expect(try attacker.signIn(email: "ada@example.org", password: "guess guess guess").status == 401)
        }
        let sixth = try attacker.signIn(email: "ada@example.org", password: "guess guess guess")
        #expect(sixth.status == 429)
        #expect(sixth.header("Retry-After") == "30")
        #expect(sixth.bodyText.contains("Too many failed attempts"))
        #expect(try attacker.signIn(email: "ada@example.org").status == 429)

        // The owner, elsewhere, is not locked out.
        #expect(try Browser(app, address: "192.0.2.77").signIn(email: "ada@example.org").status == 303)

        // After 30 s the attacker may try again; each further failure doubles the wait.
        clock.advance(31)
        #expect(try attacker.signIn(email: "ada@example.org", password: "guess guess guess").status == 401)
        #expect(try attacker.signIn(email: "ada@example.org", password: "guess").header("Retry-After") == "60")
    }

    @Test("a huge address in a failed sign-in is shown cut to 254 characters, and kept as a keyed hash of fixed size")
    func hugeAddress() throws {
        let huge = String(repeating: "a", count: 10_000) + "@example.org"
        let answer = try Browser(app).signIn(email: huge, password: "whatever it is")
        #expect(answer.status == 401)
        #expect(answer.body.count < 20_000)
        let kept = try database.value(String.self, sql: "SELECT account FROM signInFailure") ?? ""
        #expect(kept.hasPrefix(DataKey.lookupPrefix) && kept.count == 46 && !kept.contains("aaa"))
        // Past the largest field any form has (16 KiB), the form is refused before it is read.
        let larger = try Browser(app).signIn(email: String(repeating: "a", count: 100_000) + "@example.org", password: "x")
        #expect(larger.status == 413)
        #expect(try database.value(Int.self, sql: "SELECT COUNT(*) FROM signInFailure") == 1)
    }

    @Test("throttling rules, by the numbers")
    func throttleRules() {
        let now = Fixture.wednesdayMorning
        let seconds = { (values: [Double]) in values.map { now.addingTimeInterval($0) } }
        #expect(SignInThrottle.wait(history: SignInHistory(pair: seconds([-4, -3, -2, -1])), now: now) == nil)
        #expect(SignInThrottle.wait(history: SignInHistory(pair: seconds([-5, -4, -3, -2, -1])), now: now) == 29)
        #expect(SignInThrottle.wait(history: SignInHistory(pair: seconds(Array(repeating: -1, count: 20))), now: now) == 899)
        // Failures older than the window no longer count.
        #expect(SignInThrottle.wait(history: SignInHistory(pair: seconds([-1000, -999, -998, -997, -996])), now: now) == nil)
        // One client trying many accounts.
        #expect(SignInThrottle.wait(history: SignInHistory(client: seconds(Array(repeating: -10, count: 50))), now: now) == 50)
        // No more than 100 failures an hour for one account, from anywhere.
        let hundred = seconds((0..<100).map { -3000 + Double($0) })
        #expect(SignInThrottle.wait(history: SignInHistory(account: hundred), now: now) == 600)
    }

    @Test("sessions end after a week unused or a month in all")
    func sessionExpiry() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let browser = Browser(app)
        try browser.signIn(email: "ada@example.org")
        clock.advance(6 * 24 * 3600)
        #expect(try browser.get("/account").status == 200)  // used within the week: still signed in
        clock.advance(8 * 24 * 3600)
        let expired = try browser.get("/account")
        #expect(expired.status == 303)
        #expect(expired.header("Location") == "/signin?next=%2Faccount")
        #expect(try database.value(Int.self, sql: "SELECT count(*) FROM session") == 0)

        let daily = Browser(app)
        try daily.signIn(email: "ada@example.org")
        for _ in 0..<31 {
            clock.advance(24 * 3600)
            try daily.get("/")
        }
        #expect(try daily.get("/account").status == 303)  // 31 days, however active
    }

    // MARK: CSRF and GET

    @Test("a missing or forged CSRF token is refused with 403 and changes nothing")
    func csrf() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let browser = Browser(app)
        try browser.signIn(email: "ada@example.org")
        try browser.get("/account")
        let fields = [("displayName", "Mallory"), ("travelMode", "car")]
        for csrf in [String?.none, "forged-token-forged-token", ""] {
            let response = try browser.post("/account/profile", fields, csrf: .some(csrf))
            #expect(response.status == 403)
            #expect(response.bodyText.contains("nothing was changed"))
        }
        #expect(try user("ada@example.org")?.displayName == "Ada")
        // A guest's token is not a session's: the token from before signing in no longer works.
        let guest = Browser(app)
        try guest.get("/signin")
        let guestToken = try #require(guest.formToken)
        #expect(try browser.post("/account/profile", fields, csrf: .some(guestToken)).status == 403)
        #expect(try browser.post("/account/profile", fields).status == 303)
        #expect(try user("ada@example.org")?.displayName == "Mallory")
    }

    @Test("sign-in forms are CSRF-protected too, and nothing changes state on GET", arguments: [
        "/signout", "/signin", "/signup", "/forgot", "/reset", "/confirm", "/account/delete",
    ])
    func postOnly(path: String) throws {
        let browser = Browser(app)
        #expect(try browser.post(path, [], csrf: .some(nil)).status == 403)
        if !["/signin", "/signup", "/forgot", "/reset", "/confirm"].contains(path) {
            #expect(try browser.get(path).status == 405)
        }
    }

    @Test("after signing in, only a local path is followed")
    func nextPath() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        for (next, expected) in [("/account", "/account"), ("//evil.example", "/"), ("https://evil.example", "/"),
                                 ("/\\evil", "/")] {
            let browser = Browser(app)
            try browser.get("/signin?next=" + FormData.encode(next))
            let response = try browser.post("/signin", [("email", "ada@example.org"),
                                                        ("password", "correct horse battery"), ("next", next)])
            #expect(response.header("Location") == expected, "\(next)")
        }
    }

    // MARK: Forgotten password

    @Test("the reset form answers the same for unknown addresses, and mails either way")
    func forgotSameAnswer() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let known = try Browser(app).post("/forgot", [("email", "ada@example.org")])
        let unknown = try Browser(app).post("/forgot", [("email", "nobody@example.org")])
        #expect(known.status == 200 && unknown.status == 200)
        #expect(known.bodyText.replacingOccurrences(of: "ada@example.org", with: "X")
            .replacing(#/name="csrf" value="[^"]*"/#, with: "")
            == unknown.bodyText.replacingOccurrences(of: "nobody@example.org", with: "X")
            .replacing(#/name="csrf" value="[^"]*"/#, with: ""))
        #expect(try database.notices.mail(to: "ada@example.org").last?.subject == "Reset your CLup password")
        #expect(try database.notices.mail(to: "nobody@example.org").last?.subject == "Your CLup password reset request")
    }

    @Test("a reset link works once, within the hour, and signs out every session")
    func reset() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let phone = Browser(app)
        try phone.signIn(email: "ada@example.org")
        let browser = Browser(app)
        try browser.post("/forgot", [("email", "ada@example.org")])
        let link = try #require(Browser.link(in: try database.notices.mail(to: "ada@example.org").last, path: "/reset"))
        let token = String(link.split(separator: "=")[1])
        #expect(try browser.open(link).bodyText.contains("Choose a new password"))
        #expect(try browser.post("/reset", [("token", token), ("password", "qwertyuiop"), ("passwordAgain", "qwertyuiop")])
            .status == 422)
        let done = try browser.post("/reset", [("token", token), ("password", "a brand new secret"),
                                               ("passwordAgain", "a brand new secret")])
        #expect(done.bodyText.contains("Your password is changed"))
        #expect(try phone.get("/account").status == 303)  // signed out
        #expect(try browser.post("/reset", [("token", token), ("password", "another new secret"),
                                            ("passwordAgain", "another new secret")]).status == 410)
        #expect(try Browser(app).signIn(email: "ada@example.org", password: "a brand new secret").status == 303)
        #expect(try Browser(app).signIn(email: "ada@example.org").status == 401)

        try browser.post("/forgot", [("email", "ada@example.org")])
        let late = try #require(Browser.link(in: try database.notices.mail(to: "ada@example.org").last, path: "/reset"))
        clock.advance(3601)
        #expect(try browser.open(late).status == 410)
    }

    @Test("no address gets more than five emails an hour from these forms")
    func mailCap() throws {
        for _ in 0..<8 { try Browser(app).post("/forgot", [("email", "victim@example.org")]) }
        #expect(try database.notices.mail(to: "victim@example.org").count == 5)
        clock.advance(3601)
        try Browser(app).post("/forgot", [("email", "victim@example.org")])
        #expect(try database.notices.mail(to: "victim@example.org").count == 6)
    }

    // MARK: Account page

    @Test("the profile keeps the name, usual transport and loyalty choice; the store list uses the transport")
    func profile() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let browser = Browser(app)
        try browser.signIn(email: "ada@example.org")
        try browser.get("/account")
        let saved = try browser.post("/account/profile", [("displayName", "Ada L."), ("travelMode", "transit"),
                                                          ("loyaltyOptIn", "on")])
        #expect(saved.header("Location") == "/account?saved=profile")
        let ada = try #require(try user("ada@example.org"))
        #expect(ada.displayName == "Ada L." && ada.travelMode == .transit && ada.loyaltyOptIn)
        #expect(try browser.get("/account?saved=profile").bodyText.contains("Your profile is saved."))
        #expect(try browser.get("/").bodyText.contains(", <strong>by public transport</strong>."))
        #expect(try browser.post("/account/profile", [("displayName", ""), ("travelMode", "car")]).status == 422)
        #expect(try browser.post("/account/profile", [("displayName", "Ada"), ("travelMode", "rocket")]).status == 400)
    }

    @Test("changing the password needs the current one, signs out other devices and tells the owner")
    func changePassword() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let laptop = Browser(app)
        try laptop.signIn(email: "ada@example.org")
        let browser = Browser(app)
        try browser.signIn(email: "ada@example.org")
        try browser.get("/account")
        let wrong = try browser.post("/account/password", [("currentPassword", "nope nope nope"),
                                                           ("newPassword", "a brand new secret"),
                                                           ("newPasswordAgain", "a brand new secret")])
        #expect(wrong.status == 422 && wrong.bodyText.contains("current password is not right"))
        let done = try browser.post("/account/password", [("currentPassword", "correct horse battery"),
                                                          ("newPassword", "a brand new secret"),
                                                          ("newPasswordAgain", "a brand new secret")])
        #expect(done.header("Location") == "/account?saved=password")
        #expect(try browser.get("/account").status == 200)
        #expect(try laptop.get("/account").status == 303)
        #expect(try database.notices.mail(to: "ada@example.org").last?.subject == "Your CLup password was changed")
    }

    @Test("sign out, and sign out everywhere")
    func signOut() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        let one = Browser(app)
        try one.signIn(email: "ada@example.org")
        let two = Browser(app)
        try two.signIn(email: "ada@example.org")
        try one.get("/")
        #expect(try one.post("/signout").header("Location") == "/")
        #expect(try one.get("/account").status == 303)
        #expect(try two.get("/account").status == 200)
        let id = try #require(try user("ada@example.org")?.id)
        let three = Browser(app)
        try three.signIn(email: "ada@example.org")
        #expect(try database.accounts.sessionCount(userId: id) == 2)
        try two.get("/account")
        try two.post("/signout/everywhere")
        #expect(try database.accounts.sessionCount(userId: id) == 0)
        #expect(try three.get("/account").status == 303)
    }

    @Test("deleting the account needs the password and removes the person and their sessions")
    func deleteAccount() throws {
        try Browser(app).signUpAndConfirm(email: "ada@example.org")
        try Browser(app).signIn(email: "ada@example.org", password: "a typo in it")  // leaves a failure on record
        let browser = Browser(app, address: "192.0.2.11")
        try browser.signIn(email: "ada@example.org")
        try browser.get("/account")
        #expect(try browser.post("/account/delete", [("password", "wrong wrong wrong")]).status == 422)
        #expect(try user("ada@example.org") != nil)
        let done = try browser.post("/account/delete", [("password", "correct horse battery")])
        #expect(done.bodyText.contains("Your account is deleted"))
        #expect(try user("ada@example.org") == nil)
        #expect(try database.value(Int.self, sql: "SELECT count(*) FROM session") == 0)
        #expect(try database.value(Int.self, sql: "SELECT count(*) FROM signInFailure WHERE account = 'ada@example.org'") == 0)
        #expect(try Browser(app).signIn(email: "ada@example.org").status == 401)
    }

    @Test("an unconfirmed account may sign in and is reminded to confirm")
    func unconfirmed() throws {
        let browser = Browser(app)
        try browser.get("/signup")
        try browser.post("/signup", [("email", "ada@example.org"), ("displayName", "Ada"),
                                     ("password", "correct horse battery"), ("passwordAgain", "correct horse battery"), ("terms", "accepted")])
        #expect(try browser.signIn(email: "ada@example.org").status == 303)
        let page = try browser.get("/")
        #expect(page.bodyText.contains("Please confirm your email address"))
        try browser.post("/confirm/resend")
        #expect(try database.notices.mail(to: "ada@example.org").count == 2)
    }
}

/// Who may see what: by role, by store, and by guessing identifiers.
@Suite("Authorization on every request")
struct AuthorizationTests {
    let database: AppDatabase
    let app: App
    let first: StoreID
    let second: StoreID

    init() throws {
        database = try Fixture.database()
        first = try database.stores.createStore(Fixture.store("First", at: .milanCentre), hours: Fixture.weekdayHours,
                                         departments: []).id
        second = try database.stores.createStore(Fixture.store("Second", at: .milanCentre), hours: Fixture.weekdayHours,
                                          departments: []).id
        app = try Fixture.app(database: database)
        for (email, role) in [("customer@example.org", Role.customer), ("manager@example.org", .manager),
                              ("admin@example.org", .admin)] {
            _ = try database.accounts.createUser(email: email, displayName: "X", passwordHash: PasswordHasher().hash("correct horse battery"),
                                        role: role, now: Fixture.wednesdayMorning, confirmation: nil)
        }
        try database.accounts.assignStore(storeId: first, toManager: "manager@example.org")
    }

    func signedIn(_ email: String) throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: email)
        return browser
    }

    @Test("guests are sent to sign in; customers cannot enter the managers' area")
    func roles() throws {
        let guest = Browser(app)
        #expect(try guest.get("/manage").header("Location") == "/signin?next=%2Fmanage")
        #expect(try guest.get("/manage/stores/\(first)").status == 303)
        let customer = try signedIn("customer@example.org")
        #expect(try customer.get("/manage").status == 403)
        #expect(try customer.get("/manage/stores/\(first)").status == 403)
    }

    @Test("a manager sees their stores and gets 403 for any other id they try")
    func managerScope() throws {
        let manager = try signedIn("manager@example.org")
        let list = try manager.get("/manage")
        #expect(list.bodyText.contains("First") && !list.bodyText.contains("Second"))
        #expect(try manager.get("/manage/stores/\(first)").status == 200)
        for id in [second, 3, 999, 0, -1] {
            let status = try manager.get("/manage/stores/\(id)").status
            #expect(status == 403 || status == 404, "store \(id)")
        }
        #expect(try manager.get("/manage/stores/\(second)").status == 403)
    }

    @Test("an admin manages every store")
    func admin() throws {
        let admin = try signedIn("admin@example.org")
        #expect(try admin.get("/manage").bodyText.contains("Second"))
        #expect(try admin.get("/manage/stores/\(second)").status == 200)
    }

    @Test("a customer's pages carry no identifiers: another account cannot be named in a request")
    func ownDataOnly() throws {
        let customer = try signedIn("customer@example.org")
        try customer.get("/account")
        // Extra identifiers in the form are ignored: the account is always the session's.
        #expect(try customer.post("/account/profile", [("displayName", "Changed"), ("travelMode", "car"),
                                                       ("userId", "2"), ("email", "manager@example.org")]).status == 303)
        #expect(try database.accounts.user(email: "manager@example.org")?.displayName == "X")
        #expect(try database.accounts.user(email: "customer@example.org")?.displayName == "Changed")
    }

    @Test("a kiosk key is stored hashed, bound to one store, and stops working when revoked")
    func kiosks() throws {
        let key = Secrets.token(bytes: 32)
        let kiosk = try database.accounts.enrolKiosk(storeId: first, label: "Entrance", key: key, now: Fixture.wednesdayMorning)
        #expect(kiosk.keyHash == Secrets.hash(key) && kiosk.keyHash != key)
        #expect(try database.accounts.kiosk(key: key)?.storeId == first)
        #expect(try database.accounts.kiosk(key: Secrets.token(bytes: 32)) == nil)
        #expect(try database.accounts.kiosk(key: "short") == nil)
        let manager = try signedIn("manager@example.org")
        #expect(try manager.get("/manage/stores/\(first)").bodyText.contains("Entrance"))
        // The figure beside the store's live numbers counts them (it rendered blank under Mustache).
        #expect(try manager.get("/manage/stores/\(first)").bodyText.contains("<dt>Kiosks</dt><dd>1 active</dd>"))
        #expect(try manager.get("/manage/stores/\(second)").status == 403)
        #expect(try database.accounts.revokeKiosk(id: kiosk.id, now: Fixture.wednesdayMorning))
        #expect(try manager.get("/manage/stores/\(first)").bodyText.contains("<dt>Kiosks</dt><dd>0 active, 1 revoked</dd>"))
        #expect(try database.accounts.kiosk(key: key) == nil)
        #expect(try !database.accounts.revokeKiosk(id: kiosk.id, now: Fixture.wednesdayMorning))
        #expect(throws: StoreError.noSuchStore) {
            try database.accounts.enrolKiosk(storeId: 999, label: "Nowhere", key: Secrets.token(bytes: 32), now: Fixture.wednesdayMorning)
        }
    }
}
