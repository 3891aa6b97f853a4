import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation
import Logging
import Mustache

/// CLup as a function from `Request` to `Response`. It knows nothing of FastCGI, so tests call
/// it in-process; the executable wires it to the transport.
public struct App: Sendable {
    public let environment: AppEnvironment
    let views: Views
    private let router: Router<Route>
    /// `/api/…`: the device API, authenticated by a kiosk's key rather than cookies.
    private let api: DeviceAPI

    enum Route: Sendable {
        case home, store, health
        case signUpForm, signUp, signInForm, signIn, signOut, signOutEverywhere
        case confirmForm, confirm, resendConfirmation, forgotForm, forgot, resetForm, reset
        case account, updateProfile, changePassword, deleteAccount
        case manage, manageStore
        case reserveStart, reserveHow, reserveSlots, reserveRecap, reserve
        case reservations, ticket, ticketStatus, ticketImage, cancelReservation
        case kiosk, kioskEnrol, kioskLeave, kioskDispenser, kioskIssue, kioskTicket, kioskScanner, kioskScan, kioskBoard
    }

    public init(environment: AppEnvironment, views: Views) {
        self.environment = environment
        self.views = views
        var router = Router<Route>()
        router.add(.get, "/", .home)
        router.add(.get, "/stores/{id}", .store)
        router.add(.get, "/healthz", .health)
        router.add(.get, "/signup", .signUpForm)
        router.add(.post, "/signup", .signUp)
        router.add(.get, "/signin", .signInForm)
        router.add(.post, "/signin", .signIn)
        router.add(.post, "/signout", .signOut)
        router.add(.post, "/signout/everywhere", .signOutEverywhere)
        router.add(.get, "/confirm", .confirmForm)
        router.add(.post, "/confirm", .confirm)
        router.add(.post, "/confirm/resend", .resendConfirmation)
        router.add(.get, "/forgot", .forgotForm)
        router.add(.post, "/forgot", .forgot)
        router.add(.get, "/reset", .resetForm)
        router.add(.post, "/reset", .reset)
        router.add(.get, "/account", .account)
        router.add(.post, "/account/profile", .updateProfile)
        router.add(.post, "/account/password", .changePassword)
        router.add(.post, "/account/delete", .deleteAccount)
        router.add(.get, "/manage", .manage)
        router.add(.get, "/manage/stores/{id}", .manageStore)
        router.add(.get, "/stores/{id}/reserve", .reserveStart)
        router.add(.get, "/stores/{id}/reserve/how", .reserveHow)
        router.add(.get, "/stores/{id}/reserve/slots", .reserveSlots)
        router.add(.get, "/stores/{id}/reserve/recap", .reserveRecap)
        router.add(.post, "/stores/{id}/reservations", .reserve)
        router.add(.get, "/reservations", .reservations)
        router.add(.get, "/reservations/{id}", .ticket)
        router.add(.get, "/reservations/{id}/status", .ticketStatus)
        router.add(.get, "/reservations/{id}/qr.png", .ticketImage)
        router.add(.post, "/reservations/{id}/cancel", .cancelReservation)
        router.add(.get, "/kiosk", .kiosk)
        router.add(.post, "/kiosk/enrol", .kioskEnrol)
        router.add(.post, "/kiosk/leave", .kioskLeave)
        router.add(.get, "/kiosk/dispenser", .kioskDispenser)
        router.add(.post, "/kiosk/tickets", .kioskIssue)
        router.add(.get, "/kiosk/tickets/{id}", .kioskTicket)
        router.add(.get, "/kiosk/scanner", .kioskScanner)
        router.add(.post, "/kiosk/scan", .kioskScan)
        router.add(.get, "/kiosk/board", .kioskBoard)
        self.router = router
        api = DeviceAPI(environment: environment)
    }

    /// Answers every request. The visitor is resolved and, for a POST, the CSRF token checked
    /// before any handler runs. An `HTTPError` becomes its page; anything else is logged and
    /// becomes a generic 500 that reveals nothing of the cause.
    public func respond(to request: Request) -> Response {
        if request.path.hasPrefix(DeviceAPI.prefix) { return api.respond(to: request) }
        var visitor = Visitor.anonymous
        do {
            let now = environment.now()
            visitor = try Visitor.resolve(request, database: environment.database, now: now)
            let (route, parameters) = try router.match(method: request.method, path: request.path)
            var form = FormData()
            if request.method == .post {
                form = try request.form()
                try visitor.checkCSRF(form)
            }
            let context = RequestContext(request: request, visitor: visitor, form: form, parameters: parameters, now: now)
            var response = try dispatch(route, context)
            // First, so a cookie the handler sets (a new session) overrides one cleared here.
            response.headers.insert(contentsOf: visitor.cookies.map { ("Set-Cookie", $0.headerValue) }, at: 0)
            return response
        } catch let error as HTTPError {
            var response = errorPage(error, visitor: visitor)
            visitor.cookies.forEach { response.setCookie($0) }
            return response
        } catch {
            environment.logger.error("\(request.method.rawValue) \(request.path) failed: \(String(reflecting: error))")
            return errorPage(HTTPError(500, "Something went wrong on our side. Please try again in a moment."),
                             visitor: visitor)
        }
    }

    private func dispatch(_ route: Route, _ context: RequestContext) throws -> Response {
        let stores = StoresController(app: self)
        let accounts = AccountsController(app: self)
        let manage = ManageController(app: self)
        let wizard = WizardController(app: self)
        let tickets = TicketsController(app: self)
        let kiosk = KioskController(app: self)
        switch route {
        case .home: return try stores.home(context)
        case .store: return try stores.store(context)
        case .health: return health()
        case .signUpForm: return accounts.signUpForm(context)
        case .signUp: return try accounts.signUp(context)
        case .signInForm: return accounts.signInForm(context)
        case .signIn: return try accounts.signIn(context)
        case .signOut: return try accounts.signOut(context)
        case .signOutEverywhere: return try accounts.signOutEverywhere(context)
        case .confirmForm: return try accounts.confirmForm(context)
        case .confirm: return try accounts.confirm(context)
        case .resendConfirmation: return try accounts.resendConfirmation(context)
        case .forgotForm: return accounts.forgotForm(context)
        case .forgot: return try accounts.forgot(context)
        case .resetForm: return try accounts.resetForm(context)
        case .reset: return try accounts.reset(context)
        case .account: return try accounts.account(context)
        case .updateProfile: return try accounts.updateProfile(context)
        case .changePassword: return try accounts.changePassword(context)
        case .deleteAccount: return try accounts.deleteAccount(context)
        case .manage: return try manage.list(context)
        case .manageStore: return try manage.store(context)
        case .reserveStart: return try wizard.start(context)
        case .reserveHow: return try wizard.how(context)
        case .reserveSlots: return try wizard.slots(context)
        case .reserveRecap: return try wizard.recap(context)
        case .reserve: return try wizard.create(context)
        case .reservations: return try tickets.list(context)
        case .ticket: return try tickets.ticket(context)
        case .ticketStatus: return try tickets.status(context)
        case .ticketImage: return try tickets.qrImage(context)
        case .cancelReservation: return try tickets.cancel(context)
        case .kiosk: return try kiosk.home(context)
        case .kioskEnrol: return try kiosk.enrol(context)
        case .kioskLeave: return try kiosk.leave(context)
        case .kioskDispenser: return try kiosk.dispenser(context)
        case .kioskIssue: return try kiosk.issue(context)
        case .kioskTicket: return try kiosk.ticket(context)
        case .kioskScanner: return try kiosk.scanner(context)
        case .kioskScan: return try kiosk.scan(context)
        case .kioskBoard: return try kiosk.board(context)
        }
    }

    /// The transport's entry point: a body over the limit is refused before anything is parsed.
    public func respond(cgiParams: [String: [UInt8]], body: [UInt8], bodyTooLarge: Bool) -> Response {
        if bodyTooLarge { return errorPage(.payloadTooLarge, visitor: .anonymous) }
        do {
            return respond(to: try Request(cgiParams: cgiParams, body: body))
        } catch {
            return errorPage(error, visitor: .anonymous)
        }
    }

    /// Renders a page of the site for this visitor.
    func page<Model>(_ template: Views.Template, title: String, section: Views.Section = .none, _ context: RequestContext,
                     _ model: Model, status: Int = 200) -> Response
    {
        .html(views.render(template, title: title, section: section, visitor: context.visitor, page: model), status: status)
    }

    /// An error page in the site's layout; a redirect "error" becomes the redirect.
    public func errorPage(_ error: HTTPError, visitor: Visitor = .anonymous) -> Response {
        if error.status == 303, let location = error.headers["Location"] { return .redirect(to: location) }
        var response = Response.html(renderErrorPage(status: error.status, message: error.message, visitor: visitor),
                                     status: error.status)
        for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) {
            response.headers.append((name, value))
        }
        return response
    }

    /// The HTML of an error page; also used to generate the static pages nginx serves when the
    /// worker cannot answer (413, 502).
    public func renderErrorPage(status: Int, message: String, visitor: Visitor = .anonymous) -> String {
        let title = ErrorPage.title(for: status)
        return views.render(.error, title: title, visitor: visitor,
                            page: ErrorPage(status: status, title: title, message: message))
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
        case 403: "Not allowed"
        case 429: "Too many attempts"
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
