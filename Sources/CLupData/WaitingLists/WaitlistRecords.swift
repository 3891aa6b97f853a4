import CLupDomain
import Foundation
import GRDB

/// A customer's place on a full slot's waiting list (`WaitingList`), from joining to its end.
public struct WaitlistEntry: Codable, Sendable, Hashable, Identifiable, FetchableRecord {
    public var id: Int64
    public var storeId: StoreID
    public var userId: UserID
    public var slotStart: Date
    public var people: Int
    public var residenceMinutes: Int
    public var status: WaitingList.Status
    public var createdAt: Date
    public var offeredAt: Date?
    /// Until when a place is held for them, while offered.
    public var offerExpiresAt: Date?
    public var endedAt: Date?
    /// The booking made when they accepted.
    public var reservationId: ReservationID?
    /// The joining form's one-time key: a form sent twice joins once.
    public var requestKey: String

    static let columns = """
        id, storeId, userId, slotStart, people, residenceMinutes, status, createdAt, offeredAt, offerExpiresAt, endedAt,
        reservationId, requestKey
        """

    public var residence: TimeInterval { Double(residenceMinutes) * 60 }

    /// The entry as the offering rule sees it.
    var rule: WaitingList.Entry { WaitingList.Entry(id: id, people: people, status: status) }
}

/// A waiting-list entry with its store, and how many parties are before it on the list.
public struct WaitlistPlace: Sendable {
    public var entry: WaitlistEntry
    public var store: Store
    /// Parties still waiting ahead of it (offered ones hold a place already, so are not counted).
    public var ahead: Int

    public init(entry: WaitlistEntry, store: Store, ahead: Int) {
        self.entry = entry
        self.store = store
        self.ahead = ahead
    }
}

/// A customer asking to join a full slot's waiting list.
public struct WaitlistRequest: Sendable {
    public var storeId: StoreID
    public var userId: UserID
    public var slotStart: Date
    public var people: Int
    public var residenceMinutes: Int
    public var requestKey: String

    public init(storeId: StoreID, userId: UserID, slotStart: Date, people: Int, residenceMinutes: Int,
                requestKey: String)
    {
        self.storeId = storeId
        self.userId = userId
        self.slotStart = slotStart
        self.people = people
        self.residenceMinutes = residenceMinutes
        self.requestKey = requestKey
    }
}

/// What became of a request to join a waiting list. Only `.joined` changed anything.
public enum WaitlistJoinOutcome: Sendable {
    case joined(WaitlistEntry)
    /// The same form was sent again: the entry it made.
    case alreadyJoined(WaitlistEntry)
    /// The customer is on a list already (one at a time): that entry.
    case onAnotherList(WaitlistEntry)
    case refused(WaitingList.Refusal)
    case slotRefused(SlotCalendar.Verdict)
    case noSuchStore
}

/// What the customer's answer to an offer did.
public enum OfferReply: Sendable {
    /// The place is theirs: the booking.
    case booked(Reservation)
    /// They hold another active reservation and did not say to replace it.
    case hasActive(ReservationWithStore)
    /// Not an open offer (not made yet, lapsed, or answered).
    case notOffered(WaitingList.Status)
    case notFound
}

/// Something a waiting-list customer is told.
public struct WaitlistNotice: Codable, Sendable, Identifiable, FetchableRecord {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// A place is held for them until the offer's deadline.
        case offer
        /// The offer lapsed unanswered (or was declined) and went to the next.
        case passed
        /// The slot came without a place for them.
        case closed

        /// The entry status in which the notice still applies.
        var appliesTo: WaitingList.Status {
            switch self {
            case .offer: .offered
            case .passed: .passed
            case .closed: .closed
            }
        }

        public var mailPriority: MailPriority { self == .offer ? .urgent : .informational }
    }

    public var id: Int64
    public var waitlistId: Int64
    public var kind: Kind
    public var createdAt: Date
    public var dispatchedAt: Date?
}

/// Everything a waiting-list notice's message is written from.
public struct WaitlistNoticeSubject: Sendable {
    public var notice: WaitlistNotice
    public var entry: WaitlistEntry
    public var store: Store
    public var user: User
}
