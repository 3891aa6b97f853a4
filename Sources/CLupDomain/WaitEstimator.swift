import Foundation

/// A party (1 or 2 people, R14) inside the store, expected to leave at `expectedExit`.
public struct Occupant: Sendable, Hashable {
    public var people: Int
    public var expectedExit: Date

    public init(people: Int, expectedExit: Date) {
        self.people = people
        self.expectedExit = expectedExit
    }
}

/// A party waiting in the virtual queue, with the time it declared it will stay and, for a
/// customer who has to travel, the earliest time it can be at the door.
public struct QueuedParty: Sendable, Hashable {
    public var people: Int
    public var residence: TimeInterval
    /// `distantPast` for a party at hand (a walk-in at the kiosk, or a customer with no
    /// travel): not optional, so the simulation's step takes a plain maximum.
    public var arrival: Date
    /// When its ticket was taken, for its range (`VisitModel.entryRange`), not for the
    /// simulation; `distantFuture` for a party not yet in the queue, or not known (as if just
    /// taken). Not optional, so a queue of ten thousand stays 32 bytes a party.
    public var issuedAt: Date

    public init(people: Int, residence: TimeInterval, arrival: Date? = nil, issuedAt: Date? = nil) {
        self.people = people
        self.residence = residence
        self.arrival = arrival ?? .distantPast
        self.issuedAt = issuedAt ?? .distantFuture
    }
}

/// Places a booking will hold from `start` (its entry window less the lookahead) until it is
/// expected to leave: taken then, whatever the queue, as `QueueCaller` takes them.
public struct FutureHold: Sendable, Hashable {
    public var people: Int
    public var start: Date
    public var end: Date

    public init(people: Int, start: Date, end: Date) {
        self.people = people
        self.start = start
        self.end = end
    }
}

/// What the estimator needs to know about a store right now.
public struct StoreTraffic: Sendable, Hashable {
    /// Parties inside.
    public var inside: [Occupant]
    /// The virtual queue, first in line first.
    public var queue: [QueuedParty]
    /// Parties expected any moment — bookings due soon and tickets already called: their
    /// places are held from now until they are expected to leave.
    public var bookingsDue: [Occupant]
    /// Bookings not due yet whose places will be held within the estimate's horizon, and
    /// those expected to be made yet (`anticipateBookings`).
    public var futureHolds: [FutureHold]
    /// Booked people by slot start, for `anticipateBookings`.
    var booked: [Date: Int] = [:]
    /// When each party inside came in and what it declared, in `inside`'s order, for
    /// `orderExits`.
    var insideVisits: [Visit] = []

    struct Visit: Sendable, Hashable {
        var since: Date
        var residence: TimeInterval
    }

    public init(inside: [Occupant] = [], queue: [QueuedParty] = [], bookingsDue: [Occupant] = [],
                futureHolds: [FutureHold] = []) {
        self.inside = inside
        self.queue = queue
        self.bookingsDue = bookingsDue
        self.futureHolds = futureHolds
    }

    public static let empty = StoreTraffic()

    public var peopleInside: Int { inside.reduce(0) { $0 + $1.people } }
}

/// Estimates when each party in a store's queue will enter, by simulating expected exits:
/// people inside leave at their expected exit, places held for bookings due are not given
/// away, and the queue is given places in order as they free. A party still travelling when
/// its places free holds them until it arrives (`QueuedParty.arrival`), as `QueueCaller` does:
/// it enters at the later of the two, and leaves its stay after that.
///
/// The simulation keeps pending exits in a min-heap, so the cost is O(n log p) for n parties
/// queued and p places, independent of the store's history.
public struct WaitEstimator: Sendable {
    /// Places available to the queue (the store's capacity, less any share kept for others).
    public var capacity: Int
    /// What the store's history says about visits, no-shows and the way to the door.
    public var model: VisitModel
    /// How long a called ticket has to reach the door (the store's call grace).
    public var grace: TimeInterval

    /// Observed actual ÷ declared residence time for the store; 1 until history exists.
    public var residenceRatio: Double { model.ratio }

    public init(capacity: Int, model: VisitModel, grace: TimeInterval) {
        self.capacity = capacity
        self.model = model
        self.grace = grace
    }

    /// An estimator that knows only the ratio: no no-shows, no time to the door.
    public init(capacity: Int, residenceRatio: Double = 1) {
        self.init(capacity: capacity, model: VisitModel(ratio: residenceRatio), grace: 0)
    }

    struct Exit: Sendable {
        /// The time as seconds since the reference date: the heap's loops compare plain
        /// numbers, where comparing two `Date`s is a call into Foundation at every step.
        var seconds: Double
        var people: Int

        init(time: Date, people: Int) {
            seconds = time.timeIntervalSinceReferenceDate
            self.people = people
        }

        var time: Date { Date(timeIntervalSinceReferenceDate: seconds) }
    }

    /// Pending exits, soonest first: a min-heap of four children a node, on an array. The
    /// simulation's usual step — the soonest exit frees the place a party of one takes —
    /// replaces the root and sifts once, where popping and pushing sift twice. Four children
    /// halve the levels a sift goes down (three for a pool of 60 places, where two children
    /// take six), and the soonest of four is picked without a branch: which of two exits is
    /// sooner is a coin toss the processor cannot predict.
    struct Exits: Sendable {
        private var heap: [Exit] = []

        init() {}

        /// The heap of `exits`, built bottom-up in linear time (a store's called tickets and
        /// people inside run to thousands, and each line-up's decision starts from them).
        init(_ exits: consuming [Exit]) {
            heap = consume exits
            guard heap.count > 1 else { return }
            for parent in stride(from: (heap.count - 2) / 4, through: 0, by: -1) {
                siftDown(heap[parent], from: parent)
            }
        }

        var soonest: Exit? { heap.first }
        /// Every pending exit, in no particular order.
        var all: [Exit] { heap }

        // The sifts work on the array's buffer: every index they use is below its count. The
        // array's own subscript checks that, and that its storage is not shared, at every
        // step: those checks were the largest cost of their own in the profile of a standing
        // computed at 10,000 waiting.

        mutating func insert(_ exit: Exit) {
            heap.append(exit)
            heap.withUnsafeMutableBufferPointer { heap in
                var child = heap.count - 1
                while child > 0 {
                    let parent = (child - 1) / 4
                    guard exit.seconds < heap[parent].seconds else { break }
                    heap[child] = heap[parent]
                    child = parent
                }
                heap[child] = exit
            }
        }

        mutating func popSoonest() -> Exit? {
            guard let last = heap.popLast() else { return nil }
            guard let first = heap.first else { return last }
            replaceSoonest(with: last)
            return first
        }

        /// Puts `exit` in place of the soonest one.
        mutating func replaceSoonest(with exit: Exit) {
            siftDown(exit, from: 0)
        }

        /// Puts `exit` at `index` and moves it down to where it belongs below.
        private mutating func siftDown(_ exit: Exit, from index: Int) {
            precondition(index < heap.count, "a sift starts at an exit of the heap")
            heap.withUnsafeMutableBufferPointer { heap in
                let count = heap.count
                var parent = index
                while true {
                    let first = 4 * parent + 1
                    var soonest = first
                    if first + 3 < count {
                        // All four children: the soonest by selects, not branches.
                        var seconds = heap[first].seconds
                        for child in (first + 1)...(first + 3) {
                            let sooner = heap[child].seconds < seconds
                            soonest = sooner ? child : soonest
                            seconds = sooner ? heap[child].seconds : seconds
                        }
                    } else {
                        guard first < count else { break }
                        for child in first..<count where heap[child].seconds < heap[soonest].seconds { soonest = child }
                    }
                    guard heap[soonest].seconds < exit.seconds else { break }
                    heap[parent] = heap[soonest]
                    parent = soonest
                }
                heap[parent] = exit
            }
        }
    }

    /// The simulation between two parties of the queue: the clock (the last entry), the free
    /// places and the pending exits. Its size is bounded by the places (every pending exit
    /// holds at least one), not by the queue: a party joining the back of the queue is
    /// simulated from it in O(log places), without going through the queue again.
    public struct Simulation: Sendable {
        var exits = Exits()
        /// Bookings' holds to come, soonest first, and how many of them have begun.
        var holds: [FutureHold] = []
        var holdsBegun = 0
        var free: Int
        /// When the last party was given its places (parties are given places in order; one
        /// still travelling enters later, at its arrival).
        var clock: Date
        /// A party larger than the places was met: nobody after it can enter.
        var blocked = false
        /// People still to be given places whose visit starts a place's run of visits: their
        /// holds are shortened by `VisitModel.renewalLead` (see there). One per place.
        /// (This and the next are 32-bit and sit beside `blocked`, in what would otherwise be
        /// its padding: every store keeps four simulations in its standing.)
        var chainStarts: Int32
        /// The share of a party never to scan out (`VisitModel.unscannedRate`) added up over
        /// the parties given places: whenever it reaches one, that party holds its places until
        /// its visit is closed. Starts at one half, so the count is rounded, not truncated.
        var unscannedShare: Float = 0.5
        let model: VisitModel
        let grace: TimeInterval
        let places: Int

        /// The state before the first party of `traffic.queue`: its people inside and places
        /// held, at `now`.
        init(estimator: WaitEstimator, traffic: StoreTraffic, now: Date) {
            free = estimator.capacity
            places = estimator.capacity
            chainStarts = Int32(clamping: estimator.capacity)
            clock = now
            model = estimator.model
            grace = estimator.grace
            var occupying: [Exit] = []
            occupying.reserveCapacity(traffic.inside.count + traffic.bookingsDue.count)
            for occupant in [traffic.inside, traffic.bookingsDue].joined() {
                occupying.append(Exit(time: max(now, occupant.expectedExit), people: occupant.people))
                free -= occupant.people
            }
            exits = Exits(consume occupying)
            holds = traffic.futureHolds.sorted { ($0.start, $0.end) < ($1.start, $1.end) }
            beginHolds(through: now)
        }

        /// The next hold to begin, if any.
        private var nextHold: FutureHold? { holdsBegun < holds.count ? holds[holdsBegun] : nil }

        /// Begins the holds that start by `time`: their places are taken until they end.
        mutating func beginHolds(through time: Date) {
            while let hold = nextHold, hold.start <= time {
                free -= hold.people
                exits.insert(Exit(time: max(hold.end, hold.start), people: hold.people))
                holdsBegun += 1
            }
        }

        /// The state just after a party was given its places at `clock`, from this state (the
        /// one before the first party) and the parties given places so far, each entering at
        /// `entry` and staying `stay`: the same as simulating them one by one, without the
        /// heap. Exits at or before `clock` are as good as free places — a party needing a
        /// place takes it at `clock` either way — so only later ones are kept, and they hold
        /// the places taken.
        public func resumed(at clock: Date, after entered: [(entry: Date, party: QueuedParty)]) -> Simulation {
            var resumed = self
            resumed.clock = clock
            resumed.free = places
            var begun = holdsBegun  // holds are sorted by start: find the first beginning after `clock`
            var end = holds.count
            while begun < end {
                let middle = (begun + end) / 2
                if holds[middle].start <= clock { begun = middle + 1 } else { end = middle }
            }
            resumed.holdsBegun = begun
            var stillInside = exits.all
            for (entry, party) in entered {
                stillInside.append(Exit(time: resumed.exit(entry: entry, party: party), people: party.people))
            }
            stillInside += holds[holdsBegun..<max(holdsBegun, begun)].lazy.map {
                Exit(time: max($0.end, $0.start), people: $0.people)
            }
            stillInside.removeAll { $0.seconds <= clock.timeIntervalSinceReferenceDate }
            for exit in stillInside { resumed.free -= exit.people }
            resumed.exits = Exits(consume stillInside)
            return resumed
        }

        /// When a party given its places at `clock` is expected at the door: the store's
        /// usual time from call to door, or its arrival if it is still on the way.
        func entry(of party: QueuedParty) -> Date {
            Self.entry(of: party, placedAt: clock, model: model)
        }

        static func entry(of party: QueuedParty, placedAt clock: Date, model: VisitModel) -> Date {
            max(clock + model.callToDoor, party.arrival)
        }

        /// When a party entering at `entry` frees its places, at its expected occupancy: after
        /// its stay, or, for the party that makes up the next whole one never to scan out,
        /// when its visit is closed.
        mutating func exit(entry: Date, party: QueuedParty) -> Date {
            unscannedShare += Float(model.unscannedRate)
            let unscanned = unscannedShare >= 1 - 1e-5  // sums of tenths may fall just short of one
            if unscanned { unscannedShare -= 1 }
            let stay = model.stay(party.residence)
            var hold = model.expectedHold(stay: stay, grace: grace, unscanned: unscanned)
            if chainStarts > 0 {
                chainStarts -= Int32(clamping: party.people)
                hold -= model.renewalLead(stay: stay)
            }
            return entry + hold
        }

        /// Lets the next party in line enter: returns when, or nil if it never could. Its
        /// places are taken at `clock` (from then on they are its, as it travels) and freed a
        /// stay after it enters.
        public mutating func enter(_ party: QueuedParty) -> Date? {
            guard !blocked else { return nil }
            // The usual step: no place free, and the soonest exit frees exactly enough, before
            // any booking's hold begins.
            if free == 0, let soonest = exits.soonest, soonest.people == party.people,
               nextHold.map({ $0.start > soonest.time }) ?? true {
                clock = max(clock, soonest.time)
                let entry = entry(of: party)
                let leaves = exit(entry: entry, party: party)
                exits.replaceSoonest(with: Exit(time: leaves, people: party.people))
                return entry
            }
            while free < party.people {
                // A hold beginning before the next exit takes its places first.
                if let hold = nextHold, hold.start <= (exits.soonest?.time ?? .distantFuture) {
                    beginHolds(through: hold.start)
                    continue
                }
                guard let exit = exits.popSoonest() else { break }
                clock = max(clock, exit.time)
                free += exit.people
            }
            guard free >= party.people else {
                blocked = true
                return nil
            }
            free -= party.people
            let entry = entry(of: party)
            let leaves = exit(entry: entry, party: party)
            exits.insert(Exit(time: leaves, people: party.people))
            return entry
        }
    }

    /// The expected entry time of every party in `traffic.queue` followed by `newcomers`,
    /// in order; nil from the first party that can never enter (larger than the capacity).
    public func entryTimes(traffic: StoreTraffic, appending newcomers: [QueuedParty] = [], now: Date) -> [Date?] {
        var simulation = Simulation(estimator: self, traffic: traffic, now: now)
        var result: [Date?] = []
        result.reserveCapacity(traffic.queue.count + newcomers.count)
        for party in traffic.queue { result.append(simulation.enter(party)) }
        for party in newcomers { result.append(simulation.enter(party)) }
        return result
    }

    /// How long a new party of `people` joining the back of the queue would wait, to the second
    /// (date arithmetic leaves sub-microsecond residue); nil if it could never enter.
    /// `travel`: how long the party needs to reach the store from now.
    public func waitForNewParty(
        people: Int, residence: TimeInterval = 30 * 60, travel: TimeInterval = 0, traffic: StoreTraffic, now: Date
    ) -> TimeInterval? {
        let newcomer = Self.newcomer(people: people, residence: residence, travel: travel, now: now)
        guard let entry = entryTimes(traffic: traffic, appending: [newcomer], now: now).last ?? nil else { return nil }
        return entry.timeIntervalSince(now).rounded()
    }

    /// The wait of a new party given its places at `now`, as `waitForNewParty` finds it when
    /// enough places are free for everyone queued and for it (`LiveTraffic.placesFreeNow`).
    public func waitGivenPlacesNow(people: Int, residence: TimeInterval, travel: TimeInterval, now: Date) -> TimeInterval {
        let newcomer = Self.newcomer(people: people, residence: residence, travel: travel, now: now)
        return Simulation.entry(of: newcomer, placedAt: now, model: model).timeIntervalSince(now).rounded()
    }

    /// A party joining the queue at `now`, `travel` away (0: at hand).
    private static func newcomer(people: Int, residence: TimeInterval, travel: TimeInterval, now: Date) -> QueuedParty {
        QueuedParty(people: people, residence: residence, arrival: travel > 0 ? now + travel : nil)
    }
}
