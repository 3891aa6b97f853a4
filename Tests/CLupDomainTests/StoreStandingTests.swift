import Foundation
import Testing

@testable import CLupDomain

/// A kept standing changed in place — a ticket joining the back of the queue, a ticket leaving
/// it — must be exactly the standing computed afresh from the changed reservations.
@Suite("Kept standings")
struct StoreStandingTests {
    let now = Fixture.wednesdayMorning
    let hours = OpeningHours(intervals: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 24 * 60) },
                             timeZone: Fixture.rome)

    /// SplitMix64, so a failing case can be replayed from its seed.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// A store with people inside, tickets called, bookings due and a queue, in both pools.
    func live(_ random: inout Generator, settings: StoreSettings, queue: Int) -> [LiveReservation] {
        var live: [LiveReservation] = []
        var next: Int64 = 0
        func add(_ state: LiveReservation.State, walkIn: Bool) {
            next += 1
            let id = ReservationID(next)
            let (travel, leftAt) = walkIn || state != .waiting ? (0, nil) : journey(&random)
            live.append(LiveReservation(
                id: id, state: state, people: Int.random(in: 1...2, using: &random),
                residence: Double([5, 15, 20, 30, 45, 60, 90].randomElement(using: &random)!) * 60, walkIn: walkIn,
                travel: travel, leftAt: leftAt))
        }
        for _ in 0..<Int.random(in: 0...settings.capacity, using: &random) {
            let walkIn = Int.random(in: 0..<5, using: &random) == 0
            switch Int.random(in: 0..<4, using: &random) {
            case 0: add(.called(at: now - Double(Int.random(in: 0...600, using: &random))), walkIn: walkIn)
            case 1: add(.booked(slotStart: now + Double(Int.random(in: -20...40, using: &random)) * 60), walkIn: false)
            default: add(.inside(since: now - Double(Int.random(in: 0...5400, using: &random))), walkIn: walkIn)
            }
        }
        for _ in 0..<queue { add(.waiting, walkIn: Int.random(in: 0..<4, using: &random) == 0) }
        return live
    }

    /// An online customer's travel: none, or minutes to most of an hour, and sometimes already
    /// told to leave (their arrival is then fixed).
    func journey(_ random: inout Generator) -> (TimeInterval, Date?) {
        let travel = Double([0, 0, 3, 12, 25, 50].randomElement(using: &random)!) * 60
        guard travel > 0, Bool.random(using: &random) else { return (travel, nil) }
        return (travel, now - Double(Int.random(in: 0...Int(travel), using: &random)))
    }

    @Test("removing any waiting ticket, or adding one at the back, equals a recomputation", arguments: 1...40)
    func keptEqualsRecomputed(seed: UInt64) {
        var random = Generator(state: seed)
        let settings = StoreSettings(capacity: Int.random(in: 3...40, using: &random),
                                     walkInPercent: [0, 20, 34].randomElement(using: &random)!)
        var live = live(&random, settings: settings, queue: Int.random(in: 0...60, using: &random))
        let ratio = [1, 0.8, 1.3].randomElement(using: &random)!
        // A store with only its ratio measured, or with everything: varied visits (the order of
        // exits, the renewal term), no-shows, visits never scanned out (a share of the parties
        // simulated, counted in queue order, which a resumed simulation must count alike), and
        // the ratio's own weight, so the visits in progress move it.
        var model = Bool.random(using: &random)
            ? VisitModel(ratio: ratio)
            : VisitModel(ratio: ratio, spread: 0.35, noShowRate: 0.1, unscannedRate: 0.15, callToDoor: 90)
        if model.spread > 0 { model.ratioWeight = 50 * 1800 }
        func fresh() -> StoreStanding {
            StoreStanding(live: LiveTraffic(live: live, model: model), settings: settings, hours: hours, now: now)
        }
        var kept = fresh()
        #expect(kept == fresh())
        for step in 0..<30 {
            let waiting = live.filter { $0.state == .waiting }
            if !waiting.isEmpty, Bool.random(using: &random) {
                // A ticket anywhere in either queue leaves it.
                let leaving = waiting.randomElement(using: &random)!
                live.removeAll { $0.id == leaving.id }
                let removed = kept.removeWaiting(leaving.id, settings: settings, hours: hours)
                #expect(removed, "seed \(seed) step \(step)")
            } else {
                let walkIn = Int.random(in: 0..<4, using: &random) == 0
                let (travel, leftAt) = walkIn ? (0, nil) : journey(&random)
                let joining = LiveReservation(
                    id: ReservationID((live.map(\.id.rawValue).max() ?? 0) + 1), state: .waiting, people: Int.random(in: 1...2, using: &random),
                    residence: Double(Int.random(in: 1...12, using: &random)) * 300, walkIn: walkIn, travel: travel,
                    leftAt: leftAt)
                live.append(joining)
                kept.appendWaiting(joining, settings: settings, hours: hours)
            }
            #expect(kept == fresh(), "seed \(seed) step \(step)")
        }
        // A ticket that is not waiting is not taken out.
        let removed = kept.removeWaiting(-1, settings: settings, hours: hours)
        #expect(!removed)
    }

    @Test("with priority tickets placed in the queue, removing any waiting ticket equals a recomputation",
          arguments: 1...20)
    func keptWithPriority(seed: UInt64) {
        var random = Generator(state: seed &* 7919)
        let lane = PriorityLane(every: Int.random(in: 1...4, using: &random), online: true)
        let settings = StoreSettings(capacity: Int.random(in: 3...40, using: &random), walkInPercent: 20, priority: lane)
        var live = live(&random, settings: settings, queue: Int.random(in: 5...40, using: &random))
        // Priority tickets join as the lane places them, in either pool; the queue is then in
        // the order it is called (`QueueKey`).
        for _ in 0..<Int.random(in: 1...5, using: &random) {
            let walkIn = Bool.random(using: &random)
            let waiting = live.filter { $0.state == .waiting }.sorted { $0.queueKey < $1.queueKey }
            let before = lane.place(in: waiting.filter { $0.walkIn == walkIn })
            live.append(LiveReservation(
                id: ReservationID((live.map(\.id.rawValue).max() ?? 0) + 1), state: .waiting, people: 1, residence: 1200,
                walkIn: walkIn, priority: true, position: before))
        }
        live = live.filter { $0.state != .waiting } + live.filter { $0.state == .waiting }.sorted { $0.queueKey < $1.queueKey }
        func fresh() -> StoreStanding {
            StoreStanding(live: LiveTraffic(live: live, ratio: 1), settings: settings, hours: hours, now: now)
        }
        var kept = fresh()
        for step in 0..<20 {
            let waiting = live.filter { $0.state == .waiting }
            guard let leaving = waiting.randomElement(using: &random) else { break }
            #expect(kept.standing(of: leaving.id) != nil, "seed \(seed) step \(step)")
            live.removeAll { $0.id == leaving.id }
            let removed = kept.removeWaiting(leaving.id, settings: settings, hours: hours)
            #expect(removed, "seed \(seed) step \(step)")
            #expect(kept == fresh(), "seed \(seed) step \(step)")
        }
    }

    @Test("a waiting ticket's measured range carries the store's bias in the share of its wait still ahead, kept or fresh")
    func rangesByTimeWaited() throws {
        let settings = StoreSettings(capacity: 4, walkInPercent: 0)
        var model = VisitModel(ratio: 1)
        model.entryError = VisitModel.EntryError(bias: 1.5, spread: 0.5)
        // Four inside for half an hour more; then three tickets, taken 40, 20 and 0 minutes ago.
        var live = (1...4).map { LiveReservation(id: ReservationID(Int64($0)), state: .inside(since: now), people: 1, residence: 1800) }
        for (id, minutesAgo) in [(Int64(5), 40.0), (6, 20.0), (7, 0.0)] {
            live.append(LiveReservation(id: ReservationID(id), state: .waiting, people: 1, residence: 1800,
                                        issuedAt: now - minutesAgo * 60))
        }
        func fresh() -> StoreStanding {
            StoreStanding(live: LiveTraffic(live: live, model: model), settings: settings, hours: hours, now: now)
        }
        var kept = fresh()
        for ticket in live where ticket.state == .waiting {
            let standing = try #require(kept.standing(of: ticket.id))
            let entry = try #require(standing.entry)
            let expected = model.entryRange(now: now, placed: entry, entry: entry, places: 4, issuedAt: ticket.issuedAt)
            #expect(standing.range == expected)
            // The same as the one ticket's own standing finds.
            let traffic = LiveTraffic(live: live, model: model)
            let alone = QueueStanding.of(ticket.id, live: live, settings: settings,
                                         estimator: traffic.estimator(settings: settings), now: now)
            #expect(alone?.range == expected)
        }
        // The first has waited 40 minutes of its wait: it carries less of the bias (a late one)
        // than a ticket expected as it is but taken just now, so its range is earlier.
        let first = try #require(kept.standing(of: 5))
        let entry = try #require(first.entry)
        let justTaken = model.entryRange(now: now, placed: entry, entry: entry, places: 4, issuedAt: now)
        let range = try #require(first.range)
        #expect(range.lowerBound < justTaken.lowerBound && range.upperBound < justTaken.upperBound)
        // Kept in place: once the first leaves the queue, those behind keep their own times.
        live.removeAll { $0.id == 5 }
        let removed = kept.removeWaiting(5, settings: settings, hours: hours)
        #expect(removed)
        for id: ReservationID in [6, 7] {
            #expect(kept.standing(of: id)?.range == fresh().standing(of: id)?.range)
        }
    }

    @Test("a line-up given its places at once waits what the queue's simulation says", arguments: 1...40)
    func placesFreeNow(seed: UInt64) {
        var random = Generator(state: seed)
        let settings = StoreSettings(capacity: Int.random(in: 3...40, using: &random),
                                     walkInPercent: [0, 20, 34].randomElement(using: &random)!,
                                     entryBeforeMinutes: [10, 30, 95].randomElement(using: &random)!)
        var live = live(&random, settings: settings, queue: [0, 0, 2, 6].randomElement(using: &random)!)
        // Bookings whose places are not held yet, and one whose window has closed.
        for (index, minutes) in [70.0, 150, -30].enumerated() {
            live.append(LiveReservation(id: ReservationID(Int64(1000 + index)), state: .booked(slotStart: now + minutes * 60),
                                        people: 2, residence: 1800))
        }
        let model = Bool.random(using: &random)
            ? VisitModel(ratio: 1.2)
            : VisitModel(ratio: 0.9, spread: 0.35, noShowRate: 0.1, unscannedRate: 0.15, callToDoor: 90)
        let traffic = LiveTraffic(live: live, model: model)
        var given = 0
        for pool in Pool.allCases {
            for people in 1...3 {
                for travel: TimeInterval in [0, 600] {
                    let estimator = traffic.estimator(settings: settings, pool: pool)
                    let simulated = estimator.waitForNewParty(
                        people: people, residence: 1800, travel: travel,
                        traffic: traffic.traffic(settings: settings, now: now, pool: pool), now: now)
                    #expect(traffic.lineUpDecision(people: people, residence: 1800, travel: travel, settings: settings,
                                                   hours: hours, now: now, pool: pool)
                        == LineUpPolicy.decide(wait: simulated, residence: 1800, openState: hours.state(at: now), now: now))
                    guard traffic.placesFreeNow(for: people, settings: settings, now: now, pool: pool) else { continue }
                    given += 1
                    #expect(estimator.waitGivenPlacesNow(people: people, residence: 1800, travel: travel, now: now)
                        == simulated)
                }
            }
        }
        // Entry windows opening 95 minutes early could begin an expected booking's hold at once.
        if settings.entryBeforeMinutes == 95 { #expect(given == 0) }
    }

    @Test("the line-up decision waits what the standing shows, the visits in progress counted in the ratio alike")
    func decisionMatchesStanding() {
        // Thirty places, all taken by visits declared as 30 minutes that have lasted 40 so far;
        // the store's ratio was measured as 1 over fifty such visits. A queue of twenty.
        let settings = StoreSettings(capacity: 30, walkInPercent: 0)
        var live = (1...30).map {
            LiveReservation(id: ReservationID(Int64($0)), state: .inside(since: now - 2400), people: 1, residence: 1800)
        }
        live += (31...50).map { LiveReservation(id: ReservationID(Int64($0)), state: .waiting, people: 1, residence: 1800) }
        var model = VisitModel(ratio: 1, spread: 0.35)
        model.ratioWeight = 50 * 1800
        let traffic = LiveTraffic(live: live, model: model)
        let standing = StoreStanding(live: traffic, settings: settings, hours: hours, now: now)
        let decision = traffic.lineUpDecision(people: 1, residence: StoreStatus.typicalVisit, settings: settings,
                                              hours: hours, now: now, pool: .online)
        #expect(decision == LineUpPolicy.decide(wait: standing.online.newcomerWait, residence: StoreStatus.typicalVisit,
                                                openState: hours.state(at: now), now: now))
        // Without the weight the visits inside do not move the ratio, and the wait is shorter.
        var measuredOnly = model
        measuredOnly.ratioWeight = 0
        let shorter = StoreStanding(live: LiveTraffic(live: live, model: measuredOnly), settings: settings, hours: hours,
                                    now: now)
        #expect(standing.online.newcomerWait! > shorter.online.newcomerWait! + 60)
    }

    @Test("with room for everyone on their way, a line-up waits its own journey, without a simulation")
    func roomForEveryone() {
        let settings = StoreSettings(capacity: 40, walkInPercent: 0)
        // Two inside, one called, twenty told to leave and still on their way (as at a large
        // store at a quiet hour): 23 of 40 places taken, and nobody waits for an exit.
        var live = [LiveReservation(id: 1, state: .inside(since: now - 600), people: 1, residence: 1800),
                    LiveReservation(id: 2, state: .inside(since: now - 300), people: 1, residence: 1800),
                    LiveReservation(id: 3, state: .called(at: now - 60), people: 1, residence: 1800)]
        for id in 4...23 {
            live.append(LiveReservation(id: ReservationID(Int64(id)), state: .waiting, people: 1, residence: 1800,
                                        travel: 900, leftAt: now - 120))
        }
        let traffic = LiveTraffic(live: live, model: VisitModel(ratio: 1.1, spread: 0.3, noShowRate: 0.1,
                                                                unscannedRate: 0.02, callToDoor: 90))
        #expect(traffic.placesFreeNow(for: 17, settings: settings, now: now, pool: .online))
        #expect(!traffic.placesFreeNow(for: 18, settings: settings, now: now, pool: .online))
        let simulated = traffic.estimator(settings: settings).waitForNewParty(
            people: 2, residence: 1800, travel: 1200, traffic: traffic.traffic(settings: settings, now: now), now: now)
        #expect(simulated == 1200)
        #expect(traffic.estimator(settings: settings).waitGivenPlacesNow(people: 2, residence: 1800, travel: 1200, now: now)
            == simulated)
        // Without a journey, the store's time from call to door.
        #expect(traffic.estimator(settings: settings).waitGivenPlacesNow(people: 1, residence: 1800, travel: 0, now: now) == 90)
    }
}
