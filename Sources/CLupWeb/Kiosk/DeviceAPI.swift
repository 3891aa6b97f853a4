import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation

/// The API for the entrance's hardware — QR scanners and ticket dispensers (RASD 3.1.3) —
/// described in `Public/api/openapi.json`.
///
/// A device authenticates every request with its kiosk's key (`Authorization: Bearer …`) and
/// acts only for that kiosk's store. No cookies are read, so no CSRF token is needed: a page
/// elsewhere cannot make a browser send the key. Errors are JSON with a stable `code` and a
/// `message` a person can act on.
struct DeviceAPI: Sendable {
    static let prefix = "/api/"

    enum Route: Sendable {
        case scan, issueTicket, storeStatus
    }

    let environment: AppEnvironment
    let router: Router<Route>

    init(environment: AppEnvironment) {
        self.environment = environment
        var router = Router<Route>()
        router.add(.post, "/api/v1/scan", .scan)
        router.add(.post, "/api/v1/tickets", .issueTicket)
        router.add(.get, "/api/v1/stores/{id}/status", .storeStatus)
        self.router = router
    }

    private var desk: EntranceDesk { EntranceDesk(environment: environment) }

    func respond(to request: Request) -> Response {
        do {
            let (route, parameters) = try router.match(method: request.method, path: request.path)
            let kiosk = try authenticate(request)
            let now = environment.now()
            switch route {
            case .scan:
                let body = try decode(ScanRequest.self, from: request)
                return .json(try desk.scan(code: body.code, kiosk: kiosk, now: now))
            case .issueTicket:
                let body = try decode(TicketRequest.self, from: request)
                switch try desk.issueTicket(people: body.people, minutes: body.residenceMinutes,
                                            requestKey: body.requestKey, kiosk: kiosk, now: now)
                {
                case .success(let ticket): return .json(try ticketJSON(ticket, now: now), status: 201)
                case .failure(let error): throw error
                }
            case .storeStatus:
                guard let id = parameters["id"].flatMap({ Int64($0) }), id > 0 else {
                    throw EntranceError(404, "notFound", "There is no store with that id.")
                }
                guard id == kiosk.storeId else {
                    throw EntranceError(403, "otherStore", "This device's key is for another store.")
                }
                return .json(try status(storeId: id, now: now))
            }
        } catch let error as EntranceError {
            return Self.error(error)
        } catch let error as HTTPError {
            var response = Self.error(EntranceError(error.status, Self.code(for: error.status), error.message))
            for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) { response.headers.append((name, value)) }
            return response
        } catch {
            environment.logger.error("\(request.method.rawValue) \(request.path) failed: \(String(reflecting: error))")
            return Self.error(EntranceError(500, "internal", "Something went wrong on our side. Please try again."))
        }
    }

    // MARK: Requests

    struct ScanRequest: Decodable {
        var code: String
    }

    struct TicketRequest: Decodable {
        var people: Int
        var residenceMinutes: Int
        /// Any unique text of 16+ URL-safe characters: a request repeated with it issues one ticket.
        var requestKey: String?
    }

    /// The kiosk whose key the request carries, or 401.
    private func authenticate(_ request: Request) throws -> Kiosk {
        guard let header = request.headers["authorization"], header.lowercased().hasPrefix("bearer ") else {
            throw EntranceError(401, "unauthorized", "Send the kiosk's device key as `Authorization: Bearer <key>`.")
        }
        let key = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        guard let kiosk = try environment.database.kiosk(key: key) else {
            throw EntranceError(401, "invalidKey", "This device key is not valid, or it was revoked.")
        }
        return kiosk
    }

    private func decode<Body: Decodable>(_ type: Body.Type, from request: Request) throws -> Body {
        guard request.headers["content-type"]?.lowercased().hasPrefix("application/json") == true else {
            throw EntranceError(415, "unsupportedMediaType", "Send the body as application/json.")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(request.body))
        } catch {
            throw EntranceError(400, "invalidBody", "The body is not the JSON this operation expects: \(Self.describe(error))")
        }
    }

    /// A short, safe description of what was wrong with a JSON body.
    private static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): "`\(key.stringValue)` is missing."
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "`\(context.codingPath.map(\.stringValue).joined(separator: "."))` has the wrong type."
        default: "it could not be read."
        }
    }

    // MARK: Responses

    struct TicketJSON: Encodable {
        var id: Int64
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
        let store = try environment.database.store(id: ticket.storeId)
        return TicketJSON(
            id: ticket.id, number: ticket.number, code: environment.tickets.token(for: ticket.id),
            status: ticket.status.rawValue, people: ticket.people, residenceMinutes: ticket.residenceMinutes,
            issuedAt: ticket.createdAt.formatted(.iso8601), estimatedWaitMinutes: wait, storeName: store?.name ?? "")
    }

    struct StatusJSON: Encodable {
        struct Queue: Encodable {
            var parties: Int
            var people: Int
        }

        var storeId: Int64
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
    }

    private func status(storeId: Int64, now: Date) throws -> StatusJSON {
        guard let details = try environment.database.storeDetails(id: storeId) else {
            throw EntranceError(404, "notFound", "There is no store with that id.")
        }
        let store = details.store
        let live = try environment.database.liveTraffic(storeId: storeId, now: now)
        let board = EntranceBoard(live, next: 0)
        func queue(_ pool: Pool) -> StatusJSON.Queue {
            let waiting = live.live.filter { $0.pool == pool && $0.state == .waiting }
            return StatusJSON.Queue(parties: waiting.count, people: waiting.reduce(0) { $0 + $1.people })
        }
        func wait(_ pool: Pool) -> Int? {
            guard pool.places(store.settings) > 0,
                case .accepted(let wait, _) = live.lineUpDecision(
                    people: 1, residence: StoreStatus.typicalVisit, settings: store.settings,
                    hours: details.openingHours, now: now, pool: pool)
            else { return nil }
            return Int((wait / 60).rounded(.up))
        }
        var open = false
        if case .open = details.openingHours.state(at: now) { open = true }
        return StatusJSON(
            storeId: storeId, name: store.name, open: open, capacity: store.capacity, peopleInside: live.peopleInside,
            onlineQueue: queue(.online), walkInQueue: queue(.walkIn), calling: board.called.map(\.number),
            waitMinutes: wait(.online), walkInWaitMinutes: wait(.walkIn))
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
