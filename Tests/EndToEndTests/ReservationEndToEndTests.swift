@testable import CLupData
import CLupDomain
import CLupSupport
import CLupWeb
import Foundation
import Testing

/// Lining up and booking through real nginx and the real worker, on the real clock.
@Suite("Reservations end to end", .serialized)
struct ReservationEndToEndTests {
    /// A store open round the clock, so any instant of the test has slots around it: 15-minute
    /// slots for 10 people each. Its zone is UTC, or `hoursEast` of it.
    static func roundTheClockStore(_ stack: Stack, hoursEast: Int = 0) throws -> StoreID {
        let zone = hoursEast == 0 ? "UTC" : "Etc/GMT" + (hoursEast > 0 ? "-" : "+") + String(abs(hoursEast))
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        let store = try database.stores.createStore(
            NewStore(name: "Sempre Aperto", address: "Via Veloce 1, Milano", phone: "+39 02 0",
                  position: GeoPoint(latitude: 45.466, longitude: 9.19), capacity: 60, timeZone: zone,
                  settings: StoreSettings(capacity: 60, walkInPercent: 20, slotMinutes: 15, slotCapacity: 10)),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 1440) }, departments: [])
        try stack.waitForStore(store.id)
        return store.id
    }

    /// The start of the first 15-minute slot at least `hours` from now.
    static func slot(hoursAhead hours: Double) -> Int {
        let seconds = Int(Date().timeIntervalSince1970 + hours * 3600)
        return (seconds + 899) / 900 * 900
    }

    @Test("sign in, line up, decode the ticket's QR code and verify it, cancel; book 3 h ahead; 1 h and 8 days refused")
    func lineUpAndBook() throws {
        let stack = try Stack()
        let storeId = try Self.roundTheClockStore(stack)
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        _ = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada",
                                    passwordHash: PasswordHasher().hash("correct horse battery"), now: Date(),
                                    confirmation: nil)
        let client = Client(stack)
        try client.get("/signin")
        #expect(try client.post("/signin", [("email", "ada@example.org"), ("password", "correct horse battery")]).status == 303)

        // Line up: the wizard's pages, then confirm.
        #expect(try client.get("/stores/\(storeId)/reserve").status == 200)
        let how = try client.get("/stores/\(storeId)/reserve/how?time=30&people=1&place=duomo")
        #expect(how.body.contains("Line up now"))
        let recap = try client.get("/stores/\(storeId)/reserve/recap?kind=lineUp&minutes=30&people=1&place=duomo&mode=walking")
        #expect(recap.status == 200)
        let key = try #require(recap.body.firstMatch(of: /name="requestKey" value="([^"]+)"/)?.1)
        let made = try client.post("/stores/\(storeId)/reservations", [
            ("kind", "lineUp"), ("minutes", "30"), ("people", "1"), ("place", "duomo"), ("mode", "walking"),
            ("requestKey", String(key))])
        #expect(made.status == 303)
        let ticketPath = try #require(made.header("Location"))
        let id = try #require(Int64(ticketPath.split(separator: "/").last ?? ""))
        let ticket = try client.get(ticketPath)
        // The store is empty, and Ada is a few minutes' walk away: she leaves now, and her place
        // is held until she arrives.
        #expect(ticket.body.contains("Time to leave for the store"))
        #expect(ticket.body.contains("<svg viewBox="))

        // The PNG decodes, and its token names this reservation under the server's secret.
        let png = stack.directory + "/ticket.png"
        try client.download(ticketPath + "/qr.png", to: png)
        let decoded = try stack.run("/usr/bin/zbarimg", ["-q", "--raw", png]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(decoded.count == DoorCode.textLength)
        #expect(StoreKeys(try TicketToken(secret: stack.secret)).verify(decoded) { _, _ in true }?.reservationId == id)
        #expect(StoreKeys(try TicketToken(secret: "some other deployment's secret text")).verify(decoded) { _, _ in true } == nil)

        // Cancel.
        #expect(try client.post(ticketPath + "/cancel", []).status == 303)
        #expect(try client.get(ticketPath).body.contains("Cancelled"))

        // Book 3 hours ahead.
        let booking = try client.post("/stores/\(storeId)/reservations", [
            ("kind", "booking"), ("minutes", "30"), ("people", "1"), ("slot", String(Self.slot(hoursAhead: 3))),
            ("requestKey", "booking-\(UUID().uuidString.prefix(18))")])
        #expect(booking.status == 303)
        #expect(try client.get(try #require(booking.header("Location"))).body.contains("Your visit is booked"))

        // 1 hour and 8 days ahead are refused, saying why.
        let soon = try client.get("/stores/\(storeId)/reserve/recap?kind=booking&minutes=30&people=1&slot=\(Self.slot(hoursAhead: 1))")
        #expect(soon.status == 422)
        #expect(soon.body.contains("Bookings must be at least 2 hours ahead."))
        let far = try client.post("/stores/\(storeId)/reservations", [
            ("kind", "booking"), ("minutes", "30"), ("people", "1"), ("slot", String(Self.slot(hoursAhead: 8 * 24))),
            ("requestKey", "far-\(UUID().uuidString.prefix(20))")])
        #expect(far.status == 422)
        #expect(far.body.contains("You can book up to 7 days ahead"))
    }

    @Test("200 customers book the same slot for 10 at once: 10 bookings, 190 'slot full' with alternatives")
    func twoHundredAtOnce() throws {
        let stack = try Stack()
        let storeId = try Self.roundTheClockStore(stack)
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        // Given 200 signed-in customers (sessions made directly: signing 200 people in through
        // argon2id would only slow the test down).
        let hash = PasswordHasher().hash("correct horse battery")
        var customers: [(session: String, csrf: String)] = []
        for index in 0..<200 {
            let user = try database.accounts.createUser(email: "c\(index)@example.org", displayName: "C\(index)", passwordHash: hash,
                                               now: Date(), confirmation: nil)
            let session = Secrets.token()
            let csrf = Secrets.token()
            _ = try database.accounts.createSession(idHash: Secrets.hash(session), csrfToken: csrf, userId: try #require(user.id),
                                           now: Date())
            customers.append((session, csrf))
        }
        let slot = Self.slot(hoursAhead: 3)
        let answers = try stack.parallelPosts("/stores/\(storeId)/reservations", customers.enumerated().map { index, customer in
            (cookie: "clup_session=\(customer.session)",
             form: "csrf=\(customer.csrf)&kind=booking&minutes=30&people=1&slot=\(slot)&requestKey=key\(index)xxxxxxxxxxxxxxxxxxxx")
        })
        #expect(answers.count == 200)
        #expect(answers.filter { $0.status == 303 }.count == 10)
        let refused = answers.filter { $0.status == 409 }
        #expect(refused.count == 190)
        #expect(refused.allSatisfy { $0.body.contains("That slot is full") && $0.body.contains("Other times at Sempre Aperto") })

        // The database agrees: 10 booked, no one twice, and SQLite finds nothing wrong.
        let slotStart = Date(timeIntervalSince1970: Double(slot))
        #expect(try database.reservations.bookedPeople(storeId: storeId, in: [Slot(start: slotStart, end: slotStart + 900)])[slotStart] == 10)
        let (rows, customersBooked, integrity, orphans) = try database.reader.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reservation"),
             try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT userId) FROM reservation"),
             try String.fetchOne(db, sql: "PRAGMA integrity_check"),
             try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count)
        }
        #expect(rows == 10 && customersBooked == 10)
        #expect(integrity == "ok" && orphans == 0)
    }

    @Test("one customer confirming twice at once, from two tabs, ends with one active reservation")
    func twiceAtOnce() throws {
        let stack = try Stack()
        let storeId = try Self.roundTheClockStore(stack)
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        let user = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada",
                                           passwordHash: PasswordHasher().hash("correct horse battery"), now: Date(),
                                           confirmation: nil)
        let session = Secrets.token()
        let csrf = Secrets.token()
        _ = try database.accounts.createSession(idHash: Secrets.hash(session), csrfToken: csrf, userId: try #require(user.id),
                                       now: Date())
        for round in 0..<5 {
            let answers = try stack.parallelPosts("/stores/\(storeId)/reservations", (0..<2).map { tab in
                (cookie: "clup_session=\(session)",
                 form: "csrf=\(csrf)&kind=lineUp&minutes=30&people=1&requestKey=round\(round)tab\(tab)xxxxxxxxxxxxxxxx&replace=0")
            })
            #expect(answers.map(\.status).sorted() == (round == 0 ? [303, 409] : [409, 409]))
        }
        let active = try database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reservation WHERE status IN ('waiting', 'called')")
        }
        #expect(active == 1)
    }
}

import GRDB

extension Stack {
    /// Posts every form at once (curl's parallel transfers, one connection each) and returns
    /// the answers in order.
    func parallelPosts(_ path: String, _ requests: [(cookie: String, form: String)]) throws -> [HTTPResponse] {
        try parallelPosts(path, requests.map {
            (headers: ["Cookie: \($0.cookie)", "Content-Type: application/x-www-form-urlencoded"], body: $0.form)
        })
    }

    /// Posts every body, with its headers, at once.
    func parallelPosts(_ path: String, _ requests: [(headers: [String], body: String)]) throws -> [HTTPResponse] {
        var config = ""
        for (index, request) in requests.enumerated() {
            if index > 0 { config += "next\n" }
            let body = "\(directory)/request-\(index)"
            try request.body.write(toFile: body, atomically: true, encoding: .utf8)
            config += "url = \"\(baseURL + path)\"\n"
            for header in request.headers { config += "header = \"\(header)\"\n" }
            config += """
                data-binary = "@\(body)"
                output = "\(directory)/answer-\(index)"
                include
                silent
                max-time = 30

                """
        }
        let file = directory + "/parallel.cfg"
        try config.write(toFile: file, atomically: true, encoding: .utf8)
        _ = try run("/usr/bin/curl", ["-s", "--parallel", "--parallel-immediate", "--parallel-max", "300", "-K", file])
        return try requests.indices.map { index in
            try Self.parse(try String(contentsOfFile: "\(directory)/answer-\(index)", encoding: .utf8))
        }
    }
}

extension Client {
    /// Saves a response body (e.g. an image) to `file`.
    func download(_ path: String, to file: String) throws {
        _ = try stack.run("/usr/bin/curl", ["-s", "-S", "--fail", "-b", jar, "-o", file, stack.baseURL + path])
    }
}
