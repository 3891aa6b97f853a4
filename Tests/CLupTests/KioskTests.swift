import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// The store entrance in-process: kiosk enrolment, walk-in tickets, scanning, calling and the
/// board, over an in-memory SQLite with the clock pinned at Wednesday 10:00 in Milan.
@Suite("The store entrance")
struct KioskTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    /// Capacity 10: 2 places for walk-ins, 8 online; 10 minutes to answer a call (`EntranceFixture`).
    let store: Store
    let other: Store
    let key: String
    let otherKey: String

    init() throws {
        let fixture = try EntranceFixture()
        (clock, database, app, store, other, key, otherKey) =
            (fixture.clock, fixture.database, fixture.app, fixture.store, fixture.other, fixture.key, fixture.otherKey)
    }

    /// A browser enrolled as a kiosk with `key`.
    func kiosk(_ key: String? = nil) throws -> Browser {
        let browser = Browser(app, address: "192.0.2.50")
        try browser.get("/kiosk")
        let response = try browser.post("/kiosk/enrol", [("key", key ?? self.key)])
        #expect(response.status == 303)
        return browser
    }

    /// The page each ticket printed here was shown on, by ticket id (`walkIn`).
    let printed = PrintedPages()

    final class PrintedPages: @unchecked Sendable {
        // @unchecked: `pages` is guarded by `lock`.
        private let lock = NSLock()
        private var pages: [ReservationID: String] = [:]
        subscript(id: ReservationID) -> String? {
            get { lock.withLock { pages[id] } }
            set { lock.withLock { pages[id] = newValue } }
        }
    }

    /// The ticket's id in a printed ticket's address, `/kiosk/tickets/{id}?ref=…`.
    static func ticketId(in location: String) throws -> ReservationID {
        let path = location.split(separator: "?").first ?? ""
        return ReservationID(try require(Int64(path.split(separator: "/").last ?? "")))
    }

    /// Issues a walk-in ticket through the dispenser page and returns it; the page the kiosk
    /// was sent to is kept in `printed`.
    func walkIn(_ browser: Browser, people: Int = 1, minutes: Int = 30) throws -> Reservation {
        let form = try browser.get("/kiosk/dispenser")
        let requestKey = try require(form.bodyText.firstMatch(of: /name="requestKey" value="([^"]+)"/)).1
        let response = try browser.post("/kiosk/tickets", [("minutes", String(minutes)), ("people", String(people)),
                                                          ("requestKey", String(requestKey))])
        #expect(response.status == 303)
        let location = try require(response.header("Location"))
        let id = try Self.ticketId(in: location)
        printed[id] = location
        return try require(try database.doors.walkInTicket(id: id, storeId: store.id))
    }

    func code(_ reservation: Reservation) throws -> String { try Fixture.doorCode(reservation, database) }

    func scan(_ browser: Browser, _ code: String) throws -> Response {
        try browser.get("/kiosk/scanner")
        return try browser.post("/kiosk/scan", [("code", code)])
    }

    func reload(_ reservation: Reservation) throws -> Reservation {
        try require(try database.reservations.reservation(id: reservation.id)).reservation
    }

    /// A confirmed customer's line-up or booking, made directly.
    func customerReservation(_ email: String, at store: Store? = nil, kind: Reservation.Kind = .lineUp,
                             slot: Date? = nil) throws -> Reservation
    {
        let user = try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: Fixture.passwordHash,
                                           now: clock.now, confirmation: nil)
        let outcome = try database.reservations.reserve(ReservationRequest(
            storeId: (store ?? self.store).id, userId: user.id, kind: kind, people: 1, residenceMinutes: 30,
            slotStart: slot, requestKey: Secrets.token()), now: clock.now)
        guard case .created(let reservation) = outcome else { throw RequireError(message: "\(outcome)") }
        return reservation
    }

    // MARK: Enrolment

    @Test("security: no customer-facing kiosk screen links to the menu or a staff screen, and none un-enrols the kiosk")
    func customerScreensLeadNowhere() throws {
        let browser = try kiosk()
        let ticket = try walkIn(browser)
        for screen in ["/kiosk/dispenser", "/kiosk/scanner", "/kiosk/board", try require(printed[ticket.id])] {
            let page = try browser.get(screen).bodyText
            #expect(!page.contains("href=\"/kiosk\"") && !page.contains("/kiosk/door") && !page.contains("/kiosk/staff"),
                    "\(screen)")
        }
        // The menu, opened by its address, has no "Leave": only a manager or an admin revokes a kiosk.
        let menu = try browser.get("/kiosk").bodyText
        #expect(menu.contains("href=\"/kiosk/door\"") && !menu.contains("/kiosk/leave"))
        #expect(try browser.post("/kiosk/leave").status == 404)
        #expect(try browser.get("/kiosk/dispenser").status == 200)
    }

    @Test("a browser becomes the store's kiosk with its device key, stays so, and stops when the key is revoked")
    func enrolment() throws {
        let browser = Browser(app)
        #expect(try browser.get("/kiosk/scanner").header("Location") == "/kiosk")
        #expect(try browser.get("/kiosk").bodyText.contains("Set up this kiosk"))
        let wrong = try browser.post("/kiosk/enrol", [("key", Secrets.token(bytes: 32))])
        #expect(wrong.status == 403)
        #expect(wrong.bodyText.contains("That device key is not valid"))
        let enrolled = try browser.post("/kiosk/enrol", [("key", key)])
        let cookie = try require(enrolled.setCookie(named: "clup_kiosk"))
        #expect(cookie.contains("Max-Age=34560000") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax"))
        let home = try browser.get("/kiosk")
        #expect(home.bodyText.contains("Bottega Duomo") && home.bodyText.contains("Front door"))
        #expect(try browser.get("/kiosk/dispenser").status == 200)

        // When an admin revokes the key, the next request is refused and the cookie cleared.
        let kioskId = try require(try database.accounts.kiosks(storeId: store.id).first?.id)
        #expect(try database.accounts.revokeKiosk(id: kioskId, now: clock.now))
        #expect(try browser.get("/kiosk/dispenser").header("Location") == "/kiosk")
        let revoked = try browser.get("/kiosk")
        #expect(revoked.bodyText.contains("it was revoked"))
        #expect(revoked.setCookie(named: "clup_kiosk")?.contains("Max-Age=0") == true)
        #expect(try browser.post("/kiosk/scan", [("code", "anything")]).status == 403)
    }

    @Test("over HTTPS the kiosk cookie is __Host- and Secure")
    func secureCookie() throws {
        let browser = Browser(app, https: true)
        try browser.get("/kiosk")
        let enrolled = try browser.post("/kiosk/enrol", [("key", key)])
        let cookie = try require(enrolled.setCookie(named: "__Host-clup_kiosk"))
        #expect(cookie.contains("Secure") && cookie.contains("Path=/"))
        #expect(try browser.get("/kiosk").bodyText.contains("Front door"))
    }

    // MARK: Walk-in tickets

    @Test("security: a printed ticket's page opens only by the address the printing kiosk was sent to")
    func printedTicketsPrivate() throws {
        let browser = try kiosk()
        let ticket = try walkIn(browser)
        let location = try require(printed[ticket.id])
        #expect(location.hasPrefix("/kiosk/tickets/\(ticket.id)?ref=") && location.count > 30)
        #expect(try browser.get(location).status == 200)
        // By its id alone, with a made-up reference, or another ticket's: nothing.
        let next = try walkIn(browser)
        let ref = String(location.split(separator: "=").last ?? "")
        for guess in ["/kiosk/tickets/\(ticket.id)", "/kiosk/tickets/\(ticket.id)?ref=AAAAAAAAAAAAAAAAAAAAAA",
                      "/kiosk/tickets/\(next.id)?ref=\(ref)"] {
            #expect(try browser.get(guess).status == 404, "\(guess)")
        }
        // Another kiosk of the same store, given the address, does not show it either.
        let secondKey = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: store.id, label: "Second", key: secondKey, role: .dispenser, now: clock.now)
        #expect(try (try kiosk(secondKey)).get(location).status == 404)
        // Nor once it is old.
        clock.advance(KioskArea.ticketShownFor + 1)
        #expect(try browser.get(location).status == 404)
    }

    @Test("the dispenser prints a ticket with number, signed QR code, time and wait; a double tap prints one")
    func dispenser() throws {
        let browser = try kiosk()
        let form = try browser.get("/kiosk/dispenser")
        #expect(form.bodyText.contains("No wait right now."))
        let requestKey = String(try require(form.bodyText.firstMatch(of: /name="requestKey" value="([^"]+)"/)).1)
        let first = try browser.post("/kiosk/tickets", [("minutes", "45"), ("people", "2"), ("requestKey", requestKey)])
        let again = try browser.post("/kiosk/tickets", [("minutes", "45"), ("people", "2"), ("requestKey", requestKey)])
        #expect(first.header("Location") == again.header("Location"))
        let location = try require(first.header("Location"))
        let id = try Self.ticketId(in: location)
        let ticket = try require(try database.doors.walkInTicket(id: id, storeId: store.id))
        #expect(ticket.walkIn && ticket.userId == nil && ticket.people == 2 && ticket.residenceMinutes == 45)
        #expect(ticket.number == 1 && ticket.status == .called)  // two walk-in places, both free

        let page = try browser.get(location)
        #expect(page.status == 200)
        #expect(page.bodyText.contains("<span>Ticket</span> 1"))
        #expect(page.bodyText.contains("Go in now: scan this code at the entrance by 10:10."))
        #expect(page.bodyText.contains("<dt>Issued</dt><dd>today at 10:00</dd>"))
        #expect(page.bodyText.contains("<path d=\"\(try QRCode(encoding: code(ticket)).svgPath)\""))
        // Back for the next person: by the script where it runs, by a valid meta refresh where it does not.
        #expect(page.bodyText.contains("data-refresh-seconds=\"20\" data-refresh-to=\"/kiosk/dispenser\""))
        #expect(page.bodyText.contains("<noscript><meta http-equiv=\"refresh\" content=\"20; url=/kiosk/dispenser\"></noscript>"))
        // Its number and what to do, for the kiosk to say aloud to a customer who asked.
        #expect(page.bodyText.contains("<h1 class=\"receipt-number\" data-say=\"Your number is 1.\"><span>Ticket</span> 1</h1>"))
        #expect(page.bodyText.contains("data-say=\"Go in now: scan this code at the entrance by 10:10.\""))

        // The walk-in share (2 places) is taken: the next walk-in waits, with an estimate.
        let second = try walkIn(browser)
        #expect(second.status == .waiting && second.number == 2)
        let waiting = try browser.get(try require(printed[second.id]))
        #expect(waiting.bodyText.contains("Wait: about 45 min (around 10:45)"))
        #expect(try browser.get("/kiosk/dispenser").bodyText.contains("Wait right now: about 45 min."))
        // Online customers do not draw on the walk-in share: one lining up now is called.
        #expect(try customerReservation("ada@example.org").status == .called)

        // Another store's kiosk cannot show this store's tickets; old tickets leave the screen.
        #expect(try (try kiosk(otherKey)).get(location).status == 404)
        clock.advance(KioskArea.ticketShownFor)
        #expect(try browser.get(location).status == 404)
    }

    @Test("the dispenser keeps spare tickets to print offline, reports them once, and a late request issues nothing")
    func dispenserSpares() throws {
        let browser = try kiosk()
        try browser.get("/kiosk/dispenser")
        let spares = try browser.post("/kiosk/spares")
        #expect(spares.status == 200)
        struct Spares: Decodable {
            struct Spare: Decodable { var id: Int64; var number: Int; var receipts: [String: String] }
            var day: String
            var tickets: [Spare]
        }
        let block = try JSONDecoder().decode(Spares.self, from: Data(spares.body))
        #expect(block.day == "2026-11-18" && block.tickets.map(\.number) == Array(1...AppDatabase.ticketBlockSize))
        // Each receipt: the number, what to do, the time left to fill in, and the QR code of the
        // ticket's signed code for that party.
        let first = try require(block.tickets.first)
        for people in [1, 2] {
            let receipt = try require(first.receipts[String(people)])
            let code = Fixture.storeKeys.text(of: DoorCode(keyId: 1, storeId: store.id.rawValue, reservationId: first.id,
                                                           kind: .walkIn, people: people, number: 1))
            #expect(receipt.contains("<path d=\"\(try QRCode(encoding: code).svgPath)\""))
            #expect(receipt.contains("<span>Ticket</span> 1</h1>") && receipt.contains("<dd data-printed-at></dd>"))
            #expect(receipt.contains("Printed while CLup could not be reached."))
        }
        // Printed for two at 9:58, reported once CLup answers; reported again, the same ticket.
        let fields = [("id", String(first.id)), ("people", "2"), ("minutes", "45"), ("issuedAt", "2026-11-18T08:58:00Z")]
        let reported = try browser.post("/kiosk/spares/printed", fields)
        #expect(reported.status == 201 && reported.bodyText.contains("\"number\":1"))
        #expect(try browser.post("/kiosk/spares/printed", fields).status == 200)
        let ticket = try reload(try require(try database.doors.walkInTicket(id: ReservationID(first.id), storeId: store.id)))
        #expect(ticket.people == 2 && ticket.residenceMinutes == 45 && ticket.createdAt == Fixture.date(2026, 11, 18, 9, 58))
        // The next ticket issued online is numbered after the block.
        let online = try walkIn(browser)
        #expect(online.number == AppDatabase.ticketBlockSize + 1 && online.id.rawValue > first.id + 9)
        let bad = try browser.post("/kiosk/spares/printed", [("id", online.id.description), ("people", "1"), ("minutes", "30"),
                                                             ("issuedAt", "2026-11-18T08:58:00Z")])
        #expect(bad.status == 409 && bad.bodyText.contains("notInBlock"))

        // A request that waited for the worker longer than the page waits for the answer issues
        // nothing: the page has printed a spare ticket instead.
        func late(_ answerWithin: String?, waited: TimeInterval) -> String? {
            do {
                try EntranceDesk.checkInTime(answerWithin: answerWithin, receivedAt: Date() - waited)
                return nil
            } catch {
                return (error as? EntranceError)?.code
            }
        }
        #expect(late("2.5", waited: 3) == "late" && late("2.5", waited: 1) == nil && late(nil, waited: 30) == nil)
        #expect(late("0", waited: 0) == "invalidAnswerWithin" && late("soon", waited: 0) == "invalidAnswerWithin")
    }

    @Test("the dispenser refuses bad choices and a closed store with reasons, and issues nothing")
    func dispenserRefusals() throws {
        let browser = try kiosk()
        try browser.get("/kiosk/dispenser")
        let bad = try browser.post("/kiosk/tickets", [("minutes", "500"), ("people", "1")])
        #expect(bad.status == 400)
        #expect(bad.bodyText.contains("Choose how long you will stay"))
        // Three at a store that takes parties of two: told the store's limit.
        let three = try browser.post("/kiosk/tickets", [("minutes", "30"), ("people", "3")])
        #expect(three.status == 409 && three.bodyText.contains("This store takes parties of up to 2 people on one ticket."))
        #expect(try browser.post("/kiosk/tickets", [("minutes", "30"), ("people", "9")]).status == 400)
        clock.advance(12 * 3600)  // 22:00, closed
        let closed = try browser.post("/kiosk/tickets", [("minutes", "30"), ("people", "1")])
        #expect(closed.status == 409)
        #expect(closed.bodyText.contains("The store is closed; it opens tomorrow 08:00."))
        let count = try database.value(Int.self, sql: "SELECT COUNT(*) FROM reservation")
        #expect(count == 0)
    }

    // MARK: Scanning

    @Test("a called ticket enters, the same code exits, and a third scan is refused as used")
    func enterAndExit() throws {
        let browser = try kiosk()
        let ticket = try walkIn(browser)
        let entered = try scan(browser, code(ticket))
        #expect(entered.bodyText.contains("result-enter"))
        #expect(entered.bodyText.contains(">ENTER<") && entered.bodyText.contains("Welcome. Ticket 1, 1 person."))
        #expect(entered.bodyText.contains("Inside: <strong data-field=\"peopleInside\">1</strong> / 10"))
        #expect(try reload(ticket).status == .inside && (try reload(ticket).enteredAt) == clock.now)

        clock.advance(25 * 60)
        let exited = try scan(browser, code(ticket))
        #expect(exited.bodyText.contains(">EXIT<") && exited.bodyText.contains("a visit of 25 min"))
        #expect(exited.bodyText.contains("<strong data-field=\"peopleInside\">0</strong>"))
        let done = try reload(ticket)
        #expect(done.status == .done && done.exitedAt == clock.now)
        // The visit was measured for the store's residence ratio (R9).
        let load = try database.storeLoad(store.id)
        #expect(load?.measuredVisits == 1 && abs((load?.actualSeconds ?? 0) - 25 * 60) < 0.01)

        let used = try scan(browser, code(ticket))
        #expect(used.bodyText.contains(">REFUSED<") && used.bodyText.contains("already used to enter and leave"))
    }

    @Test("codes are signed with the store's current key; a rotation keeps older codes good for a week, or not at all")
    func keyRotation() throws {
        let browser = try kiosk()
        let first = try walkIn(browser)
        let signedWithOne = try code(first)
        #expect(Fixture.storeKeys.verify(signedWithOne) { _, key in key == 1 } != nil)
        // A code made before codes were signed with the store's key still opens the door.
        #expect(try scan(browser, Fixture.tickets.token(for: first.id.rawValue)).bodyText.contains(">ENTER<"))

        #expect(try database.stores.rotateSigningKey(storeId: store.id, retireAtOnce: false, now: clock.now) == 2)
        let second = try walkIn(browser)
        let signedWithTwo = try code(second)
        #expect(Fixture.storeKeys.verify(signedWithTwo) { _, key in key == 2 } != nil)
        // The page draws the new code; the old one still lets its holder out.
        let page = try browser.get(try require(printed[second.id]))
        #expect(page.bodyText.contains("<path d=\"\(try QRCode(encoding: signedWithTwo).svgPath)\""))
        #expect(try scan(browser, signedWithOne).bodyText.contains(">EXIT<"))
        // A week on, key 1's codes are refused; the database says the same after a restart.
        let keys = try require(try database.stores.signingKeys(storeId: store.id, now: clock.now + AppDatabase.keyOverlap + 1))
        #expect(keys.current == 2 && !keys.accepts(1))

        // A key that may have leaked: its codes are refused at once, and nothing changes.
        #expect(try database.stores.rotateSigningKey(storeId: store.id, retireAtOnce: true, now: clock.now) == 3)
        let before = try reload(second)
        let refused = try scan(browser, signedWithTwo)
        #expect(refused.bodyText.contains(">REFUSED<") && refused.bodyText.contains("not a CLup ticket"))
        #expect(try reload(second) == before)
        #expect(Fixture.storeKeys.verify(try code(second)) { _, key in key == 3 } != nil)
        #expect(throws: StoreError.self) { try database.stores.rotateSigningKey(storeId: 999, retireAtOnce: false, now: clock.now) }
    }

    @Test("the scanner keeps the store's keys, rules, live tickets and count for offline use; one door admits offline")
    func doorState() throws {
        let browser = try kiosk()
        let ticket = try walkIn(browser)  // called at once
        let response = try browser.get("/kiosk/scanner/state")
        #expect(response.status == 200 && response.header("Content-Type") == "application/json")
        let state = try require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let keys = try require(state["keys"] as? [[String: Any]])
        #expect(keys.count == 1 && keys[0]["keyId"] as? Int == 1)
        #expect(keys[0]["publicKey"] as? String == Secrets.base64url(Fixture.storeKeys.publicKey(storeId: store.id.rawValue, keyId: 1)))
        #expect(state["storeId"] as? Int64 == store.id.rawValue && state["capacity"] as? Int == 10 && state["peopleInside"] as? Int == 0)
        #expect(state["callGraceMinutes"] as? Int == store.callGraceMinutes)
        let tickets = try require(state["tickets"] as? [[String: Any]])
        let mine = try require(tickets.first { $0["id"] as? Int64 == ticket.id.rawValue })
        #expect(mine["state"] as? String == "called" && mine["number"] as? Int == 1 && mine["calledAt"] as? String == "2026-11-18T09:00:00.000Z")
        #expect(state["lastReservationId"] as? Int64 == ticket.id.rawValue)
        #expect(state["admitsOffline"] as? Bool == true && state["admittingDoors"] as? String == "Front door")
        // Another door kiosk of the store lets out but does not admit while offline.
        let second = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: store.id, label: "Side door", key: second, now: clock.now)
        let side = try require(try JSONSerialization.jsonObject(with: Data(try kiosk(second).get("/kiosk/scanner/state").body)) as? [String: Any])
        #expect(side["admitsOffline"] as? Bool == false && side["admittingDoors"] as? String == "Front door")
        // A dispenser reads none of it.
        let dispenserKey = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: store.id, label: "Tickets", key: dispenserKey, role: .dispenser, now: clock.now)
        #expect(try kiosk(dispenserKey).get("/kiosk/scanner/state").status == 403)
    }

    @Test("scans a door made offline: applied when CLup agrees; otherwise nothing changes and staff see the conflict")
    func offlineConflicts() throws {
        let browser = try kiosk()
        func offline(_ code: String, did: String, at: String) throws -> ScanJSON {
            try browser.get("/kiosk/scanner")
            let response = try browser.post("/kiosk/scan", [("code", code), ("scanId", Secrets.token()), ("scannedAt", at),
                                                            ("offlineResult", did)], accept: "application/json")
            #expect(response.status == 200)
            return try JSONDecoder().decode(ScanJSON.self, from: Data(response.body))
        }
        let first = try walkIn(browser)
        // Let in offline at 10:01 and sent at 10:03: CLup agrees, the entry is at 10:01.
        clock.advance(180)
        #expect(try offline(try code(first), did: "enter", at: "2026-11-18T09:01:00Z").result == "enter")
        #expect(try reload(first).enteredAt == Fixture.date(2026, 11, 18, 10, 1))
        // Another door let the same code in while offline: CLup had it inside already.
        let twice = try offline(try code(first), did: "enter", at: "2026-11-18T09:02:00Z")
        #expect(twice.result == "conflict" && twice.headline == "CHECK")
        #expect(try reload(first).status == .inside && (try reload(first).enteredAt) == Fixture.date(2026, 11, 18, 10, 1))
        // A booking cancelled meanwhile, let in offline: not applied.
        let booking = try customerReservation("late@example.org", kind: .booking, slot: Fixture.date(2026, 11, 18, 13))
        #expect(try database.reservations.cancelReservation(id: booking.id, userId: try require(booking.userId), now: clock.now))
        clock.advance(10)
        let cancelled = try offline(try code(booking), did: "enter", at: "2026-11-18T09:03:05Z")
        #expect(cancelled.result == "conflict" && cancelled.message.contains("was let in while CLup could not be reached"))
        #expect(try reload(booking).status == .cancelled)
        // Let out offline, a ticket CLup never had inside.
        let second = try walkIn(browser)
        clock.advance(10)
        #expect(try offline(try code(second), did: "exit", at: "2026-11-18T09:03:15Z").result == "conflict")
        #expect(try reload(second).status == .called)
        // Staff see the three on the door console, and the manager on the store's page.
        let log = try database.doors.doorLog(storeId: store.id).filter { $0.kind == .offlineConflict }
        #expect(log.map(\.reason) == ["notInside", "cancelled", "alreadyInside"])
        #expect(log.map(\.outcome) == ["exit", "enter", "enter"])
        let row = DoorConsole.logRow(try require(log.last), time: "10:02")
        #expect(row.what == "offline scan not accepted" && row.why == "let in while offline; CLup: already inside")
        #expect(row.number == "1")
        // What the door says it did must be enter or exit, with a time.
        let bad = try browser.post("/kiosk/scan", [("code", try code(second)), ("scanId", Secrets.token()),
                                                   ("offlineResult", "enter")], accept: "application/json")
        #expect(bad.status == 400 && bad.bodyText.contains("invalidOfflineResult"))
    }

    @Test("a visit never scanned out is closed once past its bound, and counted for the wait estimate")
    func unscannedVisit() throws {
        let browser = try kiosk()
        let ticket = try walkIn(browser)
        #expect(try scan(browser, code(ticket)).bodyText.contains(">ENTER<"))
        // A 30-minute visit is closed two hours in (three times its length and half an hour).
        clock.advance(2 * 3600)
        _ = try database.doors.advanceQueues(now: clock.now)
        #expect(try reload(ticket).status == .inside)
        clock.advance(60)
        _ = try database.doors.advanceQueues(now: clock.now)
        let closed = try reload(ticket)
        #expect(closed.status == .done && closed.exitedAt == nil && closed.endedAt == clock.now)
        let load = try database.storeLoad(store.id)
        #expect(load?.unscannedVisits == 1 && load?.measuredVisits == 0)
        // Closed once: a later turn counts nothing more.
        _ = try database.doors.advanceQueues(now: clock.now + 5)
        let again = try database.storeLoad(store.id)
        #expect(again?.unscannedVisits == 1)
    }

    @Test("an entry measures how far it fell from the entry expected when the ticket was made, over the root of the wait")
    func entryError() throws {
        // Measured (`VisitAccounting`) as the model draws its ranges with it.
        let browser = try kiosk()
        let ticket = try walkIn(browser)
        let expected = try require(try database.value(Date.self, sql: "SELECT expectedEntry FROM reservation WHERE id = ?",
                                                      ticket.id))
        clock.advance(150)
        #expect(try scan(browser, code(ticket)).bodyText.contains(">ENTER<"))
        let load = try require(try database.storeLoad(store.id))
        let expectedWait = expected.timeIntervalSince(ticket.createdAt)
        let error = (150 - expectedWait) / 60 / ((expectedWait + 600) / 60).squareRoot()
        #expect(abs(error) > 0.05)
        #expect(load.entries == 1 && abs(load.entryErrorSum - error) < 1e-6 && abs(load.entryErrorSquares - error * error) < 1e-6)
    }

    /// Every reservation's id, status and times, in id order: what a refused scan must not change.
    func reservationRows() throws -> [String?] {
        try database.values(String.self, sql: """
            SELECT id || ' ' || status || ' ' || (calledAt IS NULL) || (enteredAt IS NULL) || (endedAt IS NULL)
            FROM reservation ORDER BY id
            """)
    }

    @Test("refusals carry their reason and change nothing")
    func refusals() throws {
        let browser = try kiosk()
        func refused(_ code: String, _ reason: String) throws {
            let before = try reservationRows()
            try browser.get("/kiosk/scanner")
            let response = try browser.post("/kiosk/scan", [("code", code)], accept: "application/json")
            let report = try JSONDecoder().decode(ScanJSON.self, from: Data(response.body))
            #expect(report.result == "refused" && report.reason == reason, "\(reason): \(report)")
            let after = try reservationRows()
            #expect(before == after)
        }
        try refused("not a code", "unknownCode")
        try refused(try TicketToken(secret: "another secret, just as long as the real one").token(for: 1), "unknownCode")
        var forged = Array(try code(try walkIn(browser)).utf8)
        forged[forged.count - 2] = forged[forged.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        try refused(String(decoding: forged, as: UTF8.self), "unknownCode")
        try refused(Fixture.tickets.token(for: 999), "unknownCode")
        try refused(code(try customerReservation("brera@example.org", at: other)), "otherStore")

        // Fill the walk-in share, then one more waits: not yet called.
        _ = try walkIn(browser)
        let waiting = try walkIn(browser)
        #expect(waiting.status == .waiting)
        try refused(code(waiting), "notYetCalled")

        // A booking for 13:00 enters from 12:50 to 13:15.
        let booking = try customerReservation("booker@example.org", kind: .booking, slot: Fixture.date(2026, 11, 18, 13))
        try refused(code(booking), "tooEarly")
        let cancelled = try customerReservation("cancel@example.org")
        #expect(try database.reservations.cancelReservation(id: cancelled.id, userId: cancelled.userId!, now: clock.now))
        try refused(code(cancelled), "cancelled")

        clock.advance(3 * 3600 + 16 * 60)  // 13:16
        try refused(code(booking), "tooLate")
    }

    @Test("the messages name the times and the store")
    func messages() throws {
        let browser = try kiosk()
        let booking = try customerReservation("booker@example.org", kind: .booking, slot: Fixture.date(2026, 11, 18, 13))
        #expect(try scan(browser, code(booking)).bodyText.contains("Too early: this booking may enter from 12:50."))
        let brera = try customerReservation("brera@example.org", at: other)
        #expect(try scan(browser, code(brera)).bodyText.contains("This ticket is for another store: Mercato Brera."))
        clock.advance(3 * 3600 + 10 * 60)
        #expect(try scan(browser, code(booking)).bodyText.contains(">ENTER<"))
    }

    @Test("a called ticket not scanned within the grace period expires and the next is called")
    func graceExpiry() throws {
        let browser = try kiosk()
        let first = try walkIn(browser, people: 2)
        let second = try walkIn(browser)
        #expect(first.status == .called && second.status == .waiting)
        clock.advance(10 * 60)
        #expect(try database.doors.advanceQueues(now: clock.now) == 0)  // exactly at the deadline: still valid
        clock.advance(1)
        #expect(try database.doors.advanceQueues(now: clock.now) == 1)
        #expect(try reload(first).status == .expired && (try reload(second)).status == .called)
        let late = try scan(browser, code(first))
        #expect(late.bodyText.contains("This ticket has expired: it was not used in time."))
    }

    @Test("an exit frees a place: the next ticket is called, and its customer's page says so")
    func exitCallsNext() throws {
        // Given the 8 online places taken by people inside and a customer waiting.
        let browser = try kiosk()
        var inside: [Reservation] = []
        for index in 1...8 {
            let reservation = try customerReservation("in\(index)@example.org")
            #expect(try scan(browser, code(reservation)).bodyText.contains(">ENTER<"))
            inside.append(reservation)
        }
        let waiting = try customerReservation("ada@example.org")
        #expect(waiting.status == .waiting)
        let customer = Browser(app, address: "192.0.2.77")
        try customer.signIn(email: "ada@example.org")
        #expect(try customer.get("/reservations/\(waiting.id)").bodyText.contains("You are in the queue"))

        // When one leaves, the waiting customer is called at once.
        clock.advance(20 * 60)
        #expect(try scan(browser, code(inside[0])).bodyText.contains(">EXIT<"))
        #expect(try reload(waiting).status == .called && (try reload(waiting)).calledAt == clock.now)
        let page = try customer.get("/reservations/\(waiting.id)")
        #expect(page.bodyText.contains("It is your turn: please go to the entrance"))
        #expect(page.bodyText.contains("Scan your code at the entrance by 10:30"))
        // The board shows the number called, and the home page counts the people inside.
        let board = try browser.get("/kiosk/board")
        #expect(board.bodyText.contains("<ul class=\"board-called\"><li>\(waiting.number)</li></ul>"))
        #expect(board.bodyText.contains("Inside: <strong data-board-inside>7</strong> / 10"))
        #expect(board.bodyText.contains("<noscript><meta http-equiv=\"refresh\" content=\"10\"></noscript>"))
        // Its script reads the same as JSON, and updates the board in place, its live region
        // announcing each new call.
        #expect(board.bodyText.contains("aria-live=\"assertive\"") && !board.bodyText.contains("data-refresh-seconds"))
        browser.headers["accept"] = "application/json"
        let json = try browser.get("/kiosk/board")
        browser.headers = [:]
        #expect(json.header("Content-Type") == "application/json")
        #expect(json.bodyText == #"{"called":[\#(waiting.number)],"capacity":10,"next":[],"peopleInside":7}"#)
        #expect(try customer.get("/stores/\(store.id)").bodyText.contains("<dt>People inside</dt><dd>7 of 10</dd>"))
    }

    @Test("a full store refuses entry even to an admissible ticket; the schema refuses it too")
    func capacity() throws {
        let browser = try kiosk()
        for index in 1...8 {
            _ = try scan(browser, code(try customerReservation("in\(index)@example.org")))
        }
        let walkIns = [try walkIn(browser), try walkIn(browser)]
        for ticket in walkIns { #expect(try scan(browser, code(ticket)).bodyText.contains(">ENTER<")) }
        // A booking in its window, with the store full.
        let booking = try customerReservation("booker@example.org", kind: .booking, slot: Fixture.date(2026, 11, 18, 13))
        clock.advance(3 * 3600)
        let full = try scan(browser, code(booking))
        #expect(full.bodyText.contains("The store is full (10 of 10 inside)."))
        #expect(try reload(booking).status == .booked)
        // Whatever writes, the schema keeps the count within the capacity.
        #expect { try database.execute(sql: "UPDATE reservation SET status = 'inside', enteredAt = ? WHERE id = ?",
                                       clock.now, booking.id) } throws: { "\($0)".contains("store full") }
    }

    @Test("the scanner answers JSON to its script, and its page works without one")
    func scannerPage() throws {
        let browser = try kiosk()
        let page = try browser.get("/kiosk/scanner")
        #expect(page.bodyText.contains("<input id=\"code\" name=\"code\" autofocus"))
        #expect(page.bodyText.contains(">Ready<"))
        let ticket = try walkIn(browser)
        try browser.get("/kiosk/scanner")
        let response = try browser.post("/kiosk/scan", [("code", code(ticket))], accept: "application/json")
        #expect(response.header("Content-Type") == "application/json")
        let report = try JSONDecoder().decode(ScanJSON.self, from: Data(response.body))
        #expect(report.result == "enter" && report.headline == "ENTER" && report.peopleInside == 1 && report.number == 1)

        // The script names and dates each scan: sent twice, the exit counts once and answers the same.
        clock.advance(20 * 60)
        let exit = [("code", try code(ticket)), ("scanId", Secrets.token()), ("scannedAt", "2026-11-18T09:15:00Z")]
        let first = try browser.post("/kiosk/scan", exit, accept: "application/json")
        try browser.get("/kiosk/scanner")
        let second = try browser.post("/kiosk/scan", exit, accept: "application/json")
        #expect(first.status == 200 && second.body == first.body)
        #expect(try JSONDecoder().decode(ScanJSON.self, from: Data(first.body)).result == "exit")
        #expect(try reload(ticket).exitedAt == Fixture.date(2026, 11, 18, 10, 15))
        let bad = try browser.post("/kiosk/scan", [("code", try code(ticket)), ("scanId", "short")], accept: "application/json")
        #expect(bad.status == 400 && bad.bodyText.contains("\"code\":\"invalidScanId\""))
    }
}

/// A scan's JSON, as the scanner's script and devices read it.
struct ScanJSON: Decodable {
    var result: String
    var headline: String
    var message: String
    var reason: String?
    var number: Int?
    var peopleInside: Int
    var capacity: Int
}
