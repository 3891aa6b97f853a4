import Foundation

/// Decides, at one store and one instant, which queued tickets are called to the entrance,
/// which calls have lapsed and which of yesterday's tickets are over (SPEC 9).
///
/// Each pool (walk-in and online) is called against its own share of the capacity. A pool's
/// free places are its share less the people of that pool inside, the called tickets on their
/// way and the bookings due soon (`StoreTraffic` holds their places), so bookings keep their
/// room. The queue is called strictly in order: a party of two at the head is not overtaken
/// by a party of one behind it, so it cannot be starved.
public enum QueueCaller {
    public struct Plan: Sendable, Equatable {
        /// Waiting tickets to call now.
        public var call: [Int64] = []
        /// Called tickets not scanned within the grace period, and tickets of a past day still
        /// waiting.
        public var expire: [Int64] = []
        /// Visits of a past day never scanned out: closed without an exit time.
        public var close: [Int64] = []

        public init(call: [Int64] = [], expire: [Int64] = [], close: [Int64] = []) {
            self.call = call
            self.expire = expire
            self.close = close
        }
    }

    /// The plan for `live` (the store's live reservations, in queue order). Nobody is called
    /// while the store is closed; `today` is the store-local day number.
    public static func plan(live: [LiveReservation], settings: StoreSettings, ratio: Double, today: Int, isOpen: Bool,
                            now: Date) -> Plan
    {
        var plan = Plan()
        let grace = Double(settings.callGraceMinutes) * 60
        var remaining: [LiveReservation] = []
        for reservation in live {
            switch reservation.state {
            case .called(let at) where now > at + grace:
                plan.expire.append(reservation.id)
            case .waiting where reservation.day < today:
                plan.expire.append(reservation.id)
            case .inside where reservation.day < today:
                plan.close.append(reservation.id)
            default:
                remaining.append(reservation)
            }
        }
        guard isOpen else { return plan }
        for pool in Pool.allCases {
            let members = remaining.filter { $0.pool == pool }
            let traffic = StoreTraffic(live: members, settings: settings, ratio: ratio, now: now)
            var free = pool.places(settings) - traffic.peopleInside - traffic.bookingsDue.reduce(0) { $0 + $1.people }
            for reservation in members where reservation.state == .waiting {
                guard reservation.people <= free else { break }
                plan.call.append(reservation.id)
                free -= reservation.people
            }
        }
        return plan
    }
}
