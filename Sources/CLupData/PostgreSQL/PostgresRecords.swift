import CLupDomain
import Foundation

/// Ids travel as the `bigint` they wrap.
extension Identifier: PostgresDecodable {
    init(postgres bytes: UnsafeRawBufferPointer, type: UInt32) throws {
        self.init(rawValue: try Int64(postgres: bytes, type: type))
    }
}

extension PostgresRow {
    /// The row as one of CLup's records, through its `Codable` conformance, as GRDB reads
    /// the same records from SQLite: each coding key is a column, by the name PostgreSQL gave
    /// it (folded to lower case, as the schema's unquoted names are).
    func record<Record: Decodable>(_ type: Record.Type = Record.self) throws -> Record {
        try Record(from: PostgresRowDecoder(row: self))
    }
}

/// Reads a record's fields from a row's cells: strings, numbers, booleans and dates as
/// `PostgresDecodable` reads them, and anything else (raw-value enums, sealed values) through
/// its own `Decodable` conformance over the cell.
private struct PostgresRowDecoder: Decoder {
    let row: PostgresRow
    var codingPath: [any CodingKey] = []
    var userInfo: [CodingUserInfoKey: Any] = [:]

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Columns(row: row))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: codingPath, debugDescription: "a row is keyed"))
    }

    /// The row as one value: what `Optional<Record>` asks for before it decodes the record.
    func singleValueContainer() throws -> any SingleValueDecodingContainer { WholeRow(row: row) }

    struct WholeRow: SingleValueDecodingContainer {
        let row: PostgresRow
        var codingPath: [any CodingKey] { [] }
        func decodeNil() -> Bool { false }
        func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: PostgresRowDecoder(row: row)) }
    }

    struct Columns<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let row: PostgresRow
        var codingPath: [any CodingKey] { [] }
        var allKeys: [Key] { row.columnNames.compactMap { Key(stringValue: $0) } }

        private func cell(_ key: Key) throws -> PostgresCell {
            guard let cell = row.cell(named: key.stringValue) else {
                throw DecodingError.keyNotFound(key, .init(codingPath: [key], debugDescription: "no column \(key.stringValue)"))
            }
            return cell
        }

        func contains(_ key: Key) -> Bool { row.cell(named: key.stringValue) != nil }

        func decodeNil(forKey key: Key) throws -> Bool { try cell(key).bytes == nil }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            try Cell(cell: cell(key), codingPath: [key]).decode(T.self)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            throw DecodingError.typeMismatch(Any.self, .init(codingPath: [key], debugDescription: "a column holds one value"))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch(Any.self, .init(codingPath: [key], debugDescription: "a column holds one value"))
        }

        func superDecoder() throws -> any Decoder { PostgresRowDecoder(row: row) }
        func superDecoder(forKey key: Key) throws -> any Decoder { PostgresRowDecoder(row: row) }
    }

    /// One cell, as a decoder of a single value.
    struct Cell: Decoder, SingleValueDecodingContainer {
        let cell: PostgresCell
        let codingPath: [any CodingKey]
        var userInfo: [CodingUserInfoKey: Any] { [:] }

        func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
            throw DecodingError.typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "a cell is one value"))
        }

        func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
            throw DecodingError.typeMismatch(Any.self, .init(codingPath: codingPath, debugDescription: "a cell is one value"))
        }

        func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

        func decodeNil() -> Bool { cell.bytes == nil }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if let decodable = T.self as? any PostgresDecodable.Type {
                return try Self.decode(decodable, from: cell) as! T
            }
            return try T(from: self)
        }

        private static func decode<D: PostgresDecodable>(_ type: D.Type, from cell: PostgresCell) throws -> D {
            try cell.decode(D.self)
        }
    }
}
