import Foundation

/// A store's live state worked out once for an instant: its status for shoppers, and for each
/// pool the standing of every waiting ticket and the wait a newcomer would have. One
/// simulation per pool gives them all, since the parties behind a ticket cannot delay it:
/// a ticket's entry in the whole queue's simulation is the entry `QueueStanding.of` finds.
public struct StoreStanding: Sendable, Equatable {
    public struct PoolStanding: Sendable, Equatable {
        /// Waiting tickets in queue order, with people ahead and expected entry (nil: never).
        public var waiting: [(id: Int64, peopleAhead: Int, entry: Date?)]
        /// Parties and people waiting.
        public var parties: Int
        public var people: Int
        /// Wait for a new party of one with the typical visit; nil if it could never enter.
        public var newcomerWait: TimeInterval?

        public static func == (lhs: PoolStanding, rhs: PoolStanding) -> Bool {
            lhs.parties == rhs.parties && lhs.people == rhs.people && lhs.newcomerWait == rhs.newcomerWait
                && lhs.waiting.elementsEqual(rhs.waiting) { $0.id == $1.id && $0.peopleAhead == $1.peopleAhead
                    && $0.entry == $1.entry }
        }
    }

    public var at: Date
    public var status: StoreStatus
    public var online: PoolStanding
    public var walkIn: PoolStanding
    private var positions: [Int64: (pool: Pool, index: Int)]

    public init(live: LiveTraffic, settings: StoreSettings, hours: OpeningHours, now: Date) {
        at = now
        status = StoreStatus(settings: settings, hours: hours, live: live, now: now)
        func standing(_ pool: Pool) -> PoolStanding {
            let traffic = live.traffic(settings: settings, now: now, pool: pool)
            let estimator = live.estimator(settings: settings, pool: pool)
            let newcomer = QueuedParty(people: 1, residence: StoreStatus.typicalVisit)
            let entries = estimator.entryTimes(traffic: traffic, appending: [newcomer], now: now)
            let ids = live.live.lazy.filter { $0.pool == pool && $0.state == .waiting }.map(\.id)
            var waiting: [(id: Int64, peopleAhead: Int, entry: Date?)] = []
            waiting.reserveCapacity(traffic.queue.count)
            var ahead = 0
            for (index, id) in ids.enumerated() {
                waiting.append((id, ahead, entries[index]))
                ahead += traffic.queue[index].people
            }
            let newcomerWait = (entries.last ?? nil).map { $0.timeIntervalSince(now).rounded() }
            return PoolStanding(waiting: waiting, parties: waiting.count, people: ahead,
                                newcomerWait: pool.places(settings) > 0 ? newcomerWait : nil)
        }
        online = standing(.online)
        walkIn = standing(.walkIn)
        var positions: [Int64: (pool: Pool, index: Int)] = [:]
        for (index, ticket) in online.waiting.enumerated() { positions[ticket.id] = (.online, index) }
        for (index, ticket) in walkIn.waiting.enumerated() { positions[ticket.id] = (.walkIn, index) }
        self.positions = positions
    }

    /// Whether a new party of one with the typical visit may join `pool`'s queue: the line-up
    /// rule (open, wait within 2 hours, done by closing) on the newcomer's wait.
    public func newcomerDecision(_ pool: Pool) -> LineUpPolicy.Decision {
        let wait = (pool == .online ? online : walkIn).newcomerWait
        return LineUpPolicy.decide(wait: wait, residence: StoreStatus.typicalVisit, openState: status.openState, now: at)
    }

    /// Where waiting ticket `id` stands, or nil if it is not waiting.
    public func standing(of id: Int64) -> QueueStanding? {
        guard let position = positions[id] else { return nil }
        let ticket = (position.pool == .online ? online : walkIn).waiting[position.index]
        return QueueStanding(partiesAhead: position.index, peopleAhead: ticket.peopleAhead, entry: ticket.entry)
    }

    public static func == (lhs: StoreStanding, rhs: StoreStanding) -> Bool {
        lhs.at == rhs.at && lhs.status == rhs.status && lhs.online == rhs.online && lhs.walkIn == rhs.walkIn
    }
}
