import CLupSupport
import Foundation
import GRDB

/// The columns that hold personal data, sealed at rest with the data key (`Sealed`,
/// `LookupKey`), and how a row written before they were sealed is brought up to date. Both
/// engines seal old rows from this one list when a database is first opened with a key.
enum PersonalColumns {
    struct Table: Sendable {
        /// As SQL names it on both engines.
        var name: String
        /// Rows whose values are still in clear.
        var pending: String
        /// Columns sealed with the key (`DataKey.seal`).
        var sealed: [String]
        /// Columns set to a keyed hash of another column's plain value (or of their own,
        /// which the hash then replaces).
        var lookups: [(column: String, of: String, hash: @Sendable (String) -> String)] = []

        /// The columns read from a pending row, each once.
        var read: [String] {
            var names: [String] = []
            for name in sealed + lookups.map(\.of) where !names.contains(name) { names.append(name) }
            return names
        }

        /// The columns written back, in the order `values(plain:)` gives them.
        var written: [String] { lookups.map(\.column) + sealed.filter { name in !lookups.contains { $0.column == name } } }

        /// A pending row's new values, from its plain ones in `read`'s order.
        func values(plain: [String], key: DataKey) -> [String] {
            let byName = Dictionary(uniqueKeysWithValues: zip(read, plain))
            return lookups.map { $0.hash(byName[$0.of] ?? "") }
                + sealed.filter { name in !lookups.contains { $0.column == name } }.map { key.seal(byName[$0] ?? "") }
        }

        func select() -> String {
            "SELECT id, \(read.joined(separator: ", ")) FROM \(name) WHERE \(pending)"
        }
    }

    static let tables: [Table] = [
        Table(name: #""user""#, pending: "emailKey IS NULL", sealed: ["email", "displayName"],
              lookups: [("emailKey", "email", LookupKey.email)]),
        Table(name: "outboxMessage", pending: "substr(recipient, 1, 3) <> 's1:'", sealed: ["recipient", "subject", "body"],
              lookups: [("recipientKey", "recipient", LookupKey.recipient)]),
        Table(name: "doorAction", pending: "staffName IS NOT NULL AND substr(staffName, 1, 3) <> 's1:'",
              sealed: ["staffName"]),
        // What staff typed as a door action's reason; refusals and conflicts hold codes.
        Table(name: "doorAction",
              pending: "action NOT IN ('scanRefused', 'offlineConflict') AND reason <> '' AND substr(reason, 1, 3) <> 's1:'",
              sealed: ["reason"]),
        // The address of a manager or door staff added or removed.
        Table(name: "storeChange", pending: "field IN ('manager', 'doorStaff') AND substr(before, 1, 3) <> 's1:'",
              sealed: ["before"]),
        // The address support looked up, and why they acted.
        Table(name: "supportAction", pending: "substr(email, 1, 3) <> 's1:'", sealed: ["email", "reason"]),
        Table(name: "signInFailure", pending: "substr(account, 1, 3) <> 'k1:'", sealed: [],
              lookups: [("account", "account", LookupKey.account)]),
    ]

    /// What the key check holds, sealed: a database opened with another key fails to open it.
    static let checkText = "CLup data key check"

    /// A change log value, opened if it was sealed (a manager's address), as written otherwise.
    static func logValue(_ text: String) -> String {
        text.hasPrefix(DataKey.sealedPrefix) ? ProcessDataKey.current.open(text) ?? text : text
    }
}

extension AppDatabase {
    /// Checks `key` against the database (recording it on first use) and seals the personal
    /// values of rows written in clear before. When it sealed any, the space the plain
    /// values took is overwritten (`secure_delete`), the file rebuilt (VACUUM) and the WAL
    /// truncated, so no copy of them stays in the file. Returns how many rows it sealed.
    @discardableResult
    static func sealPersonalData(_ writer: any DatabaseWriter, key: DataKey) throws -> Int {
        try writer.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA secure_delete = ON")
            defer { try? db.execute(sql: "PRAGMA secure_delete = OFF") }
            var sealed = 0
            try db.inTransaction {
                if let check = try String.fetchOne(db, sql: "SELECT sealed FROM dataKeyCheck WHERE id = 1") {
                    guard key.open(check) == PersonalColumns.checkText else { throw DataKeyError.wrongKey }
                } else {
                    try db.execute(sql: "INSERT INTO dataKeyCheck (id, sealed) VALUES (1, ?)",
                                   arguments: [key.seal(PersonalColumns.checkText)])
                }
                for table in PersonalColumns.tables {
                    let update = try db.makeStatement(sql: """
                        UPDATE \(table.name) SET \(table.written.map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?
                        """)
                    for row in try Row.fetchAll(db, sql: table.select()) {
                        let plain = table.read.indices.map { (row[$0 + 1] as String?) ?? "" }
                        let id: Int64 = row[0]
                        let values: [any DatabaseValueConvertible] = table.values(plain: plain, key: key)
                        try update.execute(arguments: StatementArguments(values + [id]))
                        sealed += 1
                    }
                }
                return .commit
            }
            if sealed > 0 {
                try db.execute(sql: "VACUUM")
                if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" {
                    try db.checkpoint(.truncate)
                }
            }
            return sealed
        }
    }
}
