import CLupDomain
import CLupSupport
import Foundation
import GRDB

/// A place in a store's queue (a line-up ticket, online or from the kiosk) or a booked slot
/// (R13–R16). One row from the moment it is made to its end (done, cancelled or expired), so
/// history and statistics read the same table.
public struct Reservation: Codable, Sendable, Hashable, Identifiable, FetchableRecord, PersistableRecord {
    public typealias Kind = ReservationKind
    public typealias Status = ReservationStatus

    public typealias ID = ReservationID

    public var id: ReservationID
    public var storeId: StoreID
    /// Nil for a walk-in, and once the customer deletes their account (the visit stays, anonymous).
    public var userId: UserID?
    public var kind: Kind
    public var walkIn: Bool
    /// The store-local day `number` belongs to: the day a ticket is taken, or a booking's slot day.
    public var day: Int
    /// The ticket number, unique per store and day.
    public var number: Int
    public var people: Int
    public var residenceMinutes: Int
    /// How a line-up customer said they will travel (for "time to leave" notices).
    public var travelMode: TravelMode?
    public var slotStart: Date?
    public var status: Status
    public var createdAt: Date
    public var calledAt: Date?
    public var enteredAt: Date?
    public var exitedAt: Date?
    /// When it was cancelled or expired.
    public var endedAt: Date?
    /// The confirming form's one-time key: a form sent twice makes one reservation.
    public var requestKey: String?
    /// How far from the store the customer was when they lined up.
    public var travelMetres: Int?
    /// When the customer was told to leave for the store.
    public var leftAt: Date?
    /// When a booking's reminder went out, and when the customer confirmed it.
    public var remindedAt: Date?
    public var confirmedAt: Date?
    /// A priority ticket (`PriorityLane`), and the ticket it was placed before when issued (nil:
    /// in its own place, by id).
    public var priority = false
    public var queuePosition: ReservationID? = nil

    public enum Columns {
        static let id = Column(CodingKeys.id)
        static let storeId = Column(CodingKeys.storeId)
        static let userId = Column(CodingKeys.userId)
        static let status = Column(CodingKeys.status)
        static let slotStart = Column(CodingKeys.slotStart)
        static let day = Column(CodingKeys.day)
        static let number = Column(CodingKeys.number)
        static let walkIn = Column(CodingKeys.walkIn)
        static let requestKey = Column(CodingKeys.requestKey)
    }

    public static let databaseTableName = "reservation"
    static let store = belongsTo(Store.self)

    public var residence: TimeInterval { Double(residenceMinutes) * 60 }

    /// How long the customer needs to reach the store: 0 for a walk-in or a booking, and for
    /// a line-up made without a known distance.
    public var travel: TimeInterval {
        guard kind == .lineUp, !walkIn, let travelMode, let travelMetres else { return 0 }
        return TravelMode.travel(mode: travelMode, metres: travelMetres)
    }

    /// When a called ticket must be scanned by, at `store`.
    public func callDeadline(at store: Store) -> Date? {
        calledAt.map { $0 + Double(store.callGraceMinutes) * 60 }
    }

    /// The share of the capacity the ticket draws on.
    public var pool: Pool { walkIn ? .walkIn : .online }

    /// What the entrance rules look at.
    public var doorTicket: DoorTicket {
        DoorTicket(storeId: storeId, status: status, people: people, calledAt: calledAt, slotStart: slotStart,
                   createdAt: createdAt, enteredAt: enteredAt)
    }
}

/// A reservation about to be made: everything but the id, which the database gives it.
struct NewReservation: Codable, Sendable, PersistableRecord {
    var storeId: StoreID
    var userId: UserID?
    var kind: ReservationKind
    var walkIn: Bool
    var day: Int
    var number: Int
    var people: Int
    var residenceMinutes: Int
    var travelMode: TravelMode?
    var slotStart: Date?
    var status: ReservationStatus
    var createdAt: Date
    var requestKey: String?
    var travelMetres: Int?
    /// A line-up's expected entry when it was made: measured against its real entry, it
    /// calibrates the ranges shown (`VisitModel.entryError`).
    var expectedEntry: Date? = nil
    /// The customer's own pace (`CustomerPace`), when they have visited the store before.
    var pace: Double? = nil
    /// A priority ticket, and where it was placed (`Reservation.queuePosition`).
    var priority = false
    var queuePosition: ReservationID? = nil
    /// A booking confirmed, and reminded of, as it is made (`Reservation.confirmedAt`).
    var confirmedAt: Date? = nil
    var remindedAt: Date? = nil

    static let databaseTableName = Reservation.databaseTableName
}

/// A reservation with its store, for pages that show both.
public struct ReservationWithStore: Decodable, Sendable, FetchableRecord {
    public var reservation: Reservation
    public var store: Store

    /// The booked slot, for a booking.
    public var slot: Slot? {
        reservation.slotStart.map { Slot(start: $0, end: $0 + Double(store.slotMinutes) * 60) }
    }
}

/// A store's learned sums (`LearnedSums`): visit lengths, calls and entry errors, kept as
/// visits happen (`VisitAccounting`), so the visit model costs one row to read however long
/// the history.
public struct StoreLoad: Codable, Sendable, FetchableRecord, TableRecord {
    public var storeId: StoreID
    public var measuredVisits: Int
    public var declaredSeconds: Double
    public var actualSeconds: Double
    public var loggedVisits: Int
    public var logRatioSum: Double
    public var logRatioSquares: Double
    public var calls: Int
    public var noShows: Int
    public var callToDoorSeconds: Double
    public var atHandEntries: Int
    /// Entered line-ups measured, each counting 1 % less than the next (see v15).
    public var entries: Double
    public var entryErrorSum: Double
    public var entryErrorSquares: Double
    /// Visits closed by the queue timer, never scanned out (v16), and `measuredVisits` when
    /// they began to be counted.
    public var unscannedVisits: Int
    public var visitsBeforeUnscanned: Int

    public static let databaseTableName = "storeLoad"

    public var ratio: ResidenceRatio {
        ResidenceRatio(visits: measuredVisits, declaredSeconds: declaredSeconds, actualSeconds: actualSeconds)
    }

    /// The store's visit model, rounded (ratio and spread to 0.01, no-show and unscanned rates to 0.005, time
    /// to the door to 5 s): every visit changes the sums a little, and only a change that
    /// moves the estimate makes the board compute a store's standing again.
    public var model: VisitModel {
        var model = VisitModel(visits: measuredVisits, declaredSeconds: declaredSeconds, actualSeconds: actualSeconds,
                               loggedVisits: loggedVisits, logRatioSum: logRatioSum, logRatioSquares: logRatioSquares, calls: calls,
                               noShows: noShows, atHandEntries: atHandEntries, callToDoorSeconds: callToDoorSeconds,
                               unscannedVisits: unscannedVisits, countedVisits: max(0, measuredVisits - visitsBeforeUnscanned))
        if entries >= Double(VisitModel.minimumSamples) {
            let mean = entryErrorSum / entries
            let spread = max(0, entryErrorSquares / entries - mean * mean).squareRoot()
            model.entryError = VisitModel.EntryError(bias: (mean * 100).rounded() / 100,
                                                     spread: (min(5, spread) * 100).rounded() / 100)
        }
        model.ratio = (model.ratio * 100).rounded() / 100
        if model.ratioWeight > 0 {  // to two significant digits
            let unit = pow(10, log10(model.ratioWeight).rounded(.down) - 1)
            model.ratioWeight = (model.ratioWeight / unit).rounded() * unit
        }
        model.spread = (model.spread * 100).rounded() / 100
        model.noShowRate = (model.noShowRate * 200).rounded() / 200
        model.unscannedRate = (model.unscannedRate * 200).rounded() / 200
        model.callToDoor = (model.callToDoor / 5).rounded() * 5
        model.meanVisit = (model.meanVisit / 10).rounded() * 10
        return model
    }
}

/// What became of a change of a line-up's travel (`AppDatabase.changeTravelMode`,
/// `changeTravelDistance`).
public enum TravelChangeOutcome: Sendable, Equatable {
    case changed
    /// Not the customer's, not a line-up, or past what may change (a distance only while it
    /// waits and has one; a way of travelling while it waits or is called).
    case notChangeable
    case refused(TravelChange.Refusal)

    /// The outcome for `reservation` asked by `userId` to travel by `mode` or from `metres`
    /// away, and the reservation as it is to be written when it changes. Both engines decide
    /// with this, under their lock.
    static func decide(_ reservation: Reservation, userId: UserID, mode: TravelMode?, metres: Int?)
        -> (TravelChangeOutcome, Reservation?)
    {
        guard reservation.userId == userId, reservation.kind == .lineUp else { return (.notChangeable, nil) }
        var changed = reservation
        if let mode {
            guard [.waiting, .called].contains(reservation.status) else { return (.notChangeable, nil) }
            changed.travelMode = mode
        }
        if let metres {
            guard reservation.status == .waiting, reservation.travelMetres != nil else { return (.notChangeable, nil) }
            changed.travelMetres = metres
        }
        // Once called, the travel moves nothing: the call's grace period runs.
        if reservation.status == .waiting,
           let refusal = TravelChange.refusal(current: reservation.travel, new: changed.travel, leftAt: reservation.leftAt)
        {
            return (.refused(refusal), nil)
        }
        return (.changed, changed)
    }
}
