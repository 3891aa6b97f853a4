import CLupDomain
import Foundation
import GRDB

/// What a booking's customer answered, or why the answer changed nothing.
public enum BookingReply: Sendable, Equatable {
    case confirmed
    case alreadyConfirmed
    /// Not a booked visit any more (cancelled, expired, used): nothing to confirm.
    case notBooked(ReservationStatus)
    case notFound
}

extension AppDatabase {
    // MARK: Writing notices

    /// Records notice `kind` for reservation `reservationId`, inside the transaction that makes
    /// the event, if the reservation has a customer to tell (a walk-in has none) and has no
    /// notice of that kind yet.
    static func notice(_ kind: Notice.Kind, reservationId: ReservationID, reason: Notice.Reason? = nil, now: Date,
                       _ db: Database) throws
    {
        try db.cachedStatement(sql: """
            INSERT OR IGNORE INTO notice (reservationId, kind, reason, createdAt)
            SELECT id, ?, ?, ? FROM reservation WHERE id = ? AND userId IS NOT NULL
            """).execute(arguments: [kind.rawValue, reason?.rawValue, now.databaseText, reservationId])
    }

    /// Tells the customer of waiting ticket `id` to leave for the store, once: their places are
    /// held from now on. False if it is not waiting, or they were told already.
    @discardableResult
    static func sendOff(_ id: ReservationID, now: Date, _ db: Database) throws -> Bool {
        try db.cachedStatement(sql: """
            UPDATE reservation SET leftAt = ? WHERE id = ? AND status IN ('waiting', 'called') AND leftAt IS NULL
            """).execute(arguments: [now.databaseText, id])
        guard db.changesCount > 0 else { return false }
        try notice(.leaveNow, reservationId: id, now: now, db)
        return true
    }

    // MARK: Bookings: reminder, confirmation, no answer

    /// Reminds the customers of bookings starting within `BookingReminder.lead`, and cancels
    /// those reminded `BookingReminder.replyWindow` ago that were not confirmed, freeing their
    /// places. Run by the queue timer: a read through a partial index finds the few bookings
    /// concerned, and only then a transaction decides again from the committed rows.
    @discardableResult
    public func remindBookings(now: Date) throws -> (reminded: Int, cancelled: Int) {
        if let postgres { return try postgres.remindBookings(now: now) }
        let arguments: StatementArguments = [(now + BookingReminder.lead).databaseText,
                                             (now - BookingReminder.replyWindow).databaseText]
        let condition = """
            status = 'booked' AND confirmedAt IS NULL AND slotStart <= ?1 AND (remindedAt IS NULL OR remindedAt <= ?2)
            """
        let due = try reader.read { db in
            try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM reservation WHERE \(condition)"),
                             arguments: arguments) ?? 0
        }
        guard due > 0 else { return (0, 0) }
        return try write { db in
            let rows = try Row.fetchAll(db.cachedStatement(sql: """
                SELECT id, storeId, remindedAt FROM reservation WHERE \(condition) ORDER BY id
                """), arguments: arguments)
            var reminded = 0
            var cancelled: Set<StoreID> = []
            for row in rows {
                let id: ReservationID = row["id"]
                if (row["remindedAt"] as Date?) == nil {
                    try db.cachedStatement(sql: "UPDATE reservation SET remindedAt = ? WHERE id = ?")
                        .execute(arguments: [now.databaseText, id])
                    try Self.notice(.reminder, reservationId: id, now: now, db)
                    reminded += 1
                } else if try Reservation.setStatus(.cancelled, .endedAt, to: now, id: id, from: .booked, db) {
                    try Self.notice(.autoCancelled, reservationId: id, reason: .unconfirmed, now: now, db)
                    cancelled.insert(row["storeId"])
                }
            }
            // A booking due soon holds places: freed, they go to the queue.
            for storeId in cancelled.sorted() { try advanceQueue(storeId: storeId, now: now, db) }
            return (reminded, cancelled.count)
        }
    }

    /// Confirms the customer's booking `id` (from its reminder or its ticket).
    public func confirmBooking(id: ReservationID, userId: UserID, now: Date) throws -> BookingReply {
        if let postgres { return try postgres.confirmBooking(id: id, userId: userId, now: now) }
        return try write { db in
            guard let reservation = try Reservation.find(id, db), reservation.userId == userId else { return .notFound }
            guard reservation.status == .booked else { return .notBooked(reservation.status) }
            guard reservation.confirmedAt == nil else { return .alreadyConfirmed }
            try db.cachedStatement(sql: "UPDATE reservation SET confirmedAt = ? WHERE id = ? AND status = 'booked'")
                .execute(arguments: [now.databaseText, id])
            return .confirmed
        }
    }

    /// A store's bookings whose slot starts in `from...to`, soonest first.
    public func bookings(storeId: StoreID, from: Date, to: Date) throws -> [Reservation] {
        if let postgres { return try postgres.bookings(storeId: storeId, from: from, to: to) }
        return try reader.read { db in
            try Row.fetchAll(db.cachedStatement(sql: """
                SELECT \(Reservation.columnList) FROM reservation
                WHERE storeId = ? AND status = 'booked' AND slotStart BETWEEN ? AND ? ORDER BY slotStart, id
                """), arguments: [storeId, from.databaseText, to.databaseText]).map(Reservation.init(columnsOf:))
        }
    }

    // MARK: Travel

    /// Changes how the customer of line-up `id` travels (R5.2), while it waits or is called;
    /// their travel time, "leave by" and call follow, within the line-up's own rules
    /// (`TravelChange`). `.notChangeable` if it is not theirs or is over.
    public func changeTravelMode(id: ReservationID, userId: UserID, to mode: TravelMode) throws -> TravelChangeOutcome {
        if let postgres { return try postgres.changeTravel(id: id, userId: userId, mode: mode, metres: nil) }
        return try write { db in try Self.changeTravel(id: id, userId: userId, mode: mode, metres: nil, db) }
    }

    /// The line-up's travel distance from where the customer now is (its ticket page reports
    /// it, with their consent), within the line-up's own rules (`TravelChange`);
    /// `.notChangeable` unless it is a line-up still waiting that has a travel.
    public func changeTravelDistance(id: ReservationID, userId: UserID, to metres: Int) throws -> TravelChangeOutcome {
        if let postgres { return try postgres.changeTravel(id: id, userId: userId, mode: nil, metres: metres) }
        return try write { db in try Self.changeTravel(id: id, userId: userId, mode: nil, metres: metres, db) }
    }

    private static func changeTravel(id: ReservationID, userId: UserID, mode: TravelMode?, metres: Int?, _ db: Database)
        throws -> TravelChangeOutcome
    {
        guard let reservation = try Reservation.find(id, db) else { return .notChangeable }
        let (outcome, changed) = TravelChangeOutcome.decide(reservation, userId: userId, mode: mode, metres: metres)
        if let changed {
            try db.cachedStatement(sql: "UPDATE reservation SET travelMode = ?, travelMetres = ? WHERE id = ?")
                .execute(arguments: [changed.travelMode?.rawValue, changed.travelMetres, id])
        }
        return outcome
    }

    // MARK: Dispatching

    /// Turns up to `limit` pending notices into messages, in one transaction: an email in the
    /// outbox and a push message for each of the customer's browsers, as their account
    /// chooses (email when nothing else would reach them). A notice that no longer applies —
    /// the reservation moved on meanwhile — is dispatched to nobody. Returns how many were
    /// dispatched.
    @discardableResult
    public func dispatchNotices(now: Date, limit: Int = 50, render: @Sendable (NoticeSubject) -> RenderedNotice) throws
        -> Int
    {
        if let postgres { return try postgres.dispatchNotices(now: now, limit: limit, render: render) }
        let pending = try reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM notice WHERE dispatchedAt IS NULL") ?? 0
        }
        guard pending > 0 else { return 0 }
        return try write { db in
            let notices = try Notice.fetchAll(db, sql: """
                SELECT * FROM notice WHERE dispatchedAt IS NULL ORDER BY id LIMIT ?
                """, arguments: [limit])
            for notice in notices {
                try db.execute(sql: "UPDATE notice SET dispatchedAt = ? WHERE id = ?",
                               arguments: [now.databaseText, notice.id])
                guard let reservation = try Reservation.find(notice.reservationId, db),
                    notice.appliesTo.contains(reservation.status), let userId = reservation.userId,
                    let user = try User.fetchOne(db, id: userId), let store = try Store.fetchOne(db, id: reservation.storeId)
                else { continue }
                let message = render(NoticeSubject(notice: notice, reservation: reservation, store: store, user: user))
                // A notice whose push was lost goes by email alone, unless it went by email already.
                let pushed = notice.emailOnly ? 0 : try Self.push(message, to: user, now: now, notice: notice.id, db)
                if notice.emailOnly && user.notifyEmail { continue }
                if user.notifyEmail || pushed == 0 {
                    // What this reservation's customer has not yet been sent about it is old news.
                    try db.cachedStatement(sql: """
                        UPDATE outboxMessage SET sentAt = ?, lastError = ? WHERE reservationId = ? AND sentAt IS NULL
                        """).execute(arguments: [now, Self.supersededMail, notice.reservationId])
                    let mail = NewOutboxMessage(recipient: user.email, subject: message.subject, body: message.body, now: now,
                                                priority: notice.kind.mailPriority, about: notice)
                    if notice.reportsOwnAction { _ = try Self.enqueue(mail, now: now, SQLiteTransaction(db: db, database: self)) } else { try mail.insert(db) }
                }
            }
            return notices.count
        }
    }

    /// Queues `message`'s push payload for each of `user`'s browsers, if they take push
    /// messages; returns how many were queued (none: the message goes by email).
    static func push(_ message: RenderedNotice, to user: User, now: Date, notice: Int64? = nil, _ db: Database) throws -> Int {
        guard user.notifyPush, let payload = message.push else { return 0 }
        let subscriptions = try Int64.fetchAll(db, sql: "SELECT id FROM pushSubscription WHERE userId = ?",
                                               arguments: [user.id])
        for subscription in subscriptions {
            try db.execute(sql: """
                INSERT INTO pushMessage (pushSubscriptionId, payload, urgency, createdAt, expiresAt, nextAttemptAt, noticeId)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [subscription, payload, message.urgency, now, now + message.pushLifetime, now, notice])
        }
        return subscriptions.count
    }

    /// Run as subscription `id` is dropped (its browser unsubscribed, or it kept failing), when
    /// it is its account's last: the notices it had not delivered are dispatched again, by
    /// email alone (`Notice.emailOnly`; a notice so marked is never marked again, so each goes
    /// once), and the account remembers when its push was lost, for its ticket page. Written
    /// once for both engines.
    static func mailLostPush(subscription id: Int64, now: Date, _ transaction: some SQLTransaction) throws {
        let last: SQL = """
            NOT EXISTS (SELECT 1 FROM pushSubscription s JOIN pushSubscription o ON o.userId = s.userId AND o.id <> s.id
                        WHERE s.id = \(id))
            """
        try transaction.execute("""
            UPDATE notice SET dispatchedAt = NULL, emailOnly = TRUE
            WHERE NOT emailOnly AND id IN (SELECT noticeId FROM pushMessage WHERE pushSubscriptionId = \(id) AND sentAt IS NULL)
              AND \(last)
            """)
        if try transaction.execute("""
            UPDATE "user" SET pushLostAt = \(now) WHERE id = (SELECT userId FROM pushSubscription WHERE id = \(id)) AND \(last)
            """) > 0
        {
            transaction.changedCredentials()
        }
    }

    /// When the account's browsers last stopped taking its push messages, while none has
    /// subscribed since; nil otherwise.
    public func pushLost(userId: UserID) throws -> Date? {
        try value(Date.self, sql: #"SELECT pushLostAt FROM "user" WHERE id = ?"#, userId)
    }

    /// The notices of reservation `id`, oldest first (for tests and the ticket's history).
    public func notices(reservationId: ReservationID) throws -> [Notice] {
        if let postgres { return try postgres.notices(reservationId: reservationId) }
        return try reader.read { db in
            try Notice.fetchAll(db, sql: "SELECT * FROM notice WHERE reservationId = ? ORDER BY id",
                                arguments: [reservationId])
        }
    }

    // MARK: Push subscriptions and messages

    /// Most browsers one account receives push notifications on; a new one past them replaces
    /// the account's oldest. Each notice is one message per subscription, so this bounds what
    /// one account can queue.
    public static let pushSubscriptionsPerAccount = 5
    /// Attempts that may fail in a row before a subscription is dropped.
    public static let pushFailuresAllowed = 5

    public enum PushSubscriptionSaved: Sendable, Equatable {
        case saved
        /// Another account holds this endpoint: it is not taken over.
        case anotherAccounts
    }

    /// Keeps the browser subscription `endpoint` (already `PushEndpoint.canonical`) for the
    /// customer: the same endpoint again renews its keys; one another account holds is refused.
    public func savePushSubscription(userId: UserID, endpoint: String, p256dh: String, auth: String, now: Date) throws
        -> PushSubscriptionSaved
    {
        if let postgres {
            return try postgres.savePushSubscription(userId: userId, endpoint: endpoint, p256dh: p256dh, auth: auth, now: now)
        }
        return try write { db in
            if let holder = try UserID.fetchOne(db, sql: "SELECT userId FROM pushSubscription WHERE endpoint = ?",
                                               arguments: [endpoint])
            {
                guard holder == userId else { return .anotherAccounts }
                try db.execute(sql: "UPDATE pushSubscription SET p256dh = ?, auth = ?, failures = 0 WHERE endpoint = ?",
                               arguments: [p256dh, auth, endpoint])
                return .saved
            }
            try db.execute(sql: """
                INSERT INTO pushSubscription (userId, endpoint, p256dh, auth, createdAt) VALUES (?, ?, ?, ?, ?)
                """, arguments: [userId, endpoint, p256dh, auth, now])
            try db.execute(sql: "UPDATE user SET pushLostAt = NULL WHERE id = ? AND pushLostAt IS NOT NULL", arguments: [userId])
            try db.execute(sql: """
                DELETE FROM pushSubscription WHERE userId = ? AND id NOT IN
                    (SELECT id FROM pushSubscription WHERE userId = ? ORDER BY id DESC LIMIT ?)
                """, arguments: [userId, userId, Self.pushSubscriptionsPerAccount])
            return .saved
        }
    }

    /// Forgets the customer's subscription `endpoint`; false if they had none such.
    @discardableResult
    public func deletePushSubscription(userId: UserID, endpoint: String) throws -> Bool {
        if let postgres { return try postgres.deletePushSubscription(userId: userId, endpoint: endpoint) }
        return try write { db in
            try db.execute(sql: "DELETE FROM pushSubscription WHERE userId = ? AND endpoint = ?",
                           arguments: [userId, endpoint])
            return db.changesCount > 0
        }
    }

    public func pushSubscriptions(userId: UserID) throws -> [PushSubscription] {
        if let postgres { return try postgres.pushSubscriptions(userId: userId) }
        return try reader.read { db in
            try PushSubscription.fetchAll(db, sql: "SELECT * FROM pushSubscription WHERE userId = ? ORDER BY id",
                                          arguments: [userId])
        }
    }

    /// Push messages due at `now`, each with its subscription, leased for `lease` seconds so
    /// that another sender does not take them meanwhile. Messages past their lifetime are
    /// settled unsent.
    ///
    /// Fair: urgent messages first, then each account's oldest before anyone's second; an
    /// account with `perAccount` messages already on their way (`busy`) gets no more, so one
    /// account's slow or dead services cannot hold every slot.
    public func claimDuePush(now: Date, lease: TimeInterval = 60, limit: Int = 32, perAccount: Int = .max,
                             busy: [UserID: Int] = [:]) throws
        -> [(message: PushMessage, subscription: PushSubscription)]
    {
        if let postgres {
            return try postgres.claimDuePush(now: now, lease: lease, limit: limit, perAccount: perAccount, busy: busy)
        }
        let due = try reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM pushMessage WHERE sentAt IS NULL AND nextAttemptAt <= ?",
                             arguments: [now]) ?? 0
        }
        guard due > 0 else { return [] }
        return try write { db in
            try db.execute(sql: """
                UPDATE pushMessage SET sentAt = ?, lastError = 'expired before delivery'
                WHERE sentAt IS NULL AND expiresAt <= ?
                """, arguments: [now, now])
            // Each candidate with its account, so that only those claimed read their subscription.
            let candidates = try Row.fetchAll(db, sql: """
                SELECT m.*, s.userId AS owner FROM pushMessage m JOIN pushSubscription s ON s.id = m.pushSubscriptionId
                WHERE m.sentAt IS NULL AND m.nextAttemptAt <= ?
                ORDER BY m.urgency = 'high' DESC,
                         ROW_NUMBER() OVER (PARTITION BY s.userId, m.urgency = 'high' ORDER BY m.id), m.id
                LIMIT ?
                """, arguments: [now, limit * 8])
            var claimed: [(PushMessage, PushSubscription)] = []
            var taken = busy
            for row in candidates where claimed.count < limit {
                let owner: UserID = row["owner"]
                guard taken[owner, default: 0] < perAccount else { continue }
                var message = try PushMessage(row: row)
                guard let subscription = try PushSubscription.fetchOne(db, id: message.pushSubscriptionId) else { continue }
                taken[owner, default: 0] += 1
                message.attempts += 1
                try db.execute(sql: "UPDATE pushMessage SET attempts = ?, nextAttemptAt = ? WHERE id = ?",
                               arguments: [message.attempts, now + lease, message.id])
                claimed.append((message, subscription))
            }
            return claimed
        }
    }

    public func markPushSent(id: Int64, now: Date) throws {
        if let postgres { return try postgres.markPushSent(id: id, now: now) }
        try write { db in
            try db.execute(sql: "UPDATE pushMessage SET sentAt = ?, lastError = NULL WHERE id = ?", arguments: [now, id])
            try db.execute(sql: """
                UPDATE pushSubscription SET failures = 0 WHERE id = (SELECT pushSubscriptionId FROM pushMessage WHERE id = ?)
                """, arguments: [id])
        }
    }

    /// Records a failed attempt; returns whether the subscription was dropped for failing
    /// `pushFailuresAllowed` times in a row (with what it had pending).
    @discardableResult
    public func markPushFailed(id: Int64, error: String, retryAt: Date, now: Date) throws -> Bool {
        if let postgres { return try postgres.markPushFailed(id: id, error: error, retryAt: retryAt, now: now) }
        return try write { db in
            try db.execute(sql: "UPDATE pushMessage SET nextAttemptAt = ?, lastError = ? WHERE id = ?",
                           arguments: [retryAt, String(error.prefix(500)), id])
            try db.execute(sql: """
                UPDATE pushSubscription SET failures = failures + 1
                WHERE id = (SELECT pushSubscriptionId FROM pushMessage WHERE id = ?)
                """, arguments: [id])
            guard let failing = try Int64.fetchOne(db, sql: """
                SELECT id FROM pushSubscription WHERE failures >= ? AND id = (SELECT pushSubscriptionId FROM pushMessage WHERE id = ?)
                """, arguments: [Self.pushFailuresAllowed, id])
            else { return false }
            try Self.mailLostPush(subscription: failing, now: now, SQLiteTransaction(db: db, database: self))
            try db.execute(sql: "DELETE FROM pushSubscription WHERE id = ?", arguments: [failing])
            return true
        }
    }

    /// Forgets a subscription the push service says is gone (404 or 410), with its messages;
    /// what it had not delivered goes by email if it was the account's last (`mailLostPush`).
    public func removePushSubscription(id: Int64, now: Date) throws {
        if let postgres { return try postgres.removePushSubscription(id: id, now: now) }
        try write { db in
            try Self.mailLostPush(subscription: id, now: now, SQLiteTransaction(db: db, database: self))
            try db.execute(sql: "DELETE FROM pushSubscription WHERE id = ?", arguments: [id])
        }
    }

    /// Forgets push messages settled before `date` (sent, refused or expired): their payloads
    /// name stores and times, and nothing reads them once settled.
    @discardableResult
    public func purgeSettledPush(before date: Date) throws -> Int {
        if let postgres { return try postgres.purgeSettledPush(before: date) }
        return try write { db in
            try db.execute(sql: "DELETE FROM pushMessage WHERE sentAt < ?", arguments: [date])
            return db.changesCount
        }
    }

    /// Push messages to subscription `id` (for tests).
    public func pushMessages(subscriptionId id: Int64) throws -> [PushMessage] {
        if let postgres { return try postgres.pushMessages(subscriptionId: id) }
        return try reader.read { db in
            try PushMessage.fetchAll(db, sql: "SELECT * FROM pushMessage WHERE pushSubscriptionId = ? ORDER BY id",
                                     arguments: [id])
        }
    }
}
