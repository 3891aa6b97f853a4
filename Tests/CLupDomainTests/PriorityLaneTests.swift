import Foundation
import Testing

@testable import CLupDomain

/// The priority lane: where a priority ticket is placed under the store's policy, and that
/// calling, "people ahead" and the estimate then follow that order.
@Suite("Priority lane")
struct PriorityLaneTests {
    let now = Fixture.wednesdayMorning
    static let allDay = OpeningHours(intervals: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 24 * 60) },
                                     timeZone: Fixture.rome)

    func waiting(_ id: ReservationID, priority: Bool = false, before: ReservationID? = nil, leftAt: Date? = nil,
                 travel: TimeInterval = 0) -> LiveReservation
    {
        LiveReservation(id: id, state: .waiting, people: 1, residence: 1800, walkIn: true, number: Int(id.rawValue),
                        day: 5, travel: travel, leftAt: leftAt, priority: priority, position: before)
    }

    func lane(_ every: Int) -> PriorityLane { PriorityLane(every: every, online: false) }

    @Test("the next free place: ahead of every ordinary ticket, behind the priority tickets already waiting")
    func nextFreePlace() {
        let queue = [waiting(1), waiting(2), waiting(3)]
        #expect(lane(1).place(in: queue) == 1)
        // A second priority ticket goes behind the first, before ticket 1 still.
        #expect(lane(1).place(in: [waiting(4, priority: true, before: 1)] + queue) == 1)
        #expect(lane(1).place(in: []) == nil)
        #expect(lane(0).place(in: queue) == nil)
    }

    @Test("one in every 3: at most two others between one priority ticket and the next")
    func oneInThree() {
        let queue = (1...6).map { waiting(ReservationID($0)) }
        #expect(lane(3).place(in: queue) == 3)
        // The next priority ticket counts from the one before it.
        let first = waiting(7, priority: true, before: 3)
        let ordered = Array(queue[0..<2]) + [first] + Array(queue[2...])
        #expect(lane(3).place(in: ordered) == 5)
        // Fewer than two others waiting: at the back.
        #expect(lane(3).place(in: [waiting(1), waiting(2)]) == nil)
    }

    @Test("never ahead of a customer already told to leave: their places are held while they travel")
    func behindThoseOnTheirWay() {
        let queue = [waiting(1, leftAt: now - 60, travel: 900), waiting(2), waiting(3)]
        #expect(lane(1).place(in: queue) == 2)
        #expect(lane(1).place(in: [waiting(1, leftAt: now - 60, travel: 900)]) == nil)
    }

    @Test("the queue's key: a priority ticket sorts just before the ticket it was placed before")
    func keys() {
        let placed = waiting(9, priority: true, before: 2)
        let order = [waiting(3), placed, waiting(1), waiting(2)].sorted { $0.queueKey < $1.queueKey }.map(\.id)
        #expect(order == [1, 9, 2, 3])
        #expect(waiting(9, priority: true).queueKey > waiting(8).queueKey)
    }

    @Test("calling, people ahead and the estimate follow the order the lane gave")
    func orderFollowed() {
        // One walk-in place, taken; three waiting, and a priority ticket placed at the next free place.
        let settings = StoreSettings(capacity: 5, walkInPercent: 20, priority: lane(1))
        let inside = LiveReservation(id: 1, state: .inside(since: now - 600), people: 1, residence: 1800, walkIn: true,
                                     day: 5)
        let priority = waiting(9, priority: true, before: 2)
        let live = [inside, priority, waiting(2), waiting(3), waiting(4)]
        let standing = StoreStanding(live: LiveTraffic(live: live, ratio: 1), settings: settings, hours: Self.allDay,
                                     now: now)
        #expect(standing.standing(of: 9)?.partiesAhead == 0)
        #expect(standing.standing(of: 2)?.partiesAhead == 1)
        #expect(standing.standing(of: 4)?.peopleAhead == 3)
        let entries = [9, 2, 3, 4].map { standing.standing(of: ReservationID($0))?.entry ?? .distantFuture }
        #expect(entries == entries.sorted() && entries[0] < entries[1])
        // The place frees: the priority ticket is called, not ticket 2.
        let plan = QueueCaller.plan(live: [priority, waiting(2), waiting(3), waiting(4)], settings: settings, today: 5,
                                    isOpen: true, now: now)
        #expect(plan.call == [9])
        // A ticket leaving the queue keeps the order of those behind it.
        var shrunk = standing
        let removed = shrunk.removeWaiting(9, settings: settings, hours: Self.allDay)
        #expect(removed)
        #expect(shrunk.standing(of: 2)?.partiesAhead == 0)
        #expect(shrunk.standing(of: 9) == nil)
    }

    @Test("a priority party is judged on the wait it would have in its place, not at the back")
    func decidedInItsPlace() {
        // One walk-in place, busy for 30 min; twelve parties of 30 min waiting: over two hours at the back.
        let settings = StoreSettings(capacity: 5, walkInPercent: 20, priority: lane(1))
        let inside = LiveReservation(id: 1, state: .inside(since: now), people: 1, residence: 1800, walkIn: true, day: 5)
        let traffic = LiveTraffic(live: [inside] + (2...13).map { waiting(ReservationID($0)) }, ratio: 1)
        let ordinary = traffic.lineUpDecision(people: 1, residence: 1800, priority: false, settings: settings,
                                              hours: Self.allDay, now: now, pool: .walkIn)
        guard case .waitTooLong = ordinary.0 else { Issue.record("an ordinary party at the back: \(ordinary.0)"); return }
        let priority = traffic.lineUpDecision(people: 1, residence: 1800, priority: true, settings: settings,
                                              hours: Self.allDay, now: now, pool: .walkIn)
        #expect(priority.before == 2)
        guard case .accepted(let wait, _) = priority.0 else { Issue.record("priority: \(priority.0)"); return }
        #expect(wait <= 1800)
    }
}
