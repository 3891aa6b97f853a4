import Foundation

/// How a reservation was made: a place in a store's queue, or a booked slot (R13–R16).
public enum ReservationKind: String, Codable, Sendable, CaseIterable {
    case lineUp
    case booking
}

/// Where a reservation is in its life, from made to ended.
public enum ReservationStatus: String, Codable, Sendable, CaseIterable {
    /// In the queue (line-up).
    case waiting
    /// Called to enter (line-up).
    case called
    /// A slot booked and not yet used.
    case booked
    /// Scanned in and not yet out.
    case inside
    /// Scanned out: the visit is over.
    case done
    case cancelled
    /// Not used in time: a call not answered, a slot missed.
    case expired

    /// Statuses that make a reservation the customer's active one (R13).
    public static let active: [ReservationStatus] = [.waiting, .called, .booked, .inside]

    public var isActive: Bool { Self.active.contains(self) }

    /// Not yet used: the customer may still cancel (once inside, only scanning out ends it).
    public static let cancellable: [ReservationStatus] = [.waiting, .called, .booked]

    public var isCancellable: Bool { Self.cancellable.contains(self) }
}


/// A ticket as the entrance sees it when its code is scanned.
public struct DoorTicket: Sendable, Hashable {
    public var storeId: StoreID
    public var status: ReservationStatus
    public var people: Int
    public var calledAt: Date?
    public var slotStart: Date?
    /// A walk-in ticket a kiosk printed while CLup could not be reached (from the block of
    /// numbers it had reserved): nobody could call it, so the door lets it in when there is
    /// room, as if called at the moment it is scanned.
    public var printedOffline: Bool
    /// When the ticket was issued and, if it is inside, when it entered: a scan dated before
    /// either cannot be true.
    public var createdAt: Date?
    public var enteredAt: Date?

    public init(storeId: StoreID, status: ReservationStatus, people: Int, calledAt: Date? = nil, slotStart: Date? = nil,
                printedOffline: Bool = false, createdAt: Date? = nil, enteredAt: Date? = nil)
    {
        self.storeId = storeId
        self.status = status
        self.people = people
        self.calledAt = calledAt
        self.slotStart = slotStart
        self.printedOffline = printedOffline
        self.createdAt = createdAt
        self.enteredAt = enteredAt
    }
}
