import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupText
import Foundation

/// The API for the entrance's hardware — QR scanners and ticket dispensers (RASD 3.1.3) —
/// described in `Public/api/openapi.json`.
///
/// A device authenticates every request with its kiosk's key (`Authorization: Bearer …`) and
/// acts only for that kiosk's store. No cookies are read, so no CSRF token is needed: a page
/// elsewhere cannot make a browser send the key. Errors are JSON with a stable `code` and a
/// `message` a person can act on.
struct DeviceArea {
    let database: AppDatabase
    let desk: EntranceDesk
    let watch: KioskWatch

    func addRoutes(to api: RouteGroup<RequestContext>) {
        let devices = api.adding(.deviceKey(database: database)).adding(.watched(by: watch))
        devices.post(Paths.apiScan, scan)
        devices.post(Paths.apiTickets, issueTicket)
        devices.post(Paths.apiTicketBlock, ticketBlock)
        devices.post(Paths.apiOfflineTickets, reportOfflineTicket)
        devices.get(Paths.apiDoorState, doorState)
        devices.post(Paths.apiDoorLease, doorLease)
        devices.adding(.deviceOfStore).get(Paths.apiStoreStatus, storeStatus)
    }

    /// Only a door kiosk's key scans: a dispenser's opens no door.
    func scan(_ context: DeviceContext) throws -> Response {
        try requireDoor(context)
        let body = try decode(ScanRequest.self, from: context.request)
        guard let scanId = body.scanId else {
            if body.scannedAt != nil || body.offlineResult != nil || body.answerWithin != nil {
                throw EntranceError(400, "invalidScanId", tr("desk.scanId"))
            }
            return .json(try desk.scan(code: body.code, kiosk: context.kiosk, now: context.now))
        }
        let answer = try desk.scan(code: body.code, kiosk: context.kiosk, scanId: scanId, scannedAt: body.scannedAt,
                                   offlineResult: body.offlineResult, answerWithin: body.answerWithin.map { String($0) },
                                   receivedAt: context.request.receivedAt, now: context.now)
        return .json(text: answer.answer)
    }

    /// Only a door kiosk's key scans or keeps the door's state: a dispenser's opens no door.
    private func requireDoor(_ context: DeviceContext) throws {
        guard context.kiosk.role.isAtTheDoor else { throw EntranceError(403, "wrongRole", tr("api.notAtTheDoor")) }
    }

    /// What a door keeps to decide by itself while CLup cannot be reached, as the door kiosk's
    /// page keeps it: the store's keys, rules, live tickets and count inside.
    func doorState(_ context: DeviceContext) throws -> Response {
        try requireDoor(context)
        return .json(try desk.doorState(kiosk: context.kiosk, now: context.now))
    }

    /// Renews the door's lease on places for letting people in offline; the body says which
    /// grant the door holds (`heldVersion`, null before its first).
    func doorLease(_ context: DeviceContext) throws -> Response {
        try requireDoor(context)
        let body = try decode(LeaseRequest.self, from: context.request)
        return .json(try desk.lease(kiosk: context.kiosk, heldVersion: body.heldVersion, now: context.now))
    }

    func issueTicket(_ context: DeviceContext) throws -> Response {
        let body = try decode(TicketRequest.self, from: context.request)
        // A client that sends a key counts on it to make a retry safe: one that cannot be used
        // is refused, not ignored.
        if let key = body.requestKey, EntranceDesk.requestKey(key) == nil {
            throw EntranceError(400, "invalidBody", tr("api.invalidBody", ["why": tr("api.requestKey")]))
        }
        switch try desk.issueTicket(people: body.people, minutes: body.residenceMinutes, requestKey: body.requestKey,
                                    kiosk: context.kiosk, now: context.now)
        {
        case .success(let ticket): return .json(try ticketJSON(ticket, now: context.now), status: 201)
        case .failure(let error): throw error
        }
    }

    /// The kiosk's block of tickets for today, reserved on first asking: the spare ones, each
    /// with its code for each party size the store takes, to print while CLup cannot be reached.
    func ticketBlock(_ context: DeviceContext) throws -> Response {
        guard let block = try desk.spareTickets(kiosk: context.kiosk, now: context.now) else {
            throw EntranceError(404, "notFound", tr("api.noStore"))
        }
        return .json(block)
    }

    /// A ticket the kiosk printed from its block while CLup could not be reached, reported once
    /// it answers: it joins the walk-in queue from the time it was printed. Sent twice, or
    /// after the door has scanned it, it is answered with the ticket as it is.
    func reportOfflineTicket(_ context: DeviceContext) throws -> Response {
        let body = try decode(OfflineTicketRequest.self, from: context.request)
        let (ticket, made) = try desk.reportOfflineTicket(body.id, people: body.people, minutes: body.residenceMinutes,
                                                          issuedAt: body.issuedAt, kiosk: context.kiosk, now: context.now)
        return .json(try ticketJSON(ticket, now: context.now), status: made ? 201 : 200)
    }

    func storeStatus(_ context: DeviceContext) throws -> Response {
        .json(try status(storeId: context.kiosk.storeId, now: context.now))
    }

    // MARK: Requests

    struct ScanRequest: Decodable {
        var code: String
        /// The kiosk's own id for the scan: sent again, it is answered as the first time.
        var scanId: String?
        /// When the scan happened (ISO 8601), if it is sent later.
        var scannedAt: String?
        /// "enter" or "exit": what the scanner did by itself while CLup could not be reached.
        var offlineResult: String?
        /// Seconds the scanner waits for the answer before deciding by itself.
        var answerWithin: Double?
    }

    struct LeaseRequest: Decodable {
        /// The lease's version the door holds; null or absent before it has one.
        var heldVersion: Int64?
    }

    struct TicketRequest: Decodable {
        var people: Int
        var residenceMinutes: Int
        /// Any unique text of 16+ URL-safe characters: a request repeated with it issues one ticket.
        var requestKey: String?
    }

    struct OfflineTicketRequest: Decodable {
        /// The ticket's id, from the kiosk's block.
        var id: ReservationID
        var people: Int
        var residenceMinutes: Int
        /// When it was printed (ISO 8601).
        var issuedAt: String
    }

    private func decode<Body: Decodable>(_ type: Body.Type, from request: Request) throws -> Body {
        guard StrictJSON.isJSONMediaType(request.headers["content-type"]) else {
            throw EntranceError(415, "unsupportedMediaType", tr("api.json"))
        }
        guard StrictJSON.isUTF8Text(request.body) else {
            throw EntranceError(400, "invalidBody", tr("api.invalidBody", ["why": tr("api.notUTF8")]))
        }
        if let key = StrictJSON.duplicateKey(in: request.body) {
            throw EntranceError(400, "invalidBody", tr("api.invalidBody", ["why": tr("api.duplicateKey", ["key": String(key.prefix(40))])]))
        }
        do {
            return try JSONDecoder().decode(type, from: Data(request.body))
        } catch {
            throw EntranceError(400, "invalidBody", tr("api.invalidBody", ["why": Self.describe(error)]))
        }
    }

    /// A short, safe description of what was wrong with a JSON body.
    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): tr("api.missing", ["key": key.stringValue])
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            tr("api.wrongType", ["key": context.codingPath.map(\.stringValue).joined(separator: ".")])
        default: tr("api.unreadable")
        }
    }

    // MARK: Responses

    struct TicketJSON: Encodable {
        var id: ReservationID
        var number: Int
        /// The QR code's text, to print as a QR code.
        var code: String
        var status: String
        var people: Int
        var residenceMinutes: Int
        var issuedAt: String
        /// Expected wait in minutes; 0 when called at once; null when it cannot be told.
        var estimatedWaitMinutes: Int?
        var storeName: String
    }

    private func ticketJSON(_ ticket: Reservation, now: Date) throws -> TicketJSON {
        let wait: Int?
        if ticket.status == .called {
            wait = 0
        } else {
            wait = try desk.standing(of: ticket, now: now)?.entry.map { Int(($0.timeIntervalSince(now) / 60).rounded(.up)) }
        }
        let store = database.board.entry(ticket.storeId)?.store
        return TicketJSON(
            id: ticket.id, number: ticket.number, code: try desk.codes.text(for: ticket, now: now),
            status: ticket.status.rawValue, people: ticket.people, residenceMinutes: ticket.residenceMinutes,
            issuedAt: ticket.createdAt.formatted(.iso8601), estimatedWaitMinutes: wait, storeName: store?.name ?? "")
    }

    struct StatusJSON: Encodable {
        struct Queue: Encodable {
            var parties: Int
            var people: Int
        }

        var storeId: StoreID
        var name: String
        var open: Bool
        var capacity: Int
        var peopleInside: Int
        var onlineQueue: Queue
        var walkInQueue: Queue
        /// Numbers called and not yet scanned in, latest first.
        var calling: [Int]
        /// Wait for a new party of one, online and at the kiosk, in minutes; null: not taking tickets.
        var waitMinutes: Int?
        var walkInWaitMinutes: Int?
        /// The range each wait falls in four times in five, in minutes: [low, high].
        var waitRangeMinutes: [Int]?
        var walkInWaitRangeMinutes: [Int]?
        /// Scheduled maintenance announced or under way; absent otherwise.
        var maintenance: Maintenance?

        struct Maintenance: Encodable {
            var startsAt: String
            var endsAt: String
            var underway: Bool
            /// What the pages say of it, in the request's language.
            var message: String
        }
    }

    private func status(storeId: StoreID, now: Date) throws -> StatusJSON {
        guard let (entry, standing) = database.board.live(storeId, now: now) else {
            throw EntranceError(404, "notFound", tr("api.noStore"))
        }
        let store = entry.store
        let board = EntranceBoard(entry.live, next: 0)
        func queue(_ pool: StoreStanding.PoolStanding) -> StatusJSON.Queue {
            StatusJSON.Queue(parties: pool.parties, people: pool.people)
        }
        /// A newcomer's wait in minutes and its range, both nil when the pool takes no ticket.
        func wait(_ pool: Pool) -> (minutes: Int, range: [Int]?)? {
            guard case .accepted(let wait, _) = standing.newcomerDecision(pool) else { return nil }
            let range = (pool == .online ? standing.online : standing.walkIn).newcomerRange.map {
                [Int(($0.lowerBound / 60).rounded(.down)), Int(($0.upperBound / 60).rounded(.up))]
            }
            return (Int((wait / 60).rounded(.up)), range)
        }
        let online = wait(.online)
        let walkIn = wait(.walkIn)
        return StatusJSON(
            storeId: storeId, name: store.name, open: standing.status.openState.isOpen, capacity: store.capacity,
            peopleInside: standing.status.peopleInside, onlineQueue: queue(standing.online),
            walkInQueue: queue(standing.walkIn), calling: board.called.map(\.number),
            waitMinutes: online?.minutes, walkInWaitMinutes: walkIn?.minutes, waitRangeMinutes: online?.range,
            walkInWaitRangeMinutes: walkIn?.range,
            maintenance: (try database.maintenance.shownMaintenance(now: now)).map { window, phase in
                StatusJSON.Maintenance(startsAt: window.startsAt.formatted(.iso8601), endsAt: window.endsAt.formatted(.iso8601),
                                       underway: phase == .underway, message: Views.banner(window, phase, now: now).text)
            })
    }

    static func error(_ error: EntranceError) -> Response {
        struct Body: Encodable {
            var code: String
            var message: String
        }
        var response = Response.json(Body(code: error.code, message: error.message), status: error.status)
        if error.status == 401 { response.headers.append(("WWW-Authenticate", "Bearer")) }
        return response
    }

    /// An `HTTPError` as the API answers it: its status, a stable code for it, its message and
    /// its headers (Retry-After, Allow).
    static func error(_ error: HTTPError) -> Response {
        var response = Self.error(EntranceError(error.status, code(for: error.status), error.message))
        for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) { response.headers.append((name, value)) }
        return response
    }

    static func code(for status: Int) -> String {
        switch status {
        case 400: "badRequest"
        case 404: "notFound"
        case 405: "methodNotAllowed"
        case 413: "payloadTooLarge"
        default: "error"
        }
    }
}
