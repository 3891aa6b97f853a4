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
    // MARK: Bookings: reminder, confirmation, no answer

    /// Reminds the customers of bookings starting within `BookingReminder.lead`, and cancels
    /// those reminded `BookingReminder.replyWindow` ago that were not confirmed, freeing their
    /// places. Run by the queue timer: a read through a partial index finds the few bookings
    /// concerned, and only then a transaction decides again from the committed rows (rows
    /// another worker is deciding on are skipped, not waited for).
    @discardableResult
    public func remindBookings(now: Date) throws -> (reminded: Int, cancelled: Int) {
        let condition: SQL = """
            status = 'booked' AND confirmedAt IS NULL AND slotStart <= \(now + BookingReminder.lead)
            AND (remindedAt IS NULL OR remindedAt <= \(now - BookingReminder.replyWindow))
            """
        let due = try reading { transaction in
            try transaction.value("SELECT COUNT(*) FROM reservation WHERE \(condition)", as: Int.self) ?? 0
        }
        guard due > 0 else { return (0, 0) }
        return try transaction { transaction in
            let rows = try transaction.rows("""
                SELECT id, storeId, remindedAt FROM reservation WHERE \(condition) ORDER BY id \(SQL.forUpdateSkipLocked)
                """)
            var reminded = 0
            var cancelled: Set<StoreID> = []
            for row in rows {
                let (id, storeId, remindedAt): (ReservationID, StoreID, Date?) =
                    (try row.decode(0), try row.decode(1), try row.value(2))
                if remindedAt == nil {
                    try transaction.execute("UPDATE reservation SET remindedAt = \(now) WHERE id = \(id)")
                    try Self.notice(.reminder, reservationId: id, now: now, transaction)
                    reminded += 1
                } else if try transaction.lockStore(storeId) != nil,
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

    /// Confirms the customer's booking `id` (from its reminder or its ticket).
    public func confirmBooking(id: ReservationID, userId: UserID, now: Date) throws -> BookingReply {
        try transaction { transaction in
            guard let reservation = try Reservation.all("""
                SELECT \(unescaped: Reservation.columnList) FROM reservation WHERE id = \(id) \(SQL.forUpdate)
                """, transaction).first, reservation.userId == userId
            else { return .notFound }
            guard reservation.status == .booked else { return .notBooked(reservation.status) }
            guard reservation.confirmedAt == nil else { return .alreadyConfirmed }
            try transaction.execute("UPDATE reservation SET confirmedAt = \(now) WHERE id = \(id) AND status = 'booked'")
            return .confirmed
        }
    }

    /// A store's bookings whose slot starts in `from...to`, soonest first.
    public func bookings(storeId: StoreID, from: Date, to: Date) throws -> [Reservation] {
        try reading { transaction in
            try Reservation.all("""
                SELECT \(unescaped: Reservation.columnList) FROM reservation
                WHERE storeId = \(storeId) AND status = 'booked' AND slotStart BETWEEN \(from) AND \(to)
                ORDER BY slotStart, id
                """, transaction)
        }
    }

    // MARK: Travel

    /// Changes how the customer of line-up `id` travels (R5.2), while it waits or is called;
    /// their travel time, "leave by" and call follow, within the line-up's own rules
    /// (`TravelChange`). `.notChangeable` if it is not theirs or is over.
    public func changeTravelMode(id: ReservationID, userId: UserID, to mode: TravelMode) throws -> TravelChangeOutcome {
        try changeTravel(id: id, userId: userId, mode: mode, metres: nil)
    }

    /// The line-up's travel distance from where the customer now is (its ticket page reports
    /// it, with their consent), within the line-up's own rules (`TravelChange`);
    /// `.notChangeable` unless it is a line-up still waiting that has a travel.
    public func changeTravelDistance(id: ReservationID, userId: UserID, to metres: Int) throws -> TravelChangeOutcome {
        try changeTravel(id: id, userId: userId, mode: nil, metres: metres)
    }

    /// Decided under the store's lock, which the queue timer takes to send a customer off, so
    /// a change never slips in between the two.
    private func changeTravel(id: ReservationID, userId: UserID, mode: TravelMode?, metres: Int?) throws
        -> TravelChangeOutcome
    {
        try transaction { transaction in
            guard let storeId = try transaction.value("SELECT storeId FROM reservation WHERE id = \(id)", as: StoreID.self),
                try transaction.lockStore(storeId) != nil,
                let reservation = try Reservation.find(id, transaction)
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

    /// Turns up to `limit` pending notices into messages, in one transaction: an email in the
    /// outbox and a push message for each of the customer's browsers, as their account
    /// chooses (email when nothing else would reach them). A notice that no longer applies —
    /// the reservation moved on meanwhile — is dispatched to nobody. Returns how many were
    /// dispatched. Notices another worker is dispatching are skipped, not waited for.
    @discardableResult
    public func dispatchNotices(now: Date, limit: Int = 50, render: @Sendable (NoticeSubject) -> RenderedNotice) throws
        -> Int
    {
        let pending = try reading { transaction in
            try transaction.value("SELECT COUNT(*) FROM notice WHERE dispatchedAt IS NULL", as: Int.self) ?? 0
        }
        guard pending > 0 else { return 0 }
        return try transaction { transaction in
            let notices = try transaction.records("""
                SELECT id, reservationId, kind, reason, createdAt, dispatchedAt, emailOnly FROM notice WHERE dispatchedAt IS NULL
                ORDER BY id LIMIT \(limit) \(SQL.forUpdateSkipLocked)
                """, as: Notice.self)
            for notice in notices {
                try transaction.execute("UPDATE notice SET dispatchedAt = \(now) WHERE id = \(notice.id)")
                guard let reservation = try Reservation.find(notice.reservationId, transaction),
                    notice.appliesTo.contains(reservation.status), let userId = reservation.userId,
                    let user = try Self.user(id: userId, transaction),
                    let store = try transaction.record("""
                        SELECT \(unescaped: Self.storeColumns) FROM store WHERE id = \(reservation.storeId)
                        """, as: Store.self)
                else { continue }
                let message = render(NoticeSubject(notice: notice, reservation: reservation, store: store, user: user))
                // A notice whose push was lost goes by email alone, unless it went by email already.
                let pushed = notice.emailOnly ? 0 : try Self.push(message, to: user, now: now, notice: notice.id, transaction)
                if notice.emailOnly && user.notifyEmail { continue }
                if user.notifyEmail || pushed == 0 {
                    // What this reservation's customer has not yet been sent about it is old news.
                    try transaction.execute("""
                        UPDATE outboxMessage SET sentAt = \(now), lastError = \(Self.supersededMail)
                        WHERE reservationId = \(notice.reservationId) AND sentAt IS NULL
                        """)
                    let mail = NewOutboxMessage(recipient: user.email, subject: message.subject, body: message.body,
                                                now: now, priority: notice.kind.mailPriority, about: notice)
                    // What the customer did themselves keeps their mailbox's pace; what happened to them does not.
                    if notice.reportsOwnAction {
                        _ = try Self.enqueue(mail, now: now, transaction)
                    } else {
                        try Self.insert(mail, transaction)
                    }
                }
            }
            return notices.count
        }
    }

    /// Queues `message`'s push payload for each of `user`'s browsers, if they take push
    /// messages; returns how many were queued (none: the message goes by email).
    static func push(_ message: RenderedNotice, to user: User, now: Date, notice: Int64? = nil,
                     _ transaction: some SQLTransaction) throws -> Int
    {
        guard user.notifyPush, let payload = message.push else { return 0 }
        return try transaction.execute("""
            INSERT INTO pushMessage (pushSubscriptionId, payload, urgency, createdAt, expiresAt, nextAttemptAt, noticeId)
            SELECT id, \(payload), \(message.urgency), \(now), \(now + message.pushLifetime), \(now), \(notice)
            FROM pushSubscription WHERE userId = \(user.id) ORDER BY id
            """)
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
        try reading { transaction in
            try transaction.records("""
                SELECT id, reservationId, kind, reason, createdAt, dispatchedAt, emailOnly FROM notice
                WHERE reservationId = \(reservationId) ORDER BY id
                """, as: Notice.self)
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
        try transaction { transaction in
            // One account's subscriptions are changed one transaction at a time.
            try transaction.lockCustomer(userId)
            if let holder = try transaction.value("""
                SELECT userId FROM pushSubscription WHERE endpoint = \(endpoint) \(SQL.forUpdate)
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
                     LIMIT \(Self.pushSubscriptionsPerAccount))
                """)
            return .saved
        }
    }

    /// Forgets the customer's subscription `endpoint`; false if they had none such.
    @discardableResult
    public func deletePushSubscription(userId: UserID, endpoint: String) throws -> Bool {
        try transaction { transaction in
            try transaction.execute("DELETE FROM pushSubscription WHERE userId = \(userId) AND endpoint = \(endpoint)") > 0
        }
    }

    static let subscriptionColumns = "id, userId, endpoint, p256dh, auth, createdAt, failures"
    static let pushColumns = """
        id, pushSubscriptionId, payload, urgency, createdAt, expiresAt, attempts, nextAttemptAt, sentAt, lastError
        """

    public func pushSubscriptions(userId: UserID) throws -> [PushSubscription] {
        try reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: Self.subscriptionColumns) FROM pushSubscription WHERE userId = \(userId) ORDER BY id
                """, as: PushSubscription.self)
        }
    }

    /// Push messages due at `now`, each with its subscription, leased for `lease` seconds so
    /// that another sender does not take them meanwhile (messages another worker is claiming
    /// are skipped). Messages past their lifetime are settled unsent.
    ///
    /// Fair: urgent messages first, then each account's oldest before anyone's second; an
    /// account with `perAccount` messages already on their way (`busy`) gets no more, so one
    /// account's slow or dead services cannot hold every slot.
    public func claimDuePush(now: Date, lease: TimeInterval = 60, limit: Int = 32, perAccount: Int = .max,
                             busy: [UserID: Int] = [:]) throws
        -> [(message: PushMessage, subscription: PushSubscription)]
    {
        let due = try reading { transaction in
            try transaction.value("""
                SELECT COUNT(*) FROM pushMessage WHERE sentAt IS NULL AND nextAttemptAt <= \(now)
                """, as: Int.self) ?? 0
        }
        guard due > 0 else { return [] }
        return try transaction { transaction in
            try transaction.execute("""
                UPDATE pushMessage SET sentAt = \(now), lastError = 'expired before delivery'
                WHERE sentAt IS NULL AND expiresAt <= \(now)
                """)
            // Each candidate with its account, so that only those claimed read their subscription.
            let candidates = try transaction.rows("""
                SELECT m.id, s.userId FROM pushMessage m JOIN pushSubscription s ON s.id = m.pushSubscriptionId
                WHERE m.id IN (SELECT id FROM pushMessage WHERE sentAt IS NULL AND nextAttemptAt <= \(now)
                               \(SQL.forUpdateSkipLocked))
                ORDER BY m.urgency = 'high' DESC,
                         ROW_NUMBER() OVER (PARTITION BY s.userId, m.urgency = 'high' ORDER BY m.id), m.id
                LIMIT \(limit * 8)
                """)
            var claimed: [(PushMessage, PushSubscription)] = []
            var taken = busy
            for row in candidates where claimed.count < limit {
                let (id, owner): (Int64, UserID) = (try row.decode(0), try row.decode(1))
                guard taken[owner, default: 0] < perAccount,
                    let message = try transaction.record("""
                        UPDATE pushMessage SET attempts = attempts + 1, nextAttemptAt = \(now + lease) WHERE id = \(id)
                        RETURNING \(unescaped: Self.pushColumns)
                        """, as: PushMessage.self),
                    let subscription = try transaction.record("""
                        SELECT \(unescaped: Self.subscriptionColumns) FROM pushSubscription
                        WHERE id = \(message.pushSubscriptionId)
                        """, as: PushSubscription.self)
                else { continue }
                taken[owner, default: 0] += 1
                claimed.append((message, subscription))
            }
            return claimed
        }
    }

    public func markPushSent(id: Int64, now: Date) throws {
        try transaction { transaction in
            try transaction.execute("UPDATE pushMessage SET sentAt = \(now), lastError = NULL WHERE id = \(id)")
            try transaction.execute("""
                UPDATE pushSubscription SET failures = 0 WHERE id = (SELECT pushSubscriptionId FROM pushMessage WHERE id = \(id))
                """)
        }
    }

    /// Records a failed attempt; returns whether the subscription was dropped for failing
    /// `pushFailuresAllowed` times in a row (with what it had pending).
    @discardableResult
    public func markPushFailed(id: Int64, error: String, retryAt: Date, now: Date) throws -> Bool {
        try transaction { transaction in
            try transaction.execute("""
                UPDATE pushMessage SET nextAttemptAt = \(retryAt), lastError = \(String(error.prefix(500))) WHERE id = \(id)
                """)
            guard let failing = try transaction.value("""
                UPDATE pushSubscription SET failures = failures + 1
                WHERE id = (SELECT pushSubscriptionId FROM pushMessage WHERE id = \(id))
                RETURNING CASE WHEN failures >= \(Self.pushFailuresAllowed) THEN id END
                """, as: Int64.self)
            else { return false }
            try Self.mailLostPush(subscription: failing, now: now, transaction)
            try transaction.execute("DELETE FROM pushSubscription WHERE id = \(failing)")
            return true
        }
    }

    /// Forgets a subscription the push service says is gone (404 or 410), with its messages;
    /// what it had not delivered goes by email if it was the account's last (`mailLostPush`).
    public func removePushSubscription(id: Int64, now: Date) throws {
        try transaction { transaction in
            try Self.mailLostPush(subscription: id, now: now, transaction)
            try transaction.execute("DELETE FROM pushSubscription WHERE id = \(id)")
        }
    }

    /// Forgets push messages settled before `date` (sent, refused or expired): their payloads
    /// name stores and times, and nothing reads them once settled.
    @discardableResult
    public func purgeSettledPush(before date: Date) throws -> Int {
        try transaction { transaction in try transaction.execute("DELETE FROM pushMessage WHERE sentAt < \(date)") }
    }

    /// Push messages to subscription `id` (for tests).
    public func pushMessages(subscriptionId id: Int64) throws -> [PushMessage] {
        try reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: Self.pushColumns) FROM pushMessage WHERE pushSubscriptionId = \(id) ORDER BY id
                """, as: PushMessage.self)
        }
    }
}
