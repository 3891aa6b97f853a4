import Foundation
import GRDB
import Testing

@testable import CLupData
import CLupDomain

/// Shipped migrations never change: a database made from nothing and one upgraded from an old
/// migration must both have exactly the schema in `Schema/schema.sql`. Adding a migration
/// changes the schema on purpose: run with `CLUP_WRITE_SCHEMA=1` to write the file anew, and
/// read its diff.
@Suite("Schema")
struct SchemaTests {
    static let snapshot = Fixture.root + "/Tests/CLupTests/Schema/schema.sql"

    /// Every table, index, trigger and view, by type and name, as SQLite keeps its SQL.
    static func schema(_ reader: some DatabaseReader) throws -> String {
        try reader.read { db in
            try Row.fetchAll(db, sql: """
                SELECT type, name, sql FROM sqlite_master
                WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'
                ORDER BY type, name
                """).map { row -> String in
                let (type, name, sql): (String, String, String) = (row[0], row[1], row[2])
                return "-- \(type) \(name)\n\(sql);\n"
            }.joined(separator: "\n")
        }
    }

    @Test("`copy-to-postgres` copies every table but the key check and the capacity guard's own count")
    func everyTableCopied() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue)
        let tables = try queue.read { db in
            try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                AND name NOT IN ('grdb_migrations', 'dataKeyCheck', 'storeInside') ORDER BY name
                """)
        }
        #expect(AppDatabase.tablesInCopyOrder.sorted() == tables)
    }

    @Test("a database migrated from nothing has the committed schema")
    func fromNothing() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue)
        let schema = try Self.schema(queue)
        if ProcessInfo.processInfo.environment["CLUP_WRITE_SCHEMA"] == "1" {
            try schema.write(toFile: Self.snapshot, atomically: true, encoding: .utf8)
        }
        let committed = try String(contentsOfFile: Self.snapshot, encoding: .utf8)
        #expect(schema == committed)
    }

    @Test("a database made at an old migration, with data in it, upgrades to the same schema", arguments: [
        "v2: accounts, sessions, email tokens, outbox, sign-in failures, roles, kiosks",
        "v6: travel, departures, booking replies, notifications, push subscriptions",
        "v14: forms already done, by their one-time key",
    ])
    func upgraded(from old: String) throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: old)
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO store (name, address, phone, latitude, longitude, capacity, timeZone)
                VALUES ('Bottega', 'Via Uno 1', '', 45.46, 9.19, 10, 'Europe/Rome');
                INSERT INTO user (email, displayName, passwordHash, role, createdAt)
                VALUES ('ada@example.org', 'Ada', 'x', 'customer', '2026-11-18 10:00:00.000');
                """)
        }
        try AppDatabase.migrator.migrate(queue)
        #expect(try Self.schema(queue) == (try String(contentsOfFile: Self.snapshot, encoding: .utf8)))
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM store") } == 1)
    }

    @Test("a slot's booked people are summed from an index alone, on every booking, not from the rows")
    func slotSumsFromTheIndex() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue)
        let statement = AppDatabase.bookedPeopleSQL(storeId: StoreID(1), from: Date(timeIntervalSince1970: 1_795_000_000),
                                                    to: Date(timeIntervalSince1970: 1_795_000_900)).sqlite
        let plan = try queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.text, arguments: statement.arguments)
                .map { $0["detail"] as String }
        }
        #expect(plan == ["SEARCH reservation USING COVERING INDEX reservation_bookedByStore "
                            + "(storeId=? AND slotStart>? AND slotStart<?)"])
    }

    @Test("the capacity guard reads one kept row, which follows every way a party enters and leaves")
    func insideKeptByTheGuard() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue)
        let statement = AppDatabase.peopleInsideSQL(storeId: StoreID(1)).sqlite
        let plan = try queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.text, arguments: statement.arguments)
                .map { $0["detail"] as String }
        }
        #expect(plan.contains("SEARCH storeInside USING INTEGER PRIMARY KEY (rowid=?)"))
        #expect(!plan.contains { $0.contains("reservation") })
        try queue.write { db in
            for (name, capacity) in [("Uno", 5), ("Due", 9)] {
                try db.execute(sql: """
                    INSERT INTO store (name, address, phone, latitude, longitude, capacity, timeZone)
                    VALUES (?, 'Via Uno 1', '', 45.46, 9.19, ?, 'Europe/Rome')
                    """, arguments: [name, capacity])
            }
            func add(_ store: Int, _ number: Int, _ people: Int, _ status: String) throws {
                try db.execute(sql: """
                    INSERT INTO reservation (storeId, kind, walkIn, day, number, people, residenceMinutes, status, createdAt)
                    VALUES (?, 'lineUp', 1, 1, ?, ?, 30, ?, '2026-11-28 10:00:00.000')
                    """, arguments: [store, number, people, status])
            }
            func kept() throws -> [Int] {
                try [Int64(1), 2].map {
                    try Int.fetchOne(db, sql: AppDatabase.peopleInsideSQL(storeId: StoreID(rawValue: $0)).sqlite.text,
                                     arguments: [$0]) ?? -1
                }
            }
            func summed() throws -> [Int] {
                try [1, 2].map { store in
                    try Int.fetchOne(db, sql: "SELECT COALESCE(SUM(people), 0) FROM reservation WHERE storeId = ? AND status = 'inside'",
                                     arguments: [store]) ?? -1
                }
            }
            try add(1, 1, 2, "inside")
            try add(1, 2, 1, "waiting")
            try add(2, 1, 2, "waiting")
            try add(2, 2, 2, "called")
            #expect(try kept() == [2, 0])
            try db.execute(sql: "UPDATE reservation SET status = 'inside' WHERE status IN ('waiting', 'called')")
            #expect(try kept() == [3, 4])
            try db.execute(sql: "UPDATE reservation SET people = 1 WHERE storeId = 2 AND number = 1")
            #expect(try kept() == [3, 3])
            try db.execute(sql: "UPDATE reservation SET status = 'done' WHERE storeId = 1 AND number = 1")
            try db.execute(sql: "UPDATE reservation SET status = 'inside' WHERE storeId = 1 AND number = 2")
            #expect(try kept() == [1, 3])
            try db.execute(sql: "DELETE FROM reservation WHERE storeId = 2 AND number = 2")
            #expect(try kept() == [1, 1])
            #expect(try kept() == (try summed()))
            // The guard refuses from the kept count: store 1 holds 5 and has 1 inside.
            try add(1, 3, 2, "inside")
            try add(1, 4, 2, "inside")
            #expect(throws: DatabaseError.self) { try add(1, 5, 1, "inside") }
            try add(1, 5, 1, "waiting")
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "UPDATE reservation SET status = 'inside' WHERE storeId = 1 AND number = 5")
            }
            #expect(try kept() == [5, 1] && (try summed()) == [5, 1])
            // A store removed takes its count with it.
            try db.execute(sql: "DELETE FROM store WHERE id = 2")
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM storeInside WHERE storeId = 2") == 0)
        }
    }

    @Test("a database with people inside when the count began keeps counting from their sum")
    func insideCountedFromTheRowsOnUpgrade() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue, upTo: "v34: people inside summed from their index alone")
        try queue.write { db in
            try db.execute(sql: """
                INSERT INTO store (name, address, phone, latitude, longitude, capacity, timeZone)
                VALUES ('Bottega', 'Via Uno 1', '', 45.46, 9.19, 3, 'Europe/Rome');
                INSERT INTO reservation (storeId, kind, walkIn, day, number, people, residenceMinutes, status, createdAt)
                VALUES (1, 'lineUp', 1, 1, 1, 2, 30, 'inside', '2026-11-28 10:00:00.000'),
                       (1, 'lineUp', 1, 1, 2, 2, 30, 'waiting', '2026-11-28 10:00:00.000');
                """)
        }
        try AppDatabase.migrator.migrate(queue)
        try queue.write { db throws in
            #expect(try Int.fetchOne(db, sql: AppDatabase.peopleInsideSQL(storeId: StoreID(1)).sqlite.text, arguments: [1]) == 2)
            #expect(throws: DatabaseError.self) {
                try db.execute(sql: "UPDATE reservation SET status = 'inside' WHERE number = 2")
            }
        }
    }

    @Test("triggers guard invariants only: statistics are counted in Swift, by VisitAccounting")
    func noStatisticsTriggers() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue)
        let triggers = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        }
        // Capacity with the people inside it keeps, slot capacity, and the store's row of sums
        // and first signing key, made with the store.
        #expect(triggers == ["reservation_capacity", "reservation_capacityOnInsert", "reservation_insideOnDelete",
                             "reservation_insideOnInsert", "reservation_insideOnUpdate", "reservation_slotCapacity",
                             "store_load", "store_signingKey"])
    }
}
