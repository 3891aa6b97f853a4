import CLupData
import CLupDomain
import CLupSupport
import Foundation

/// The text of a ticket's QR code, and the reservation a scanned text names.
///
/// Codes are signed with the store's Ed25519 key (`DoorCode`, `StoreKeys`), so a kiosk holding
/// the store's public keys can check them while the server cannot be reached. Codes made before
/// (an HMAC under the server secret, `TicketToken`) are still read here, online.
struct TicketCodes: Sendable {
    let database: AppDatabase
    let legacy: TicketToken
    let keys: StoreKeys

    init(database: AppDatabase, tickets: TicketToken) {
        self.database = database
        legacy = tickets
        keys = StoreKeys(tickets)
    }

    /// The code of `reservation`, signed with its store's current key.
    func text(for reservation: Reservation, now: Date) throws -> String {
        guard let signing = try database.stores.signingKeys(storeId: reservation.storeId, now: now) else {
            return legacy.token(for: reservation.id.rawValue)
        }
        return keys.text(of: DoorCode(
            keyId: signing.current, storeId: reservation.storeId.rawValue, reservationId: reservation.id.rawValue,
            kind: reservation.walkIn ? .walkIn : reservation.kind == .booking ? .booking : .lineUp,
            people: reservation.people, number: reservation.number, slotStart: reservation.slotStart))
    }

    /// The reservation a scanned `text` names, if it is a genuine code: signed with a key its
    /// store still accepts, or an older code under the server secret. For a signed walk-in
    /// code, also its store and party (what makes a ticket printed offline).
    func reservation(scanned text: String, now: Date) throws -> (id: ReservationID, walkIn: WalkInCode?)? {
        guard text.utf8.count == DoorCode.textLength else {
            return legacy.reservationId(from: text).map { (ReservationID($0), nil) }
        }
        guard let storeId = DoorCode.parse(text)?.code.storeId,
              let signing = try database.stores.signingKeys(storeId: StoreID(storeId), now: now),
              let code = keys.verify(text, accepts: { _, keyId in signing.accepts(keyId) })
        else { return nil }
        let walkIn = code.kind == .walkIn ? WalkInCode(storeId: StoreID(code.storeId), people: code.people) : nil
        return (ReservationID(code.reservationId), walkIn)
    }

    /// The codes of a block's spare tickets, for each party size the store takes, signed with
    /// the store's current key: what a kiosk prints while CLup cannot be reached.
    func spareCodes(_ spare: [SpareTicket], storeId: StoreID, now: Date) throws -> [(ticket: SpareTicket, codes: [Int: String])] {
        guard let signing = try database.stores.signingKeys(storeId: storeId, now: now) else { return [] }
        let parties = database.board.entry(storeId)?.store.settings.partySizes ?? 1...StoreSettings.defaultLargestParty
        return spare.map { ticket in
            (ticket, Dictionary(uniqueKeysWithValues: parties.map { people in
                (people, keys.text(of: DoorCode(keyId: signing.current, storeId: storeId.rawValue,
                                                reservationId: ticket.id.rawValue, kind: .walkIn, people: people,
                                                number: ticket.number)))
            }))
        }
    }
}
