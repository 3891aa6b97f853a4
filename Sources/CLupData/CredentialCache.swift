import Foundation
import Synchronization

/// Sessions (with their user) and kiosk keys as last read, so a signed-in page or a kiosk's
/// request does not ask SQLite who is asking every time. Emptied whole whenever a transaction
/// changes a session, a user or a kiosk (the board's observer sees it commit), and when another
/// process has written to the database (`refreshBoard`, within a second): a signed-out session,
/// a changed profile or a revoked key is never answered from here afterwards.
final class CredentialCache: Sendable {
    /// Past this many entries the cache starts again empty (simple, and rare): the sessions
    /// active within moments of each other, not every session there is (a cached session with
    /// its user is about half a kilobyte; a miss costs one indexed read).
    static let capacity = 5_000

    private struct Entries {
        var sessions: [String: (session: UserSession, user: User)?] = [:]
        var kiosks: [String: Kiosk?] = [:]
    }

    private let entries = Mutex(Entries())

    func session(_ idHash: String, orRead read: () throws -> (session: UserSession, user: User)?) rethrows
        -> (session: UserSession, user: User)?
    {
        try remembered(idHash, in: \.sessions, orRead: read)
    }

    func kiosk(_ keyHash: String, orRead read: () throws -> Kiosk?) rethrows -> Kiosk? {
        try remembered(keyHash, in: \.kiosks, orRead: read)
    }

    /// The value kept for `key` in `table` (a remembered nil included), else `read()`, kept.
    private func remembered<Value: Sendable>(_ key: String, in table: WritableKeyPath<Entries, [String: Value?]>,
                                   orRead read: () throws -> Value?) rethrows -> Value?
    {
        let found: Value?? = entries.withLock { $0[keyPath: table][key] }
        if let found { return found }
        let value = try read()
        entries.withLock { entries in
            if entries[keyPath: table].count >= Self.capacity { entries[keyPath: table].removeAll(keepingCapacity: true) }
            entries[keyPath: table][key] = .some(value)
        }
        return value
    }

    func clear() {
        entries.withLock { $0 = Entries() }
    }
}
