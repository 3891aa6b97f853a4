import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupWeb

/// Mail a form asks for to an address its sender may not own (`MailPace`): a launch's sign-ups
/// all get their confirmation, one client cannot mail strangers in bulk, and a page never says
/// "sent" for a mail that was not queued. In-process, on both engines, with the clock pinned.
@Suite("Sign-up mail")
struct SignUpMailTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App

    init() throws {
        (clock, database, app) = try Fixture.start()
    }

    func signUp(_ browser: Browser, _ email: String) throws -> Response {
        try browser.get("/signup")
        return try browser.post("/signup", [
            ("email", email), ("displayName", "New"), ("password", "correct horse battery"),
            ("passwordAgain", "correct horse battery"), ("terms", "accepted"),
        ])
    }

    @Test("a launch: 1,000 sign-ups in an hour from 50 clients, ten behind one address, all get their confirmation")
    func launch() throws {
        // Forty clients of their own, and ten people behind one carrier's address: 20 sign-ups
        // each, in turn, one every 3.6 s — the shared address asks for 200 in the hour.
        let clients = (1...40).map { Browser(app, address: "198.51.100.\($0)") }
            + (1...10).map { _ in Browser(app, address: "203.0.113.9") }
        let start = clock.now
        var latest: TimeInterval = 0
        for round in 0..<20 {
            for (index, client) in clients.enumerated() {
                let email = "launch-\(round)-\(index)@example.org"
                let page = try signUp(client, email)
                #expect(page.status == 200, "\(email): \(page.status)")
                let confirmation = try #require(try database.notices.mail(to: email).first)
                #expect(confirmation.subject == "Confirm your CLup account")
                latest = max(latest, confirmation.nextAttemptAt.timeIntervalSince(clock.now))
                // The page says the link leaves later exactly when it does.
                #expect(page.bodyText.contains("leaves within") == (confirmation.nextAttemptAt.timeIntervalSince(clock.now) >= 60))
                clock.advance(3.6)
            }
        }
        #expect(abs(clock.now.timeIntervalSince(start) - 3600) < 0.01)
        // Held back by a few minutes at most, never dropped: every one is due and goes out.
        #expect(latest <= 5 * 60)
        clock.advance(latest)
        let due = try database.notices.claimDueMail(now: clock.now, limit: 2000)
        #expect(due.filter { $0.subject == "Confirm your CLup account" }.count == 1000)
    }

    @Test("one client mailing strangers is paced: a burst at once, then one every 15 s, and refused past an hour's wait")
    func oneClientPaced() throws {
        let attacker = Browser(app, address: "198.51.100.7")
        for index in 0..<MailPace.burst {
            let page = try attacker.post("/forgot", [("email", "stranger\(index)@example.org")])
            #expect(page.status == 200 && page.bodyText.contains("we have sent it a link"))
        }
        #expect(try database.notices.mail(to: "stranger0@example.org").first?.nextAttemptAt == clock.now)
        // The next wait their turn, one every 15 s; once that is a minute or more, the page says
        // within how long the mail leaves rather than that it was sent.
        for index in 1...4 {
            let held = try attacker.post("/forgot", [("email", "held\(index)@example.org")])
            #expect(held.status == 200 && held.bodyText.contains("we have sent it a link") == (index < 4))
            #expect(held.bodyText.contains("leaves within 1 min") == (index == 4))
            #expect(try database.notices.mail(to: "held\(index)@example.org").first?.nextAttemptAt
                == clock.now + Double(index) * MailPace.interval)
        }
        // An hour's worth more is queued; past that, nothing is sent and the page says when to try.
        let queueable = Int(MailPace.longestDelay / MailPace.interval) - 4
        for index in 0..<queueable { try attacker.post("/forgot", [("email", "more\(index)@example.org")]) }
        #expect(try database.notices.mail(to: "more\(queueable - 1)@example.org").first?.nextAttemptAt
            == clock.now + MailPace.longestDelay)
        let refused = try attacker.post("/forgot", [("email", "refused@example.org")])
        #expect(refused.status == 429 && refused.header("Retry-After") == "60")
        #expect(refused.bodyText.contains("We cannot send more email to refused@example.org just now"))
        #expect(try database.notices.mail(to: "refused@example.org").isEmpty)
        // Another client is not held back by the first one's pace…
        let neighbour = try Browser(app, address: "198.51.100.8").post("/forgot", [("email", "someone@example.org")])
        #expect(neighbour.status == 200 && !neighbour.bodyText.contains("leaves within"))
        // …and one IPv6 client is every address of its /64.
        for index in 0..<MailPace.burst + 3 {
            try Browser(app, address: "2001:db8:1:2::\(index + 1)").post("/forgot", [("email", "v6-\(index)@example.org")])
        }
        let late = try Browser(app, address: "2001:db8:1:2::ff").post("/forgot", [("email", "v6-late@example.org")])
        #expect(late.bodyText.contains("leaves within 1 min"))
    }

    @Test("a sign-up whose confirmation cannot be sent makes no account, and says when to try again")
    func signUpRefused() throws {
        // The mailbox has had its five mails this hour (forgotten-password requests).
        for index in 0..<AppDatabase.mailPerRecipientPerHour {
            try Browser(app, address: "192.0.2.\(index + 1)").post("/forgot", [("email", "full@example.org")])
        }
        clock.advance(600)
        let page = try signUp(Browser(app, address: "192.0.2.50"), "full@example.org")
        #expect(page.status == 429 && page.header("Retry-After") == "3000")
        #expect(page.bodyText.contains("Email not sent") && page.bodyText.contains("try again in 50 min"))
        #expect(!page.bodyText.contains("We have sent") && page.bodyText.contains(#"href="/signup""#))
        #expect(try database.accounts.user(email: "full@example.org") == nil)
        // When the hour has passed, the same sign-up goes through.
        clock.advance(3000)
        #expect(try signUp(Browser(app, address: "192.0.2.50"), "full@example.org").status == 200)
        #expect(try database.accounts.user(email: "full@example.org") != nil)
    }

    @Test("signing up with an address that has an account answers exactly as a new one, refusals included")
    func takenAddressAnswersAlike() throws {
        _ = try database.accounts.createUser(email: "owner@example.org", displayName: "Owner", passwordHash: Fixture.passwordHash,
                                    now: clock.now, confirmation: nil)
        for index in 0..<AppDatabase.mailPerRecipientPerHour {
            let page = try signUp(Browser(app, address: "192.0.2.\(index + 1)"), "owner@example.org")
            #expect(page.status == 200 && page.bodyText.contains("We have sent a link to owner@example.org"))
        }
        let taken = try signUp(Browser(app, address: "192.0.2.60"), "owner@example.org")
        for index in 0..<AppDatabase.mailPerRecipientPerHour {
            try Browser(app, address: "192.0.2.\(index + 1)").post("/forgot", [("email", "nobody@example.org")])
        }
        let fresh = try signUp(Browser(app, address: "192.0.2.60"), "nobody@example.org")
        #expect(taken.status == 429 && fresh.status == 429)
        #expect(taken.header("Retry-After") == "3600" && fresh.header("Retry-After") == "3600")
        #expect(taken.bodyText.contains("We cannot send more email to owner@example.org just now. Please try again in 1 h."))
        #expect(fresh.bodyText.contains("We cannot send more email to nobody@example.org just now. Please try again in 1 h."))
        #expect(try database.accounts.user(email: "nobody@example.org") == nil)
        #expect(try database.notices.mail(to: "owner@example.org").count == AppDatabase.mailPerRecipientPerHour)
    }
}
