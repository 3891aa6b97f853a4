import CLupDomain
import Foundation
import GRDB

/// Moving a deployment from SQLite to PostgreSQL (`clup copy-to-postgres`): every row of
/// every table, ids kept, in one PostgreSQL transaction, so a copy that fails leaves the
/// target as empty as it was.
extension AppDatabase {
    /// Why a copy was refused before anything was written.
    public struct CopyRefused: Error, CustomStringConvertible {
        public var description: String
    }

    /// The tables in an order that satisfies every foreign key. Not `storeInside`: SQLite's
    /// capacity guard keeps it from the reservations, where PostgreSQL's sums them under the
    /// store's lock.
    static let tablesInCopyOrder = [
        "store", "openingInterval", "storeClosure", "department", "user", "session", "emailToken", "signInFailure",
        "managedStore", "kiosk", "staffPin", "reservation", "reservationDepartment", "notice", "outboxMessage",
        "pushSubscription", "pushMessage", "storeChange", "doorAction", "formReply", "scanReceipt", "storeSigningKey",
        "ticketBlock", "storeHour", "storeDepartmentHour", "storeLoad", "maintenanceWindow", "waitlist", "waitlistNotice",
        "mailPace", "kioskContact", "doorLease", "walkInContact", "maintenanceNotice", "doorStaff", "doorPin", "supportAction",
        "storeGroup", "storeGroupMember", "groupManager", "storeRetirement", "specialHours",
    ]

    /// Copies this SQLite database into `target`, a PostgreSQL database with no stores yet;
    /// returns each table's row count. Nobody should write to this database meanwhile (stop
    /// the worker first): the copy reads one snapshot of it.
    public func copy(to target: AppDatabase) throws -> [(table: String, rows: Int)] {
        guard let postgres = target.postgres else { throw CopyRefused(description: "the target is not PostgreSQL") }
        guard self.postgres == nil else { throw CopyRefused(description: "the source is not SQLite") }
        return try reader.read { db in
            let reservationSequence = try Int64.fetchOne(db, sql: """
                SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'reservation'), 0),
                           COALESCE((SELECT MAX(id) FROM reservation), 0))
                """) ?? 0
            let counts = try postgres.write { transaction -> [(table: String, rows: Int)] in
                // Nothing else writes to the target meanwhile; a target in use is refused.
                try transaction.execute("LOCK TABLE store IN EXCLUSIVE MODE")
                guard try transaction.value("SELECT COUNT(*) FROM store", as: Int.self) == 0 else {
                    throw CopyRefused(description: "the PostgreSQL database has stores already: copy into an empty one")
                }
                var counts: [(table: String, rows: Int)] = []
                for table in Self.tablesInCopyOrder {
                    // What copying the stores made (their learned sums, their first key) gives
                    // way to the rows copied.
                    if table == "storeLoad" || table == "storeSigningKey" {
                        try transaction.execute("DELETE FROM \(unescaped: table)")
                    }
                    counts.append((table, try Self.copy(table: table, from: db, to: transaction)))
                }
                for table in ["store", "department", "user", "kiosk", "reservation", "notice", "outboxMessage",
                              "pushSubscription", "pushMessage", "storeChange", "doorAction", "signInFailure",
                              "ticketBlock", "maintenanceWindow", "waitlist", "waitlistNotice", "maintenanceNotice",
                              "supportAction", "storeGroup"]
                {
                    let quoted = table == "user" ? "\"user\"" : table
                    let last = table == "reservation" ? reservationSequence : 0
                    try transaction.execute(SQL(stringLiteral: """
                        SELECT setval(pg_get_serial_sequence('\(quoted)', 'id'),
                                      GREATEST((SELECT COALESCE(MAX(id), 0) FROM \(quoted)), \(last), 1))
                        """))
                }
                return counts
            }
            try postgres.reloadBoard()
            return counts
        }
    }

    /// Copies one table, converting each value to the target column's type (SQLite keeps
    /// dates as text and booleans as integers); returns how many rows.
    private static func copy(table: String, from db: Database, to transaction: PostgresTransaction) throws -> Int {
        let quoted = table == "user" ? "\"user\"" : table
        var types: [String: String] = [:]
        for row in try transaction.rows("""
            SELECT column_name, data_type FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = \(table.lowercased())
            """)
        {
            types[try row[0].decode(String.self)] = try row[1].decode(String.self)
        }
        let columns = try db.columns(in: table).map(\.name)
        guard !columns.isEmpty, columns.allSatisfy({ types[$0.lowercased()] != nil }) else {
            throw CopyRefused(description: "table \(table) differs between the two schemas; upgrade both first")
        }
        // Rows go in a few hundred to a statement: one round trip each (PostgreSQL takes
        // at most 65,535 values in one).
        let perStatement = 500
        func insert(_ rows: Int, _ bindings: [PostgresParameter]) throws {
            let tuples = (0..<rows).map { row in
                "(" + columns.indices.map { "$\(row * columns.count + $0 + 1)" }.joined(separator: ", ") + ")"
            }
            _ = try transaction.connection.run(PostgresStatement(text: """
                INSERT INTO \(quoted) (\(columns.joined(separator: ", "))) VALUES \(tuples.joined(separator: ", "))
                """, parameters: bindings, prepare: false), deadline: .now + .seconds(60))
        }
        var count = 0
        var pending = 0
        var bindings: [PostgresParameter] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(quoted)")
        while let row = try rows.next() {
            for (index, column) in columns.enumerated() {
                let value: DatabaseValue = row[index]
                try bind(value, as: types[column.lowercased()] ?? "text", column: "\(table).\(column)", to: &bindings)
            }
            pending += 1
            count += 1
            if pending == perStatement {
                try insert(pending, bindings)
                (pending, bindings) = (0, [])
            }
        }
        if pending > 0 { try insert(pending, bindings) }
        return count
    }

    private static func bind(_ value: DatabaseValue, as type: String, column: String,
                             to bindings: inout [PostgresParameter]) throws
    {
        func parameter(_ read: (some SQLArgument)?) throws -> PostgresParameter {
            guard let read else { throw unreadable(column, value: value) }
            return read.postgresParameter
        }
        if value.isNull { return bindings.append(.null(0)) }
        switch type {
        case "bigint", "integer": bindings.append(try parameter(Int64.fromDatabaseValue(value)))
        case "double precision": bindings.append(try parameter(Double.fromDatabaseValue(value)))
        case "boolean": bindings.append(try parameter(Bool.fromDatabaseValue(value)))
        case "timestamp with time zone": bindings.append(try parameter(Date.fromDatabaseValue(value)))
        default: bindings.append(try parameter(String.fromDatabaseValue(value)))
        }
    }

    private static func unreadable(_ column: String, value: DatabaseValue) -> CopyRefused {
        let kind = switch value.storage {
        case .int64: "an integer"
        case .double: "a real number"
        case .string: "text"
        case .blob: "bytes"
        case .null: "nothing"
        }
        return CopyRefused(description: "\(column) holds \(kind), not what PostgreSQL's column takes; nothing was copied")
    }
}
