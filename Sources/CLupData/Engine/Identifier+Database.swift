import CLupDomain
import GRDB

/// Ids are stored as the integer they wrap, read and bound like any `Int64` column, and read
/// straight from the statement as `Int64` is.
extension Identifier: DatabaseValueConvertible, StatementColumnConvertible {
    public var databaseValue: DatabaseValue { rawValue.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Self? {
        Int64.fromDatabaseValue(dbValue).map(Self.init(rawValue:))
    }

    public init(sqliteStatement: SQLiteStatement, index: CInt) {
        self.init(rawValue: Int64(sqliteStatement: sqliteStatement, index: index))
    }
}
