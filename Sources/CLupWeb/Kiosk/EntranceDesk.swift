import CLupData
import CLupDomain
import CLupSupport
import CLupText
import Foundation

/// What the entrance does for a kiosk, whether it asks through its pages or through the
/// device API: scan a code, issue a walk-in ticket, report the store's live state. Both
/// front ends show the same words and the same stable codes.
struct EntranceDesk: Sendable {
    let database: AppDatabase
    let tickets: TicketToken
    let codes: TicketCodes

    /// Scans `code` (the text a QR scanner typed, or the camera read) at `kiosk`'s store.
    func scan(code: String, kiosk: Kiosk, now: Date) throws -> ScanReport {
        let named = try reservation(code, now: now)
        let report = ScanReport(try database.doors.scan(reservationId: named?.id, walkIn: named?.walkIn, at: kiosk.storeId,
                                                        kioskId: kiosk.id, now: now), now: now)
        WebMetrics.scanned(report)
        return report
    }

    /// The reservation a scanned code names, if it is a genuine code.
    private func reservation(_ code: String, now: Date) throws -> (id: ReservationID, walkIn: WalkInCode?)? {
        try codes.reservation(scanned: code.trimmingCharacters(in: .whitespacesAndNewlines), now: now)
    }

    /// Scans `code` as the kiosk named and dated the scan: applied once at the time it happened,
    /// and answered (as JSON, a `ScanReport`) with its first answer however often it is sent.
    /// `scanId` and `scannedAt` are as the kiosk sent them, checked here.
    /// `offlineResult` ("enter" or "exit") is what the kiosk did by itself while CLup could not
    /// be reached: the scan is applied only if CLup's verdict is the same.
    /// `answerWithin` is how long the kiosk waits for the answer before deciding by itself: a
    /// scan that waited longer than that for the worker (`receivedAt`, when nginx received it)
    /// is not applied, nor kept, since the kiosk has decided without it and will send what it
    /// did.
    func scan(code: String, kiosk: Kiosk, scanId: String, scannedAt: String?, offlineResult: String? = nil,
              answerWithin: String? = nil, receivedAt: Date? = nil, now: Date) throws -> ScanAnswer
    {
        guard (16...64).contains(scanId.utf8.count), Secrets.isWellFormed(scanId, minimumLength: 16) else {
            throw EntranceError(400, "invalidScanId", tr("desk.scanId"))
        }
        guard answerWithin == nil || offlineResult == nil else {
            throw EntranceError(400, "invalidAnswerWithin", tr("desk.answerWithin"))
        }
        try Self.checkInTime(answerWithin: answerWithin, receivedAt: receivedAt)
        var doorDid: KioskScan.DoorDid?
        if let offlineResult {
            guard let did = KioskScan.DoorDid(rawValue: offlineResult), scannedAt != nil else {
                throw EntranceError(400, "invalidOfflineResult", tr("desk.offlineResult"))
            }
            doorDid = did
        }
        var at = now
        if let scannedAt {
            let invalid = EntranceError(400, "invalidScannedAt", tr("desk.scannedAt"))
            guard let date = Self.instant(scannedAt) else { throw invalid }
            // A live scan (its kiosk waits `answerWithin` for the answer) happens now, whatever the
            // kiosk's clock says: a kiosk's slow clock must not date it before the ticket was
            // called, nor a fast one refuse it. A scan sent after the fact keeps its own time,
            // bounded by CLup's clock and by the ticket's history in the rules. What the door
            // did offline is answered and logged for staff even when it cannot be applied
            // (`KioskScan.unapplicable`); a scan that did nothing at the door is refused here.
            if answerWithin == nil {
                if doorDid == nil {
                    guard date <= now + KioskScan.clockSkew else { throw Self.clockAhead }
                    guard date >= now - KioskScan.oldest else { throw EntranceError(409, "scanTooOld", tr("desk.scanTooOld")) }
                }
                at = date
            }
        }
        let named = try reservation(code, now: now)
        // The report of the run that committed (a shared commit may run the scan again).
        var report: ScanReport?
        let answer = try database.doors.scan(reservationId: named?.id, walkIn: named?.walkIn, at: kiosk.storeId,
                                       by: KioskScan(kioskId: kiosk.id, scanId: scanId, scannedAt: at, doorDid: doorDid),
                                       now: now) { result in
            report = ScanReport(result, now: at)
            return Response.jsonText(report)
        }
        // Counted once per named scan: a repeated one is answered from its receipt.
        if case .fresh = answer, let report { WebMetrics.scanned(report) }
        return answer
    }

    /// Refuses a request that waited for the worker (since `receivedAt`, when nginx received
    /// it) longer than its kiosk waits for the answer (`answerWithin` seconds) before doing
    /// without it: its kiosk has gone on by itself, so it is neither applied nor kept.
    static func checkInTime(answerWithin: String?, receivedAt: Date?) throws {
        guard let answerWithin else { return }
        guard let seconds = Double(answerWithin), (0.5...60).contains(seconds) else {
            throw EntranceError(400, "invalidAnswerWithin", tr("desk.answerWithin"))
        }
        // The machine's clock, as nginx's: not the application's.
        if let receivedAt, Date().timeIntervalSince(receivedAt) > seconds {
            throw EntranceError(503, "late", tr("desk.late"))
        }
    }

    /// A well-formed time further ahead than that: the device's clock is fast.
    static var clockAhead: EntranceError { EntranceError(409, "clockAhead", tr("desk.clockAhead")) }

    /// An RFC 3339 instant (`date-time` in the API's description): with or without fractions
    /// of a second, `T` and `Z` in either case, and any offset to ±23:59 (Foundation's parser
    /// reads offsets only to ±18:00, so the offset is applied here). To the millisecond, as
    /// CLup keeps times: a finer one, stored, could round past a later one.
    static func instant(_ text: String) -> Date? {
        parsedInstant(text).map { Date(timeIntervalSince1970: ($0.timeIntervalSince1970 * 1000).rounded(.down) / 1000) }
    }

    private static func parsedInstant(_ text: String) -> Date? {
        guard text.utf8.count <= 40,
              let match = text.uppercased().wholeMatch(of: /(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?)(Z|([+-])(\d{2}):(\d{2}))/)
        else { return nil }
        let utc = String(match.1) + "Z"
        guard let local = (try? Date(utc, strategy: .iso8601))
                ?? (try? Date(utc, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        else { return nil }
        // Foundation carries a field out of range over ("12:99" is 13:39): such a time is not one.
        guard local.formatted(.iso8601).prefix(19) == match.1.prefix(19) else { return nil }
        guard let sign = match.3, let hours = match.4.flatMap({ Int($0) }), let minutes = match.5.flatMap({ Int($0) })
        else { return local }
        guard hours < 24, minutes < 60 else { return nil }
        let offset = TimeInterval(hours * 3600 + minutes * 60)
        return sign == "+" ? local - offset : local + offset
    }

    /// A walk-in party as a form or the API sent it, checked: 1 to 8 people, and no more than
    /// the store takes (`largestParty`: 409 `partyOverLimit`, saying the store's limit); a visit
    /// length CLup offers.
    static func party(people: Int?, minutes: Int?, largestParty: Int) -> Result<(people: Int, minutes: Int), EntranceError> {
        guard let people, (1...StoreSettings.partyLimit).contains(people) else {
            return .failure(EntranceError(400, "invalidPeople", tr("desk.people")))
        }
        guard people <= largestParty else {
            return .failure(EntranceError(409, "partyOverLimit", tr("desk.partyOverLimit", ["largest": String(largestParty)])))
        }
        guard let minutes, ResidenceTime.isValid(minutes) else {
            return .failure(EntranceError(400, "invalidResidence", tr("desk.residence")))
        }
        return .success((people, minutes))
    }

    /// A form's one-time key if it is well formed; a ticket asked for without one is issued
    /// each time.
    static func requestKey(_ sent: String?) -> String? {
        sent.flatMap { Secrets.isWellFormed($0, minimumLength: 16) ? $0 : nil }
    }

    /// Issues a walk-in ticket, validating the choices as the kiosk's form or the API sent them;
    /// `contact`, an address the walk-in left to be told when it is their turn.
    func issueTicket(people: Int?, minutes: Int?, requestKey: String?, kiosk: Kiosk, contact: WalkInContact? = nil,
                     now: Date) throws -> Result<Reservation, EntranceError>
    {
        let party: (people: Int, minutes: Int)
        switch Self.party(people: people, minutes: minutes, largestParty: largestParty(of: kiosk)) {
        case .success(let checked): party = checked
        case .failure(let problem): return .failure(problem)
        }
        switch try database.doors.issueWalkInTicket(storeId: kiosk.storeId, people: party.people, residenceMinutes: party.minutes,
                                               requestKey: Self.requestKey(requestKey), contact: contact, now: now)
        {
        case .issued(let ticket), .alreadyIssued(let ticket):
            return .success(ticket)
        case .noWalkInPlaces:
            return .failure(EntranceError(409, "noWalkInPlaces",
                                          tr("desk.noWalkIns")))
        case .noSuchStore:
            return .failure(EntranceError(404, "notFound", tr("desk.noStore")))
        case .noPriorityLane:  // not asked for here: the dispenser issues no priority tickets
            return .failure(EntranceError(500, "internal", tr("desk.notIssued")))
        case .refused(let decision):
            let zone = database.board.entry(kiosk.storeId)?.store.zone ?? .gmt
            return .failure(Self.refusal(decision, now: now, zone: zone))
        }
    }

    static func refusal(_ decision: LineUpPolicy.Decision, now: Date, zone: TimeZone) -> EntranceError {
        switch decision {
        case .accepted:
            return EntranceError(500, "internal", tr("desk.notIssued"))
        case .closed(let opensAt):
            return EntranceError(409, "closed", opensAt.map {
                tr("desk.closedOpens", ["time": Formatting.clock($0, now: now, timeZone: zone)])
            } ?? tr("desk.closed"))
        case .waitTooLong(wait: nil):
            return EntranceError(409, "partyTooLarge",
                                 tr("desk.partyTooLarge"))
        case .waitTooLong:
            return EntranceError(409, "waitTooLong",
                                 tr("desk.waitTooLong"))
        case .closesFirst(let closes, _):
            return EntranceError(409, "closesFirst",
                                 tr("desk.closesFirst", ["time": Formatting.clock(closes, now: now, timeZone: zone)]))
        }
    }

    /// `kiosk`'s block of tickets for today (reserved on first asking) and its spare ones, each
    /// with its code for each party size the store takes — and, given `receipt`, the receipt to print
    /// for each; nil if the store is gone.
    func spareTickets(kiosk: Kiosk, now: Date,
                      receipt: ((_ id: ReservationID, _ number: Int, _ people: Int, _ code: String) throws -> String)? = nil)
        throws -> SpareTicketsJSON?
    {
        guard let (block, spare) = try database.doors.ticketBlock(for: kiosk, now: now) else { return nil }
        return SpareTicketsJSON(
            day: LocalDate(day: block.day).text, firstNumber: block.firstNumber, size: block.size,
            tickets: try codes.spareCodes(spare, storeId: kiosk.storeId, now: now).map { ticket, codes in
                SpareTicketsJSON.Spare(
                    id: ticket.id, number: ticket.number,
                    codes: Dictionary(uniqueKeysWithValues: codes.map { (String($0), $1) }),
                    receipts: try receipt.map { render in
                        Dictionary(uniqueKeysWithValues: try codes.map { (String($0), try render(ticket.id, ticket.number, $0, $1)) })
                    })
            })
    }

    /// A ticket `kiosk` printed from its block while CLup could not be reached, reported once
    /// it answers, its fields as the kiosk sent them: the ticket, and whether it was made now
    /// (rather than already known, from an earlier report or from the door that scanned it).
    func reportOfflineTicket(_ id: ReservationID?, people: Int?, minutes: Int?, issuedAt: String?, kiosk: Kiosk,
                             now: Date) throws -> (Reservation, made: Bool)
    {
        guard let id else { throw EntranceError(409, "notInBlock", tr("api.notInBlock")) }
        let party = try Self.party(people: people, minutes: minutes, largestParty: largestParty(of: kiosk)).get()
        guard let issuedAt = issuedAt.flatMap(Self.instant) else { throw EntranceError(400, "invalidIssuedAt", tr("api.issuedAt")) }
        guard issuedAt <= now + KioskScan.clockSkew else { throw Self.clockAhead }
        guard issuedAt >= now - KioskScan.oldest else { throw EntranceError(409, "ticketTooOld", tr("api.ticketTooOld")) }
        switch try database.doors.reportOfflineTicket(id, kiosk: kiosk, people: party.people, residenceMinutes: party.minutes,
                                                issuedAt: issuedAt, now: now)
        {
        case .recorded(let ticket): return (ticket, true)
        case .alreadyKnown(let ticket): return (ticket, false)
        case .notInBlock: throw EntranceError(409, "notInBlock", tr("api.notInBlock"))
        }
    }

    /// The most people the kiosk's store takes on one ticket.
    private func largestParty(of kiosk: Kiosk) -> Int {
        database.board.entry(kiosk.storeId)?.store.largestParty ?? StoreSettings.defaultLargestParty
    }

    /// Where a walk-in ticket stands now: its expected wait (0 when called).
    func standing(of ticket: Reservation, now: Date) throws -> QueueStanding? {
        guard ticket.status == .waiting else { return nil }
        let id = ticket.id
        return database.board.standing(of: ticket.storeId, now: now)?.standing(of: id)
    }
}

/// A kiosk's block of tickets for printing offline, as JSON: its spare tickets, each with its
/// code for each party size the store takes ("1", "2"… up to its largest party), and for the
/// dispenser's page their receipts.
struct SpareTicketsJSON: Encodable {
    struct Spare: Encodable {
        var id: ReservationID
        var number: Int
        var codes: [String: String]
        var receipts: [String: String]?
    }

    /// The store's business day the block is for (YYYY-MM-DD).
    var day: String
    var firstNumber: Int
    var size: Int
    /// The tickets CLup has not heard of yet, in number order.
    var tickets: [Spare]
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
    /// "enter", "exit" or "refused"; "conflict" for a scan the door made while offline that
    /// CLup did not accept.
    var result: String
    /// "ENTER", "EXIT", "REFUSED" or "CHECK".
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
        func time(_ date: Date) -> String { Formatting.clock(date, now: now, timeZone: zone) }
        switch scan.outcome {
        case .entered(let ticket):
            result = "enter"
            headline = tr("scan.enter")
            message = tr("scan.welcome", ["number": String(ticket.number), "people": Formatting.people(ticket.people)])
        case .left(let ticket):
            result = "exit"
            headline = tr("scan.exit")
            message = ticket.enteredAt.map {
                tr("scan.goodbyeVisit", ["number": String(ticket.number), "visit": Formatting.duration(now.timeIntervalSince($0))])
            } ?? tr("scan.goodbye", ["number": String(ticket.number)])
        case .refused(let refusal, let ticket):
            result = "refused"
            headline = tr("scan.refused")
            reason = refusal.code
            message = Self.message(refusal, ticket: ticket, otherStoreName: scan.otherStoreName, time: time)
        case .disagreed(let door, let verdict, let ticket):
            // Let in or out at the door while CLup could not be reached; CLup says otherwise.
            result = "conflict"
            headline = tr("scan.conflict")
            let why: String
            switch verdict {
            case .refused(let refusal):
                reason = refusal.code
                why = Self.message(refusal, ticket: ticket, otherStoreName: scan.otherStoreName, time: time)
            case .enter:
                reason = "notInside"
                why = tr("scan.notInside")
            case .exit:
                reason = "alreadyInside"
                why = tr("scan.alreadyInside")
            }
            message = tr(door == .enter ? "scan.conflictEnter" : "scan.conflictExit",
                         ["number": String(ticket?.number ?? 0), "why": why])
        }
        switch scan.verdict {
        case .refused(.unknownCode), .refused(.otherStore): break  // nothing of another store's ticket
        default:
            number = scan.reservation?.number
            people = scan.reservation?.people
        }
    }

    /// A refusal in words for the people at the door.
    static func message(_ refusal: ScanRefusal, ticket: Reservation?, otherStoreName: String?,
                        time: (Date) -> String) -> String
    {
        switch refusal {
        case .unknownCode: tr("scan.unknown")
        case .otherStore: otherStoreName.map { tr("scan.otherStoreNamed", ["store": $0]) } ?? tr("scan.otherStore")
        case .cancelled: tr("progress.cancelledPlain")
        case .expired: tr("scan.expired")
        case .notYetCalled: tr("scan.notCalled", ["number": String(ticket?.number ?? 0)])
        case .tooEarly(let opens): tr("scan.tooEarly", ["time": time(opens)])
        case .tooLate(let closed): tr("scan.tooLate", ["time": time(closed)])
        case .alreadyUsed: tr("scan.used")
        case .full(let inside, let capacity): tr("scan.full", ["inside": String(inside), "capacity": String(capacity)])
        case .placesHeld: tr("scan.placesHeld")
        case .impossibleTime: tr("scan.impossibleTime", ["number": String(ticket?.number ?? 0)])
        case .sentTooLate: tr("scan.sentTooLate")
        case .datedAhead: tr("scan.datedAhead")
        }
    }
}
