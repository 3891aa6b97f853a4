import Foundation
import GRDB
import Testing

@testable import CLupData

/// Group commit: transactions asked for together share one commit, each answered with its own
/// result, and one that fails leaves nothing behind while the others stand.
@Suite("Group commit")
struct GroupCommitTests {
    /// Counts commits and rollbacks on the connection.
    final class Commits: TransactionObserver, @unchecked Sendable {
        private let lock = NSLock()
        private var commits = 0
        private var rollbacks = 0
        var counts: (commits: Int, rollbacks: Int) { lock.withLock { (commits, rollbacks) } }
        func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool { false }
        func databaseDidChange(with event: DatabaseEvent) {}
        func databaseDidCommit(_ db: Database) { lock.withLock { commits += 1 } }
        func databaseDidRollback(_ db: Database) { lock.withLock { rollbacks += 1 } }
    }

    struct Refused: Error, Equatable { let value: Int }

    /// A database with one table, a group commit over it, and a commit counter.
    func fixture() throws -> (DatabaseQueue, GroupCommit, Commits) {
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute(sql: "CREATE TABLE item (value INTEGER NOT NULL UNIQUE)") }
        let commits = Commits()
        queue.add(transactionObserver: commits, extent: .databaseLifetime)
        return (queue, GroupCommit(writer: queue), commits)
    }

    /// Holds the writer inside a first transaction until `others` more callers are queued
    /// behind it, so that they are sure to form one group. Returns each caller's outcome.
    func writeTogether(_ group: GroupCommit, _ others: [@Sendable (Database) throws -> Int])
        -> [Result<Int, Refused>]
    {
        let firstInside = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let outcomes = OutcomeBox(count: others.count)
        let everyone = DispatchGroup()
        // Threads of their own: blocked callers must not wait for a pool to grow.
        func spawn(_ body: @escaping @Sendable () -> Void) {
            everyone.enter()
            Thread.detachNewThread {
                body()
                everyone.leave()
            }
        }
        spawn {
            _ = try? group.write { db -> Int in
                firstInside.signal()
                release.wait()
                try db.execute(sql: "INSERT INTO item (value) VALUES (0)")
                return 0
            }
        }
        firstInside.wait()
        for (index, work) in others.enumerated() {
            spawn {
                do {
                    outcomes.set(index, .success(try group.write(work)))
                } catch let refused as Refused {
                    outcomes.set(index, .failure(refused))
                } catch {
                    outcomes.set(index, .failure(Refused(value: -1)))
                }
            }
        }
        // Every other caller is queued once it waits: give them time to arrive.
        while group.queuedCount < others.count { usleep(1_000) }
        release.signal()
        everyone.wait()
        return outcomes.values
    }

    final class OutcomeBox: @unchecked Sendable {
        private let lock = NSLock()
        private var results: [Result<Int, Refused>?]
        init(count: Int) { results = Array(repeating: nil, count: count) }
        func set(_ index: Int, _ result: Result<Int, Refused>) { lock.withLock { results[index] = result } }
        var values: [Result<Int, Refused>] { lock.withLock { results.map { $0! } } }
    }

    static func insert(_ value: Int) -> @Sendable (Database) throws -> Int {
        { db in
            try db.execute(sql: "INSERT INTO item (value) VALUES (?)", arguments: [value])
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item")!
        }
    }

    @Test("callers queued behind a transaction are written together, with one commit")
    func groups() throws {
        let (queue, group, commits) = try fixture()
        let outcomes = writeTogether(group, (1...5).map { Self.insert($0) })
        // The first transaction committed alone; the five behind it in one more.
        #expect(commits.counts.commits == 2)
        // Each saw the rows of those before it in the group: answers are each one's own.
        #expect(outcomes.compactMap { try? $0.get() }.sorted() == [2, 3, 4, 5, 6])
        #expect(try queue.read { db in try Int.fetchAll(db, sql: "SELECT value FROM item ORDER BY value") }
            == [0, 1, 2, 3, 4, 5])
    }

    @Test("a caller whose work fails gets its error and leaves nothing; the others stand")
    func failureIsolated() throws {
        let (queue, group, commits) = try fixture()
        let failing: @Sendable (Database) throws -> Int = { db in
            try db.execute(sql: "INSERT INTO item (value) VALUES (99)")
            throw Refused(value: 7)
        }
        let outcomes = writeTogether(group, [Self.insert(1), failing, Self.insert(2)])
        #expect(outcomes[1] == .failure(Refused(value: 7)))
        // Run again without the failing one, the others' answers are as if it never ran.
        #expect(Set(outcomes.compactMap { try? $0.get() }) == [2, 3])
        #expect(try queue.read { db in try Int.fetchAll(db, sql: "SELECT value FROM item ORDER BY value") }
            == [0, 1, 2])
        #expect(commits.counts.commits == 2 && commits.counts.rollbacks == 1)
    }

    @Test("a constraint broken by one caller rolls back only that caller's work")
    func constraintIsolated() throws {
        let (queue, group, _) = try fixture()
        let outcomes = writeTogether(group, [Self.insert(1), Self.insert(1), Self.insert(3)])
        #expect(outcomes.filter { (try? $0.get()) == nil }.count == 1)
        #expect(try queue.read { db in try Int.fetchAll(db, sql: "SELECT value FROM item ORDER BY value") }
            == [0, 1, 3])
    }

    @Test("a write alone is committed at once, and its error is thrown")
    func alone() throws {
        let (queue, group, commits) = try fixture()
        #expect(try group.write(Self.insert(5)) == 1)
        #expect(throws: Refused(value: 1)) { try group.write { _ -> Int in throw Refused(value: 1) } }
        #expect(commits.counts == (1, 1))
        #expect(try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item") } == 1)
    }
}
