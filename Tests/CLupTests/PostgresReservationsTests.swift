import Foundation
import Synchronization
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Reservations on PostgreSQL, made through two workers at once (two `AppDatabase`s on one
/// schema, as two `clup serve` processes would be): the capacity of a slot, the one active
/// reservation per customer and a store's queue hold whichever worker takes the request.
@Suite("PostgreSQL engine: reservations", .enabled(if: PostgresFixture.url != nil))
struct PostgresReservationsTests {
    let workers: [AppDatabase]
    let now = Fixture.wednesdayMorning
    /// Thursday 19 November 2026, 10:00 in Milan: a slot a day ahead.
    let slot = Fixture.date(2026, 11, 19, 10)

    init() throws {
        let url = try PostgresFixture.freshURL()
        workers = [try AppDatabase.open(url: url, dataKey: .scratch), try AppDatabase.open(url: url, dataKey: .scratch)]
    }

    func store(capacity: Int = 50, slotCapacity: Int = 3) throws -> Store {
        var new = Fixture.store("Bottega", at: GeoPoint(latitude: 45.46, longitude: 9.19), capacity: capacity)
        new.slotCapacity = slotCapacity
        return try workers[0].stores.createStore(new, hours: Fixture.weekdayHours, departments: [])
    }

    func request(_ storeId: StoreID, _ userId: UserID, kind: Reservation.Kind = .booking) -> ReservationRequest {
        ReservationRequest(storeId: storeId, userId: userId, kind: kind, people: 1, residenceMinutes: 30,
                           travelMode: kind == .lineUp ? .walking : nil, slotStart: kind == .booking ? slot : nil,
                           requestKey: Secrets.token())
    }

    @Test("twenty customers book a slot of three places through two workers at once: three bookings, never four")
    func slotRace() throws {
        let store = try store(slotCapacity: 3)
        let customers = try workers[0].accounts.createCustomers(emails: (1...20).map { "c\($0)@example.org" }, now: now)
        let outcomes = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: customers.count) { index in
            let outcome: String
            switch Result(catching: { try workers[index % 2].reservations.reserve(request(store.id, customers[index]), now: now) }) {
            case .success(.created): outcome = "created"
            case .success(.slotFull): outcome = "full"
            case .success(let other): outcome = "\(other)"
            case .failure(let error): outcome = "\(error)"
            }
            outcomes.withLock { $0.append(outcome) }
        }
        let counted = Dictionary(grouping: outcomes.withLock { $0 }, by: { $0 }).mapValues(\.count)
        #expect(counted == ["created": 3, "full": 17])
        #expect(try workers[1].reservations.bookedPeople(storeId: store.id, in: [Slot(start: slot, end: slot + 900)]) == [slot: 3])
    }

    @Test("one customer lining up at two stores at once, through two workers, keeps one active reservation")
    func oneActive() throws {
        let first = try store()
        let second = try store()
        let customer = try #require(try workers[0].accounts.createCustomers(emails: ["ada@example.org"], now: now).first)
        let outcomes = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let storeId = index == 0 ? first.id : second.id
            let outcome: String
            switch Result(catching: { try workers[index].reservations.reserve(request(storeId, customer, kind: .lineUp), now: now) }) {
            case .success(.created): outcome = "created"
            case .success(.hasActive): outcome = "hasActive"
            case .success(let other): outcome = "\(other)"
            case .failure(let error): outcome = "\(error)"
            }
            outcomes.withLock { $0.append(outcome) }
        }
        #expect(outcomes.withLock { $0 }.sorted() == ["created", "hasActive"])
        #expect(try workers[0].reservations.forCustomer(userId: customer).count == 1)
    }

    @Test("a line-up at a store with room is called at once; a cancellation calls the next, who enters; all counted")
    func queue() throws {
        let store = try store(capacity: 1)
        let customers = try workers[0].accounts.createCustomers(emails: ["a@example.org", "b@example.org"], now: now)
        guard case .created(let first) = try workers[0].reservations.reserve(request(store.id, customers[0], kind: .lineUp), now: now),
              case .created(let second) = try workers[1].reservations.reserve(request(store.id, customers[1], kind: .lineUp), now: now)
        else { Issue.record("a line-up was refused"); return }
        #expect(first.status == .called && first.number == 1)
        #expect(second.status == .waiting && second.number == 2)
        // The same form sent again makes nothing new.
        var again = request(store.id, customers[1], kind: .lineUp)
        again.requestKey = try #require(second.requestKey)
        guard case .alreadyMade(let same) = try workers[0].reservations.reserve(again, now: now) else {
            Issue.record("a repeated form made a second reservation"); return
        }
        #expect(same.id == second.id)
        #expect(try workers[1].reservations.cancelReservation(id: first.id, userId: customers[0], now: now + 60))
        #expect(try workers[0].reservations.reservation(id: second.id)?.reservation.status == .called)
        #expect(try workers[0].reservations.reservation(id: first.id)?.reservation.status == .cancelled)
        #expect(try workers[0].reservations.cancelReservation(id: first.id, userId: customers[0], now: now + 120) == false)
        // The writing worker's board has both changes.
        let entry = try #require(workers[1].board.entry(store.id))
        #expect(entry.live.live.map(\.id) == [second.id])
        // The second customer is scanned in at the other worker's door.
        let scan = try workers[0].doors.scan(reservationId: second.id, at: store.id, now: now + 120)
        #expect(scan.verdict == .enter && scan.peopleInside == 1)
        #expect(try workers[1].doors.scan(reservationId: first.id, at: store.id, now: now + 130).verdict != .enter)
        // Counted in the store's hour as on SQLite: two calls, one cancellation, one entry of a line-up.
        let hour = Int(now.timeIntervalSince1970 / 3600)
        let totals = try #require(try workers[0].statistics.storeHours(storeId: store.id, from: hour, to: hour).first)
        #expect(totals.calls == 2 && totals.cancellations == 1 && totals.entries == 1 && totals.lineUps == 1)
        #expect(try workers[1].doors.refusedScans(storeId: store.id, from: now, to: now + 3600) == [now + 130])
    }

    @Test("what one worker commits reaches the other's board within a second, and a lost feed is heard again")
    func boardAcrossWorkers() throws {
        let store = try store(capacity: 5)
        let customer = try #require(try workers[0].accounts.createCustomers(emails: ["b@example.org"], now: now).first)
        #expect(try waitFor { workers[1].board.entry(store.id) != nil })
        guard case .created(let ticket) = try workers[0].reservations.reserve(request(store.id, customer, kind: .lineUp), now: now) else {
            Issue.record("the line-up was refused"); return
        }
        #expect(try waitFor { workers[1].board.entry(store.id)?.live.live.map(\.id) == [ticket.id] })
        // The other worker's feed is cut (a failover would do it): it listens again at its next
        // refresh and reads what it missed.
        let feed = try #require(workers[1].postgres?.feed)
        feed.forget()
        #expect(try workers[0].reservations.cancelReservation(id: ticket.id, userId: customer, now: now + 60))
        try workers[1].refreshBoard()
        #expect(feed.isListening)
        #expect(workers[1].board.entry(store.id)?.live.live.isEmpty == true)
    }

    @Test("a write decides from the board while it holds the store's locked version, from the rows when a change is unheard")
    func boardVersions() throws {
        let store = try store(capacity: 1)
        let customers = try workers[0].accounts.createCustomers(emails: ["d@example.org", "e@example.org"], now: now)
        guard case .created(let first) = try workers[0].reservations.reserve(request(store.id, customers[0], kind: .lineUp), now: now)
        else { Issue.record("the line-up was refused"); return }
        #expect(try workers[0].board.entry(store.id)?.exactAt == version(of: store.id))
        // Another worker's change whose notice has not arrived: the first ticket's party grows,
        // and nothing is said on the feed.
        let postgres = try #require(workers[1].postgres)
        try postgres.write { transaction in
            try transaction.execute("UPDATE reservation SET people = 2 WHERE id = \(first.id)")
        }
        #expect(try workers[0].board.entry(store.id)?.live.live.first?.people == 1)
        // The next line-up locks the store at a version the board does not hold: it reads the
        // rows, and the board has the change after it.
        guard case .created = try workers[0].reservations.reserve(request(store.id, customers[1], kind: .lineUp), now: now + 60)
        else { Issue.record("the line-up was refused"); return }
        let entry = try #require(workers[0].board.entry(store.id))
        #expect(entry.live.live.first { $0.id == first.id }?.people == 2)
        #expect(entry.exactAt == (try version(of: store.id)))
    }

    @Test("a write that changes a reservation without saying so fails when the board answers for the store")
    func unnotedChange() throws {
        let store = try store(capacity: 1)
        let customer = try #require(try workers[0].accounts.createCustomers(emails: ["f@example.org"], now: now).first)
        guard case .created(let ticket) = try workers[0].reservations.reserve(request(store.id, customer, kind: .lineUp), now: now)
        else { Issue.record("the line-up was refused"); return }
        let postgres = try #require(workers[0].postgres)
        #expect(throws: PostgresEngine.BoardDiverged.self) {
            try postgres.write { transaction in
                _ = try transaction.statements.lockStore(store.id)
                try transaction.execute("UPDATE reservation SET people = 2 WHERE id = \(ticket.id)")
                _ = try transaction.statements.traffic(storeId: store.id, now: now)
            }
        }
        // Said, it is read back with the transaction's own changes.
        try postgres.write { transaction in
            _ = try transaction.statements.lockStore(store.id)
            try transaction.execute("UPDATE reservation SET people = 2 WHERE id = \(ticket.id)")
            transaction.changed(reservation: ticket.id, of: store.id)
            #expect(try transaction.statements.traffic(storeId: store.id, now: now).live.map(\.people) == [2])
        }
    }

    /// Store `id`'s version as committed (`storeVersion`).
    func version(of id: StoreID) throws -> Int64? {
        try #require(workers[0].postgres).read { transaction in
            try transaction.value("SELECT version FROM storeVersion WHERE storeId = \(id)", as: Int64.self)
        }
    }

    @Test("a session, a kiosk and an active reservation are remembered, and forgotten on every worker as they change")
    func credentialsAcrossWorkers() throws {
        let store = try store(capacity: 5)
        let customer = try #require(try workers[0].accounts.createCustomers(emails: ["c@example.org"], now: now).first)
        _ = try workers[0].accounts.createSession(idHash: "s", csrfToken: "t", userId: customer, now: now)
        #expect(try waitFor { workers[1].board.entry(store.id) != nil })
        #expect(workers[0].remembersCredentials && workers[1].remembersCredentials)
        #expect(try workers[1].accounts.session(idHash: "s")?.user.id == customer)
        #expect(try workers[1].reservations.activeReservationFromBoard(userId: customer) == nil)

        // Lined up through one worker: the other answers with the ticket once it hears of it.
        guard case .created(let ticket) = try workers[0].reservations.reserve(request(store.id, customer, kind: .lineUp), now: now) else {
            Issue.record("the line-up was refused"); return
        }
        #expect(try waitFor { try workers[1].reservations.activeReservationFromBoard(userId: customer)?.reservation.id == ticket.id })
        #expect(try workers[0].reservations.cancelReservation(id: ticket.id, userId: customer, now: now + 60))
        #expect(try waitFor { try workers[1].reservations.activeReservationFromBoard(userId: customer) == nil })

        // Remembered: read once more (every notice sent so far has been heard: the cancellation's
        // was last), a row deleted behind CLup's back (no worker told) is still answered...
        #expect(try workers[1].accounts.session(idHash: "s") != nil)
        let engine = try #require(workers[0].postgres)
        _ = try engine.read(snapshot: false) { transaction in try transaction.execute("DELETE FROM session WHERE idHash = 's'") }
        #expect(try workers[1].accounts.session(idHash: "s") != nil)
        // ...until a worker signs it out: then no worker answers for it.
        try workers[0].accounts.deleteSession(idHash: "s")
        #expect(try waitFor { try workers[1].accounts.session(idHash: "s") == nil })

        // A worker whose feed is lost keeps nothing until it listens again.
        let feed = try #require(workers[1].postgres?.feed)
        feed.forget()
        #expect(!workers[1].remembersCredentials)
        try workers[1].refreshBoard()
        #expect(workers[1].remembersCredentials)
    }

    /// Polls `condition` for up to two seconds.
    func waitFor(_ condition: () throws -> Bool) throws -> Bool {
        let deadline = Date() + 2
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }
}

extension PostgresReservationsTests {
    @Test("a connection lost under a request (a failover, a server restart): 503 with Retry-After, nothing written")
    func connectionLost() throws {
        let store = try store()
        let customer = try #require(try workers[0].accounts.createCustomers(emails: ["ada@example.org"], now: now).first)
        // The connection the first worker will lend next, ended from the server's side.
        let pid = try #require(try workers[0].value(Int.self, sql: "SELECT pg_backend_pid()"))
        #expect(try workers[1].value(Bool.self, sql: "SELECT pg_terminate_backend(CAST(? AS integer))", pid) == true)
        // Gone on the server's side before the next request, as after a failover.
        #expect(try waitFor {
            try workers[1].value(Int.self, sql: "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = CAST(? AS integer)", pid) == 0
        })
        let lineUp = request(store.id, customer, kind: .lineUp)
        #expect {
            _ = try workers[0].reservations.reserve(lineUp, now: now)
        } throws: { error in
            let answer = HTTPError.storage(error)
            return answer?.status == 503 && answer?.headers["Retry-After"] == "5"
        }
        #expect(try workers[1].reservations.forCustomer(userId: customer).isEmpty)
        // Its listening connection may have gone the same way unnoticed: the worker stops
        // trusting what it remembers and listens again at its next refresh.
        #expect(!workers[0].remembersCredentials)
        try workers[0].refreshBoard()
        #expect(workers[0].remembersCredentials)
        // The broken connection is not lent again: the same form, sent again, goes through once.
        guard case .created = try workers[0].reservations.reserve(lineUp, now: now) else {
            Issue.record("the line-up sent again was refused"); return
        }
        #expect(try workers[1].reservations.forCustomer(userId: customer).count == 1)
    }
}

/// Moving a deployment from SQLite to PostgreSQL (`clup copy-to-postgres`).
@Suite("Copying SQLite to PostgreSQL", .enabled(if: PostgresFixture.url != nil))
struct PostgresCopyTests {
    let now = Fixture.wednesdayMorning

    /// A SQLite database with a bit of everything: stores, accounts, sessions, reservations in
    /// every state, a scan, notices and mail, a kiosk's ticket block, statistics.
    func busySQLite() throws -> (AppDatabase, Store) {
        let source = try AppDatabase.inMemory()
        _ = try DemoData.seed(source, now: now, timeZone: Fixture.rome, weeks: 1)
        let store = try #require(try source.stores.storeListings().first?.store)
        let customers = try (1...4).map { index in
            try source.accounts.createUser(email: "c\(index)@example.org", displayName: "C\(index)", passwordHash: "h", now: now,
                                  confirmation: (Secrets.token(), { user in
                                      NewOutboxMessage(recipient: user.email, subject: "Confirm", body: "b", now: now)
                                  }))
        }
        _ = try source.accounts.createSession(idHash: "session", csrfToken: "csrf", userId: customers[0].id, now: now)
        for (index, customer) in customers.enumerated() {
            let kind: Reservation.Kind = index == 3 ? .booking : .lineUp
            _ = try source.reservations.reserve(ReservationRequest(
                storeId: store.id, userId: customer.id, kind: kind, people: 1, residenceMinutes: 30,
                travelMode: kind == .lineUp ? .walking : nil, slotStart: kind == .booking ? Fixture.date(2026, 11, 19, 10) : nil,
                requestKey: Secrets.token()), now: now)
        }
        let first = try #require(try source.reservations.activeReservation(userId: customers[0].id)?.reservation)
        _ = try source.doors.scan(reservationId: first.id, at: store.id, now: now + 60)
        let kiosk = try source.accounts.enrolKiosk(storeId: store.id, label: "Door", key: Secrets.token(bytes: 32), role: .dispenser,
                                          now: now)
        _ = try source.doors.ticketBlock(for: kiosk, now: now)
        try source.notices.dispatchNotices(now: now, render: NoticeWriter(
            settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets).render)
        // A full slot with a customer on its list, offered a place; a maintenance window.
        var full = Fixture.store("Bottega Piena", at: store.position)
        full.slotCapacity = 1
        let small = try source.stores.createStore(full, hours: Fixture.weekdayHours, departments: [])
        let slot = Fixture.date(2026, 11, 19, 10)
        _ = try source.reservations.reserve(ReservationRequest(
            storeId: small.id, userId: customers[1].id, kind: .booking, people: 1, residenceMinutes: 30, slotStart: slot,
            requestKey: Secrets.token(), replacingActive: true), now: now)
        let held = try #require(try source.reservations.activeReservation(userId: customers[1].id)?.reservation)
        _ = try source.waitingLists.joinWaitlist(WaitlistRequest(storeId: small.id, userId: customers[2].id, slotStart: slot, people: 1,
                                                    residenceMinutes: 30, requestKey: Secrets.token()), now: now)
        _ = try source.reservations.cancelReservation(id: held.id, userId: customers[1].id, now: now)
        try source.waitingLists.passWaitingLists(now: now)
        _ = try source.maintenance.scheduleMaintenance(MaintenanceWindow(id: 0, startsAt: now + 86400, endsAt: now + 90000,
                                                             announceFrom: now, timeZone: "Europe/Rome"), now: now)
        return (source, store)
    }

    @Test("every row is copied with its id; the board, statistics and sequences carry on from there")
    func copy() throws {
        let (source, store) = try busySQLite()
        let target = try AppDatabase.open(url: try PostgresFixture.freshURL(), dataKey: .scratch)
        let counts = Dictionary(uniqueKeysWithValues: try source.copy(to: target).map { ($0.table, $0.rows) })
        for table in AppDatabase.tablesInCopyOrder {
            let quoted = table == "user" ? "\"user\"" : table
            let expected = try source.value(Int.self, sql: "SELECT COUNT(*) FROM \(quoted)")
            #expect(counts[table] == expected, "\(table)")
            #expect(try target.value(Int.self, sql: "SELECT COUNT(*) FROM \(quoted)") == expected, "\(table)")
        }
        #expect(counts["reservation", default: 0] > 1000 && counts["notice", default: 0] > 0 && counts["ticketBlock"] == 1)
        // What people see is the same on both.
        #expect(try target.stores.storeListings().map(\.store) == source.stores.storeListings().map(\.store))
        let customer = try #require(try target.accounts.user(email: "c1@example.org"))
        #expect(try target.reservations.forCustomer(userId: customer.id).map(\.reservation) == source.reservations.forCustomer(userId: customer.id)
            .map(\.reservation))
        #expect(try target.accounts.session(idHash: "session")?.user.id == customer.id)
        let hour = Int(now.timeIntervalSince1970 / 3600)
        #expect(try target.statistics.storeHours(storeId: store.id, from: hour - 24 * 8, to: hour)
            == source.statistics.storeHours(storeId: store.id, from: hour - 24 * 8, to: hour))
        #expect(target.board.standing(of: store.id, now: now + 120, maxAge: 0)
            == source.board.standing(of: store.id, now: now + 120, maxAge: 0))
        #expect(try target.storeLoad(store.id)?.model == source.storeLoad(store.id)?.model)
        // New rows take ids past the copied ones, and past the kiosk's block.
        let block = try #require(try target.doors.ticketBlocks(storeId: store.id, days: 0...Int.max).first)
        let newcomer = try #require(try target.accounts.createCustomers(emails: ["new@example.org"], now: now).first)
        guard case .created(let made) = try target.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: newcomer, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
            requestKey: Secrets.token()), now: now + 120)
        else { Issue.record("a line-up after the copy was refused"); return }
        #expect(made.id > block.lastReservationId)
        // A second copy into the same database is refused, and changes nothing.
        #expect { _ = try source.copy(to: target) } throws: { "\($0)".contains("has stores already") }
    }
}
