/// A row's id that says whose it is: a store's, a reservation's or a person's. The three are
/// the same 64-bit integer in the database, and a function that takes two or three of them
/// (`revokeKiosk(id:storeId:by:)`, a ticket of one store scanned at another) is where passing
/// one for another went unnoticed. As distinct types they no longer compile.
///
/// An id is only ever made from a row or from an address (`init(rawValue:)`); arithmetic on it
/// means nothing, so there is none.
public struct Identifier<Owner: IdentifierOwner>: RawRepresentable, Sendable, Hashable, Comparable, Codable,
    CustomStringConvertible, ExpressibleByIntegerLiteral
{
    public let rawValue: Int64

    public init(rawValue: Int64) {
        self.rawValue = rawValue
    }

    public init(_ rawValue: Int64) {
        self.rawValue = rawValue
    }

    /// For literals in tests and fixtures (`storeId: 1`).
    public init(integerLiteral value: Int64) {
        self.rawValue = value
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The digits, as an address and a log line write it.
    public var description: String { String(rawValue) }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The kinds of row an `Identifier` may name.
public protocol IdentifierOwner: SendableMetatype {}

public enum StoreRow: IdentifierOwner {}
public enum ReservationRow: IdentifierOwner {}
public enum UserRow: IdentifierOwner {}

public typealias StoreID = Identifier<StoreRow>
public typealias ReservationID = Identifier<ReservationRow>
public typealias UserID = Identifier<UserRow>
