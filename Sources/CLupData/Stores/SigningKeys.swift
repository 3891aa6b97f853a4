import CLupDomain
import Foundation
import GRDB
import Synchronization

/// A store's signing keys by number: the one new codes are signed with, and those still good.
public struct SigningKeys: Sendable, Equatable {
    /// The key new codes are signed with.
    public var current: Int
    /// Every key whose codes are accepted now, the current one included, and until when an
    /// older one is (nil: no end).
    public var accepted: [Int: Date?]

    public func accepts(_ keyId: Int) -> Bool { accepted[keyId] != nil }
}

extension AppDatabase {
    /// How long a replaced key keeps its codes good: longer than any ticket lives (a booking
    /// is shown afresh with the new key; this covers printed tickets and saved screenshots).
    public static let keyOverlap: TimeInterval = 7 * 86400

    static func signingKeys(storeId: StoreID, now: Date, _ transaction: some SQLTransaction) throws -> SigningKeys? {
        let rows = try transaction.rows("""
            SELECT keyId, retiresAt FROM storeSigningKey
            WHERE storeId = \(storeId) AND (retiresAt IS NULL OR retiresAt > \(now)) ORDER BY keyId
            """)
        var accepted: [Int: Date?] = [:]
        var current: Int?
        for row in rows {
            let (keyId, retires): (Int, Date?) = (try row.decode(0), try row.value(1))
            accepted[keyId] = .some(retires)
            if retires == nil { current = keyId }
        }
        guard let current else { return nil }
        return SigningKeys(current: current, accepted: accepted)
    }
}

extension Stores {

    /// The store's signing keys at `now`, read at most every `SigningKeyCache.lifetime` (a
    /// rotation made by `clup admin` reaches a running worker within that).
    public func signingKeys(storeId: StoreID, now: Date) throws -> SigningKeys? {
        if let kept = database.signingKeyCache.keys(storeId, now: now) { return kept }
        let keys = try database.reading { transaction in try AppDatabase.signingKeys(storeId: storeId, now: now, transaction) }
        if let keys { database.signingKeyCache.keep(keys, for: storeId, now: now) }
        return keys
    }

    /// The highest reservation id so far: a ticket with a higher one was made after this was read.
    public func lastReservationId() throws -> ReservationID? {
        try database.reading { transaction in try transaction.value("SELECT MAX(id) FROM reservation", as: ReservationID.self) }
    }

    /// Moves the store to a new signing key: new codes are signed with it, and codes signed
    /// with the keys before stay good for `keyOverlap` (or not at all, `retireAtOnce`, when a
    /// key may have leaked). Returns the new key's number.
    @discardableResult
    public func rotateSigningKey(storeId: StoreID, retireAtOnce: Bool, now: Date) throws -> Int {
        let keyId = try database.transaction { transaction in
            guard try transaction.lockStore(storeId) != nil,
                try AppDatabase.signingKeys(storeId: storeId, now: now, transaction) != nil
            else { throw StoreError.noSuchStore }
            // Every key still good is good until then at the most.
            let retires = retireAtOnce ? now : now + AppDatabase.keyOverlap
            try transaction.execute("""
                UPDATE storeSigningKey SET retiresAt = \(retires)
                WHERE storeId = \(storeId) AND (retiresAt IS NULL OR retiresAt > \(retires))
                """)
            let highest = try transaction.value("SELECT MAX(keyId) FROM storeSigningKey WHERE storeId = \(storeId)",
                                                as: Int.self)
            let keyId = (highest ?? 0) + 1
            try transaction.execute("""
                INSERT INTO storeSigningKey (storeId, keyId, createdAt) VALUES (\(storeId), \(keyId), \(now))
                """)
            return keyId
        }
        database.signingKeyCache.forget(storeId)
        return keyId
    }
}

/// Stores' signing keys as last read, each for `lifetime`.
final class SigningKeyCache: Sendable {
    static let lifetime: TimeInterval = 30
    private let kept = Mutex<[StoreID: (keys: SigningKeys, readAt: Date)]>([:])

    func keys(_ storeId: StoreID, now: Date) -> SigningKeys? {
        kept.withLock { kept in
            guard let entry = kept[storeId], abs(now.timeIntervalSince(entry.readAt)) < Self.lifetime else { return nil }
            // A key retired meanwhile is not accepted from memory either.
            var keys = entry.keys
            keys.accepted = keys.accepted.filter { _, retires in retires.map { $0 > now } ?? true }
            return keys
        }
    }

    func keep(_ keys: SigningKeys, for storeId: StoreID, now: Date) {
        kept.withLock { $0[storeId] = (keys, now) }
    }

    func forget(_ storeId: StoreID) {
        kept.withLock { _ = $0.removeValue(forKey: storeId) }
    }
}
