import CLupDomain
import Foundation
import PostgresNIO

/// Scheduled maintenance on PostgreSQL: the same named methods as `AppDatabase+Maintenance.swift`.
extension PostgresEngine {
    func scheduleMaintenance(_ window: MaintenanceWindow, now: Date) throws -> MaintenanceWindow {
        try write { transaction in
            var scheduled = window
            scheduled.id = try transaction.value("""
                INSERT INTO maintenanceWindow (startsAt, endsAt, announceFrom, timeZone, createdAt)
                VALUES (\(window.startsAt), \(window.endsAt), \(window.announceFrom), \(window.timeZone), \(now))
                RETURNING id
                """, as: Int64.self) ?? 0
            return scheduled
        }
    }

    func cancelMaintenance(id: Int64, now: Date) throws -> Bool {
        try write { transaction in
            try transaction.execute("""
                UPDATE maintenanceWindow SET cancelledAt = \(now) WHERE id = \(id) AND cancelledAt IS NULL AND endsAt > \(now)
                """) > 0
        }
    }

    func maintenanceWindows(now: Date) throws -> [MaintenanceWindow] {
        try read { transaction in
            try transaction.rows("""
                SELECT id, startsAt, endsAt, announceFrom, timeZone FROM maintenanceWindow
                WHERE cancelledAt IS NULL AND endsAt > \(now) ORDER BY startsAt, id
                """).map { try $0.record(MaintenanceWindow.self) }
        }
    }
}
