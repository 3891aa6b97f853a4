import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Priority tickets: a manager turns the lane on; staff issue a ticket from the door console,
/// which the store then calls in the place its policy gives it, on either engine. Staff issue an
/// ordinary ticket there too, for someone who phones.
@Suite("Priority tickets")
struct PriorityTicketsTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let store: Store
    var storeId: StoreID { store.id }

    init() throws {
        (clock, database, app) = try Fixture.start()
        // One walk-in place (25 % of 4).
        store = try database.stores.createStore(
            NewStore(name: "Bottega Lenta", address: "Via Lenta 1", phone: "+39 02 1", position: Place.milan[0].position,
                     capacity: 4, timeZone: "Europe/Rome", settings: StoreSettings(capacity: 4, walkInPercent: 25)),
            hours: Fixture.weekdayHours, departments: [])
        try Fixture.manager("boss@example.org", of: store.id, in: database, now: clock.now)
    }

    func boss() throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: "boss@example.org")
        return browser
    }

    /// The edit form's fields as they stand, with `changes`.
    func fields(_ changes: [String: String]) throws -> [(String, String)] {
        Fixture.editForm(try require(try database.stores.store(id: storeId)), changes)
    }

    /// A walk-in ticket from the public dispenser.
    func walkIn() throws -> Reservation {
        guard case .issued(let ticket) = try database.doors.issueWalkInTicket(
            storeId: storeId, people: 1, residenceMinutes: 30, requestKey: nil, now: clock.now)
        else { throw RequireError(message: "no walk-in ticket") }
        return ticket
    }

    func reload(_ id: ReservationID) throws -> Reservation {
        try require(try database.reservations.reservation(id: id)).reservation
    }

    /// Every ticket of the store, as the door sees them.
    func tickets() throws -> [LiveReservation] {
        try database.reservations.liveTraffic(storeId: storeId, now: clock.now).live
    }

    func issuePriority(_ browser: Browser, people: String = "1", minutes: String = "30") throws -> Response {
        try browser.get("/manage/stores/\(storeId)/door")
        return try browser.post("/manage/stores/\(storeId)/door/priority",
                                [("people", people), ("minutes", minutes), ("requestKey", Secrets.token())])
    }

    @Test("a manager turns the lane on, and the change log says it in words")
    func policySet() throws {
        let browser = try boss()
        let form = try browser.get("/manage/stores/\(storeId)/edit").bodyText
        #expect(form.contains("<option value=\"3\">One priority call in every 3</option>"))
        let wrong = try browser.post("/manage/stores/\(storeId)/edit", try fields(["priorityEvery": "11"]))
        #expect(wrong.status == 422 && wrong.bodyText.contains("Choose a priority lane from the list."))
        let saved = try browser.post("/manage/stores/\(storeId)/edit", try fields(["priorityEvery": "3", "priorityOnline": "1"]))
        #expect(saved.status == 303)
        let settings = try require(try database.stores.store(id: storeId)).settings
        #expect(settings.priority == PriorityLane(every: 3, online: true))
        let page = try browser.get("/manage/stores/\(storeId)").bodyText
        #expect(page.contains("Priority lane: No priority lane → One priority call in every 3"))
        #expect(page.contains("Priority asked for online: No, staff only → Yes"))
    }

    @Test("without a lane, the console offers none and refuses one asked for")
    func noLane() throws {
        let browser = try boss()
        #expect(!(try browser.get("/manage/stores/\(storeId)/door").bodyText.contains("Issue a priority ticket")))
        let refused = try issuePriority(browser)
        #expect(refused.status == 409 && refused.bodyText.contains("This store has no priority lane"))
        #expect(try tickets().isEmpty)
    }

    @Test("issued at the door, called at the next free place, with the policy on the ticket and the issuer in the log")
    func calledFirst() throws {
        var edit = StoreEdit(store)
        edit.priorityEvery = 1
        _ = try database.stores.editStore(storeId, to: edit, userId: nil, now: clock.now)
        let first = try walkIn()  // called at once: the walk-in place is free
        let second = try walkIn()
        let third = try walkIn()
        #expect(try reload(first.id).status == .called)

        let browser = try boss()
        #expect(try issuePriority(browser, people: "3").status == 422)
        let issued = try issuePriority(browser)
        #expect(issued.status == 303)
        let location = try require(issued.header("Location"))
        let priorityId = try require(location.split(separator: "=").last.flatMap { Int64($0) }.map(ReservationID.init(rawValue:)))
        let ticket = try reload(priorityId)
        #expect(ticket.priority && ticket.walkIn && ticket.queuePosition == second.id && ticket.number == 4)
        let shown = try browser.get(location).bodyText
        #expect(shown.contains("Priority ticket 4 issued"))
        #expect(shown.contains("<dt>Priority</dt><dd>Priority tickets called at the next free place</dd>"))
        #expect(shown.contains("<td>priority ticket issued</td><td>4</td><td>Boss</td>"))
        // The console lists it first among those waiting.
        #expect(shown.range(of: "<li><strong>4</strong> · 1 person · priority · walk-in</li>")!.lowerBound
            < shown.range(of: "<li><strong>2</strong>")!.lowerBound)

        // People ahead and the estimate follow the order the store calls in.
        let standing = try require(database.board.standing(of: storeId, now: clock.now))
        #expect(standing.standing(of: priorityId)?.partiesAhead == 0)
        #expect(standing.standing(of: second.id)?.partiesAhead == 1)
        #expect(standing.standing(of: third.id)?.partiesAhead == 2)
        #expect(try database.doors.entranceBoard(storeId: storeId, now: clock.now).waiting.map(\.number) == [4, 2, 3])

        // The first leaves: the priority ticket is called, not ticket 2.
        #expect(try database.doors.scan(reservationId: first.id, at: storeId, now: clock.now).verdict == .enter)
        clock.advance(20 * 60)
        #expect(try database.doors.scan(reservationId: first.id, at: storeId, now: clock.now).verdict == .exit)
        #expect(try reload(priorityId).status == .called)
        #expect(try reload(second.id).status == .waiting)

        // The statistics say how the lane was used: not yet, then once.
        #expect(try browser.get("/manage/stores/\(storeId)/stats").bodyText
            .contains("<dt>Priority tickets</dt><dd>None let in during these days</dd>"))
        clock.advance(60)
        #expect(try database.doors.scan(reservationId: priorityId, at: storeId, now: clock.now).verdict == .enter)
        let used = "<dt>Priority tickets</dt><dd>1 let in, waiting about 21 min on average (others under 1 min)</dd>"
        #expect(try browser.get("/manage/stores/\(storeId)/stats").bodyText.contains(used))
        // Rebuilt from the raw visits, the same.
        #expect(try database.statistics.rebuildStatistics() > 0)
        #expect(try browser.get("/manage/stores/\(storeId)/stats").bodyText.contains(used))
    }

    @Test("for someone who phones: an ordinary ticket from the console, read out with its follow code, let in by number")
    func phoneIn() throws {
        let first = try walkIn()  // called at once: the one walk-in place is free
        let browser = try boss()
        let console = try browser.get("/manage/stores/\(storeId)/door").bodyText
        #expect(console.contains("Ticket for a phone call") && !console.contains("Issue a priority ticket"))
        try browser.get("/manage/stores/\(storeId)/door")
        let issued = try browser.post("/manage/stores/\(storeId)/door/phone",
                                      [("people", "1"), ("minutes", "45"), ("requestKey", Secrets.token())])
        #expect(issued.status == 303)
        let location = try require(issued.header("Location"))
        let id = try require(location.split(separator: "=").last.flatMap { Int64($0) }.map(ReservationID.init(rawValue:)))
        let ticket = try reload(id)
        #expect(ticket.walkIn && !ticket.priority && ticket.people == 1 && ticket.residenceMinutes == 45)
        #expect(ticket.status == .waiting && ticket.number == 2 && ticket.userId == nil)
        // The console shows it with what to read out: the number, and the code to follow it.
        let shown = try browser.get(location).bodyText
        let code = try require(shown.firstMatch(of: /with the code ([0-9A-Z]+-[0-9A-Z]{8})/)).1
        #expect(shown.contains("Ticket 2 issued for a phone call"))
        #expect(shown.contains("Read out: ticket 2. Follow it from any phone or computer at clup.example.org/t"))
        #expect(shown.contains("<td>ticket for a phone call</td><td>2</td><td>Boss</td>"))
        // Whoever phoned follows it from their phone: one party ahead.
        let follow = try Browser(app).get("/t?code=\(code)")
        #expect(follow.status == 200 && follow.bodyText.contains("Ticket 2"))
        // When the first leaves, it is called; they give the number at the door and are let in.
        #expect(try database.doors.scan(reservationId: first.id, at: storeId, now: clock.now).verdict == .enter)
        clock.advance(20 * 60)
        #expect(try database.doors.scan(reservationId: first.id, at: storeId, now: clock.now).verdict == .exit)
        #expect(try reload(id).status == .called)
        try browser.get("/manage/stores/\(storeId)/door")
        let admitted = try browser.post("/manage/stores/\(storeId)/door",
                                        [("action", "admit"), ("number", "2"), ("reason", "phoned in")])
        #expect(admitted.status == 200 && admitted.bodyText.contains("Ticket 2 is in (1 person)."))
        // Bad choices are refused where the form is; a store keeping no places for walk-ins
        // offers none.
        try browser.get("/manage/stores/\(storeId)/door")
        let wrong = try browser.post("/manage/stores/\(storeId)/door/phone", [("people", "9"), ("minutes", "30")])
        #expect(wrong.status == 422 && wrong.bodyText.contains("id=\"phone\""))
        var edit = StoreEdit(store)
        edit.walkInPercent = 0
        _ = try database.stores.editStore(storeId, to: edit, userId: nil, now: clock.now)
        #expect(!(try browser.get("/manage/stores/\(storeId)/door").bodyText.contains("Ticket for a phone call")))
    }

    /// A customer signed in, with the store's online places (three) taken by `waiting` + 3 line-ups.
    func customer(_ email: String) throws -> (Browser, UserID) {
        let user = try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: Fixture.passwordHash,
                                           now: clock.now, confirmation: nil)
        let browser = Browser(app)
        try browser.signIn(email: email)
        return (browser, user.id)
    }

    func lineUps(_ count: Int) throws -> [Reservation] {
        try (1...count).map { index in
            let user = try database.accounts.createUser(email: "q\(index)@example.org", displayName: "Q\(index)",
                                               passwordHash: Fixture.passwordHash, now: clock.now, confirmation: nil)
            guard case .created(let ticket) = try database.reservations.reserve(ReservationRequest(
                storeId: storeId, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30,
                requestKey: Secrets.token()), now: clock.now)
            else { throw RequireError(message: "not created") }
            return ticket
        }
    }

    @Test("online, where the store allows it: asked for on the way, said on the recap and the ticket, placed first")
    func askedOnline() throws {
        var edit = StoreEdit(store)
        (edit.priorityEvery, edit.priorityOnline) = (1, true)
        _ = try database.stores.editStore(storeId, to: edit, userId: nil, now: clock.now)
        let queue = try lineUps(5)  // three called into the online places, two waiting
        #expect(try reload(queue[3].id).status == .waiting)
        let (browser, userId) = try customer("ada@example.org")
        let how = try browser.get("/stores/\(storeId)/reserve/how?minutes=30&people=1").bodyText
        #expect(how.contains("<input type=\"checkbox\" name=\"priority\" value=\"1\"> I cannot wait long standing"))
        let recap = try browser.get("/stores/\(storeId)/reserve/recap?kind=lineUp&minutes=30&people=1&mode=walking&priority=1")
        #expect(recap.bodyText.contains("<dt>Priority</dt><dd>Priority tickets called at the next free place</dd>"))
        #expect(recap.bodyText.contains("name=\"priority\" value=\"1\""))
        let made = try browser.post("/stores/\(storeId)/reservations", [
            ("kind", "lineUp"), ("minutes", "30"), ("people", "1"), ("mode", "walking"), ("priority", "1"),
            ("requestKey", Secrets.token())])
        #expect(made.status == 303)
        let ticket = try require(try database.reservations.activeReservation(userId: userId)).reservation
        #expect(ticket.priority && !ticket.walkIn && ticket.queuePosition == queue[3].id)
        let page = try browser.get("/reservations/\(ticket.id)").bodyText
        #expect(page.contains("<dt>Priority</dt>"))
        let standing = try require(database.board.standing(of: storeId, now: clock.now))
        #expect(standing.standing(of: ticket.id)?.partiesAhead == 0)
        #expect(standing.standing(of: queue[4].id)?.partiesAhead == 2)
    }

    @Test("a store with a lane that keeps it to staff: not offered online, and a form that asks gets an ordinary place")
    func notOnline() throws {
        var edit = StoreEdit(store)
        edit.priorityEvery = 1
        _ = try database.stores.editStore(storeId, to: edit, userId: nil, now: clock.now)
        _ = try lineUps(4)
        let (browser, userId) = try customer("ada@example.org")
        #expect(!(try browser.get("/stores/\(storeId)/reserve/how?minutes=30&people=1").bodyText.contains("name=\"priority\"")))
        let recap = try browser.get("/stores/\(storeId)/reserve/recap?kind=lineUp&minutes=30&people=1&mode=walking&priority=1")
        #expect(!recap.bodyText.contains("<dt>Priority</dt>"))
        #expect(try browser.post("/stores/\(storeId)/reservations", [
            ("kind", "lineUp"), ("minutes", "30"), ("people", "1"), ("priority", "1"), ("requestKey", Secrets.token())])
            .status == 303)
        let ticket = try require(try database.reservations.activeReservation(userId: userId)).reservation
        #expect(!ticket.priority && ticket.queuePosition == nil)
    }

    @Test("the public dispenser never issues a priority ticket, whatever its form says")
    func notAtTheDispenser() throws {
        var edit = StoreEdit(store)
        edit.priorityEvery = 1
        _ = try database.stores.editStore(storeId, to: edit, userId: nil, now: clock.now)
        let key = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: storeId, label: "Tickets", key: key, role: .dispenser, now: clock.now)
        let screen = Browser(app, address: "192.0.2.50")
        try screen.get("/kiosk")
        #expect(try screen.post("/kiosk/enrol", [("key", key)]).status == 303)
        try screen.get("/kiosk/dispenser")
        let printed = try screen.post("/kiosk/tickets", [("people", "1"), ("minutes", "30"), ("priority", "1"),
                                                          ("requestKey", Secrets.token())])
        #expect(printed.status == 303)
        let issued = try tickets()
        #expect(issued.count == 1 && issued.allSatisfy { !$0.priority })
    }
}
