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
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let store: Store
    var storeId: StoreID { store.id }

    init() throws {
        (clock, database, app) = try Fixture.start()
        store = try database.stores.createStore(
            NewStore(name: "Bottega Porta", address: "Via Porta 1", phone: "+39 02 1", position: Place.milan[0].position,
                     capacity: 4, timeZone: "Europe/Rome", settings: StoreSettings(capacity: 4, walkInPercent: 0)),
            hours: Fixture.weekdayHours, departments: [])
        for index in 1...5 {
            let user = try database.accounts.createUser(email: "c\(index)@example.org", displayName: "C\(index)",
                                               passwordHash: Fixture.passwordHash, now: clock.now,
                                               confirmation: nil)
            _ = try database.reservations.reserve(ReservationRequest(
                storeId: store.id, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
                requestKey: Secrets.token()), now: clock.now)
        }
        try Fixture.manager("boss@example.org", of: store.id, in: database, now: clock.now)
    }

    /// Ticket `number`: customer c`number`'s line-up (they lined up in that order).
    func status(_ number: Int) throws -> Reservation {
        let user = try require(try database.accounts.user(email: "c\(number)@example.org"))
        let reservation = try require(try database.reservations.forCustomer(userId: user.id).first).reservation
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
        #expect(try database.reservations.liveTraffic(storeId: storeId, now: clock.now).peopleInside == 0)

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
        try database.doors.advanceQueues(now: clock.now)
        #expect(try status(2).status == .called && status(3).status == .expired)
        // Ticket 5 was called in 3's place; it is marked as not coming.
        #expect(try status(5).status == .called)
        #expect(try act(boss, "noShow", "5", reason: "phoned to say they cannot come").status == 200)
        #expect(try status(5).status == .expired)
        #expect(try database.notices.list(reservationId: try status(5).id).last?.reason == .markedNoShow)
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
        #expect(try database.reservations.cancelReservation(id: one.id, userId: try require(one.userId), now: clock.now))
        #expect(try database.doors.scan(reservationId: one.id, at: storeId, now: clock.now).verdict == .refused(.cancelled))
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

    /// A door kiosk for the store, enrolled in a new browser.
    func doorKiosk(role: KioskRole = .door, label: String = "Entrance left") throws -> (browser: Browser, key: String) {
        let key = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: storeId, label: label, key: key, role: role, now: clock.now)
        let kiosk = Browser(app, address: "192.0.2.77")
        try kiosk.get("/kiosk")
        #expect(try kiosk.post("/kiosk/enrol", [("key", key)]).status == 303)
        return (kiosk, key)
    }

    /// The store's managers set the staff PIN on the store's page.
    func setStaffPin(_ pin: String) throws {
        let boss = try signedIn("boss@example.org")
        try boss.get("/manage/stores/\(storeId)")
        #expect(try boss.post("/manage/stores/\(storeId)/staff-pin", [("pin", pin)]).status == 303)
    }

    func staffSignIn(_ kiosk: Browser, name: String = "Gianni", pin: String) throws -> Response {
        try kiosk.get("/kiosk/staff")
        return try kiosk.post("/kiosk/staff", [("staff", name), ("pin", pin)])
    }

    @Test("security: the door console on a kiosk needs staff signed in with the store's PIN, and locks after 5 idle minutes")
    func kioskStaffSignIn() throws {
        let (kiosk, _) = try doorKiosk()
        // No PIN yet: the console cannot be opened on a kiosk at all.
        #expect(try kiosk.get("/kiosk/door").header("Location") == "/kiosk/staff")
        #expect(try kiosk.get("/kiosk/staff").bodyText.contains("This store has no staff PIN yet"))
        #expect(try staffSignIn(kiosk, pin: "000000").status == 409)
        // A name typed at the kiosk is no longer enough to act.
        let nameOnly = try kiosk.post("/kiosk/door", [("staff", "Anyone"), ("action", "noShow"), ("number", "1"),
                                                      ("reason", "not here")])
        #expect(nameOnly.status == 403)
        #expect(try status(1).status == .called)

        // The manager sets one; a PIN that is not 6–12 digits is refused.
        let boss = try signedIn("boss@example.org")
        try boss.get("/manage/stores/\(storeId)")
        let short = try boss.post("/manage/stores/\(storeId)/staff-pin", [("pin", "12a45")])
        #expect(short.status == 422 && short.bodyText.contains("The staff PIN must be 6 to 12 digits."))
        try setStaffPin("246810")
        #expect(try boss.get("/manage/stores/\(storeId)").bodyText.contains("Set today at 10:00."))

        let wrong = try staffSignIn(kiosk, pin: "135790")
        #expect(wrong.status == 403 && wrong.bodyText.contains("That is not the store&#39;s staff PIN."))
        #expect(try staffSignIn(kiosk, name: "", pin: "246810").status == 422)
        let right = try staffSignIn(kiosk, pin: "246810")
        #expect(right.status == 303 && right.header("Location") == "/kiosk/door")
        let pass = try require(right.setCookie(named: "clup_staff"))
        #expect(pass.contains("Max-Age=300") && pass.contains("HttpOnly") && pass.contains("SameSite=Strict"))

        let page = try kiosk.get("/kiosk/door")
        #expect(page.status == 200 && page.bodyText.contains("Signed in as Gianni."))
        #expect(!page.bodyText.contains("name=\"staff\""))
        let admitted = try kiosk.post("/kiosk/door", [("action", "admit"), ("number", "1"), ("reason", "cracked screen")])
        #expect(admitted.status == 200 && admitted.bodyText.contains("Ticket 1 is in (1 person)."))
        #expect(try status(1).status == .inside)
        // The manager reads who did it, and where, on the console and on the store's page.
        let log = try boss.get("/manage/stores/\(storeId)/door").bodyText
        #expect(log.contains("<td>let in by number</td><td>1</td><td>Gianni at Entrance left</td><td>cracked screen</td>"))
        let storePage = try boss.get("/manage/stores/\(storeId)").bodyText
        #expect(storePage.contains("Door actions on kiosks, last 7 days"))
        #expect(storePage.contains("<td>let in by number</td><td>1</td><td>Gianni at Entrance left</td><td>cracked screen</td>"))

        // Each request renews the pass; five minutes without one ends it, and nothing is done.
        clock.advance(4 * 60)
        #expect(try kiosk.get("/kiosk/door").status == 200)
        clock.advance(4 * 60)
        #expect(try kiosk.get("/kiosk/door").status == 200)
        clock.advance(5 * 60 + 1)
        let lapsed = try kiosk.post("/kiosk/door", [("action", "noShow"), ("number", "2"), ("reason", "not here")])
        #expect(lapsed.status == 403 && lapsed.bodyText.contains("The staff sign-in on this kiosk has ended"))
        #expect(try status(2).status == .called)

        // A new PIN ends every pass made with the old one; locking the console ends this one.
        #expect(try staffSignIn(kiosk, pin: "246810").status == 303)
        try setStaffPin("97531086")
        #expect(try kiosk.get("/kiosk/door").header("Location") == "/kiosk/staff")
        #expect(try staffSignIn(kiosk, pin: "97531086").status == 303)
        #expect(try kiosk.post("/kiosk/staff/sign-out").status == 303)
        #expect(try kiosk.get("/kiosk/door").header("Location") == "/kiosk/staff")
        // A browser that is not an enrolled kiosk is sent to enrol.
        #expect(try Browser(app).get("/kiosk/door").header("Location") == "/kiosk")
    }

    @Test("staff and managers choose which doors let people in offline; each door's places are shown; the log keeps it")
    func doorsOffline() throws {
        try setStaffPin("246810")
        let (left, _) = try doorKiosk(label: "Left")
        let (right, _) = try doorKiosk(label: "Right")
        let otherStore = try database.stores.createStore(
            Fixture.store("Altrove", at: GeoPoint(latitude: 45.47, longitude: 9.19), capacity: 30),
            hours: Fixture.weekdayHours, departments: [])
        let stranger = try database.accounts.enrolKiosk(storeId: otherStore.id, label: "Elsewhere", key: Secrets.token(bytes: 32),
                                                        now: clock.now)
        // The first door enrolled lets people in offline; its page renews its lease: half the
        // 4 free places, as the store has two doors.
        func lease(_ kiosk: Browser, held: String = "") throws -> [String: Any] {
            try kiosk.get("/kiosk/scanner")
            let response = try kiosk.post("/kiosk/scanner/lease", [("heldVersion", held)], accept: "application/json")
            #expect(response.status == 200 && response.header("Content-Type") == "application/json")
            return try require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        }
        let first = try lease(left)
        #expect(first["admitsOffline"] as? Bool == true && first["places"] as? Int == 2 && first["version"] as? Int64 == 1)
        #expect(try lease(right)["admitsOffline"] as? Bool == false)

        #expect(try staffSignIn(right, pin: "246810").status == 303)
        let page = try right.get("/kiosk/door").bodyText
        #expect(page.contains("<strong>Left</strong>"))
        #expect(page.contains("lets people in while offline · holds 2 places"))
        #expect(page.contains("<strong>Right</strong>") && page.contains("lets people out only while offline"))
        func turn(_ browser: Browser, kiosk: String, _ admits: String, path: String = "/kiosk/door/offline") throws -> Response {
            try browser.post(path, [("kiosk", kiosk), ("admits", admits)])
        }
        let ids = try database.doors.offlineDoors(storeId: storeId, now: clock.now).map(\.kioskId)
        let on = try turn(right, kiosk: String(ids[1]), "on")
        #expect(on.status == 200 && on.bodyText.contains("Right lets people in while offline."))
        #expect(try lease(right)["places"] as? Int == 2)
        // The manager turns the left door off from the store's console: its places are freed.
        let boss = try signedIn("boss@example.org")
        try boss.get("/manage/stores/\(storeId)/door")
        let off = try turn(boss, kiosk: String(ids[0]), "off", path: "/manage/stores/\(storeId)/door/offline")
        #expect(off.status == 200 && off.bodyText.contains("Left lets people out only while offline."))
        #expect(try database.doors.offlineDoors(storeId: storeId, now: clock.now).map(\.heldPlaces) == [0, 2])
        #expect(try boss.get("/manage/stores/\(storeId)").bodyText.contains("lets people in while offline (holds 2 places)"))
        // The log names who did each, and which door.
        let log = try boss.get("/manage/stores/\(storeId)/door").bodyText
        #expect(log.contains("<td>door set for offline</td><td>—</td><td>Gianni at Right</td><td>Right lets people in while offline.</td>"))
        #expect(log.contains("<td>door set for offline</td><td>—</td><td>Boss</td><td>Left lets people out only while offline.</td>"))
        // Another store's kiosk, a dispenser or nonsense: nothing changes.
        #expect(try turn(right, kiosk: String(stranger.id), "on").status == 404)
        #expect(try turn(right, kiosk: String(ids[0]), "maybe").status == 404)
        #expect(try turn(right, kiosk: "x", "on").status == 404)
        #expect(try database.doors.offlineDoors(storeId: storeId, now: clock.now).map(\.admitsOffline) == [false, true])
    }

    @Test("security: a pass from one kiosk does not open another's console, and a forged one opens none")
    func kioskStaffPassIsBound() throws {
        try setStaffPin("246810")
        let (first, _) = try doorKiosk(label: "Left")
        let (second, _) = try doorKiosk(label: "Right")
        #expect(try staffSignIn(first, pin: "246810").status == 303)
        let pass = try require(first.cookies["clup_staff"])
        second.cookies["clup_staff"] = pass
        #expect(try second.get("/kiosk/door").header("Location") == "/kiosk/staff")
        // The name changed in the cookie: the signature no longer holds.
        let parts = pass.split(separator: ".")
        first.cookies["clup_staff"] = [parts[0], parts[1], Substring(Secrets.base64url(Array("Mallory".utf8))), parts[3]]
            .joined(separator: ".")
        #expect(try first.get("/kiosk/door").header("Location") == "/kiosk/staff")
    }

    @Test("security: wrong staff PINs are throttled per kiosk, the right one included once locked")
    func kioskStaffPinThrottle() throws {
        try setStaffPin("246810")
        let (kiosk, _) = try doorKiosk()
        for _ in 1...5 { #expect(try staffSignIn(kiosk, pin: "111111").status == 403) }
        let locked = try staffSignIn(kiosk, pin: "246810")
        #expect(locked.status == 429 && locked.bodyText.contains("Too many wrong PINs on this kiosk."))
        #expect(locked.header("Retry-After") == "30")
        clock.advance(31)
        #expect(try staffSignIn(kiosk, pin: "246810").status == 303)
    }

    @Test("security: strangers' failed sign-ins from the shop's address never lock staff out; PINs are limited per store")
    func kioskStaffPinNotShared() throws {
        try setStaffPin("246810")
        let (kiosk, _) = try doorKiosk()
        // Fifty failed web sign-ins from the shop's guest Wi-Fi, the kiosk's own address.
        let guest = Browser(app, address: "192.0.2.77")
        for index in 0..<SignInThrottle.clientLimit {
            _ = try guest.signIn(email: "someone\(index)@example.org", password: "wrong password \(index)")
        }
        #expect(try guest.signIn(email: "someone@example.org", password: "wrong password").status == 429)
        // The kiosk never had a wrong PIN: staff sign in.
        #expect(try staffSignIn(kiosk, pin: "246810").status == 303)
        // Wrong PINs on one kiosk do not hold back another.
        let (other, _) = try doorKiosk(label: "Entrance right")
        for _ in 1...5 { #expect(try staffSignIn(kiosk, pin: "111111").status == 403) }
        #expect(try staffSignIn(kiosk, pin: "246810").status == 429)
        #expect(try staffSignIn(other, pin: "246810").status == 303)
        // Guesses spread over many kiosks of one store: at most 100 an hour for the store.
        for index in 0..<SignInThrottle.accountHourlyLimit {
            try database.accounts.recordSignInFailure(account: StaffPin.throttleAccount(storeId: storeId.rawValue),
                                             clientAddress: StaffPin.throttleClient(kioskId: 1000 + Int64(index)),
                                             now: clock.now)
        }
        let (third, _) = try doorKiosk(label: "Back door")
        #expect(try staffSignIn(third, pin: "246810").status == 429)
        clock.advance(3601)
        #expect(try staffSignIn(third, pin: "246810").status == 303)
    }

    @Test("security: door actions from a kiosk are limited to 30 in 10 minutes")
    func kioskDoorActionLimit() throws {
        try setStaffPin("246810")
        let (kiosk, _) = try doorKiosk()
        #expect(try staffSignIn(kiosk, pin: "246810").status == 303)
        for _ in 1...DoorConsole.kioskLimit {
            let done = try kiosk.post("/kiosk/door", [("action", "recall"), ("number", "1"), ("reason", "called again")])
            #expect(done.status == 200)
        }
        let over = try kiosk.post("/kiosk/door", [("action", "noShow"), ("number", "2"), ("reason", "not here")])
        #expect(over.status == 429 && over.bodyText.contains("the most allowed"))
        #expect(try status(2).status == .called)
        // A manager is not limited, and the kiosk may act again once the window has passed.
        #expect(try act(try signedIn("boss@example.org"), "noShow", "2").status == 200)
        clock.advance(DoorConsole.kioskWindow + 1)
        #expect(try staffSignIn(kiosk, pin: "246810").status == 303)
        #expect(try kiosk.post("/kiosk/door", [("action", "noShow"), ("number", "3"), ("reason", "not here")]).status == 200)
    }

    @Test("security: a manager takes a kiosk out of service from the store's page; its key stops at once; both are logged")
    func managerRevokesKiosk() throws {
        let (kiosk, key) = try doorKiosk(label: "Entrance left")
        #expect(try kiosk.get("/kiosk/dispenser").status == 200)
        try setStaffPin("246810")
        let kioskId = try require(try database.accounts.kiosk(key: key)).id
        let boss = try signedIn("boss@example.org")
        let page = try boss.get("/manage/stores/\(storeId)").bodyText
        #expect(page.contains("name=\"kiosk\" value=\"\(kioskId)\""))
        // Another store's kiosk is not this manager's to revoke.
        let other = try database.stores.createStore(Fixture.store("Altrove", at: Place.milan[1].position), hours: Fixture.weekdayHours,
                                             departments: [])
        let otherKiosk = try database.accounts.enrolKiosk(storeId: other.id, label: "Theirs", key: Secrets.token(bytes: 32), now: clock.now)
        #expect(try boss.post("/manage/stores/\(storeId)/kiosks/revoke", [("kiosk", String(otherKiosk.id))]).status == 404)
        #expect(try database.accounts.kiosks(storeId: other.id).first?.revokedAt == nil)
        let revoked = try boss.post("/manage/stores/\(storeId)/kiosks/revoke", [("kiosk", String(kioskId))])
        #expect(revoked.status == 303 && revoked.header("Location") == "/manage/stores/\(storeId)?kiosk=revoked")
        #expect(try kiosk.get("/kiosk/dispenser").header("Location") == "/kiosk")
        let after = try boss.get("/manage/stores/\(storeId)?kiosk=revoked").bodyText
        #expect(after.contains("The kiosk is revoked: its key no longer works."))
        #expect(after.contains("Kiosk: Entrance left (door) → revoked"))
        #expect(after.contains("Staff PIN:  → set"))
        #expect(!after.contains("246810"))
    }

    @Test("security: a dispenser kiosk neither scans nor opens a staff screen, by page or by device API")
    func dispenserRole() throws {
        try setStaffPin("246810")
        let (kiosk, key) = try doorKiosk(role: .dispenser, label: "Dispenser")
        #expect(try kiosk.get("/kiosk").header("Location") == "/kiosk/dispenser")
        #expect(try kiosk.get("/kiosk/dispenser").status == 200)
        #expect(try kiosk.get("/kiosk/board").status == 200)
        for path in ["/kiosk/scanner", "/kiosk/staff", "/kiosk/door"] {
            #expect(try kiosk.get(path).status == 403, "\(path)")
        }
        #expect(try staffSignIn(kiosk, pin: "246810").status == 403)
        let code = Fixture.tickets.token(for: try status(1).id.rawValue)
        #expect(try kiosk.post("/kiosk/scan", [("code", code)]).status == 403)
        var request = Request(method: .post, path: "/api/v1/scan", body: Array("{\"code\": \"\(code)\"}".utf8))
        request.headers["authorization"] = "Bearer \(key)"
        request.headers["content-type"] = "application/json"
        let api = app.respond(to: request)
        #expect(api.status == 403 && api.bodyText.contains("\"code\":\"wrongRole\""))
        #expect(try status(1).status == .called)
    }

    @Test("past midnight a store open late keeps the evening's day: its visits, its numbers, its door console")
    func pastMidnight() throws {
        let late = try database.stores.createStore(
            NewStore(name: "Notturno", address: "Via Luna 1", phone: "", position: Place.milan[1].position, capacity: 4,
                     timeZone: "Europe/Rome", settings: StoreSettings(capacity: 4, walkInPercent: 0)),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 18 * 60, closes: 26 * 60) }, departments: [])
        func lineUp(_ email: String) throws -> Reservation {
            let user = try database.accounts.createUser(email: email, displayName: "Owl", passwordHash: "x", now: clock.now,
                                               confirmation: nil)
            guard case .created(let ticket) = try database.reservations.reserve(ReservationRequest(
                storeId: late.id, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 20, travelMode: .walking,
                requestKey: Secrets.token()), now: clock.now)
            else { throw RequireError(message: "not created") }
            return ticket
        }
        clock.advance(Fixture.date(2026, 11, 18, 23, 50).timeIntervalSince(clock.now))
        let evening = try lineUp("owl@example.org")
        #expect(try database.doors.scan(reservationId: evening.id, at: late.id, now: clock.now).verdict == .enter)
        clock.advance(30 * 60)  // 00:20 on Thursday, the store open until 02:00
        try database.doors.advanceQueues(now: clock.now)
        #expect(try database.reservations.reservation(id: evening.id)?.reservation.status == .inside)
        #expect(try lineUp("lark@example.org").number == evening.number + 1)
        let outcome = try database.doors.door(.leftUnscanned, storeId: late.id, number: evening.number, reason: "left by the side",
                                        by: .user(try require(try database.accounts.user(email: "boss@example.org")).id), now: clock.now)
        guard case .done = outcome else {
            Issue.record("the evening's ticket was not found: \(outcome)")
            return
        }
        #expect(try database.reservations.reservation(id: evening.id)?.reservation.status == .done)
    }
}
