import CLupDomain
import Foundation

/// A door's share of a store's free places, to let people in while it cannot reach CLup.
///
/// Doors cannot reach each other when CLup is down, so each door that staff let admit offline
/// holds a lease while it is online: a number of places no other door, and no scan at CLup,
/// may fill. Offline, a door lets in at most its lease, plus the places of people it has let
/// out meanwhile; the store's leases never add up to more than its free places, so doors
/// offline together never let in more people than there is room for.
///
/// The door renews its lease every few seconds, saying which version it holds. A lease only
/// grows until the door acknowledges it: CLup counts for each door the most it may hold
/// (`held`), which falls to the newest grant (`places`) when the door says it has that one. An
/// entry a door makes online spends its lease, in the transaction that lets the party in, and
/// the door spends it too when it sees the answer (or, without an answer, when it lets them in
/// offline); what a door did offline is spent and given back as CLup applies its scans. CLup's
/// count is so never below what the door believes it may use.
public struct DoorLease: Sendable, Equatable {
    /// Raised with each new grant; the door sends back the one it holds.
    public var version: Int64
    /// How many people the door may let in while offline.
    public var places: Int
    /// Past this, the door lets nobody in offline until it has reached CLup again, and CLup
    /// stops holding its places: a door switched off gives them back by itself.
    public var expiresAt: Date

    public init(version: Int64, places: Int, expiresAt: Date) {
        (self.version, self.places, self.expiresAt) = (version, places, expiresAt)
    }

    /// How long a lease lasts without the door reaching CLup: a morning's outage.
    public static let lapse: TimeInterval = 4 * 3600

    /// The share of `free` places a door holds when the store has `doors` door kiosks
    /// (whether or not they admit offline: those that do not leave theirs to the others
    /// online), limited to the places no other door holds (`unheld`).
    public static func share(free: Int, doors: Int, unheld: Int) -> Int {
        max(0, min(free / max(1, doors), unheld))
    }
}

/// A door kiosk of a store and whether it lets people in while offline.
public struct OfflineDoor: Sendable, Equatable {
    public var kioskId: Int64
    public var label: String
    public var admitsOffline: Bool
    /// The places CLup holds for it (0 if its lease has lapsed).
    public var heldPlaces: Int
}

extension Doors {
    /// The store's door kiosks in service, in the order they were enrolled.
    public func offlineDoors(storeId: StoreID, now: Date) throws -> [OfflineDoor] {
        try database.reading { transaction in
            try transaction.rows("""
                SELECT k.id, k.label, l.kioskId IS NOT NULL, \(AppDatabase.heldPlaces(now: now))
                FROM kiosk k LEFT JOIN doorLease l ON l.kioskId = k.id
                WHERE k.storeId = \(storeId) AND k.role = 'door' AND k.revokedAt IS NULL
                ORDER BY k.id
                """).map { row in
                OfflineDoor(kioskId: try row.decode(0), label: try row.decode(1), admitsOffline: try row.decode(2),
                            heldPlaces: Int(try row.value(3, as: Int64.self) ?? 0))
            }
        }
    }

    /// Lets door kiosk `kioskId` of the store admit while offline, or not, as `staff` chose;
    /// recorded in the door log. A door turned off gives back the places it held at once: staff
    /// do so for a door switched off or broken. False if the store has no such door in service.
    public func setAdmitsOffline(kioskId: Int64, storeId: StoreID, _ admits: Bool, by staff: DoorStaff, now: Date) throws
        -> Bool
    {
        try database.transaction { transaction in
            guard try transaction.lockStore(storeId) != nil,
                  let label = try transaction.value("""
                      SELECT label FROM kiosk
                      WHERE id = \(kioskId) AND storeId = \(storeId) AND role = 'door' AND revokedAt IS NULL
                      """, as: String.self)
            else { return false }
            let changed = admits
                ? try transaction.execute("""
                    INSERT INTO doorLease (kioskId, storeId) VALUES (\(kioskId), \(storeId)) ON CONFLICT (kioskId) DO NOTHING
                    """)
                : try transaction.execute("DELETE FROM doorLease WHERE kioskId = \(kioskId)")
            if changed > 0 {
                try AppDatabase.recordDoorAction(.offlineDoor, storeId: storeId, reservation: nil, reason: label,
                                                 outcome: admits ? "on" : "off", staff: staff, now: now, transaction)
            }
            return true
        }
    }

    /// Renews door `kiosk`'s lease, which it says it holds at `heldVersion` (nil: none yet), at
    /// `now`; nil if the door does not admit offline. Most renewals change nothing and are
    /// answered from a read; one that changes the lease, or is a minute past the last recorded,
    /// is written under the store's lock, so leases granted at once never overlap.
    public func renewLease(kiosk: Kiosk, heldVersion: Int64?, now: Date) throws -> DoorLease? {
        let unchanged = try database.reading { transaction -> DoorLease?? in
            guard let lease = try AppDatabase.lease(of: kiosk.id, transaction) else { return .some(nil) }
            guard heldVersion == lease.version, lease.held == lease.places, let renewedAt = lease.renewedAt,
                  now.timeIntervalSince(renewedAt) < 60, now >= renewedAt,
                  let capacity = try transaction.value("SELECT capacity FROM store WHERE id = \(kiosk.storeId)", as: Int.self),
                  try AppDatabase.leaseShare(kiosk, capacity: capacity, now: now, transaction) == lease.places
            else { return nil }
            return .some(DoorLease(version: lease.version, places: lease.places, expiresAt: renewedAt + DoorLease.lapse))
        }
        if let unchanged { return unchanged }
        return try database.transaction { transaction in
            guard let store = try transaction.lockStore(kiosk.storeId)?.store else { throw StoreError.noSuchStore }
            guard var lease = try AppDatabase.lease(of: kiosk.id, transaction) else { return nil }
            // The door holds exactly the newest grant, as spent since: nothing older.
            if heldVersion == lease.version { lease.held = lease.places }
            let share = try AppDatabase.leaseShare(kiosk, capacity: store.capacity, now: now, transaction)
            if share != lease.places {
                lease.version += 1
                lease.places = share
                // Until the door says it has this grant, it may still hold the one before.
                lease.held = max(lease.held, share)
            }
            try transaction.execute("""
                UPDATE doorLease SET version = \(lease.version), places = \(lease.places), held = \(lease.held),
                                     renewedAt = \(now)
                WHERE kioskId = \(kiosk.id)
                """)
            return DoorLease(version: lease.version, places: lease.places, expiresAt: now + DoorLease.lapse)
        }
    }
}

extension AppDatabase {
    /// A door's lease row as stored.
    struct LeaseRow {
        var version: Int64
        var places: Int
        var held: Int
        var renewedAt: Date?
    }

    static func lease(of kioskId: Int64, _ transaction: some SQLTransaction) throws -> LeaseRow? {
        try transaction.row("SELECT version, places, held, renewedAt FROM doorLease WHERE kioskId = \(kioskId)").map { row in
            LeaseRow(version: try row.decode(0), places: Int(try row.decode(1, as: Int64.self)),
                     held: Int(try row.decode(2, as: Int64.self)), renewedAt: try row.value(3))
        }
    }

    /// The share of the free places door `kiosk` may hold now (`DoorLease.share`).
    static func leaseShare(_ kiosk: Kiosk, capacity: Int, now: Date, _ transaction: some SQLTransaction) throws -> Int {
        let inside = try transaction.peopleInside(storeId: kiosk.storeId)
        let elsewhere = try heldElsewhere(storeId: kiosk.storeId, except: kiosk.id, now: now, transaction)
        let doors = try transaction.value("""
            SELECT COUNT(*) FROM kiosk WHERE storeId = \(kiosk.storeId) AND role = 'door' AND revokedAt IS NULL
            """, as: Int.self) ?? 1
        return DoorLease.share(free: capacity - inside, doors: doors, unheld: capacity - inside - elsewhere)
    }

    /// The places the store's doors other than `kioskId` hold for letting people in offline,
    /// leases lapsed excepted.
    static func heldElsewhere(storeId: StoreID, except kioskId: Int64?, now: Date, _ transaction: some SQLTransaction)
        throws -> Int
    {
        try transaction.value("""
            SELECT CAST(COALESCE(SUM(\(heldPlaces(now: now))), 0) AS BIGINT) FROM doorLease l
            WHERE l.storeId = \(storeId) AND l.kioskId <> \(kioskId ?? 0)
            """, as: Int.self) ?? 0
    }

    /// The places CLup counts a door's lease (the `doorLease` row `l`) as holding at `now`:
    /// its `held`, or none once it has gone unrenewed past `DoorLease.lapse`.
    static func heldPlaces(now: Date) -> SQL {
        "CASE WHEN l.renewedAt >= \(now - DoorLease.lapse) THEN l.held ELSE 0 END"
    }

    /// Door `kioskId` let `people` in (`spend`) or out while offline: its lease changes as the
    /// door changed its own copy. A door that does not admit offline has none to change.
    static func changeLease(kioskId: Int64, by people: Int, _ transaction: some SQLTransaction) throws {
        guard people != 0 else { return }
        try transaction.execute("""
            UPDATE doorLease SET places = CASE WHEN places + \(people) > 0 THEN places + \(people) ELSE 0 END,
                                 held = CASE WHEN held + \(people) > 0 THEN held + \(people) ELSE 0 END
            WHERE kioskId = \(kioskId)
            """)
    }
}
