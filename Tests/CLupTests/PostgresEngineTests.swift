import Foundation
import Synchronization
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport

/// The PostgreSQL engine against a real server: `scripts/test` starts a throwaway one on
/// loopback (`scripts/postgres`) and names it in CLUP_TEST_POSTGRES; without it, only the
/// tests that need no server run.
@Suite("PostgreSQL engine")
struct PostgresEngineTests {
    @Test("a PostgreSQL URL names its hosts, user, password, database and schema")
    func location() throws {
        let one = try PostgresLocation(url: "postgres://clup:s%40cret@db.example.org:6432/shops?schema=milano")
        #expect(one.hosts == [.init(name: "db.example.org", port: 6432)])
        #expect(one.user == "clup" && one.password == "s@cret" && one.database == "shops" && one.schema == "milano")
        let cluster = try PostgresLocation(url: "postgresql://clup@10.0.0.1,10.0.0.2:5433,10.0.0.3/clup")
        #expect(cluster.hosts.map(\.port) == [5432, 5433, 5432] && cluster.password == nil && cluster.schema == nil)
        #expect(try PostgresLocation(url: "postgres://clup@db").database == "clup")
        #expect(one.tlsMode == "prefer" && one.tlsRootCertificate == nil)
        let checked = try PostgresLocation(url: "postgres://clup@db/clup?sslmode=verify-full&sslrootcert=/etc/clup/ca.crt")
        #expect(checked.tlsParameters.map { "\($0)=\($1)" } == ["sslmode=verify-full", "sslrootcert=/etc/clup/ca.crt"])
    }

    @Test("the versions a commit's notice statement returns are read as jsonb writes them")
    func versionTriples() {
        #expect(PostgresEngine.integers(in: "[[12, 3456789012, 1], [7, 0, 0]]") == [12, 3_456_789_012, 1, 7, 0, 0])
        #expect(PostgresEngine.integers(in: "[[1,-2,0]]") == [1, -2, 0])
        #expect(PostgresEngine.integers(in: "[]").isEmpty)
    }

    @Test("a bad PostgreSQL URL is refused with what is wrong, and never echoes the password", arguments: [
        ("mysql://clup@db/clup", "starts with postgres://"),
        ("postgres://db/clup", "names its user"),
        ("postgres://clup@db:0/clup", "no valid port"),
        ("postgres://clup@db:http/clup", "no valid port"),
        ("postgres://clup@db/clup?connect_timeout=1", "unknown PostgreSQL URL parameter"),
        ("postgres://clup@db/clup?sslmode=sometimes", "sslmode is one of"),
        ("postgres://clup@db/clup?sslmode=verify-full", "needs sslrootcert"),
        ("postgres://clup@db/clup?sslmode=require&sslrootcert=ca.crt", "absolute path"),
        ("postgres://clup@db/clup?schema=Robert'); DROP", "a schema name is"),
        ("postgresql:/clup:hunter2@db/clup", "starts with postgres://"),
    ])
    func badLocation(url: String, message: String) {
        #expect {
            _ = try PostgresLocation(url: url)
        } throws: { error in
            "\(error)".contains(message) && !"\(error)".contains("hunter2")
        }
    }

    @Test("a server that is not there is a clear error at once, not a hang")
    func unreachable() throws {
        let started = Date()
        #expect {
            _ = try AppDatabase.open(url: "postgres://clup@127.0.0.1:1/clup", dataKey: .scratch)
        } throws: { error in
            "\(error)".contains("no PostgreSQL primary: 127.0.0.1:1: Connection refused")
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    // MARK: On a real server

    @Test("the schema is made once, whichever worker starts first; a second start finds it",
          .enabled(if: PostgresFixture.url != nil))
    func migrations() throws {
        let url = try PostgresFixture.freshURL()
        // Four workers start at once on an empty schema: the advisory lock lets one migrate.
        let opened = Mutex<[Result<Int, any Error>]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let result = Result { try AppDatabase.open(url: url, dataKey: .scratch).stores.storeCount() }
            opened.withLock { $0.append(result) }
        }
        #expect(opened.withLock { $0 }.allSatisfy { (try? $0.get()) == 0 })
        let again = try AppDatabase.open(url: url, dataKey: .scratch)
        #expect(try again.stores.storeCount() == 0)
    }

    @Test("stores are registered, listed and read back with their hours and departments, and the board has them",
          .enabled(if: PostgresFixture.url != nil))
    func stores() throws {
        let database = try AppDatabase.open(url: try PostgresFixture.freshURL(), dataKey: .scratch)
        let store = try database.stores.createStore(
            Fixture.store("Bottega", at: GeoPoint(latitude: 45.46, longitude: 9.19), capacity: 40),
            hours: Fixture.weekdayHours, departments: [("Bakery", 10), ("Fruit & veg", 6)])
        #expect(store.name == "Bottega" && store.capacity == 40 && store.slotMinutes == 15)
        #expect(try database.stores.store(id: store.id) == store)
        let details = try #require(try database.stores.storeDetails(id: store.id))
        #expect(details.openingIntervals.count == 6 && details.departments.map(\.name) == ["Bakery", "Fruit & veg"])
        #expect(try database.stores.storeDetails(id: StoreID(store.id.rawValue + 1)) == nil)
        #expect(try database.stores.storeListings().map(\.store.name) == ["Bottega"])
        #expect(try database.stores.storeCount() == 1 && database.isHealthy())
        // The writing worker's board has the store at once; another worker loads it on open.
        #expect(database.board.entry(store.id)?.store == store)
        let other = try AppDatabase.open(url: try PostgresFixture.url(of: database), dataKey: .scratch)
        #expect(other.board.entry(store.id)?.definition.departments.count == 2)
    }

    @Test("a store the rules refuse is refused by the engine too, and nothing of it is kept",
          .enabled(if: PostgresFixture.url != nil))
    func refusedStore() throws {
        let database = try AppDatabase.open(url: try PostgresFixture.freshURL(), dataKey: .scratch)
        var crowded = Fixture.store("Too big", at: GeoPoint(latitude: 45.46, longitude: 9.19))
        crowded.capacity = 20_000
        #expect(throws: (any Error).self) {
            try database.stores.createStore(crowded, hours: Fixture.weekdayHours, departments: [])
        }
        // A department that breaks a rule rolls back the store inserted before it.
        #expect(throws: (any Error).self) {
            try database.stores.createStore(Fixture.store("Half", at: GeoPoint(latitude: 45.46, longitude: 9.19)),
                                     hours: [], departments: [("", 10)])
        }
        #expect(try database.stores.storeCount() == 0 && database.board.entries().isEmpty)
    }

    @Test("the demo stores are added once, however many workers start on an empty database",
          .enabled(if: PostgresFixture.url != nil))
    func demoStoresOnce() throws {
        let url = try PostgresFixture.freshURL()
        _ = try AppDatabase.open(url: url, dataKey: .scratch)
        let registration: AppDatabase.StoreRegistration = (
            Fixture.store("Demo", at: GeoPoint(latitude: 45.46, longitude: 9.19)), Fixture.weekdayHours, [])
        let added = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let count = (try? AppDatabase.open(url: url, dataKey: .scratch).stores.createStoresIfEmpty([registration, registration])) ?? -1
            added.withLock { $0.append(count) }
        }
        #expect(added.withLock { $0 }.sorted() == [0, 0, 2])
        #expect(try AppDatabase.open(url: url, dataKey: .scratch).stores.storeCount() == 2)
    }
}

/// Accounts, sessions, emailed links, failed sign-ins, managers and one-time form keys on
/// PostgreSQL: the rules the SQLite suites check, checked on the second engine.
@Suite("PostgreSQL engine: accounts", .enabled(if: PostgresFixture.url != nil))
struct PostgresAccountsTests {
    let database: AppDatabase
    let now = Fixture.wednesdayMorning

    init() throws {
        database = try AppDatabase.open(url: try PostgresFixture.freshURL(), dataKey: .scratch)
    }

    func mail(_ user: User) -> NewOutboxMessage {
        NewOutboxMessage(recipient: user.email, subject: "Confirm", body: "Follow the link", now: now)
    }

    @Test("an account is made with its confirmation link and mail; the address is taken whatever its case")
    func createUser() throws {
        let token = Secrets.token()
        let user = try database.accounts.createUser(email: "Ada@Example.org", displayName: "Ada", passwordHash: "h", now: now,
                                           confirmation: (token, mail))
        #expect(user.email == "Ada@Example.org" && user.role == .customer && user.emailConfirmedAt == nil)
        #expect(try database.accounts.user(email: "ada@example.ORG")?.id == user.id)
        #expect(throws: AccountError.emailTaken) {
            try database.accounts.createUser(email: "ADA@example.org", displayName: "Other", passwordHash: "h", now: now,
                                    confirmation: nil)
        }
        #expect(try database.accounts.isLinkValid(token, purpose: .confirm, now: now))
        #expect(try database.accounts.isLinkValid(token, purpose: .reset, now: now) == false)
        // The link works once, before it expires.
        #expect(try database.accounts.confirmEmail(token: token, now: now + 60).emailConfirmedAt == now + 60)
        #expect(try database.accounts.user(email: "ada@example.org")?.emailConfirmedAt == now + 60)
        #expect(throws: AccountError.invalidOrExpiredLink) { try database.accounts.confirmEmail(token: token, now: now + 120) }
    }

    @Test("sessions: made, read with their account, touched, ended one by one or all together")
    func sessions() throws {
        let user = try database.accounts.createUser(email: "bo@example.org", displayName: "Bo", passwordHash: "h", now: now,
                                           confirmation: nil)
        _ = try database.accounts.createSession(idHash: "one", csrfToken: "c1", userId: user.id, now: now)
        _ = try database.accounts.createSession(idHash: "two", csrfToken: "c2", userId: user.id, now: now)
        let found = try #require(try database.accounts.session(idHash: "one"))
        #expect(found.user.id == user.id && found.session.csrfToken == "c1")
        try database.accounts.touchSession(idHash: "one", now: now + 300)
        #expect(try database.accounts.session(idHash: "one")?.session.lastSeenAt == now + 300)
        #expect(try database.accounts.sessionCount(userId: user.id) == 2)
        // A new password signs out every other session and tells the owner.
        try database.accounts.changePassword(userId: user.id, passwordHash: "new", keepingSession: "one", now: now, notice: mail)
        #expect(try database.accounts.session(idHash: "two") == nil && database.accounts.session(idHash: "one")?.user.passwordHash == "new")
        try database.accounts.deleteSession(idHash: "one")
        #expect(try database.accounts.sessionCount(userId: user.id) == 0)
        try database.accounts.updateProfile(userId: user.id, displayName: "Bo B.", travelMode: .car, loyaltyOptIn: true,
                                   language: "it")
        let changed = try #require(try database.accounts.user(email: "bo@example.org"))
        #expect(changed.displayName == "Bo B." && changed.travelMode == .car && changed.loyaltyOptIn && changed.language == "it")
        try database.accounts.deleteUser(id: user.id, now: now)
        #expect(try database.accounts.user(email: "bo@example.org") == nil)
        #expect(throws: AccountError.noSuchUser) { try database.accounts.deleteUser(id: user.id, now: now) }
    }

    @Test("a reset link sets the password, confirms the address and signs out everywhere; no account, no link")
    func reset() throws {
        let user = try database.accounts.createUser(email: "cy@example.org", displayName: "Cy", passwordHash: "old", now: now,
                                           confirmation: (Secrets.token(), mail))
        _ = try database.accounts.createSession(idHash: "s", csrfToken: "c", userId: user.id, now: now)
        let token = Secrets.token()
        #expect(try database.accounts.issueLink(purpose: .reset, email: "CY@example.org", token: token, now: now, mail: mail)
            .exists)
        #expect(try database.accounts.issueLink(purpose: .reset, email: "nobody@example.org", token: Secrets.token(), now: now,
                                       mail: mail).exists == false)
        let reset = try database.accounts.resetPassword(token: token, passwordHash: "fresh", now: now + 60)
        #expect(reset.passwordHash == "fresh" && reset.emailConfirmedAt == now + 60)
        #expect(try database.accounts.sessionCount(userId: user.id) == 0)
    }

    @Test("one mailbox gets at most its hourly share, however the forms are sent")
    func mailLimit() throws {
        let sent = try (0..<8).map { _ in
            try database.notices.enqueueMail(NewOutboxMessage(recipient: "Dee@example.org", subject: "s", body: "b", now: now),
                                     now: now)
        }
        #expect(sent.filter(\.isQueued).count == AppDatabase.mailPerRecipientPerHour)
        // The rest are refused until the first is an hour old…
        #expect(sent.last == .refused(retryAt: now + 3600))
        // …when the mailbox has its share again.
        #expect(try database.notices.enqueueMail(NewOutboxMessage(recipient: "dee@example.org", subject: "s", body: "b",
                                                          now: now + 3601), now: now + 3601) == .queued(sendAt: now + 3601))
    }

    @Test("failed sign-ins are remembered by address, by client and by both, and forgiven by a success")
    func signInFailures() throws {
        try database.accounts.recordSignInFailure(account: "ed@example.org", clientAddress: "192.0.2.1", now: now)
        try database.accounts.recordSignInFailure(account: "ed@example.org", clientAddress: "192.0.2.2", now: now + 1)
        try database.accounts.recordSignInFailure(account: "fi@example.org", clientAddress: "192.0.2.1", now: now + 2)
        let history = try database.accounts.signInFailures(account: "ed@example.org", clientAddress: "192.0.2.1", since: now - 60)
        #expect(history == SignInHistory(pair: [now], account: [now, now + 1], client: [now, now + 2]))
        try database.accounts.clearSignInFailures(account: "ed@example.org", clientAddress: "192.0.2.1")
        #expect(try database.accounts.signInFailures(account: "ed@example.org", clientAddress: "192.0.2.1", since: now - 60).pair.isEmpty)
    }

    @Test("a manager is assigned a store once, and sees only their stores")
    func managers() throws {
        let store = try database.stores.createStore(Fixture.store("Bottega", at: GeoPoint(latitude: 45.46, longitude: 9.19)),
                                             hours: Fixture.weekdayHours, departments: [])
        let user = try database.accounts.createUser(email: "gus@example.org", displayName: "Gus", passwordHash: "h", now: now,
                                           confirmation: nil)
        try database.accounts.assignStore(storeId: store.id, toManager: "GUS@example.org")
        try database.accounts.assignStore(storeId: store.id, toManager: "gus@example.org")
        #expect(try database.accounts.user(email: "gus@example.org")?.role == .manager)
        #expect(try database.accounts.managedStores(userId: user.id).map(\.id) == [store.id])
        #expect(try database.accounts.isManager(userId: user.id, of: store.id))
        #expect(throws: StoreError.noSuchStore) { try database.accounts.assignStore(storeId: 999, toManager: "gus@example.org") }
        #expect(throws: AccountError.noSuchUser) { try database.accounts.assignStore(storeId: store.id, toManager: "no@example.org") }
    }

    @Test("a form sent twice at once is done once: the second is answered as a retry")
    func formSentTwice() throws {
        let key = "k" + Secrets.token().prefix(20)
        let outcomes = Mutex<[String]>([])
        // Two requests carrying the same form's key, each with its own reply.
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let outcome: String
            do {
                _ = try FormReply.$current.withValue(FormReply(key: key)) {
                    try database.accounts.createUser(email: "twice\(index)@example.org", displayName: "Hal", passwordHash: "h",
                                            now: now, confirmation: nil)
                }
                outcome = "done"
            } catch is FormReply.AlreadyDone {
                outcome = "retry"
            } catch {
                outcome = "\(error)"
            }
            outcomes.withLock { $0.append(outcome) }
        }
        #expect(outcomes.withLock { $0 }.sorted() == ["done", "retry"])
        try database.keepFormReply(key: key, location: "/account")
        #expect(try database.formReply(key: key) == .some("/account"))
        try database.forgetFormReply(key: key)
        #expect(try database.formReply(key: key) == nil)
    }
}

/// The throwaway server `scripts/test` started, and a schema of its own for each test.
enum PostgresFixture {
    /// CLUP_TEST_POSTGRES: the server's URL, if there is one.
    static let url = ProcessInfo.processInfo.environment["CLUP_TEST_POSTGRES"]

    /// The server's URL with a schema no other test uses: an empty database of the test's own.
    static func freshURL() throws -> String {
        let base = try #require(url)
        // Every decision the board answers is checked against the rows (`checksBoard`).
        PostgresEngine.checksBoard.store(true, ordering: .relaxed)
        return base + "?schema=t" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    }

    /// The URL `database` was opened with, for a second worker on the same data.
    static func url(of database: AppDatabase) throws -> String {
        let engine = try #require(database.postgres)
        let location = engine.location
        let host = try #require(location.hosts.first)
        return "postgres://\(location.user)@\(host.name):\(host.port)/\(location.database)"
            + (location.schema.map { "?schema=\($0)" } ?? "")
    }
}
