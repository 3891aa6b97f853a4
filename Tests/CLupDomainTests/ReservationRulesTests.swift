import Foundation
import Testing

@testable import CLupDomain

/// Wednesday 18 November 2026, 10:00 in Milan; the store is open Mon–Sat 08:00–21:00.
private let now = Fixture.wednesdayMorning
private let hours = OpeningHours(intervals: Fixture.weekdayHours, timeZone: Fixture.rome)

private func at(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Date { Fixture.date(2026, 11, day, hour, minute) }

@Suite("Store settings and residence time")
struct ResidenceAndSettingsTests {
    @Test("by default a fifth of the capacity is kept for walk-ins, and bookings may take half the rest per 30 min")
    func defaults() {
        let settings = StoreSettings(capacity: 100)
        #expect(settings.walkInPlaces == 20)
        #expect(settings.onlinePlaces == 80)
        #expect(settings.slotMinutes == 15)
        #expect(settings.slotCapacity == 10)  // 80 × 15 / 120
        #expect(StoreSettings(capacity: 3).slotCapacity == 1)
        #expect(settings.entryWindow(slotStart: now) == now.addingTimeInterval(-600)...now.addingTimeInterval(900))
    }

    @Test("from departments: their sum, rounded up to 5 minutes, between 15 minutes and 3 hours")
    func departments() {
        #expect(ResidenceTime.fromDepartments([]) == nil)
        #expect(ResidenceTime.fromDepartments([4]) == 15)
        #expect(ResidenceTime.fromDepartments([7, 10, 4]) == 25)
        #expect(ResidenceTime.fromDepartments([10, 10, 10]) == 30)
        #expect(ResidenceTime.fromDepartments(Array(repeating: 30, count: 9)) == 180)
    }

    @Test("from past visits: the median to 5 minutes, only from the third visit")
    func history() {
        #expect(ResidenceTime.fromVisits([30 * 60, 40 * 60]) == nil)
        #expect(ResidenceTime.fromVisits([22 * 60, 41 * 60, 33 * 60]) == 35)
        #expect(ResidenceTime.fromVisits([20 * 60, 30 * 60, 40 * 60, 90 * 60]) == 35)
        #expect(ResidenceTime.fromVisits([2 * 60, 3 * 60, 4 * 60]) == 15)
    }

    @Test("the store's actual ÷ declared ratio counts from the first visit, shrunk towards 1 as ten visits, between ½ and 2")
    func ratio() {
        #expect(ResidenceRatio().value == 1)
        // Ten visits at 1.5: half way, as the ten of the prior weigh as much.
        #expect(abs(ResidenceRatio(visits: 10, declaredSeconds: 100, actualSeconds: 150).value - 1.25) < 1e-12)
        // A thousand: the store's own.
        #expect(abs(ResidenceRatio(visits: 1000, declaredSeconds: 100, actualSeconds: 150).value - (150 + 1) / (100 + 1)) < 1e-12)
        #expect(ResidenceRatio(visits: 50, declaredSeconds: 100, actualSeconds: 900).value == 2)
        #expect(ResidenceRatio(visits: 50, declaredSeconds: 100, actualSeconds: 10).value == 0.5)
    }
}

@Suite("Booking slots")
struct SlotCalendarTests {
    let calendar = SlotCalendar(hours: hours, slotMinutes: 15)

    @Test("a day is cut into slots from opening, the last ending at closing")
    func slotsOfADay() {
        let slots = calendar.slots(localDay: calendar.localDay(of: now), now: now)
        #expect(slots.count == 13 * 4)
        #expect(slots.first == Slot(start: at(18, 8), end: at(18, 8, 15)))
        #expect(slots.last == Slot(start: at(18, 20, 45), end: at(18, 21)))
        #expect(calendar.slots(localDay: calendar.localDay(of: at(22, 12)), now: now).isEmpty)  // Sunday
    }

    @Test("slots within 2 hours are too soon, and the earliest bookable one is named")
    func tooSoon() {
        #expect(calendar.verdict(start: at(18, 11), residence: 15 * 60, now: now)
            == .tooSoon(earliest: Slot(start: at(18, 12), end: at(18, 12, 15))))
        #expect(calendar.verdict(start: at(18, 12), residence: 15 * 60, now: now) == .bookable(Slot(start: at(18, 12), end: at(18, 12, 15))))
    }

    @Test("slots beyond 7 days are too far; the seventh day's are fine")
    func tooFar() {
        #expect(calendar.verdict(start: at(25, 9), residence: 15 * 60, now: now) == .bookable(Slot(start: at(25, 9), end: at(25, 9, 15))))
        #expect(calendar.verdict(start: at(26, 9), residence: 15 * 60, now: now) == .tooFar(latest: at(25, 10)))
    }

    @Test("a time off the grid or when closed is not a slot")
    func notASlot() {
        #expect(calendar.verdict(start: at(18, 14, 5), residence: 15 * 60, now: now) == .notASlot)
        #expect(calendar.verdict(start: at(18, 22), residence: 15 * 60, now: now) == .notASlot)
        #expect(calendar.verdict(start: at(22, 12), residence: 15 * 60, now: now) == .notASlot)
    }

    @Test("a visit must be over by closing: the last slots are refused to a long visit, past midnight too")
    func endsAfterClosing() {
        let last = Slot(start: at(18, 20, 45), end: at(18, 21))
        #expect(calendar.verdict(start: at(18, 20, 45), residence: 15 * 60, now: now) == .bookable(last))
        #expect(calendar.verdict(start: at(18, 20, 45), residence: 30 * 60, now: now)
            == .endsAfterClosing(last, closes: at(18, 21)))
        #expect(calendar.verdict(start: at(18, 20, 30), residence: 30 * 60, now: now)
            == .bookable(Slot(start: at(18, 20, 30), end: at(18, 20, 45))))
        // Open Wednesday 18:00–24:00 and on into Thursday until 02:00: one opening.
        let late = SlotCalendar(
            hours: OpeningHours(intervals: [OpeningInterval(weekday: 3, opens: 18 * 60, closes: 24 * 60),
                                            OpeningInterval(weekday: 4, opens: 0, closes: 2 * 60)],
                                timeZone: hours.timeZone),
            slotMinutes: 15)
        #expect(late.verdict(start: at(18, 23, 45), residence: 60 * 60, now: now)
            == .bookable(Slot(start: at(18, 23, 45), end: at(19, 0))))
        #expect(late.verdict(start: at(19, 1, 45), residence: 30 * 60, now: now)
            == .endsAfterClosing(Slot(start: at(19, 1, 45), end: at(19, 2)), closes: at(19, 2)))
        #expect(late.closing(ifVisitOf: 15 * 60, startsAt: Slot(start: at(19, 1, 45), end: at(19, 2))) == nil)
    }

    @Test("a day's slots are those starting on it: a late opening's small hours belong to the next day")
    func slotsStartingOnADay() {
        // Open Wednesday 07:00 to Thursday 02:00.
        let late = SlotCalendar(
            hours: OpeningHours(intervals: [OpeningInterval(weekday: 3, opens: 7 * 60, closes: 26 * 60)],
                                timeZone: hours.timeZone),
            slotMinutes: 15)
        let wednesday = late.localDay(of: at(18, 12))
        #expect(late.slots(localDay: wednesday, now: now).last?.start == at(19, 1, 45))  // the opening's
        #expect(late.slots(startingOn: wednesday, now: now).first?.start == at(18, 7))
        #expect(late.slots(startingOn: wednesday, now: now).last == Slot(start: at(18, 23, 45), end: at(19, 0)))
        #expect(late.slots(startingOn: wednesday + 1, now: now)
            == (0..<8).map { Slot(start: at(19, $0 / 4, $0 % 4 * 15), end: at(19, ($0 + 1) / 4, ($0 + 1) % 4 * 15)) })
    }

    @Test("booking days run from today to the seventh day; Saturday evening's first bookable slot is Monday's")
    func days() {
        #expect(calendar.bookingDays(now: now).count == 8)
        #expect(calendar.firstBookable(now: at(21, 19, 30)) == Slot(start: at(23, 8), end: at(23, 8, 15)))
    }

    @Test("the first bookable slot is one the visit fits in before closing, as the slot picker offers them")
    func firstBookableForAVisit() {
        // Wednesday 18:45: the slots from 20:45 may be booked; the store closes at 21:00.
        let evening = at(18, 18, 45)
        #expect(calendar.firstBookable(now: evening) == Slot(start: at(18, 20, 45), end: at(18, 21)))
        #expect(calendar.firstBookable(now: evening, residence: 15 * 60) == Slot(start: at(18, 20, 45), end: at(18, 21)))
        // A 30-minute visit entering at 20:45 would still be going on at 21:00: Thursday 08:00.
        let thursday = Slot(start: at(19, 8), end: at(19, 8, 15))
        #expect(calendar.firstBookable(now: evening, residence: 30 * 60) == thursday)
        #expect(calendar.verdict(start: at(18, 20), residence: 30 * 60, now: evening) == .tooSoon(earliest: thursday))
    }

    @Test("the slot containing a time, for stores whose slots are cut differently")
    func containing() {
        let half = SlotCalendar(hours: hours, slotMinutes: 30)
        #expect(half.slot(containing: at(18, 14, 15), now: now) == Slot(start: at(18, 14), end: at(18, 14, 30)))
        #expect(half.slot(containing: at(18, 21, 15), now: now) == nil)
    }

    @Test("availability: free, nearly full from the last quarter, full when the party does not fit")
    func availability() {
        #expect(SlotAvailability.of(booked: 0, capacity: 10) == .free)
        #expect(SlotAvailability.of(booked: 7, capacity: 10) == .free)
        #expect(SlotAvailability.of(booked: 8, capacity: 10) == .nearlyFull)
        #expect(SlotAvailability.of(booked: 9, capacity: 10, people: 2) == .full)
        #expect(SlotAvailability.of(booked: 10, capacity: 10) == .full)
        #expect(SlotAvailability.of(booked: 0, capacity: 1) == .nearlyFull)
    }
}

@Suite("Lining up: the rules and the queue")
struct LineUpRulesTests {
    @Test("accepted while open with a wait up to 2 hours and time to shop before closing")
    func accepted() {
        let open = hours.state(at: now)
        #expect(LineUpPolicy.decide(wait: 0, residence: 1800, openState: open, now: now)
            == .accepted(wait: 0, entry: now))
        #expect(LineUpPolicy.decide(wait: 7200, residence: 1800, openState: open, now: now)
            == .accepted(wait: 7200, entry: at(18, 12)))
    }

    @Test("refused when closed, when the wait is over 2 hours or endless, and when closing comes first")
    func refused() {
        let open = hours.state(at: now)
        #expect(LineUpPolicy.decide(wait: 0, residence: 900, openState: hours.state(at: at(22, 10)), now: at(22, 10))
            == .closed(opensAt: at(23, 8)))
        #expect(LineUpPolicy.decide(wait: 7201, residence: 900, openState: open, now: now) == .waitTooLong(wait: 7201))
        #expect(LineUpPolicy.decide(wait: nil, residence: 900, openState: open, now: now) == .waitTooLong(wait: nil))
        let evening = at(18, 20, 20)
        #expect(LineUpPolicy.decide(wait: 600, residence: 1800, openState: hours.state(at: evening), now: evening)
            == .accepted(wait: 600, entry: at(18, 20, 30)))  // out at 21:00 sharp
        #expect(LineUpPolicy.decide(wait: 600, residence: 2700, openState: hours.state(at: evening), now: evening)
            == .closesFirst(closes: at(18, 21), entry: at(18, 20, 30)))
    }

    @Test("called tickets hold places without counting as inside; bookings hold theirs once due, and later ones are foreseen")
    func traffic() {
        let settings = StoreSettings(capacity: 10)  // entry window 10 min before to 15 after
        let live = [
            LiveReservation(id: 1, state: .inside(since: now - 600), people: 2, residence: 1800),
            LiveReservation(id: 2, state: .called(at: now - 60), people: 1, residence: 1800),
            LiveReservation(id: 3, state: .waiting, people: 1, residence: 900),
            LiveReservation(id: 4, state: .booked(slotStart: now + 1800), people: 2, residence: 1800),  // due soon
            LiveReservation(id: 5, state: .booked(slotStart: now + 7200), people: 2, residence: 1800),  // later
            LiveReservation(id: 6, state: .booked(slotStart: now - 1800), people: 1, residence: 1800),  // missed
        ]
        // A visit model whose visits hardly vary: a visit a third through ends when declared.
        let traffic = StoreTraffic(live: live, settings: settings, model: VisitModel(ratio: 1, spread: 0.01), now: now)
        #expect(traffic.peopleInside == 2)
        #expect(traffic.inside == [Occupant(people: 2, expectedExit: now + 1200)])
        #expect(traffic.queue == [QueuedParty(people: 1, residence: 900)])
        #expect(traffic.bookingsDue == [Occupant(people: 1, expectedExit: now + 1800),
                                        Occupant(people: 2, expectedExit: now + 3600)])
        // The later booking's places are held from 40 minutes before its slot (its window
        // opens 10 minutes before, and the lookahead is 30), until its visit ends.
        #expect(traffic.futureHolds == [FutureHold(people: 2, start: now + 4800, end: now + 9000)])
    }

    /// Capacity 3, full: one person leaves at +10 min, one at +20, one at +40. The queue, as
    /// people (minutes): A 1 (30), B 2 (15), C 1 (20), D 1 (10), E 1 (30).
    /// A takes the place freed at +10 and leaves at +40. B needs two places: +20 frees one, +40
    /// frees two more, so B enters at +40 (leaves +55) and C takes the third (leaves +60).
    /// B's exit at +55 frees two places: D and E enter then.
    @Test("a queue of five with known visit lengths: each ticket's standing by hand")
    func standings() {
        let settings = StoreSettings(capacity: 3, walkInPercent: 0)
        let live = [
            LiveReservation(id: 10, state: .inside(since: now - 1200), people: 1, residence: 1800),  // leaves +10
            LiveReservation(id: 11, state: .inside(since: now - 600), people: 1, residence: 1800),  // leaves +20
            LiveReservation(id: 12, state: .inside(since: now), people: 1, residence: 2400),  // leaves +40
            LiveReservation(id: 1, state: .waiting, people: 1, residence: 1800),
            LiveReservation(id: 2, state: .waiting, people: 2, residence: 900),
            LiveReservation(id: 3, state: .waiting, people: 1, residence: 1200),
            LiveReservation(id: 4, state: .waiting, people: 1, residence: 600),
            LiveReservation(id: 5, state: .waiting, people: 1, residence: 1800),
        ]
        let estimator = WaitEstimator(capacity: settings.onlinePlaces)
        func standing(_ id: ReservationID) -> QueueStanding? {
            QueueStanding.of(id, live: live, settings: settings, estimator: estimator, now: now)
        }
        /// The hand-computed part; the range (checked in `VisitModelTests`) holds the entry.
        func expect(_ id: ReservationID, _ parties: Int, _ people: Int, _ entry: Date) {
            let found = standing(id)
            #expect(found.map { ($0.partiesAhead, $0.peopleAhead, $0.entry) } ?? (-1, -1, nil) == (parties, people, entry))
            #expect(found?.range?.contains(entry) == true)
        }
        expect(1, 0, 0, now + 600)
        expect(2, 1, 1, now + 2400)
        expect(3, 2, 3, now + 2400)
        expect(4, 3, 4, now + 3300)
        expect(5, 4, 5, now + 3300)
        #expect(standing(10) == nil)
    }

    @Test("suggestions: the nearest acceptable other stores to the chosen one, at most three")
    func suggestions() {
        struct Candidate { var id: StoreID; var north: Double; var ok: Bool }
        let candidates = [Candidate(id: 1, north: 0, ok: true), Candidate(id: 2, north: 0.01, ok: false),
                          Candidate(id: 3, north: 0.05, ok: true), Candidate(id: 4, north: 0.02, ok: true),
                          Candidate(id: 5, north: 0.03, ok: true), Candidate(id: 6, north: 0.04, ok: true)]
        var asked: [StoreID] = []
        let chosen = Suggestions.nearest(
            to: GeoPoint(latitude: 45, longitude: 9), among: candidates, excluding: 1, id: \.id,
            position: { GeoPoint(latitude: 45 + $0.north, longitude: 9) },
            acceptable: { asked.append($0.id); return $0.ok })
        #expect(chosen.map(\.candidate.id) == [4, 5, 6])
        #expect(asked == [2, 4, 5, 6])  // no further than needed
        #expect(abs(chosen[0].metres - 2224) < 5)
    }
}

/// A line-up's travel changed after it was made (`TravelChange`).
@Suite("Travel changes")
struct TravelChangeTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("a travel longer than any line-up may wait is refused; a nearer one is taken")
    func tooFar() {
        #expect(TravelChange.refusal(current: 600, new: LineUpPolicy.longestWait + 1, leftAt: nil)
            == .tooFar(travel: LineUpPolicy.longestWait + 1))
        #expect(TravelChange.refusal(current: 600, new: LineUpPolicy.longestWait, leftAt: nil) == nil)
        #expect(TravelChange.refusal(current: 600, new: 1200, leftAt: nil) == nil)
    }

    @Test("once told to leave, a longer travel is not taken, a shorter one is")
    func onTheWay() {
        #expect(TravelChange.refusal(current: 600, new: 900, leftAt: now) == .onTheWay(leftAt: now, travel: 600))
        #expect(TravelChange.refusal(current: 600, new: 300, leftAt: now) == nil)
        #expect(TravelChange.refusal(current: 600, new: 600, leftAt: now) == nil)
    }
}
