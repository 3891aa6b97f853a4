import Foundation
import Synchronization

/// Sessions (with their user) and kiosk keys as last read, so a signed-in page or a kiosk's
/// request does not ask SQLite who is asking every time. Emptied whole whenever a transaction
/// changes a session, a user or a kiosk (the board's observer sees it commit), and when another
/// process has written to the database (`refreshBoard`, within a second): a signed-out session,
/// a changed profile or a revoked key is never answered from here afterwards.
final class CredentialCache: Sendable {
    /// Past this many entries the cache starts again empty (simple, and rare).
    static let capacity = 20_000

    private struct Entries {
        var sessions: [String: (session: UserSession, user: User)?] = [:]
        var kiosks: [String: Kiosk?] = [:]
    }

    private let entries = Mutex(Entries())

    func session(_ idHash: String, orRead read: () throws -> (session: UserSession, user: User)?) rethrows
        -> (session: UserSession, user: User)?
    {
        if let found = entries.withLock({ $0.sessions[idHash] }) { return found }
        let value = try read()
        entries.withLock { entries in
            if entries.sessions.count >= Self.capacity { entries.sessions.removeAll(keepingCapacity: true) }
            entries.sessions[idHash] = .some(value)
        }
        return value
    }

    func kiosk(_ keyHash: String, orRead read: () throws -> Kiosk?) rethrows -> Kiosk? {
        if let found = entries.withLock({ $0.kiosks[keyHash] }) { return found }
        let value = try read()
        entries.withLock { entries in
            if entries.kiosks.count >= Self.capacity { entries.kiosks.removeAll(keepingCapacity: true) }
            entries.kiosks[keyHash] = .some(value)
        }
        return value
    }

    func clear() {
        entries.withLock { $0 = Entries() }
    }
}
