import Foundation

/// Why a scanned code does not open the door. Each has a stable `code` for the device API.
public enum ScanRefusal: Sendable, Equatable {
    /// Not a CLup code, signed with another secret, or naming no reservation.
    case unknownCode
    /// A real ticket, for another store.
    case otherStore(storeId: StoreID)
    case cancelled
    /// Called and not scanned in time, or a booking whose window passed unused.
    case expired
    /// A line-up ticket still waiting for its turn.
    case notYetCalled
    /// A booking before its entry window opens at `opens`.
    case tooEarly(opens: Date)
    /// A booking after its entry window closed at `closed`.
    case tooLate(closed: Date)
    /// The visit is over: the ticket was scanned in and out.
    case alreadyUsed
    /// Admitting the party would put more people inside than the capacity.
    case full(inside: Int, capacity: Int)
    /// There is room inside, but the store's other doors hold it for while they may be offline
    /// (`held` places: their leases); they give it back within seconds if they are online.
    case placesHeld(held: Int)
    /// Dated when it cannot have happened: before the ticket was issued or called, or an exit
    /// before its entry (a kiosk's clock far off, or a scan replayed with a false time).
    case impossibleTime
    /// Done at the door while CLup could not be reached, and sent more than a day later: too
    /// old to apply. Never a verdict of the rules: CLup's answer to a kiosk catching up.
    case sentTooLate
    /// Done at the door while CLup could not be reached, and dated more than a minute ahead
    /// of CLup's clock. Never a verdict of the rules, as `sentTooLate`.
    case datedAhead

    public var code: String {
        switch self {
        case .unknownCode: "unknownCode"
        case .otherStore: "otherStore"
        case .cancelled: "cancelled"
        case .expired: "expired"
        case .notYetCalled: "notYetCalled"
        case .tooEarly: "tooEarly"
        case .tooLate: "tooLate"
        case .alreadyUsed: "alreadyUsed"
        case .full: "full"
        case .placesHeld: "placesHeld"
        case .impossibleTime: "impossibleTime"
        case .sentTooLate: "scanTooOld"
        case .datedAhead: "clockAhead"
        }
    }
}

/// What a scan at a store's entrance means.
public enum ScanVerdict: Sendable, Equatable {
    case enter
    case exit
    case refused(ScanRefusal)
}

/// The entrance rules (SPEC 7, R8, R9): a valid ticket of this store is an exit when its
/// holder is inside, an entry when it is admissible — a called line-up ticket within its
/// grace period, a walk-in ticket printed while CLup could not be reached, or a booking within
/// its entry window — and there is room inside; anything else is refused with the reason.
public enum Entrance {
    /// The verdict for `reservation` (nil: the code named none) scanned at store `storeId`,
    /// whose rules are `settings`, with `peopleInside` people inside and `heldElsewhere`
    /// places held by the store's other doors for letting people in while offline.
    public static func verdict(for reservation: DoorTicket?, at storeId: StoreID, settings: StoreSettings,
                               peopleInside: Int, heldElsewhere: Int = 0, now: Date) -> ScanVerdict
    {
        guard let reservation else { return .refused(.unknownCode) }
        guard reservation.storeId == storeId else { return .refused(.otherStore(storeId: reservation.storeId)) }
        // `now` is when the scan happened, as its kiosk dated it: never before the ticket's
        // own history.
        if let createdAt = reservation.createdAt, now < createdAt { return .refused(.impossibleTime) }
        switch reservation.status {
        case .inside:
            if let enteredAt = reservation.enteredAt, now < enteredAt { return .refused(.impossibleTime) }
            return .exit
        case .done: return .refused(.alreadyUsed)
        case .cancelled: return .refused(.cancelled)
        case .expired: return .refused(.expired)
        case .waiting where !reservation.printedOffline: return .refused(.notYetCalled)
        case .waiting:
            break  // printed offline: as if called now
        case .called:
            if let calledAt = reservation.calledAt, now < calledAt { return .refused(.impossibleTime) }
            let deadline = (reservation.calledAt ?? now) + Double(settings.callGraceMinutes) * 60
            guard now <= deadline else { return .refused(.expired) }
        case .booked:
            let window = settings.entryWindow(slotStart: reservation.slotStart ?? now)
            if now < window.lowerBound { return .refused(.tooEarly(opens: window.lowerBound)) }
            if now > window.upperBound { return .refused(.tooLate(closed: window.upperBound)) }
        }
        guard peopleInside + reservation.people <= settings.capacity else {
            return .refused(.full(inside: peopleInside, capacity: settings.capacity))
        }
        guard peopleInside + reservation.people + heldElsewhere <= settings.capacity else {
            return .refused(.placesHeld(held: heldElsewhere))
        }
        return .enter
    }
}
