import CLupDomain
import Foundation
import GRDB

/// A statement with its values bound where they are written, rendered for either engine:
/// `"SELECT … WHERE id = \(id)"` binds `id` as a parameter (`?` on SQLite, `$1` on
/// PostgreSQL), never as text. The SQL itself is the dialect both engines speak — unquoted
/// names, `"user"` for the account table, `RETURNING`, `ON CONFLICT` — and the few words they
/// spell differently are pieces of their own (`SQL.forUpdate`, `SQL.greatest`, `\(in:)`).
struct SQL: ExpressibleByStringInterpolation, Sendable {
    fileprivate enum Piece: Sendable {
        case text(String)
        case value(any SQLArgument)
        /// A list of values compared with `IN`.
        case list([any SQLArgument])
        /// Values separated by commas (a row's values).
        case values([any SQLArgument])
        /// A word each engine spells its own way.
        case word(sqlite: String, postgres: String)
        /// A whole statement written once with `?` placeholders, and its values.
        case template(SQLTemplate, [any SQLArgument])
    }

    fileprivate var pieces: [Piece]

    init(stringLiteral text: String) { pieces = [.text(text)] }

    init(stringInterpolation: StringInterpolation) { pieces = stringInterpolation.pieces }

    fileprivate init(pieces: [Piece]) { self.pieces = pieces }

    /// `text` with its `?` placeholders bound to `arguments` in order: the form the tests and
    /// tools write statements in (`AppDatabase.execute(sql:)`).
    init(_ text: String, arguments: [any SQLArgument]) {
        var pieces: [Piece] = []
        var arguments = arguments.makeIterator()
        var literal = ""
        for character in text {
            if character == "?", let argument = arguments.next() {
                pieces.append(.text(literal))
                pieces.append(.value(argument))
                literal = ""
            } else {
                literal.append(character)
            }
        }
        pieces.append(.text(literal))
        self.pieces = pieces
    }

    struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var pieces: [Piece] = []

        init(literalCapacity: Int, interpolationCount: Int) {}

        mutating func appendLiteral(_ literal: String) { pieces.append(.text(literal)) }

        /// A value, bound as a parameter.
        mutating func appendInterpolation(_ value: some SQLArgument) { pieces.append(.value(value)) }

        /// A value or NULL.
        mutating func appendInterpolation<Value: SQLArgument>(_ value: Value?) { pieces.append(.value(value)) }

        /// Text of the program's own (a list of columns, a fragment written in code): never a
        /// value that came from outside.
        mutating func appendInterpolation(unescaped text: String) { pieces.append(.text(text)) }

        /// A statement's fragment, with its values.
        mutating func appendInterpolation(_ fragment: SQL) { pieces += fragment.pieces }

        /// `IN (…)` with one parameter per value; an empty list matches nothing.
        mutating func appendInterpolation(in values: [some SQLArgument]) { pieces.append(.list(values)) }

        /// The values, each a parameter, separated by commas.
        mutating func appendInterpolation(values: [some SQLArgument]) { pieces.append(.values(values)) }
    }

    /// The two statements' text and values, one after the other.
    static func + (lhs: SQL, rhs: SQL) -> SQL { SQL(pieces: lhs.pieces + rhs.pieces) }

    /// SQLite's `INDEXED BY index`, which makes its planner use the index named; nothing on
    /// PostgreSQL, whose planner has the statistics to choose.
    static func indexedBy(_ index: String) -> SQL {
        SQL(pieces: [.word(sqlite: "INDEXED BY \(index)", postgres: "")])
    }

    /// An inner join that SQLite's planner must take in the order written (its `CROSS JOIN`);
    /// a plain `JOIN` on PostgreSQL.
    static let joinInOrder = SQL(pieces: [.word(sqlite: "CROSS JOIN", postgres: "JOIN")])

    /// A boolean column's truth as the engine's partial indexes spell it (`column = 1` on
    /// SQLite, where booleans are integers; the column itself on PostgreSQL), so the planner
    /// can match the index.
    static func isTrue(_ column: String) -> SQL {
        SQL(pieces: [.word(sqlite: "\(column) = 1", postgres: column)])
    }

    /// Milliseconds since 1970 of a time column, to the nearest, as an integer: worked out by
    /// the engine, from SQLite's text (`julianday`) or PostgreSQL's `timestamptz`.
    static func epochMilliseconds(_ column: String) -> SQL {
        SQL(pieces: [.word(sqlite: "CAST(ROUND((julianday(\(column)) - 2440587.5) * 86400000.0) AS INTEGER)",
                           postgres: "CAST(ROUND(EXTRACT(EPOCH FROM \(column)) * 1000) AS BIGINT)")])
    }

    /// `FOR UPDATE` on PostgreSQL, which locks the rows a write transaction reads until it ends;
    /// nothing on SQLite, whose one writer already keeps every other transaction out.
    static let forUpdate = SQL(pieces: [.word(sqlite: "", postgres: "FOR UPDATE")])

    /// `FOR UPDATE SKIP LOCKED` on PostgreSQL: a job claim takes the rows no other worker is
    /// claiming at this moment rather than wait for them; nothing on SQLite (one writer).
    static let forUpdateSkipLocked = SQL(pieces: [.word(sqlite: "", postgres: "FOR UPDATE SKIP LOCKED")])

    /// The larger of two values: SQLite's two-argument `MAX`, PostgreSQL's `GREATEST`.
    static let greatest = SQL(pieces: [.word(sqlite: "MAX", postgres: "GREATEST")])

    /// The smaller of two values: SQLite's two-argument `MIN`, PostgreSQL's `LEAST`.
    static let least = SQL(pieces: [.word(sqlite: "MIN", postgres: "LEAST")])

    /// `template` with its placeholders bound to `arguments` in order: for a statement run so
    /// often that building its text each time shows (a visit's hour, counted at every change of
    /// status and thousands of times over by a rebuild).
    init(_ template: SQLTemplate, _ arguments: [any SQLArgument]) {
        pieces = [.template(template, arguments)]
    }

    /// Whether the statement's text is the same whatever its values (no `IN` list): only such
    /// statements are worth keeping prepared.
    var hasFixedText: Bool {
        !pieces.contains { if case .list = $0 { true } else { false } }
    }

    /// The text with `?` placeholders, and the values in their order: SQLite's form.
    var sqlite: (text: String, arguments: StatementArguments) {
        var text = ""
        var values: [DatabaseValue] = []
        for piece in pieces {
            switch piece {
            case .text(let literal): text += literal
            case .value(let value):
                text += "?"
                values.append(value.sqliteValue)
            case .list(let list):
                text += list.isEmpty ? "IN (NULL)" : "IN (" + Array(repeating: "?", count: list.count).joined(separator: ",") + ")"
                values += list.map(\.sqliteValue)
            case .values(let list):
                text += Array(repeating: "?", count: list.count).joined(separator: ", ")
                values += list.map(\.sqliteValue)
            case .word(let sqlite, _): text += sqlite
            case .template(let template, let arguments):
                text += template.sqlite
                values += arguments.map(\.sqliteValue)
            }
        }
        return (text, StatementArguments(values))
    }

    /// The text with `$1, $2…` placeholders and the values bound: PostgreSQL's form, prepared
    /// on the connection if its text is the same whatever the values (`hasFixedText`).
    var postgres: PostgresStatement {
        var text = ""
        var parameters: [PostgresParameter] = []
        func bind(_ value: any SQLArgument) -> String {
            parameters.append(value.postgresParameter)
            return "$\(parameters.count)"
        }
        for piece in pieces {
            switch piece {
            case .text(let literal): text += literal
            case .value(let value): text += bind(value)
            case .list(let list):
                text += list.isEmpty ? "IN (NULL)" : "IN (" + list.map(bind).joined(separator: ",") + ")"
            case .values(let list): text += list.map(bind).joined(separator: ", ")
            case .word(_, let postgres): text += postgres
            case .template(let template, let arguments):
                precondition(parameters.isEmpty && pieces.count == 1, "a template is a whole statement")
                text += template.postgres
                parameters = arguments.map(\.postgresParameter)
            }
        }
        return PostgresStatement(text: text, parameters: parameters, prepare: hasFixedText)
    }
}

/// A statement written once with `?` placeholders (and no values), rendered for each engine
/// once: SQLite's text as it is, PostgreSQL's with its words and the placeholders numbered.
struct SQLTemplate: Sendable {
    let sqlite: String
    let postgres: String

    init(_ statement: SQL) {
        sqlite = statement.sqlite.text
        var numbered = ""
        var count = 0
        for character in statement.postgres.text {
            if character == "?" {
                count += 1
                numbered += "$\(count)"
            } else {
                numbered.append(character)
            }
        }
        postgres = numbered
    }
}

extension Sequence<SQL> {
    /// The fragments one after the other, `separator` between each two.
    func joined(separator: String) -> SQL {
        var pieces: [SQL.Piece] = []
        for (index, fragment) in enumerated() {
            if index > 0 { pieces.append(.text(separator)) }
            pieces += fragment.pieces
        }
        return SQL(pieces: pieces)
    }
}

/// One row a statement returned, on either engine: its cells by position, or the whole row
/// as one of CLup's records.
struct SQLRow {
    fileprivate enum Storage {
        case sqlite(Row)
        case postgres(PostgresRow)
    }

    fileprivate let storage: Storage

    init(_ row: Row) { storage = .sqlite(row) }
    init(_ row: PostgresRow) { storage = .postgres(row) }

    /// The cell at `index` as `Value`, nil for NULL.
    func value<Value: SQLResult>(_ index: Int, as type: Value.Type = Value.self) throws -> Value? {
        switch storage {
        case .sqlite(let row):
            let cell = row[index] as DatabaseValue
            if cell.isNull { return nil }
            guard let value = Value.fromDatabaseValue(cell) else {
                throw DecodingError.typeMismatch(Value.self, .init(codingPath: [], debugDescription: "column \(index): \(cell)"))
            }
            return value
        case .postgres(let row):
            return try AppDatabase.decode(row[index], as: Value.self)
        }
    }

    /// The cell at `index` as `Value`; NULL is an error.
    func decode<Value: SQLResult>(_ index: Int, as type: Value.Type = Value.self) throws -> Value {
        guard let value = try value(index, as: Value.self) else { throw Self.null(Value.self, index) }
        return value
    }

    /// The cell at `index` as a number, a string or an id, nil for NULL: on SQLite read straight
    /// from the statement's column (GRDB's fast path), which a pass over a history of a million
    /// visits, or a statistics page's thousand hours, reads many times over.
    func value<Value: SQLResult & StatementColumnConvertible>(_ index: Int, as type: Value.Type = Value.self) throws
        -> Value?
    {
        switch storage {
        case .sqlite(let row): row[index] as Value?
        case .postgres(let row): try AppDatabase.decode(row[index], as: Value.self)
        }
    }

    /// The same, NULL an error.
    func decode<Value: SQLResult & StatementColumnConvertible>(_ index: Int, as type: Value.Type = Value.self) throws
        -> Value
    {
        guard let value = try value(index, as: Value.self) else { throw Self.null(Value.self, index) }
        return value
    }

    private static func null(_ type: Any.Type, _ index: Int) -> DecodingError {
        DecodingError.valueNotFound(type, .init(codingPath: [], debugDescription: "column \(index) is NULL"))
    }

    /// The cell at `index` as a raw-value enum (a role, a status).
    func decodeRaw<Value: RawRepresentable>(_ index: Int, as type: Value.Type = Value.self) throws -> Value
    where Value.RawValue == String {
        let raw = try decode(index, as: String.self)
        guard let value = Value(rawValue: raw) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "column \(index): \(raw)"))
        }
        return value
    }

    /// The row as a record, column by column through its `Codable` conformance (GRDB's own
    /// decoding on SQLite).
    func record<Record: SQLRecord>(_ type: Record.Type = Record.self) throws -> Record {
        switch storage {
        case .sqlite(let row): try Record(row: row)
        case .postgres(let row): try row.record(Record.self)
        }
    }
}

/// A record both engines read: GRDB's decoding on SQLite, `Decodable` on PostgreSQL.
typealias SQLRecord = FetchableRecord & Decodable
