import CLupData
import CLupDomain
import CLupSupport
import Foundation

/// What a door kiosk keeps, refreshed while CLup answers, to go on deciding at the door when
/// it does not: the store's public keys (to tell genuine codes), its rules, the tickets live
/// now (called, inside, booked) and the count inside. With it the page applies the entrance
/// rules itself, queues what it did, and sends it when CLup answers again.
///
/// Staff choose which of the store's doors let people in while offline (`admitsOffline`; the
/// first door enrolled, unless they chose); the others still let people out. Each that does
/// lets in at most its lease (`LeaseJSON`, renewed apart, every few seconds), so doors offline
/// together never let in more people than there is room for.
struct DoorState: Encodable {
    struct Key: Encodable {
        var keyId: Int
        /// The Ed25519 public key, base64url.
        var publicKey: String
        var retiresAt: String?
    }

    struct Ticket: Encodable {
        var id: ReservationID
        var number: Int
        var people: Int
        /// waiting, called, inside or booked.
        var state: String
        var calledAt: String?
        var slotStart: String?
        /// Printed by a kiosk while CLup could not be reached: let in when there is room.
        var printedOffline: Bool?
    }

    /// Reservation ids a kiosk of the store keeps for printing tickets offline, first to last.
    struct Block: Encodable {
        var first: ReservationID
        var last: ReservationID
    }

    var storeId: StoreID
    var generatedAt: String
    var keys: [Key]
    var capacity: Int
    var callGraceMinutes: Int
    var entryBeforeMinutes: Int
    var entryAfterMinutes: Int
    var peopleInside: Int
    var tickets: [Ticket]
    /// The store's blocks of tickets for printing offline, today's and yesterday's: a code
    /// from one that CLup has not heard of is a walk-in let in when there is room.
    var offlineBlocks: [Block]
    /// Codes naming a higher reservation were made after this state: the kiosk cannot know
    /// whether they were called, only a booking's slot.
    var lastReservationId: Int64
    /// Whether this kiosk lets people in while offline; `admittingDoors` names the doors that
    /// do ("" if none), for the people at one that does not.
    var admitsOffline: Bool
    var admittingDoors: String
}

/// A door's lease as the kiosk keeps it: it may let `places` people in while offline (plus those
/// it lets out meanwhile) until `expiresAt`, in CLup's time. `version` goes back with the next
/// renewal, saying which grant the door holds.
struct LeaseJSON: Encodable {
    var admitsOffline: Bool
    var version: Int64
    var places: Int
    var expiresAt: String

    init(_ lease: DoorLease?, now: Date) {
        admitsOffline = lease != nil
        version = lease?.version ?? 0
        places = lease?.places ?? 0
        expiresAt = DoorState.time(lease?.expiresAt ?? now)
    }
}

extension EntranceDesk {
    func doorState(kiosk: Kiosk, now: Date) throws -> DoorState {
        guard let entry = database.board.entry(kiosk.storeId),
              let keys = try database.stores.signingKeys(storeId: kiosk.storeId, now: now)
        else { throw HTTPError.notFound }
        let store = entry.store
        let time = DoorState.time
        let today = entry.hours.businessDay(at: now)
        let blocks = try database.doors.ticketBlocks(storeId: store.id, days: (today - 1)...today)
        let tickets = entry.live.live.map { ticket -> DoorState.Ticket in
            var state = DoorState.Ticket(id: ticket.id, number: ticket.number, people: ticket.people, state: "waiting")
            switch ticket.state {
            case .waiting:
                if ticket.walkIn, blocks.contains(where: { $0.contains(ticket.id) }) { state.printedOffline = true }
            case .called(let at): (state.state, state.calledAt) = ("called", time(at))
            case .inside: state.state = "inside"
            case .booked(let slot): (state.state, state.slotStart) = ("booked", time(slot))
            }
            return state
        }
        let admitting = try database.doors.offlineDoors(storeId: kiosk.storeId, now: now).filter(\.admitsOffline)
        return DoorState(
            storeId: store.id, generatedAt: time(now),
            keys: keys.accepted.keys.sorted().map { keyId in
                DoorState.Key(keyId: keyId, publicKey: Secrets.base64url(codes.keys.publicKey(storeId: store.id.rawValue, keyId: keyId)),
                              retiresAt: keys.accepted[keyId].flatMap { $0 }.map(time))
            },
            capacity: store.capacity, callGraceMinutes: store.callGraceMinutes,
            entryBeforeMinutes: store.entryBeforeMinutes, entryAfterMinutes: store.entryAfterMinutes,
            peopleInside: entry.live.peopleInside, tickets: tickets,
            offlineBlocks: blocks.map { DoorState.Block(first: $0.firstReservationId, last: $0.lastReservationId) },
            lastReservationId: try database.stores.lastReservationId()?.rawValue ?? 0,
            admitsOffline: admitting.contains { $0.kioskId == kiosk.id },
            admittingDoors: admitting.map(\.label).joined(separator: ", "))
    }

    /// Renews the door's lease; `heldVersion` is the one the kiosk says it holds.
    func lease(kiosk: Kiosk, heldVersion: Int64?, now: Date) throws -> LeaseJSON {
        LeaseJSON(try database.doors.renewLease(kiosk: kiosk, heldVersion: heldVersion, now: now), now: now)
    }
}

extension DoorState {
    /// An instant as the door's JSON gives it: RFC 3339 with milliseconds.
    static func time(_ date: Date) -> String { date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)) }
}
