import Foundation
import GRDB
import Testing

@testable import CLupData

/// PostgreSQL's shipped migrations never change either: an empty database migrated from
/// nothing has exactly the catalog in `Schema/postgres.sql` (tables and columns with their
/// types, nullability and defaults; constraints; indexes; triggers and their functions). Run
/// with `CLUP_WRITE_SCHEMA=1` to write the file anew after adding a migration, and read its diff.
///
/// And the two engines keep the same schema: every table, column, index and constraint one has
/// and the other does not is listed in `Self.differences`, with its reason — a new table or
/// column added to one migration list and not the other fails here.
@Suite("PostgreSQL schema", .enabled(if: PostgresFixture.url != nil))
struct PostgresSchemaTests {
    static let snapshot = Fixture.root + "/Tests/CLupTests/Schema/postgres.sql"

    @Test("a database migrated from nothing has the committed schema")
    func fromNothing() throws {
        let database = try AppDatabase.open(url: try PostgresFixture.freshURL(), dataKey: .scratch)
        let schema = try Self.catalog(database)
        if ProcessInfo.processInfo.environment["CLUP_WRITE_SCHEMA"] == "1" {
            try schema.write(toFile: Self.snapshot, atomically: true, encoding: .utf8)
        }
        #expect(schema == (try String(contentsOfFile: Self.snapshot, encoding: .utf8)))
    }

    @Test("what one engine's schema has and the other's has not is each a known difference, with its reason")
    func parity() throws {
        let sqlite = try DatabaseQueue()
        try AppDatabase.migrator.migrate(sqlite)
        let postgres = try AppDatabase.open(url: try PostgresFixture.freshURL(), dataKey: .scratch)
        let (onSQLite, onPostgres) = (try Self.shape(sqlite), try Self.shape(postgres))
        let found = onSQLite.subtracting(onPostgres).map { "only on SQLite: \($0)" }
            + onPostgres.subtracting(onSQLite).map { "only on PostgreSQL: \($0)" }
        #expect(Set(found) == Set(Self.differences.keys), "\(found.sorted().joined(separator: "\n"))")
    }

    /// Each difference between the engines' schemas, and why it is one.
    static let differences: [String: String] = {
        let inside = "SQLite's capacity guard keeps each store's people inside in a row of its own (migration 35); "
            + "PostgreSQL's guard sums the rows under the store's lock, from `reservation_inside`"
        let versions = "SQLite's one writer applies every commit to its board before the next write begins; "
            + "PostgreSQL's workers learn whether their board holds a store as committed from the store's version"
        let covered = "PostgreSQL's index on the store and the time, or its primary key, leads with the column"
        var differences = [
            "only on SQLite: table storeinside": inside,
            "only on SQLite: column storeinside.storeid": inside,
            "only on SQLite: column storeinside.people": inside,
            "only on SQLite: foreign key storeinside.storeid -> store": inside,
            "only on SQLite: 1 checks on storeinside": inside,
            "only on PostgreSQL: index reservation_inside": inside,
            "only on PostgreSQL: index user_emailkey":
                "the same unique key on the address's keyed hash: a UNIQUE column on SQLite, an index named for the "
                + "error `AppDatabase.isDuplicate` reads on PostgreSQL",
            "only on SQLite: 2 checks on notice": "SQLite checks its integer booleans are 0 or 1 (emailOnly)",
            "only on PostgreSQL: table storeversion": versions,
            "only on PostgreSQL: column storeversion.storeid": versions,
            "only on PostgreSQL: column storeversion.version": versions,
            "only on PostgreSQL: column storeversion.changedby": versions,
            "only on PostgreSQL: foreign key storeversion.storeid -> store": versions,
            "only on PostgreSQL: 0 checks on storeversion": versions,
            "only on PostgreSQL: 1 checks on notice": "(the same: PostgreSQL's boolean needs no check)",
        ]
        for index in ["dooraction_on_storeid", "storechange_on_storeid", "openinginterval_on_storeid",
                      "storeclosure_on_storeid", "storehour_on_storeid", "storedepartmenthour_on_storeid",
                      "notice_on_reservationid", "reservationdepartment_on_reservationid", "managedstore_on_userid",
                      "pushsubscription_on_userid"]
        {
            differences["only on SQLite: index \(index)"] = covered
        }
        return differences
    }()

    // MARK: Reading the catalogs

    /// Tables with their columns, indexes by name, unique keys and foreign keys by their
    /// columns, and the number of CHECK constraints per table, all in lower case: what both
    /// engines can be compared on.
    static func shape(_ reader: some DatabaseReader) throws -> Set<String> {
        try reader.read { db in
            var shape: Set<String> = []
            let tables = try String.fetchAll(db, sql: """
                SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'grdb_migrations'
                """)
            for table in tables {
                let lower = table.lowercased()
                shape.insert("table \(lower)")
                for column in try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]) {
                    shape.insert("column \(lower).\(column.lowercased())")
                }
                for row in try Row.fetchAll(db, sql: "SELECT name, \"unique\", origin FROM pragma_index_list(?)",
                                            arguments: [table])
                {
                    let (index, unique, origin): (String, Bool, String) = (row[0], row[1], row[2])
                    let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno",
                                                      arguments: [index]).map { $0.lowercased() }
                    if origin == "c" { shape.insert("index \(index.lowercased())") }
                    if unique && origin != "pk" { shape.insert("unique \(lower)(\(columns.joined(separator: ", ")))") }
                }
                for row in try Row.fetchAll(db, sql: "SELECT \"from\", \"table\" FROM pragma_foreign_key_list(?)",
                                            arguments: [table])
                {
                    let (from, to): (String, String) = (row[0], row[1])
                    shape.insert("foreign key \(lower).\(from.lowercased()) -> \(to.lowercased())")
                }
                let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table]) ?? ""
                let checks = sql.matches(of: /(?i)\bCHECK\s*\(/).count
                shape.insert("\(checks) checks on \(lower)")
            }
            return shape
        }
    }

    static func shape(_ database: AppDatabase) throws -> Set<String> {
        var shape: Set<String> = []
        for line in try database.values(String.self, sql: """
            SELECT 'table ' || table_name FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_name <> 'schemamigration'
            UNION ALL
            SELECT 'column ' || table_name || '.' || column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name <> 'schemamigration'
            UNION ALL
            SELECT 'index ' || i.indexrelid::regclass::text FROM pg_index i
            JOIN pg_class t ON t.oid = i.indrelid AND t.relnamespace = current_schema()::regnamespace
            WHERE NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
            UNION ALL
            SELECT 'unique ' || t.relname || '(' || string_agg(a.attname, ', ' ORDER BY k.ordinality) || ')'
            FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid AND t.relnamespace = current_schema()::regnamespace
            CROSS JOIN unnest(i.indkey) WITH ORDINALITY AS k(attnum, ordinality)
            JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
            WHERE i.indisunique AND NOT i.indisprimary AND t.relname <> 'schemamigration'
            GROUP BY i.indexrelid, t.relname
            UNION ALL
            SELECT 'foreign key ' || t.relname || '.' || a.attname || ' -> ' || r.relname FROM pg_constraint c
            JOIN pg_class t ON t.oid = c.conrelid JOIN pg_class r ON r.oid = c.confrelid
            JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
            WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace
            UNION ALL
            SELECT COUNT(c.oid) || ' checks on ' || t.relname FROM pg_class t
            LEFT JOIN pg_constraint c ON c.conrelid = t.oid AND c.contype = 'c'
            WHERE t.relnamespace = current_schema()::regnamespace AND t.relkind = 'r' AND t.relname <> 'schemamigration'
            GROUP BY t.relname
            """) {
            if let line { shape.insert(line.lowercased()) }
        }
        return shape
    }

    /// The whole catalog of the database's schema, one item per line, in a stable order, with
    /// the schema's own name taken out of definitions.
    static func catalog(_ database: AppDatabase) throws -> String {
        let schema = try #require(try database.value(String.self, sql: "SELECT current_schema()"))
        let lines = try database.values(String.self, sql: """
            SELECT * FROM (
                SELECT 'table ' || table_name || ': ' || column_name || ' ' || data_type
                       || CASE WHEN is_nullable = 'NO' THEN ' NOT NULL' ELSE '' END
                       || COALESCE(' DEFAULT ' || column_default, '') AS line, 1 AS kind, table_name AS name,
                       ordinal_position AS position
                FROM information_schema.columns WHERE table_schema = current_schema()
                UNION ALL
                SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ': ' || pg_get_constraintdef(oid),
                       2, conrelid::regclass::text || conname, 0
                FROM pg_constraint WHERE connamespace = current_schema()::regnamespace
                UNION ALL
                SELECT 'index ' || indexname || ': ' || indexdef, 3, tablename || indexname, 0
                FROM pg_indexes WHERE schemaname = current_schema()
                UNION ALL
                SELECT 'trigger ' || t.tgname || ': ' || pg_get_triggerdef(t.oid), 4, t.tgname, 0
                FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace
                UNION ALL
                SELECT 'function ' || proname || ': ' || pg_get_functiondef(oid), 5, proname, 0
                FROM pg_proc WHERE pronamespace = current_schema()::regnamespace
            ) AS catalog ORDER BY kind, name, position, line
            """)
        return lines.compactMap { $0?.replacingOccurrences(of: schema + ".", with: "") }.joined(separator: "\n") + "\n"
    }
}
