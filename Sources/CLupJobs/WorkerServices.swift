import CLupData
import Foundation
import Logging
import Synchronization

/// The worker's services (`clup serve`), each a `BackgroundService` beside the request threads.
public enum WorkerServices {
    /// Sends the outbox, so a slow mail server never holds a request. A backlog is sent a
    /// second at a time, each second's claim made afresh: mail that became due meanwhile, the
    /// urgent first, goes ahead of what is left. A turn lasts at most about five seconds, so
    /// stopping the worker never waits long for it.
    public static func mail(_ delivery: MailDelivery, every interval: TimeInterval, now: @escaping @Sendable () -> Date,
                            logger: Logger, beat: @escaping @Sendable () -> Void) -> BackgroundService
    {
        BackgroundService(name: "mail", every: interval, logger: logger, beat: beat) {
            for _ in 0..<5 {
                guard try delivery.deliverDue(now: now(), budget: 1).more else { return }
                beat()
            }
        }
    }

    /// Advances every store's queue: time alone frees places (a call's grace period ends, a
    /// booking's window closes), so calling cannot wait for a request. Every second it also
    /// picks up what other processes wrote (`clup admin`) into the store board; the queues,
    /// the booking reminders and the waiting lists' offers every `interval`.
    public static func queues(_ database: AppDatabase, every interval: TimeInterval, now: @escaping @Sendable () -> Date,
                              logger: Logger, beat: @escaping @Sendable () -> Void) -> BackgroundService
    {
        let lastAdvance = Mutex(Date.distantPast)
        return BackgroundService(name: "queues", every: min(1, interval), logger: logger, beat: beat) {
            try database.refreshBoard()
            let due = lastAdvance.withLock { last in
                guard Date().timeIntervalSince(last) >= interval else { return false }
                last = Date()
                return true
            }
            guard due else { return }
            let called = try database.doors.advanceQueues(now: now())
            if called > 0 { logger.info("called \(called) tickets") }
            let bookings = try database.reservations.remindBookings(now: now())
            if bookings.reminded + bookings.cancelled > 0 {
                logger.info("reminded \(bookings.reminded) bookings, cancelled \(bookings.cancelled) unconfirmed")
            }
            let lists = try database.waitingLists.passWaitingLists(now: now())
            if lists.offered + lists.passed + lists.closed > 0 {
                logger.info("waiting lists: \(lists.offered) places offered, \(lists.passed) passed on, \(lists.closed) closed")
            }
        }
    }

    /// Turns reservation, waiting-list and maintenance notices into messages every second
    /// (`render` and its kin write them: the web
    /// layer's `NoticeWriter`), and starts sending the push messages that are due (each on a
    /// thread of its own). It also keeps house: hourly, what the retention rules say is no
    /// longer kept (sessions older than `sessionLifetime` included, and accounts unused for
    /// `retention`'s period, their owners warned first); every minute, the addresses
    /// walk-ins left for visits that have ended are forgotten, and a WAL grown past its limit is
    /// checkpointed and truncated.
    public static func notices(_ database: AppDatabase, render: @escaping @Sendable (NoticeSubject) -> RenderedNotice,
                               renderWaitlist: @escaping @Sendable (WaitlistNoticeSubject) -> RenderedNotice,
                               renderMaintenance: @escaping @Sendable (MaintenanceNoticeSubject) -> RenderedNotice,
                               push: PushDelivery, sessionLifetime: TimeInterval, retention: RetentionPolicy,
                               dormantWarning: @escaping @Sendable (User, Date) -> (subject: String, body: String),
                               now: @escaping @Sendable () -> Date,
                               logger: Logger, beat: @escaping @Sendable () -> Void) -> BackgroundService
    {
        let last = Mutex((purge: Date.distantPast, checkpoint: Date.distantPast))
        return BackgroundService(name: "notices", every: 1, logger: logger, beat: beat) {
            try database.notices.dispatchNotices(now: now(), render: render)
            try database.waitingLists.dispatchWaitlistNotices(now: now(), render: renderWaitlist)
            try database.maintenance.dispatchNotices(now: now(), render: renderMaintenance)
            try push.deliverDue(now: now())
            let (purge, checkpoint) = last.withLock { last in
                let purge = Date().timeIntervalSince(last.purge) > 3600
                let checkpoint = Date().timeIntervalSince(last.checkpoint) > 60
                if purge { last.purge = Date() }
                if checkpoint { last.checkpoint = Date() }
                return (purge, checkpoint)
            }
            if purge {
                try database.notices.purgeSettledPush(before: now() - 86400)
                // What the privacy page says is no longer kept.
                try database.privacy.purgePersonalData(now: now(), sessionLifetime: sessionLifetime, policy: retention)
                let dormant = try database.privacy.retireDormantAccounts(now: now(), policy: retention, warning: dormantWarning)
                if dormant.warned + dormant.deleted > 0 {
                    logger.info("dormant accounts: \(dormant.warned) warned, \(dormant.deleted) deleted")
                }
            }
            if checkpoint { try database.privacy.forgetEndedWalkIns() }
            if checkpoint, let size = try database.checkpointIfLarge() {
                logger.info("the WAL had grown to \(size >> 20) MB: checkpointed and truncated")
            }
        }
    }
}
