import CLupDomain
import CLupSupport
import CLupWeb
import Foundation
import Testing

@testable import CLupData

#if canImport(Glibc)
import Glibc
#endif

/// The customer is told when to leave, when it is their turn, and asked to confirm a booking —
/// through real nginx and the real worker, with a real SMTP server and a push service that
/// decrypts each message as a browser would. Time moves by the worker's test clock.
@Suite("Notifications end to end", .serialized)
struct NotificationsEndToEndTests {
    /// A customer who lined up 30 minutes away on foot: told to leave, called as they arrive,
    /// let in; a booking reminded, confirmed from the email; another not answered and
    /// cancelled, its place going to a customer in the queue; the worker killed and restarted
    /// midway, and every message delivered exactly once.
    @Test("leave now → your turn → in on arrival; reminders, confirm, auto-cancel; each message once across kill -9")
    func journey() throws {
        let directory = NSTemporaryDirectory() + "clup-notify-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let smtp = try MailServer(directory: directory)
        let push = try PushService(directory: directory)
        let stack = try Stack(serveArguments: ["--smtp-url", smtp.url, "--mail-interval", "0.2", "--queue-interval", "0.5",
                                               "--allow-loopback-push"])
        // The store's day starts near 09:00 its time, whatever the hour: the test moves its clock
        // three and a half hours on, and a queue's day ends at the store's midnight.
        let hoursEast = Self.hoursEast(toMakeIt: 9, at: stack.now)
        let storeId = try ReservationEndToEndTests.roundTheClockStore(stack, hoursEast: hoursEast)
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        let hash = PasswordHasher().hash("correct horse battery")
        for name in ["ada", "bob", "carol", "dave"] {
            _ = try database.accounts.createUser(email: "\(name)@example.org", displayName: name.capitalized, passwordHash: hash,
                                        now: Date(), confirmation: nil)
        }
        func signIn(_ name: String) throws -> Client { try Self.signIn(name, on: stack) }

        let adaId = try #require(try database.accounts.user(email: "ada@example.org")).id
        // Ada turns on notifications in three browsers: one works, one has unsubscribed (410),
        // one's push service hangs.
        let ada = try signIn("ada")
        for endpoint in ["ok", "gone", "slow"] {
            #expect(try ada.post("/account/push", [("endpoint", push.url + "/push/" + endpoint), ("p256dh", push.p256dh),
                                                  ("auth", push.auth)]).status == 204)
        }

        // Ada is 1.85 km north of the store: 30 minutes on foot. The store has room.
        let position = [("lat", "45.48260"), ("lon", "9.19000")]
        let query = "lat=45.48260&lon=9.19000"
        let recap = try ada.get("/stores/\(storeId)/reserve/recap?kind=lineUp&minutes=30&people=1&\(query)&mode=walking")
        #expect(recap.body.contains("<dt>Leave</dt><dd>now, when you confirm</dd>"))
        let key = try #require(recap.body.firstMatch(of: /name="requestKey" value="([^"]+)"/)?.1)
        let made = try ada.post("/stores/\(storeId)/reservations", [
            ("kind", "lineUp"), ("minutes", "30"), ("people", "1"), ("mode", "walking"), ("requestKey", String(key)),
        ] + position)
        #expect(made.status == 303)
        let ticketPath = try #require(made.header("Location"))
        let id = ReservationID(try #require(Int64(ticketPath.split(separator: "/").last ?? "")))
        let ticket = try ada.get(ticketPath)
        #expect(ticket.body.contains("Time to leave for the store"))
        #expect(ticket.body.contains("<span data-field=\"leaveByLabel\">Leave</span> <strong data-field=\"leaveBy\">now</strong>"))
        let travel = try #require(try database.reservations.reservation(id: id)).reservation.travel
        #expect(abs(travel - 1800) < 30)

        // "Leave now" by email and by push, at once; the gone browser is forgotten, and the hung
        // one delays nobody.
        let leave = try smtp.message(to: "ada@example.org", subject: "Time to leave for Sempre Aperto")
        #expect(leave.contains("it takes you about 30 min on foot"))
        let leavePush = try push.message(titled: "Leave now for Sempre Aperto", timeout: 10)
        #expect(leavePush.vapidProblem == nil && leavePush.urgency == "high" && leavePush.encoding == "aes128gcm")
        #expect(leavePush.url == stack.baseURL + ticketPath)
        try stack.waitUntil("the gone subscription is removed") {
            (try? database.notices.pushSubscriptions(userId: adaId).map(\.endpoint)) == [push.url + "/push/ok", push.url + "/push/slow"]
        }

        // 28 minutes on, two before she arrives: her turn.
        try stack.advanceClock(by: travel - Departure.callMargin + 2)
        let turn = try smtp.message(to: "ada@example.org", subject: "It is your turn at Sempre Aperto")
        #expect(turn.contains("Please go to the entrance and scan your code by"))
        _ = try push.message(titled: "It is your turn at Sempre Aperto", timeout: 10)
        #expect(try ada.get(ticketPath).body.contains("It is your turn: please go to the entrance"))

        // She arrives as planned, 4 minutes later: the code lets her in.
        try stack.advanceClock(by: 4 * 60)
        let kiosk = try EntranceEndToEndTests.enrolKiosk(stack, store: storeId)
        let scan = try stack.curl(["-X", "POST", "-H", "Authorization: Bearer \(kiosk)", "-H", "Content-Type: application/json",
                                   "--data", #"{"code": "\#(try TicketToken(secret: stack.secret).token(for: id.rawValue))"}"#,
                                   stack.baseURL + "/api/v1/scan"])
        #expect(scan.body.contains("\"result\":\"enter\""))
        let exit = try stack.curl(["-X", "POST", "-H", "Authorization: Bearer \(kiosk)", "-H", "Content-Type: application/json",
                                   "--data", #"{"code": "\#(try TicketToken(secret: stack.secret).token(for: id.rawValue))"}"#,
                                   stack.baseURL + "/api/v1/scan"])
        #expect(exit.body.contains("\"result\":\"exit\""))

        // Bookings at a store made small: 2 places, both for the slot. Bob and Carol take them;
        // Dave finds the slot full.
        try database.write { db in
            try db.execute(sql: "UPDATE store SET capacity = 2, walkInPercent = 0, slotCapacity = 2 WHERE id = ?",
                           arguments: [storeId])
        }
        Thread.sleep(forTimeInterval: 1.5)  // the worker picks up the outside write
        let slot = (Int(stack.now.timeIntervalSince1970) + 3 * 3600 + 899) / 900 * 900
        func book(_ client: Client) throws -> Stack.HTTPResponse {
            try client.get("/account")
            return try client.post("/stores/\(storeId)/reservations", [
                ("kind", "booking"), ("minutes", "30"), ("people", "1"), ("slot", String(slot)),
                ("requestKey", "booking-\(UUID().uuidString.prefix(18))")])
        }
        let bob = try signIn("bob")
        let carol = try signIn("carol")
        let dave = try signIn("dave")
        #expect(try book(bob).status == 303)
        #expect(try book(carol).status == 303)
        #expect(try book(dave).status == 409)

        // Two hours before the slot: the reminders.
        try stack.advanceClock(by: Double(slot) - BookingReminder.lead - stack.now.timeIntervalSince1970 + 2)
        let reminderSubject = "Your visit to Sempre Aperto \(Self.reminderWhen(slot, hoursEast: hoursEast)): please confirm"
        let reminder = try smtp.message(to: "bob@example.org", subject: reminderSubject)
        _ = try smtp.message(to: "carol@example.org", subject: reminderSubject)
        #expect(reminder.contains("If you do not confirm by"))
        // Bob follows the email's Confirm link: a page, then its button.
        let link = try #require(reminder.firstMatch(of: /https?:\/\/[^\/\s]+(\/bookings\/reply\?t=[A-Za-z0-9_-]+)&answer=confirm/))
        let guest = Client(stack)
        let page = try guest.open(String(link.1) + "&answer=confirm")
        #expect(page.status == 200 && page.body.contains("Confirm my visit"))
        let token = String(try #require(page.body.firstMatch(of: /name="t" value="([^"]+)"/)).1)
        let confirmed = try guest.post("/bookings/reply", [("t", token), ("answer", "confirm")])
        #expect(confirmed.body.contains("Your visit is confirmed"))

        // A crash: the worker is killed and a new one starts. Nothing is lost or sent twice.
        try stack.crashAndRestartWorker()

        // An hour after the reminder, Carol has not answered: her booking is cancelled.
        try stack.advanceClock(by: BookingReminder.replyWindow + 2)
        let cancelled = try smtp.message(to: "carol@example.org", subject: "Your booking at Sempre Aperto was cancelled")
        #expect(cancelled.contains("it was not confirmed within an hour of our reminder"))
        // Half an hour before the slot, Bob's booking holds one place; the other, Carol's, is
        // free: Dave, at the store, lines up and is called at once.
        try stack.advanceClock(by: 30 * 60)
        try dave.get("/account")
        let here = [("lat", "45.46600"), ("lon", "9.19000")]
        let daveTicket = try dave.post("/stores/\(storeId)/reservations", [
            ("kind", "lineUp"), ("minutes", "30"), ("people", "1"), ("mode", "walking"),
            ("requestKey", "lineup-\(UUID().uuidString.prefix(18))"),
        ] + here)
        #expect(daveTicket.status == 303)
        #expect(try dave.get(try #require(daveTicket.header("Location"))).body.contains("It is your turn"))

        // Exactly once each, by email and by push.
        Thread.sleep(forTimeInterval: 2)
        let subjects = try smtp.all().map { "\($0.to) · \($0.subject)" }
        #expect(subjects.sorted() == [
            "ada@example.org · It is your turn at Sempre Aperto",
            "ada@example.org · Time to leave for Sempre Aperto",
            "bob@example.org · Your visit to Sempre Aperto \(Self.reminderWhen(slot, hoursEast: hoursEast)): please confirm",
            "carol@example.org · Your booking at Sempre Aperto was cancelled",
            "carol@example.org · Your visit to Sempre Aperto \(Self.reminderWhen(slot, hoursEast: hoursEast)): please confirm",
            "dave@example.org · It is your turn at Sempre Aperto",
        ])
        #expect(try push.all().filter { $0.endpoint == "ok" }.map(\.title).sorted()
            == ["It is your turn at Sempre Aperto", "Leave now for Sempre Aperto"])
    }

    /// "12:45" in the test store's zone, `hoursEast` of UTC.
    static func clock(_ seconds: Int, hoursEast: Int = 0) -> String {
        let local = seconds + hoursEast * 3600
        return String(format: "%02d:%02d", local % 86400 / 3600, local % 3600 / 60)
    }

    /// The slot's time as its reminder, written two hours before, says it: "at 10:30", or
    /// "tomorrow at 00:30" when the slot is past the store's midnight.
    static func reminderWhen(_ slot: Int, hoursEast: Int = 0) -> String {
        let day = { (seconds: Int) in (seconds + hoursEast * 3600) / 86400 }
        let written = slot - Int(BookingReminder.lead)
        return (day(slot) > day(written) ? "tomorrow at " : "at ") + clock(slot, hoursEast: hoursEast)
    }

    /// The whole hours east of UTC (−12 to +14, as the Etc/GMT zones go) at which `now` is
    /// `localHour` o'clock.
    static func hoursEast(toMakeIt localHour: Int, at now: Date) -> Int {
        let utcHour = Int(now.timeIntervalSince1970) % 86400 / 3600
        let east = ((localHour - utcHour) % 24 + 24) % 24
        return east > 14 ? east - 24 : east
    }

    /// The outbox figure in docs/reliability.md: printed by this test.
    @Test("a \"your turn\" and a confirmation email go out within 5 s with 10,000 informational emails queued")
    func urgentMailFirst() throws {
        let stack = try Stack(serveArguments: ["--queue-interval", "0.5"])
        let storeId = try ReservationEndToEndTests.roundTheClockStore(stack)
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        _ = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada", passwordHash: PasswordHasher().hash("correct horse battery"),
                                    now: Date(), confirmation: nil)
        // A backlog of cancellations and the like, as a busy day leaves it.
        try database.writer.write { db in
            for index in 0..<10_000 {
                try NewOutboxMessage(recipient: "bulk\(index)@example.org", subject: "Your booking was cancelled",
                                     body: "Informational.", now: Date(), priority: .informational).insert(db)
            }
        }
        let start = Date()
        // A new customer signs up (a confirmation link), and Ada lines up at a store with room
        // (called at once: "it is your turn").
        let newcomer = Client(stack)
        try newcomer.get("/signup")
        try newcomer.post("/signup", [("email", "grace@example.org"), ("displayName", "Grace"),
                                      ("password", "a long first password"), ("passwordAgain", "a long first password"), ("terms", "accepted")])
        let ada = try Self.signIn("ada", on: stack)
        let recap = try ada.get("/stores/\(storeId)/reserve/recap?kind=lineUp&minutes=30&people=1")
        let key = try #require(recap.body.firstMatch(of: /name="requestKey" value="([^"]+)"/)?.1)
        #expect(try ada.post("/stores/\(storeId)/reservations", [
            ("kind", "lineUp"), ("minutes", "30"), ("people", "1"), ("requestKey", String(key)),
        ]).status == 303)
        func sent(to recipient: String) -> Bool {
            let folder = stack.directory + "/mail"
            let files = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return files.contains { name in
                ((try? String(contentsOfFile: folder + "/" + name, encoding: .utf8)) ?? "").contains("To: \(recipient)\r\n")
            }
        }
        try stack.waitUntil("both urgent emails are sent", seconds: 15) { sent(to: "grace@example.org") && sent(to: "ada@example.org") }
        let elapsed = Date().timeIntervalSince(start)
        let bulkSent = ((try? FileManager.default.contentsOfDirectory(atPath: stack.directory + "/mail")) ?? []).count - 2
        #expect(elapsed < 5)
        // The backlog itself drains in parallel, not 10 messages a second.
        func count() -> Int { ((try? FileManager.default.contentsOfDirectory(atPath: stack.directory + "/mail")) ?? []).count }
        try stack.waitUntil("the backlog is sent", seconds: 60) { count() >= 10_002 }
        let drained = Date().timeIntervalSince(start)
        print("outbox: with 10,000 informational emails queued, a confirmation and a \"your turn\" were sent "
              + "\(String(format: "%.2f", elapsed)) s after they were made (\(bulkSent) informational sent meanwhile); "
              + "all 10,002 sent after \(String(format: "%.1f", drained)) s")
        #expect(count() == 10_002)  // each once
    }

    /// `name`@example.org signed in (password "correct horse battery"), on their account page.
    static func signIn(_ name: String, on stack: Stack) throws -> Client {
        let client = Client(stack)
        try client.get("/signin")
        #expect(try client.post("/signin", [("email", "\(name)@example.org"), ("password", "correct horse battery")])
            .status == 303)
        try client.get("/account")
        return client
    }

    /// The push fairness figure in docs/security.md: printed by this test.
    @Test("security: an account at the push cap with every endpoint a black hole delays another's urgent push under 5 s")
    func pushFairness() throws {
        let directory = NSTemporaryDirectory() + "clup-fair-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let push = try PushService(directory: directory)
        let stack = try Stack(serveArguments: ["--mail-interval", "0.2", "--queue-interval", "0.5", "--allow-loopback-push"])
        let storeId = try ReservationEndToEndTests.roundTheClockStore(stack)
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        let hash = PasswordHasher().hash("correct horse battery")
        for name in ["mallory", "ada"] {
            _ = try database.accounts.createUser(email: "\(name)@example.org", displayName: name.capitalized, passwordHash: hash,
                                        now: Date(), confirmation: nil)
        }
        func signIn(_ name: String) throws -> Client { try Self.signIn(name, on: stack) }
        func lineUp(_ client: Client) throws -> String {
            let recap = try client.get("/stores/\(storeId)/reserve/recap?kind=lineUp&minutes=30&people=1")
            let key = try #require(recap.body.firstMatch(of: /name="requestKey" value="([^"]+)"/)?.1)
            let made = try client.post("/stores/\(storeId)/reservations", [
                ("kind", "lineUp"), ("minutes", "30"), ("people", "1"), ("requestKey", String(key)), ("replace", "yes"),
            ])
            #expect(made.status == 303)
            return try #require(made.header("Location"))
        }
        // Mallory subscribes forty browsers whose push service never answers: five are kept.
        let mallory = try signIn("mallory")
        for index in 1...40 {
            try mallory.post("/account/push", [("endpoint", push.url + "/push/slow\(index)"), ("p256dh", push.p256dh),
                                               ("auth", push.auth)])
        }
        let malloryId = try #require(try database.accounts.user(email: "mallory@example.org")).id
        #expect(try database.notices.pushSubscriptions(userId: malloryId).count == 5)
        // Eight line-ups, each called at once and cancelled: forty urgent messages to black holes.
        for _ in 1...8 {
            let ticket = try lineUp(mallory)
            try mallory.get(ticket)
            try mallory.post(ticket + "/cancel", [])
        }
        try stack.waitUntil("Mallory's messages are on their way", seconds: 10) {
            ((try? database.notices.pushSubscriptions(userId: malloryId)) ?? []).contains { subscription in
                ((try? database.notices.pushMessages(subscriptionId: subscription.id)) ?? []).contains { $0.attempts > 0 }
            }
        }
        // Ada turns on notifications and lines up: her first notice ("leave now") is urgent too.
        let ada = try signIn("ada")
        #expect(try ada.post("/account/push", [("endpoint", push.url + "/push/ada"), ("p256dh", push.p256dh),
                                              ("auth", push.auth)]).status == 204)
        let start = Date()
        _ = try lineUp(ada)
        try stack.waitUntil("Ada's push arrives", seconds: 15) { ((try? push.all()) ?? []).contains { $0.endpoint == "ada" } }
        let elapsed = Date().timeIntervalSince(start)
        #expect(try push.all().first { $0.endpoint == "ada" }?.urgency == "high")
        print("push fairness: 5 black-hole subscriptions with 40 urgent messages pending; another account's "
              + "urgent push delivered \(String(format: "%.2f", elapsed)) s after its line-up")
        #expect(elapsed < 5)
    }
}

/// The push service and browser of `push_service.py`, on a free port.
final class PushService {
    let port: Int
    let log: String
    let p256dh: String
    let auth: String
    private let process: Process

    struct Received: Decodable {
        struct Payload: Decodable { var title: String; var body: String; var url: String }
        var endpoint: String
        var ttl: String?
        var urgency: String?
        var encoding: String?
        var vapid: String?
        var payload: Payload?
        var error: String?

        var title: String { payload?.title ?? "undecryptable: \(error ?? "")" }
        var url: String? { payload?.url }
        var vapidProblem: String? { vapid }
    }

    init(directory: String) throws {
        port = try Stack.freePort()
        log = directory + "/push.log"
        let keys = directory + "/push-keys.json"
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Stack.root + "/Tests/EndToEndTests/push_service.py", String(port), keys, log]
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        let deadline = Date() + 10
        while !FileManager.default.fileExists(atPath: keys), Date() < deadline { usleep(50_000) }
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: keys))) as? [String: String]
        p256dh = json?["p256dh"] ?? ""
        auth = json?["auth"] ?? ""
    }

    deinit {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    func all() throws -> [Received] {
        guard let text = try? String(contentsOfFile: log, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Received.self, from: Data($0.utf8)) }
    }

    func message(titled title: String, timeout: Double) throws -> Received {
        let deadline = Date() + timeout
        while Date() < deadline {
            if let found = try all().first(where: { $0.title == title }) { return found }
            usleep(100_000)
        }
        throw Stack.StackError("no push \"\(title)\" within \(timeout) s; got \(try all().map(\.title))")
    }
}

extension MailServer {
    /// Every message received: recipient and subject.
    func all() throws -> [(to: String, subject: String)] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: maildir + "/new")) ?? []
        return files.compactMap { name in
            guard let text = try? String(contentsOfFile: maildir + "/new/" + name, encoding: .utf8),
                let to = text.firstMatch(of: /\nTo: ([^\r\n]+)/), let subject = text.firstMatch(of: /\nSubject: ([^\r\n]+)/)
            else { return nil }
            return (String(to.1), String(subject.1))
        }
    }
}
