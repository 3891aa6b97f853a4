import CLupData
import CLupDomain
import CLupSupport
import Foundation

/// What the entrance does for a kiosk, whether it asks through its pages or through the
/// device API: scan a code, issue a walk-in ticket, report the store's live state. Both
/// front ends show the same words and the same stable codes.
struct EntranceDesk: Sendable {
    let database: AppDatabase
    let tickets: TicketToken

    /// Scans `code` (the text a QR scanner typed, or the camera read) at `kiosk`'s store.
    func scan(code: String, kiosk: Kiosk, now: Date) throws -> ScanReport {
        let trimmed = code.trimmingCharacters(in: .whitespacesAndNewlines)
        let id = tickets.reservationId(from: trimmed)
        return ScanReport(try database.scan(reservationId: id, at: kiosk.storeId, now: now), now: now)
    }

    /// Issues a walk-in ticket, validating the choices as the kiosk's form or the API sent them.
    func issueTicket(people: Int?, minutes: Int?, requestKey: String?, kiosk: Kiosk, now: Date) throws
        -> Result<Reservation, EntranceError>
    {
        guard let people, people == 1 || people == 2 else {
            return .failure(EntranceError(400, "invalidPeople", "Choose 1 or 2 people."))
        }
        guard let minutes, ResidenceTime.isValid(minutes) else {
            return .failure(EntranceError(400, "invalidResidence", "Choose how long you will stay: 15 to 180 minutes."))
        }
        let key = requestKey.flatMap { Secrets.isWellFormed($0, minimumLength: 16) ? $0 : nil }
        switch try database.issueWalkInTicket(storeId: kiosk.storeId, people: people, residenceMinutes: minutes,
                                               requestKey: key, now: now)
        {
        case .issued(let ticket), .alreadyIssued(let ticket):
            return .success(ticket)
        case .noWalkInPlaces:
            return .failure(EntranceError(409, "noWalkInPlaces",
                                          "This store keeps no places for walk-ins: please line up with CLup online."))
        case .noSuchStore:
            return .failure(EntranceError(404, "notFound", "This kiosk's store no longer exists."))
        case .refused(let decision):
            let zone = database.board.entry(kiosk.storeId)?.store.zone ?? .gmt
            return .failure(Self.refusal(decision, now: now, zone: zone))
        }
    }

    static func refusal(_ decision: LineUpPolicy.Decision, now: Date, zone: TimeZone) -> EntranceError {
        switch decision {
        case .accepted:
            return EntranceError(500, "internal", "The ticket could not be issued.")
        case .closed(let opensAt):
            return EntranceError(409, "closed", "The store is closed"
                + (opensAt.map { "; it opens \(Formatting.clock($0, now: now, timeZone: zone))" } ?? "") + ".")
        case .waitTooLong(wait: nil):
            return EntranceError(409, "partyTooLarge",
                                 "This store keeps too few places for walk-ins to let a party this size in "
                                     + "with a ticket. Please ask the staff at the entrance.")
        case .waitTooLong:
            return EntranceError(409, "waitTooLong",
                                 "The wait is over 2 hours right now. Please come back later.")
        case .closesFirst(let closes, _):
            return EntranceError(409, "closesFirst", "The store closes at \(Formatting.clock(closes, now: now, timeZone: zone)), "
                + "before a new ticket would be done shopping. Choose a shorter visit or come back tomorrow.")
        }
    }

    /// Where a walk-in ticket stands now: its expected wait (0 when called).
    func standing(of ticket: Reservation, now: Date) throws -> QueueStanding? {
        guard ticket.status == .waiting else { return nil }
        let id = ticket.id
        return database.board.standing(of: ticket.storeId, now: now)?.standing(of: id)
    }
}

/// A refusal of the entrance with its HTTP status, stable code and message.
struct EntranceError: Error {
    var status: Int
    var code: String
    var message: String

    init(_ status: Int, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }
}

/// A scan as people at the door read it: one big word, a sentence, and the count inside.
struct ScanReport: Encodable {
    /// "enter", "exit" or "refused".
    var result: String
    /// "ENTER", "EXIT" or "REFUSED".
    var headline: String
    var message: String
    /// Why it was refused, as a stable code.
    var reason: String?
    var number: Int?
    var people: Int?
    var peopleInside: Int
    var capacity: Int

    init(_ scan: ScanResult, now: Date) {
        let zone = scan.zone
        peopleInside = scan.peopleInside
        capacity = scan.capacity
        let ticket = scan.reservation
        func time(_ date: Date) -> String { Formatting.clock(date, now: now, timeZone: zone) }
        switch scan.verdict {
        case .enter:
            result = "enter"
            headline = "ENTER"
            message = "Welcome. Ticket \(ticket?.number ?? 0), \(Formatting.people(ticket?.people ?? 1))."
        case .exit:
            result = "exit"
            headline = "EXIT"
            let stayed = ticket.flatMap { t in t.enteredAt.map { now.timeIntervalSince($0) } }
            message = "Goodbye. Ticket \(ticket?.number ?? 0)"
                + (stayed.map { ", a visit of \(Formatting.duration($0))" } ?? "") + "."
        case .refused(let refusal):
            result = "refused"
            headline = "REFUSED"
            reason = refusal.code
            switch refusal {
            case .unknownCode: message = "This is not a CLup ticket, or it has been altered."
            case .otherStore: message = "This ticket is for another store" + (scan.otherStoreName.map { ": \($0)" } ?? "") + "."
            case .cancelled: message = "This reservation was cancelled."
            case .expired: message = "This ticket has expired: it was not used in time."
            case .notYetCalled:
                message = "Ticket \(ticket?.number ?? 0) has not been called yet. Please wait until its number is called."
            case .tooEarly(let opens): message = "Too early: this booking may enter from \(time(opens))."
            case .tooLate(let closed): message = "Too late: this booking's entry closed at \(time(closed))."
            case .alreadyUsed: message = "This ticket was already used to enter and leave."
            case .full(let inside, let capacity):
                message = "The store is full (\(inside) of \(capacity) inside). Please wait for someone to leave."
            }
        }
        switch scan.verdict {
        case .refused(.unknownCode), .refused(.otherStore): break  // nothing of another store's ticket
        default:
            number = ticket?.number
            people = ticket?.people
        }
    }
}
