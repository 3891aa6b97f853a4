import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// The door console: staff act on a ticket by its number, with a reason, under the scan's
/// rules; every action and every refused scan is logged with who and why.
@Suite("Door console")
struct DoorConsoleTests {
    let clock = TestClock()
    let database: AppDatabase
    let app: App
    let store: Store
    var storeId: Int64 { store.id }

    init() throws {
        database = try AppDatabase.inMemory()
        store = try database.createStore(
            NewStore(name: "Bottega Porta", address: "Via Porta 1", phone: "+39 02 1", position: Place.milan[0].position,
                     capacity: 4, timeZone: "Europe/Rome", settings: StoreSettings(capacity: 4, walkInPercent: 0)),
            hours: Fixture.weekdayHours, departments: [])
        let clock = self.clock
        app = try Fixture.app(clock: { clock.now }, database: database)
        for index in 1...5 {
            let user = try database.createUser(email: "c\(index)@example.org", displayName: "C\(index)",
                                               passwordHash: ReservationsTests.passwordHash, now: clock.now,
                                               confirmation: nil)
            _ = try database.reserve(ReservationRequest(
                storeId: store.id, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
                requestKey: Secrets.token()), now: clock.now)
        }
        _ = try database.createUser(email: "boss@example.org", displayName: "Boss", passwordHash: ReservationsTests.passwordHash,
                                    role: .manager, now: clock.now, confirmation: nil)
        try database.assignStore(storeId: store.id, toManager: "boss@example.org")
    }

    /// Ticket `number`: customer c`number`'s line-up (they lined up in that order).
    func status(_ number: Int) throws -> Reservation {
        let user = try require(try database.user(email: "c\(number)@example.org"))
        let reservation = try require(try database.reservations(userId: user.id).first).reservation
        #expect(reservation.number == number)
        return reservation
    }

    func signedIn(_ email: String) throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: email)
        return browser
    }

    func act(_ browser: Browser, _ action: String, _ number: String, reason: String = "code will not scan") throws
        -> Response
    {
        try browser.get("/manage/stores/\(storeId)/door")
        return try browser.post("/manage/stores/\(storeId)/door", [("action", action), ("number", number), ("reason", reason)])
    }

    @Test("the lists, and each action by number: let in, let out, left unscanned, call again, not coming")
    func actions() throws {
        let boss = try signedIn("boss@example.org")
        let page = try boss.get("/manage/stores/\(storeId)/door")
        #expect(page.status == 200)
        #expect(page.bodyText.contains("0 people inside of 4."))
        #expect(page.bodyText.contains("<li><strong>1</strong> · 1 person · by 10:10</li>"))
        #expect(page.bodyText.contains("<li><strong>5</strong> · 1 person</li>"))

        let admitted = try act(boss, "admit", "1", reason: "phone screen broken")
        #expect(admitted.status == 200 && admitted.bodyText.contains("Ticket 1 is in (1 person)."))
        #expect(try status(1).status == .inside && status(1).enteredAt == clock.now)
        // The scan's rules hold: ticket 5 has not been called.
        let early = try act(boss, "admit", "5")
        #expect(early.status == 409 && early.bodyText.contains("Not done: Ticket 5 has not been called yet."))
        #expect(try status(5).status == .waiting)

        clock.advance(20 * 60)
        let out = try act(boss, "letOut", "1")
        #expect(out.bodyText.contains("Ticket 1 is out."))
        #expect(try status(1).status == .done && status(1).exitedAt == clock.now)
        // Ticket 1's place went to the next in line. (Tickets 2–4 lapsed meanwhile.)
        #expect(try status(5).status == .called)

        #expect(try act(boss, "admit", "5").status == 200)
        let left = try act(boss, "leftUnscanned", "5", reason: "saw her leave by the side door")
        #expect(left.bodyText.contains("Ticket 5&#39;s visit is closed: the count inside is corrected."))
        #expect(try status(5).status == .done && status(5).exitedAt == nil)
        #expect(try database.liveTraffic(storeId: storeId, now: clock.now).peopleInside == 0)

        let log = try boss.get("/manage/stores/\(storeId)/door").bodyText
        #expect(log.contains("<td>closed: left without scanning</td><td>5</td><td>Boss</td><td>saw her leave by the side door</td>"))
        #expect(log.contains("<td>let in by number</td><td>1</td><td>Boss</td><td>phone screen broken</td>"))
        #expect(log.contains("<td>let in by number</td><td>5</td><td>Boss</td><td>code will not scan</td>"))
    }

    @Test("call again restarts the grace period; not coming ends the ticket and tells the customer why")
    func recallAndNoShow() throws {
        let boss = try signedIn("boss@example.org")
        clock.advance(8 * 60)
        let again = try act(boss, "recall", "2", reason: "customer at the door, phone dead")
        #expect(again.bodyText.contains("Ticket 2 is called again, until 10:18."))
        #expect(try status(2).calledAt == clock.now)
        clock.advance(3 * 60)  // 10:11: the others' grace is over, ticket 2's is not
        try database.advanceQueues(now: clock.now)
        #expect(try status(2).status == .called && status(3).status == .expired)
        // Ticket 5 was called in 3's place; it is marked as not coming.
        #expect(try status(5).status == .called)
        #expect(try act(boss, "noShow", "5", reason: "phoned to say they cannot come").status == 200)
        #expect(try status(5).status == .expired)
        #expect(try database.notices(reservationId: try status(5).id).last?.reason == .markedNoShow)
        // An action that does not apply says so and changes nothing.
        let done = try act(boss, "recall", "5")
        #expect(done.status == 409 && done.bodyText.contains("Not done: ticket 5 is expired."))
    }

    @Test("bad input is refused with a reason; refused scans are logged and counted; only the store's managers get in")
    func refusalsAndAccess() throws {
        let boss = try signedIn("boss@example.org")
        #expect(try act(boss, "admit", "", reason: "x").status == 422)
        #expect(try act(boss, "admit", "1", reason: "  ").bodyText.contains("Say why, in a few words"))
        #expect(try act(boss, "delete", "1").status == 422)
        #expect(try act(boss, "scanRefused", "1").status == 422)
        let missing = try act(boss, "admit", "77")
        #expect(missing.status == 404 && missing.bodyText.contains("There is no ticket 77 today at this store."))
        #expect(try status(1).status == .called)

        // A cancelled ticket scanned at the door: refused, and logged.
        let one = try status(1)
        #expect(try database.cancelReservation(id: one.id, userId: try require(one.userId), now: clock.now))
        #expect(try database.scan(reservationId: one.id, at: storeId, now: clock.now).verdict == .refused(.cancelled))
        let log = try boss.get("/manage/stores/\(storeId)/door").bodyText
        #expect(log.contains("<td>scan refused</td><td>1</td><td>scanner</td><td>cancelled ticket</td>"))
        let stats = try boss.get("/manage/stores/\(storeId)/stats?from=2026-11-18&to=2026-11-18").bodyText
        #expect(try StatisticsTests.table("Day by day", in: stats)[1][14] == "1")  // Refused scans

        let customer = try signedIn("c2@example.org")
        #expect(try customer.get("/manage/stores/\(storeId)/door").status == 403)
        #expect(try customer.post("/manage/stores/\(storeId)/door", [("action", "admit"), ("number", "2"),
                                                                    ("reason", "x")]).status == 403)
        #expect(try status(2).status == .called)
    }

    @Test("on a kiosk's screen: staff give their name, the log keeps it with the kiosk's; only the kiosk's store")
    func onAKiosk() throws {
        let key = Secrets.token(bytes: 32)
        _ = try database.enrolKiosk(storeId: storeId, label: "Entrance left", key: key, now: clock.now)
        let kiosk = Browser(app)
        try kiosk.get("/kiosk")
        #expect(try kiosk.post("/kiosk/enrol", [("key", key)]).status == 303)
        #expect(try kiosk.get("/kiosk").bodyText.contains("<a class=\"kiosk-choice\" href=\"/kiosk/door\">"))
        let page = try kiosk.get("/kiosk/door")
        #expect(page.status == 200)
        #expect(page.bodyText.contains("<a class=\"kiosk-menu-link\" href=\"/kiosk\">Kiosk menu</a>"))
        #expect(page.bodyText.contains("<form method=\"post\" action=\"/kiosk/door\""))

        let nameless = try kiosk.post("/kiosk/door", [("action", "admit"), ("number", "1"), ("reason", "cracked screen")])
        #expect(nameless.status == 422)
        #expect(nameless.bodyText.contains("Give your name (at most 60 characters): the log keeps who did what."))
        #expect(try status(1).status == .called)

        let admitted = try kiosk.post("/kiosk/door", [("staff", "Gianni"), ("action", "admit"), ("number", "1"),
                                                      ("reason", "cracked screen")])
        #expect(admitted.status == 200 && admitted.bodyText.contains("Ticket 1 is in (1 person)."))
        #expect(admitted.bodyText.contains("name=\"staff\" required maxlength=\"60\" autocomplete=\"name\" value=\"Gianni\""))
        #expect(try status(1).status == .inside)
        // The manager reads who did it, and where.
        let log = try signedIn("boss@example.org").get("/manage/stores/\(storeId)/door").bodyText
        #expect(log.contains("<td>let in by number</td><td>1</td><td>Gianni at Entrance left</td><td>cracked screen</td>"))
        // A browser that is not an enrolled kiosk is sent to enrol.
        #expect(try Browser(app).get("/kiosk/door").header("Location") == "/kiosk")
    }

    @Test("past midnight a store open late keeps the evening's day: its visits, its numbers, its door console")
    func pastMidnight() throws {
        let late = try database.createStore(
            NewStore(name: "Notturno", address: "Via Luna 1", phone: "", position: Place.milan[1].position, capacity: 4,
                     timeZone: "Europe/Rome", settings: StoreSettings(capacity: 4, walkInPercent: 0)),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 18 * 60, closes: 26 * 60) }, departments: [])
        func lineUp(_ email: String) throws -> Reservation {
            let user = try database.createUser(email: email, displayName: "Owl", passwordHash: "x", now: clock.now,
                                               confirmation: nil)
            guard case .created(let ticket) = try database.reserve(ReservationRequest(
                storeId: late.id, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 20, travelMode: .walking,
                requestKey: Secrets.token()), now: clock.now)
            else { throw RequireError(message: "not created") }
            return ticket
        }
        clock.advance(Fixture.date(2026, 11, 18, 23, 50).timeIntervalSince(clock.now))
        let evening = try lineUp("owl@example.org")
        #expect(try database.scan(reservationId: evening.id, at: late.id, now: clock.now).verdict == .enter)
        clock.advance(30 * 60)  // 00:20 on Thursday, the store open until 02:00
        try database.advanceQueues(now: clock.now)
        #expect(try database.reservation(id: evening.id)?.reservation.status == .inside)
        #expect(try lineUp("lark@example.org").number == evening.number + 1)
        let outcome = try database.door(.leftUnscanned, storeId: late.id, number: evening.number, reason: "left by the side",
                                        by: .user(try require(try database.user(email: "boss@example.org")).id), now: clock.now)
        guard case .done = outcome else {
            Issue.record("the evening's ticket was not found: \(outcome)")
            return
        }
        #expect(try database.reservation(id: evening.id)?.reservation.status == .done)
    }
}
