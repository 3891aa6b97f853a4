import Foundation

/// Decides, at one store and one instant, which queued tickets are called to the entrance,
/// which calls have lapsed and which of yesterday's tickets are over (SPEC 9).
///
/// Each pool (walk-in and online) is called against its own share of the capacity. A pool's
/// free places are its share less the people of that pool inside, the called tickets on their
/// way and the bookings due soon (`StoreTraffic` holds their places), so bookings keep their
/// room. The queue is given places strictly in order: a party of two at the head is not
/// overtaken by a party of one behind it, so it cannot be starved. A customer who has to
/// travel keeps the places given to them while on the way (`Departure`): they are told to
/// leave, and called when they are about to arrive.
public enum QueueCaller {
    public struct Plan: Sendable, Equatable {
        /// Waiting tickets to call now.
        public var call: [ReservationID] = []
        /// Waiting tickets with places free for them whose customers have not been told to
        /// leave yet: tell them now (their places are held).
        public var sendOff: [ReservationID] = []
        /// Called tickets not scanned within the grace period, and tickets of a past day still
        /// waiting.
        public var expire: [ReservationID] = []
        /// Visits never scanned out — of a past day, or open past the store's
        /// `VisitModel.ghostAfter` — closed without an exit time, so their places go to the queue.
        public var close: [ReservationID] = []

        public init(call: [ReservationID] = [], sendOff: [ReservationID] = [], expire: [ReservationID] = [], close: [ReservationID] = []) {
            self.call = call
            self.sendOff = sendOff
            self.expire = expire
            self.close = close
        }
    }

    /// The plan for `live` (the store's live reservations, in queue order). Nobody is called
    /// while the store is closed; `today` is the store-local day number; `model` says how
    /// long visits really last, for closing those that forgot to scan out. Two passes over
    /// `live` and no copies of it: the timer asks every store with a queue, and the scan of an
    /// exit asks inside its transaction.
    public static func plan(live: [LiveReservation], settings: StoreSettings, today: Int, isOpen: Bool, now: Date,
                            model: VisitModel = .standard) -> Plan
    {
        var plan = Plan()
        let grace = Double(settings.callGraceMinutes) * 60
        // Places each pool holds: its people inside, its called tickets on their way and its
        // bookings due (as `StoreTraffic` counts them).
        var heldOnline = 0
        var heldWalkIn = 0
        for reservation in live {
            var holds = false
            switch reservation.state {
            case .called(let at) where now > at + grace:
                plan.expire.append(reservation.id)
            case .waiting where reservation.day < today:
                plan.expire.append(reservation.id)
            case .inside where reservation.day < today:
                plan.close.append(reservation.id)
            case .inside(let since)
                where now.timeIntervalSince(since) > model.ghostAfter(expected: model.stay(reservation.residence)):
                plan.close.append(reservation.id)
            case .waiting:
                break
            case .called, .inside:
                holds = true
            case .booked(let slotStart):
                holds = StoreTraffic.bookingHolds(slotStart: slotStart, settings: settings, now: now)
            }
            if holds {
                if reservation.walkIn { heldWalkIn += reservation.people } else { heldOnline += reservation.people }
            }
        }
        guard isOpen else { return plan }
        // Each pool's queue is called in order until a party does not fit.
        var freeOnline = Pool.online.places(settings) - heldOnline
        var freeWalkIn = Pool.walkIn.places(settings) - heldWalkIn
        var onlineStopped = false
        var walkInStopped = false
        for reservation in live where reservation.isWaiting && reservation.day >= today {
            if onlineStopped && walkInStopped { break }
            if reservation.walkIn {
                guard !walkInStopped else { continue }
                guard reservation.people <= freeWalkIn else { walkInStopped = true; continue }
                freeWalkIn -= reservation.people
            } else {
                guard !onlineStopped else { continue }
                guard reservation.people <= freeOnline else { onlineStopped = true; continue }
                freeOnline -= reservation.people
            }
            if reservation.travel <= 0 {
                plan.call.append(reservation.id)
            } else if let leftAt = reservation.leftAt {
                if Departure.mayCall(leftAt: leftAt, travel: reservation.travel, now: now) {
                    plan.call.append(reservation.id)
                }
            } else {
                plan.sendOff.append(reservation.id)
            }
        }
        return plan
    }
}
