import Foundation
import GRDB

/// A form sent again after its answer was lost (a dropped connection, a worker killed right
/// after its commit) must not be done twice, nor answered as if it had failed. Every form a
/// page writes carries a one-time key (`formKey`); the first write transaction a request with
/// one makes also records the key, atomically with the change, and the redirect the request
/// answered with is kept beside it. A retry with the same key gets that same redirect, or,
/// if the first answer was a page, a page saying it was done already.
public final class FormReply: @unchecked Sendable {
    /// The reply being recorded for the request in hand, if its form carried a key.
    @TaskLocal public static var current: FormReply?

    public let key: String
    /// Whether a write of this request recorded the key (then something was done).
    public private(set) var recorded = false
    private let lock = NSLock()

    public init(key: String) {
        self.key = key
    }

    /// Inside a write transaction of the request: records the key with the change.
    func record(_ db: Database, now: Date) throws {
        try db.execute(sql: "INSERT OR IGNORE INTO formReply (key, at) VALUES (?, ?)",
                       arguments: [key, now.databaseText])
        lock.withLock { recorded = true }
    }
}

extension AppDatabase {
    /// What a form with `key` was answered already: nil if it never changed anything (so it
    /// may run); otherwise its redirect, or nil inside for "done, with a page".
    public func formReply(key: String) throws -> String?? {
        try reader.read { db in
            try Row.fetchOne(db, sql: "SELECT location FROM formReply WHERE key = ?", arguments: [key])
                .map { $0["location"] as String? }
        }
    }

    /// Keeps the redirect a recorded form was answered with.
    public func keepFormReply(key: String, location: String) throws {
        try write { db in
            try db.execute(sql: "UPDATE formReply SET location = ? WHERE key = ?", arguments: [location, key])
        }
    }

    /// Forgets a recorded form whose answer cannot be replayed (it set a cookie: signing in,
    /// enrolling a kiosk), so a retry runs again and gets its cookie.
    public func forgetFormReply(key: String) throws {
        try write { db in try db.execute(sql: "DELETE FROM formReply WHERE key = ?", arguments: [key]) }
    }
}
