import Foundation
import GRDB
import Synchronization

/// What the database's file and lock say about whether this worker can serve (`/healthz`).
extension AppDatabase {
    /// A failed write that the person should hear about: either way the transaction was rolled
    /// back, so nothing changed, and trying again later may work.
    public enum StorageFailure: Sendable, Equatable {
        /// The disk is full (SQLITE_FULL).
        case diskFull
        /// Another writer held the database past the wait (SQLITE_BUSY, SQLITE_LOCKED).
        case busy
    }

    /// The storage failure `error` is, if it is one.
    public static func storageFailure(_ error: any Error) -> StorageFailure? {
        if let failure = PostgresEngine.storageFailure(error) { return failure }
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_FULL: return .diskFull
        case .SQLITE_BUSY, .SQLITE_LOCKED: return .busy
        default: return nil
        }
    }

    /// How long a write-lock probe's answer stands: however often `/healthz` is asked, the
    /// lock is taken at most once in this time (four times a second), and a blocked lock is
    /// still seen within a second.
    static let probeLifetime: TimeInterval = 0.25
    private static let lastProbe = Mutex<(at: Date, path: String, free: Bool)?>(nil)

    /// Whether this worker could take the write lock, on a connection of its own, waiting at
    /// most a second and letting it go at once. Always true for an in-memory database (it has
    /// no other writer to wait for). Answered from the last probe within `probeLifetime`.
    public func writeLockIsFree() -> Bool {
        guard let pool = (try? writer) as? DatabasePool else { return true }
        let now = Date()
        if let last = Self.lastProbe.withLock({ $0 }), last.path == pool.path,
            now.timeIntervalSince(last.at) < Self.probeLifetime
        {
            return last.free
        }
        let free = Self.takeWriteLock(pool)
        Self.lastProbe.withLock { $0 = (now, pool.path, free) }
        return free
    }

    private static func takeWriteLock(_ pool: DatabasePool) -> Bool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(1)
        configuration.allowsUnsafeTransactions = true
        do {
            let probe = try DatabaseQueue(path: pool.path, configuration: configuration)
            try probe.writeWithoutTransaction { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                try db.execute(sql: "ROLLBACK")
            }
            return true
        } catch {
            return false
        }
    }

    /// Bytes free to this process on the database's filesystem, if it is a file.
    public func freeDiskSpace() -> Int64? {
        guard let pool = (try? writer) as? DatabasePool else { return nil }
        var stats = statvfs()
        guard statvfs((pool.path as NSString).deletingLastPathComponent, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}

extension AppDatabase {
    /// Answers whether the database can be read and has its schema: for `/healthz`.
    public func isHealthy() -> Bool {
        (try? stores.storeCount()) != nil
    }
}
