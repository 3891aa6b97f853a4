import CLupDomain
import CLupSupport
import Foundation

/// Door staff: accounts that run the door console of the stores they are named for, and
/// nothing else. A store's managers name them by address; each person sets a PIN of their own
/// (`doorPin`), with which they sign in on their stores' door kiosks, so the door log names
/// the person rather than whatever was typed beside a shared PIN.
///
/// The account's role is `staff` while it is named for a store and was a customer's: it
/// opens `/manage` and the consoles, never a store's settings. Named for no store any more, it
/// is a customer's again; a manager or an administrator keeps their role either way.
extension Accounts {
    /// Names the account `email` door staff of the store. False if it already was; with
    /// `loggedAs`, the store's change log records who named it.
    @discardableResult
    public func addDoorStaff(storeId: StoreID, email: String, now: Date, loggedAs author: ChangeAuthor? = nil) throws -> Bool {
        try database.transaction { transaction in
            guard let user = try AppDatabase.user(email: email, transaction) else { throw AccountError.noSuchUser }
            guard try transaction.exists("SELECT 1 FROM store WHERE id = \(storeId)") else { throw StoreError.noSuchStore }
            guard try transaction.execute("""
                INSERT INTO doorStaff (userId, storeId, addedAt) VALUES (\(user.id), \(storeId), \(now)) ON CONFLICT DO NOTHING
                """) > 0
            else { return false }
            if user.role == .customer {
                try transaction.execute("UPDATE \"user\" SET role = 'staff' WHERE id = \(user.id)")
                transaction.changedCredentials()
            }
            if let author {
                try AppDatabase.recordChange(storeId: storeId, userId: author.userId, now: now, field: "doorStaff",
                                             before: Sealed.seal(user.email), after: "added", transaction)
            }
            return true
        }
    }

    /// Stops account `userId` running the store's door; false if it did not. The store's change
    /// log records who removed it. Passes it holds on the store's kiosks stop at their next
    /// request (`doorPinHash(userId:storeId:)` no longer finds it).
    public func removeDoorStaff(storeId: StoreID, userId: UserID, now: Date, loggedAs author: ChangeAuthor) throws -> Bool {
        try database.transaction { transaction in
            guard let email = try transaction.value("""
                SELECT u.email FROM doorStaff d JOIN "user" u ON u.id = d.userId
                WHERE d.storeId = \(storeId) AND d.userId = \(userId)
                """, as: String.self)
            else { return false }
            try transaction.execute("DELETE FROM doorStaff WHERE storeId = \(storeId) AND userId = \(userId)")
            try AppDatabase.demoteStaffOfNoStore(userId, transaction)
            try AppDatabase.recordChange(storeId: storeId, userId: author.userId, now: now, field: "doorStaff", before: email,
                                         after: "removed", transaction)
            return true
        }
    }

    /// The store's door staff by address, each with whether they have set their PIN.
    public func doorStaff(storeId: StoreID) throws -> [(user: User, hasPin: Bool)] {
        try database.reading { transaction in
            let withPin = Set(try transaction.column("""
                SELECT d.userId FROM doorStaff d JOIN doorPin p ON p.userId = d.userId WHERE d.storeId = \(storeId)
                """, as: UserID.self).compactMap { $0 })
            return try transaction.records("""
                SELECT \(unescaped: AppDatabase.userColumns) FROM "user"
                WHERE id IN (SELECT userId FROM doorStaff WHERE storeId = \(storeId))
                """, as: User.self).sorted(by: AppDatabase.byAddress).map { ($0, withPin.contains($0.id)) }
        }
    }

    /// The stores whose door the account runs, in id order.
    public func doorStores(userId: UserID) throws -> [Store] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: AppDatabase.storeColumns) FROM store
                WHERE id IN (SELECT storeId FROM doorStaff WHERE userId = \(userId)) ORDER BY id
                """, as: Store.self)
        }
    }

    public func isDoorStaff(userId: UserID, of storeId: StoreID) throws -> Bool {
        try database.reading { transaction in
            try transaction.exists("SELECT 1 FROM doorStaff WHERE userId = \(userId) AND storeId = \(storeId)")
        }
    }

    /// Sets (or replaces) the account's own door PIN, an argon2id hash; passes made with the old
    /// one stop at their next request.
    public func setDoorPin(userId: UserID, pinHash: String, now: Date) throws {
        try database.transaction { transaction in
            try transaction.execute("""
                INSERT INTO doorPin (userId, pinHash, setAt) VALUES (\(userId), \(pinHash), \(now))
                ON CONFLICT (userId) DO UPDATE SET pinHash = excluded.pinHash, setAt = excluded.setAt
                """)
        }
    }

    /// When the account last set its door PIN; nil if it never did.
    public func doorPinSetAt(userId: UserID) throws -> Date? {
        try database.reading { transaction in
            try transaction.value("SELECT setAt FROM doorPin WHERE userId = \(userId)", as: Date.self)
        }
    }

    /// The PIN's hash of account `userId`, only while it is door staff of the store.
    public func doorPinHash(userId: UserID, storeId: StoreID) throws -> String? {
        try database.reading(oneStatement: true) { transaction in
            try transaction.value("""
                SELECT p.pinHash FROM doorPin p JOIN doorStaff d ON d.userId = p.userId
                WHERE p.userId = \(userId) AND d.storeId = \(storeId)
                """, as: String.self)
        }
    }

    /// Who may sign in on the store's door kiosks with a PIN of their own: its door staff who
    /// set one, by name.
    public func doorStaffWithPin(storeId: StoreID) throws -> [(id: UserID, name: String)] {
        try doorStaff(storeId: storeId).filter(\.hasPin).map { ($0.user.id, $0.user.displayName) }
            .sorted { ($0.name.lowercased(), $0.id.rawValue) < ($1.name.lowercased(), $1.id.rawValue) }
    }
}

extension AppDatabase {
    /// Door staff named for no store any more are customers again.
    static func demoteStaffOfNoStore(_ userId: UserID, _ transaction: some SQLTransaction) throws {
        if try transaction.execute("""
            UPDATE "user" SET role = 'customer'
            WHERE id = \(userId) AND role = 'staff' AND NOT EXISTS (SELECT 1 FROM doorStaff WHERE userId = \(userId))
            """) > 0
        {
            transaction.changedCredentials()
        }
    }
}
