import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport

/// Names and email addresses are sealed at rest with the data key (`DataKey`, `Sealed`): the
/// rows, the database file and its WAL hold none of them in clear, on either engine, and a
/// database written before is sealed when first opened with a key.
@Suite("Personal data at rest")
struct DataAtRestTests {
    static let now = Fixture.wednesdayMorning
    /// What must never be found in clear in a row or a file.
    static let plain = ["ada.lovelace", "Lovelace", "Giulia Portinaia", "grace.hopper", "333 1234567"]

    @Test("a value sealed twice reads differently, opens to itself, and no changed byte or other key opens it")
    func sealing() throws {
        let key = try DataKey(secret: "a data key for this test, long enough to be one")
        let other = try DataKey(secret: "another data key for this test, long enough too")
        for value in ["ada@example.org", "Zoë Ünïcode ✓", ""] {
            let (first, second) = (key.seal(value), key.seal(value))
            #expect(first != second && first.hasPrefix("s1:"))
            #expect(key.open(first) == value && key.open(second) == value)
            #expect(other.open(first) == nil)
            var bytes = Array(first.utf8)
            bytes[bytes.count - 3] = bytes[bytes.count - 3] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(key.open(String(decoding: bytes, as: UTF8.self)) == nil)
        }
        #expect(key.open("ada@example.org") == nil && key.open("s1:") == nil && key.open("s1:!!!") == nil)
        #expect(key.lookup("ada@example.org") == key.lookup("ada@example.org"))
        #expect(key.lookup("ada@example.org") != other.lookup("ada@example.org"))
        #expect(key.lookup("ada@example.org").count == 46)
        #expect(throws: DataKey.KeyError.tooShort) { try DataKey(secret: "  too short  ") }
        let missing = NSTemporaryDirectory() + "no-such-key-" + UUID().uuidString
        #expect(throws: DataKey.KeyError.missing(missing)) { try DataKey.load(path: missing) }
        #expect(DataKey.KeyError.missing(missing).description.contains("clup admin create-data-key"))
    }

    /// An account with a confirmation email, a manager added to a store (its log), a staff
    /// member's door action at a kiosk and a failed sign-in: every personal value CLup keeps.
    static func personalRows(_ database: AppDatabase) throws -> (store: StoreID, user: User) {
        let store = try database.stores.createStore(Fixture.store("Sigillo", at: GeoPoint(latitude: 45.46, longitude: 9.19)),
                                             hours: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 1440) },
                                             departments: [])
        let user = try database.accounts.createUser(
            email: "Ada.Lovelace@example.org", displayName: "Ada Lovelace", passwordHash: Fixture.passwordHash,
            now: now, confirmation: (token: Secrets.token(), mail: { user in
                NewOutboxMessage(recipient: user.email, subject: "Welcome, Ada Lovelace", body: "Hello Ada Lovelace",
                                 now: now)
            }))
        _ = try database.accounts.createUser(email: "grace.hopper@example.org", displayName: "Grace Hopper",
                                    passwordHash: Fixture.passwordHash, now: now, confirmation: nil)
        #expect(try database.accounts.assignStore(storeId: store.id, toManager: "grace.hopper@example.org", now: now,
                                         loggedAs: .user(user.id)))
        let kiosk = try database.accounts.enrolKiosk(storeId: store.id, label: "Door", key: Secrets.token(), now: now)
        guard case .issued(let ticket) = try database.doors.issueWalkInTicket(storeId: store.id, people: 1, residenceMinutes: 30,
                                                                       requestKey: nil, now: now)
        else { throw StackFailure("no walk-in ticket") }
        _ = try database.doors.door(.admit, storeId: store.id, number: ticket.number, reason: "scanner broken, her son 333 1234567",
                              by: .kiosk(id: kiosk.id, name: "Giulia Portinaia"), now: now)
        try database.accounts.recordSignInFailure(account: "ada.lovelace@example.org", clientAddress: "192.0.2.1", now: now)
        try database.accounts.addDoorStaff(storeId: store.id, email: "grace.hopper@example.org", now: now,
                                           loggedAs: .user(user.id))
        _ = try database.support.lookUp(email: "Ada.Lovelace@example.org", reason: "Ada Lovelace phoned", by: user.id, now: now)
        return (store.id, user)
    }

    struct StackFailure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// Reads everything back through the named methods, in clear.
    static func readsBack(_ database: AppDatabase, store: StoreID, user: User) throws {
        let found = try #require(try database.accounts.user(email: "ADA.LOVELACE@example.org"))
        #expect(found.id == user.id && found.email == "Ada.Lovelace@example.org" && found.displayName == "Ada Lovelace")
        #expect(try database.notices.mail(to: "Ada.Lovelace@example.org").map(\.subject) == ["Welcome, Ada Lovelace"])
        #expect(try database.accounts.managers(storeId: store).map(\.displayName) == ["Grace Hopper"])
        #expect(try database.stores.storeChanges(storeId: store).contains {
            $0.field == "manager" && $0.before == "grace.hopper@example.org" && $0.by == "Ada Lovelace"
        })
        #expect(try database.doors.doorLog(storeId: store).contains { entry in
            if case .atKiosk(let name, _)? = entry.staff {
                return name == "Giulia Portinaia" && entry.reason == "scanner broken, her son 333 1234567"
            }
            return false
        })
        let history = try database.accounts.signInFailures(account: "ada.lovelace@example.org", clientAddress: "192.0.2.1",
                                                  since: now - 60)
        #expect(history.pair.count == 1)
        let data = try #require(try database.privacy.personalData(userId: user.id, now: now))
        #expect(data.account.email == "Ada.Lovelace@example.org" && data.emails.count == 1 && data.failedSignIns.count == 1)
        #expect(try database.support.log().map { "\($0.email): \($0.reason)" } == ["Ada.Lovelace@example.org: Ada Lovelace phoned"])
        #expect(try database.stores.storeChanges(storeId: store).contains {
            $0.field == "doorStaff" && $0.before == "grace.hopper@example.org"
        })
    }

    /// Every personal column as the rows hold it, on either engine.
    static func stored(_ database: AppDatabase) throws -> [String] {
        let columns = [
            ("\"user\"", "email"), ("\"user\"", "displayName"), ("\"user\"", "emailKey"), ("outboxMessage", "recipient"),
            ("outboxMessage", "subject"), ("outboxMessage", "body"), ("outboxMessage", "recipientKey"),
            ("doorAction", "staffName"), ("storeChange", "before"), ("signInFailure", "account"),
            ("supportAction", "email"), ("supportAction", "reason"),
        ]
        // A door action's reason is what staff typed, but for a refusal's or a conflict's code.
        let reasons = try database.values(String.self, sql: """
            SELECT reason FROM doorAction WHERE reason <> '' AND action NOT IN ('scanRefused', 'offlineConflict')
            """).compactMap { $0 }
        return try columns.flatMap { table, column in
            try database.values(String.self, sql: "SELECT \(column) FROM \(table) WHERE \(column) <> ''").compactMap { $0 }
        } + reasons
    }

    @Test("the rows hold every name and address sealed, and give them back in clear through the named methods")
    func rowsSealed() throws {
        let database = try Fixture.database()
        let (store, user) = try Self.personalRows(database)
        try Self.readsBack(database, store: store, user: user)
        let stored = try Self.stored(database)
        #expect(stored.count >= 11)
        for value in stored {
            #expect(value.hasPrefix("s1:") || value.hasPrefix("k1:"), "\(value) is not sealed")
            #expect(!Self.plain.contains { value.localizedCaseInsensitiveContains($0) })
        }
    }

    @Test("the database file and its WAL hold no name or address in clear")
    func fileSealed() throws {
        guard Fixture.onSQLite else { return }
        let folder = NSTemporaryDirectory() + "clup-at-rest-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/clup.sqlite"
        let database = try AppDatabase.open(path: path, dataKey: .scratch)
        let (store, user) = try Self.personalRows(database)
        try Self.readsBack(database, store: store, user: user)
        #expect(try Self.clearText(in: [path, path + "-wal"]).isEmpty)
    }

    /// Which of `plain` the files hold, in clear.
    static func clearText(in paths: [String]) throws -> [String] {
        let contents = paths.compactMap { FileManager.default.contents(atPath: $0) }
        #expect(!contents.isEmpty)
        return plain.filter { word in contents.contains { $0.range(of: Data(word.utf8)) != nil } }
    }

    @Test("a database written in clear before is sealed when first opened with a key, and no copy stays in the file")
    func upgradeSealsWhatWasInClear() throws {
        guard Fixture.onSQLite else { return }
        let folder = NSTemporaryDirectory() + "clup-upgrade-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/clup.sqlite"
        do {
            let old = try DatabasePool(path: path)
            try AppDatabase.migrator.migrate(old, upTo: "v27: terms of service accepted")
            try old.write { db in
                try db.execute(sql: """
                    INSERT INTO store (id, name, address, phone, latitude, longitude, capacity, timeZone)
                    VALUES (1, 'Sigillo', 'Via Test 1', '', 45.46, 9.19, 50, 'Europe/Rome');
                    INSERT INTO user (id, email, displayName, passwordHash, createdAt)
                    VALUES (7, 'Ada.Lovelace@example.org', 'Ada Lovelace', 'x', '2026-11-01 10:00:00.000');
                    INSERT INTO outboxMessage (recipient, subject, body, createdAt, nextAttemptAt, recipientKey)
                    VALUES ('Ada.Lovelace@example.org', 'Hello Ada Lovelace', 'Dear Ada Lovelace', '2026-11-01 10:00:00.000',
                            '2026-11-01 10:00:00.000', 'ada.lovelace@example.org');
                    INSERT INTO doorAction (storeId, action, reason, outcome, at, staffName)
                    VALUES (1, 'admit', 'rang 333 1234567', 'inside', '2026-11-01 10:00:00.000', 'Giulia Portinaia');
                    INSERT INTO doorAction (storeId, action, reason, outcome, at)
                    VALUES (1, 'scanRefused', 'expired', 'refused', '2026-11-01 10:01:00.000');
                    INSERT INTO storeChange (storeId, at, field, before, after)
                    VALUES (1, '2026-11-01 10:00:00.000', 'manager', 'grace.hopper@example.org', 'added');
                    INSERT INTO signInFailure (account, clientAddress, at)
                    VALUES ('ada.lovelace@example.org', '192.0.2.1', '2026-11-25 09:00:00.000');
                    """)
            }
            #expect(try Self.clearText(in: [path, path + "-wal"]).count == Self.plain.count)
        }
        let database = try AppDatabase.open(path: path, dataKey: .scratch)
        let user = try #require(try database.accounts.user(email: "ada.lovelace@EXAMPLE.org"))
        #expect(user.id.rawValue == 7 && user.displayName == "Ada Lovelace")
        #expect(try database.notices.mail(to: "Ada.Lovelace@example.org").map(\.body) == ["Dear Ada Lovelace"])
        #expect(try database.stores.storeChanges(storeId: StoreID(rawValue: 1)).map(\.before) == ["grace.hopper@example.org"])
        #expect(try database.accounts.signInFailures(account: "ada.lovelace@example.org", clientAddress: "192.0.2.1",
                                            since: Date(timeIntervalSince1970: 0)).pair.count == 1)
        for value in try Self.stored(database) {
            #expect(value.hasPrefix("s1:") || value.hasPrefix("k1:"), "\(value) is not sealed")
        }
        #expect(try Self.clearText(in: [path, path + "-wal"]).isEmpty)
        // Opened again, nothing is left to seal and nothing changes.
        let sealedOnce = try Self.stored(database)
        #expect(try AppDatabase.sealPersonalData(database.writer, key: .scratch) == 0)
        #expect(try Self.stored(database) == sealedOnce)
    }

    @Test("what the tables no longer check is checked before sealing: an address's and a name's length")
    func lengthsChecked() throws {
        let database = try Fixture.database()
        #expect(throws: AccountError.badName) {
            try database.accounts.createUser(email: "long@example.org", displayName: String(repeating: "n", count: 61),
                                    passwordHash: "x", now: Self.now, confirmation: nil)
        }
        #expect(throws: AccountError.badEmail) {
            try database.accounts.createUser(email: String(repeating: "e", count: 250) + "@x.org", displayName: "Long",
                                    passwordHash: "x", now: Self.now, confirmation: nil)
        }
        let user = try database.accounts.createUser(email: "ok@example.org", displayName: String(repeating: "n", count: 60),
                                           passwordHash: "x", now: Self.now, confirmation: nil)
        #expect(throws: AccountError.badName) {
            try database.accounts.updateProfile(userId: user.id, displayName: "", travelMode: .walking, loyaltyOptIn: false)
        }
        #expect(throws: AccountError.emailTaken) {
            try database.accounts.createUser(email: "OK@example.org", displayName: "Again", passwordHash: "x", now: Self.now,
                                    confirmation: nil)
        }
    }
}
