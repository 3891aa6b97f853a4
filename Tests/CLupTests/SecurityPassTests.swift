import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupJobs
@testable import CLupSupport
@testable import CLupWeb

/// What a security pass found in accounts, mail, exports and routing (docs/security.md names
/// each test), in-process over an in-memory SQLite with the clock pinned.
@Suite("Security pass")
struct SecurityPassTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App

    init() throws {
        (clock, database, app) = try Fixture.start()
    }

    /// The recipient of every message in the outbox (opened: the rows hold it sealed).
    func outbox() throws -> [String] {
        try database.values(String.self, sql: "SELECT recipient FROM outboxMessage ORDER BY id").compactMap { $0 }
            .map(Sealed.open)
    }

    @Test("security: the five-an-hour mail cap counts a mailbox however its address is spelt")
    func mailCapByMailbox() throws {
        let spellings = ["Sec3-bomb@example.org", "sEc3-bomb@example.org", "sec3-bomb@Example.org", "SEC3-BOMB@EXAMPLE.ORG",
                         "sec3-bomb+1@example.org", "sec3-bomb+2@example.org", " sec3-bomb@example.org", "sec3-bomb@example.org"]
        for spelling in spellings { try Browser(app, address: "192.0.2.\(spellings.firstIndex(of: spelling)! + 1)")
            .post("/forgot", [("email", spelling)]) }
        let sent = try outbox().filter { MailAddress.key($0) == "sec3-bomb@example.org" }
        #expect(sent.count == 5)
        #expect(MailAddress.key("Ünï@Exämple.org") == MailAddress.key("u\u{308}ni\u{308}@exa\u{308}mple.org"))
    }

    @Test("security: mail to an unconfirmed account does not carry the name its sign-up typed")
    func unconfirmedGreeting() throws {
        let browser = Browser(app)
        try browser.get("/signup")
        let bait = "URGENT: account locked, verify at http://evil.example"
        try browser.post("/signup", [("email", "victim@example.org"), ("displayName", bait),
                                     ("password", "correct horse battery"), ("passwordAgain", "correct horse battery"), ("terms", "accepted")])
        let confirmation = try require(try database.notices.mail(to: "victim@example.org").first)
        #expect(confirmation.body.hasPrefix("Hello,\n\n"))
        #expect(!confirmation.body.contains("URGENT") && !confirmation.body.contains("evil"))
        // Once confirmed, the account's own name is used again.
        try Browser(app).post("/forgot", [("email", "victim@example.org")])
        let link = try require(Browser.link(in: confirmation, path: "/confirm"))
        try Browser(app).post("/confirm", [("token", String(link.split(separator: "=").last ?? ""))])
        try Browser(app).post("/forgot", [("email", "victim@example.org")])
        #expect(try database.notices.mail(to: "victim@example.org").last?.body.hasPrefix("Hello URGENT") == true)
    }

    @Test("security: confirming an address ends the sessions made before, but the confirming browser's")
    func confirmationEndsEarlierSessions() throws {
        // A squatter signs up with someone else's address and stays signed in.
        let squatter = Browser(app, address: "203.0.113.9")
        try squatter.get("/signup")
        try squatter.post("/signup", [("email", "owner@example.org"), ("displayName", "Squatter"),
                                      ("password", "correct horse battery"), ("passwordAgain", "correct horse battery"), ("terms", "accepted")])
        try squatter.signIn(email: "owner@example.org")
        #expect(try squatter.get("/account").status == 200)
        // The owner signs in on their phone and confirms there.
        let owner = Browser(app, address: "192.0.2.44")
        try owner.signIn(email: "owner@example.org")
        let link = try require(Browser.link(in: try database.notices.mail(to: "owner@example.org").first, path: "/confirm"))
        try owner.open(link)
        #expect(try owner.post("/confirm", [("token", String(link.split(separator: "=").last ?? ""))]).status == 200)
        #expect(try squatter.get("/account").header("Location")?.hasPrefix("/signin") == true)
        #expect(try owner.get("/account").status == 200)
        let userId = try require(try database.accounts.user(email: "owner@example.org")).id
        #expect(try database.accounts.sessionCount(userId: userId) == 1)
    }

    @Test("security: a path with a trailing or doubled slash is not routed, so limits keyed on paths hold")
    func exactPaths() throws {
        for path in ["/signin/", "//signin", "/signin//", "/manage/", "/kiosk/door/"] {
            #expect(try Browser(app).post(path, [("email", "a@example.org"), ("password", "x")]).status == 404, "\(path)")
        }
        #expect(try Browser(app).get("/").status == 200)
    }

    @Test("security: sign-in throttling counts an IPv6 client by its /64")
    func ipv6Throttle() throws {
        _ = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada", passwordHash: PasswordHasher().hash("correct horse battery"),
                                    now: clock.now, confirmation: nil)
        for index in 1...5 {
            let response = try Browser(app, address: "2001:db8:aa:bb::\(index)").signIn(email: "ada@example.org", password: "wrong wrong")
            #expect(response.status == 401)
        }
        let sixth = try Browser(app, address: "2001:db8:aa:bb:ffff::9").signIn(email: "ada@example.org")
        #expect(sixth.status == 429)
        // Another /64, or IPv4, is another client.
        #expect(try Browser(app, address: "2001:db8:aa:bc::1").signIn(email: "ada@example.org").status == 303)
        #expect(ClientAddress.key("2001:DB8:0:0:1::2") == "2001:db8:0:0::/64")
        #expect(ClientAddress.key("::ffff:192.0.2.1") == "192.0.2.1")
        #expect(ClientAddress.key("192.0.2.1") == "192.0.2.1")
    }

    @Test("security: a large form is refused before it is decoded; one without a token cookie before it is read")
    func largeBodies() throws {
        // 1 MB of a=1& from a browser with no cookies: refused on the missing token, unread.
        var request = Request(method: .post, path: "/signin",
                              body: Array(String(repeating: "a=1&", count: 262_144).utf8))
        request.headers["content-type"] = "application/x-www-form-urlencoded"
        let cookieless = app.respond(to: request)
        #expect(cookieless.status == 403)
        // With a token cookie: too many fields, too long a field, too large a body.
        let browser = Browser(app)
        try browser.get("/signin")
        let pairs = (0...FormData.maxPairs).map { ("f\($0)", "1") }
        #expect(try browser.post("/signin", pairs).status == 413)
        #expect(try browser.post("/signin", [("email", String(repeating: "b", count: FormData.maxFieldBytes + 1))]).status == 413)
        #expect(try browser.post("/signin", [("email", "a@example.org"), ("password", "x")]).status == 401)
        #expect(throws: HTTPError.self) { try FormData(urlEncoded: String(repeating: "a=1&", count: FormData.maxPairs + 1)) }
        #expect(try FormData(urlEncoded: String(repeating: "a=1&", count: FormData.maxPairs)).pairs.count == FormData.maxPairs)
    }

    @Test("security: names and reasons refuse line separators, bidirectional controls and invisible characters", arguments: [
        "Mario\u{2028}Rossi", "Mario\u{2029}", "Mario\u{202E}gnp.exe", "\u{2066}Ada\u{2069}", "Ada\u{200F}", "Ada\u{7}",
        "A\u{200B}da", "\u{FEFF}Ada", "Ada\u{2060}", "Ro\u{AD}ssi",
    ])
    func invisibleControls(name: String) throws {
        #expect(AccountFields.nameProblem(name) == "Use letters, numbers and punctuation only.")
        #expect(ManageArea.textProblem(name, maxLength: 100) != nil)
        // Emoji sequences joined with U+200D (and a flag's tags), a joiner some scripts need,
        // accents and other scripts are fine.
        #expect(AccountFields.nameProblem("Zoë 👩\u{200D}🌾 Ñandú") == nil)
        #expect(AccountFields.nameProblem("\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} Mehr\u{200C}dad") == nil)
    }

    @Test("security: a mail subject that is not ASCII goes out as RFC 2047 encoded words")
    func encodedSubject() throws {
        let subject = "È il tuo turno da Bottega Città — entra entro le 10:40, per favore"
        let header = MailDelivery.encodedWords(subject)
        #expect(header.unicodeScalars.allSatisfy { $0.isASCII })
        let words = header.components(separatedBy: "\r\n ")
        #expect(words.count > 1 && words.allSatisfy { $0.count <= 75 && $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") })
        let decoded = words.map { word -> String in
            let base64 = String(word.dropFirst("=?UTF-8?B?".count).dropLast(2))
            return String(decoding: Data(base64Encoded: base64) ?? Data(), as: UTF8.self)
        }.joined()
        #expect(decoded == subject)
        #expect(MailDelivery.encodedWords("Confirm your CLup account") == "Confirm your CLup account")
    }

    @Test("a store that does not exist is a 404 for a write too, not a 500")
    func missingStoreWrite() throws {
        _ = try database.accounts.createUser(email: "root@example.org", displayName: "Root",
                                    passwordHash: PasswordHasher().hash("correct horse battery"), role: .admin,
                                    now: clock.now, confirmation: nil)
        let admin = Browser(app)
        try admin.signIn(email: "root@example.org")
        try admin.get("/manage")
        // Admins manage every store, so the guard lets id 999 through; the write finds none.
        #expect(try admin.post("/manage/stores/999/staff-pin", [("pin", "246810")]).status == 404)
        #expect(throws: StoreError.noSuchStore) {
            try database.accounts.setStaffPin(storeId: 999, pinHash: "x", by: nil, now: clock.now)
        }
    }

    @Test("security: an emailed link's token reaches a cookie only if it is a token's characters")
    func linkTokenIntoCookie() throws {
        let browser = Browser(app)
        let injected = try browser.get("/reset?token=abc%0D%0ASet-Cookie:%20x=1")
        #expect(injected.status == 303)
        let cookie = try require(injected.setCookie(named: "clup_link"))
        #expect(cookie.hasPrefix("clup_link=;") && !cookie.contains("\r") && !cookie.contains("\n"))
        #expect(!injected.headers.contains { $0.name == "Set-Cookie" && $0.value.hasPrefix("x=") })
        #expect(try browser.get("/reset").status == 410)
    }
}
