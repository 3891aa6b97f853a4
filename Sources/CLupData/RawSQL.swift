import CLupDomain
import Foundation
import GRDB
import PostgresNIO

/// A value bound to a raw statement, on either engine.
protocol SQLArgument: Sendable {
    var databaseValue: DatabaseValue { get }
    func bind(to bindings: inout PostgresBindings)
}

extension SQLArgument where Self: PostgresNonThrowingEncodable {
    func bind(to bindings: inout PostgresBindings) { bindings.append(self) }
}

extension Int: SQLArgument {}
extension Int64: SQLArgument {}
extension Double: SQLArgument {}
extension String: SQLArgument {}
extension Bool: SQLArgument {}
extension Date: SQLArgument {}
extension Identifier: SQLArgument {}

extension Optional: SQLArgument where Wrapped: SQLArgument {
    var databaseValue: DatabaseValue { self?.databaseValue ?? .null }

    func bind(to bindings: inout PostgresBindings) {
        if let self { self.bind(to: &bindings) } else { bindings.appendNull() }
    }
}

/// A value read back from a raw statement, on either engine.
typealias SQLResult = DatabaseValueConvertible & PostgresDecodable

/// Statements written out, beneath the named methods: for the tests that look at the rows
/// themselves (what was kept, what was deleted) or break something on purpose, for tools, and
/// for a named read of one statement, written once here for both engines (`pushLost`).
/// `?` placeholders on both engines; the SQL must be of the dialect both speak (unquoted
/// names, and `"user"` for the account table).
extension AppDatabase {
    /// Runs `sql` in a transaction of its own; returns how many rows it changed. The board
    /// follows: SQLite's observer sees every row changed; on PostgreSQL it is read again whole
    /// (unless the statement left it unreadable — a table dropped on purpose).
    @discardableResult
    func execute(sql: String, _ arguments: any SQLArgument...) throws -> Int {
        if let postgres {
            let query = Self.postgresQuery(sql, arguments)
            let changed = try postgres.write { transaction in try transaction.execute(query) }
            try? postgres.reloadBoard()
            return changed
        }
        return try writer.write { db in
            try db.execute(sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
            return db.changesCount
        }
    }

    /// The first column of every row `sql` returns.
    func values<Value: SQLResult>(_ type: Value.Type = Value.self, sql: String, _ arguments: any SQLArgument...) throws
        -> [Value?]
    {
        if let postgres {
            let query = Self.postgresQuery(sql, arguments)
            return try postgres.read { transaction in try transaction.rows(query).map { try Self.decode($0[0], as: Value.self) } }
        }
        return try reader.read { db in
            try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue))).map {
                Value.fromDatabaseValue($0[0] as DatabaseValue)
            }
        }
    }

    /// The first column of the first row `sql` returns, or nil.
    func value<Value: SQLResult>(_ type: Value.Type = Value.self, sql: String, _ arguments: any SQLArgument...) throws
        -> Value?
    {
        if let postgres {
            let query = Self.postgresQuery(sql, arguments)
            return try postgres.read { transaction in try transaction.row(query).flatMap { try Self.decode($0[0], as: Value.self) } }
        }
        return try reader.read { db in
            try Row.fetchOne(db, sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
                .flatMap { Value.fromDatabaseValue($0[0] as DatabaseValue) }
        }
    }

    /// The store's learned sums as kept (for tests and tools; the board holds their model).
    func storeLoad(_ storeId: StoreID) throws -> StoreLoad? {
        if let postgres {
            return try postgres.read { transaction in
                try transaction.row("SELECT * FROM storeLoad WHERE storeId = \(storeId)")?.record(StoreLoad.self)
            }
        }
        return try reader.read { db in try StoreLoad.find(storeId, db) }
    }

    /// A cell as `Value`, nil for NULL.
    static func decode<Value: SQLResult>(_ cell: PostgresCell, as type: Value.Type) throws -> Value? {
        cell.bytes == nil ? nil : try cell.decode(Value.self)
    }

    /// `sql` with its `?` placeholders numbered as PostgreSQL's ($1, $2…), and its arguments bound.
    static func postgresQuery(_ sql: String, _ arguments: [any SQLArgument]) -> PostgresQuery {
        var numbered = ""
        var index = 0
        for character in sql {
            if character == "?" {
                index += 1
                numbered += "$\(index)"
            } else {
                numbered.append(character)
            }
        }
        var bindings = PostgresBindings()
        for argument in arguments { argument.bind(to: &bindings) }
        return PostgresQuery(unsafeSQL: numbered, binds: bindings)
    }
}
