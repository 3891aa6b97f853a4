import CLupDomain
import CLupSupport
import Foundation

/// Who may run a store: its managers, its enrolled kiosks and its staff PIN.
extension AppDatabase {

    /// A manager left with no store is a customer again, or door staff if named for a store's
    /// door (an administrator stays one): the role is what opens `/manage`, and a role with
    /// nothing to manage must not linger.
    /// Written once for both engines.
    static func demoteManagerOfNoStore(_ userId: UserID, _ transaction: some SQLTransaction) throws {
        if try transaction.execute("""
            UPDATE "user"
            SET role = CASE WHEN EXISTS (SELECT 1 FROM doorStaff WHERE userId = \(userId)) THEN 'staff' ELSE 'customer' END
            WHERE id = \(userId) AND role = 'manager' AND NOT EXISTS (SELECT 1 FROM managedStore WHERE userId = \(userId))
              AND NOT EXISTS (SELECT 1 FROM groupManager WHERE userId = \(userId))
            """) > 0
        {
            transaction.changedCredentials()
        }
    }

    static func byAddress(_ a: User, _ b: User) -> Bool {
        (a.email.lowercased(), a.id.rawValue) < (b.email.lowercased(), b.id.rawValue)
    }

    /// Whether two addresses are the same, as the account table compares them (without case).
    static func sameAddress(_ a: String, _ b: String) -> Bool { a.lowercased() == b.lowercased() }

    static let kioskColumns = "id, storeId, label, keyHash, createdAt, revokedAt, role"
}

extension Accounts {
    /// Lets the account `email` manage the store (a customer becomes a manager). False if it
    /// already did. With `loggedAs`, the store's change log records who added it, and when.
    @discardableResult
    public func assignStore(storeId: StoreID, toManager email: String, now: Date = Date(),
                            loggedAs author: ChangeAuthor? = nil) throws -> Bool
    {
        try database.transaction { transaction in
            guard let user = try AppDatabase.user(email: email, transaction) else { throw AccountError.noSuchUser }
            guard try transaction.exists("SELECT 1 FROM store WHERE id = \(storeId)") else { throw StoreError.noSuchStore }
            if user.role == .customer || user.role == .staff {
                try transaction.execute("UPDATE \"user\" SET role = 'manager' WHERE id = \(user.id)")
                transaction.changedCredentials()
            }
            let added = try transaction.execute("""
                INSERT INTO managedStore (userId, storeId) VALUES (\(user.id), \(storeId)) ON CONFLICT DO NOTHING
                """)
            guard added > 0 else { return false }
            if let author {
                try AppDatabase.recordChange(storeId: storeId, userId: author.userId, now: now, field: "manager",
                                      before: Sealed.seal(user.email), after: "added", transaction)
            }
            return true
        }
    }

    /// Stops account `userId` managing the store; a manager of no other store is a customer
    /// again (`demoteManagerOfNoStore`). False if it did not manage it. The store's change log
    /// records who removed it, and when.
    public func removeManager(storeId: StoreID, userId: UserID, now: Date, loggedAs author: ChangeAuthor) throws -> Bool {
        try database.transaction { transaction in
            guard let email = try transaction.value("""
                SELECT u.email FROM managedStore m JOIN "user" u ON u.id = m.userId
                WHERE m.storeId = \(storeId) AND m.userId = \(userId)
                """, as: String.self)
            else { return false }
            try transaction.execute("DELETE FROM managedStore WHERE storeId = \(storeId) AND userId = \(userId)")
            try AppDatabase.demoteManagerOfNoStore(userId, transaction)
            // The address as the row holds it, sealed.
            try AppDatabase.recordChange(storeId: storeId, userId: author.userId, now: now, field: "manager", before: email,
                                  after: "removed", transaction)
            return true
        }
    }

    /// The accounts that manage the store, by address (sorted here: the rows hold them sealed).
    public func managers(storeId: StoreID) throws -> [User] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: AppDatabase.userColumns) FROM "user"
                WHERE id IN (SELECT userId FROM managedStore WHERE storeId = \(storeId))
                """, as: User.self)
        }.sorted(by: AppDatabase.byAddress)
    }

    /// The stores a manager may see and change, in id order: theirs, and those of the regions
    /// they manage.
    public func managedStores(userId: UserID) throws -> [Store] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: AppDatabase.storeColumns) FROM store
                WHERE id IN (SELECT storeId FROM managedStore WHERE userId = \(userId))
                   OR id IN (SELECT m.storeId FROM storeGroupMember m JOIN groupManager g ON g.groupId = m.groupId
                             WHERE g.userId = \(userId))
                ORDER BY id
                """, as: Store.self)
        }
    }

    /// Whether the account manages the store: as one of its own managers, or as a manager of
    /// its region.
    public func isManager(userId: UserID, of storeId: StoreID) throws -> Bool {
        try database.reading { transaction in
            try transaction.exists("""
                SELECT 1 FROM managedStore WHERE userId = \(userId) AND storeId = \(storeId)
                UNION ALL
                SELECT 1 FROM storeGroupMember m JOIN groupManager g ON g.groupId = m.groupId
                WHERE m.storeId = \(storeId) AND g.userId = \(userId)
                """)
        }
    }

    /// Enrols a kiosk for a store; the caller shows `key` once, the table keeps its hash. With
    /// `loggedAs`, the store's change log records who enrolled it.
    public func enrolKiosk(storeId: StoreID, label: String, key: String, role: KioskRole = .door, now: Date,
                           loggedAs author: ChangeAuthor? = nil) throws -> Kiosk
    {
        try database.transaction { transaction in
            guard try transaction.exists("SELECT 1 FROM store WHERE id = \(storeId)") else { throw StoreError.noSuchStore }
            guard let kiosk = try transaction.record("""
                INSERT INTO kiosk (storeId, label, keyHash, createdAt, role)
                VALUES (\(storeId), \(label), \(Secrets.hash(key)), \(now), \(role.rawValue))
                RETURNING \(unescaped: AppDatabase.kioskColumns)
                """, as: Kiosk.self)
            else { preconditionFailure("INSERT … RETURNING returned no row") }
            if role == .door {
                // The store's first door lets people in while offline until staff choose others.
                try transaction.execute("""
                    INSERT INTO doorLease (kioskId, storeId)
                    SELECT \(kiosk.id), \(storeId) WHERE NOT EXISTS (SELECT 1 FROM doorLease WHERE storeId = \(storeId))
                    """)
            }
            if let author {
                try AppDatabase.recordChange(storeId: storeId, userId: author.userId, now: now, field: "kiosk",
                                      before: StoreChange.kiosk(label: label, role: role), after: "enrolled", transaction)
            }
            transaction.changedCredentials()
            return kiosk
        }
    }

    /// Revokes a kiosk at once; returns false if there is no such kiosk.
    public func revokeKiosk(id: Int64, now: Date) throws -> Bool {
        try database.transaction { transaction in
            transaction.changedCredentials()
            // A kiosk out of service holds no places.
            try transaction.execute("DELETE FROM doorLease WHERE kioskId = \(id)")
            return try transaction.execute("UPDATE kiosk SET revokedAt = \(now) WHERE id = \(id) AND revokedAt IS NULL") > 0
        }
    }

    /// The enrolled, unrevoked kiosk a device key belongs to; remembered as sessions are.
    public func kiosk(key: String) throws -> Kiosk? {
        guard Secrets.isWellFormed(key, minimumLength: 32) else { return nil }
        let keyHash = Secrets.hash(key)
        let read = {
            try self.database.reading(oneStatement: true) { transaction in
                try transaction.record("""
                    SELECT \(unescaped: AppDatabase.kioskColumns) FROM kiosk WHERE keyHash = \(keyHash) AND revokedAt IS NULL
                    """, as: Kiosk.self)
            }
        }
        return database.remembersCredentials ? try database.credentials.kiosk(keyHash, orRead: read) : try read()
    }

    public func kiosks(storeId: StoreID) throws -> [Kiosk] {
        try database.reading { transaction in
            try transaction.records("SELECT \(unescaped: AppDatabase.kioskColumns) FROM kiosk WHERE storeId = \(storeId) ORDER BY id",
                                    as: Kiosk.self)
        }
    }

    /// The store's staff PIN as stored (an argon2id hash), if its managers set one.
    public func staffPinHash(storeId: StoreID) throws -> String? {
        try staffPin(storeId: storeId)?.pinHash
    }

    /// The store's staff PIN's hash and when it was set.
    public func staffPin(storeId: StoreID) throws -> (pinHash: String, setAt: Date)? {
        try database.reading { transaction in
            try transaction.row("SELECT pinHash, setAt FROM staffPin WHERE storeId = \(storeId)")
                .map { (try $0.decode(0), try $0.decode(1)) }
        }
    }

    /// Sets (or replaces) the store's staff PIN, noting in the store's changes who did it (never
    /// the PIN). Staff signed in on a kiosk with the old PIN are signed out at their next request:
    /// their pass is bound to the hash it was made with.
    public func setStaffPin(storeId: StoreID, pinHash: String, by userId: UserID?, now: Date) throws {
        try database.transaction { transaction in
            guard try transaction.exists("SELECT 1 FROM store WHERE id = \(storeId)") else { throw StoreError.noSuchStore }
            try transaction.execute("""
                INSERT INTO staffPin (storeId, pinHash, setAt, setBy) VALUES (\(storeId), \(pinHash), \(now), \(userId))
                ON CONFLICT (storeId) DO UPDATE SET pinHash = excluded.pinHash, setAt = excluded.setAt, setBy = excluded.setBy
                """)
            try AppDatabase.recordChange(storeId: storeId, userId: userId, now: now, field: "staffPin", before: "", after: "set",
                                  transaction)
        }
    }

    /// Revokes the store's kiosk `id` for a manager, noting it in the store's changes; false if
    /// the store has no such active kiosk (another store's is not touched).
    public func revokeKiosk(id: Int64, storeId: StoreID, by userId: UserID?, now: Date) throws -> Bool {
        try database.transaction { transaction in
            guard let kiosk = try transaction.record("""
                UPDATE kiosk SET revokedAt = \(now) WHERE id = \(id) AND storeId = \(storeId) AND revokedAt IS NULL
                RETURNING \(unescaped: AppDatabase.kioskColumns)
                """, as: Kiosk.self)
            else { return false }
            try transaction.execute("DELETE FROM doorLease WHERE kioskId = \(id)")
            try AppDatabase.recordChange(storeId: storeId, userId: userId, now: now, field: "kiosk",
                                  before: StoreChange.kiosk(label: kiosk.label, role: kiosk.role), after: "revoked",
                                  transaction)
            transaction.changedCredentials()
            return true
        }
    }
}
