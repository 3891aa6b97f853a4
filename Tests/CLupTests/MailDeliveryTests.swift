import Foundation
import Logging
import Synchronization
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupJobs
@testable import CLupSupport
@testable import CLupWeb

/// The outbox's sender: mail that no longer matters is not sent, and the rest goes out in
/// parallel, the most urgent first.
@Suite("Mail delivery")
struct MailDeliveryTests {
    let clock: TestClock
    let database: AppDatabase
    let store: Store
    let writer = NoticeWriter(settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets)

    init() throws {
        (clock, database, _) = try Fixture.start()
        // Room for one: the second in line waits for the first to leave.
        store = try database.stores.createStore(
            NewStore(name: "Bottega Duomo", address: "Piazza Duomo 1", phone: "+39 02 1", position: Place.milan[0].position,
                     capacity: 1, timeZone: "Europe/Rome", settings: StoreSettings(capacity: 1, walkInPercent: 0)),
            hours: Fixture.weekdayHours, departments: [])
    }

    func lineUp(_ email: String, metres: Int? = nil) throws -> Reservation {
        let user = try database.accounts.createUser(email: email, displayName: "Ada", passwordHash: Fixture.passwordHash,
                                           now: clock.now, confirmation: nil)
        let outcome = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
            requestKey: Secrets.token(), travelMetres: metres), now: clock.now)
        guard case .created(let reservation) = outcome else { throw MailError(description: "not created: \(outcome)") }
        return reservation
    }

    /// Sends to memory, recording what it was given and how many it held at once.
    final class Recorder: MailTransport, @unchecked Sendable {
        // @unchecked: every field is touched only under `lock`.
        private let lock = NSLock()
        private var current = 0
        private(set) var most = 0
        private(set) var recipients: [String] = []
        let pause: TimeInterval
        let refuse: Set<String>

        init(pause: TimeInterval = 0, refuse: Set<String> = []) {
            self.pause = pause
            self.refuse = refuse
        }

        func deliver(rfc822: String, from: String, to: String) throws {
            lock.withLock {
                current += 1
                most = max(most, current)
            }
            Thread.sleep(forTimeInterval: pause)
            lock.withLock {
                current -= 1
                recipients.append(to)
            }
            if refuse.contains(to) { throw MailError(description: "550 mailbox unavailable") }
        }
    }

    func queue(_ recipient: String, _ priority: MailPriority = .account) throws {
        let message = NewOutboxMessage(recipient: recipient, subject: "s", body: "b", now: clock.now, priority: priority)
        #expect(try database.notices.enqueueMail(message, now: clock.now) == .queued(sendAt: clock.now))
    }

    func delivery(_ transport: Recorder, parallelism: Int = 4) -> MailDelivery {
        MailDelivery(database: database, transport: transport, from: "clup@example.org", logger: Logger(label: "test"),
                     parallelism: parallelism)
    }

    @Test("a \"your turn\" for a ticket already used is not sent, and the next due message takes its place")
    func usedTicket() throws {
        let ada = try lineUp("ada@example.org")
        #expect(try database.reservations.reservation(id: ada.id)?.reservation.status == .called)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        // Before the mail goes out, Ada is at the door and scanned in.
        #expect(try database.doors.scan(reservationId: ada.id, at: store.id, now: clock.now).verdict == .enter)
        // Behind it, account mail.
        for index in 0..<3 {
            try queue("x\(index)@example.org")
        }
        let claimed = try database.notices.claimDueMail(now: clock.now, limit: 3)
        #expect(claimed.map(\.recipient) == ["x0@example.org", "x1@example.org", "x2@example.org"])
        let turn = try #require(try database.notices.mail(to: "ada@example.org").first)
        #expect(turn.subject == "It is your turn at Bottega Duomo")
        #expect(turn.sentAt == clock.now && turn.lastError == AppDatabase.mootMail)
    }

    @Test("a notice superseded by a newer one for the same reservation is not sent: only the newest goes out")
    func superseded() throws {
        let first = try lineUp("first@example.org")
        #expect(try database.doors.scan(reservationId: first.id, at: store.id, now: clock.now).verdict == .enter)
        // Ada, 500 m away, waits behind the one inside: she is told to leave at 10:19, and is
        // called when the place frees at 10:30, as she arrives (visits here last as declared).
        try Fixture.historyAsDeclared(store.id, in: database)
        let ada = try lineUp("ada@example.org", metres: 500)
        clock.advance(19 * 60)
        try database.doors.advanceQueues(now: clock.now)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        #expect(try database.notices.mail(to: "ada@example.org").map(\.subject) == ["Time to leave for Bottega Duomo"])
        clock.advance(11 * 60)
        #expect(try database.doors.scan(reservationId: first.id, at: store.id, now: clock.now).verdict == .exit)
        #expect(try database.reservations.reservation(id: ada.id)?.reservation.status == .called)
        try database.notices.dispatchNotices(now: clock.now, render: writer.render)
        let mail = try database.notices.mail(to: "ada@example.org")
        #expect(mail.map(\.subject) == ["Time to leave for Bottega Duomo", "It is your turn at Bottega Duomo"])
        #expect(mail[0].sentAt == clock.now && mail[0].lastError == AppDatabase.supersededMail)
        #expect(mail[1].sentAt == nil)
        let recorder = Recorder()
        let sent = try delivery(recorder).deliverDue(now: clock.now)
        // The first customer's "your turn" is not sent either: they are long inside.
        #expect(sent == MailDelivery.Delivered(sent: 1, failed: 0, more: false))
        #expect(recorder.recipients == ["ada@example.org"])
    }

    @Test("a backlog goes out several messages at a time, every one once; a refusal is retried later")
    func parallel() throws {
        for index in 0..<60 {
            try queue("r\(index)@example.org", .informational)
        }
        let recorder = Recorder(pause: 0.01, refuse: ["r7@example.org"])
        let result = try delivery(recorder).deliverDue(now: clock.now)
        #expect(result == MailDelivery.Delivered(sent: 59, failed: 1, more: false))
        #expect((2...4).contains(recorder.most), "at most \(recorder.most) at once")
        #expect(Set(recorder.recipients).count == 60 && recorder.recipients.count == 60)
        let refused = try #require(try database.notices.mail(to: "r7@example.org").first)
        #expect(refused.sentAt == nil && refused.nextAttemptAt == clock.now + 60)
        #expect(refused.lastError?.contains("550 mailbox unavailable") == true)
        // Nothing is left due now; the refused one is tried again in a minute, then two.
        #expect(try delivery(recorder).deliverDue(now: clock.now) == MailDelivery.Delivered())
        #expect(try delivery(recorder).deliverDue(now: clock.now + 60) == MailDelivery.Delivered(sent: 0, failed: 1))
        #expect(try database.notices.mail(to: "r7@example.org").first?.nextAttemptAt == clock.now + 180)
    }

    @Test("with a budget spent, the sender stops between batches and says more is due")
    func budget() throws {
        for index in 0..<30 {
            try queue("r\(index)@example.org", .informational)
        }
        let recorder = Recorder()
        let first = try delivery(recorder, parallelism: 2).deliverDue(now: clock.now, budget: 0)
        #expect(first == MailDelivery.Delivered(sent: 10, failed: 0, more: true))
        // An urgent message made meanwhile goes before the rest of the backlog.
        try queue("urgent@example.org", .urgent)
        _ = try delivery(recorder, parallelism: 1).deliverDue(now: clock.now, budget: 0)
        #expect(recorder.recipients[10] == "urgent@example.org")
    }
}
