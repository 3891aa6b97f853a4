import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain

/// The write path's prepared statements must read and write exactly what GRDB's records do.
@Suite("Prepared reservation statements")
struct ReservationStatementsTests {
    @Test("dates are written as GRDB writes them, to the millisecond, from 1970 to 2200")
    func dateText() {
        var generator = SeededGenerator(state: 2026)
        var dates: [Date] = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 0.0005), Date(timeIntervalSince1970: 951_782_400),
            Date(timeIntervalSince1970: 4_107_542_399.9999), Date(timeIntervalSinceReferenceDate: 0.1234),
        ]
        for _ in 0..<50_000 {
            dates.append(Date(timeIntervalSince1970: Double.random(in: 0...7_258_118_400, using: &generator)))
        }
        for _ in 0..<5_000 {
            // Whole and half seconds, as clocks in tests and slot starts are.
            dates.append(Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &generator)) / 2))
        }
        for date in dates {
            #expect(date.databaseText == String.fromDatabaseValue(date.databaseValue), "\(date.timeIntervalSince1970)")
        }
    }

    @Test("a reservation read by column position equals one decoded by GRDB, and so does one inserted",
          .enabled(if: Fixture.onSQLite))
    func positionalRows() throws {
        let database = try Fixture.database()
        let store = try database.stores.createStore(
            NewStore(name: "Statements", address: "Via Roma 1", phone: "", position: GeoPoint(latitude: 45.46, longitude: 9.19),
                     capacity: 40, timeZone: "Europe/Rome"),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 1440) }, departments: [])
        let now = Date(timeIntervalSince1970: 1_800_000_000.25)
        try database.writer.write { db in
            let transaction = SQLiteTransaction(db: db)
            let made = try AppDatabase.insert(NewReservation(
                storeId: store.id, userId: nil, kind: .booking, walkIn: false, day: 20_833, number: 7, people: 2,
                residenceMinutes: 45, travelMode: .transit, slotStart: now + 7200, status: .booked, createdAt: now,
                requestKey: "key"), transaction)
            let decoded = try #require(try Reservation.fetchOne(db, id: made.id))
            #expect(made == decoded)
            #expect(try Reservation.find(made.id, transaction) == decoded)
            try AppDatabase.setStatus(.cancelled, .endedAt, to: now + 60, id: made.id, from: .active, transaction)
            let ended = try #require(try Reservation.fetchOne(db, id: made.id))
            #expect(ended.status == .cancelled && ended.endedAt == now + 60)
            #expect(try Reservation.find(made.id, transaction) == ended)
            // A change from a status the reservation no longer has does nothing.
            #expect(try !AppDatabase.setStatus(.called, .calledAt, to: now, id: made.id, from: .waiting, transaction))
        }
    }
    @Test("a reservation changed before its INSERT is sent is inserted as changed: PostgreSQL writes its row once")
    func changedBeforeItsInsert() throws {
        let database = try Fixture.database()
        let store = try database.stores.createStore(
            Fixture.store("Insert once", at: GeoPoint(latitude: 45.46, longitude: 9.19)),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 1440) }, departments: [])
        let now = Date(timeIntervalSince1970: 1_800_000_000.25)
        // Rows written to the reservation table by this transaction so far, where the engine
        // says (PostgreSQL's statistics of the transaction): inserted, updated.
        func written(_ transaction: some SQLTransaction) throws -> [Int64]? {
            guard Fixture.onPostgres else { return nil }
            let row = try #require(try transaction.row("""
                SELECT n_tup_ins, n_tup_upd FROM pg_stat_xact_user_tables WHERE relid = CAST('reservation' AS regclass)
                """))
            return [try row.decode(0), try row.decode(1)]
        }
        let (made, writes, later) = try database.transaction { transaction in
            let id = try transaction.newReservationIdSQL.flatMap { try transaction.value($0, as: ReservationID.self) }
            let made = try AppDatabase.insert(taking: id, NewReservation(
                storeId: store.id, userId: nil, kind: .lineUp, walkIn: true, day: 20_833, number: 1, people: 2,
                residenceMinutes: 30, status: .waiting, createdAt: now, requestKey: "once"), transaction)
            try AppDatabase.sendOff(made.id, of: store.id, now: now + 1, transaction)
            try AppDatabase.setStatus(.called, .calledAt, to: now + 2, id: made.id, from: .waiting, transaction)
            let writes = try written(transaction)
            // Once the INSERT has gone, a change is an UPDATE.
            try AppDatabase.setStatus(.inside, .enteredAt, to: now + 3, id: made.id, from: .waitingOrCalled, insideAfter: 2,
                                      transaction)
            return (made, writes, try written(transaction))
        }
        if Fixture.onPostgres {
            #expect(writes == [1, 0], "inserted, updated: the row was written \(writes ?? [])")
            #expect(later == [1, 1])
        }
        let stored = try #require(try database.reading { transaction in try Reservation.find(made.id, transaction) })
        #expect(stored.status == .inside && stored.leftAt == now.toTheMillisecond + 1)
        #expect(stored.calledAt == now.toTheMillisecond + 2 && stored.enteredAt == now.toTheMillisecond + 3)
        #expect(stored.createdAt == now.toTheMillisecond && stored.people == 2 && stored.requestKey == "once")
    }
}
