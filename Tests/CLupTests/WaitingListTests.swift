import Foundation
import Synchronization
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Waiting lists on the engine the suite runs on (SQLite, or PostgreSQL with
/// CLUP_TEST_ENGINE=postgres): joining, offers in order, held places, lapsed offers passing on,
/// lists closing, and the race of places freed while customers answer.
@Suite("Waiting lists")
struct WaitingListDataTests {
    /// Two workers on one database: on PostgreSQL, two engines on one schema, as two `clup
    /// serve` processes; on SQLite, the one database every thread shares.
    let workers: [AppDatabase]
    let now = Fixture.wednesdayMorning
    /// Thursday 19 November 2026, 10:00 in Milan: a slot a day ahead.
    let slot = Fixture.date(2026, 11, 19, 10)

    init() throws {
        if Fixture.onPostgres {
            let url = try PostgresFixture.freshURL()
            workers = [try AppDatabase.open(url: url, dataKey: .scratch), try AppDatabase.open(url: url, dataKey: .scratch)]
        } else {
            let database = try Fixture.database()
            workers = [database, database]
        }
    }

    var database: AppDatabase { workers[0] }

    func store(slotCapacity: Int = 2) throws -> Store {
        var new = Fixture.store("Bottega", at: GeoPoint(latitude: 45.46, longitude: 9.19), capacity: 50)
        new.slotCapacity = slotCapacity
        return try database.stores.createStore(new, hours: Fixture.weekdayHours, departments: [])
    }

    func book(_ storeId: StoreID, _ userId: UserID, people: Int = 1, at start: Date? = nil, worker: Int = 0)
        throws -> ReservationOutcome
    {
        try workers[worker].reservations.reserve(ReservationRequest(
            storeId: storeId, userId: userId, kind: .booking, people: people, residenceMinutes: 30,
            slotStart: start ?? slot, requestKey: Secrets.token()), now: now)
    }

    func join(_ storeId: StoreID, _ userId: UserID, people: Int = 1, at start: Date? = nil, key: String = Secrets.token(),
              worker: Int = 0) throws -> WaitlistJoinOutcome
    {
        try workers[worker].waitingLists.joinWaitlist(WaitlistRequest(
            storeId: storeId, userId: userId, slotStart: start ?? slot, people: people, residenceMinutes: 30,
            requestKey: key), now: now)
    }

    func joined(_ outcome: WaitlistJoinOutcome) throws -> WaitlistEntry {
        guard case .joined(let entry) = outcome else { Issue.record("not joined: \(outcome)"); throw Stop() }
        return entry
    }

    struct Stop: Error {}

    func booked(_ storeId: StoreID) throws -> Int {
        try database.reservations.bookedPeople(storeId: storeId, in: Slot(start: slot, end: slot + 15 * 60))
    }

    func status(_ id: Int64) throws -> WaitingList.Status? { try database.waitingLists.waitlistPlace(id: id)?.entry.status }

    @Test("only a full slot has a list; one list at a time; the same form joins once; the line is kept in order")
    func joining() throws {
        let store = try store()
        let customers = try database.accounts.createCustomers(emails: (1...5).map { "w\($0)@example.org" }, now: now)
        guard case .refused(.notFull) = try join(store.id, customers[0]) else { Issue.record("joined a free slot"); return }
        for customer in customers.prefix(2) {
            guard case .created = try book(store.id, customer) else { Issue.record("not booked"); return }
        }
        let key = Secrets.token()
        let first = try joined(try join(store.id, customers[2], key: key))
        guard case .alreadyJoined(let again) = try join(store.id, customers[2], key: key), again.id == first.id else {
            Issue.record("the same form joined twice"); return
        }
        guard case .onAnotherList(let open) = try join(store.id, customers[2], at: slot + 3600), open.id == first.id else {
            Issue.record("on two lists at once"); return
        }
        let second = try joined(try join(store.id, customers[3]))
        #expect(try database.waitingLists.waitlistPlace(id: second.id)?.ahead == 1)
        #expect(try database.waitingLists.openWaitlistPlace(userId: customers[3])?.entry.id == second.id)
        guard case .slotRefused(.tooSoon) = try join(store.id, customers[4], at: now + 3600) else {
            Issue.record("joined a slot within the lead time"); return
        }
        // Someone waits: a newcomer cannot book past the list.
        guard case .slotFull = try book(store.id, customers[4]) else { Issue.record("booked past the list"); return }
        let slots = [Slot(start: slot, end: slot + 900)]
        #expect(try database.waitingLists.waitlists(storeId: store.id, in: slots)[slot]?.map(\.id) == [first.id, second.id])
    }

    @Test("a cancelled booking's place is offered to the first; it is held; accepted it is a booking")
    func offerAccepted() throws {
        let store = try store()
        let customers = try database.accounts.createCustomers(emails: (1...5).map { "a\($0)@example.org" }, now: now)
        var bookings: [Reservation] = []
        for customer in customers.prefix(2) {
            guard case .created(let booking) = try book(store.id, customer) else { Issue.record("not booked"); return }
            bookings.append(booking)
        }
        let first = try joined(try join(store.id, customers[2]))
        let second = try joined(try join(store.id, customers[3]))
        #expect(try database.waitingLists.passWaitingLists(now: now) == (0, 0, 0))
        #expect(try database.reservations.cancelReservation(id: bookings[0].id, userId: customers[0], now: now))
        #expect(try database.waitingLists.passWaitingLists(now: now) == (1, 0, 0))
        #expect(try status(first.id) == .offered)
        #expect(try status(second.id) == .waiting)
        #expect(try database.waitingLists.waitlistPlace(id: second.id)?.ahead == 0)
        #expect(try database.waitingLists.waitlistNotices(entryId: first.id).map(\.kind) == [.offer])
        let offered = try #require(try database.waitingLists.waitlistPlace(id: first.id)?.entry.offerExpiresAt)
        #expect(offered == now + WaitingList.offerWindow)
        // Held: a newcomer is refused, and a second pass offers nothing more.
        guard case .slotFull = try book(store.id, customers[4]) else { Issue.record("took a held place"); return }
        #expect(try database.waitingLists.passWaitingLists(now: now) == (0, 0, 0))
        // Somebody else's offer is not theirs to take.
        guard case .notFound = try database.waitingLists.acceptOffer(id: first.id, userId: customers[3], replacingActive: true, now: now)
        else { Issue.record("accepted another's offer"); return }
        guard case .booked(let booking) = try database.waitingLists.acceptOffer(id: first.id, userId: customers[2],
                                                                   replacingActive: false, now: now + 60)
        else { Issue.record("offer not accepted"); return }
        #expect(booking.status == .booked && booking.slotStart == slot && booking.confirmedAt != nil)
        #expect(try status(first.id) == .accepted)
        #expect(try booked(store.id) == 2)
        guard case .notOffered(.accepted) = try database.waitingLists.acceptOffer(id: first.id, userId: customers[2],
                                                                     replacingActive: false, now: now + 61)
        else { Issue.record("accepted twice"); return }
        // An offer already answered is not mailed: nothing applies any more.
        #expect(try database.waitingLists.dispatchWaitlistNotices(now: now) { subject in
            RenderedNotice(subject: "\(subject.notice.kind) \(subject.entry.id)", body: "", push: nil)
        } == 1)
        #expect(try database.notices.mail(to: "a3@example.org").isEmpty)
    }

    @Test("deleting an account cancels its booking and its line-up: the places go to the list and the next in the queue")
    func deletedAccountFreesPlaces() throws {
        let store = try store(slotCapacity: 1)
        let customers = try database.accounts.createCustomers(emails: (1...4).map { "d\($0)@example.org" }, now: now)
        guard case .created(let booking) = try book(store.id, customers[0]) else { Issue.record("not booked"); return }
        let listed = try joined(try join(store.id, customers[1]))
        // A store with room for one inside: the first to line up is called, the second waits.
        let minima = try database.stores.createStore(
            NewStore(name: "Minima", address: "Via Roma 1", phone: "+39 02 2", position: GeoPoint(latitude: 45.47, longitude: 9.19),
                     capacity: 1, timeZone: "Europe/Rome", settings: StoreSettings(capacity: 1, walkInPercent: 0)),
            hours: Fixture.weekdayHours, departments: [])
        func lineUp(_ userId: UserID) throws -> Reservation {
            guard case .created(let reservation) = try database.reservations.reserve(ReservationRequest(
                storeId: minima.id, userId: userId, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
                requestKey: Secrets.token()), now: now)
            else { Issue.record("not lined up"); throw Stop() }
            return reservation
        }
        let first = try lineUp(customers[2])
        let second = try lineUp(customers[3])
        #expect(first.status == .called && second.status == .waiting)

        try database.accounts.deleteUser(id: customers[0], now: now + 60)
        try database.accounts.deleteUser(id: customers[2], now: now + 60)
        for id in [booking.id, first.id] {
            let gone = try #require(try database.reservations.reservation(id: id)?.reservation)
            #expect(gone.status == .cancelled && gone.endedAt == now + 60 && gone.userId == nil)
        }
        #expect(try booked(store.id) == 0)
        #expect(try database.reservations.reservation(id: second.id)?.reservation.status == .called)
        #expect(try database.waitingLists.passWaitingLists(now: now + 60) == (1, 0, 0))
        #expect(try status(listed.id) == .offered)
        // Nobody is left to tell: no cancellation notice is made for them.
        for id in [booking.id, first.id] {
            #expect(try database.notices.list(reservationId: id).allSatisfy { $0.kind != .cancelled })
        }
    }

    @Test("an offer for a slot the store stopped opening closes the list instead of booking it")
    func slotGone() throws {
        let store = try store(slotCapacity: 1)
        let customers = try database.accounts.createCustomers(emails: ["g1@example.org", "g2@example.org"], now: now)
        guard case .created(let held) = try book(store.id, customers[0]) else { Issue.record("not booked"); return }
        let entry = try joined(try join(store.id, customers[1]))
        #expect(try database.reservations.cancelReservation(id: held.id, userId: customers[0], now: now))
        try database.waitingLists.passWaitingLists(now: now)
        #expect(try status(entry.id) == .offered)
        // Thursday's hours now start at noon: the 10:00 slot is gone.
        let hours = Fixture.weekdayHours.map { interval in
            interval.weekday == 4 ? OpeningInterval(weekday: 4, opens: 12 * 60, closes: 21 * 60) : interval
        }
        _ = try database.stores.replaceHours(storeId: store.id, with: hours, userId: nil, now: now)
        guard case .notOffered(.closed) = try database.waitingLists.acceptOffer(id: entry.id, userId: customers[1],
                                                                   replacingActive: false, now: now + 60)
        else { Issue.record("a slot no longer open was booked"); return }
        #expect(try status(entry.id) == .closed)
        #expect(try database.reservations.forCustomer(userId: customers[1]).isEmpty)
    }

    @Test("accepting with another reservation asks first, then replaces it")
    func acceptReplacing() throws {
        let store = try store(slotCapacity: 1)
        let customers = try database.accounts.createCustomers(emails: ["r1@example.org", "r2@example.org"], now: now)
        guard case .created(let held) = try book(store.id, customers[0]) else { Issue.record("not booked"); return }
        let entry = try joined(try join(store.id, customers[1]))
        guard case .created(let other) = try book(store.id, customers[1], at: slot + 3600) else {
            Issue.record("no other booking"); return
        }
        #expect(try database.reservations.cancelReservation(id: held.id, userId: customers[0], now: now))
        try database.waitingLists.passWaitingLists(now: now)
        guard case .hasActive(let active) = try database.waitingLists.acceptOffer(id: entry.id, userId: customers[1],
                                                                     replacingActive: false, now: now)
        else { Issue.record("accepted over an active reservation"); return }
        #expect(active.reservation.id == other.id)
        guard case .booked = try database.waitingLists.acceptOffer(id: entry.id, userId: customers[1], replacingActive: true, now: now)
        else { Issue.record("not accepted"); return }
        #expect(try database.reservations.reservation(id: other.id)?.reservation.status == .cancelled)
    }

    @Test("an offer left unanswered passes to the next; one declined goes on at once; a list closes at its slot")
    func passingOn() throws {
        let store = try store(slotCapacity: 1)
        let customers = try database.accounts.createCustomers(emails: (1...5).map { "p\($0)@example.org" }, now: now)
        guard case .created(let held) = try book(store.id, customers[0]) else { Issue.record("not booked"); return }
        let entries = try customers[1...3].map { try joined(try join(store.id, $0)) }
        #expect(try database.reservations.cancelReservation(id: held.id, userId: customers[0], now: now))
        try database.waitingLists.passWaitingLists(now: now)
        #expect(try status(entries[0].id) == .offered)
        // Half an hour later, unanswered: passed on, and the next is offered the place.
        let later = now + WaitingList.offerWindow
        #expect(try database.waitingLists.passWaitingLists(now: later) == (1, 1, 0))
        #expect(try status(entries[0].id) == .passed)
        #expect(try status(entries[1].id) == .offered)
        #expect(try database.waitingLists.waitlistNotices(entryId: entries[0].id).map(\.kind) == [.offer, .passed])
        // Mailed in the order they happened, each while it still applies.
        #expect(try database.waitingLists.dispatchWaitlistNotices(now: later) { subject in
            RenderedNotice(subject: "\(subject.notice.kind)", body: "", push: nil)
        } == 3)
        #expect(try database.notices.mail(to: "p2@example.org").map(\.subject) == ["passed"])
        #expect(try database.notices.mail(to: "p3@example.org").map(\.subject) == ["offer"])
        guard case .notOffered(.passed) = try database.waitingLists.acceptOffer(id: entries[0].id, userId: customers[1],
                                                                   replacingActive: false, now: later)
        else { Issue.record("a passed offer was accepted"); return }
        // Declined: the third is offered at once.
        #expect(try database.waitingLists.leaveWaitlist(id: entries[1].id, userId: customers[2], now: later))
        #expect(try status(entries[1].id) == .left)
        #expect(try status(entries[2].id) == .offered)
        #expect(try !database.waitingLists.leaveWaitlist(id: entries[1].id, userId: customers[2], now: later))

        // Another full slot whose list nobody leaves: closed, and told, when too near for an offer.
        let evening = slot + 8 * 3600
        guard case .created = try book(store.id, customers[4], at: evening) else { Issue.record("not booked"); return }
        let waiting = try database.accounts.createCustomers(emails: ["p6@example.org"], now: now)[0]
        let closing = try joined(try join(store.id, waiting, at: evening))
        #expect(try database.waitingLists.passWaitingLists(now: evening - WaitingList.shortestOffer + 1).closed >= 1)
        #expect(try status(closing.id) == .closed)
        #expect(try database.waitingLists.waitlistNotices(entryId: closing.id).map(\.kind) == [.closed])
    }

    @Test("two places freed at once with three waiting, through two workers: two offers, never more bookings than places")
    func race() throws {
        let store = try store(slotCapacity: 2)
        let customers = try database.accounts.createCustomers(emails: (1...9).map { "x\($0)@example.org" }, now: now)
        var bookings: [Reservation] = []
        for customer in customers.prefix(2) {
            guard case .created(let booking) = try book(store.id, customer) else { Issue.record("not booked"); return }
            bookings.append(booking)
        }
        let waiters = customers[2...4]
        let entries = try waiters.map { try joined(try join(store.id, $0)) }
        let newcomers = Array(customers[5...8])
        let freed = bookings.map(\.id)
        let refusals = Mutex(0)
        // Both bookings cancelled, passes run on both workers, newcomers try to book, and the
        // waiters accept as soon as they can, all at once.
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            let worker = index % 2
            switch index {
            case 0, 1:
                _ = try? workers[worker].reservations.cancelReservation(id: freed[index], userId: customers[index], now: now)
            case 2...5:
                if case .slotFull? = try? book(store.id, newcomers[index - 2], worker: worker) {
                    refusals.withLock { $0 += 1 }
                }
            case 6...9:
                _ = try? workers[worker].waitingLists.passWaitingLists(now: now)
            default:
                let waiter = (index - 10) % 3
                for _ in 0..<20 {
                    if case .booked? = try? workers[worker].waitingLists.acceptOffer(id: entries[waiter].id, userId: waiters[waiter + 2],
                                                                       replacingActive: false, now: now)
                    { break }
                    Thread.sleep(forTimeInterval: 0.005)
                }
            }
        }
        try database.waitingLists.passWaitingLists(now: now)
        let statuses = try entries.map { try status($0.id) }
        #expect(try booked(store.id) <= 2)
        // Exactly two offers were made, to two different customers, the third still waits.
        let offers = try entries.map { try database.waitingLists.waitlistNotices(entryId: $0.id).filter { $0.kind == .offer }.count }
        #expect(offers.sorted() == [0, 1, 1])
        #expect(statuses.filter { $0 == .waiting }.count == 1)
        #expect(statuses.filter { $0 == .accepted || $0 == .offered }.count == 2)
        #expect(try booked(store.id) + entries.filter { try status($0.id) == .offered }.count == 2)
        // Newcomers are refused throughout: before the cancellations the slot is full, after
        // them its places are the list's.
        #expect(refusals.withLock { $0 } == 4)
    }
}
