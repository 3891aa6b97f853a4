import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport

/// What a signed-in request reads about who is asking is remembered, and never outlives the
/// change that made it wrong.
@Suite("Remembered sessions and active reservations")
struct CredentialCacheTests {
    let now = Fixture.date(2026, 11, 18, 10)

    @Test("a value read while it was forgotten is answered but read again next time; others' changes do not matter")
    func readDuringAForgetIsNotKept() throws {
        let cache = CredentialCache()
        var reads = 0
        func read(forgetting others: [UserID]) -> Reservation? {
            cache.activeReservation(7) {
                reads += 1
                // A commit forgets these customers while this read is under way: what it read
                // may be from before that commit.
                if !others.isEmpty { cache.forgetActiveReservations(of: others) }
                return nil
            }
        }
        #expect(read(forgetting: [7]) == nil && reads == 1)
        #expect(read(forgetting: [8]) == nil && reads == 2, "another customer's change does not stop it being kept")
        #expect(read(forgetting: []) == nil && reads == 2, "kept")
        cache.forgetActiveReservations(of: [UserID(7)])
        #expect(read(forgetting: []) == nil && reads == 3)
        cache.clear()
        #expect(read(forgetting: []) == nil && reads == 4, "everything forgotten")
        cache.forgetActiveReservations(of: [UserID(7)])
        _ = cache.activeReservation(7) {
            reads += 1
            cache.clear()
            return nil
        }
        #expect(read(forgetting: []) == nil && reads == 6, "read while everything was forgotten: not kept")
        #expect(read(forgetting: []) == nil && reads == 6)

        var sessionReads = 0
        for _ in 0..<2 {
            _ = cache.session("h") {
                sessionReads += 1
                cache.clearCredentials()
                return nil
            }
        }
        #expect(sessionReads == 2, "a session read while sessions were cleared is not kept")
        _ = cache.session("h") {
            sessionReads += 1
            cache.forgetActiveReservations(of: [UserID(7)])
            return nil
        }
        _ = cache.session("h") { sessionReads += 1; return nil }
        #expect(sessionReads == 3, "a reservation's change does not stop a session being kept")
    }

    @Test("past its capacity the list of customers forgotten starts again, and reads under way are not kept")
    func forgottenCustomersAreBounded() throws {
        let cache = CredentialCache()
        var reads = 0
        _ = cache.activeReservation(1) {
            reads += 1
            cache.forgetActiveReservations(of: (2...Int64(CredentialCache.capacity + 2)).map(UserID.init(rawValue:)))
            return nil
        }
        _ = cache.activeReservation(1) { reads += 1; return nil }
        #expect(reads == 2)
    }

    @Test("a session and its account, read by position, are what the records read by name are",
          .enabled(if: Fixture.onSQLite))
    func sessionReadByPosition() throws {
        let database = try Fixture.database()
        let ada = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada Lovelace", passwordHash: "h",
                                          now: now, confirmation: nil)
        // Every column away from its default, so that two read in each other's place differ.
        try database.writer.write { db in
            try db.execute(sql: """
                UPDATE user SET role = 'manager', emailConfirmedAt = ?, travelMode = 'car', loyaltyOptIn = 1,
                    notifyEmail = 0, notifyPush = 1, language = 'it', termsVersion = 3, termsAcceptedAt = ?
                WHERE id = ?
                """, arguments: [now.addingTimeInterval(60).databaseText, now.addingTimeInterval(120).databaseText, ada.id])
        }
        let created = try database.accounts.createSession(idHash: "hash", csrfToken: "token", userId: ada.id, now: now)
        let (session, user) = try #require(try database.accounts.session(idHash: "hash"))
        let byName = try database.writer.read { db in
            (try UserSession.fetchOne(db, key: "hash"), try User.fetchOne(db, id: ada.id))
        }
        #expect(user == byName.1)
        #expect(user.email == "ada@example.org" && user.displayName == "Ada Lovelace" && user.role == .manager)
        #expect(!user.notifyEmail && user.notifyPush && user.language == "it" && user.termsVersion == 3)
        for read in [session, byName.0] {
            #expect(read?.idHash == created.idHash && read?.userId == created.userId
                        && read?.csrfToken == created.csrfToken && read?.createdAt == created.createdAt
                        && read?.lastSeenAt == created.lastSeenAt)
        }
        #expect(try database.accounts.session(idHash: "other") == nil)
    }

    @Test("the active reservation pages show follows a line-up, its call, its end and another process's writes")
    func activeReservationFollowsChanges() throws {
        let path = NSTemporaryDirectory() + "clup-active-" + UUID().uuidString + ".sqlite"
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let database = try AppDatabase.open(path: path, dataKey: .scratch)
        let store = try database.stores.createStore(Fixture.store("Bottega", at: GeoPoint(latitude: 45.46, longitude: 9.19)),
                                             hours: Fixture.weekdayHours, departments: [])
        let ada = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada", passwordHash: "h", now: now,
                                          confirmation: nil)
        func active() throws -> (ReservationID, Reservation.Status)? {
            try database.reservations.activeReservationFromBoard(userId: ada.id).map { ($0.reservation.id, $0.reservation.status) }
        }
        #expect(try active() == nil)
        #expect(try active() == nil, "remembered: still none")

        // Lining up at a store with room: called at once, in the same transaction.
        guard case .created(let ticket) = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: ada.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
            requestKey: Secrets.token()), now: now)
        else { Issue.record("not created"); return }
        #expect(try active()?.0 == ticket.id)
        #expect(try active()?.1 == .called)

        // Another process (the command line, a second worker) lets her in: seen once the board
        // notices it wrote, as the queue timer makes it every second.
        let other = try AppDatabase.open(path: path, dataKey: .scratch)
        try other.writer.write { db in
            try db.execute(sql: "UPDATE reservation SET status = 'inside', enteredAt = ? WHERE id = ?",
                           arguments: [now.databaseText, ticket.id])
        }
        try database.refreshBoard()
        #expect(try active()?.1 == .inside)

        // She leaves: a write of the worker itself ends the visit.
        try database.writer.write { db in
            try db.execute(sql: "UPDATE reservation SET status = 'done', leftAt = ? WHERE id = ?",
                           arguments: [(now + 1800).databaseText, ticket.id])
        }
        #expect(try active() == nil)
    }
}
