import Foundation
import Testing

@testable import CLupDomain

@Suite("Wait estimate")
struct WaitEstimatorTests {
    let now = Fixture.wednesdayMorning

    func minutes(_ value: Double) -> Date { now.addingTimeInterval(value * 60) }
    func occupant(_ people: Int, leavesAfter value: Double) -> Occupant {
        Occupant(people: people, expectedExit: minutes(value))
    }
    /// `minutes` as a wait, typed as the estimator returns it.
    func seconds(_ minutes: Double) -> TimeInterval? { minutes * 60 }
    func party(_ people: Int, staying value: Double) -> QueuedParty {
        QueuedParty(people: people, residence: value * 60)
    }

    @Test("an empty store: no wait")
    func emptyStore() {
        let estimator = WaitEstimator(capacity: 10)
        #expect(estimator.waitForNewParty(people: 1, traffic: .empty, now: now) == 0)
        #expect(estimator.waitForNewParty(people: 2, traffic: .empty, now: now) == 0)
    }

    @Test("a full store: wait for the first exit, or the first two for a party of two")
    func fullStore() {
        let traffic = StoreTraffic(inside: [occupant(1, leavesAfter: 10), occupant(1, leavesAfter: 20)])
        let estimator = WaitEstimator(capacity: 2)
        #expect(estimator.waitForNewParty(people: 1, traffic: traffic, now: now) == seconds(10))
        #expect(estimator.waitForNewParty(people: 2, traffic: traffic, now: now) == seconds(20))
    }

    @Test("a queue of five enters as places free, in order")
    func queueOfFive() {
        // Capacity 3, full: three single shoppers leave at +5, +10 and +15 min.
        // By hand: Q1 takes +5's place (leaves 25); Q2 takes +10's (leaves 40); Q3, a pair,
        // needs +15 and Q1's +25 (leaves 35); Q4 and Q5 take the pair's two places at 35;
        // a newcomer waits for Q2 to leave at 40.
        let traffic = StoreTraffic(
            inside: [occupant(1, leavesAfter: 5), occupant(1, leavesAfter: 10), occupant(1, leavesAfter: 15)],
            queue: [party(1, staying: 20), party(1, staying: 30), party(2, staying: 10), party(1, staying: 15),
                    party(1, staying: 20)])
        let estimator = WaitEstimator(capacity: 3)
        let entries = estimator.entryTimes(traffic: traffic, appending: [party(1, staying: 30)], now: now)
        #expect(entries == [minutes(5), minutes(10), minutes(25), minutes(35), minutes(35), minutes(40)])
        #expect(estimator.waitForNewParty(people: 1, traffic: traffic, now: now) == seconds(40))
    }

    @Test("exits built into a heap at once come out soonest first, as inserted one by one do", arguments: 0..<20)
    func exitsHeap(seed: Int) {
        var generator = StoreStandingTests.Generator(state: UInt64(seed))
        let exits = (0..<(seed * 7)).map { _ in
            WaitEstimator.Exit(time: minutes(Double(generator.next() % 50)), people: Int(generator.next() % 2) + 1)
        }
        var built = WaitEstimator.Exits(exits)
        var inserted = WaitEstimator.Exits()
        for exit in exits { inserted.insert(exit) }
        var fromBuilt: [Date] = []
        var fromInserted: [Date] = []
        while let exit = built.popSoonest() { fromBuilt.append(exit.time) }
        while let exit = inserted.popSoonest() { fromInserted.append(exit.time) }
        #expect(fromBuilt == exits.map(\.time).sorted())
        #expect(fromInserted == fromBuilt)
    }

    @Test("places held for bookings due are not given to the queue")
    func bookingsDue() {
        let traffic = StoreTraffic(bookingsDue: [occupant(2, leavesAfter: 30)])
        #expect(WaitEstimator(capacity: 2).waitForNewParty(people: 1, traffic: traffic, now: now) == seconds(30))
        #expect(WaitEstimator(capacity: 3).waitForNewParty(people: 1, traffic: traffic, now: now) == 0)
    }

    @Test("someone overdue to leave is expected to leave now, not in the past")
    func overdue() {
        let traffic = StoreTraffic(inside: [occupant(1, leavesAfter: -5)])
        #expect(WaitEstimator(capacity: 1).waitForNewParty(people: 1, traffic: traffic, now: now) == 0)
    }

    @Test("the store's actual ÷ declared ratio stretches declared visits")
    func residenceRatio() {
        let traffic = StoreTraffic(queue: [party(1, staying: 20)])
        let estimator = WaitEstimator(capacity: 1, residenceRatio: 1.5)
        #expect(estimator.waitForNewParty(people: 1, traffic: traffic, now: now) == seconds(30))
    }

    @Test("a party larger than the capacity can never enter, nor can anyone after it")
    func tooLarge() {
        let traffic = StoreTraffic(queue: [party(2, staying: 10)])
        let entries = WaitEstimator(capacity: 1).entryTimes(traffic: traffic, appending: [party(1, staying: 10)], now: now)
        #expect(entries == [nil, nil])
        #expect(WaitEstimator(capacity: 1).waitForNewParty(people: 2, traffic: .empty, now: now) == nil)
    }
}

@Suite("Traffic light")
struct TrafficLightTests {
    let now = Fixture.wednesdayMorning
    var openAllDay: OpenState { .open(until: now.addingTimeInterval(11 * 3600)) }

    @Test("green under an hour, yellow from one to two hours, red from two", arguments: [
        (0.0, TrafficLight.green), (59 * 60 + 59, .green), (3600, .yellow), (7199, .yellow), (7200, .red),
        (5 * 3600, .red),
    ])
    func thresholds(wait: TimeInterval, light: TrafficLight) {
        #expect(TrafficLight.evaluate(wait: wait, openState: openAllDay, now: now).0 == light)
    }

    @Test("red when closed, whatever the wait")
    func closed() {
        let result = TrafficLight.evaluate(wait: 0, openState: .closed(opensAt: nil), now: now)
        #expect(result == (.red, .closed))
    }

    @Test("red when the store closes before a new ticket could enter and shop")
    func closingSoon() {
        let closesIn20 = OpenState.open(until: now.addingTimeInterval(20 * 60))
        #expect(TrafficLight.evaluate(wait: 0, openState: closesIn20, now: now) == (.green, .shortWait))
        #expect(TrafficLight.evaluate(wait: 10 * 60, openState: closesIn20, now: now) == (.red, .closingSoon))
    }

    @Test("red when a new ticket could never enter")
    func never() {
        #expect(TrafficLight.evaluate(wait: nil, openState: openAllDay, now: now) == (.red, .full))
    }

    @Test("a store's status puts hours, traffic and the estimator together")
    func storeStatus() {
        let hours = OpeningHours(intervals: Fixture.weekdayHours, timeZone: Fixture.rome)
        let full = StoreTraffic(inside: [Occupant(people: 2, expectedExit: now.addingTimeInterval(90 * 60))])
        let status = StoreStatus(capacity: 2, hours: hours, traffic: full, now: now)
        #expect(status.peopleInside == 2)
        #expect(status.wait == TimeInterval(90 * 60))
        #expect(status.light == .yellow)
        let sunday = StoreStatus(capacity: 2, hours: hours, traffic: .empty, now: Fixture.date(2026, 11, 22, 10))
        #expect(sunday.light == .red && sunday.reason == .closed)
    }
}
