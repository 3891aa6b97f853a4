import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// A manager edits a store: every field checked with its reason, every change recorded with
/// who made it, the pages and the queue following at once, and what the new rules mean for
/// reservations already made said plainly.
@Suite("Editing a store")
struct StoreEditingTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let store: Store
    var storeId: StoreID { store.id }

    init() throws {
        (clock, database, app) = try Fixture.start()
        store = try database.stores.createStore(
            NewStore(name: "Bottega Uno", address: "Via Uno 1, Milano", phone: "+39 02 1", position: Place.milan[0].position,
                     capacity: 4, timeZone: "Europe/Rome", settings: StoreSettings(capacity: 4, walkInPercent: 0, slotCapacity: 2)),
            hours: Fixture.weekdayHours, departments: [])
        try Fixture.manager("boss@example.org", of: store.id, in: database, now: clock.now)
    }

    func fields(_ changes: [String: String] = [:]) -> [(String, String)] {
        Fixture.editForm(store, changes)
    }

    func boss() throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: "boss@example.org")
        try browser.get("/manage/stores/\(storeId)/edit")
        return browser
    }

    /// Four customers: three let in, one waiting behind a store made full.
    func crowd() throws -> [Reservation] {
        try (1...4).map { index in
            let user = try database.accounts.createUser(email: "c\(index)@example.org", displayName: "C\(index)",
                                               passwordHash: Fixture.passwordHash, now: clock.now,
                                               confirmation: nil)
            guard case .created(let ticket) = try database.reservations.reserve(ReservationRequest(
                storeId: storeId, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
                requestKey: Secrets.token()), now: clock.now)
            else { throw RequireError(message: "not created") }
            if index <= 3 { #expect(try database.doors.scan(reservationId: ticket.id, at: storeId, now: clock.now).verdict == .enter) }
            return ticket
        }
    }

    @Test("a lower capacity is saved and recorded; those inside stay, and the page says so")
    func lowerCapacity() throws {
        _ = try crowd()
        let browser = try boss()
        let form = try browser.get("/manage/stores/\(storeId)/edit")
        #expect(form.bodyText.contains("<input id=\"capacity\" name=\"capacity\" value=\"4\" inputmode=\"numeric\" required>"))
        #expect(form.bodyText.contains("<input id=\"phone\" name=\"phone\" value=\"+39 02 1\">"))
        let saved = try browser.post("/manage/stores/\(storeId)/edit", fields(["capacity": "2", "name": "Bottega Una"]))
        #expect(saved.status == 303)
        let page = try browser.get(try require(saved.header("Location")))
        #expect(page.bodyText.contains("2 changes saved. The store has 1 person more inside than its new capacity: they "
            + "stay, and nobody new is let in until enough have left."))
        #expect(page.bodyText.contains("· Boss</span> Capacity: 4 → 2</li>"))
        #expect(page.bodyText.contains("· Boss</span> Name: Bottega Uno → Bottega Una</li>"))
        // The shoppers' pages follow at once.
        #expect(try Browser(app).get("/stores/\(storeId)").bodyText.contains("Bottega Una"))
        #expect(try database.board.entry(storeId)?.store.capacity == 2)
    }

    @Test("a higher capacity calls the next customers at once; fewer places per slot leave bookings standing")
    func higherCapacityAndSlots() throws {
        let tickets = try crowd()
        // Three inside and one called: the fourth place is taken. A fifth waits.
        let user = try database.accounts.createUser(email: "c5@example.org", displayName: "C5", passwordHash: Fixture.passwordHash,
                                           now: clock.now, confirmation: nil)
        guard case .created(let fifth) = try database.reservations.reserve(ReservationRequest(
            storeId: storeId, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
            requestKey: Secrets.token()), now: clock.now)
        else { throw RequireError(message: "not created") }
        #expect(try database.reservations.reservation(id: tickets[3].id)?.reservation.status == .called)
        #expect(try database.reservations.reservation(id: fifth.id)?.reservation.status == .waiting)
        // Two bookings in the 13:00 slot, then the slot limit lowered to 1.
        for index in 6...7 {
            let booker = try database.accounts.createUser(email: "b\(index)@example.org", displayName: "B", passwordHash: "x",
                                                 now: clock.now, confirmation: nil)
            _ = try database.reservations.reserve(ReservationRequest(
                storeId: storeId, userId: booker.id, kind: .booking, people: 1, residenceMinutes: 30,
                slotStart: Fixture.date(2026, 11, 18, 13), requestKey: Secrets.token()), now: clock.now)
        }
        let browser = try boss()
        let saved = try browser.post("/manage/stores/\(storeId)/edit", fields(["capacity": "5", "slotCapacity": "1"]))
        #expect(try database.reservations.reservation(id: fifth.id)?.reservation.status == .called)
        let page = try browser.get(try require(saved.header("Location"))).bodyText
        #expect(page.contains("1 coming slot holds more bookings than the new limit: those bookings stand; new ones are "
            + "refused until there is room."))
    }

    func book(_ email: String, at start: Date, people: Int = 1) throws -> ReservationOutcome {
        let booker = try database.accounts.createUser(email: email, displayName: "B", passwordHash: "x", now: clock.now,
                                             confirmation: nil)
        return try database.reservations.reserve(ReservationRequest(
            storeId: storeId, userId: booker.id, kind: .booking, people: people, residenceMinutes: 20, slotStart: start,
            requestKey: Secrets.token()), now: clock.now)
    }

    @Test("a new slot length: bookings made keep their time and take their places in the new slot that holds them")
    func slotLength() throws {
        // Two places per slot, 15-minute slots: Thursday 10:15 booked full.
        let quarter = Fixture.date(2026, 11, 19, 10, 15)
        for index in 1...2 { guard case .created = try book("b\(index)@example.org", at: quarter) else { throw RequireError(message: "not booked") } }
        let browser = try boss()
        let form = try browser.get("/manage/stores/\(storeId)/edit").bodyText
        #expect(form.contains("<option value=\"15\" selected>15 min</option>"))
        let saved = try browser.post("/manage/stores/\(storeId)/edit", fields(["slotMinutes": "30"]))
        let page = try browser.get(try require(saved.header("Location"))).bodyText
        #expect(page.contains("1 change saved."))
        #expect(page.contains("Slot length (min): 15 → 30"))
        // The bookings stand at 10:15; the new 10:00–10:30 slot holds them, so it is full.
        let calendar = try require(database.board.entry(storeId)?.calendar)
        let slot = try require(calendar.slot(containing: quarter, now: clock.now))
        #expect(slot.start == Fixture.date(2026, 11, 19, 10) && slot.end == Fixture.date(2026, 11, 19, 10, 30))
        #expect(try database.reservations.bookedPeople(storeId: storeId, in: slot) == 2)
        guard case .slotFull = try book("b3@example.org", at: slot.start) else {
            Issue.record("a full slot took a booking")
            return
        }
        #expect(try database.reservations.bookings(storeId: storeId, from: clock.now, to: clock.now + 7 * 86400).count == 2)
        // The schema holds the same line, whatever writes.
        #expect {
            try database.execute(sql: """
                INSERT INTO reservation (storeId, kind, walkIn, day, number, people, residenceMinutes, slotStart, status,
                                         createdAt)
                VALUES (?, 'booking', ?, ?, 99, 1, 20, ?, 'booked', ?)
                """, storeId, false, calendar.localDay(of: slot.start), slot.start, clock.now)
        } throws: { "\($0)".contains("slot full") }
        // The next slot is free, and its page shows it.
        guard case .created = try book("b4@example.org", at: slot.end) else {
            Issue.record("the next slot refused a booking")
            return
        }
    }

    @Test("departments: minutes changed in place, one taken off retired with its influx kept, a new one added")
    func departments() throws {
        let browser = try boss()
        var changed = fields()
        changed.append(("departments", "Bakery, 10\nButcher, 15"))
        #expect(try browser.post("/manage/stores/\(storeId)/edit", changed).status == 303)
        let before = try require(database.board.entry(storeId)?.definition.departments)
        #expect(before.map(\.name) == ["Bakery", "Butcher"])
        let butcher = try require(before.last?.id)
        let user = try database.accounts.createUser(email: "d@example.org", displayName: "D", passwordHash: "x", now: clock.now,
                                           confirmation: nil)
        guard case .created(let ticket) = try database.reservations.reserve(ReservationRequest(
            storeId: storeId, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 15, travelMode: .walking,
            requestKey: Secrets.token(), departmentIds: [butcher]), now: clock.now)
        else { throw RequireError(message: "not created") }

        var next = fields()
        next.append(("departments", "bakery, 12\nFish, 20"))
        let saved = try browser.post("/manage/stores/\(storeId)/edit", next)
        let page = try browser.get(try require(saved.header("Location"))).bodyText
        #expect(page.contains("Departments: Bakery 10 min, Butcher 15 min → bakery 12 min, Fish 20 min"))
        let after = try require(database.board.entry(storeId)?.definition.departments)
        #expect(after.map { "\($0.name) \($0.estimatedMinutes)" } == ["bakery 12", "Fish 20"])
        #expect(after.first?.id == before.first?.id)  // the same department, its counts kept
        // The store's page and the wizard no longer offer the butcher; the ticket keeps its choice.
        let storePage = try Browser(app).get("/stores/\(storeId)").bodyText
        #expect(!storePage.contains("Butcher") && storePage.contains("Fish"))
        let wizard = try browser.get("/stores/\(storeId)/reserve").bodyText
        #expect(!wizard.contains("Butcher") && wizard.contains("Fish"))
        let chosen = try database.values(Int64.self, sql: "SELECT departmentId FROM reservationDepartment WHERE reservationId = ?",
                                         ticket.id)
        #expect(chosen == [butcher])

        var tooMany = fields()
        tooMany.append(("departments", (1...500).map { "Aisle \($0), 5" }.joined(separator: "\n")))
        let refused = try browser.post("/manage/stores/\(storeId)/edit", tooMany)
        #expect(refused.status == 422 && refused.bodyText.contains("List at most 50 departments."))
        #expect(try database.board.entry(storeId)?.definition.departments.count == 2)
    }

    @Test("a department whose name holds a comma is written back by the form and saved unchanged")
    func departmentWithComma() throws {
        _ = try database.stores.replaceDepartments(storeId: storeId, with: [("Fruit, vegetables", 10), ("Bakery", 5)], userId: nil,
                                            now: clock.now)
        let browser = try boss()
        let form = try browser.get("/manage/stores/\(storeId)/edit").bodyText
        #expect(form.contains("Fruit, vegetables, 10\nBakery, 5"))
        let saved = try browser.post("/manage/stores/\(storeId)/edit", fields() + [("departments", "Fruit, vegetables, 10\nBakery, 5")])
        #expect(saved.status == 303)
        #expect(try database.board.entry(storeId)?.definition.departments.map(\.name) == ["Fruit, vegetables", "Bakery"])
        let bidi = try browser.post("/manage/stores/\(storeId)/edit", fields() + [("departments", "Bak\u{202E}ery, 5")])
        #expect(bidi.status == 422)
    }

    @Test("a store moved: its position is checked, recorded, and the nearest-first lists follow at once")
    func position() throws {
        let browser = try boss()
        let form = try browser.get("/manage/stores/\(storeId)/edit").bodyText
        #expect(form.contains("data-position-picker hidden"))  // the map, for browsers with scripts
        let refused = try browser.post("/manage/stores/\(storeId)/edit", fields(["latitude": "north", "longitude": "200"]))
        #expect(refused.status == 422)
        #expect(refused.bodyText.contains("id=\"latitude-error\">Enter a latitude from -90 to 90, like 45.4642.</p>"))
        #expect(refused.bodyText.contains("id=\"longitude-error\">Enter a longitude from -180 to 180, like 9.1900.</p>"))
        let centrale = Place.milan[1].position
        let saved = try browser.post("/manage/stores/\(storeId)/edit", fields([
            "latitude": String(centrale.latitude), "longitude": String(centrale.longitude),
        ]))
        let page = try browser.get(try require(saved.header("Location"))).bodyText
        #expect(page.contains("2 changes saved."))
        #expect(page.contains("Latitude: \(store.latitude) → 45.4861"))
        let nearest = try require(database.board.nearest(to: centrale, limit: 1).first)
        #expect(nearest.entry.store.id == storeId && nearest.metres < 1)
    }

    @Test("every field is checked, with its reason next to it, and a refused form changes nothing")
    func validation() throws {
        let browser = try boss()
        let refused = try browser.post("/manage/stores/\(storeId)/edit", fields([
            "capacity": "0", "walkInPercent": "95", "name": "", "callGraceMinutes": "ten", "address": String(repeating: "a", count: 201),
        ]))
        #expect(refused.status == 422)
        let html = refused.bodyText
        #expect(html.contains("Nothing was changed: please correct the fields marked below."))
        #expect(html.contains("<p class=\"field-error\" id=\"capacity-error\">Enter a number from 1 to 10000.</p>"))
        #expect(html.contains("<p class=\"field-error\" id=\"walkInPercent-error\">Enter a number from 0 to 90.</p>"))
        #expect(html.contains("<p class=\"field-error\" id=\"name-error\">This cannot be empty.</p>"))
        #expect(html.contains("<p class=\"field-error\" id=\"callGraceMinutes-error\">Enter a whole number.</p>"))
        #expect(html.contains("<p class=\"field-error\" id=\"address-error\">Use at most 200 characters.</p>"))
        #expect(html.contains("aria-invalid=\"true\" aria-describedby=\"capacity-error\""))
        #expect(try database.stores.storeChanges(storeId: storeId).isEmpty)
        #expect(try database.board.entry(storeId)?.store.capacity == 4)
        // The phone may be left empty; the same values again change nothing.
        #expect(try browser.post("/manage/stores/\(storeId)/edit", fields(["phone": ""])).status == 303)
        let same = try browser.post("/manage/stores/\(storeId)/edit", fields(["phone": ""]))
        #expect(try browser.get(try require(same.header("Location"))).bodyText.contains("Nothing was changed."))
        #expect(try database.stores.storeChanges(storeId: storeId).count == 1)
        // Only the store's managers.
        _ = try database.accounts.createUser(email: "c@example.org", displayName: "C", passwordHash: Fixture.passwordHash,
                                    now: clock.now, confirmation: nil)
        let customer = Browser(app)
        try customer.signIn(email: "c@example.org")
        #expect(try customer.get("/manage/stores/\(storeId)/edit").status == 403)
        #expect(try customer.post("/manage/stores/\(storeId)/edit", fields(["capacity": "9"])).status == 403)
    }
}
