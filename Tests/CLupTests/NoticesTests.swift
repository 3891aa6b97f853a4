import Crypto
import Foundation
import Logging
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupJobs
@testable import CLupSupport
@testable import CLupText
@testable import CLupWeb

/// Travel-aware calling, and the notices that reach the customer: leave now, your turn, the
/// booking reminder with its reply, cancellations and expiries — each at most once, and only
/// while it still applies.
@Suite("Notices")
struct NoticesTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    /// Capacity 4, none kept for walk-ins, 2 places a slot; its visits have lasted as declared
    /// (`Fixture.historyAsDeclared`), so places free when the notices' times say.
    let store: Store
    let writer = NoticeWriter(settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets)

    init() throws {
        (clock, database, app) = try Fixture.start()
        store = try database.stores.createStore(
            NewStore(name: "Bottega Duomo", address: "Piazza Duomo 1", phone: "+39 02 1", position: Place.milan[0].position,
                     capacity: 4, timeZone: "Europe/Rome", settings: StoreSettings(capacity: 4, walkInPercent: 0, slotCapacity: 2)),
            hours: Fixture.weekdayHours, departments: [])
        try Fixture.historyAsDeclared(store.id, in: database)
    }

    var storeId: StoreID { store.id }

    func user(_ email: String) throws -> User {
        try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: Fixture.passwordHash,
                                now: clock.now, confirmation: nil)
    }

    func signedIn(_ email: String) throws -> Browser {
        let browser = Browser(app, address: "192.0.2.\(abs(email.hashValue) % 200 + 1)")
        try browser.signIn(email: email)
        try browser.get("/")
        return browser
    }

    @discardableResult
    func lineUp(_ user: User, metres: Int? = nil, mode: TravelMode = .walking) throws -> Reservation {
        let outcome = try database.reservations.reserve(ReservationRequest(
            storeId: storeId, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: mode,
            requestKey: Secrets.token(), travelMetres: metres), now: clock.now)
        guard case .created(let reservation) = outcome else { throw Stack("not created: \(outcome)") }
        return reservation
    }

    func book(_ user: User, at slot: Date) throws -> ReservationOutcome {
        try database.reservations.reserve(ReservationRequest(
            storeId: storeId, userId: user.id, kind: .booking, people: 1, residenceMinutes: 30, slotStart: slot,
            requestKey: Secrets.token()), now: clock.now)
    }

    /// Four customers at hand fill the store.
    func fillStore() throws -> [Reservation] {
        try (1...4).map { index in
            let ticket = try lineUp(try user("inside\(index)@example.org"))
            #expect(try database.doors.scan(reservationId: ticket.id, at: storeId, now: clock.now).verdict == .enter)
            return ticket
        }
    }

    func reservation(_ id: ReservationID) throws -> Reservation {
        try require(try database.reservations.reservation(id: id)).reservation
    }

    func mail(to email: String) throws -> [OutboxMessage] { try database.notices.mail(to: email) }

    struct Stack: Error { let message: String; init(_ message: String) { self.message = message } }

    // MARK: Travel

    @Test("a customer 8 minutes away is told to leave 8 minutes before their place frees, and called as they arrive")
    func leaveThenCall() throws {
        let inside = try fillStore()
        let ada = try user("ada@example.org")
        // 500 m on foot: 8 min 7 s. The store is full until 10:30.
        let ticket = try lineUp(ada, metres: 500)
        #expect(ticket.travel == 488)
        let browser = try signedIn("ada@example.org")
        let page = try browser.get("/reservations/\(ticket.id)")
        // Leave by is worked out from the expected entry, not the range's end (10:18–10:49).
        #expect(page.bodyText.contains(
            "Expected entry around 10:30 (10:18–10:49). It takes you about 9 min on foot: leave by 10:21"))
        #expect(page.bodyText.contains("<span data-field=\"leaveByLabel\">Leave by</span> <strong data-field=\"leaveBy\">10:21</strong>"))
        #expect(try browser.get("/reservations/\(ticket.id)/status").bodyText.contains("\"leaveBy\":\"10:21\""))

        // "Leave now" goes out `noticeMargin` (3 min) before the time to leave (10:21:52), once.
        clock.advance(18 * 60)
        try database.doors.advanceQueues(now: clock.now)
        #expect(try reservation(ticket.id).leftAt == nil)
        clock.advance(60)
        try database.doors.advanceQueues(now: clock.now)
        #expect(try reservation(ticket.id).leftAt == clock.now)
        try database.doors.advanceQueues(now: clock.now + 5)
        #expect(try database.notices.list(reservationId: ticket.id).map(\.kind) == [.leaveNow])
        #expect(try browser.get("/reservations/\(ticket.id)").bodyText.contains("Time to leave for the store"))

        // 10:30: someone leaves. Ada left at 10:19 and arrives at 10:27: she is called at once,
        // and has the grace period from now.
        clock.advance(11 * 60)
        #expect(try database.doors.scan(reservationId: inside[0].id, at: storeId, now: clock.now).verdict == .exit)
        #expect(try reservation(ticket.id).status == .called)
        #expect(try database.notices.list(reservationId: ticket.id).map(\.kind) == [.leaveNow, .yourTurn])

        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let messages = try mail(to: "ada@example.org")
        #expect(messages.map(\.subject) == ["Time to leave for Bottega Duomo", "It is your turn at Bottega Duomo"])
        #expect(messages[0].body.contains("it takes you about 9 min on foot. Your place is held for you while you "
            + "travel, and you should go in around 10:27"))
        #expect(messages[1].body.contains("scan your code by 10:40"))
        #expect(messages[1].body.contains("https://clup.example.org/reservations/\(ticket.id)"))
        // Dispatched once: nothing more goes out.
        #expect(try database.notices.dispatchNotices(now: clock.now, render: writer.render) == 0)
        #expect(try mail(to: "ada@example.org").count == 2)
    }

    @Test("at a store with room, a customer far away leaves now; the place waits for them and nobody expires on the way")
    func roomButFar() throws {
        let ada = try user("ada@example.org")
        // 2.4 km on foot: 39 minutes.
        let ticket = try lineUp(ada, metres: 2400)
        #expect(try reservation(ticket.id).status == .waiting)
        #expect(try reservation(ticket.id).leftAt == clock.now)
        // The board's estimate agrees: entry when she arrives.
        let standing = try require(database.board.standing(of: storeId, now: clock.now)?.standing(of: ticket.id))
        #expect(standing.entry == clock.now + ticket.travel)
        // 36 minutes on: still held, not called, not expired.
        clock.advance(ticket.travel - Departure.callMargin - 1)
        #expect(try database.doors.advanceQueues(now: clock.now) == 0)
        clock.advance(1)
        #expect(try database.doors.advanceQueues(now: clock.now) == 1)
        // Arriving on time, within the grace period, the code lets her in.
        clock.advance(Departure.callMargin + 60)
        #expect(try database.doors.advanceQueues(now: clock.now) == 0)
        #expect(try database.doors.scan(reservationId: ticket.id, at: storeId, now: clock.now).verdict == .enter)
    }

    @Test("the wizard says when to leave for each means of transport, never that a far customer just walks in")
    func wizardDepartures() throws {
        _ = try user("ada@example.org")
        let browser = try signedIn("ada@example.org")
        // From Brera (about 1 km from the Duomo).
        let how = try browser.get("/stores/\(storeId)/reserve/how?minutes=30&people=1&place=brera")
        #expect(how.status == 200)
        #expect(how.bodyText.contains("A place is free now. It is held for you while you travel"))
        #expect(!how.bodyText.contains("as soon as you arrive"))
        #expect(how.bodyText.range(of: #"On foot · \d+ min · leave now, in around 10:\d\d"#, options: .regularExpression)
            != nil)
    }

    @Test("the means of transport can be changed from the ticket, and the times follow")
    func changeTravel() throws {
        _ = try fillStore()
        let ada = try user("ada@example.org")
        let ticket = try lineUp(ada, metres: 2400)
        let browser = try signedIn("ada@example.org")
        #expect(try browser.get("/reservations/\(ticket.id)").bodyText.contains("leave by 09:51") == false)
        let changed = try browser.post("/reservations/\(ticket.id)/travel", [("mode", "car")])
        #expect(changed.status == 303)
        let updated = try reservation(ticket.id)
        #expect(updated.travelMode == .car && updated.travel == TravelMode.travel(mode: .car, metres: 2400))
        #expect(try browser.get("/reservations/\(ticket.id)").bodyText.contains("<option value=\"car\" selected>"))
        #expect(try browser.post("/reservations/\(ticket.id)/travel", [("mode", "plane")]).status == 400)
    }

    @Test("the position a ticket page sends moves the travel the call and the leave-by time use; only a waiting line-up's")
    func travelFromPosition() throws {
        let taken = try fillStore()
        let ada = try user("ada@example.org")
        let ticket = try lineUp(ada, metres: 6000)
        let browser = try signedIn("ada@example.org")
        let page = try browser.get("/reservations/\(ticket.id)").bodyText
        // Offered by the page's script only (hidden without it), sending nothing by itself.
        #expect(page.contains(#"<button type="button" class="secondary" data-follow-position="/reservations/\#(ticket.id)/position" hidden>Time my departure from where I am</button>"#))
        #expect(try reservation(ticket.id).travelMetres == 6000)
        // 2 km north of the store, then 150 m: the travel follows, and the answer is the ticket's figures.
        let store = Place.milan[0].position
        let far = try browser.post("/reservations/\(ticket.id)/position",
                                   [("lat", String(store.latitude + 0.018)), ("lon", String(store.longitude))])
        #expect(far.status == 200 && far.header("Content-Type") == "application/json")
        #expect(far.bodyText.contains(#""status":"waiting""#))
        let farMetres = try #require(try reservation(ticket.id).travelMetres)
        #expect(abs(farMetres - 2002) < 10)
        try browser.post("/reservations/\(ticket.id)/position",
                         [("lat", String(store.latitude + 0.00135)), ("lon", String(store.longitude))])
        let updated = try reservation(ticket.id)
        #expect(abs((updated.travelMetres ?? 0) - 150) < 5)
        #expect(updated.travel == TravelMode.travel(mode: .walking, metres: updated.travelMetres ?? 0))
        // security: a position from which nobody could have lined up (Rome, 480 km) is refused,
        // saying why, and the travel stays; so is a slower way of travelling once told to leave.
        let rome = try browser.post("/reservations/\(ticket.id)/position", [("lat", "41.9028"), ("lon", "12.4964")])
        #expect(rome.status == 422 && rome.header("Content-Type") == "application/json")
        #expect(rome.bodyText.contains("longer than anyone may wait in a queue (2 h)"))
        #expect(try reservation(ticket.id).travelMetres == updated.travelMetres)
        try browser.post("/reservations/\(ticket.id)/position", [("lat", String(store.latitude + 0.018)), ("lon", String(store.longitude))])
        #expect(try browser.post("/reservations/\(ticket.id)/travel", [("mode", "car")]).status == 303)
        try database.execute(sql: "UPDATE reservation SET leftAt = ? WHERE id = ?", clock.now, ticket.id)
        let slower = try browser.post("/reservations/\(ticket.id)/position", [("lat", String(store.latitude + 0.036)), ("lon", String(store.longitude))])
        #expect(slower.status == 422 && slower.bodyText.contains("You were told to leave at 10:00"))
        #expect(try browser.post("/reservations/\(ticket.id)/travel", [("mode", "walking")]).status == 422)
        #expect(try reservation(ticket.id).travelMode == .car)
        let nearer = try browser.post("/reservations/\(ticket.id)/position",
                                      [("lat", String(store.latitude + 0.00135)), ("lon", String(store.longitude))])
        let nearerMetres = try reservation(ticket.id).travelMetres ?? 0
        #expect(nearer.status == 200 && abs(nearerMetres - 150) < 5)
        // Not a point on Earth; not the owner's; not waiting any more.
        #expect(try browser.post("/reservations/\(ticket.id)/position", [("lat", "91"), ("lon", "9")]).status == 400)
        #expect(try browser.post("/reservations/\(ticket.id)/position", [("lat", "x"), ("lon", "9")]).status == 400)
        let other = try user("grace@example.org")
        let grace = try signedIn("grace@example.org")
        _ = other
        #expect(try grace.post("/reservations/\(ticket.id)/position", [("lat", "45.46"), ("lon", "9.19")]).status == 404)
        let held = taken[0]
        #expect(try browser.post("/reservations/\(held.id)/position", [("lat", "45.46"), ("lon", "9.19")]).status == 404)
        #expect(try database.reservations.cancelReservation(id: ticket.id, userId: ada.id, now: clock.now))
        #expect(try browser.post("/reservations/\(ticket.id)/position", [("lat", "45.46"), ("lon", "9.19")]).status == 409)
        #expect(abs((try reservation(ticket.id).travelMetres ?? 0) - 150) < 5)
    }

    // MARK: Applies or not

    @Test("a notice that no longer applies goes to nobody: a ticket cancelled after its call gets no \"your turn\"")
    func staleNotice() throws {
        let ada = try user("ada@example.org")
        let ticket = try lineUp(ada)
        #expect(try reservation(ticket.id).status == .called)
        #expect(try database.reservations.cancelReservation(id: ticket.id, userId: ada.id, now: clock.now))
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        #expect(try mail(to: "ada@example.org").map(\.subject) == ["Your reservation at Bottega Duomo is cancelled"])
    }

    @Test("a customer who chose Italian is told in Italian, by email and on their devices, whatever the page's language")
    func noticesInTheAccountsLanguage() throws {
        let lucia = try user("lucia@example.org")
        try database.accounts.updateProfile(userId: lucia.id, displayName: "Lucia", travelMode: .walking, loyaltyOptIn: false,
                                   language: "it")
        let ticket = try lineUp(lucia)
        #expect(try reservation(ticket.id).status == .called)
        try Language.$current.withValue(.en) { try database.notices.dispatchNotices(now: clock.now, render: writer.render) }
        let message = try require(try mail(to: "lucia@example.org").first)
        #expect(message.subject == "Tocca a te da Bottega Duomo")
        #expect(message.body.hasPrefix("Ciao Lucia,\n\nTocca a te da Bottega Duomo, Piazza Duomo 1."))
        #expect(message.body.contains("Ricevi questi messaggi perché hai una prenotazione con CLup."))
    }

    @Test("a lapsed call expires with a message that says why")
    func expiryMessage() throws {
        let ada = try user("ada@example.org")
        let ticket = try lineUp(ada)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        clock.advance(10 * 60 + 1)
        try database.doors.advanceQueues(now: clock.now)
        #expect(try reservation(ticket.id).status == .expired)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let messages = try mail(to: "ada@example.org")
        #expect(messages.map(\.subject) == ["It is your turn at Bottega Duomo", "Your reservation at Bottega Duomo has expired"])
        #expect(messages[1].body.contains("It was not scanned at the entrance by 10:10"))
    }

    // MARK: Bookings

    @Test("a booking is reminded 2 h before; the link's page changes nothing, its button confirms; no answer cancels it")
    func reminders() throws {
        let ada = try user("ada@example.org")
        let bob = try user("bob@example.org")
        let slot = Fixture.date(2026, 11, 18, 12, 30)
        guard case .created(let adaBooking) = try book(ada, at: slot),
            case .created(let bobBooking) = try book(bob, at: slot)
        else { throw Stack("not booked") }
        let carol = try user("carol@example.org")
        #expect(try book(carol, at: slot).isSlotFull)

        clock.advance(29 * 60)
        #expect(try database.reservations.remindBookings(now: clock.now) == (0, 0))
        clock.advance(60)  // 10:30, two hours before
        #expect(try database.reservations.remindBookings(now: clock.now) == (2, 0))
        #expect(try database.reservations.remindBookings(now: clock.now) == (0, 0))
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let reminder = try require(try mail(to: "ada@example.org").first)
        #expect(reminder.subject == "Your visit to Bottega Duomo at 12:30: please confirm")
        #expect(reminder.body.contains("If you do not confirm by 11:30, the booking is cancelled"))
        let match = try require(reminder.body.firstMatch(of: /Confirm: https:\/\/clup\.example\.org(\/bookings\/reply\?t=([A-Za-z0-9_-]+)&answer=confirm)/))
        let link = String(match.1)
        let token = String(match.2)
        #expect(reminder.body.contains("Cancel: https://clup.example.org/bookings/reply?t=\(token)&answer=cancel"))

        // Opening the link from the email, signed out: a page with the buttons, nothing changed.
        let guest = Browser(app, address: "198.51.100.7")
        let page = try guest.open(link)
        #expect(page.status == 200)
        #expect(page.bodyText.contains("Confirm my visit") && page.bodyText.contains("Cancel the booking"))
        #expect(try reservation(adaBooking.id).confirmedAt == nil)
        let confirmed = try guest.post("/bookings/reply", [("t", token), ("answer", "confirm")])
        #expect(confirmed.status == 200 && confirmed.bodyText.contains("Your visit is confirmed"))
        #expect(try reservation(adaBooking.id).confirmedAt == clock.now)
        // A forged or a ticket's token is refused.
        #expect(try guest.open("/bookings/reply?t=\(Fixture.tickets.token(for: adaBooking.id.rawValue))").status == 404)
        #expect(try guest.post("/bookings/reply", [("t", token), ("answer", "confirm")], csrf: "wrong").status == 403)
        let adaTicket = try signedIn("ada@example.org").get("/reservations/\(adaBooking.id)")
        #expect(adaTicket.bodyText.contains("Your visit is booked · Confirmed"))
        let bobTicket = try signedIn("bob@example.org").get("/reservations/\(bobBooking.id)")
        #expect(bobTicket.bodyText.contains("Please confirm your visit"))
        #expect(bobTicket.bodyText.contains("Confirm my visit"))
        // The store sees who confirmed.
        _ = try database.accounts.createUser(email: "boss@example.org", displayName: "Boss", passwordHash: Fixture.passwordHash,
                                    role: .manager, now: clock.now, confirmation: nil)
        try database.accounts.assignStore(storeId: storeId, toManager: "boss@example.org")
        let manage = try signedIn("boss@example.org").get("/manage/stores/\(storeId)")
        #expect(manage.bodyText.contains("<tr><td>12:30</td><td>\(adaBooking.number)</td><td>1</td><td>Confirmed</td></tr>"))
        #expect(manage.bodyText.contains("<tr><td>12:30</td><td>\(bobBooking.number)</td><td>1</td><td>Asked; cancelled if no answer by 11:30</td></tr>"))

        // 11:30: Bob never answered; his booking is cancelled. Its place is not held when the
        // slot comes near, so the queue gets it: with two people inside and Ada's booking
        // holding one place from 11:50, Dave, lining up at 12:00, is called at once.
        clock.advance(59 * 60)
        #expect(try database.reservations.remindBookings(now: clock.now) == (0, 0))
        clock.advance(60)
        #expect(try database.reservations.remindBookings(now: clock.now) == (0, 1))
        #expect(try reservation(bobBooking.id).status == .cancelled)
        #expect(try reservation(adaBooking.id).status == .booked)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        #expect(try mail(to: "bob@example.org").map(\.subject)
            == ["Your visit to Bottega Duomo at 12:30: please confirm", "Your booking at Bottega Duomo was cancelled"])
        clock.advance(30 * 60)
        for index in 1...2 {
            let ticket = try lineUp(try user("inside\(index)@example.org"))
            #expect(try database.doors.scan(reservationId: ticket.id, at: storeId, now: clock.now).verdict == .enter)
        }
        let dave = try lineUp(try user("dave@example.org"))
        #expect(try reservation(dave.id).status == .called)
        let erin = try lineUp(try user("erin@example.org"))
        #expect(try reservation(erin.id).status == .waiting)

        // security: the reply link's token lives in a cookie, not the address; once the slot
        // (12:30–13:00) is over, the link answers nothing.
        let later = Browser(app, address: "198.51.100.9")
        let stashed = try later.get(link)
        #expect(stashed.status == 303 && stashed.header("Location") == "/bookings/reply?answer=confirm")
        #expect(stashed.header("Referrer-Policy") == "no-referrer")
        #expect(try later.get("/bookings/reply?answer=confirm").status == 200)
        clock.advance(Fixture.date(2026, 11, 18, 13, 0).timeIntervalSince(clock.now))
        #expect(try later.get("/bookings/reply?answer=confirm").status == 410)
        #expect(try later.post("/bookings/reply", [("t", token), ("answer", "cancel")]).status == 410)
    }

    @Test("a booking made 2 hours ahead is not reminded: it counts as confirmed")
    func lateBooking() throws {
        let ada = try user("ada@example.org")
        guard case .created(let booking) = try book(ada, at: Fixture.date(2026, 11, 18, 12)) else {
            throw Stack("not booked")
        }
        #expect(try reservation(booking.id).confirmedAt == clock.now)
        #expect(try database.reservations.remindBookings(now: clock.now + 60) == (0, 0))
        #expect(try database.notices.list(reservationId: booking.id).isEmpty)
    }

    // MARK: Channels

    @Test("push subscriptions: kept per browser, checked, and each notice goes to every one of them")
    func pushSubscriptions() throws {
        let ada = try user("ada@example.org")
        let browser = try signedIn("ada@example.org")
        let key = Secrets.base64url([4] + [UInt8](repeating: 7, count: 64))
        let auth = Secrets.base64url([UInt8](repeating: 1, count: 16))
        #expect(try browser.post("/account/push", [("endpoint", "https://fcm.googleapis.com/fcm/send/a"), ("p256dh", key),
                                                   ("auth", auth)]).status == 204)
        #expect(try browser.post("/account/push", [("endpoint", "https://updates.push.services.mozilla.com/wpush/v2/b"), ("p256dh", key),
                                                   ("auth", auth)]).status == 204)
        // Not a key; not https; not a push service.
        #expect(try browser.post("/account/push", [("endpoint", "https://attacker.example/hook"), ("p256dh", key),
                                                   ("auth", auth)]).status == 400)
        #expect(try browser.post("/account/push", [("endpoint", "https://fcm.googleapis.com.attacker.example/x"),
                                                   ("p256dh", key), ("auth", auth)]).status == 400)
        #expect(try browser.post("/account/push", [("endpoint", "https://fcm.googleapis.com/fcm/send/c"), ("p256dh", "abc"),
                                                   ("auth", auth)]).status == 400)
        #expect(try browser.post("/account/push", [("endpoint", "http://127.0.0.1:9/x"), ("p256dh", key),
                                                   ("auth", auth)]).status == 400)
        #expect(try database.notices.pushSubscriptions(userId: ada.id).count == 2)
        #expect(try browser.get("/account").bodyText.contains("2 browsers"))

        // Push only: no email.
        #expect(try browser.post("/account/notifications", [("push", "on")]).status == 303)
        let ticket = try lineUp(ada)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        #expect(try mail(to: "ada@example.org").isEmpty)
        let subscriptions = try database.notices.pushSubscriptions(userId: ada.id)
        let payload = try require(try database.notices.pushMessages(subscriptionId: subscriptions[0].id).first).payload
        #expect(payload.contains("\"title\":\"It is your turn at Bottega Duomo\""))
        #expect(payload.contains("\"url\":\"https:\\/\\/clup.example.org\\/reservations\\/\(ticket.id)\""))
        #expect(try database.notices.pushMessages(subscriptionId: subscriptions[1].id).count == 1)

        // No channel chosen: email anyway. Removing a browser forgets it.
        #expect(try browser.post("/account/notifications", []).status == 303)
        #expect(try browser.post("/account/push/remove", [("endpoint", "https://fcm.googleapis.com/fcm/send/a")]).status == 204)
        #expect(try database.notices.pushSubscriptions(userId: ada.id).map(\.endpoint) == ["https://updates.push.services.mozilla.com/wpush/v2/b"])
        #expect(try database.reservations.cancelReservation(id: ticket.id, userId: ada.id, now: clock.now))
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        #expect(try mail(to: "ada@example.org").count == 1)
    }

    @Test("security: ten customers reporting absurd positions at a busy store delay nobody behind them past the grace period")
    func absurdPositionsHoldNothing() throws {
        /// A store of 4 places; ten customers line up 500 m away (8 min on foot) and never come,
        /// then one at the door. With `absurd`, the ten report positions 1,000 km away a minute
        /// later. Returns when the one at the door is called, and the ten reports' outcomes.
        func timeline(_ name: String, absurd: Bool) throws -> (called: Date?, reports: [TravelChangeOutcome]) {
            let start = clock.now
            let store = try database.stores.createStore(
                NewStore(name: name, address: "Via Roma 1", phone: "+39 02 1", position: Place.milan[1].position, capacity: 4,
                         timeZone: "Europe/Rome", settings: StoreSettings(capacity: 4, walkInPercent: 0, slotCapacity: 2)),
                hours: Fixture.weekdayHours, departments: [])
            func lineUp(_ user: User, metres: Int?) throws -> Reservation {
                guard case .created(let reservation) = try database.reservations.reserve(ReservationRequest(
                    storeId: store.id, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
                    requestKey: Secrets.token(), travelMetres: metres), now: clock.now)
                else { throw Stack("not created") }
                return reservation
            }
            let far = try (1...10).map { try lineUp(try user("\(name)-far\($0)@example.org"), metres: 500) }
            let near = try lineUp(try user("\(name)-near@example.org"), metres: nil)
            try database.doors.advanceQueues(now: clock.now)
            clock.advance(60)
            var reports: [TravelChangeOutcome] = []
            if absurd {
                for ticket in far {
                    reports.append(try database.reservations.changeTravelDistance(id: ticket.id, userId: try require(ticket.userId),
                                                                     to: TravelMode.longestMetres))
                }
            }
            var called: Date?
            while called == nil, clock.now.timeIntervalSince(start) < 3 * 3600 {
                try database.doors.advanceQueues(now: clock.now)
                called = try reservation(near.id).calledAt
                clock.advance(60)
            }
            clock.advance(start.timeIntervalSince(clock.now))  // the next timeline starts at the same time
            return (called, reports)
        }
        let honest = try timeline("Onesta", absurd: false)
        let absurd = try timeline("Assurda", absurd: true)
        // Every absurd report refused with its reason, and the one at the door called no later.
        #expect(absurd.reports.count == 10 && absurd.reports.allSatisfy {
            if case .refused(.tooFar) = $0 { return true } else { return false }
        })
        let honestCall = try require(honest.called)
        let absurdCall = try require(absurd.called, "the customer at the door was never called")
        #expect(absurdCall.timeIntervalSince(honestCall) <= Double(store.callGraceMinutes) * 60)
    }

    @Test("security: lining up and cancelling in a loop: ten reservations an hour, and the mails of one's own cancellations capped")
    func lineUpCancelLoop() throws {
        let ada = try user("ada@example.org")
        let start = clock.now
        for round in 0..<ReservationRate.perHour {
            let ticket = try lineUp(ada)
            try database.notices.dispatchNotices(now: clock.now, render: writer.render)  // called at once: "your turn"
            clock.advance(30)
            #expect(try database.reservations.cancelReservation(id: ticket.id, userId: ada.id, now: clock.now), "\(round)")
            try database.notices.dispatchNotices(now: clock.now, render: writer.render)
            clock.advance(30)
        }
        // The eleventh within the hour is refused, saying when the next may be made.
        let eleventh = try database.reservations.reserve(ReservationRequest(
            storeId: storeId, userId: ada.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
            requestKey: Secrets.token()), now: clock.now)
        guard case .tooMany(let retryAt) = eleventh else { Issue.record("not refused: \(eleventh)"); return }
        #expect(retryAt == start + 3600)
        // Every call was mailed (what CLup does is always said); of what Ada did herself, only
        // what the mailbox's hourly cap of five left room for: the first two cancellations,
        // before the third call made it five.
        let subjects = try mail(to: "ada@example.org").map(\.subject)
        #expect(subjects.filter { $0 == "It is your turn at Bottega Duomo" }.count == ReservationRate.perHour)
        #expect(subjects.filter { $0 == "Your reservation at Bottega Duomo is cancelled" }.count == 2)
        // The page says it too, and when to come back.
        let browser = try signedIn("ada@example.org")
        let refused = try browser.post("/stores/\(storeId)/reservations", [
            ("kind", "lineUp"), ("people", "1"), ("minutes", "30"), ("requestKey", Secrets.token())])
        #expect(refused.status == 429 && refused.header("Retry-After") == "3000")
        #expect(refused.bodyText.contains("You have made 10 reservations in the last hour. You can make another in 50 min"))
        // An hour after the first, Ada may line up again.
        clock.advance((start + 3601).timeIntervalSince(clock.now))
        #expect(try lineUp(ada).status == .called)
    }

    @Test("a push-only customer whose browser unsubscribed before \"it is your turn\" gets it by email, once, and is told")
    func lostPushGoesByEmail() throws {
        let ada = try user("ada@example.org")
        let browser = try signedIn("ada@example.org")
        let key = Secrets.base64url(Array(P256.KeyAgreement.PrivateKey().publicKey.x963Representation))
        let auth = Secrets.base64url([UInt8](repeating: 1, count: 16))
        for endpoint in ["https://fcm.googleapis.com/fcm/send/a", "https://fcm.googleapis.com/fcm/send/b"] {
            #expect(try browser.post("/account/push", [("endpoint", endpoint), ("p256dh", key), ("auth", auth)]).status == 204)
        }
        #expect(try browser.post("/account/notifications", [("push", "on")]).status == 303)
        let ticket = try lineUp(ada)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        #expect(try mail(to: "ada@example.org").isEmpty)
        let page = "/reservations/\(ticket.id)"
        #expect(try !browser.get(page).bodyText.contains("stopped receiving"))

        // One browser of two gone: the other still takes the notice, so nothing goes by email.
        let service = WebPushTests.FakeService(answers: ["https://fcm.googleapis.com/fcm/send/a": 410,
                                                         "https://fcm.googleapis.com/fcm/send/b": 410])
        let subscriptions = try database.notices.pushSubscriptions(userId: ada.id)
        try database.notices.removePushSubscription(id: subscriptions[0].id, now: clock.now)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        #expect(try mail(to: "ada@example.org").isEmpty)
        #expect(try database.notices.pushLost(userId: ada.id) == nil)

        // The last one answers 410 before "it is your turn" reached it: it goes by email.
        clock.advance(5)
        let delivery = PushDelivery(database: database, vapid: try VAPIDKey(privateKey: VAPIDKey.generatePrivateKey(),
                                                                            subject: "mailto:ops@example.org"),
                                    transport: service, logger: Logger(label: "test"))
        #expect(try delivery.deliverDue(now: clock.now, wait: true) == 1)
        #expect(try database.notices.pushSubscriptions(userId: ada.id).isEmpty)
        #expect(try database.notices.pushLost(userId: ada.id) == clock.now)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        #expect(try mail(to: "ada@example.org").map(\.subject) == ["It is your turn at Bottega Duomo"])
        // Once: nothing more to dispatch, and the ticket page says where notices go now.
        #expect(try database.notices.dispatchNotices(now: clock.now + 60, render: writer.render) == 0)
        #expect(try mail(to: "ada@example.org").count == 1)
        #expect(try browser.get(page).bodyText.contains(
            "Your browser stopped receiving CLup&#39;s notifications, so we email them to ada@example.org instead."))
        // The browser subscribes again: said no more.
        #expect(try browser.post("/account/push", [("endpoint", "https://fcm.googleapis.com/fcm/send/c"), ("p256dh", key),
                                                   ("auth", auth)]).status == 204)
        #expect(try database.notices.pushLost(userId: ada.id) == nil)
        #expect(try !browser.get(page).bodyText.contains("stopped receiving"))
    }

    @Test("a reminder says when in a sentence: \"tomorrow at 00:30\", never \"at tomorrow 00:30\"")
    func whenInWords() {
        let now = Fixture.date(2026, 11, 18, 22, 30)
        let zone = TimeZone(identifier: "Europe/Rome")!
        Language.$current.withValue(.en) {
            #expect(Formatting.at(now + 3600, now: now, timeZone: zone) == "at 23:30")
            #expect(Formatting.at(now + 7200, now: now, timeZone: zone) == "tomorrow at 00:30")
            #expect(Formatting.at(now + 3 * 86400, now: now, timeZone: zone) == "Sat at 22:30")
        }
        Language.$current.withValue(.it) {
            #expect(Formatting.at(now + 7200, now: now, timeZone: zone) == "domani alle 00:30")
        }
    }
}

extension ReservationOutcome {
    var isSlotFull: Bool {
        if case .slotFull = self { true } else { false }
    }
}
