import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// The reservation wizard, tickets and my reservations, in-process over an in-memory SQLite
/// with the clock pinned at Wednesday 18 November 2026, 10:00 in Milan.
@Suite("Lining up and booking")
struct ReservationsTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    /// By the Duomo: capacity 4, none kept for walk-ins, 2 places a slot.
    let duomo: Store
    /// 700 m north, open every day; 1 km east, open Mon–Sat.
    let brera: Store
    let porta: Store

    init() throws {
        (clock, database, app) = try Fixture.start()
        duomo = try database.stores.createStore(
            NewStore(name: "Bottega Duomo", address: "Piazza Duomo 1", phone: "+39 02 1", position: Place.milan[0].position,
                  capacity: 4, timeZone: "Europe/Rome", settings: StoreSettings(capacity: 4, walkInPercent: 0, slotCapacity: 2)),
            hours: Fixture.weekdayHours, departments: [("Bakery", 10), ("Deli", 12), ("Fruit", 4)])
        brera = try database.stores.createStore(
            Fixture.store("Mercato Brera", at: GeoPoint(latitude: 45.4705, longitude: 9.1900), capacity: 30),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 7 * 60, closes: 22 * 60) }, departments: [])
        porta = try database.stores.createStore(
            Fixture.store("Spesa Porta Venezia", at: GeoPoint(latitude: 45.4642, longitude: 9.2030), capacity: 30),
            hours: Fixture.weekdayHours, departments: [])
    }

    /// A confirmed customer, signed in.
    func customer(_ email: String) throws -> (browser: Browser, id: UserID) {
        let user = try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: Fixture.passwordHash,
                                           now: clock.now, confirmation: nil)
        let browser = Browser(app, address: "192.0.2.\(abs(email.hashValue) % 200 + 1)")
        try browser.signIn(email: email)
        try browser.get("/")  // forms now carry the session's CSRF token
        return (browser, try require(user.id))
    }

    /// A customer's reservation made directly, as if through the wizard.
    @discardableResult
    func reserve(_ userId: UserID, at store: Store, kind: Reservation.Kind = .lineUp, people: Int = 1, minutes: Int = 30,
                 slot: Date? = nil, replacing: Bool = false) throws -> ReservationOutcome
    {
        try database.reservations.reserve(ReservationRequest(
            storeId: try require(store.id), userId: userId, kind: kind, people: people, residenceMinutes: minutes,
            travelMode: .walking, slotStart: slot, requestKey: Secrets.token(), replacingActive: replacing), now: clock.now)
    }

    func created(_ outcome: ReservationOutcome) throws -> Reservation {
        guard case .created(let reservation) = outcome else { throw RequireError(message: "not created: \(outcome)") }
        return reservation
    }

    /// The hidden fields of the confirm form on a recap page.
    func confirmFields(_ page: Response) -> [(String, String)] {
        page.bodyText.matches(of: /<input type="hidden" name="([a-zA-Z]+)" value="([^"]*)">/)
            .map { (String($0.1), String($0.2)) }.filter { $0.0 != "csrf" }
    }

    func slotValue(_ date: Date) -> String { String(Int(date.timeIntervalSince1970)) }

    func at(_ hour: Int, _ minute: Int = 0, day: Int = 18) -> Date { Fixture.date(2026, 11, day, hour, minute) }

    // MARK: Who may reserve

    @Test("guests are sent to sign in; unconfirmed customers are told to confirm first")
    func onlyConfirmedCustomers() throws {
        let guest = Browser(app)
        let response = try guest.get("/stores/1/reserve")
        #expect(response.status == 303)
        #expect(response.header("Location") == "/signin?next=%2Fstores%2F1%2Freserve")
        let fresh = Browser(app)
        try fresh.get("/signup")
        try fresh.post("/signup", [("email", "new@example.org"), ("displayName", "New"),
                                   ("password", "correct horse battery"), ("passwordAgain", "correct horse battery"), ("terms", "accepted")])
        try fresh.signIn(email: "new@example.org")
        let sent = try fresh.get("/stores/1/reserve")
        #expect(sent.status == 303)
        #expect(sent.header("Location") == "/confirm/first?next=%2Fstores%2F1%2Freserve")
        let refused = try fresh.get("/confirm/first?next=%2Fstores%2F1%2Freserve")
        #expect(refused.status == 200)
        #expect(refused.bodyText.contains("To line up or book, confirm your email address: open the link we sent to new@example.org."))
        #expect(refused.bodyText.contains("href=\"/stores/1/reserve\">Back to where you were</a>"))
        // An ordinary situation, named as one: not "403 Not allowed".
        #expect(refused.bodyText.contains("<title>Confirm your email address first · CLup</title>"))
        #expect(refused.bodyText.contains("<h1>Confirm your email address first</h1>"))
        #expect(!refused.bodyText.contains("error-code") && !refused.bodyText.contains("Not allowed"))
        #expect(refused.bodyText.contains("Send it again"))
        let form = try fresh.post("/stores/1/reservations", [("kind", "lineUp"), ("minutes", "30"), ("people", "1"),
                                                             ("requestKey", Secrets.token())])
        #expect(form.status == 403 && form.bodyText.contains("Please confirm your email address before you line up or book"))
        let newId = try require(try database.accounts.user(email: "new@example.org")?.id)
        #expect(try database.reservations.forCustomer(userId: newId).isEmpty)
    }

    // MARK: Line up

    @Test("line up: time from departments, people, transport → recap → confirm → a ticket whose QR code is signed")
    func lineUpJourney() throws {
        let (browser, userId) = try customer("ada@example.org")
        let start = try browser.get("/stores/1/reserve?place=duomo")
        #expect(start.status == 200)
        #expect(start.bodyText.contains("Bakery · 10 min"))
        // Steps are named, not counted (a line-up has three, a booking four).
        #expect(start.bodyText.contains("<p class=\"steps\">Step 1 · Your visit</p>"))
        // Given Bakery (10) and Fruit (4): 14 min → the 15-minute floor.
        let how = try browser.get("/stores/1/reserve/how?place=duomo&time=departments&department=1&department=3&people=2")
        #expect(how.status == 200)
        #expect(how.bodyText.contains("About 15 min · 2 people"))
        #expect(how.bodyText.contains("Nobody is in the queue."))
        #expect(how.bodyText.contains("<input type=\"radio\" name=\"mode\" value=\"walking\" checked> On foot"))
        #expect(how.bodyText.contains("<p class=\"steps\">Step 2 · Line up or book</p>"))
        // The button leads to the recap, so it does not claim to line up.
        #expect(how.bodyText.contains("<button type=\"submit\">Continue</button>"))
        #expect(!how.bodyText.contains(">Line up</button>"))
        let recap = try browser.get("/stores/1/reserve/recap?kind=lineUp&minutes=15&people=2&place=duomo&mode=car")
        #expect(recap.status == 200)
        #expect(recap.bodyText.contains("<dt>Getting there</dt><dd>5 min by car</dd>"))
        // A place is free: the customer leaves now, and goes in when they arrive.
        #expect(recap.bodyText.contains("<dt>Leave</dt><dd>now, when you confirm</dd>"))
        #expect(recap.bodyText.contains("<dt>Expected entry</dt><dd>around 10:05</dd>"))
        #expect(recap.bodyText.contains("<p class=\"steps\">Last step</p>"))
        let confirmed = try browser.post("/stores/1/reservations", confirmFields(recap))
        #expect(confirmed.status == 303)
        let location = try require(confirmed.header("Location"))
        let reservation = try require(try database.reservations.activeReservation(userId: userId)).reservation
        #expect(location == "/reservations/\(try require(reservation.id))")
        #expect(reservation.kind == .lineUp && reservation.people == 2 && reservation.residenceMinutes == 15)
        // Nobody is in the store, but the customer is 5 minutes away by car: they are told to
        // leave now, their place is held, and the ticket is called as they are about to arrive.
        #expect(reservation.travelMode == .car && reservation.number == 1 && reservation.status == .waiting)
        #expect(reservation.leftAt == clock.now && reservation.travel == 300)
        let leaving = try browser.get(location)
        #expect(leaving.bodyText.contains("Time to leave for the store"))
        #expect(leaving.bodyText.contains("<span data-field=\"leaveByLabel\">Leave</span> <strong data-field=\"leaveBy\">now</strong>"))
        #expect(leaving.bodyText.contains("<option value=\"car\" selected>Car · 5 min</option>"))
        clock.advance(2 * 60)
        #expect(try database.doors.advanceQueues(now: clock.now) == 0)
        clock.advance(60)
        #expect(try database.doors.advanceQueues(now: clock.now) == 1)
        #expect(try database.notices.list(reservationId: try require(reservation.id)).map(\.kind) == [.leaveNow, .yourTurn])

        let ticket = try browser.get(location)
        #expect(ticket.status == 200)
        #expect(ticket.bodyText.contains("It is your turn: please go to the entrance"))
        #expect(ticket.bodyText.contains("Scan your code at the entrance by 10:13, or the ticket expires."))
        // The QR code drawn is this reservation's code signed with the store's key, and verifies.
        let token = try Fixture.doorCode(reservation, database)
        let signed = Fixture.storeKeys.verify(token) { store, key in store == reservation.storeId.rawValue && key == 1 }
        #expect(signed?.reservationId == reservation.id.rawValue && signed?.kind == .lineUp && signed?.number == reservation.number)
        #expect(ticket.bodyText.contains("<path d=\"\(try QRCode(encoding: token).svgPath)\""))
        #expect(!ticket.bodyText.contains(">\(token)<"))  // never shown as text to copy
        let png = try browser.get(location + "/qr.png")
        #expect(png.status == 200 && png.header("Content-Type") == "image/png")
        #expect(png.body == (try QRCode(encoding: token).png()))
        let status = try browser.get(location + "/status")
        #expect(status.header("Content-Type") == "application/json")
        #expect(status.bodyText.contains("\"status\":\"called\""))
    }

    @Test("the first step, sent without a choice, is shown again with a reason for each question")
    func stepOneProblems() throws {
        let (browser, _) = try customer("ada@example.org")
        let response = try browser.get("/stores/1/reserve/how?time=departments")
        #expect(response.status == 422)
        #expect(response.bodyText.contains("Tick the departments you will visit, or choose a time."))
        #expect(response.bodyText.contains("Say whether you are coming alone or with someone."))
        #expect(try browser.get("/stores/1/reserve/how?minutes=500&people=1").status == 400)
        #expect(try browser.get("/stores/1/reserve/how?minutes=30&people=3").status == 400)
        #expect(try browser.get("/stores/99/reserve").status == 404)
    }

    @Test("people ahead and the expected entry follow the queue; the store list shows the wait")
    func queueStanding() throws {
        // Given four people lining up for 30 min at a store with 4 online places: all four are
        // called at once and hold the places; then a pair and one more wait.
        for index in 1...4 {
            #expect(try created(try reserve(try customer("q\(index)@example.org").id, at: duomo)).status == .called)
        }
        let (browser, userId) = try customer("ada@example.org")
        let mine = try created(try reserve(userId, at: duomo, people: 2))
        #expect(mine.status == .waiting && mine.number == 5)
        let ticket = try browser.get("/reservations/\(try require(mine.id))")
        #expect(ticket.bodyText.contains("You are in the queue"))
        #expect(ticket.bodyText.contains("<meta http-equiv=\"refresh\" content=\"30\">"))
        // With the range it falls in four times in five, as on the store card (below).
        #expect(ticket.bodyText.contains(
            "Nobody is ahead of you. Expected entry around 10:30 (in 30 min), most likely between 10:17 and 10:50."))
        try created(try reserve(try customer("q5@example.org").id, at: duomo))
        // The card shows the range a newcomer's 30 minutes fall in four times in five: four
        // places, so about four exits to wait for. A new store takes visits to vary by 0.35
        // (`VisitModel.priorSpread`), which makes exits over half an hour a little more regular
        // than a Poisson stream's: relative spread √(0.130 + 0.870 × ½) ÷ √4 = 0.376, and
        // 30 × e^(∓1.28 × 0.376) = 18.5–48.6 min, a minute either side for the door.
        let home = try browser.get("/?place=duomo")
        #expect(home.bodyText.contains("17–50 min"))
        let how = try browser.get("/stores/1/reserve/how?minutes=30&people=1")
        #expect(how.bodyText.contains("3 people in the queue."))
    }

    @Test("a wait over 2 hours is refused, with the nearest stores that can take the party")
    func longWaitRefused() throws {
        // Given pairs staying an hour: the store's four places are taken until 13:00.
        for index in 1...6 { try created(try reserve(try customer("q\(index)@example.org").id, at: duomo, people: 2, minutes: 60)) }
        let (browser, userId) = try customer("ada@example.org")
        let how = try browser.get("/stores/1/reserve/how?minutes=30&people=1&place=duomo")
        #expect(how.bodyText.contains("over the 2 hours CLup lets anyone wait"))
        #expect(!how.bodyText.contains("name=\"mode\""))
        let brera = try require(how.bodyText.range(of: "Mercato Brera"))
        let porta = try require(how.bodyText.range(of: "Spesa Porta Venezia"))
        #expect(brera.lowerBound < porta.lowerBound)  // 700 m before 1 km
        #expect(how.bodyText.contains("away · wait under 1 min"))  // not "wait none"
        let refused = try browser.post("/stores/1/reservations", [
            ("kind", "lineUp"), ("minutes", "30"), ("people", "1"), ("requestKey", Secrets.token())])
        #expect(refused.status == 409)
        #expect(refused.bodyText.contains("You cannot line up at Bottega Duomo now"))
        #expect(refused.bodyText.contains("/stores/2/reserve/how?minutes=30&amp;people=1"))
        #expect(try database.reservations.activeReservation(userId: userId) == nil)
    }

    @Test("a party larger than the places for the queue is told so, not that the queue is long")
    func partyTooLarge() throws {
        let tiny = try database.stores.createStore(
            Fixture.store("Bottega Minima", at: GeoPoint(latitude: 45.4660, longitude: 9.1900), capacity: 1),
            hours: Fixture.weekdayHours, departments: [])
        let (browser, _) = try customer("ada@example.org")
        let how = try browser.get("/stores/\(try require(tiny.id))/reserve/how?minutes=30&people=2")
        #expect(how.bodyText.contains("too few places for the queue to let a party of your size in"))
        #expect(try browser.get("/stores/\(try require(tiny.id))/reserve/how?minutes=30&people=1").bodyText
            .contains("A place is free now."))
    }

    // MARK: Book

    @Test("late in the day, step 2 names the first slot the visit fits in before closing, and the picker opens on its day")
    func firstSlotFitsTheVisit() throws {
        let (browser, _) = try customer("ada@example.org")
        clock.advance(8 * 3600 + 45 * 60)  // 18:45: slots from 20:45 may be booked; the store closes at 21:00
        let short = try browser.get("/stores/1/reserve/how?minutes=15&people=1").bodyText
        #expect(short.contains("The first time you can book: today, 20:45–21:00."))
        let how = try browser.get("/stores/1/reserve/how?minutes=30&people=1").bodyText
        #expect(!how.contains("20:45"))
        #expect(how.contains("The first time you can book: tomorrow, 08:00–08:15."))
        let slots = try browser.get("/stores/1/reserve/slots?minutes=30&people=1").bodyText
        #expect(slots.contains("aria-current=\"page\">Tomorrow</a>"))
        #expect(slots.contains(#"<span class="slot-time">08:00–08:15</span>"#))
    }

    @Test("the slot picker shows a day's bookable slots by availability, and says why earlier ones are not")
    func slotPicker() throws {
        let (browser, _) = try customer("ada@example.org")
        try created(try reserve(try customer("b@example.org").id, at: duomo, kind: .booking, slot: at(12, 15)))
        try created(try reserve(try customer("c@example.org").id, at: duomo, kind: .booking, people: 2, slot: at(12, 30)))
        let page = try browser.get("/stores/1/reserve/slots?minutes=30&people=1")
        #expect(page.status == 200)
        #expect(page.bodyText.contains("aria-current=\"page\">Today</a>"))
        #expect(page.bodyText.contains("Bookings open 2 hours ahead: the first time you can book on this day is 12:00."))
        #expect(!page.bodyText.contains("11:45–12:00"))
        #expect(page.bodyText.contains(#"<label class="slot slot-free"><input type="radio" name="slot" value="\#(slotValue(at(12)))" required> <span class="slot-time">12:00–12:15</span> <span class="slot-note">2 places left</span>"#))
        #expect(page.bodyText.contains(#"<label class="slot slot-nearlyFull"><input type="radio" name="slot" value="\#(slotValue(at(12, 15)))" required>"#))
        #expect(page.bodyText.contains(#"<label class="slot slot-full"><input type="radio" name="slot" value="\#(slotValue(at(12, 30)))" required> <span class="slot-time">12:30–12:45</span> <span class="slot-note">full · waiting list</span>"#))
        let sunday = try browser.get("/stores/1/reserve/slots?minutes=30&people=1&day=\(SlotCalendar(hours: OpeningHours(intervals: Fixture.weekdayHours, timeZone: Fixture.rome), slotMinutes: 15).localDay(of: at(12, day: 22)))")
        #expect(sunday.bodyText.contains("The store is closed on this day."))
    }

    @Test("a slot 3 hours ahead is booked; 1 hour and 8 days ahead are refused with clear messages")
    func bookingWindow() throws {
        let (browser, userId) = try customer("ada@example.org")
        let tooSoon = try browser.get("/stores/1/reserve/recap?kind=booking&minutes=30&people=1&slot=\(slotValue(at(11)))")
        #expect(tooSoon.status == 422)
        #expect(tooSoon.bodyText.contains("Bookings must be at least 2 hours ahead. The earliest time you can book is today, 12:00–12:15."))
        let tooFar = try browser.post("/stores/1/reservations", [
            ("kind", "booking"), ("minutes", "30"), ("people", "1"), ("slot", slotValue(at(10, day: 26))),
            ("requestKey", Secrets.token())])
        #expect(tooFar.status == 422)
        #expect(tooFar.bodyText.contains("You can book up to 7 days ahead, until Wed 25 Nov at 10:00."))
        #expect(try database.reservations.activeReservation(userId: userId) == nil)

        let recap = try browser.get("/stores/1/reserve/recap?kind=booking&minutes=30&people=1&slot=\(slotValue(at(13)))")
        #expect(recap.status == 200)
        #expect(recap.bodyText.contains("<dt>Slot</dt><dd>today, 13:00–13:15</dd>"))
        #expect(recap.bodyText.contains("<dt>Enter between</dt><dd>12:50 and 13:15</dd>"))
        let booked = try browser.post("/stores/1/reservations", confirmFields(recap))
        #expect(booked.status == 303)
        let reservation = try require(try database.reservations.activeReservation(userId: userId)).reservation
        #expect(reservation.kind == .booking && reservation.slotStart == at(13) && reservation.status == .booked)
        let ticket = try browser.get(try require(booked.header("Location")))
        #expect(ticket.bodyText.contains("Your visit is booked"))
        #expect(ticket.bodyText.contains("Scan your code at the entrance between 12:50 and 13:15."))
        #expect(!ticket.bodyText.contains("http-equiv=\"refresh\""))
    }

    @Test("a day's tab lists the slots starting that day: past midnight they are the next day's")
    func slotsPastMidnight() throws {
        let late = try database.stores.createStore(
            Fixture.store("Notturno", at: GeoPoint(latitude: 45.466, longitude: 9.19), capacity: 30),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 18 * 60, closes: 26 * 60) }, departments: [])
        let (browser, _) = try customer("ada@example.org")
        let today = try browser.get("/stores/\(late.id)/reserve/slots?minutes=30&people=1")
        #expect(today.bodyText.contains("aria-current=\"page\">Today</a>"))
        #expect(today.bodyText.contains("<span class=\"slot-time\">18:00–18:15</span>"))
        #expect(today.bodyText.contains("<span class=\"slot-time\">23:45–00:00</span>"))
        #expect(!today.bodyText.contains("<span class=\"slot-time\">00:00–00:15</span>"))
        let thursday = SlotCalendar(hours: OpeningHours(intervals: [], timeZone: Fixture.rome), slotMinutes: 15)
            .localDay(of: at(12, day: 19))
        let tomorrow = try browser.get("/stores/\(late.id)/reserve/slots?minutes=30&people=1&day=\(thursday)")
        #expect(tomorrow.bodyText.contains("aria-current=\"page\">Tomorrow</a>"))
        #expect(tomorrow.bodyText.contains("<span class=\"slot-time\">00:00–00:15</span>"))
        let recap = try browser.get(
            "/stores/\(late.id)/reserve/recap?kind=booking&minutes=30&people=1&slot=\(slotValue(at(0, 30, day: 19)))")
        #expect(recap.bodyText.contains("<dt>Slot</dt><dd>tomorrow, 00:30–00:45</dd>"))
    }

    @Test("a visit that would end after closing is not offered, and is refused at the recap and at confirmation")
    func endsAfterClosing() throws {
        let (browser, userId) = try customer("ada@example.org")
        let picker = try browser.get("/stores/1/reserve/slots?minutes=30&people=1")
        #expect(picker.bodyText.contains("20:30–20:45"))  // over at 21:00, as the store closes
        #expect(!picker.bodyText.contains("20:45–21:00"))
        #expect(picker.bodyText.contains("Times too close to closing for a visit of about 30 min are not shown."))
        let recap = try browser.get("/stores/1/reserve/recap?kind=booking&minutes=30&people=1&slot=\(slotValue(at(20, 45)))")
        #expect(recap.status == 422)
        #expect(recap.bodyText.contains("closes at 21:00, before a visit of about 30 min starting at 20:45 would be over."))
        let confirmed = try browser.post("/stores/1/reservations", [
            ("kind", "booking"), ("minutes", "30"), ("people", "1"), ("slot", slotValue(at(20, 45))),
            ("requestKey", Secrets.token())])
        #expect(confirmed.status == 422)
        #expect(try database.reservations.activeReservation(userId: userId) == nil)
        // A short visit still fits the last slot.
        let short = try browser.get("/stores/1/reserve/recap?kind=booking&minutes=15&people=1&slot=\(slotValue(at(20, 45)))")
        #expect(short.status == 200)
    }

    @Test("a full slot is refused with the store's other free times and nearby stores free then")
    func fullSlot() throws {
        try created(try reserve(try customer("b@example.org").id, at: duomo, kind: .booking, people: 2, slot: at(14)))
        let (browser, userId) = try customer("ada@example.org")
        let refused = try browser.post("/stores/1/reservations", [
            ("kind", "booking"), ("minutes", "30"), ("people", "1"), ("slot", slotValue(at(14))),
            ("requestKey", Secrets.token())])
        #expect(refused.status == 409)
        #expect(refused.bodyText.contains("That slot is full"))
        #expect(refused.bodyText.contains("Every place for today, 14:00–14:15 at Bottega Duomo is booked."))
        for time in ["13:30–13:45", "13:45–14:00", "14:15–14:30", "14:30–14:45"] {
            #expect(refused.bodyText.contains("today, \(time)</strong> <span class=\"fine\">2 places left"))
        }
        #expect(refused.bodyText.contains("<strong>Mercato Brera</strong> <span class=\"fine\">700 m away · today, 14:00–14:15"))
        #expect(try database.reservations.activeReservation(userId: userId) == nil)
    }

    // MARK: One active reservation

    @Test("confirming while holding a reservation asks; replacing cancels the old one, keeping changes nothing")
    func oneActiveReservation() throws {
        let (browser, userId) = try customer("ada@example.org")
        let old = try created(try reserve(userId, at: brera))
        let recap = try browser.get("/stores/1/reserve/recap?kind=lineUp&minutes=30&people=1")
        #expect(recap.bodyText.contains("You already have a reservation at Mercato Brera."))
        let asked = try browser.post("/stores/1/reservations", confirmFields(recap))
        #expect(asked.status == 409)
        #expect(asked.bodyText.contains("Line-up at <strong>Mercato Brera</strong>"))
        #expect(asked.bodyText.contains("href=\"/reservations/\(try require(old.id))\">Keep the one I have"))
        #expect(try database.reservations.activeReservation(userId: userId)?.reservation.id == old.id)
        let replaced = try browser.post("/stores/1/reservations", confirmFields(asked))
        #expect(replaced.status == 303)
        let active = try require(try database.reservations.activeReservation(userId: userId)).reservation
        #expect(active.storeId == duomo.id)
        #expect(try database.reservations.reservation(id: try require(old.id))?.reservation.status == .cancelled)
    }

    @Test("the same confirmation sent twice makes one reservation and shows it both times")
    func sameFormTwice() throws {
        let (browser, userId) = try customer("ada@example.org")
        let recap = try browser.get("/stores/1/reserve/recap?kind=lineUp&minutes=30&people=1")
        let first = try browser.post("/stores/1/reservations", confirmFields(recap))
        let second = try browser.post("/stores/1/reservations", confirmFields(recap))
        #expect(first.status == 303 && second.status == 303)
        #expect(first.header("Location") == second.header("Location"))
        #expect(try database.reservations.forCustomer(userId: userId).count == 1)
    }

    @Test("a refused replacement keeps the old reservation (the cancellation is rolled back)")
    func refusedReplacementKeepsOld() throws {
        try created(try reserve(try customer("b@example.org").id, at: duomo, kind: .booking, people: 2, slot: at(14)))
        let (_, userId) = try customer("ada@example.org")
        let old = try created(try reserve(userId, at: brera))
        guard case .slotFull = try reserve(userId, at: duomo, kind: .booking, slot: at(14), replacing: true) else {
            Issue.record("a full slot was booked")
            return
        }
        #expect(try database.reservations.activeReservation(userId: userId)?.reservation.id == old.id)
    }

    @Test("a booking replaced by a larger party in the same slot counts its own places as freed")
    func replacedBookingFreesItsPlaces() throws {
        try created(try reserve(try customer("b@example.org").id, at: duomo, kind: .booking, slot: at(14)))
        let (_, userId) = try customer("ada@example.org")
        let old = try created(try reserve(userId, at: duomo, kind: .booking, slot: at(14)))
        // The slot holds 2: the other customer's place and this one's, given back for two.
        guard case .slotFull = try reserve(userId, at: duomo, kind: .booking, people: 2, slot: at(14), replacing: true) else {
            Issue.record("three people were booked in a slot of two")
            return
        }
        #expect(try database.reservations.activeReservation(userId: userId)?.reservation.id == old.id)
        let solo = try created(try reserve(userId, at: duomo, kind: .booking, slot: at(14), replacing: true))
        #expect(solo.id != old.id && solo.status == .booked && solo.slotStart == at(14))
        let slot = Slot(start: at(14), end: at(14) + Double(duomo.slotMinutes) * 60)
        #expect(try database.reservations.bookedPeople(storeId: try require(duomo.id), in: slot) == 2)
    }

    @Test("a booking whose entry window closes unused expires, told why; a later booking and the queue stay")
    func missedBooking() throws {
        let early = try created(try reserve(try customer("b@example.org").id, at: duomo, kind: .booking, slot: at(13)))
        let later = try created(try reserve(try customer("c@example.org").id, at: duomo, kind: .booking, slot: at(15)))
        let shopper = try customer("d@example.org").id
        // A line-up called just before the window closes stands ahead of the bookings in the queue.
        clock.advance(at(13).timeIntervalSince(clock.now) + Double(duomo.entryAfterMinutes) * 60 - 60)
        let queued = try created(try reserve(shopper, at: duomo))
        #expect(queued.status == .called)
        clock.advance(59)
        try database.doors.advanceQueues(now: clock.now)
        #expect(try database.reservations.reservation(id: early.id)?.reservation.status == .booked)
        clock.advance(2)
        try database.doors.advanceQueues(now: clock.now)
        #expect(try database.reservations.reservation(id: early.id)?.reservation.status == .expired)
        let notices = try database.notices.list(reservationId: early.id)
        #expect(notices.map(\.kind) == [.expired] && notices.first?.reason == .missedWindow)
        #expect(try database.reservations.reservation(id: later.id)?.reservation.status == .booked)
        #expect(try database.reservations.reservation(id: queued.id)?.reservation.status == queued.status)
    }

    // MARK: Tickets and my reservations

    @Test("cancelling: only the owner's active reservation; anyone else's id is a 404")
    func cancelling() throws {
        let (owner, ownerId) = try customer("ada@example.org")
        let (other, _) = try customer("eve@example.org")
        let reservation = try created(try reserve(ownerId, at: duomo))
        let path = "/reservations/\(try require(reservation.id))"
        for target in [path, path + "/qr.png", path + "/status"] { #expect(try other.get(target).status == 404) }
        #expect(try other.post(path + "/cancel").status == 404)
        #expect(try database.reservations.activeReservation(userId: ownerId) != nil)
        let cancelled = try owner.post(path + "/cancel")
        let id = try require(reservation.id)
        #expect(cancelled.status == 303 && cancelled.header("Location") == "/reservations?cancelled=\(id)")
        #expect(try database.reservations.activeReservation(userId: ownerId) == nil)
        #expect(try owner.post(path + "/cancel").status == 409)
        let ticket = try owner.get(path)
        #expect(ticket.bodyText.contains("Cancelled") && !ticket.bodyText.contains("<svg"))
        #expect(try owner.get(path + "/qr.png").status == 410)
    }

    @Test("my reservations: the active one live, the history with entry and exit times; the usual visit length")
    func myReservations() throws {
        let (browser, userId) = try customer("ada@example.org")
        // Given three past visits of 25, 35 and 40 minutes.
        for (index, minutes) in [25.0, 35, 40].enumerated() {
            let past = try created(try reserve(userId, at: duomo))
            let entered = clock.now - Double(3 - index) * 86_400
            try database.execute(sql: "UPDATE reservation SET status = 'done', enteredAt = ?, exitedAt = ? WHERE id = ?",
                                 entered, entered + minutes * 60, past.id)
        }
        // History written straight into the table is counted as an import is: rebuilt.
        try database.statistics.rebuildStatistics()
        try created(try reserve(userId, at: duomo, kind: .booking, slot: at(15)))
        let page = try browser.get("/reservations")
        #expect(page.bodyText.contains("Your visit is booked"))
        #expect(page.bodyText.contains("out at 10:35 (35 min)"))
        #expect(page.bodyText.components(separatedBy: "<tr><td>").count == 4)
        let start = try browser.get("/stores/1/reserve")
        #expect(start.bodyText.contains("value=\"usual\" checked> Your usual: about 35 min"))
        #expect(try database.storeLoad(1)?.measuredVisits == 3)
    }

    @Test("a customer's past visits here set their pace: kept with the reservation, and the estimate expects their visit at it")
    func customerPace() throws {
        let (_, userId) = try customer("ada@example.org")
        let storeId = try require(duomo.id)
        // Someone new: no pace, and the estimate takes their 30 minutes as declared.
        let first = try created(try reserve(userId, at: duomo))
        #expect(try database.value(Bool.self, sql: "SELECT pace IS NULL FROM reservation WHERE id = ?", first.id) == true)
        // Four visits declared 30 minutes that lasted 60, 60, 60 and 60.
        for index in 0..<4 {
            let past = index == 0 ? first : try created(try reserve(userId, at: duomo))
            let entered = clock.now - Double(4 - index) * 86_400
            try database.execute(sql: "UPDATE reservation SET status = 'done', enteredAt = ?, exitedAt = ? WHERE id = ?",
                                 entered, entered + 3600, past.id)
        }
        // (Their lengths come from stored times: to the millisecond.)
        let visits = try database.reservations.pastVisits(userId: userId, storeId: storeId)
        #expect(visits.count == 4 && visits.allSatisfy { $0.declared == 1800 && abs($0.actual - 3600) < 0.01 })
        // Declaring 20 minutes now (not their usual hour), the estimate expects about 28.
        let next = try created(try reserve(userId, at: duomo, minutes: 20))
        let pace = try database.value(Double.self, sql: "SELECT pace FROM reservation WHERE id = ?", next.id)
        #expect(pace.map { abs($0 - 2.0.squareRoot()) < 1e-5 } == true)
        try database.refreshBoard()
        let live = try require(database.board.entry(storeId)?.live.live.first { $0.id == next.id })
        #expect(abs(live.residence - 20 * 60 * 2.0.squareRoot()) < 0.01)
        // Another customer's visits are theirs alone.
        let (_, bob) = try customer("bob@example.org")
        #expect(try database.reservations.pastVisits(userId: bob, storeId: storeId).isEmpty)
    }

    // MARK: Invariants in the schema

    @Test("the schema refuses a second active reservation, an over-full slot and a repeated ticket number")
    func schemaInvariants() throws {
        let (_, ada) = try customer("ada@example.org")
        let (_, bob) = try customer("bob@example.org")
        let first = try created(try reserve(ada, at: duomo))
        /// Writes `row` straight into the table, past every named transaction.
        func insert(_ row: Reservation) throws {
            try database.execute(sql: """
                INSERT INTO reservation (id, storeId, userId, kind, walkIn, day, number, people, residenceMinutes, slotStart,
                                         status, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, row.id, row.storeId, row.userId, row.kind.rawValue, row.walkIn, row.day, row.number, row.people,
                row.residenceMinutes, row.slotStart, row.status.rawValue, row.createdAt)
        }
        var second = first
        second.id = 101  // a new row, to break the invariant with
        second.number = 2
        #expect(throws: (any Error).self) { try insert(second) }
        var full = first
        full.id = 102  // a new row, to break the invariant with
        full.userId = bob
        full.kind = .booking
        full.status = .booked
        full.slotStart = at(14)
        full.people = 2
        full.number = 3
        try insert(full)
        var over = full
        over.id = 103  // a new row, to break the invariant with
        over.userId = nil
        over.people = 1
        over.number = 4
        #expect { try insert(over) } throws: { "\($0)".contains("slot full") }
        var duplicate = first
        duplicate.id = 104  // a new row, to break the invariant with
        duplicate.userId = nil
        duplicate.status = .done
        #expect(throws: (any Error).self) { try insert(duplicate) }
    }

    @Test("ticket numbers count up per store and day and start again the next day")
    func numbering() throws {
        let numbers = try (1...3).map { index in
            try created(try reserve(try customer("n\(index)@example.org").id, at: index == 2 ? brera : duomo)).number
        }
        #expect(numbers == [1, 1, 2])
        let tomorrow = try created(try reserve(try customer("t@example.org").id, at: duomo, kind: .booking,
                                               slot: at(9, day: 19)))
        #expect(tomorrow.number == 1)
    }

    @Test("reservations are made in BEGIN IMMEDIATE transactions", .enabled(if: Fixture.onSQLite))
    func immediateTransactions() throws {
        let (_, ada) = try customer("ada@example.org")
        let statements = LockedList()
        try database.writer.write { db in db.trace { statements.append($0.expandedDescription) } }
        try created(try reserve(ada, at: duomo))
        let traced = Array(statements.values.dropFirst())  // the COMMIT of the write that set the trace
        #expect(traced.first == "BEGIN IMMEDIATE TRANSACTION")
        let commit = try #require(traced.firstIndex(of: "COMMIT TRANSACTION"))
        #expect(traced[..<commit].contains { $0.hasPrefix("INSERT INTO reservation") })
        // After the commit, only the store board reads back the rows it changed.
        #expect(traced[(commit + 1)...].allSatisfy { $0.hasPrefix("SELECT") })
    }

    @Test("deleting an account keeps its visits for the store's statistics, anonymous")
    func accountDeletion() throws {
        let (_, ada) = try customer("ada@example.org")
        let reservation = try created(try reserve(ada, at: duomo))
        try database.accounts.deleteUser(id: ada, now: clock.now)
        let kept = try require(try database.reservations.reservation(id: try require(reservation.id))).reservation
        #expect(kept.userId == nil)
    }
}

/// Statements seen by a trace, from whatever thread runs it.
final class LockedList: @unchecked Sendable {
    // @unchecked: `items` is guarded by `lock`.
    private let lock = NSLock()
    private var items: [String] = []

    func append(_ item: String) { lock.withLock { items.append(item) } }
    var values: [String] { lock.withLock { items } }
}

extension ReservationsTests {
    @Test("an active reservation is at the top of every page a shopper browses, its code one tap away")
    func activeReservationAtHand() throws {
        let (browser, id) = try customer("ada@example.org")
        let banner = "<aside class=\"active-ticket"
        #expect(!(try browser.get("/").bodyText.contains(banner)))  // nothing active yet
        // Five waiting at a store of four: Ada is fifth, waiting.
        for index in 1...4 {
            let other = try database.accounts.createUser(email: "q\(index)@example.org", displayName: "Q", passwordHash: "x",
                                                now: clock.now, confirmation: nil)
            try created(reserve(other.id, at: duomo))
        }
        let ticket = try created(reserve(id, at: duomo))
        for path in ["/", "/stores/\(try require(duomo.id))", "/stores/\(try require(brera.id))/stats"] {
            let page = try browser.get(path).bodyText
            #expect(page.contains("<aside class=\"active-ticket\" aria-label=\"Your reservation\">"), "\(path)")
            #expect(page.contains("<strong>Bottega Duomo · No. \(ticket.number)</strong> <span>You are in the queue"), "\(path)")
            #expect(page.contains("<a class=\"button\" href=\"/reservations/\(ticket.id)\">Show code</a>"), "\(path)")
        }
        // Not on the reservations' own pages, which show it already; not to anyone else.
        #expect(!(try browser.get("/reservations/\(ticket.id)").bodyText.contains(banner)))
        #expect(!(try browser.get("/reservations").bodyText.contains(banner)))
        #expect(!(try Browser(app).get("/").bodyText.contains(banner)))
        // Called: it asks to act now.
        try database.execute(sql: "UPDATE reservation SET status = 'cancelled' WHERE userId != ?", id)
        try database.doors.advanceQueues(now: clock.now)
        let called = try browser.get("/").bodyText
        #expect(called.contains("<aside class=\"active-ticket urgent\""))
        #expect(called.contains("It is your turn: please go to the entrance"))
        // Cancelled: gone.
        #expect(try database.reservations.cancelReservation(id: ticket.id, userId: id, now: clock.now))
        #expect(!(try browser.get("/").bodyText.contains(banner)))
    }
}
