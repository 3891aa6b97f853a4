import CLupDomain
import Foundation
import Synchronization

/// What a signed-in page or a kiosk's request reads about who is asking — the session with its
/// user, the kiosk key, the customer's active reservation — as last read, so that it does not
/// ask SQLite every time.
///
/// Sessions and kiosks are emptied whole whenever a transaction changes a session, a user or a
/// kiosk; a customer's active reservation is forgotten when a transaction changes one of their
/// reservations (the board's observer sees both commit); everything is emptied when another
/// process has written to the database (`refreshBoard`, within a second). A signed-out
/// session, a changed profile, a revoked key or a ticket just called is never answered from
/// here afterwards.
///
/// A value read while something was forgotten is returned but not kept: it may have been read
/// from a snapshot older than the commit that made it wrong, and kept, it would outlive it.
final class CredentialCache: Sendable {
    /// Past this many entries a table starts again empty (simple, and rare): the sessions
    /// active within moments of each other, not every session there is (a cached session with
    /// its user is about half a kilobyte; a miss costs one indexed read).
    static let capacity = 5_000

    private struct Entries {
        var sessions: [String: (session: UserSession, user: User)?] = [:]
        var kiosks: [String: Kiosk?] = [:]
        var activeReservations: [UserID: Reservation?] = [:]
        /// Counts every forgetting: a read that began before one is not kept.
        var generation = 0
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

    /// The customer's active reservation (waiting, called, inside or booked), if any.
    func activeReservation(_ userId: UserID, orRead read: () throws -> Reservation?) rethrows -> Reservation? {
        try remembered(userId, in: \.activeReservations, orRead: read)
    }

    /// The value kept for `key` in `table` (a remembered nil included), else `read()`, kept
    /// unless something was forgotten meanwhile.
    private func remembered<Key: Hashable, Value: Sendable>(
        _ key: Key, in table: WritableKeyPath<Entries, [Key: Value?]>, orRead read: () throws -> Value?
    ) rethrows -> Value? {
        let (found, generation): (Value??, Int) = entries.withLock { ($0[keyPath: table][key], $0.generation) }
        if let found { return found }
        let value = try read()
        entries.withLock { entries in
            guard entries.generation == generation else { return }
            if entries[keyPath: table].count >= Self.capacity { entries[keyPath: table].removeAll(keepingCapacity: true) }
            entries[keyPath: table][key] = .some(value)
        }
        return value
    }

    /// Forgets sessions and kiosks: a session, a user or a kiosk changed.
    func clearCredentials() {
        entries.withLock { entries in
            entries.sessions = [:]
            entries.kiosks = [:]
            entries.generation += 1
        }
    }

    /// Forgets these customers' active reservations: one of their reservations changed.
    func forgetActiveReservations(of users: some Sequence<UserID>) {
        entries.withLock { entries in
            for user in users { entries.activeReservations[user] = nil }
            entries.generation += 1
        }
    }

    /// Forgets everything: another process wrote to the database, or a change could not be
    /// traced to its customers.
    func clear() {
        entries.withLock { $0 = Entries(generation: $0.generation + 1) }
    }
}
