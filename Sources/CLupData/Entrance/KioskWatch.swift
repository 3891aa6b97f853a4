import CLupDomain
import Foundation

/// What a kiosk says of itself with a request: the page or firmware it runs, what it made
/// while offline and has not sent yet, and how far its clock is off CLup's. What it does not
/// say (a page loaded by the browser itself sends no such headers) stays as it last said.
public struct KioskReport: Sendable, Equatable {
    /// The page's script fingerprint, or a device's firmware version (at most 40 characters).
    public var version: String?
    /// Scans or tickets it made while CLup could not be reached, waiting to be sent.
    public var queued: Int?
    /// CLup's time minus the kiosk's, in milliseconds, as the kiosk measured it.
    public var clockOffsetMs: Int64?

    public init(version: String?, queued: Int?, clockOffsetMs: Int64?) {
        (self.version, self.queued, self.clockOffsetMs) = (version, queued, clockOffsetMs)
    }

    /// `self`, with what it does not say taken from `earlier`.
    public func over(_ earlier: KioskReport) -> KioskReport {
        KioskReport(version: version ?? earlier.version, queued: queued ?? earlier.queued,
                    clockOffsetMs: clockOffsetMs ?? earlier.clockOffsetMs)
    }
}

/// A kiosk in service, as the store's manager and the operator watch it.
public struct KioskHealth: Sendable {
    public var id: Int64
    public var storeId: StoreID
    public var label: String
    public var role: KioskRole
    /// When it last reached CLup; nil if it never has since it was enrolled.
    public var seenAt: Date?
    /// What it last said of itself ("" and 0 for what it never said).
    public var version: String
    public var queued: Int
    public var clockOffsetMs: Int64?
    /// Its scans refused in the last 24 hours, at the door or when it caught up.
    public var refusedScans: Int
    /// Whether it lets people in while offline (a door), and the places it holds to do so.
    public var admitsOffline = false
    public var heldPlaces = 0

    /// A kiosk that has not reached CLup for this long while its store is open is silent.
    public static let silentAfter: TimeInterval = 120

    /// How long it has been silent at `now`, if it has been seen and is silent while the store
    /// is open (`hours`).
    public func silence(now: Date, hours: OpeningHours) -> TimeInterval? {
        guard let seenAt, now.timeIntervalSince(seenAt) >= Self.silentAfter else { return nil }
        guard case .open = hours.state(at: now) else { return nil }
        return now.timeIntervalSince(seenAt)
    }
}

extension Doors {
    /// Records that kiosk `kioskId` reached CLup at `now`, saying `report` of itself.
    public func recordContact(kioskId: Int64, report: KioskReport, now: Date) throws {
        let version = report.version.map { String($0.prefix(40)) }
        let queued = report.queued.map { max(0, $0) }
        try database.transaction { transaction in
            _ = try transaction.execute("""
                INSERT INTO kioskContact (kioskId, seenAt, version, queued, clockOffsetMs)
                VALUES (\(kioskId), \(now), \(version ?? ""), \(queued ?? 0), \(report.clockOffsetMs))
                ON CONFLICT (kioskId) DO UPDATE SET seenAt = excluded.seenAt,
                    version = COALESCE(\(version), kioskContact.version), queued = COALESCE(\(queued), kioskContact.queued),
                    clockOffsetMs = COALESCE(\(report.clockOffsetMs), kioskContact.clockOffsetMs)
                """)
        }
    }

    /// The kiosks in service, of store `storeId` or of every store, each with its last contact
    /// and its scans refused in the 24 hours to `now`.
    public func kioskHealth(storeId: StoreID? = nil, now: Date) throws -> [KioskHealth] {
        let store: SQL = storeId.map { "AND k.storeId = \($0)" } ?? ""
        return try database.reading { transaction in
            try transaction.rows("""
                SELECT k.id, k.storeId, k.label, k.role, c.seenAt, c.version, c.queued, c.clockOffsetMs,
                       (SELECT COUNT(*) FROM doorAction d WHERE d.kioskId = k.id AND d.at >= \(now - 86400)
                          AND d.action IN ('scanRefused', 'offlineConflict')),
                       l.kioskId IS NOT NULL, \(AppDatabase.heldPlaces(now: now))
                FROM kiosk k LEFT JOIN kioskContact c ON c.kioskId = k.id LEFT JOIN doorLease l ON l.kioskId = k.id
                WHERE k.revokedAt IS NULL \(store)
                ORDER BY k.storeId, k.id
                """).map { row in
                KioskHealth(
                    id: try row.decode(0), storeId: StoreID(try row.decode(1, as: Int64.self)), label: try row.decode(2),
                    role: try row.decodeRaw(3), seenAt: try row.value(4), version: try row.value(5) ?? "",
                    queued: Int(try row.value(6, as: Int64.self) ?? 0), clockOffsetMs: try row.value(7),
                    refusedScans: Int(try row.decode(8, as: Int64.self)), admitsOffline: try row.decode(9),
                    heldPlaces: Int(try row.value(10, as: Int64.self) ?? 0))
            }
        }
    }
}
