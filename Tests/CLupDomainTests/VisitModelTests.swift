import Foundation
import Testing

@testable import CLupDomain

/// What the estimate learns from history (`VisitModel`), and the estimator's use of it.
@Suite("Visit model")
struct VisitModelTests {
    let now = Fixture.wednesdayMorning
    let half = TimeInterval(30 * 60)

    @Test("someone inside past their expected exit is expected to stay on a while, not to leave this instant")
    func residualLife() {
        let model = VisitModel(ratio: 1, spread: 0.4)
        // Not yet inside long: about the mean visit, a little more (those who have stayed a
        // while are the longer visits).
        let fresh = model.expectedExit(since: now, residence: half, now: now + 60)
        #expect(fresh >= now + half && fresh < now + half + 120)
        // Past the mean: later than now, and later still for someone who has stayed longer.
        let overdue = model.expectedExit(since: now - 40 * 60, residence: half, now: now)
        let longer = model.expectedExit(since: now - 60 * 60, residence: half, now: now)
        #expect(overdue > now + 5 * 60 && overdue < now + 20 * 60)
        #expect(longer > now + 5 * 60 && longer < now + 20 * 60)
        // Visits that do not vary: the declared end, or now once past it.
        let exact = VisitModel(ratio: 1, spread: 0)
        #expect(exact.expectedExit(since: now - 40 * 60, residence: half, now: now) == now)
        #expect(exact.expectedExit(since: now - 10 * 60, residence: half, now: now) == now + 20 * 60)
    }

    @Test("a visit open three times its expected length and half an hour more is closed as never scanned out")
    func ghosts() {
        #expect(VisitModel().ghostAfter(expected: half) == 2 * 3600)
        let settings = StoreSettings(capacity: 4, walkInPercent: 0)
        let live = [
            LiveReservation(id: 1, state: .inside(since: now - 2 * 3600 - 1), people: 1, residence: half, day: 5),
            LiveReservation(id: 2, state: .inside(since: now - 2 * 3600 + 60), people: 1, residence: half, day: 5),
            LiveReservation(id: 3, state: .waiting, people: 1, residence: half, day: 5),
        ]
        let plan = QueueCaller.plan(live: live, settings: settings, today: 5, isOpen: true, now: now)
        #expect(plan.close == [1])
        #expect(plan.call == [3])
        // The estimate expects that visit to end then, not after it.
        let model = VisitModel(ratio: 1, spread: 0.4)
        #expect(model.expectedExit(since: now - model.ghostAfter(expected: half) + 60, residence: half, now: now) <= now + 60)
    }

    @Test("a store whose visits vary widely keeps a visit open past their 99.9th percentile before closing it")
    func ghostsOfVariedVisits() {
        // Up to a spread of about 0.375 the bound stays three times the expected length.
        for spread in [0.0, 0.2, 0.35, 0.37] {
            #expect(VisitModel(ratio: 1, spread: spread).ghostAfter(expected: half) == 2 * 3600)
        }
        // Past it, the bound less its half hour is the visits' 99.9th percentile: a log-normal
        // visit of mean `half` is longer with a chance of one in a thousand.
        for spread in [0.4, 0.5, 0.58, 0.8] {
            let bound = VisitModel(ratio: 1, spread: spread).ghostAfter(expected: half) - 30 * 60
            let longer = VisitModel.normalCDF(-(log(bound) - (log(half) - spread * spread / 2)) / spread)
            #expect(abs(longer - 0.001) < 0.00002)
            #expect(bound > 3 * half)
        }
        // At a spread of 0.58 a visit three times its length and half an hour more is still open;
        // one past the store's own bound is closed.
        let varied = VisitModel(ratio: 1, spread: 0.58)
        let settings = StoreSettings(capacity: 4, walkInPercent: 0)
        let live = [
            LiveReservation(id: 1, state: .inside(since: now - 2 * 3600 - 1), people: 1, residence: half, day: 5),
            LiveReservation(id: 2, state: .inside(since: now - varied.ghostAfter(expected: half) - 1), people: 1,
                            residence: half, day: 5),
        ]
        let plan = QueueCaller.plan(live: live, settings: settings, today: 5, isOpen: true, now: now, model: varied)
        #expect(plan.close == [2])
    }

    @Test("a visit open long past its expected exit is likelier one never scanned out, and expected to end later")
    func unscanned() {
        let scanned = VisitModel(ratio: 1, spread: 0.35)
        let forgetful = VisitModel(ratio: 1, spread: 0.35, unscannedRate: 0.02)
        let ghostAfter = forgetful.ghostAfter(expected: half)
        for stayed in [10.0, 30, 45, 60, 75, 100] {
            let since = now - stayed * 60
            let plain = scanned.expectedExit(since: since, residence: half, now: now)
            let mixed = forgetful.expectedExit(since: since, residence: half, now: now)
            // Between the scanned-out visit's end and the closing, weighted by the chance of each.
            #expect(mixed > plain && mixed < since + ghostAfter)
            let survival = VisitModel.normalCDF(-(log(stayed * 60) - (log(half) - 0.35 * 0.35 / 2)) / 0.35)
            let unscannedChance = 0.02 / (0.02 + 0.98 * survival)
            let expected = (1 - unscannedChance) * plain.timeIntervalSince(since) + unscannedChance * ghostAfter
            #expect(abs(mixed.timeIntervalSince(since) - expected) < 0.001)
        }
        // Ten minutes in, still almost surely an ordinary visit; 100 minutes in, almost surely not.
        #expect(forgetful.unscannedProbability(survival: 1) == 0.02)
        let late = forgetful.expectedExit(since: now - 100 * 60, residence: half, now: now)
        #expect(late > now + 15 * 60)

        // In the queue, one party in fifty holds its place until it is closed: with one place and
        // a rate of a tenth, the fifth party (the share reaches one, from one half) holds it two
        // hours, and the sixth enters only then.
        let estimator = WaitEstimator(capacity: 1, model: VisitModel(ratio: 1, spread: 0, unscannedRate: 0.1), grace: 0)
        let queue = Array(repeating: QueuedParty(people: 1, residence: 600), count: 7)
        let entries = estimator.entryTimes(traffic: StoreTraffic(queue: queue), now: now).map { $0!.timeIntervalSince(now) }
        let tenAfterTen = VisitModel().ghostAfter(expected: 600)
        #expect(entries == [0, 600, 1200, 1800, 2400, 2400 + tenAfterTen, 3000 + tenAfterTen])
    }

    @Test("varied visits free a place earlier than one after another at their means: the first visit of each place's run is shortened")
    func renewalLead() {
        #expect(VisitModel(ratio: 1, spread: 0).renewalLead(stay: half) == 0)
        let model = VisitModel(ratio: 1, spread: 0.4)
        let lead = (exp(0.16) - 1) / 2 * half
        #expect(abs(model.renewalLead(stay: half) - lead) < 1e-9)
        // Two places, four parties of one: the first two start their places' runs.
        let estimator = WaitEstimator(capacity: 2, model: model, grace: 0)
        let queue = Array(repeating: QueuedParty(people: 1, residence: half), count: 4)
        let entries = estimator.entryTimes(traffic: StoreTraffic(queue: queue), now: now).map { $0!.timeIntervalSince(now) }
        #expect(entries.count == 4)
        #expect(entries[0] == 0 && entries[1] == 0)
        #expect(abs(entries[2] - (half - lead)) < 0.001 && abs(entries[3] - (half - lead)) < 0.001)
        let fifth = estimator.entryTimes(traffic: StoreTraffic(queue: queue + [QueuedParty(people: 1, residence: half)]), now: now)
        #expect(abs(fifth[4]!.timeIntervalSince(now) - (2 * half - lead)) < 0.001)
    }

    @Test("no-shows hold their places only until their grace ends")
    func noShows() {
        let model = VisitModel(ratio: 1, spread: 0, noShowRate: 0.2)
        #expect(model.expectedHold(stay: 1800, grace: 600) == 0.8 * 1800 + 0.2 * 600)
        // In the queue: the third party of one enters when the second's expected hold ends.
        let estimator = WaitEstimator(capacity: 1, model: model, grace: 600)
        let entries = estimator.entryTimes(traffic: StoreTraffic(queue: [QueuedParty(people: 1, residence: 1800),
                                                                         QueuedParty(people: 1, residence: 1800)]),
                                           now: now)
        #expect(entries == [now, now + 1560])
    }

    @Test("a booking's hold to come takes its places before the queue, from when it begins")
    func futureHolds() {
        // One place, free now; a booking holds it from +10 to +50 min. A party of one staying
        // 30 min enters now (it was placed before the hold); the next waits for the first to
        // leave at +30 and then for the hold to end at +50.
        let traffic = StoreTraffic(queue: [QueuedParty(people: 1, residence: 1800), QueuedParty(people: 1, residence: 1800)],
                                   futureHolds: [FutureHold(people: 1, start: now + 600, end: now + 3000)])
        let entries = WaitEstimator(capacity: 1).entryTimes(traffic: traffic, now: now)
        #expect(entries == [now, now + 3000])
    }

    @Test("slots still open for booking are expected to fill as the last hour of final slots did")
    func anticipatedBookings() {
        let settings = StoreSettings(capacity: 20, walkInPercent: 0, slotMinutes: 30)
        // Four people booked in each of the two slots of the hour before the lead time (final),
        // one in the first slot still open.
        let lead = SlotCalendar.leadTime
        let live = [
            LiveReservation(id: 1, state: .booked(slotStart: now + lead - 3600), people: 2, residence: half),
            LiveReservation(id: 2, state: .booked(slotStart: now + lead - 3600), people: 2, residence: half),
            LiveReservation(id: 3, state: .booked(slotStart: now + lead - 1800), people: 2, residence: half),
            LiveReservation(id: 4, state: .booked(slotStart: now + lead - 1800), people: 2, residence: half),
            LiveReservation(id: 5, state: .booked(slotStart: now + lead), people: 1, residence: half),
        ]
        let traffic = StoreTraffic(live: live, settings: settings, model: VisitModel(), now: now)
        let anticipated = Array(traffic.futureHolds.dropFirst(live.count))  // after the bookings' own
        // The slot at the lead time: 4 expected, 1 booked → 3 more, held from 40 min before it.
        #expect(anticipated.first == FutureHold(people: 3, start: now + lead - 2400, end: now + lead + half))
        // Slots further on expect 4 each.
        #expect(anticipated.dropFirst().allSatisfy { $0.people == 4 })
    }

    @Test("the range: wider for longer waits and more varied visits, and drawn from measured errors once there are some")
    func ranges() {
        let model = VisitModel(ratio: 1, spread: 0.4)
        let short = model.entryRange(now: now, placed: now + 600, entry: now + 600, places: 20)
        let long = model.entryRange(now: now, placed: now + 3600, entry: now + 3600, places: 20)
        #expect(short.contains(now + 600) && long.contains(now + 3600))
        #expect(long.upperBound.timeIntervalSince(long.lowerBound) > short.upperBound.timeIntervalSince(short.lowerBound))
        let regular = VisitModel(ratio: 1, spread: 0.05).entryRange(now: now, placed: now + 3600, entry: now + 3600,
                                                                    places: 20)
        #expect(regular.upperBound.timeIntervalSince(regular.lowerBound) < long.upperBound.timeIntervalSince(long.lowerBound))
        // On the way: the travel part widens it too, later more than earlier.
        let travelling = model.entryRange(now: now, placed: now, entry: now + 1200, places: 20)
        #expect(travelling.lowerBound <= now + 1200 - 60 && travelling.upperBound >= now + 1200 + 4 * 60)

        // Measured: errors of bias 0.5 and spread 0.8, in minutes over √(expected wait + 10 min).
        // At issue (no time waited) the range carries the whole bias: 25 minutes' wait is
        // scaled by √35 minutes.
        var measured = model
        measured.entryError = VisitModel.EntryError(bias: 0.5, spread: 0.8)
        let range = measured.entryRange(now: now, placed: now + 1500, entry: now + 1500, places: 20)
        let scale = 35.0.squareRoot() * 60
        #expect(abs(range.lowerBound.timeIntervalSince(now) - (1500 + (0.5 - 1.55 * 0.8) * scale)) < 0.001)
        #expect(abs(range.upperBound.timeIntervalSince(now) - (1500 + (0.5 + 1.55 * 0.8) * scale)) < 0.001)
        // A ticket taken 25 minutes ago, with as long again ahead, carries half the bias: the
        // same width, centred nearer its expected entry.
        let waited = measured.entryRange(now: now, placed: now + 1500, entry: now + 1500, places: 20, issuedAt: now - 1500)
        #expect(abs(waited.lowerBound.timeIntervalSince(now) - (1500 + (0.25 - 1.55 * 0.8) * scale)) < 0.001)
        #expect(abs(waited.upperBound.timeIntervalSince(now) - (1500 + (0.25 + 1.55 * 0.8) * scale)) < 0.001)
        // A longer wait has a wider range, but narrower for its length (√ against linear).
        let longer = measured.entryRange(now: now, placed: now + 6000, entry: now + 6000, places: 20)
        let width = { (range: ClosedRange<Date>) in range.upperBound.timeIntervalSince(range.lowerBound) }
        #expect(width(longer) > width(range) && width(longer) / 6000 < width(range) / 1500)
        // Never a point, nor before now: at the door, a minute at least.
        let due = measured.entryRange(now: now, placed: now, entry: now, places: 20)
        #expect(due.lowerBound == now && width(due) >= 60)
    }

    @Test("visits still in progress count in the ratio: the long ones not yet measured raise it, as far as the history lets them")
    func visitsInProgress() {
        // Fifty visits measured, each as long as declared (30 minutes), and a prior of ten.
        let measured = VisitModel(visits: 50, declaredSeconds: 50 * 1800, actualSeconds: 50 * 1800, loggedVisits: 50,
                                  logRatioSum: 0, logRatioSquares: 50 * 0.35 * 0.35, calls: 0, noShows: 0,
                                  atHandEntries: 0, callToDoorSeconds: 0)
        #expect(measured.ratio == 1 && abs(measured.ratioWeight - 60 * 1800) < 1e-6)
        // Twenty customers inside, declared 30 minutes, who have stayed 45 so far.
        let inside = (0..<20).map { _ in (since: now - 2700, residence: 1800.0) }
        let counted = measured.withVisitsInProgress(inside, now: now)
        let (length, weight) = measured.expectedLength(elapsed: 2700, residence: 1800)
        // Each is expected to stay on past 45 minutes, and weighs less than a whole visit: one
        // in nine visits runs this long, so some of these may be ones never to be scanned out.
        #expect(length > 2700 && weight > 0.5 && weight < 1)
        #expect(abs(counted.ratio - (60 * 1800 + 20 * weight * length) / (60 * 1800 + 20 * weight * 1800)) < 1e-9)
        #expect(counted.ratio > 1.1)
        // Ten times the history: the same visits move it far less.
        var longer = measured
        longer.ratioWeight *= 10
        let barely = longer.withVisitsInProgress(inside, now: now).ratio
        #expect(barely > 1 && barely - 1 < (counted.ratio - 1) / 5)
        // Visits just begun are expected to last their mean: the ratio stays about where it was.
        #expect(abs(measured.withVisitsInProgress(inside.map { (since: now - 60, residence: $0.residence) }, now: now)
            .ratio - 1) < 0.02)
        // A visit past its closing is taken to have left unscanned: it says nothing of visits.
        let closed = measured.ghostAfter(expected: 1800) + 60
        #expect(measured.withVisitsInProgress([(since: now - closed, residence: 1800)], now: now).ratio == 1)
        // A store with nothing measured keeps its prior.
        #expect(VisitModel.newStore.withVisitsInProgress(inside, now: now) == VisitModel.newStore)
    }

    @Test("a store's model comes from its measured sums: ratio, spread and forgotten scans shrunk towards a prior")
    func measured() {
        // A new store: visits as declared, varying by 0.35, 2 % never scanned out; no no-shows
        // or time to the door until they are measured.
        let new = VisitModel(visits: 0, declaredSeconds: 0, actualSeconds: 0, loggedVisits: 0, logRatioSum: 0,
                             logRatioSquares: 0, calls: 0, noShows: 0, atHandEntries: 0, callToDoorSeconds: 0)
        #expect(new.ratio == 1 && abs(new.spread - 0.35) < 1e-12 && abs(new.unscannedRate - 0.02) < 1e-12)
        #expect(new.noShowRate == 0 && new.callToDoor == 0 && new.meanVisit == VisitModel.defaultMeanVisit)
        // Five visits at 1.5 × declared, of ln ratios of variance 1 − 0.4² = 0.84: the prior's ten
        // visits still weigh twice as much. Calls and entries: fewer than twenty, not yet used.
        let few = VisitModel(visits: 5, declaredSeconds: 9000, actualSeconds: 13_500, loggedVisits: 5, logRatioSum: 2,
                             logRatioSquares: 5,
                             calls: 5, noShows: 1, atHandEntries: 4, callToDoorSeconds: 400)
        #expect(abs(few.ratio - (13_500 + 18_000) / (9000 + 18_000)) < 1e-12)
        #expect(abs(few.spread - ((5 * 0.84 + 10 * 0.35 * 0.35) / 15).squareRoot()) < 1e-12)
        #expect(few.noShowRate == 0 && few.callToDoor == 0 && few.meanVisit == VisitModel.defaultMeanVisit)
        // 25 visits with ln ratios of mean 0.2 and variance 0.09; 40 calls, 4 never came, and
        // the 30 called where they were took 90 s on average.
        let many = VisitModel(visits: 25, declaredSeconds: 45_000, actualSeconds: 54_000, loggedVisits: 25,
                              logRatioSum: 25 * 0.2, logRatioSquares: 25 * (0.09 + 0.04),
                              calls: 40, noShows: 4, atHandEntries: 30, callToDoorSeconds: 30 * 90)
        #expect(abs(many.ratio - (54_000 + 18_000) / (45_000 + 18_000)) < 1e-9)
        #expect(abs(many.spread - ((25 * 0.09 + 10 * 0.35 * 0.35) / 35).squareRoot()) < 1e-9)
        #expect(abs(many.noShowRate - 0.1) < 1e-9)
        #expect(abs(many.callToDoor - 90) < 1e-9)
        #expect(abs(many.meanVisit - 2160) < 1e-9)
        // A store measured before the log sums were kept: 1,000 visits of 36 min on average,
        // only 25 of them in the log sums. The mean visit and ratio are of all 1,000 (the
        // prior's ten count for 1 %).
        let older = VisitModel(visits: 1000, declaredSeconds: 1000 * 1800, actualSeconds: 1000 * 2160, loggedVisits: 25,
                               logRatioSum: 25 * 0.2, logRatioSquares: 25 * (0.09 + 0.04),
                               calls: 0, noShows: 0, atHandEntries: 0, callToDoorSeconds: 0)
        #expect(abs(older.meanVisit - 2160) < 1e-9 && abs(older.ratio - (2160 + 18) / (1800 + 18)) < 1e-9)
        #expect(abs(older.spread - many.spread) < 1e-9)
        // Visits never scanned out: of those ended since they were counted (those measured
        // before are left out of it), shrunk towards 2 % as fifty visits.
        func unscanned(_ closed: Int, of counted: Int) -> Double {
            VisitModel(visits: 1000, declaredSeconds: 1000 * 1800, actualSeconds: 1000 * 1800, loggedVisits: 1000,
                       logRatioSum: 0, logRatioSquares: 0, calls: 0, noShows: 0, atHandEntries: 0, callToDoorSeconds: 0,
                       unscannedVisits: closed, countedVisits: counted).unscannedRate
        }
        #expect(abs(unscanned(0, of: 50) - 0.01) < 1e-12)
        #expect(abs(unscanned(10, of: 140) - 11.0 / 200) < 1e-12)
        #expect(abs(unscanned(3, of: 147) - 0.02) < 1e-9)
    }
}

@Suite("Visit model: the order of exits")
struct ExitOrderTests {
    let now = Fixture.wednesdayMorning

    @Test("with varied visits, the first of several exits is expected before the earliest mean, the last after the latest")
    func spread() {
        let settings = StoreSettings(capacity: 10, walkInPercent: 0)
        // Six parties in for 30 minutes, who came in 0 to 10 minutes ago.
        let live = (0..<6).map { index in
            LiveReservation(id: ReservationID(Int64(index + 1)), state: .inside(since: now - Double(index) * 120), people: 1, residence: 1800)
        }
        let model = VisitModel(ratio: 1, spread: 0.35)
        let plain = live.map { model.expectedExit(since: now - Double($0.id.rawValue - 1) * 120, residence: 1800, now: now) }
        let traffic = StoreTraffic(live: live, settings: settings, model: model, now: now)
        let ordered = traffic.inside.map(\.expectedExit).sorted()
        #expect(ordered.first! < plain.min()! - 5 * 60)
        #expect(ordered.last! > plain.max()!)
        // On average about the same: spread, not moved.
        let shift = zip(ordered, plain.sorted()).map { $0.timeIntervalSince($1) }.reduce(0, +) / 6
        #expect(abs(shift) < 120)
        // The one who came in first is still expected to leave first.
        #expect(traffic.inside[5].expectedExit == ordered.first!)

        // Visits that do not vary keep their own exits.
        let exact = StoreTraffic(live: live, settings: settings, model: VisitModel(ratio: 1, spread: 0), now: now)
        #expect(exact.inside.map(\.expectedExit) == live.map { now + 1800 - Double($0.id.rawValue - 1) * 120 })
    }

    @Test("the order of exits' upper tail is erfc's to 10⁻⁹, and erfc's own beyond the table")
    func upperTail() {
        var worst = 0.0
        for step in 0...22_000 {
            let x = -7 + Double(step) / 2000
            worst = max(worst, abs(UpperTail.value(x) - 0.5 * erfc(x)))
        }
        #expect(worst < 1e-9, "\(worst)")
        // Far in the tail the values are tiny: exactly erfc's, not an absolute error's worth off.
        #expect(UpperTail.value(5) == 0.5 * erfc(5))
        #expect(UpperTail.value(-8) == 1)
    }

    @Test("a crowd let in within one second: each exit where the visits' common distribution puts it")
    func crowd() {
        // 200 parties in for 30 minutes, let in 10 minutes ago, 4 ms apart.
        let settings = StoreSettings(capacity: 300, walkInPercent: 0)
        let live = (0..<200).map { index in
            LiveReservation(id: ReservationID(Int64(index + 1)), state: .inside(since: now - 600 - Double(index) * 0.004),
                            people: 1, residence: 1800)
        }
        let spread = 0.35
        let traffic = StoreTraffic(live: live, settings: settings, model: VisitModel(ratio: 1, spread: spread), now: now)
        let exits = traffic.inside.map { $0.expectedExit.timeIntervalSince(now) }.sorted()
        // The j-th of n exits when a visit that has lasted 600 s has ended with probability
        // (j − ½) ÷ n: its log-normal distribution function F, of mean 1800 s, inverted at
        // F(600) + (j − ½) ÷ n × (1 − F(600)) by bisection.
        let mu = log(1800) - spread * spread / 2
        func distribution(_ seconds: Double) -> Double { 0.5 * erfc(-(log(seconds) - mu) / (spread * 2.squareRoot())) }
        for j in [1, 50, 100, 150, 199] {
            let target = distribution(600) + (Double(j) - 0.5) / 200 * (1 - distribution(600))
            var (low, high) = (600.0, 100_000.0)
            for _ in 0..<100 {
                let middle = (low + high) / 2
                if distribution(middle) < target { low = middle } else { high = middle }
            }
            #expect(abs(exits[j - 1] - (low - 600)) < 20, "exit \(j): \(exits[j - 1]) s against \(low - 600) s")
        }
    }

    @Test("visits that barely vary: the first of four exits just before their common mean, not minutes early",
          arguments: [0.01, 0.05, 0.1])
    func narrow(spread: Double) {
        let settings = StoreSettings(capacity: 4, walkInPercent: 0)
        let live = (1...4).map { LiveReservation(id: ReservationID(Int64($0)), state: .inside(since: now), people: 1, residence: 1800) }
        let traffic = StoreTraffic(live: live, settings: settings, model: VisitModel(ratio: 1, spread: spread), now: now)
        // Half an exit is expected when each of the four visits has ended with probability ⅛:
        // at 30 min × e^(−σ²/2 + σ × Φ⁻¹(⅛)), Φ⁻¹(⅛) = −1.1503.
        let first = 1800 * exp(-spread * spread / 2 - 1.1503 * spread)
        let soonest = traffic.inside.map(\.expectedExit).min()!.timeIntervalSince(now)
        #expect(abs(soonest - first) < 20, "\(soonest) against \(first)")
    }
}
