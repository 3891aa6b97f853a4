import CLupDomain
import Foundation

/// Browsers' push subscriptions and the messages queued for them.
extension AppDatabase {
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

    static let subscriptionColumns = "id, userId, endpoint, p256dh, auth, createdAt, failures"
    static let pushColumns = """
        id, pushSubscriptionId, payload, urgency, createdAt, expiresAt, attempts, nextAttemptAt, sentAt, lastError
        """

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
}

extension Notices {

    /// Keeps the browser subscription `endpoint` (already `PushEndpoint.canonical`) for the
    /// customer: the same endpoint again renews its keys; one another account holds is refused.
    public func savePushSubscription(userId: UserID, endpoint: String, p256dh: String, auth: String, now: Date) throws
        -> AppDatabase.PushSubscriptionSaved
    {
        try database.transaction { transaction in
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
                     LIMIT \(AppDatabase.pushSubscriptionsPerAccount))
                """)
            return .saved
        }
    }

    /// Forgets the customer's subscription `endpoint`; false if they had none such.
    @discardableResult
    public func deletePushSubscription(userId: UserID, endpoint: String) throws -> Bool {
        try database.transaction { transaction in
            try transaction.execute("DELETE FROM pushSubscription WHERE userId = \(userId) AND endpoint = \(endpoint)") > 0
        }
    }

    public func pushSubscriptions(userId: UserID) throws -> [PushSubscription] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: AppDatabase.subscriptionColumns) FROM pushSubscription WHERE userId = \(userId) ORDER BY id
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
        let due = try database.reading { transaction in
            try transaction.value("""
                SELECT COUNT(*) FROM pushMessage WHERE sentAt IS NULL AND nextAttemptAt <= \(now)
                """, as: Int.self) ?? 0
        }
        guard due > 0 else { return [] }
        return try database.transaction { transaction in
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
                        RETURNING \(unescaped: AppDatabase.pushColumns)
                        """, as: PushMessage.self),
                    let subscription = try transaction.record("""
                        SELECT \(unescaped: AppDatabase.subscriptionColumns) FROM pushSubscription
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
        try database.transaction { transaction in
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
        try database.transaction { transaction in
            try transaction.execute("""
                UPDATE pushMessage SET nextAttemptAt = \(retryAt), lastError = \(String(error.prefix(500))) WHERE id = \(id)
                """)
            guard let failing = try transaction.value("""
                UPDATE pushSubscription SET failures = failures + 1
                WHERE id = (SELECT pushSubscriptionId FROM pushMessage WHERE id = \(id))
                RETURNING CASE WHEN failures >= \(AppDatabase.pushFailuresAllowed) THEN id END
                """, as: Int64.self)
            else { return false }
            try AppDatabase.mailLostPush(subscription: failing, now: now, transaction)
            try transaction.execute("DELETE FROM pushSubscription WHERE id = \(failing)")
            return true
        }
    }

    /// Forgets a subscription the push service says is gone (404 or 410), with its messages;
    /// what it had not delivered goes by email if it was the account's last (`mailLostPush`).
    public func removePushSubscription(id: Int64, now: Date) throws {
        try database.transaction { transaction in
            try AppDatabase.mailLostPush(subscription: id, now: now, transaction)
            try transaction.execute("DELETE FROM pushSubscription WHERE id = \(id)")
        }
    }

    /// Forgets push messages settled before `date` (sent, refused or expired): their payloads
    /// name stores and times, and nothing reads them once settled.
    @discardableResult
    public func purgeSettledPush(before date: Date) throws -> Int {
        try database.transaction { transaction in try transaction.execute("DELETE FROM pushMessage WHERE sentAt < \(date)") }
    }

    /// Push messages to subscription `id` (for tests).
    public func pushMessages(subscriptionId id: Int64) throws -> [PushMessage] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT \(unescaped: AppDatabase.pushColumns) FROM pushMessage WHERE pushSubscriptionId = \(id) ORDER BY id
                """, as: PushMessage.self)
        }
    }

    /// When the account's browsers last stopped taking its push messages, while none has
    /// subscribed since; nil otherwise.
    public func pushLost(userId: UserID) throws -> Date? {
        try database.value(Date.self, sql: #"SELECT pushLostAt FROM "user" WHERE id = ?"#, userId)
    }
}
