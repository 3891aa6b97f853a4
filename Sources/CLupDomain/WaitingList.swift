import Foundation

/// A full slot's waiting list (pretix's, for booked visits): customers join it in order; a
/// place that comes free — a cancellation, an unconfirmed booking cancelled, a no-show marked
/// at the door — is offered to the first whose party fits, who has until the offer's deadline
/// to take it, or it passes to the next.
///
/// The places a slot's list can use belong to the list: while someone on it could take them,
/// the slot is full to everyone else, and a place offered is held for whoever it was offered
/// to. So a freed place is never booked by a newcomer ahead of the list, nor offered twice,
/// and the bookings and open offers together never pass the slot's capacity.
public enum WaitingList {
    /// How long an offer stays open at most.
    public static let offerWindow: TimeInterval = 30 * 60
    /// An offer shorter than this is not made: nobody could read it, answer and come.
    public static let shortestOffer: TimeInterval = 5 * 60
    /// Most entries on one slot's list: beyond them nobody could reasonably expect a place.
    public static let longestList = 50

    /// Where an entry is in its life.
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// On the list, waiting for a place.
        case waiting
        /// A place is held for them until the offer's deadline.
        case offered
        /// They took the place: a booking.
        case accepted
        /// They let the offer lapse or said no: it went to the next.
        case passed
        /// They left the list.
        case left
        /// The slot began (or stopped being offered) without a place for them.
        case closed

        /// Statuses of an entry still on its list.
        public static let open: [Status] = [.waiting, .offered]
        public var isOpen: Bool { Self.open.contains(self) }
    }

    /// An entry still on its list, as the offering rule sees it.
    public struct Entry: Sendable, Equatable {
        public var id: Int64
        public var people: Int
        public var status: Status

        public init(id: Int64, people: Int, status: Status) {
            self.id = id
            self.people = people
            self.status = status
        }
    }

    /// Places neither booked nor held by an open offer.
    public static func free(capacity: Int, booked: Int, entries: [Entry]) -> Int {
        capacity - booked - entries.filter { $0.status == .offered }.reduce(0) { $0 + $1.people }
    }

    /// The waiting entries to offer a place to now, in list order: each whose party fits in
    /// what the entries before it left free (a party of two does not hold back a single
    /// behind it when one place is free).
    public static func offers(capacity: Int, booked: Int, entries: [Entry]) -> [Int64] {
        var free = free(capacity: capacity, booked: booked, entries: entries)
        var offers: [Int64] = []
        for entry in entries where entry.status == .waiting && entry.people <= free {
            offers.append(entry.id)
            free -= entry.people
        }
        return offers
    }

    /// Whether a newcomer's party of `people` may book the slot: it fits in the free places,
    /// and nobody waiting on the list could take them instead.
    public static func canBook(people: Int, capacity: Int, booked: Int, entries: [Entry]) -> Bool {
        let free = free(capacity: capacity, booked: booked, entries: entries)
        return people <= free && !entries.contains { $0.status == .waiting && $0.people <= free }
    }

    /// When an offer made at `now` for the slot starting at `slotStart` lapses: the offer
    /// window, but no later than the slot's start; nil when that leaves too little time to
    /// make one.
    public static func offerDeadline(now: Date, slotStart: Date) -> Date? {
        let deadline = min(now + offerWindow, slotStart)
        return deadline.timeIntervalSince(now) >= shortestOffer ? deadline : nil
    }

    /// Whether the list of the slot starting at `slotStart` is over at `now`: too late for
    /// any offer to be made, so those still waiting are told no place came free.
    public static func isOver(slotStart: Date, now: Date) -> Bool {
        offerDeadline(now: now, slotStart: slotStart) == nil
    }

    /// Why a customer cannot join a slot's list.
    public enum Refusal: Error, Sendable, Equatable {
        /// The slot has room for them: they can book it.
        case notFull
        /// The list is as long as it may be.
        case listFull
    }

    /// Whether a party of `people` may join a slot's list (one that could be booked if it had
    /// room: `SlotCalendar.verdict` decides that first).
    public static func joining(people: Int, capacity: Int, booked: Int, entries: [Entry]) -> Refusal? {
        if canBook(people: people, capacity: capacity, booked: booked, entries: entries) { return .notFull }
        if entries.count >= longestList { return .listFull }
        return nil
    }
}
