import CLupData
import CLupDomain
import Foundation
import Logging
import Synchronization

/// Each kiosk's last contact, as its requests tell it: the kiosk's page (or a device) says in
/// headers what it runs, what it holds that it made offline, and how far its clock is off
/// CLup's (`CLup-Kiosk-Version`, `CLup-Kiosk-Queued`, `CLup-Kiosk-Clock`). Written at most
/// every 30 seconds a kiosk from each worker, and at once when what it says changes in a way
/// its manager would want to see; a kiosk silent for 2 minutes in opening hours is flagged.
final class KioskWatch: Sendable {
    let database: AppDatabase
    let logger: Logger
    private let written = Mutex<[Int64: (at: Date, report: KioskReport)]>([:])

    /// How often a kiosk's contact is written while nothing it says changes.
    static let every: TimeInterval = 30

    init(database: AppDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// What a kiosk's request says of it; what is missing or malformed is left out.
    static func report(_ request: Request) -> KioskReport {
        let version = request.headers["clup-kiosk-version"].flatMap { text in
            text.utf8.count <= 40 && text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "._+-".contains($0)) })
                ? text : nil
        }
        let queued = request.headers["clup-kiosk-queued"].flatMap { Int($0) }.flatMap { (0...1_000_000).contains($0) ? $0 : nil }
        // Ten years either way is no clock, but a number.
        let clock = request.headers["clup-kiosk-clock"].flatMap { Int64($0) }
            .flatMap { abs($0) <= 10 * 365 * 86_400_000 ? $0 : nil }
        return KioskReport(version: version, queued: queued, clockOffsetMs: clock)
    }

    /// Records that `kiosk` asked at `now`, unless this worker wrote the same lately.
    func seen(_ kiosk: Kiosk, _ request: Request, now: Date) {
        let said = Self.report(request)
        let due = written.withLock { written -> Bool in
            let last = written[kiosk.id]
            let report = last.map { said.over($0.report) } ?? said
            if let last, !Self.worthWriting(report, after: last.report), now.timeIntervalSince(last.at) < Self.every,
               now >= last.at
            {
                return false
            }
            written[kiosk.id] = (now, report)
            return true
        }
        guard due else { return }
        do {
            try database.doors.recordContact(kioskId: kiosk.id, report: said, now: now)
        } catch {
            // Watching must never cost a scan its answer.
            written.withLock { _ = $0.removeValue(forKey: kiosk.id) }
            logger.warning("kiosk \(kiosk.id): its contact was not recorded: \(error)")
        }
    }

    /// Whether `report` says something its manager would want to see at once: another version,
    /// a queue that started or ended, a clock that moved by more than half a minute.
    static func worthWriting(_ report: KioskReport, after last: KioskReport) -> Bool {
        report.version != last.version || (report.queued ?? 0 == 0) != (last.queued ?? 0 == 0)
            || (report.clockOffsetMs == nil) != (last.clockOffsetMs == nil)
            || abs((report.clockOffsetMs ?? 0) - (last.clockOffsetMs ?? 0)) > 30_000
    }
}

extension Middleware where Input == KioskContext, Output == KioskContext {
    /// Records the kiosk's contact (`KioskWatch`).
    static func watched(by watch: KioskWatch) -> Middleware {
        .check("watched") { context in
            watch.seen(context.kiosk, context.request, now: context.now)
            return context
        }
    }
}

extension Middleware where Input == DeviceContext, Output == DeviceContext {
    /// Records the device's contact (`KioskWatch`).
    static func watched(by watch: KioskWatch) -> Middleware {
        .check("watched") { context in
            watch.seen(context.kiosk, context.request, now: context.now)
            return context
        }
    }
}
