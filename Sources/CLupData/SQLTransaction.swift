import Foundation
import GRDB
import PostgresNIO

/// A write transaction's statements, the same for both engines: `?` placeholders with their
/// values bound in order (`SQLArgument`), in the SQL both speak (unquoted names, and `"user"`
/// for the account table). What the engines do differently is a step of its own here, never a
/// branch in a transaction written over it.
///
/// The first transactions written once are the outbox's (`AppDatabase.enqueue`, `insert`) and
/// the statements both engines ran alike; the others move here area by area
/// (docs/architecture.md, "A new transaction").
protocol SQLTransaction {
    /// Runs `sql`; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: String, _ arguments: [any SQLArgument]) throws -> Int

    /// The first column of every row `sql` returns.
    func column<Value: SQLResult>(_ sql: String, _ arguments: [any SQLArgument], as type: Value.Type) throws -> [Value?]

    /// Waits until no other transaction holds `key` in `space`, and holds it until this one
    /// ends. PostgreSQL takes an advisory transaction lock: two workers may decide the same
    /// thing at once. SQLite does nothing: its one writer already runs transactions one at a time.
    func serialize(_ key: String, in space: Int64) throws

    /// Notes that the transaction changed what the credential cache keeps (an account's row, a
    /// session). SQLite's observer sees every change by itself; PostgreSQL's workers are told.
    func changedCredentials()
}

extension SQLTransaction {
    /// The first column of the first row `sql` returns, or nil.
    func value<Value: SQLResult>(_ sql: String, _ arguments: [any SQLArgument], as type: Value.Type = Value.self)
        throws -> Value?
    {
        try column(sql, arguments, as: type).first ?? nil
    }
}

extension Database: SQLTransaction {
    func execute(_ sql: String, _ arguments: [any SQLArgument]) throws -> Int {
        try execute(sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
        return changesCount
    }

    func column<Value: SQLResult>(_ sql: String, _ arguments: [any SQLArgument], as type: Value.Type) throws -> [Value?] {
        try Row.fetchAll(self, sql: sql, arguments: StatementArguments(arguments.map(\.databaseValue))).map {
            Value.fromDatabaseValue($0[0] as DatabaseValue)
        }
    }

    func serialize(_ key: String, in space: Int64) throws {}

    func changedCredentials() {}
}

extension PostgresTransaction: SQLTransaction {
    func execute(_ sql: String, _ arguments: [any SQLArgument]) throws -> Int {
        try execute(AppDatabase.postgresQuery(sql, arguments))
    }

    func column<Value: SQLResult>(_ sql: String, _ arguments: [any SQLArgument], as type: Value.Type) throws -> [Value?] {
        try rows(AppDatabase.postgresQuery(sql, arguments)).map { try AppDatabase.decode($0[0], as: type) }
    }

    func serialize(_ key: String, in space: Int64) throws {
        try execute("SELECT pg_advisory_xact_lock(hashtextextended(\(key), \(space)))")
    }
}
