import Foundation
import GRDB
import Synchronization
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// A generator of repeatable random numbers (SplitMix64), so a failing sequence can be replayed
/// from its seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The store board: what the worker keeps of each store must always be what the database says.
@Suite("The kept store board")
struct StoreBoardTests {

    /// The standing the board keeps, against one computed from the database at the same instant.
    func expectAgreement(_ database: AppDatabase, stores: [Store], now: Date, step: String) throws {
        for store in stores {
            // A standing kept across changes (a ticket joining the back of the queue extends it
            // in place) must be what a recomputation at its own instant gives.
            if let kept = database.board.keptStanding(of: store.id) {
                let details = try #require(try database.stores.storeDetails(id: store.id))
                let recomputed = StoreStanding(live: try database.reservations.liveTraffic(storeId: store.id, now: kept.at),
                                               settings: details.store.settings, hours: details.openingHours,
                                               now: kept.at)
                #expect(kept == recomputed, "\(step), store \(store.id), kept standing")
            }
            let kept = try #require(database.board.standing(of: store.id, now: now, maxAge: 0))
            let details = try #require(try database.stores.storeDetails(id: store.id))
            let recomputed = StoreStanding(live: try database.reservations.liveTraffic(storeId: store.id, now: now),
                                           settings: details.store.settings, hours: details.openingHours, now: now)
            #expect(kept == recomputed, "\(step), store \(store.id)")
            let entry = try #require(database.board.entry(store.id))
            let model = try database.reservations.liveTraffic(storeId: store.id, now: now).model
            #expect(entry.store == details.store && entry.model == model, "\(step), store \(store.id)")
        }
    }

    /// The line-up decision recomputed from the database's committed rows.
    func expectedDecision(_ database: AppDatabase, store: Store, people: Int, minutes: Int, now: Date, pool: Pool) throws
        -> LineUpPolicy.Decision
    {
        let details = try #require(try database.stores.storeDetails(id: store.id))
        return try database.reservations.liveTraffic(storeId: store.id, now: now).lineUpDecision(
            people: people, residence: Double(minutes) * 60, settings: details.store.settings,
            hours: details.openingHours, now: now, pool: pool)
    }

    @Test("after any sequence of line-ups, bookings, cancellations, scans, expiries and clock moves, the kept standing equals a recomputation", arguments: 1...12)
    func keptEqualsRecomputed(seed: UInt64) throws {
        var random = SeededGenerator(state: seed)
        let database = try Fixture.database()
        var now = Fixture.date(2026, 11, 18, 9)
        let small = try database.stores.createStore(
            NewStore(name: "Small", address: "Via 1", phone: "1", position: Place.milan[0].position, capacity: 6,
                     timeZone: "Europe/Rome", settings: StoreSettings(capacity: 6, walkInPercent: 34, slotMinutes: 15,
                                                                      slotCapacity: 2)),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 8 * 60, closes: 22 * 60) }, departments: [])
        let other = try database.stores.createStore(
            Fixture.store("Other", at: GeoPoint(latitude: 45.47, longitude: 9.19), capacity: 3),
            hours: Fixture.weekdayHours, departments: [])
        let stores = [small, other]
        // A history of nineteen visits 1.5 times as long as declared: each exit changes the ratio.
        try database.execute(sql: """
            UPDATE storeLoad SET measuredVisits = 19, declaredSeconds = 19 * 1800, actualSeconds = 19 * 2700
            WHERE storeId = ?
            """, small.id)
        var customers: [UserID] = []
        for index in 0..<14 {
            customers.append(try database.accounts.createUser(email: "c\(index)@example.org", displayName: "C\(index)",
                                                     passwordHash: Fixture.passwordHash, now: now, confirmation: nil).id)
        }
        try expectAgreement(database, stores: stores, now: now, step: "start")
        for step in 0..<80 {
            let store = stores[Int.random(in: 0..<stores.count, using: &random)]
            let customer = customers[Int.random(in: 0..<customers.count, using: &random)]
            let action: String
            switch Int.random(in: 0..<9, using: &random) {
            case 0, 1:
                action = "line up"
                let people = Int.random(in: 1...2, using: &random)
                let minutes = [15, 30, 45, 60].randomElement(using: &random)!
                // The transaction decides from the board and its own changes; the database says.
                let expected = try expectedDecision(database, store: store, people: people, minutes: minutes,
                                                    now: now, pool: .online)
                let outcome = try database.reservations.reserve(ReservationRequest(
                    storeId: store.id, userId: customer, kind: .lineUp, people: people, residenceMinutes: minutes,
                    requestKey: Secrets.token(), replacingActive: Bool.random(using: &random)), now: now)
                switch outcome {
                case .lineUpRefused(let decision): #expect(decision == expected, "seed \(seed) step \(step)")
                case .created, .hasActive: #expect(expected.isAccepted, "seed \(seed) step \(step)")
                default: break
                }
            case 2:
                action = "book"
                let calendar = try #require(database.board.entry(store.id)).calendar
                let slot = calendar.firstBookable(now: now)
                _ = try database.reservations.reserve(ReservationRequest(
                    storeId: store.id, userId: customer, kind: .booking, people: 1, residenceMinutes: 30,
                    slotStart: slot?.start, requestKey: Secrets.token(), replacingActive: true), now: now)
            case 3:
                action = "walk in"
                let people = Int.random(in: 1...2, using: &random)
                let expected = try expectedDecision(database, store: store, people: people, minutes: 30, now: now,
                                                    pool: .walkIn)
                let outcome = try database.doors.issueWalkInTicket(storeId: store.id, people: people, residenceMinutes: 30,
                                                             requestKey: nil, now: now)
                switch outcome {
                case .refused(let decision): #expect(decision == expected, "seed \(seed) step \(step)")
                case .issued: #expect(expected.isAccepted, "seed \(seed) step \(step)")
                default: break
                }
            case 4:
                action = "cancel"
                if let active = try database.reservations.activeReservation(userId: customer) {
                    _ = try database.reservations.cancelReservation(id: active.reservation.id, userId: customer, now: now)
                }
            case 5, 6:
                action = "scan"
                let candidates = try database.values(
                    ReservationID.self, sql: "SELECT id FROM reservation WHERE status IN ('called', 'inside', 'booked') ORDER BY id"
                ).compactMap { $0 }
                if let id = candidates.randomElement(using: &random) {
                    _ = try database.doors.scan(reservationId: id, at: store.id, now: now)
                }
            case 7:
                action = "clock"
                now += Double(Int.random(in: 1...40, using: &random)) * 60
            default:
                action = "timer"
                now += Double(Int.random(in: 0...20, using: &random))
                try database.doors.advanceQueues(now: now)
            }
            try expectAgreement(database, stores: stores, now: now, step: "seed \(seed) step \(step) (\(action))")
        }
    }

    @Test("a write finding its store one version behind this worker's own commit waits for it, and only for it")
    func commitsInFlight() throws {
        let inFlight = CommitsInFlight()
        let store = StoreID(rawValue: 7)
        inFlight.expect([store: 5])
        // Another version, or another store: no wait (the deadline would be a second away).
        let started = Date()
        inFlight.wait(for: store, version: 4)
        inFlight.wait(for: StoreID(rawValue: 8), version: 5)
        #expect(Date().timeIntervalSince(started) < 0.5)
        // The version in flight: the waiter goes on only once the commit is settled.
        final class Seen: @unchecked Sendable {
            let settled = Atomic(false)
            let settledWhenWoken = Atomic(false)
        }
        let seen = Seen()
        let done = DispatchSemaphore(value: 0)
        Thread {
            inFlight.wait(for: store, version: 5, timeout: 30)
            seen.settledWhenWoken.store(seen.settled.load(ordering: .acquiring), ordering: .releasing)
            done.signal()
        }.start()
        Thread.sleep(forTimeInterval: 0.05)
        seen.settled.store(true, ordering: .releasing)
        inFlight.settle([store: 5])
        #expect(done.wait(timeout: .now() + 10) == .success)
        let settledWhenWoken = seen.settledWhenWoken.load(ordering: .acquiring)
        #expect(settledWhenWoken)
        // Settled, it is not waited for again.
        inFlight.wait(for: store, version: 5)
    }

    @Test("a kept standing is reused while the store is unchanged and young, and recomputed after a change")
    func reuse() throws {
        let database = try Fixture.database()
        let now = Fixture.wednesdayMorning
        let store = try database.stores.createStore(Fixture.store("Kept", at: .milanCentre, capacity: 1),
                                             hours: Fixture.weekdayHours, departments: [])
        let user = try database.accounts.createUser(email: "k@example.org", displayName: "K", passwordHash: Fixture.passwordHash,
                                           now: now, confirmation: nil)
        let first = try #require(database.board.standing(of: store.id, now: now))
        #expect(database.board.standing(of: store.id, now: now + 0.5)?.at == first.at)  // reused
        #expect(database.board.standing(of: store.id, now: now + 2)?.at == now + 2)  // too old
        _ = try database.reservations.reserve(ReservationRequest(storeId: store.id, userId: user.id, kind: .lineUp, people: 1,
                                                    residenceMinutes: 30, requestKey: Secrets.token()), now: now + 2.1)
        let changed = try #require(database.board.standing(of: store.id, now: now + 2.2))
        #expect(changed.at == now + 2.2 && changed.status.peopleInside == 0 && changed.online.parties + 1 >= 1)
    }

    @Test("stores without history share one model on the board, as a new store's sums give it")
    func sharedModel() throws {
        let database = try Fixture.database()
        let stores = try (0..<3).map { index in
            try database.stores.createStore(Fixture.store("New \(index)", at: .milanCentre), hours: Fixture.weekdayHours,
                                     departments: [])
        }
        for store in stores {
            #expect(try database.storeLoad(store.id)?.model == VisitModel.newStore)
            let entry = try #require(database.board.entry(store.id))
            #expect(entry.model == VisitModel.newStore && entry.modelBox === VisitModelBox.newStore)
        }
        // Once a store has a history of its own, it has a model of its own.
        try Fixture.historyAsDeclared(stores[0].id, in: database)
        let measured = try #require(database.board.entry(stores[0].id))
        #expect(measured.model != VisitModel.newStore && measured.modelBox !== VisitModelBox.newStore)
    }

    @Test("the board keeps each store packed, and gives back exactly the store registered")
    func packedStores() throws {
        let database = try Fixture.database()
        let settings = StoreSettings(capacity: 9_999, walkInPercent: 35, slotMinutes: 20, slotCapacity: 7,
                                     entryBeforeMinutes: 4, entryAfterMinutes: 11, callGraceMinutes: 6,
                                     priority: PriorityLane(every: 3, online: true))
        // Zones in an order the board has not seen them, one an alias of another.
        let stores = try ["America/Argentina/Ushuaia", "Asia/Kathmandu", "Europe/Rome", "Asia/Katmandu"].map { zone in
            try database.stores.createStore(
                NewStore(name: "Emporio à \(zone)", address: "Via \(zone), un indirizzo lungo più di quindici byte",
                         phone: "+39 02 1234 5678", position: GeoPoint(latitude: -54.807_222_1, longitude: -68.304_444_9),
                         capacity: 9_999, timeZone: zone, settings: settings),
                hours: Fixture.weekdayHours, departments: [])
        }
        for store in stores {
            let entry = try #require(database.board.entry(store.id))
            #expect(entry.store == store)
            #expect(entry.id == store.id && entry.definition.settings == store.settings)
            #expect(entry.definition.position == store.position && entry.definition.capacity == 9_999)
            #expect(entry.hours.timeZone.identifier == TimeZone(identifier: store.timeZone)?.identifier)
        }
        #expect(MemoryLayout<PackedStore>.stride < MemoryLayout<Store>.stride)
    }

    @Test("a transaction sees its own changes, in every store it asks for, however often it asks; the board after it commits",
          .enabled(if: Fixture.onSQLite))
    func transactionView() throws {
        let database = try Fixture.database()
        let now = Fixture.wednesdayMorning
        let stores = try (0..<2).map { index in
            try database.stores.createStore(Fixture.store("Own \(index)", at: .milanCentre, capacity: 5),
                                     hours: Fixture.weekdayHours, departments: [])
        }
        var number = 0
        func ticket(_ store: Store, _ status: ReservationStatus, _ db: Database) throws -> ReservationID {
            number += 1
            return try AppDatabase.insert(NewReservation(
                storeId: store.id, userId: nil, kind: status == .booked ? .booking : .lineUp, walkIn: false, day: 1,
                number: number, people: 1, residenceMinutes: 30, slotStart: status == .booked ? now + 3 * 3600 : nil,
                status: status, createdAt: now, requestKey: nil), SQLiteTransaction(db: db)).id
        }
        /// The store as a board read afresh from the transaction's state has it.
        func expectCurrent(_ store: Store, _ db: Database, _ step: String) throws {
            let fresh = StoreBoard()
            try fresh.reload(db)
            let seen = try database.transactionTraffic(storeId: store.id, db).live
            #expect(seen == fresh.entry(store.id)?.reservations, "\(step)")
        }
        // Committed before: one waiting at each store.
        let before = try database.writer.write { db in try stores.map { try ticket($0, .waiting, db) } }
        try database.writer.write { db in
            try expectCurrent(stores[0], db, "nothing changed yet")
            let first = try ticket(stores[0], .waiting, db)
            try expectCurrent(stores[0], db, "a ticket added")
            _ = try ticket(stores[1], .booked, db)
            try AppDatabase.setStatus(.called, .calledAt, to: now, id: first, from: .waiting, SQLiteTransaction(db: db))
            try expectCurrent(stores[0], db, "changed after it was read back")
            try expectCurrent(stores[1], db, "first asked for after changes to it")
            try AppDatabase.setStatus(.cancelled, .endedAt, to: now, id: before[1], from: .active, SQLiteTransaction(db: db))
            try db.execute(sql: "DELETE FROM reservation WHERE id = ?", arguments: [before[0]])
            _ = try ticket(stores[1], .waiting, db)
            try expectCurrent(stores[0], db, "a row deleted")
            try expectCurrent(stores[1], db, "a ticket ended, another added")
        }
        let fresh = StoreBoard()
        try database.writer.read { db in try fresh.reload(db) }
        for store in stores {
            #expect(database.board.entry(store.id)?.reservations == fresh.entry(store.id)?.reservations)
        }
        // A transaction rolled back leaves the board and the next transaction as they were.
        struct Undone: Error {}
        #expect(throws: Undone.self) {
            try database.writer.write { db in
                _ = try ticket(stores[0], .waiting, db)
                try expectCurrent(stores[0], db, "to be rolled back")
                throw Undone()
            }
        }
        #expect(database.board.entry(stores[0].id)?.reservations == fresh.entry(stores[0].id)?.reservations)
        try database.writer.write { db in try expectCurrent(stores[0], db, "after the rollback") }
    }

    @Test("bookings stay in slot order, once each, as they are made, changed, let in and ended")
    func bookingsInOrder() throws {
        let database = try Fixture.database()
        let now = Fixture.wednesdayMorning
        let store = try database.stores.createStore(Fixture.store("Booked", at: .milanCentre), hours: Fixture.weekdayHours,
                                             departments: [])
        var entry = StoreBoard.Entry(details: try #require(try database.stores.storeDetails(id: store.id)))
        func booking(_ id: Int64, _ hours: Double, people: Int = 1) -> LiveReservation {
            LiveReservation(id: ReservationID(id), state: .booked(slotStart: now + hours * 3600), people: people,
                            residence: 1800)
        }
        // Made out of order; two at one slot, ordered by id.
        for (id, hours) in [(5, 3.0), (2, 4.0), (9, 3.0), (4, 3.0), (7, 5.0)] { entry.upsert(booking(Int64(id), hours)) }
        #expect(entry.reservations.map(\.id) == [4, 5, 9, 2, 7])
        // Changed at its slot (a party of two now): replaced where it is, not added.
        entry.upsert(booking(5, 3, people: 2))
        #expect(entry.reservations.map(\.id) == [4, 5, 9, 2, 7] && entry.reservations[1].people == 2)
        // Let in: out of the bookings, into the queue's part; a new line-up joins it.
        entry.upsert(LiveReservation(id: 9, state: .inside(since: now), people: 1, residence: 1800))
        entry.upsert(LiveReservation(id: 12, state: .waiting, people: 1, residence: 1800))
        #expect(entry.reservations.map(\.id) == [9, 12, 4, 5, 2, 7] && entry.activeCount == 2)
        // Ended.
        entry.remove(2)
        #expect(entry.reservations.map(\.id) == [9, 12, 4, 5, 7])
    }

    @Test("taking several tickets out at once leaves what taking them out one by one does", arguments: 1...8)
    func removeMany(seed: UInt64) throws {
        let database = try Fixture.database()
        let now = Fixture.wednesdayMorning
        let store = try database.stores.createStore(Fixture.store("Cut", at: .milanCentre), hours: Fixture.weekdayHours,
                                             departments: [])
        var random = SeededGenerator(state: seed)
        var entry = StoreBoard.Entry(details: try #require(try database.stores.storeDetails(id: store.id)))
        // Ordinary tickets in every state, priority ones placed before others, and bookings.
        for id in 1...60 {
            let state: LiveReservation.State = switch Int.random(in: 0..<4, using: &random) {
            case 0: .inside(since: now - 600)
            case 1: .called(at: now - 60)
            case 2: .booked(slotStart: now + Double(Int.random(in: 1...6, using: &random)) * 1800)
            default: .waiting
            }
            let priority = (state == .waiting || state == .called(at: now - 60)) && Int.random(in: 0..<6, using: &random) == 0
            entry.upsert(LiveReservation(id: ReservationID(Int64(id)), state: state, people: 1, residence: 1800,
                                         priority: priority,
                                         position: priority ? ReservationID(Int64.random(in: 1...Int64(id), using: &random)) : nil))
        }
        let shared = entry  // as a transaction's copy shares the board's array
        let ids = entry.reservations.map(\.id).shuffled(using: &random).prefix(Int.random(in: 1...12, using: &random))
        var oneByOne = entry
        for id in ids { oneByOne.remove(id) }
        entry.remove(Set(ids) + [ReservationID(999)])  // and one not there
        #expect(entry.reservations.map(\.id) == oneByOne.reservations.map(\.id))
        #expect(entry.reservations == oneByOne.reservations)
        #expect(entry.activeCount == oneByOne.activeCount)
        #expect(shared.reservations.count == 60, "the board's own array is left as it was")
    }

    @Test("a live reservation reads back every value it was given, packed as it is")
    func packedReservation() {
        let now = Fixture.wednesdayMorning
        let states: [LiveReservation.State] = [.waiting, .called(at: now), .inside(since: now - 90.5),
                                               .booked(slotStart: now + 3600)]
        for state in states {
            for dates in [nil, now - 1234.25] as [Date?] {
                var live = LiveReservation(id: 7, state: state, people: 3, residence: 2700, walkIn: true, number: 123_456,
                                           day: 20_419, travel: 615, leftAt: dates, priority: true, position: 4,
                                           issuedAt: dates.map { $0 - 60 })
                #expect(live.state == state && live.people == 3 && live.residence == 2700 && live.walkIn)
                #expect(live.number == 123_456 && live.day == 20_419 && live.travel == 615 && live.priority)
                #expect(live.leftAt == dates && live.issuedAt == dates.map { $0 - 60 } && live.position == 4)
                #expect(live.isBooked == (state == .booked(slotStart: now + 3600)) && live.isWaiting == (state == .waiting))
                live.state = .inside(since: now)
                live.leftAt = nil
                #expect(live.state == .inside(since: now) && live.leftAt == nil && live.issuedAt == dates.map { $0 - 60 })
            }
        }
        #expect(MemoryLayout<LiveReservation>.stride <= 72)
    }

    @Test("a write from another connection is picked up when the board is refreshed")
    func externalWrites() throws {
        let path = NSTemporaryDirectory() + "clup-board-\(UUID().uuidString).sqlite"
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let worker = try AppDatabase.open(path: path, dataKey: .scratch)
        let elsewhere = try AppDatabase.open(path: path, dataKey: .scratch)
        _ = try elsewhere.stores.createStore(Fixture.store("Added elsewhere", at: .milanCentre), hours: [], departments: [])
        #expect(worker.board.storeCount == 0)
        try worker.refreshBoard()
        #expect(worker.board.storeCount == 1)
        try worker.refreshBoard()  // nothing new: nothing reloaded, still right
        #expect(worker.board.storeCount == 1)
    }

    @Test("the grid finds the same nearest stores as comparing every store", arguments: [3, 60, 2_000])
    func grid(count: Int) {
        var random = SeededGenerator(state: UInt64(count))
        var grid = StoreGrid()
        var points: [(id: StoreID, point: GeoPoint)] = []
        for id in (1...Int64(count)).map({ StoreID($0) }) {
            // Most in a city, a few far away.
            let far = Int.random(in: 0..<20, using: &random) == 0
            let point = GeoPoint(latitude: (far ? 40 : 45.4) + Double.random(in: 0...(far ? 10 : 0.2), using: &random),
                                 longitude: (far ? 2 : 9.1) + Double.random(in: 0...(far ? 15 : 0.2), using: &random))
            grid.insert(id: id, at: point)
            points.append((id, point))
        }
        grid.remove(id: 2, at: points[1].point)
        points.remove(at: 1)
        for _ in 0..<25 {
            let from = GeoPoint(latitude: 45.3 + Double.random(in: 0...0.4, using: &random),
                                longitude: 9.0 + Double.random(in: 0...0.4, using: &random))
            for limit in [1, 5, 30] {
                let expected = points.map { ($0.id, from.distance(to: $0.point)) }
                    .sorted { ($0.1, $0.0) < ($1.1, $1.0) }.prefix(limit).map(\.0)
                #expect(grid.nearest(to: from, limit: limit).map(\.id) == Array(expected))
            }
        }
    }
}
