import CLupData
import CLupPaths
import CLupText
import Foundation
import Logging

/// CLup as a function from `Request` to `Response`. It knows nothing of FastCGI, so tests call
/// it in-process; the executable wires it to the transport.
///
/// Each area of the site registers its own routes on the groups below, with the guards each
/// group declares once: `session` (who is asking, errors as pages) and `csrf` for every page,
/// then the area's own (`signedIn`, `confirmed`, `manager`, `kiosk`…); the device API is a
/// group of its own with JSON errors and the `deviceKey` guard.
public struct App: Sendable {
    public let environment: AppEnvironment
    let views: Views
    private let router: Router<RouteEntry>
    private let fallbacks: [(prefix: String, answer: @Sendable (RequestContext, HTTPError) -> Response)]
    /// Every route with its guards, in registration order (for the route listing test).
    let routeTable: [RouteEntry]

    public init(environment: AppEnvironment, views: Views) {
        let database = environment.database
        let views = views.showingLiveState(from: database)
        self.environment = environment
        self.views = views
        let routes = Routes()

        let heartbeats = environment.heartbeats
        routes.root.get(Paths.health) { context in
            // `?live`: only that this worker answers (a supervisor's probe), with no database work.
            guard context.request.query["live"] == nil else {
                var response = Response.json(["status": "alive"])
                response.headers.append(("Cache-Control", "no-store"))
                return response
            }
            return Self.health(database, heartbeats: heartbeats, now: context.now)
        }
        let metrics = environment.metrics
        routes.root.get(Paths.metrics) { context in
            guard let metrics, metrics.allows(context.request) else { throw HTTPError.notFound }
            return metrics.answer(database, now: context.now)
        }

        let site = routes.root.adding(.pages(database: database, views: views, logger: environment.logger))
        routes.fallback(prefix: "/", through: site)
        let forms = site.adding(.csrf).adding(.formReplies(database: database, views: views))
        StoresArea(database: database, views: views, settings: environment.settings, places: environment.places,
                   logger: environment.logger).addRoutes(to: forms)
        AccountsArea(database: database, views: views, settings: environment.settings).addRoutes(to: forms)
        let codes = TicketCodes(database: database, tickets: environment.tickets)
        ReservationsArea(database: database, views: views, settings: environment.settings,
                         tickets: environment.tickets, codes: codes).addRoutes(to: forms)
        let follow = FollowCodes(signer: environment.tickets.derived(for: FollowCodes.purpose))
        ManageArea(database: database, views: views, settings: environment.settings, codes: codes, follow: follow,
                   staticPages: environment.staticPages).addRoutes(to: forms)
        let desk = EntranceDesk(database: database, tickets: environment.tickets, codes: codes)
        let watch = KioskWatch(database: database, logger: environment.logger)
        KioskArea(database: database, views: views, desk: desk, watch: watch, follow: follow,
                  baseURL: environment.settings.baseURL, logger: environment.logger)
            .addRoutes(to: forms)
        SupportArea(database: database, views: views, settings: environment.settings).addRoutes(to: forms)
        FollowArea(database: database, views: views, codes: follow).addRoutes(to: forms)

        let api = routes.root.adding(.jsonErrors(logger: environment.logger))
        routes.fallback(prefix: Paths.apiPrefix, through: api)
        DeviceArea(database: database, desk: desk, watch: watch).addRoutes(to: api)

        var router = Router<RouteEntry>()
        for entry in routes.entries { router.add(entry.method, entry.pattern, entry) }
        self.router = router
        fallbacks = routes.fallbacks
        routeTable = routes.entries
    }

    /// Answers every request: the route's guards and handler, or the 404/405 of the group
    /// whose prefix the path is under. Errors are answered by the groups' middleware; one that
    /// escapes them is logged and becomes a generic 500.
    public func respond(to request: Request) -> Response {
        Language.$current.withValue(request.language) { measured(path: request.path) { answer(request) } }
    }

    /// `respond`, counted and timed for `/metrics`.
    private func measured(path: String, _ respond: () -> Response) -> Response {
        let start = ContinuousClock.now
        let response = respond()
        WebMetrics.answered(path: path, status: response.status, after: ContinuousClock.now - start)
        return response
    }

    private func answer(_ request: Request) -> Response {
        let now = environment.now()
        var response = answer(request, now: now)
        if request.path.hasPrefix(Paths.apiPrefix) || request.path.hasPrefix(Paths.kiosk.pattern) {
            // CLup's clock is the entrance's: kiosks and devices learn their offset from it.
            response.headers.append((Self.timeHeader, Self.time(now)))
        }
        return response
    }

    /// The header giving CLup's time, to the millisecond, on every answer to a kiosk or device.
    static let timeHeader = "CLup-Time"

    static func time(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    private func answer(_ request: Request, now: Date) -> Response {
        var context = RequestContext(request: request, parameters: [:], now: now)
        do {
            let (entry, parameters) = try router.match(method: request.method, path: request.path)
            context.parameters = parameters
            return try entry.handle(context)
        } catch let error as HTTPError {
            let fallback = fallbacks.first { request.path.hasPrefix($0.prefix) }
            return fallback?.answer(context, error) ?? views.errorResponse(error, visitor: .anonymous)
        } catch {
            environment.logger.error("\(request.method.rawValue) \(request.path) failed: \(String(reflecting: error))")
            return views.errorResponse(.internal, visitor: .anonymous)
        }
    }

    /// The route `method` and `path` reach, with the captured parameters (for the route tests).
    func route(_ method: HTTPMethod, _ path: String) throws -> (route: RouteEntry, parameters: [String: String]) {
        try router.match(method: method, path: path)
    }

    /// The transport's entry point: a body over the limit is refused before anything is parsed.
    /// The language is read from the raw parameters first, so a request that cannot be read
    /// is told so in its own language too.
    public func respond(cgiParams: [String: [UInt8]], body: [UInt8], bodyTooLarge: Bool) -> Response {
        let language = Request.language(cookieHeader: cgiParams["HTTP_COOKIE"],
                                         acceptLanguage: cgiParams["HTTP_ACCEPT_LANGUAGE"])
        // The device API's errors are JSON even before its request could be read.
        let path = cgiParams["DOCUMENT_URI"].map { String(decoding: $0, as: UTF8.self) } ?? ""
        func failure(_ error: HTTPError) -> Response {
            guard path.hasPrefix("/api/") else { return views.errorResponse(error, visitor: .anonymous) }
            return DeviceArea.error(error)
        }
        return Language.$current.withValue(language) {
            let request: Request
            do throws(HTTPError) {
                request = try Request(cgiParams: cgiParams, body: body)
            } catch {
                return measured(path: path) { failure(error) }
            }
            return measured(path: request.path) { bodyTooLarge ? failure(.payloadTooLarge) : answer(request) }
        }
    }

    /// `/healthz` (see `Health`).
    private static func health(_ database: AppDatabase, heartbeats: Heartbeats, now: Date) -> Response {
        let (health, status) = Health.check(database, heartbeats: heartbeats, now: now)
        var response = Response.json(health, status: status)
        response.headers.append(("Cache-Control", "no-store"))
        return response
    }
}
