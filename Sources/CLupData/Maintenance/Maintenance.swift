import CLupDomain
import Foundation
import GRDB
import Synchronization

extension MaintenanceWindow: FetchableRecord {}

/// The maintenance windows not over yet, as last read: every page shows the current one, so it
/// is read at most every few seconds per worker, and again at once after this worker changes
/// them (other workers see a change within `lifetime`).
final class MaintenanceCache: Sendable {
    static let lifetime: Duration = .seconds(5)
    private let state = Mutex<(windows: [MaintenanceWindow], readAt: ContinuousClock.Instant)?>(nil)

    func windows(orRead read: () throws -> [MaintenanceWindow]) rethrows -> [MaintenanceWindow] {
        let now = ContinuousClock.now
        if let kept = state.withLock({ $0 }), now - kept.readAt < Self.lifetime { return kept.windows }
        let windows = try read()
        state.withLock { $0 = (windows, now) }
        return windows
    }

    func clear() { state.withLock { $0 = nil } }
}

/// Something a customer booked inside a maintenance window is told: that it is coming (when
/// it is scheduled), or that it is not after all (when it is cancelled, if they were told).
public struct MaintenanceNotice: Codable, Sendable, Identifiable, FetchableRecord {
    public enum Kind: String, Codable, Sendable {
        case scheduled
        case cancelled
    }

    public var id: Int64
    public var windowId: Int64
    public var reservationId: ReservationID
    public var kind: Kind
    public var createdAt: Date
    public var dispatchedAt: Date?
}

/// Everything a maintenance notice's message is written from.
public struct MaintenanceNoticeSubject: Sendable {
    public var notice: MaintenanceNotice
    public var window: MaintenanceWindow
    public var reservation: Reservation
    public var store: Store
    public var user: User
}

extension MaintenanceSchedule {
    /// Schedules `window` (its id is the database's); `MaintenanceWindow.window` has checked it.
    /// Each customer with a booking whose slot overlaps it is to be told (`dispatchNotices`).
    public func scheduleMaintenance(_ window: MaintenanceWindow, now: Date) throws -> MaintenanceWindow {
        defer { database.maintenanceCache.clear() }
        return try database.transaction { transaction in
            var scheduled = window
            scheduled.id = try transaction.value("""
                INSERT INTO maintenanceWindow (startsAt, endsAt, announceFrom, timeZone, createdAt)
                VALUES (\(window.startsAt), \(window.endsAt), \(window.announceFrom), \(window.timeZone), \(now))
                RETURNING id
                """, as: Int64.self) ?? 0
            // Slots are an hour at most: those starting up to an hour before the window are
            // read, and kept if they end inside it.
            let booked = try transaction.rows("""
                SELECT r.id, r.slotStart, s.slotMinutes FROM reservation r JOIN store s ON s.id = r.storeId
                WHERE r.status = 'booked' AND r.userId IS NOT NULL
                  AND r.slotStart < \(window.endsAt) AND r.slotStart > \(window.startsAt - 3600)
                ORDER BY r.id
                """).map { row in (id: try row.decode(0, as: ReservationID.self), start: try row.decode(1, as: Date.self),
                                   minutes: try row.decode(2, as: Int.self)) }
            for booking in booked where booking.start + Double(booking.minutes) * 60 > window.startsAt {
                try transaction.execute("""
                    INSERT INTO maintenanceNotice (windowId, reservationId, kind, createdAt)
                    VALUES (\(scheduled.id), \(booking.id), 'scheduled', \(now))
                    """)
            }
            return scheduled
        }
    }

    /// Cancels window `id`; false if there is none not over and not cancelled already. The
    /// customers told of it who still hold their booking are told it is off.
    public func cancelMaintenance(id: Int64, now: Date) throws -> Bool {
        defer { database.maintenanceCache.clear() }
        return try database.transaction { transaction in
            guard try transaction.execute("""
                UPDATE maintenanceWindow SET cancelledAt = \(now) WHERE id = \(id) AND cancelledAt IS NULL AND endsAt > \(now)
                """) > 0
            else { return false }
            try transaction.execute("""
                INSERT INTO maintenanceNotice (windowId, reservationId, kind, createdAt)
                SELECT n.windowId, n.reservationId, 'cancelled', \(now)
                FROM maintenanceNotice n JOIN reservation r ON r.id = n.reservationId
                WHERE n.windowId = \(id) AND n.kind = 'scheduled' AND n.dispatchedAt IS NOT NULL AND r.status = 'booked'
                ON CONFLICT DO NOTHING
                """)
            return true
        }
    }

    /// How many customers booked inside window `id` are told of it.
    public func customersTold(windowId id: Int64) throws -> Int {
        try database.reading { transaction in
            try transaction.value("""
                SELECT COUNT(*) FROM maintenanceNotice WHERE windowId = \(id) AND kind = 'scheduled'
                """, as: Int.self) ?? 0
        }
    }

    /// Turns pending maintenance notices into messages, as `Notices.dispatchNotices` does for
    /// reservations': push to the customer's browsers and email as their account chooses. A
    /// notice that no longer applies — the booking ended, the window was cancelled before its
    /// announcement went out, or is over — goes to nobody.
    @discardableResult
    public func dispatchNotices(now: Date, limit: Int = 50, render: @Sendable (MaintenanceNoticeSubject) -> RenderedNotice)
        throws -> Int
    {
        let pending = try database.reading { transaction in
            try transaction.value("SELECT COUNT(*) FROM maintenanceNotice WHERE dispatchedAt IS NULL", as: Int.self) ?? 0
        }
        guard pending > 0 else { return 0 }
        return try database.transaction { transaction in
            let notices = try transaction.records("""
                SELECT id, windowId, reservationId, kind, createdAt, dispatchedAt FROM maintenanceNotice
                WHERE dispatchedAt IS NULL ORDER BY id LIMIT \(limit) \(SQL.forUpdateSkipLocked)
                """, as: MaintenanceNotice.self)
            for notice in notices {
                try transaction.execute("UPDATE maintenanceNotice SET dispatchedAt = \(now) WHERE id = \(notice.id)")
                let windows = try transaction.rows("""
                    SELECT id, startsAt, endsAt, announceFrom, timeZone, cancelledAt IS NOT NULL
                    FROM maintenanceWindow WHERE id = \(notice.windowId)
                    """).map { row in
                    (window: MaintenanceWindow(id: try row.decode(0), startsAt: try row.decode(1), endsAt: try row.decode(2),
                                               announceFrom: try row.decode(3), timeZone: try row.decode(4)),
                     cancelled: try row.decode(5, as: Bool.self))
                }
                guard let (window, cancelled) = windows.first, window.endsAt > now,
                    !(notice.kind == .scheduled && cancelled),
                    let reservation = try Reservation.find(notice.reservationId, transaction), reservation.status == .booked,
                    let userId = reservation.userId, let user = try AppDatabase.user(id: userId, transaction),
                    let store = try transaction.record("""
                        SELECT \(unescaped: AppDatabase.storeColumns) FROM store WHERE id = \(reservation.storeId)
                        """, as: Store.self)
                else { continue }
                let message = render(MaintenanceNoticeSubject(notice: notice, window: window, reservation: reservation,
                                                              store: store, user: user))
                let pushed = try AppDatabase.push(message, to: user, now: now, transaction)
                if user.notifyEmail || pushed == 0 {
                    try AppDatabase.insert(NewOutboxMessage(recipient: user.email, subject: message.subject,
                                                            body: message.body, now: now, priority: .informational),
                                           transaction)
                }
            }
            return notices.count
        }
    }

    /// The maintenance notices of reservation `id`, oldest first.
    public func notices(reservationId id: ReservationID) throws -> [MaintenanceNotice] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT id, windowId, reservationId, kind, createdAt, dispatchedAt FROM maintenanceNotice
                WHERE reservationId = \(id) ORDER BY id
                """, as: MaintenanceNotice.self)
        }
    }

    /// The windows not cancelled that are not over at `now`, soonest first.
    public func maintenanceWindows(now: Date) throws -> [MaintenanceWindow] {
        try database.reading { transaction in
            try transaction.records("""
                SELECT id, startsAt, endsAt, announceFrom, timeZone FROM maintenanceWindow
                WHERE cancelledAt IS NULL AND endsAt > \(now) ORDER BY startsAt, id
                """, as: MaintenanceWindow.self)
        }
    }

    /// The window pages show at `now`, and its phase (`MaintenanceWindow.shown`), from the
    /// windows as read at most `MaintenanceCache.lifetime` ago.
    public func shownMaintenance(now: Date) throws -> (window: MaintenanceWindow, phase: MaintenanceWindow.Phase)? {
        // Those over for a day are left out; the cache serves the `now` of the next seconds' requests.
        let windows = try database.maintenanceCache.windows { try maintenanceWindows(now: now - 86400) }
        return MaintenanceWindow.shown(windows, at: now)
    }
}

/// Scheduled maintenance windows, as every page announces them.
/// Reached from the database as `maintenance`; each write is one transaction.
public struct MaintenanceSchedule: Sendable {
    let database: AppDatabase
}

extension AppDatabase {
    /// Scheduled maintenance windows.
    public var maintenance: MaintenanceSchedule { MaintenanceSchedule(database: self) }
}
