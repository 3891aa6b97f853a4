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
    private var committed = false
    private let lock = NSLock()

    public init(key: String) {
        self.key = key
    }

    /// Whether a write of this request committed with the key (then something was done).
    public var recorded: Bool { lock.withLock { committed } }

    /// The same form is being done, or was done, by another request (sent twice at once: a
    /// double click): this one's transaction is rolled back, and it is answered as a retry.
    public struct AlreadyDone: Error {}

    /// Inside a write transaction of the request: records the key with the change, or throws
    /// `AlreadyDone` if another request recorded it (a later write of this same request finds
    /// its own key and goes on).
    func record(_ transaction: some SQLTransaction, now: Date) throws {
        let inserted = try transaction.execute("INSERT INTO formReply (key, at) VALUES (\(key), \(now)) ON CONFLICT DO NOTHING")
        if inserted == 0 && !recorded { throw AlreadyDone() }
    }

    /// After a write of this request committed.
    func committedWrite() {
        lock.withLock { committed = true }
    }
}

extension AppDatabase {
    /// What a form with `key` was answered already: nil if it never changed anything (so it
    /// may run); otherwise its redirect, or nil inside for "done, with a page".
    public func formReply(key: String) throws -> String?? {
        try reading { transaction in
            try transaction.row("SELECT location FROM formReply WHERE key = \(key)").map { try $0.value(0, as: String.self) }
        }
    }

    /// Keeps the redirect a recorded form was answered with.
    public func keepFormReply(key: String, location: String) throws {
        try transaction { transaction in
            try transaction.execute("UPDATE formReply SET location = \(location) WHERE key = \(key)")
        }
    }

    /// Forgets a recorded form whose answer cannot be replayed (it set a cookie: signing in,
    /// enrolling a kiosk), so a retry runs again and gets its cookie.
    public func forgetFormReply(key: String) throws {
        try transaction { transaction in try transaction.execute("DELETE FROM formReply WHERE key = \(key)") }
    }
}
