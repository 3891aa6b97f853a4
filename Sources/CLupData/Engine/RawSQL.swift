import CLupDomain
import Foundation
import GRDB

/// A value bound to a raw statement, on either engine.
protocol SQLArgument: Sendable {
    var databaseValue: DatabaseValue { get }
    /// The value as SQLite is given it: `databaseValue`, but for dates, written by
    /// `databaseText` (the same text, without Foundation's formatter).
    var sqliteValue: DatabaseValue { get }
    /// The value as PostgreSQL is sent it: typed, in binary.
    var postgresParameter: PostgresParameter { get }
    /// Its PostgreSQL type, which a NULL of it is sent as.
    static var postgresType: UInt32 { get }
}

extension SQLArgument {
    var sqliteValue: DatabaseValue { databaseValue }
}

extension Int: SQLArgument {
    var postgresParameter: PostgresParameter { PostgresParameter(Int64(self)) }
    static var postgresType: UInt32 { PostgresParameter.int8 }
}
extension Int64: SQLArgument {
    var postgresParameter: PostgresParameter { PostgresParameter(self) }
    static var postgresType: UInt32 { PostgresParameter.int8 }
}
extension Double: SQLArgument {
    var postgresParameter: PostgresParameter { PostgresParameter(self) }
    static var postgresType: UInt32 { PostgresParameter.float8 }
}
extension String: SQLArgument {
    var postgresParameter: PostgresParameter { PostgresParameter(self) }
    static var postgresType: UInt32 { PostgresParameter.text }
}
extension Bool: SQLArgument {
    var postgresParameter: PostgresParameter { PostgresParameter(self) }
    static var postgresType: UInt32 { PostgresParameter.bool }
}
extension Date: SQLArgument {
    var sqliteValue: DatabaseValue { databaseText.databaseValue }
    var postgresParameter: PostgresParameter { PostgresParameter(self) }
    static var postgresType: UInt32 { PostgresParameter.timestamptz }
}
extension Identifier: SQLArgument {
    var postgresParameter: PostgresParameter { PostgresParameter(rawValue) }
    static var postgresType: UInt32 { PostgresParameter.int8 }
}

extension Optional: SQLArgument where Wrapped: SQLArgument {
    var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
    var sqliteValue: DatabaseValue { self?.sqliteValue ?? .null }
    var postgresParameter: PostgresParameter { self?.postgresParameter ?? .null(Wrapped.postgresType) }
    static var postgresType: UInt32 { Wrapped.postgresType }
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
        let changed = try transaction { transaction in try transaction.execute(SQL(sql, arguments: arguments)) }
        if case .postgres(let postgres) = engine { try? postgres.reloadBoard() }
        return changed
    }

    /// The first column of every row `sql` returns.
    func values<Value: SQLResult>(_ type: Value.Type = Value.self, sql: String, _ arguments: any SQLArgument...) throws
        -> [Value?]
    {
        try reading { transaction in try transaction.column(SQL(sql, arguments: arguments), as: Value.self) }
    }

    /// The first column of the first row `sql` returns, or nil.
    func value<Value: SQLResult>(_ type: Value.Type = Value.self, sql: String, _ arguments: any SQLArgument...) throws
        -> Value?
    {
        try reading { transaction in try transaction.value(SQL(sql, arguments: arguments), as: Value.self) }
    }

    /// The store's learned sums as kept (for tests and tools; the board holds their model).
    func storeLoad(_ storeId: StoreID) throws -> StoreLoad? {
        try reading { transaction in try transaction.record("SELECT * FROM storeLoad WHERE storeId = \(storeId)") }
    }

    /// A cell as `Value`, nil for NULL.
    static func decode<Value: SQLResult>(_ cell: PostgresCell, as type: Value.Type) throws -> Value? {
        cell.bytes == nil ? nil : try cell.decode(Value.self)
    }
}
