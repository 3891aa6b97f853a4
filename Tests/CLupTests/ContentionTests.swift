import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// What a person is told when the database cannot take a write: another process holding the
/// write lock past the wait, or no room left on the disk. The write is rolled back and the
/// answer says so — 503 "nothing was changed" with when to try again — never a 500 that hides
/// whether it happened. Reads go on meanwhile.
@Suite("Answers under contention")
struct ContentionTests {
    @Test("a write that cannot get the lock is answered 503 with Retry-After and changes nothing; pages still read")
    func lockedOut() throws {
        try Fixture.withDatabaseFile { database, path in try lockedOut(database, path: path) }
    }

    private func lockedOut(_ database: AppDatabase, path: String) throws {
        let store = try database.stores.createStore(
            Fixture.store("Bottega Lock", at: Place.milan[0].position), hours: Fixture.weekdayHours, departments: [])
        _ = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada", passwordHash: Fixture.passwordHash,
                                    now: Fixture.wednesdayMorning, confirmation: nil)
        let app = try Fixture.app(database: database)
        let browser = Browser(app)
        try browser.signIn(email: "ada@example.org")
        let recap = try browser.get("/stores/\(store.id)/reserve/recap?kind=lineUp&minutes=30&people=1&place=duomo&mode=walking")
        #expect(recap.status == 200)
        let fields = recap.bodyText.matches(of: /<input type="hidden" name="([^"]+)" value="([^"]*)">/).map {
            (String($0.1), String($0.2))
        }

        // Another process takes the write lock and keeps it.
        var holding = Configuration()
        holding.allowsUnsafeTransactions = true  // the lock is kept across accesses, on purpose
        let outsider = try DatabaseQueue(path: path, configuration: holding)
        try outsider.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let started = Date()
        let answer = try browser.post("/stores/\(store.id)/reservations", fields.filter { $0.0 != "csrf" })
        let waited = Date().timeIntervalSince(started)
        #expect(answer.status == 503)
        #expect(answer.header("Retry-After") == "5")
        #expect(answer.bodyText.contains("CLup is busy. Nothing was changed: please try again in a few seconds."))
        #expect(waited >= 1.4 && waited < 2)  // the busy timeout (1.5 s): told within 2 s, well inside nginx's 10 s
        // A page that only reads is served meanwhile.
        #expect(try browser.get("/stores/\(store.id)").status == 200)
        try outsider.writeWithoutTransaction { db in try db.execute(sql: "ROLLBACK") }
        #expect(try database.reservations.forCustomer(userId: try require(try database.accounts.user(email: "ada@example.org")).id).isEmpty)
        // Once free, the same form goes through.
        #expect(try browser.post("/stores/\(store.id)/reservations", fields.filter { $0.0 != "csrf" }).status == 303)
    }

    @Test("a full disk or a busy database reads as what it is; other errors stay a generic 500")
    func storageErrors() {
        let full = HTTPError.storage(DatabaseError(resultCode: .SQLITE_FULL))
        #expect(full?.status == 503 && full?.headers["Retry-After"] == "60")
        #expect(full?.message.contains("Nothing was changed") == true)
        #expect(HTTPError.storage(DatabaseError(resultCode: .SQLITE_BUSY))?.status == 503)
        #expect(HTTPError.storage(DatabaseError(resultCode: .SQLITE_CONSTRAINT)) == nil)
        #expect(HTTPError.storage(CocoaError(.fileNoSuchFile)) == nil)
    }
}
