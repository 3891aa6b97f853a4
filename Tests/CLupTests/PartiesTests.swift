import Foundation
import Synchronization
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Parties as stores allow them: a store sets its largest party (2 unless it says otherwise,
/// up to 8); online and at the dispenser a family that size lines up together, a larger one
/// is told the store's limit, and places, slots and the door count people, not tickets.
@Suite("Parties as stores allow them")
struct PartiesTests {
    let clock = TestClock()
    let database: AppDatabase
    let app: App
    /// Capacity 20, 8 places for walk-ins, parties of up to 4.
    let family: Store
    /// The usual rules: parties of 1 or 2.
    let usual: Store
    let key = Secrets.token(bytes: 32)

    init() throws {
        database = try Fixture.database()
        family = try database.stores.createStore(
            NewStore(name: "Bottega Famiglia", address: "Via Roma 1", phone: "", position: Place.milan[0].position,
                     capacity: 20, timeZone: "Europe/Rome",
                     settings: StoreSettings(capacity: 20, walkInPercent: 40, largestParty: 4)),
            hours: Fixture.weekdayHours, departments: [])
        usual = try database.stores.createStore(Fixture.store("Bottega Solita", at: Place.milan[1].position, capacity: 20),
                                                hours: Fixture.weekdayHours, departments: [])
        _ = try database.accounts.enrolKiosk(storeId: family.id, label: "Dispenser", key: key, role: .dispenser, now: clock.now)
        let clock = self.clock
        app = try Fixture.app(clock: { clock.now }, database: database)
    }

    func customer(_ email: String) throws -> (browser: Browser, id: UserID) {
        let user = try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: Fixture.passwordHash,
                                                    now: clock.now, confirmation: nil)
        let browser = Browser(app, address: "192.0.2.\(abs(email.hashValue) % 200 + 1)")
        try browser.signIn(email: email)
        try browser.get("/")
        return (browser, try require(user.id))
    }

    func confirmFields(_ page: Response) -> [(String, String)] {
        page.bodyText.matches(of: /<input type="hidden" name="([a-zA-Z]+)" value="([^"]*)">/)
            .map { (String($0.1), String($0.2)) }.filter { $0.0 != "csrf" }
    }

    @Test("a family of 4 lines up online where the store allows 4; where it allows 2 they are told, and nothing is made")
    func online() throws {
        let (browser, userId) = try customer("famiglia@example.org")
        let start = try browser.get("/stores/\(family.id)/reserve").bodyText
        #expect(start.contains("value=\"4\"") && start.contains("4 people") && !start.contains("value=\"5\""))
        #expect(!(try browser.get("/stores/\(usual.id)/reserve").bodyText.contains("value=\"3\"")))
        let how = try browser.get("/stores/\(family.id)/reserve/how?time=30&people=4")
        #expect(how.status == 200 && how.bodyText.contains("About 30 min · 4 people"))
        let recap = try browser.get("/stores/\(family.id)/reserve/recap?kind=lineUp&minutes=30&people=4&mode=walking")
        #expect(recap.status == 200)
        #expect(try browser.post("/stores/\(family.id)/reservations", confirmFields(recap)).status == 303)
        let ticket = try require(try database.reservations.activeReservation(userId: userId)).reservation
        #expect(ticket.people == 4 && ticket.status == .called)
        // Four places taken of the twelve online ones: the store's page counts people.
        #expect(database.board.standing(of: family.id, now: clock.now)?.status.peopleInside == 0)
        #expect(try database.doors.scan(reservationId: ticket.id, at: family.id, now: clock.now).peopleInside == 4)

        // The usual store: four are refused at the first step with the reason, and a crafted
        // address is refused too.
        let (other, otherId) = try customer("altri@example.org")
        let refused = try other.get("/stores/\(usual.id)/reserve/how?time=30&people=4")
        #expect(refused.status == 422 && refused.bodyText.contains("Say whether you are coming alone or with someone."))
        let crafted = try other.get("/stores/\(usual.id)/reserve/recap?kind=lineUp&minutes=30&people=4&mode=walking")
        #expect(crafted.status == 400 && crafted.bodyText.contains("is for 1 to 2 people"))
        let five = try other.get("/stores/\(family.id)/reserve/how?time=30&people=5")
        #expect(five.status == 422 && five.bodyText.contains("Say how many you are: 1 to 4 people."))
        #expect(try database.reservations.activeReservation(userId: otherId) == nil)
    }

    @Test("the dispenser offers 1 to 4 and prints a family's ticket; 5 are told the store's limit, by page and by API")
    func dispenser() throws {
        let kiosk = Browser(app, address: "192.0.2.70")
        try kiosk.get("/kiosk")
        #expect(try kiosk.post("/kiosk/enrol", [("key", key)]).status == 303)
        let form = try kiosk.get("/kiosk/dispenser").bodyText
        #expect(form.contains("<input type=\"radio\" name=\"people\" value=\"4\"><span>4 people</span>"))
        #expect(!form.contains("tiles two") && !form.contains("value=\"5\""))
        let requestKey = String(try require(form.firstMatch(of: /name="requestKey" value="([^"]+)"/)).1)
        let printed = try kiosk.post("/kiosk/tickets", [("minutes", "30"), ("people", "4"), ("requestKey", requestKey)])
        #expect(printed.status == 303)
        let id = try KioskTests.ticketId(in: try require(printed.header("Location")))
        #expect(try database.doors.walkInTicket(id: id, storeId: family.id)?.people == 4)
        let five = try kiosk.post("/kiosk/tickets", [("minutes", "30"), ("people", "5"), ("requestKey", Secrets.token())])
        #expect(five.status == 409 && five.bodyText.contains("This store takes parties of up to 4 people on one ticket."))

        func api(_ people: Int) -> Response {
            var request = Request(method: .post, path: "/api/v1/tickets",
                                  body: Array(#"{"people": \#(people), "residenceMinutes": 30}"#.utf8))
            request.headers["authorization"] = "Bearer \(key)"
            request.headers["content-type"] = "application/json"
            return app.respond(to: request)
        }
        #expect(api(3).status == 201)
        #expect(api(5).status == 409 && api(5).bodyText.contains("\"code\":\"partyOverLimit\""))
        #expect(api(9).status == 400 && api(9).bodyText.contains("\"code\":\"invalidPeople\""))
        // Spare tickets for printing offline carry a code for each party size the store takes.
        let block = try require(try EntranceDesk(database: database, tickets: Fixture.tickets,
                                                 codes: TicketCodes(database: database, tickets: Fixture.tickets))
            .spareTickets(kiosk: try require(try database.accounts.kiosk(key: key)), now: clock.now))
        #expect(block.tickets.allSatisfy { Set($0.codes.keys) == ["1", "2", "3", "4"] })
    }

    @Test("a manager sets the largest party on the store's form, 1 to 8, and the change is logged")
    func managerSetsIt() throws {
        try Fixture.manager("boss@example.org", of: usual.id, in: database, now: clock.now)
        let boss = Browser(app)
        try boss.signIn(email: "boss@example.org")
        let form = try boss.get("/manage/stores/\(usual.id)/edit")
        #expect(form.bodyText.contains("name=\"largestParty\"") && form.bodyText.contains("value=\"2\""))
        func send(_ largest: String) throws -> Response {
            try boss.post("/manage/stores/\(usual.id)/edit", Fixture.editForm(usual, ["largestParty": largest]))
        }
        #expect(try send("9").status == 422)
        #expect(try send("6").status == 303)
        #expect(database.board.entry(usual.id)?.store.largestParty == 6)
        #expect(try database.stores.storeChanges(storeId: usual.id, limit: 5).contains {
            $0.field == "largestParty" && $0.before == "2" && $0.after == "6"
        })
    }

    @Test("200 customers of mixed parties book one slot and go in at once: the slot's and the store's places hold exactly")
    func mixedRace() throws {
        // A slot of 50 places at a store of 30 inside: parties of 1 to 4 race for both.
        var new = NewStore(name: "Bottega Gara", address: "Via Gara 1", phone: "", position: Place.milan[2].position,
                           capacity: 30, timeZone: "Europe/Rome",
                           settings: StoreSettings(capacity: 30, walkInPercent: 0, slotCapacity: 50, largestParty: 4))
        new.slotCapacity = 50
        let store = try database.stores.createStore(new, hours: Fixture.weekdayHours, departments: [])
        let slot = Fixture.date(2026, 11, 18, 13)  // slots start 2 hours ahead at the earliest
        let customers = try database.accounts.createCustomers(emails: (1...200).map { "r\($0)@example.org" }, now: clock.now)
        let sizes = customers.indices.map { $0 % 4 + 1 }
        let booked = Mutex<[(ReservationID, Int)]>([])
        let now = clock.now
        DispatchQueue.concurrentPerform(iterations: customers.count) { index in
            let request = ReservationRequest(storeId: store.id, userId: customers[index], kind: .booking, people: sizes[index],
                                             residenceMinutes: 30, travelMode: nil, slotStart: slot, requestKey: Secrets.token())
            if case .created(let booking)? = try? database.reservations.reserve(request, now: now) {
                booked.withLock { $0.append((booking.id, booking.people)) }
            }
        }
        let bookings = booked.withLock { $0 }
        let bookedPeople = bookings.map(\.1).reduce(0, +)
        #expect(bookedPeople <= 50 && bookedPeople >= 47, "\(bookedPeople) people booked")
        #expect(try database.reservations.bookedPeople(storeId: store.id, in: [Slot(start: slot, end: slot + 900)]) == [slot: bookedPeople])
        // They all arrive at once, within the entry window: the door lets in 30 people at most.
        let atDoor = slot - 5 * 60
        let admitted = Mutex<Int>(0)
        DispatchQueue.concurrentPerform(iterations: bookings.count) { index in
            if let scan = try? database.doors.scan(reservationId: bookings[index].0, at: store.id, now: atDoor),
               scan.verdict == .enter
            {
                admitted.withLock { $0 += bookings[index].1 }
            }
        }
        let inside = try database.doors.scan(reservationId: nil, at: store.id, now: atDoor).peopleInside
        #expect(inside == admitted.withLock { $0 } && inside <= 30 && inside >= 27, "\(inside) people inside")
        // The rows say the same, party by party.
        let parties = try database.reading { transaction in
            try transaction.column("SELECT people FROM reservation WHERE storeId = \(store.id) AND status = 'inside'", as: Int.self)
        }
        #expect(parties.compactMap { $0 }.reduce(0, +) == inside && Set(parties.compactMap { $0 }).count > 1)
    }
}
