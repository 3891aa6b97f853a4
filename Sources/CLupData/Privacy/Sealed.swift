import CLupSupport
import Foundation
import GRDB
import Synchronization

/// The process's data key: every database a worker or a command opens is sealed with the key
/// it was opened with (`AppDatabase.open(path:dataKey:)`), and records seal and open their
/// personal columns with it as GRDB and PostgresNIO encode and decode them. One process holds
/// one key: opening a database with another is refused rather than mixing two.
enum ProcessDataKey {
    private static let installed = Mutex<DataKey?>(nil)

    /// Makes `key` the process's key; an error if another is in use already.
    static func install(_ key: DataKey) throws {
        try installed.withLock { current in
            if let current, current != key { throw DataKeyError.conflicting }
            current = key
        }
    }

    /// The key in use, or `DataKey.scratch` for a database that lives only as long as the
    /// process (in memory, or a simulation's scratch file).
    static func currentOrScratch() -> DataKey {
        installed.withLock { current in
            if let current { return current }
            current = DataKey.scratch
            return DataKey.scratch
        }
    }

    static var current: DataKey {
        guard let key = installed.withLock({ $0 }) else {
            preconditionFailure("no data key: a database must be opened with one before records are read or written")
        }
        return key
    }
}

/// A data key that does not fit.
public enum DataKeyError: Error, CustomStringConvertible {
    /// The database was sealed with another key than the one it is opened with.
    case wrongKey
    /// The process already uses another key.
    case conflicting

    public var description: String {
        switch self {
        case .wrongKey:
            "this database was sealed with another data key: give the key file it was made with (CLUP_DATA_KEY_FILE)"
        case .conflicting: "this process already uses another data key; one process holds one key"
        }
    }
}

/// A personal column, stored sealed (`DataKey.seal`) and read back opened. In Swift the
/// property is its plain text; in the row it is "s1:…", on both engines.
@propertyWrapper
public struct Sealed: Sendable, Hashable, Codable, DatabaseValueConvertible {
    public var wrappedValue: String

    public init(wrappedValue: String) { self.wrappedValue = wrappedValue }

    /// The value as a row holds it.
    public var sealedText: String { Self.seal(wrappedValue) }

    /// `plain` as a row holds it, for a statement written out.
    public static func seal(_ plain: String) -> String { ProcessDataKey.current.seal(plain) }

    /// The plain text of a stored value; an error if it cannot be opened with this process's
    /// key (another key, or a changed byte), which `AppDatabase.open` makes sure never
    /// happens for a value it wrote.
    public static func open(_ text: String) throws -> String {
        guard let plain = ProcessDataKey.current.open(text) else { throw Unreadable() }
        return plain
    }

    public struct Unreadable: Error, CustomStringConvertible {
        public var description: String { "a sealed value does not open with this data key" }
    }

    public init(from decoder: any Decoder) throws {
        wrappedValue = try Self.open(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(sealedText)
    }

    public var databaseValue: DatabaseValue { sealedText.databaseValue }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> Sealed? {
        guard let text = String.fromDatabaseValue(dbValue), let plain = ProcessDataKey.current.open(text) else { return nil }
        return Sealed(wrappedValue: plain)
    }
}

/// Keyed hashes personal values are looked up by.
enum LookupKey {
    /// An account by its address: equal whatever the case, as the address was unique before.
    static func email(_ address: String) -> String {
        ProcessDataKey.current.lookup("email:" + address.trimmingCharacters(in: .whitespacesAndNewlines).lowercased())
    }

    /// Mail by recipient, for the per-recipient limits and an account's deletion: an
    /// address as `MailAddress.key` folds it (sub-addresses are one mailbox).
    static func recipient(_ address: String) -> String {
        ProcessDataKey.current.lookup("recipient:" + MailAddress.key(address))
    }

    /// Sign-in failures by the account typed (an address, or a kiosk's PIN account).
    static func account(_ account: String) -> String {
        ProcessDataKey.current.lookup("account:" + account.lowercased())
    }
}
