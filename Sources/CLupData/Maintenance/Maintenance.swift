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

extension MaintenanceSchedule {
    /// Schedules `window` (its id is the database's); `MaintenanceWindow.window` has checked it.
    public func scheduleMaintenance(_ window: MaintenanceWindow, now: Date) throws -> MaintenanceWindow {
        defer { database.maintenanceCache.clear() }
        return try database.transaction { transaction in
            var scheduled = window
            scheduled.id = try transaction.value("""
                INSERT INTO maintenanceWindow (startsAt, endsAt, announceFrom, timeZone, createdAt)
                VALUES (\(window.startsAt), \(window.endsAt), \(window.announceFrom), \(window.timeZone), \(now))
                RETURNING id
                """, as: Int64.self) ?? 0
            return scheduled
        }
    }

    /// Cancels window `id`; false if there is none not over and not cancelled already.
    public func cancelMaintenance(id: Int64, now: Date) throws -> Bool {
        defer { database.maintenanceCache.clear() }
        return try database.transaction { transaction in
            try transaction.execute("""
                UPDATE maintenanceWindow SET cancelledAt = \(now) WHERE id = \(id) AND cancelledAt IS NULL AND endsAt > \(now)
                """) > 0
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
