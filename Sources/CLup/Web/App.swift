import Foundation
import Logging
import Mustache

/// CLup as a function from `Request` to `Response`. It knows nothing of FastCGI, so tests call
/// it in-process; the executable wires it to the transport.
public struct App: Sendable {
    public let environment: AppEnvironment
    let views: Views
    private let router: Router<Route>

    enum Route: Sendable {
        case home
        case store
        case health
    }

    public init(environment: AppEnvironment, views: Views) {
        self.environment = environment
        self.views = views
        var router = Router<Route>()
        router.add(.get, "/", .home)
        router.add(.get, "/stores/{id}", .store)
        router.add(.get, "/healthz", .health)
        self.router = router
    }

    /// Answers every request: an `HTTPError` becomes its page; anything else is logged and
    /// becomes a generic 500 that reveals nothing of the cause.
    public func respond(to request: Request) -> Response {
        do {
            let (route, parameters) = try router.match(method: request.method, path: request.path)
            let stores = StoresController(app: self)
            switch route {
            case .home: return try stores.home(request)
            case .store: return try stores.store(request, id: parameters["id"] ?? "")
            case .health: return health()
            }
        } catch let error as HTTPError {
            return errorPage(error)
        } catch {
            environment.logger.error("\(request.method.rawValue) \(request.path) failed: \(String(reflecting: error))")
            return errorPage(HTTPError(500, "Something went wrong on our side. Please try again in a moment."))
        }
    }

    /// The transport's entry point: a body over the limit is refused before anything is parsed.
    public func respond(cgiParams: [String: [UInt8]], body: [UInt8], bodyTooLarge: Bool) -> Response {
        if bodyTooLarge { return errorPage(.payloadTooLarge) }
        do {
            return respond(to: try Request(cgiParams: cgiParams, body: body))
        } catch {
            return errorPage(error)
        }
    }

    /// An error page in the site's layout.
    public func errorPage(_ error: HTTPError) -> Response {
        var response = Response.html(renderErrorPage(status: error.status, message: error.message), status: error.status)
        for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) {
            response.headers.append((name, value))
        }
        return response
    }

    /// The HTML of an error page; also used to generate the static pages nginx serves when the
    /// worker cannot answer (413, 502).
    public func renderErrorPage(status: Int, message: String) -> String {
        let title = ErrorPage.title(for: status)
        return views.render(.error, title: title, page: ErrorPage(status: status, title: title, message: message))
    }

    /// `/healthz`: whether the worker can read its database, as JSON for load balancers.
    private func health() -> Response {
        struct Health: Encodable {
            var status: String
            var database: String
        }
        let healthy = environment.database.isHealthy()
        return .json(Health(status: healthy ? "ok" : "error", database: healthy ? "ok" : "unavailable"),
                     status: healthy ? 200 : 503)
    }
}

struct ErrorPage {
    var status: Int
    var title: String
    var message: String

    static func title(for status: Int) -> String {
        switch status {
        case 400: "That request could not be read"
        case 404: "Page not found"
        case 405: "Not allowed here"
        case 413: "Too much to send"
        case 415: "Unsupported form"
        case 502, 503, 504: "CLup is restarting"
        case 500...: "Something went wrong"
        default: "Error \(status)"
        }
    }
}

extension ErrorPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "status": status
        case "title": title
        case "message": message
        default: nil
        }
    }
}
