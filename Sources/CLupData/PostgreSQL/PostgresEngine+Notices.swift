import CLupDomain
import Foundation
import PostgresNIO

/// Bookings' reminders, notices turned into mail and push, and push subscriptions on
/// PostgreSQL: the same named methods as `AppDatabase+Notices.swift`. What several workers
/// might take at once (notices to dispatch, push messages to send) is taken with
/// `FOR UPDATE SKIP LOCKED`: each worker gets its own, none waits for another's.
extension PostgresEngine {
    // MARK: Bookings

    func remindBookings(now: Date) throws -> (reminded: Int, cancelled: Int) {
        let lead = now + BookingReminder.lead
        let replied = now - BookingReminder.replyWindow
        let due = try read { transaction in
            try transaction.value("""
                SELECT COUNT(*) FROM reservation WHERE status = 'booked' AND confirmedAt IS NULL AND slotStart <= \(lead)
                AND (remindedAt IS NULL OR remindedAt <= \(replied))
                """, as: Int.self) ?? 0
        }
        guard due > 0 else { return (0, 0) }
        return try write { transaction in
            let rows = try transaction.rows("""
                SELECT id, storeId, remindedAt FROM reservation
                WHERE status = 'booked' AND confirmedAt IS NULL AND slotStart <= \(lead)
                  AND (remindedAt IS NULL OR remindedAt <= \(replied))
                ORDER BY id FOR UPDATE SKIP LOCKED
                """)
            var reminded = 0
            var cancelled: Set<StoreID> = []
            for row in rows {
                let (id, storeId, remindedAt) = try (row[0].decode(ReservationID.self), row[1].decode(StoreID.self),
                                                     row[2].decode(Date?.self))
                if remindedAt == nil {
                    try transaction.execute("UPDATE reservation SET remindedAt = \(now) WHERE id = \(id)")
                    try Self.notice(.reminder, reservationId: id, now: now, transaction)
                    reminded += 1
                } else if try Self.lockStore(storeId, transaction) != nil,
                    try Self.setStatus(.cancelled, .endedAt, to: now, id: id, from: .booked, transaction)
                {
                    try Self.notice(.autoCancelled, reservationId: id, reason: .unconfirmed, now: now, transaction)
                    cancelled.insert(storeId)
                }
            }
            for storeId in cancelled.sorted() { try Self.advanceQueue(storeId: storeId, now: now, transaction) }
            return (reminded, cancelled.count)
        }
    }

    func confirmBooking(id: ReservationID, userId: UserID, now: Date) throws -> BookingReply {
        try write { transaction in
            guard let reservation = try transaction.row("""
                SELECT \(unescaped: Self.reservationColumns) FROM reservation WHERE id = \(id) FOR UPDATE
                """)?.record(Reservation.self), reservation.userId == userId
            else { return .notFound }
            guard reservation.status == .booked else { return .notBooked(reservation.status) }
            guard reservation.confirmedAt == nil else { return .alreadyConfirmed }
            try transaction.execute("UPDATE reservation SET confirmedAt = \(now) WHERE id = \(id) AND status = 'booked'")
            return .confirmed
        }
    }

    func bookings(storeId: StoreID, from: Date, to: Date) throws -> [Reservation] {
        try read { transaction in
            try transaction.rows("""
                SELECT \(unescaped: Self.reservationColumns) FROM reservation
                WHERE storeId = \(storeId) AND status = 'booked' AND slotStart BETWEEN \(from) AND \(to)
                ORDER BY slotStart, id
                """).map { try $0.record(Reservation.self) }
        }
    }

    /// `AppDatabase.changeTravelMode` and `changeTravelDistance`: decided under the store's
    /// lock, which the queue timer takes to send a customer off, so a change never slips in
    /// between the two.
    func changeTravel(id: ReservationID, userId: UserID, mode: TravelMode?, metres: Int?) throws -> TravelChangeOutcome {
        try write { transaction in
            guard let storeId = try transaction.value("SELECT storeId FROM reservation WHERE id = \(id)", as: StoreID.self),
                try Self.lockStore(storeId, transaction) != nil,
                let reservation = try Self.reservation(id, transaction)
            else { return .notChangeable }
            let (outcome, changed) = TravelChangeOutcome.decide(reservation, userId: userId, mode: mode, metres: metres)
            if let changed {
                try transaction.execute("""
                    UPDATE reservation SET travelMode = \(changed.travelMode?.rawValue), travelMetres = \(changed.travelMetres)
                    WHERE id = \(id)
                    """)
                transaction.changed(reservation: id, of: storeId)
            }
            return outcome
        }
    }

    // MARK: Dispatching

    func dispatchNotices(now: Date, limit: Int, render: @Sendable (NoticeSubject) -> RenderedNotice) throws -> Int {
        let pending = try read { transaction in
            try transaction.value("SELECT COUNT(*) FROM notice WHERE dispatchedAt IS NULL", as: Int.self) ?? 0
        }
        guard pending > 0 else { return 0 }
        return try write { transaction in
            let notices = try transaction.rows("""
                SELECT id, reservationId, kind, reason, createdAt, dispatchedAt, emailOnly FROM notice WHERE dispatchedAt IS NULL
                ORDER BY id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """).map { try $0.record(Notice.self) }
            for notice in notices {
                try transaction.execute("UPDATE notice SET dispatchedAt = \(now) WHERE id = \(notice.id)")
                guard let reservation = try Self.reservation(notice.reservationId, transaction),
                    notice.appliesTo.contains(reservation.status), let userId = reservation.userId,
                    let user = try AppDatabase.user(id: userId, transaction.statements),
                    let store = try transaction.row("""
                        SELECT \(unescaped: AppDatabase.storeColumns) FROM store WHERE id = \(reservation.storeId)
                        """)?.record(Store.self)
                else { continue }
                let message = render(NoticeSubject(notice: notice, reservation: reservation, store: store, user: user))
                // A notice whose push was lost goes by email alone, unless it went by email already.
                let pushed = notice.emailOnly ? 0 : try Self.push(message, to: user, now: now, notice: notice.id, transaction)
                if notice.emailOnly && user.notifyEmail { continue }
                if user.notifyEmail || pushed == 0 {
                    try transaction.execute("""
                        UPDATE outboxMessage SET sentAt = \(now), lastError = \(AppDatabase.supersededMail)
                        WHERE reservationId = \(notice.reservationId) AND sentAt IS NULL
                        """)
                    let mail = NewOutboxMessage(recipient: user.email, subject: message.subject, body: message.body,
                                                now: now, priority: notice.kind.mailPriority, about: notice)
                    if notice.reportsOwnAction {
                        _ = try AppDatabase.enqueue(mail, now: now, transaction.statements)
                    } else {
                        try AppDatabase.insert(mail, transaction.statements)
                    }
                }
            }
            return notices.count
        }
    }

    /// Queues `message`'s push payload for each of `user`'s browsers, if they take push
    /// messages; returns how many were queued (none: the message goes by email).
    static func push(_ message: RenderedNotice, to user: User, now: Date, notice: Int64? = nil,
                     _ transaction: PostgresTransaction) throws -> Int
    {
        guard user.notifyPush, let payload = message.push else { return 0 }
        return try transaction.execute("""
            INSERT INTO pushMessage (pushSubscriptionId, payload, urgency, createdAt, expiresAt, nextAttemptAt, noticeId)
            SELECT id, \(payload), \(message.urgency), \(now), \(now + message.pushLifetime), \(now), \(notice)
            FROM pushSubscription WHERE userId = \(user.id) ORDER BY id
            """)
    }

    func notices(reservationId: ReservationID) throws -> [Notice] {
        try read { transaction in
            try transaction.rows("""
                SELECT id, reservationId, kind, reason, createdAt, dispatchedAt, emailOnly FROM notice
                WHERE reservationId = \(reservationId) ORDER BY id
                """).map { try $0.record(Notice.self) }
        }
    }

    // MARK: Push subscriptions and messages

    private static let subscriptionColumns = "id, userId, endpoint, p256dh, auth, createdAt, failures"
    private static let pushColumns = """
        id, pushSubscriptionId, payload, urgency, createdAt, expiresAt, attempts, nextAttemptAt, sentAt, lastError
        """

    func savePushSubscription(userId: UserID, endpoint: String, p256dh: String, auth: String, now: Date) throws
        -> AppDatabase.PushSubscriptionSaved
    {
        try write { transaction in
            // One account's subscriptions are changed one transaction at a time.
            _ = try transaction.row("SELECT id FROM \"user\" WHERE id = \(userId) FOR UPDATE")
            if let holder = try transaction.value("""
                SELECT userId FROM pushSubscription WHERE endpoint = \(endpoint) FOR UPDATE
                """, as: UserID.self)
            {
                guard holder == userId else { return .anotherAccounts }
                try transaction.execute("""
                    UPDATE pushSubscription SET p256dh = \(p256dh), auth = \(auth), failures = 0 WHERE endpoint = \(endpoint)
                    """)
                return .saved
            }
            try transaction.execute("""
                INSERT INTO pushSubscription (userId, endpoint, p256dh, auth, createdAt)
                VALUES (\(userId), \(endpoint), \(p256dh), \(auth), \(now))
                """)
            if try transaction.execute("""
                UPDATE "user" SET pushLostAt = NULL WHERE id = \(userId) AND pushLostAt IS NOT NULL
                """) > 0
            {
                transaction.changedCredentials()
            }
            try transaction.execute("""
                DELETE FROM pushSubscription WHERE userId = \(userId) AND id NOT IN
                    (SELECT id FROM pushSubscription WHERE userId = \(userId) ORDER BY id DESC
                     LIMIT \(AppDatabase.pushSubscriptionsPerAccount))
                """)
            return .saved
        }
    }

    func deletePushSubscription(userId: UserID, endpoint: String) throws -> Bool {
        try write { transaction in
            try transaction.execute("DELETE FROM pushSubscription WHERE userId = \(userId) AND endpoint = \(endpoint)") > 0
        }
    }

    func pushSubscriptions(userId: UserID) throws -> [PushSubscription] {
        try read { transaction in
            try transaction.rows("""
                SELECT \(unescaped: Self.subscriptionColumns) FROM pushSubscription WHERE userId = \(userId) ORDER BY id
                """).map { try $0.record(PushSubscription.self) }
        }
    }

    func claimDuePush(now: Date, lease: TimeInterval, limit: Int, perAccount: Int, busy: [UserID: Int]) throws
        -> [(message: PushMessage, subscription: PushSubscription)]
    {
        let due = try read { transaction in
            try transaction.value("""
                SELECT COUNT(*) FROM pushMessage WHERE sentAt IS NULL AND nextAttemptAt <= \(now)
                """, as: Int.self) ?? 0
        }
        guard due > 0 else { return [] }
        return try write { transaction in
            try transaction.execute("""
                UPDATE pushMessage SET sentAt = \(now), lastError = 'expired before delivery'
                WHERE sentAt IS NULL AND expiresAt <= \(now)
                """)
            // Fair as on SQLite: urgent first, then each account's oldest before anyone's
            // second. Messages another worker is claiming are skipped.
            let candidates = try transaction.rows("""
                SELECT m.id, s.userId FROM pushMessage m JOIN pushSubscription s ON s.id = m.pushSubscriptionId
                WHERE m.id IN (SELECT id FROM pushMessage WHERE sentAt IS NULL AND nextAttemptAt <= \(now)
                               FOR UPDATE SKIP LOCKED)
                ORDER BY m.urgency = 'high' DESC,
                         ROW_NUMBER() OVER (PARTITION BY s.userId, m.urgency = 'high' ORDER BY m.id), m.id
                LIMIT \(limit * 8)
                """)
            var claimed: [(PushMessage, PushSubscription)] = []
            var taken = busy
            for row in candidates where claimed.count < limit {
                let (id, owner) = try (row[0].decode(Int64.self), row[1].decode(UserID.self))
                guard taken[owner, default: 0] < perAccount,
                    let message = try transaction.row("""
                        UPDATE pushMessage SET attempts = attempts + 1, nextAttemptAt = \(now + lease) WHERE id = \(id)
                        RETURNING \(unescaped: Self.pushColumns)
                        """)?.record(PushMessage.self),
                    let subscription = try transaction.row("""
                        SELECT \(unescaped: Self.subscriptionColumns) FROM pushSubscription
                        WHERE id = \(message.pushSubscriptionId)
                        """)?.record(PushSubscription.self)
                else { continue }
                taken[owner, default: 0] += 1
                claimed.append((message, subscription))
            }
            return claimed
        }
    }

    func markPushSent(id: Int64, now: Date) throws {
        try write { transaction in
            try transaction.execute("UPDATE pushMessage SET sentAt = \(now), lastError = NULL WHERE id = \(id)")
            try transaction.execute("""
                UPDATE pushSubscription SET failures = 0 WHERE id = (SELECT pushSubscriptionId FROM pushMessage WHERE id = \(id))
                """)
        }
    }

    func markPushFailed(id: Int64, error: String, retryAt: Date, now: Date) throws -> Bool {
        try write { transaction in
            try transaction.execute("""
                UPDATE pushMessage SET nextAttemptAt = \(retryAt), lastError = \(String(error.prefix(500))) WHERE id = \(id)
                """)
            guard let failing = try transaction.value("""
                UPDATE pushSubscription SET failures = failures + 1
                WHERE id = (SELECT pushSubscriptionId FROM pushMessage WHERE id = \(id))
                RETURNING CASE WHEN failures >= \(AppDatabase.pushFailuresAllowed) THEN id END
                """, as: Int64?.self) ?? nil
            else { return false }
            try AppDatabase.mailLostPush(subscription: failing, now: now, transaction.statements)
            try transaction.execute("DELETE FROM pushSubscription WHERE id = \(failing)")
            return true
        }
    }

    func removePushSubscription(id: Int64, now: Date) throws {
        try write { transaction in
            try AppDatabase.mailLostPush(subscription: id, now: now, transaction.statements)
            try transaction.execute("DELETE FROM pushSubscription WHERE id = \(id)")
        }
    }

    func purgeSettledPush(before date: Date) throws -> Int {
        try write { transaction in try transaction.execute("DELETE FROM pushMessage WHERE sentAt < \(date)") }
    }

    func pushMessages(subscriptionId id: Int64) throws -> [PushMessage] {
        try read { transaction in
            try transaction.rows("""
                SELECT \(unescaped: Self.pushColumns) FROM pushMessage WHERE pushSubscriptionId = \(id) ORDER BY id
                """).map { try $0.record(PushMessage.self) }
        }
    }
}

