import CLupDomain
import CLupSupport
import Foundation

/// A region of a chain: a name, its stores (a store is in one region at most) and its
/// managers, who manage each of its stores — those added later too — as a store's own managers
/// do (`Accounts.isManager`, `managedStores`).
public struct StoreGroup: Sendable, Equatable {
    public var id: Int64
    public var name: String
    /// How many stores it holds, and how many accounts manage it.
    public var stores: Int
    public var managers: Int
}

/// A region's id in an address (`/manage/groups/{id}`).
extension StoreGroup: IdentifierOwner {}

public enum StoreGroupError: Error, Equatable, Sendable {
    /// Another region has that name.
    case nameTaken
    case noSuchGroup
}

extension Stores {
    /// A new region, with no store yet.
    public func createGroup(name: String, now: Date) throws -> Int64 {
        try database.transaction { transaction in
            guard try !transaction.exists("SELECT 1 FROM storeGroup WHERE lower(name) = lower(\(name))") else {
                throw StoreGroupError.nameTaken
            }
            guard let id = try transaction.value("""
                INSERT INTO storeGroup (name, createdAt) VALUES (\(name), \(now)) RETURNING id
                """, as: Int64.self)
            else { preconditionFailure("INSERT … RETURNING returned no row") }
            return id
        }
    }

    /// Every region, by name.
    public func groups() throws -> [StoreGroup] {
        try groups(where: "TRUE")
    }

    /// Region `id`, if there is one.
    public func group(id: Int64) throws -> StoreGroup? {
        try groups(where: "g.id = \(id)").first
    }

    /// The regions `condition` (on `g`, the region's row) selects, by name, with their counts of
    /// stores and managers.
    private func groups(where condition: SQL) throws -> [StoreGroup] {
        try database.reading { transaction in
            try transaction.rows("""
                SELECT g.id, g.name,
                       (SELECT COUNT(*) FROM storeGroupMember m WHERE m.groupId = g.id),
                       (SELECT COUNT(*) FROM groupManager a WHERE a.groupId = g.id)
                FROM storeGroup g WHERE \(condition) ORDER BY lower(g.name), g.id
                """).map {
                StoreGroup(id: try $0.decode(0), name: try $0.decode(1), stores: try $0.decode(2), managers: try $0.decode(3))
            }
        }
    }

    /// Each store's region (stores in none are absent).
    public func regions() throws -> [StoreID: Int64] {
        try database.reading { transaction in
            Dictionary(uniqueKeysWithValues: try transaction.rows("SELECT storeId, groupId FROM storeGroupMember").map {
                (try $0.decode(0, as: StoreID.self), try $0.decode(1, as: Int64.self))
            })
        }
    }

    /// Puts `storeIds` in region `groupId` (moving any that were in another), each move in its
    /// store's change log; returns how many moved.
    @discardableResult
    public func addToGroup(_ groupId: Int64, storeIds: [StoreID], now: Date, loggedAs author: ChangeAuthor) throws -> Int {
        try database.transaction { transaction in
            guard let name = try transaction.value("SELECT name FROM storeGroup WHERE id = \(groupId)", as: String.self) else {
                throw StoreGroupError.noSuchGroup
            }
            var moved = 0
            for storeId in Set(storeIds).sorted() {
                guard try transaction.exists("SELECT 1 FROM store WHERE id = \(storeId)") else { throw StoreError.noSuchStore }
                let before = try transaction.value("""
                    SELECT g.name FROM storeGroupMember m JOIN storeGroup g ON g.id = m.groupId WHERE m.storeId = \(storeId)
                    """, as: String.self)
                guard before != name else { continue }
                try transaction.execute("""
                    INSERT INTO storeGroupMember (storeId, groupId) VALUES (\(storeId), \(groupId))
                    ON CONFLICT (storeId) DO UPDATE SET groupId = excluded.groupId
                    """)
                try AppDatabase.recordChange(storeId: storeId, userId: author.userId, now: now, field: "region",
                                             before: before ?? "", after: name, transaction)
                moved += 1
            }
            return moved
        }
    }

    /// Takes the store out of region `groupId`; false if it was not in it.
    public func removeFromGroup(_ groupId: Int64, storeId: StoreID, now: Date, loggedAs author: ChangeAuthor) throws -> Bool {
        try database.transaction { transaction in
            guard let name = try transaction.value("""
                SELECT g.name FROM storeGroupMember m JOIN storeGroup g ON g.id = m.groupId
                WHERE m.storeId = \(storeId) AND m.groupId = \(groupId)
                """, as: String.self)
            else { return false }
            try transaction.execute("DELETE FROM storeGroupMember WHERE storeId = \(storeId)")
            try AppDatabase.recordChange(storeId: storeId, userId: author.userId, now: now, field: "region", before: name,
                                         after: "", transaction)
            return true
        }
    }

    /// The accounts that manage region `groupId`, by address.
    public func groupManagers(_ groupId: Int64) throws -> [User] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: AppDatabase.userColumns) FROM "user"
                WHERE id IN (SELECT userId FROM groupManager WHERE groupId = \(groupId))
                """, as: User.self)
        }.sorted(by: AppDatabase.byAddress)
    }

    /// Lets account `email` manage every store of region `groupId` (a customer or door staff
    /// becomes a manager). False if it already did.
    @discardableResult
    public func addGroupManager(_ groupId: Int64, email: String) throws -> Bool {
        try database.transaction { transaction in
            guard let user = try AppDatabase.user(email: email, transaction) else { throw AccountError.noSuchUser }
            guard try transaction.exists("SELECT 1 FROM storeGroup WHERE id = \(groupId)") else {
                throw StoreGroupError.noSuchGroup
            }
            guard try transaction.execute("""
                INSERT INTO groupManager (userId, groupId) VALUES (\(user.id), \(groupId)) ON CONFLICT DO NOTHING
                """) > 0
            else { return false }
            if user.role == .customer || user.role == .staff {
                try transaction.execute("UPDATE \"user\" SET role = 'manager' WHERE id = \(user.id)")
                transaction.changedCredentials()
            }
            return true
        }
    }

    /// Stops account `userId` managing region `groupId`; a manager of nothing else is a
    /// customer (or door staff) again. False if it did not manage it.
    public func removeGroupManager(_ groupId: Int64, userId: UserID) throws -> Bool {
        try database.transaction { transaction in
            guard try transaction.execute("DELETE FROM groupManager WHERE groupId = \(groupId) AND userId = \(userId)") > 0
            else { return false }
            try AppDatabase.demoteManagerOfNoStore(userId, transaction)
            return true
        }
    }

    /// Renames region `groupId`, each of its stores' change logs saying so; false if it had
    /// that name already. Another region's name is refused.
    @discardableResult
    public func renameGroup(_ groupId: Int64, to name: String, now: Date, loggedAs author: ChangeAuthor) throws -> Bool {
        try database.transaction { transaction in
            guard let old = try transaction.value("SELECT name FROM storeGroup WHERE id = \(groupId)", as: String.self) else {
                throw StoreGroupError.noSuchGroup
            }
            guard old != name else { return false }
            guard try !transaction.exists("""
                SELECT 1 FROM storeGroup WHERE lower(name) = lower(\(name)) AND id <> \(groupId)
                """)
            else { throw StoreGroupError.nameTaken }
            try transaction.execute("UPDATE storeGroup SET name = \(name) WHERE id = \(groupId)")
            for storeId in try Self.members(groupId, transaction) {
                try AppDatabase.recordChange(storeId: storeId, userId: author.userId, now: now, field: "region", before: old,
                                             after: name, transaction)
            }
            return true
        }
    }

    /// Deletes region `groupId`: its stores are in no region (each change log saying so) and
    /// its managers no longer manage them — one who manages nothing else is a customer (or door
    /// staff) again. Returns how many stores left it.
    public func deleteGroup(_ groupId: Int64, now: Date, loggedAs author: ChangeAuthor) throws -> Int {
        try database.transaction { transaction in
            guard let name = try transaction.value("SELECT name FROM storeGroup WHERE id = \(groupId)", as: String.self) else {
                throw StoreGroupError.noSuchGroup
            }
            let stores = try Self.members(groupId, transaction)
            let managers = try transaction.column("SELECT userId FROM groupManager WHERE groupId = \(groupId)",
                                                  as: UserID.self).compactMap { $0 }
            try transaction.execute("DELETE FROM storeGroupMember WHERE groupId = \(groupId)")
            try transaction.execute("DELETE FROM groupManager WHERE groupId = \(groupId)")
            try transaction.execute("DELETE FROM storeGroup WHERE id = \(groupId)")
            for storeId in stores {
                try AppDatabase.recordChange(storeId: storeId, userId: author.userId, now: now, field: "region", before: name,
                                             after: "", transaction)
            }
            for userId in managers { try AppDatabase.demoteManagerOfNoStore(userId, transaction) }
            return stores.count
        }
    }

    private static func members(_ groupId: Int64, _ transaction: some SQLTransaction) throws -> [StoreID] {
        try transaction.column("SELECT storeId FROM storeGroupMember WHERE groupId = \(groupId) ORDER BY storeId",
                               as: StoreID.self).compactMap { $0 }
    }
}
