import Foundation
import GRDB
import Testing

@testable import CLupData

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

    @Test("`copy-to-postgres` copies every table but the key check, which belongs to each database's key")
    func everyTableCopied() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue)
        let tables = try queue.read { db in
            try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
                AND name NOT IN ('grdb_migrations', 'dataKeyCheck') ORDER BY name
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
        let plan = try queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + AppDatabase.bookedPeopleSQL,
                             arguments: [1, "2026-11-27 10:00:00.000", "2026-11-27 10:15:00.000"])
                .map { $0["detail"] as String }
        }
        #expect(plan == ["SEARCH reservation USING COVERING INDEX reservation_bookedByStore "
                            + "(storeId=? AND slotStart>? AND slotStart<?)"])
    }

    @Test("a store's people inside are summed from an index alone, on every entry, not from the rows")
    func insideSumsFromTheIndex() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue)
        let plan = try queue.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + AppDatabase.peopleInsideSQL, arguments: [1])
                .map { $0["detail"] as String }
        }
        #expect(plan == ["SEARCH reservation USING COVERING INDEX reservation_inside (storeId=?)"])
        // The capacity trigger sums them with the same query.
        let trigger = try queue.read { db in
            try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = 'reservation_capacity'")
        }
        #expect(trigger?.contains("SELECT COALESCE(SUM(people), 0) FROM reservation\n"
                                  + "                    WHERE storeId = NEW.storeId AND status = 'inside'") == true)
    }

    @Test("triggers guard invariants only: statistics are counted in Swift, by VisitAccounting")
    func noStatisticsTriggers() throws {
        let queue = try DatabaseQueue()
        try AppDatabase.migrator.migrate(queue)
        let triggers = try queue.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name")
        }
        // Capacity, slot capacity, and the store's row of sums and first signing key, made with the store.
        #expect(triggers == ["reservation_capacity", "reservation_capacityOnInsert", "reservation_slotCapacity",
                             "store_load", "store_signingKey"])
    }
}
