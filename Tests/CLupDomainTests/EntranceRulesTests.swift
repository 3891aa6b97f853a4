import Foundation
import Testing

@testable import CLupDomain

/// The entrance's pure rules: what a scan means, and who is called when.
@Suite("Entrance and calling rules")
struct EntranceRulesTests {
    let now = Fixture.wednesdayMorning
    /// Capacity 10: 2 places for walk-ins, 8 online; called tickets have 10 minutes; bookings
    /// enter from 10 minutes before their slot to 15 after.
    let settings = StoreSettings(capacity: 10, walkInPercent: 20)

    func ticket(_ status: ReservationStatus, store: StoreID = 1, people: Int = 1, calledAt: Date? = nil,
                slotStart: Date? = nil) -> DoorTicket
    {
        DoorTicket(storeId: store, status: status, people: people, calledAt: calledAt, slotStart: slotStart)
    }

    func verdict(_ reservation: DoorTicket?, inside: Int = 0, at time: Date? = nil) -> ScanVerdict {
        Entrance.verdict(for: reservation, at: 1, settings: settings, peopleInside: inside, now: time ?? now)
    }

    @Test("a called ticket enters within its grace period; after it, it has expired")
    func calledTicket() {
        let called = ticket(.called, calledAt: now - 300)
        #expect(verdict(called) == .enter)
        #expect(verdict(called, at: now + 300) == .enter)  // exactly 10 min after the call
        #expect(verdict(called, at: now + 301) == .refused(.expired))
    }

    @Test("a booking enters inside its window only: too early and too late name the window's edge")
    func bookingWindow() {
        let slot = now + 3600
        let booked = ticket(.booked, slotStart: slot)
        #expect(verdict(booked) == .refused(.tooEarly(opens: slot - 600)))
        #expect(verdict(booked, at: slot - 600) == .enter)
        #expect(verdict(booked, at: slot + 900) == .enter)
        #expect(verdict(booked, at: slot + 901) == .refused(.tooLate(closed: slot + 900)))
    }

    @Test("inside means exit; every other state is refused with its reason")
    func states() {
        #expect(verdict(ticket(.inside)) == .exit)
        #expect(verdict(ticket(.inside), inside: 10) == .exit)  // a full store still lets people out
        #expect(verdict(ticket(.done)) == .refused(.alreadyUsed))
        #expect(verdict(ticket(.cancelled)) == .refused(.cancelled))
        #expect(verdict(ticket(.expired)) == .refused(.expired))
        #expect(verdict(ticket(.waiting)) == .refused(.notYetCalled))
        #expect(verdict(nil) == .refused(.unknownCode))
        #expect(verdict(ticket(.called, store: 2, calledAt: now)) == .refused(.otherStore(storeId: 2)))
        #expect(ScanRefusal.tooEarly(opens: now).code == "tooEarly")
    }

    @Test("nobody enters past the capacity: a pair needs two free places")
    func capacity() {
        let pair = ticket(.called, people: 2, calledAt: now)
        #expect(verdict(pair, inside: 8) == .enter)
        #expect(verdict(pair, inside: 9) == .refused(.full(inside: 9, capacity: 10)))
        #expect(verdict(ticket(.called, calledAt: now), inside: 9) == .enter)
    }

    // MARK: Calling

    func live(_ id: ReservationID, _ state: LiveReservation.State, people: Int = 1, walkIn: Bool = false, day: Int = 5)
        -> LiveReservation
    {
        LiveReservation(id: id, state: state, people: people, residence: 1800, walkIn: walkIn, number: Int(id.rawValue), day: day)
    }

    func plan(_ live: [LiveReservation], open: Bool = true, at time: Date? = nil) -> QueueCaller.Plan {
        QueueCaller.plan(live: live, settings: settings, today: 5, isOpen: open, now: time ?? now)
    }

    @Test("the online queue is called into the online places, in order, keeping room for bookings due")
    func callsOnline() {
        // 8 online places: 3 inside, 1 called on its way, a booking of 2 due in 20 minutes:
        // 2 free. The pair at the head takes them; the single behind it waits.
        let queue = [
            live(1, .inside(since: now - 600), people: 2), live(2, .inside(since: now - 300)),
            live(3, .called(at: now - 120)), live(4, .booked(slotStart: now + 1200), people: 2),
            live(5, .waiting, people: 2), live(6, .waiting), live(7, .waiting),
        ]
        #expect(plan(queue) == QueueCaller.Plan(call: [5]))
        // Strict order: with one place free, a pair at the head is not overtaken.
        #expect(plan(Array(queue[0...3]) + [live(8, .inside(since: now)), live(5, .waiting, people: 2),
                                            live(6, .waiting)]) == QueueCaller.Plan())
    }

    @Test("walk-ins are called on their own share: online crowds do not block them, nor they the online queue")
    func callsWalkIns() {
        let onlineFull = (1...8).map { live(ReservationID($0), .inside(since: now)) }
        let queue = onlineFull + [live(20, .waiting), live(21, .waiting, walkIn: true),
                                  live(22, .waiting, people: 2, walkIn: true), live(23, .waiting, walkIn: true)]
        // Walk-ins have 2 places: 21 takes one, the pair 22 does not fit in the other.
        #expect(plan(queue) == QueueCaller.Plan(call: [21]))
    }

    @Test("lapsed calls and yesterday's tickets expire; yesterday's visits close; nobody is called while closed")
    func expiries() {
        let queue = [
            live(1, .called(at: now - 601)), live(2, .called(at: now - 600)), live(3, .waiting, day: 4),
            live(4, .inside(since: now - 86_000), day: 4), live(5, .waiting),
        ]
        #expect(plan(queue) == QueueCaller.Plan(call: [5], expire: [1, 3], close: [4]))
        #expect(plan(queue, open: false) == QueueCaller.Plan(expire: [1, 3], close: [4]))
    }

    // MARK: Travel

    static let allDay = OpeningHours(intervals: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 24 * 60) },
                                     timeZone: Fixture.rome)

    func traveller(_ id: ReservationID, travel: TimeInterval, leftAt: Date? = nil, people: Int = 1) -> LiveReservation {
        LiveReservation(id: id, state: .waiting, people: people, residence: 1800, number: Int(id.rawValue), day: 5,
                        travel: travel, leftAt: leftAt)
    }

    @Test("a customer still at home when places free is told to leave, and the places are held for them")
    func sendOffHolds() {
        // 8 online places, 7 taken: one free. The head lives 30 minutes away and has not left:
        // told to leave now; the single behind them is not called in their place.
        let full = (1...7).map { live(ReservationID($0), .inside(since: now)) }
        let queue = full + [traveller(10, travel: 1800), live(11, .waiting)]
        #expect(plan(queue) == QueueCaller.Plan(sendOff: [10]))
        // Told to leave 20 minutes ago: still on the way, the place stays held, nobody is called.
        let onTheWay = full + [traveller(10, travel: 1800, leftAt: now - 1200), live(11, .waiting)]
        #expect(plan(onTheWay) == QueueCaller.Plan())
        // Called `callMargin` before they are expected at the door.
        let arriving = full + [traveller(10, travel: 1800, leftAt: now - 1800 + Departure.callMargin),
                               live(11, .waiting)]
        #expect(plan(arriving) == QueueCaller.Plan(call: [10]))
        // With two places free, both are given theirs: the one at hand is called at once.
        #expect(plan(Array(full.dropLast()) + [traveller(10, travel: 1800), live(11, .waiting)])
            == QueueCaller.Plan(call: [11], sendOff: [10]))
    }

    @Test("the estimate holds the places of a customer on the way until they arrive, as calling does")
    func estimateWaitsForArrival() {
        let settings = StoreSettings(capacity: 1, walkInPercent: 0)
        let traffic = LiveTraffic(live: [traveller(1, travel: 1800), live(2, .waiting)], ratio: 1)
        let standing = StoreStanding(live: traffic, settings: settings, hours: Self.allDay, now: now)
        // The head enters when they arrive (30 min), stays 30 min; the next enters after them.
        #expect(standing.standing(of: 1)?.entry == now + 1800)
        #expect(standing.standing(of: 2)?.entry == now + 3600)
        #expect(Departure.leaveBy(entry: now + 1800, travel: 1800) == now)
        #expect(Departure.isDue(entry: now + 1800, travel: 1800, now: now))
        #expect(!Departure.isDue(entry: now + 3600, travel: 1800, now: now + 1799 - Departure.noticeMargin))
        #expect(Departure.isDue(entry: now + 3600, travel: 1800, now: now + 1800 - Departure.noticeMargin))
        // Someone told to leave 20 minutes ago arrives in 10: their entry is then.
        let leaving = LiveTraffic(live: [traveller(1, travel: 1800, leftAt: now - 1200)], ratio: 1)
        #expect(StoreStanding(live: leaving, settings: settings, hours: Self.allDay, now: now)
            .standing(of: 1)?.entry == now + 600)
    }
}
