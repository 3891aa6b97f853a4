import CLupDomain
import Foundation
import Synchronization

/// What a signed-in page or a kiosk's request reads about who is asking — the session with its
/// user, the kiosk key, the customer's active reservation — as last read, so that it does not
/// ask the database every time.
///
/// Sessions and kiosks are emptied whole whenever a transaction changes a session, a user or a
/// kiosk; a customer's active reservation is forgotten when a transaction changes one of their
/// reservations. On SQLite the board's observer sees both commit, and everything is emptied
/// when another process has written to the database (`refreshBoard`, within a second). On
/// PostgreSQL each transaction says what it changed, and the other workers hear it through the
/// board feed as it commits; while a worker is not listening it keeps nothing
/// (`AppDatabase.remembersCredentials`), and it empties everything when it listens again. A signed-out
/// session, a changed profile, a revoked key or a ticket just called is never answered from
/// here afterwards.
///
/// A value read while it was forgotten is returned but not kept: it may have been read from a
/// snapshot older than the commit that made it wrong, and kept, it would outlive it. Only what
/// was forgotten counts: a customer's reservation called while another's is being read does not
/// stop that read being kept (at a busy chain some reservation changes every few milliseconds,
/// and with one count for everything nothing would stay kept).
final class CredentialCache: Sendable {
    /// Past this many entries a table starts again empty (simple, and rare): the sessions
    /// active within moments of each other, not every session there is (a cached session with
    /// its user is about half a kilobyte; a miss costs one indexed read).
    static let capacity = 5_000

    private struct Entries {
        var sessions: [String: (session: UserSession, user: User)?] = [:]
        var kiosks: [String: Kiosk?] = [:]
        var activeReservations: [UserID: Reservation?] = [:]
        /// Counts every forgetting; a read notes it as it begins.
        var generation = 0
        /// When sessions and kiosks were last forgotten.
        var credentialsForgotten = 0
        /// When every active reservation was last forgotten.
        var reservationsForgotten = 0
        /// When each customer's active reservation was forgotten since then (emptied, as
        /// forgetting everyone, past `capacity`).
        var customersForgotten: [UserID: Int] = [:]

        /// Forgets every active reservation.
        mutating func forgetReservations() {
            generation += 1
            activeReservations = [:]
            customersForgotten = [:]
            reservationsForgotten = generation
        }
    }

    private let entries = Mutex(Entries())

    func session(_ idHash: String, orRead read: () throws -> (session: UserSession, user: User)?) rethrows
        -> (session: UserSession, user: User)?
    {
        try remembered(idHash, in: \.sessions, orRead: read) { entries, began in entries.credentialsForgotten <= began }
    }

    func kiosk(_ keyHash: String, orRead read: () throws -> Kiosk?) rethrows -> Kiosk? {
        try remembered(keyHash, in: \.kiosks, orRead: read) { entries, began in entries.credentialsForgotten <= began }
    }

    /// The customer's active reservation (waiting, called, inside or booked), if any.
    func activeReservation(_ userId: UserID, orRead read: () throws -> Reservation?) rethrows -> Reservation? {
        try remembered(userId, in: \.activeReservations, orRead: read) { entries, began in
            entries.reservationsForgotten <= began && entries.customersForgotten[userId, default: 0] <= began
        }
    }

    /// The value kept for `key` in `table` (a remembered nil included), else `read()`, kept if
    /// nothing `stillTrue` asks about was forgotten since the read began.
    private func remembered<Key: Hashable, Value: Sendable>(
        _ key: Key, in table: WritableKeyPath<Entries, [Key: Value?]>, orRead read: () throws -> Value?,
        stillTrue: (Entries, _ began: Int) -> Bool
    ) rethrows -> Value? {
        let (found, began): (Value??, Int) = entries.withLock { ($0[keyPath: table][key], $0.generation) }
        if let found { return found }
        let value = try read()
        entries.withLock { entries in
            guard stillTrue(entries, began) else { return }
            if entries[keyPath: table].count >= Self.capacity { entries[keyPath: table].removeAll(keepingCapacity: true) }
            entries[keyPath: table][key] = .some(value)
        }
        return value
    }

    /// Forgets sessions and kiosks: a session, a user or a kiosk changed.
    func clearCredentials() {
        entries.withLock { entries in
            entries.generation += 1
            entries.sessions = [:]
            entries.kiosks = [:]
            entries.credentialsForgotten = entries.generation
        }
    }

    /// Forgets these customers' active reservations: one of their reservations changed.
    func forgetActiveReservations(of users: some Sequence<UserID>) {
        entries.withLock { entries in
            entries.generation += 1
            for user in users {
                entries.activeReservations[user] = nil
                entries.customersForgotten[user] = entries.generation
            }
            if entries.customersForgotten.count > Self.capacity { entries.forgetReservations() }
        }
    }

    /// Forgets everything: another process wrote to the database, or a change could not be
    /// traced to its customers.
    func clear() {
        entries.withLock { entries in
            entries.forgetReservations()
            entries.sessions = [:]
            entries.kiosks = [:]
            entries.credentialsForgotten = entries.generation
        }
    }
}
