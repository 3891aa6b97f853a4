import CLupDomain
import Foundation

/// What happens to a reservation is told to its customer: each event records a notice in its
/// own transaction, and dispatching turns notices into mail and push messages.
extension AppDatabase {

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
}

extension Notices {
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
        let pending = try database.reading { transaction in
            try transaction.value("SELECT COUNT(*) FROM notice WHERE dispatchedAt IS NULL", as: Int.self) ?? 0
        }
        guard pending > 0 else { return 0 }
        return try database.transaction { transaction in
            let notices = try transaction.records("""
                SELECT id, reservationId, kind, reason, createdAt, dispatchedAt, emailOnly FROM notice WHERE dispatchedAt IS NULL
                ORDER BY id LIMIT \(limit) \(SQL.forUpdateSkipLocked)
                """, as: Notice.self)
            for notice in notices {
                try transaction.execute("UPDATE notice SET dispatchedAt = \(now) WHERE id = \(notice.id)")
                guard let reservation = try Reservation.find(notice.reservationId, transaction),
                    notice.appliesTo.contains(reservation.status),
                    let store = try transaction.record("""
                        SELECT \(unescaped: AppDatabase.storeColumns) FROM store WHERE id = \(reservation.storeId)
                        """, as: Store.self)
                else { continue }
                guard let userId = reservation.userId else {
                    // A walk-in who left an address at the dispenser: by email, the one way.
                    if let contact = try AppDatabase.walkInContact(reservation.id, transaction) {
                        let message = render(NoticeSubject(notice: notice, reservation: reservation, store: store,
                                                           walkIn: contact))
                        try AppDatabase.insert(NewOutboxMessage(recipient: contact.email, subject: message.subject,
                                                                body: message.body, now: now,
                                                                priority: notice.kind.mailPriority, about: notice),
                                               transaction)
                    }
                    continue
                }
                guard let user = try AppDatabase.user(id: userId, transaction) else { continue }
                var subject = NoticeSubject(notice: notice, reservation: reservation, store: store, user: user)
                if notice.kind == .cancelled, notice.reason == .storeClosedThatDay, let slot = reservation.slotStart {
                    subject.alternatives = openInstead(of: store, at: slot, now: now)
                }
                // Shorter hours that day: the stores open at the booked time.
                if notice.kind == .cancelled, notice.reason == .specialHoursThatDay, let slot = reservation.slotStart {
                    subject.alternatives = openInstead(of: store, at: slot, now: now, atTheTime: true)
                }
                if notice.kind == .cancelled, notice.reason == .storeRetired {
                    subject.alternatives = openInstead(of: store, at: reservation.slotStart ?? now, now: now)
                }
                if notice.kind == .cancelled, notice.reason == .bySupport {
                    subject.supportReason = try AppDatabase.supportReason(reservationId: reservation.id, transaction)
                }
                let message = render(subject)
                // A notice whose push was lost goes by email alone, unless it went by email already.
                let pushed = notice.emailOnly ? 0 : try AppDatabase.push(message, to: user, now: now, notice: notice.id, transaction)
                if notice.emailOnly && user.notifyEmail { continue }
                if user.notifyEmail || pushed == 0 {
                    // What this reservation's customer has not yet been sent about it is old news.
                    try transaction.execute("""
                        UPDATE outboxMessage SET sentAt = \(now), lastError = \(AppDatabase.supersededMail)
                        WHERE reservationId = \(notice.reservationId) AND sentAt IS NULL
                        """)
                    let mail = NewOutboxMessage(recipient: user.email, subject: message.subject, body: message.body,
                                                now: now, priority: notice.kind.mailPriority, about: notice)
                    // What the customer did themselves keeps their mailbox's pace; what happened to them does not.
                    if notice.reportsOwnAction {
                        _ = try AppDatabase.enqueue(mail, now: now, transaction)
                    } else {
                        try AppDatabase.insert(mail, transaction)
                    }
                }
            }
            return notices.count
        }
    }

    /// The nearest stores (at most `limit`, within `radius` metres) with slots to book on the
    /// local day of `slot` (`atTheTime`: a slot holding its start), other than `store`: where a
    /// customer whose booking a closure or shorter hours cancelled may go instead. Read from the
    /// board: no round trip.
    func openInstead(of store: Store, at slot: Date, now: Date, limit: Int = 3, radius: Double = 10_000,
                     atTheTime: Bool = false) -> [(store: Store, metres: Double)]
    {
        database.board.entries().lazy
            .filter { $0.store.id != store.id && !$0.definition.isRetired }
            .map { (entry: $0, metres: store.position.distance(to: $0.store.position)) }
            .filter { $0.metres <= radius }
            .sorted { $0.metres < $1.metres }
            .lazy.filter { candidate in
                let calendar = candidate.entry.calendar
                return atTheTime ? calendar.slot(containing: slot, now: now) != nil
                    : !calendar.slots(startingOn: calendar.localDay(of: slot), now: now).isEmpty
            }
            .prefix(limit).map { ($0.entry.store, $0.metres) }
    }

    /// The notices of reservation `id`, oldest first (for tests and the ticket's history).
    public func list(reservationId: ReservationID) throws -> [Notice] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT id, reservationId, kind, reason, createdAt, dispatchedAt, emailOnly FROM notice
                WHERE reservationId = \(reservationId) ORDER BY id
                """, as: Notice.self)
        }
    }
}

/// What customers are told: notices turned into mail and push, the mail outbox, browsers' push
/// subscriptions.
/// Reached from the database as `notices`; each write is one transaction.
public struct Notices: Sendable {
    let database: AppDatabase
}

extension AppDatabase {
    /// Notices, mail and push.
    public var notices: Notices { Notices(database: self) }
}
