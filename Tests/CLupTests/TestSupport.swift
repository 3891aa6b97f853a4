import Foundation
import Logging
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Fixed instants and helpers shared by the suites. Time is always pinned: rules are tested by
/// moving the clock, never by sleeping.
enum Fixture {
    static let rome = TimeZone(identifier: "Europe/Rome")!
    static let newYork = TimeZone(identifier: "America/New_York")!

    /// The repository root, from this file's location (Tests/CLupTests/TestSupport.swift).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A local wall-clock time in `zone`.
    static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0,
                     in zone: TimeZone = rome) -> Date
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar.date(from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute))!
    }

    /// Wednesday 18 November 2026, 10:00 in Milan.
    static let wednesdayMorning = date(2026, 11, 18, 10)

    static func views() throws -> Views {
        Views(assets: try Assets(publicDirectory: root + "/Public"))
    }

    /// The QR token signer tests share: a fixed secret, so tokens can be checked.
    static let tickets = try! TicketToken(secret: "a fixed test secret, long enough to be a key")
    /// The stores' signing keys under that secret.
    static let storeKeys = StoreKeys(tickets)

    /// The QR code's text of `reservation`, signed with its store's current key, as pages draw it.
    static func doorCode(_ reservation: Reservation, _ database: AppDatabase, now: Date = wednesdayMorning) throws -> String {
        try TicketCodes(database: database, tickets: tickets).text(for: reservation, now: now)
    }

    /// Gives `storeId` a long history of visits that lasted exactly as declared and were all
    /// scanned out, so its estimate is the plain simulation of exits (a new store's assumes
    /// visits vary and some are never scanned out): for suites about what follows from a
    /// time, not about the estimate. Fifty thousand visits outweigh the model's prior until
    /// the spread rounds to 0: visits that do not vary.
    static func historyAsDeclared(_ storeId: StoreID, in database: AppDatabase) throws {
        try database.execute(sql: """
            UPDATE storeLoad SET measuredVisits = 50000, declaredSeconds = 50000 * 1800, actualSeconds = 50000 * 1800,
                loggedVisits = 50000, logRatioSum = 0, logRatioSquares = 0, unscannedVisits = 0, visitsBeforeUnscanned = 0
            WHERE storeId = ?
            """, storeId)
    }

    /// The real app over a fresh in-memory SQLite, with the clock pinned at `now`.
    static func app(now: Date = wednesdayMorning, database: AppDatabase? = nil) throws -> App {
        try app(clock: { now }, database: database)
    }

    /// A fresh, empty database for one test: an in-memory SQLite, or — when CLUP_TEST_ENGINE is
    /// `postgres` (`scripts/test` runs the suites a second time so) — a schema of its own on
    /// the throwaway PostgreSQL server, so every suite checks both engines.
    static func database() throws -> AppDatabase {
        onPostgres ? try AppDatabase.open(url: try PostgresFixture.freshURL(), dataKey: .scratch) : try AppDatabase.inMemory()
    }

    /// Runs `body` with a production SQLite database (`AppDatabase.open`) in a folder of its
    /// own, given with the database file's path, and removes the folder after: for tests of
    /// SQLite's files, locks and checkpoints, which an in-memory database does not have.
    static func withDatabaseFile<T>(_ body: (AppDatabase, String) throws -> T) throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clup-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("clup.sqlite").path
        return try body(try AppDatabase.open(path: path, dataKey: .scratch), path)
    }

    /// Whether the suites run on PostgreSQL (CLUP_TEST_ENGINE=postgres).
    static let onPostgres = ProcessInfo.processInfo.environment["CLUP_TEST_ENGINE"] == "postgres"

    /// Whether the suites run on SQLite: tests of SQLite itself (its files, pragmas, locks) run then only.
    static let onSQLite = !onPostgres

    /// Whether suites that never touch a database (templates, routes, parsing, tokens, the
    /// layers, child processes) run in this pass: the first only. The second pass, on
    /// PostgreSQL, runs what reads or writes rows (`scripts/test` skips the domain's and
    /// FastCGI's targets too).
    static let engineFreePass = !onPostgres

    /// The real app with a clock the test moves.
    static func app(clock: @escaping @Sendable () -> Date, database: AppDatabase? = nil) throws -> App {
        let environment = AppEnvironment(
            database: try database ?? Fixture.database(), now: clock, logger: Logger(label: "test"),
            settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: tickets)
        return App(environment: environment, views: try views())
    }

    static func store(_ name: String, at position: GeoPoint, capacity: Int = 50) -> NewStore {
        NewStore(name: name, address: "Via Test 1, Milano", phone: "+39 02 1234 5678", position: position,
              capacity: capacity, timeZone: "Europe/Rome")
    }

    /// Mon–Sat 08:00–21:00.
    static let weekdayHours = (1...6).map { OpeningInterval(weekday: $0, opens: 8 * 60, closes: 21 * 60) }

    /// The password every test account has ("correct horse battery"), hashed once.
    static let passwordHash = PasswordHasher().hash("correct horse battery")

    /// What most in-process suites start from: a clock pinned at Wednesday 10:00 in Milan that
    /// the test moves, an in-memory SQLite, and the app over both.
    static func start() throws -> (clock: TestClock, database: AppDatabase, app: App) {
        let clock = TestClock()
        let database = try Fixture.database()
        return (clock, database, try app(clock: { clock.now }, database: database))
    }

    /// The store edit form's fields as `store` stands, with `changes`: what a manager who
    /// opened the form and changed those sends.
    static func editForm(_ store: Store, _ changes: [String: String] = [:]) -> [(String, String)] {
        var values = Dictionary(uniqueKeysWithValues: StoreEdit(store).fields)
        values.merge(changes) { $1 }
        return ManageArea.editFields.map { ($0.name, values[$0.name] ?? "") }
    }

    /// `email` as a manager of store `storeId` (created with the test password).
    static func manager(_ email: String, of storeId: StoreID, in database: AppDatabase, now: Date) throws {
        _ = try database.accounts.createUser(email: email, displayName: "Boss", passwordHash: passwordHash, role: .manager, now: now,
                                    confirmation: nil)
        try database.accounts.assignStore(storeId: storeId, toManager: email)
    }
}

extension App {
    /// A GET through the same CGI parsing nginx's parameters go through.
    func get(_ target: String, cookies: String? = nil) -> Response {
        request("GET", target, cookies: cookies)
    }

    func request(_ method: String, _ target: String, cookies: String? = nil, body: [UInt8] = [],
                 contentType: String? = nil) -> Response
    {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var params: [String: [UInt8]] = [
            "REQUEST_METHOD": Array(method.utf8),
            "REQUEST_URI": Array(target.utf8),
            "QUERY_STRING": parts.count > 1 ? Array(parts[1].utf8) : [],
            "REMOTE_ADDR": Array("127.0.0.1".utf8),
        ]
        if let cookies { params["HTTP_COOKIE"] = Array(cookies.utf8) }
        if let contentType { params["CONTENT_TYPE"] = Array(contentType.utf8) }
        return respond(cgiParams: params, body: body, bodyTooLarge: false)
    }
}
