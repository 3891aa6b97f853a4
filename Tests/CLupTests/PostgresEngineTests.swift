import Foundation
import Synchronization
import Testing

@testable import CLupData
@testable import CLupDomain

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
    }

    @Test("a bad PostgreSQL URL is refused with what is wrong, and never echoes the password", arguments: [
        ("mysql://clup@db/clup", "starts with postgres://"),
        ("postgres://db/clup", "names its user"),
        ("postgres://clup@db:0/clup", "no valid port"),
        ("postgres://clup@db:http/clup", "no valid port"),
        ("postgres://clup@db/clup?sslmode=disable", "unknown PostgreSQL URL parameter"),
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
            _ = try AppDatabase.open(url: "postgres://clup@127.0.0.1:1/clup")
        } throws: { error in
            "\(error)".contains("no PostgreSQL primary") && "\(error)".contains("127.0.0.1:1")
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
            let result = Result { try AppDatabase.open(url: url).storeCount() }
            opened.withLock { $0.append(result) }
        }
        #expect(opened.withLock { $0 }.allSatisfy { (try? $0.get()) == 0 })
        let again = try AppDatabase.open(url: url)
        #expect(try again.storeCount() == 0)
    }

    @Test("stores are registered, listed and read back with their hours and departments, and the board has them",
          .enabled(if: PostgresFixture.url != nil))
    func stores() throws {
        let database = try AppDatabase.open(url: try PostgresFixture.freshURL())
        let store = try database.createStore(
            Fixture.store("Bottega", at: GeoPoint(latitude: 45.46, longitude: 9.19), capacity: 40),
            hours: Fixture.weekdayHours, departments: [("Bakery", 10), ("Fruit & veg", 6)])
        #expect(store.name == "Bottega" && store.capacity == 40 && store.slotMinutes == 15)
        #expect(try database.store(id: store.id) == store)
        let details = try #require(try database.storeDetails(id: store.id))
        #expect(details.openingIntervals.count == 6 && details.departments.map(\.name) == ["Bakery", "Fruit & veg"])
        #expect(try database.storeDetails(id: StoreID(store.id.rawValue + 1)) == nil)
        #expect(try database.storeListings().map(\.store.name) == ["Bottega"])
        #expect(try database.storeCount() == 1 && database.isHealthy())
        // The writing worker's board has the store at once; another worker loads it on open.
        #expect(database.board.entry(store.id)?.store == store)
        let other = try AppDatabase.open(url: try PostgresFixture.url(of: database))
        #expect(other.board.entry(store.id)?.definition.departments.count == 2)
    }

    @Test("a store the rules refuse is refused by the engine too, and nothing of it is kept",
          .enabled(if: PostgresFixture.url != nil))
    func refusedStore() throws {
        let database = try AppDatabase.open(url: try PostgresFixture.freshURL())
        var crowded = Fixture.store("Too big", at: GeoPoint(latitude: 45.46, longitude: 9.19))
        crowded.capacity = 20_000
        #expect(throws: (any Error).self) {
            try database.createStore(crowded, hours: Fixture.weekdayHours, departments: [])
        }
        // A department that breaks a rule rolls back the store inserted before it.
        #expect(throws: (any Error).self) {
            try database.createStore(Fixture.store("Half", at: GeoPoint(latitude: 45.46, longitude: 9.19)),
                                     hours: [], departments: [("", 10)])
        }
        #expect(try database.storeCount() == 0 && database.board.entries().isEmpty)
    }

    @Test("the demo stores are added once, however many workers start on an empty database",
          .enabled(if: PostgresFixture.url != nil))
    func demoStoresOnce() throws {
        let url = try PostgresFixture.freshURL()
        _ = try AppDatabase.open(url: url)
        let registration: AppDatabase.StoreRegistration = (
            Fixture.store("Demo", at: GeoPoint(latitude: 45.46, longitude: 9.19)), Fixture.weekdayHours, [])
        let added = Mutex<[Int]>([])
        DispatchQueue.concurrentPerform(iterations: 3) { _ in
            let count = (try? AppDatabase.open(url: url).createStoresIfEmpty([registration, registration])) ?? -1
            added.withLock { $0.append(count) }
        }
        #expect(added.withLock { $0 }.sorted() == [0, 0, 2])
        #expect(try AppDatabase.open(url: url).storeCount() == 2)
    }
}

/// The throwaway server `scripts/test` started, and a schema of its own for each test.
enum PostgresFixture {
    /// CLUP_TEST_POSTGRES: the server's URL, if there is one.
    static let url = ProcessInfo.processInfo.environment["CLUP_TEST_POSTGRES"]

    /// The server's URL with a schema no other test uses: an empty database of the test's own.
    static func freshURL() throws -> String {
        let base = try #require(url)
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
