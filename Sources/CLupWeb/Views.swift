import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// Renders typed page templates (`Templates/`, the CLupTemplates target) inside the frame
/// every page shares. Templates are compiled with the app: a page that names a field its
/// model lacks does not build, and rendering involves no lookup by name.
public struct Views: Sendable {
    public let assets: Assets
    /// The VAPID public key pages give browsers to subscribe to push messages, if push is on.
    public let pushKey: String?
    /// The signed-in customer's active reservation at `now`, for the top of shopper pages.
    let activeTicket: @Sendable (User, Date) -> ActiveTicket?
    /// Scheduled maintenance to announce at `now`, on every page.
    let maintenance: @Sendable (Date) -> MaintenanceBanner?

    public init(assets: Assets, pushKey: String? = nil) {
        self.init(assets: assets, pushKey: pushKey, activeTicket: { _, _ in nil }, maintenance: { _ in nil })
    }

    init(assets: Assets, pushKey: String?, activeTicket: @escaping @Sendable (User, Date) -> ActiveTicket?,
         maintenance: @escaping @Sendable (Date) -> MaintenanceBanner?)
    {
        self.assets = assets
        self.pushKey = pushKey
        self.activeTicket = activeTicket
        self.maintenance = maintenance
    }

    /// The same views, showing from `database` each signed-in customer's active reservation
    /// and the scheduled maintenance.
    func showingLiveState(from database: AppDatabase) -> Views {
        Views(assets: assets, pushKey: pushKey, activeTicket: { user, now in
            guard let owned = try? database.reservations.activeReservationFromBoard(userId: user.id) else { return nil }
            let progress = TicketProgress(owned, standing: nil, now: now)
            return ActiveTicket(storeName: owned.store.name, number: owned.reservation.number,
                                headline: progress.headline, href: Paths.ticket(owned.reservation.id),
                                urgent: owned.reservation.status == .called)
        }, maintenance: { now in
            (try? database.maintenance.shownMaintenance(now: now)).flatMap { Self.banner($0.window, $0.phase, now: now) }
        })
    }

    /// "Scheduled maintenance tomorrow at 02:00 – 04:00 (Europe/Rome) …", or while it lasts
    /// "… back today at 04:00".
    static func banner(_ window: MaintenanceWindow, _ phase: MaintenanceWindow.Phase, now: Date) -> MaintenanceBanner {
        switch phase {
        case .underway:
            let until = Formatting.moment(window.endsAt, now: now, timeZone: window.zone)
            return MaintenanceBanner(text: tr("maintenance.underway", ["until": until, "zone": window.timeZone]),
                                     underway: true)
        case .announced:
            let (from, until) = Formatting.span(window, now: now)
            return MaintenanceBanner(text: tr("maintenance.announced", ["from": from, "until": until, "zone": window.timeZone]),
                                     underway: false)
        }
    }

    /// The frame of a page for this visitor: title, assets, navigation, CSRF token.
    func frame(title: String, section: Section, visitor: Visitor) -> Frame {
        var frame = Frame(title: title, stylesheet: assets.stylesheet, script: assets.script, icon: assets.icon,
                          section: section, csrf: visitor.csrfToken, userName: visitor.user?.displayName,
                          isManager: visitor.user?.role.opensManage ?? false,
                          unconfirmed: visitor.user.map { !$0.isConfirmed } ?? false, pushKey: pushKey)
        frame.isSupport = visitor.user?.role.helpsCustomers ?? false
        return frame
    }

    /// A page of the site for the visitor making `context`'s request.
    func page(title: String, section: Section = .none, _ context: some BrowserRequest, _ page: some Page,
              status: Int = 200) -> Response
    {
        var frame = frame(title: title, section: section, visitor: context.visitor)
        let query = context.request.query.urlEncoded
        frame.languageSwitchQuery = FormData(pairs: [
            ("back", query.isEmpty ? context.request.path : context.request.path + "?" + query),
        ]).urlEncoded
        // On the pages a shopper browses (not their reservations, which show it already).
        if section == .stores, let user = context.visitor.user { frame.activeTicket = activeTicket(user, context.now) }
        frame.maintenance = maintenance(context.now)
        var response = Response.html(page.render(in: frame).text, status: status)
        if frame.usedCSRF, let cookie = context.visitor.newGuestToken { response.setCookie(cookie) }
        if Self.isSharedGuestPage(context.visitor, usedCSRF: frame.usedCSRF)
            && context.request.cacheKeyCookiesAreUnambiguous
        {
            // First: nginx reads headers in order, and a Cache-Control: no-store (for browsers)
            // seen before it would make the response uncacheable for nginx too.
            response.headers.insert(("X-Accel-Expires", String(Self.guestPageLifetime)), at: 0)
        }
        return response
    }

    /// How long nginx may serve a guest's page from its cache (seconds): with the board's
    /// standings at most a second old, the live numbers a guest sees are at most two.
    static let guestPageLifetime = 1

    /// A page that is the same for every guest: nobody signed in, no kiosk, no form carrying
    /// a token. nginx caches such pages briefly (`X-Accel-Expires`); it never caches a response
    /// that sets a cookie, nor serves its cache to a request carrying a session or kiosk cookie.
    /// Nor is a page shared whose request nginx might read other cookies from than the worker
    /// did (`Request.cacheKeyCookiesAreUnambiguous`).
    static func isSharedGuestPage(_ visitor: Visitor, usedCSRF: Bool) -> Bool {
        visitor.user == nil && visitor.kiosk == nil && visitor.session == nil && !usedCSRF
    }

    /// An error as a page in the site's layout; a redirect "error" becomes the redirect.
    func errorResponse(_ error: HTTPError, visitor: Visitor) -> Response {
        if error.status == 303, let location = error.headers["Location"] { return .redirect(to: location) }
        var response = Response.html(
            errorPage(status: error.status, message: error.message, title: error.title, visitor: visitor),
            status: error.status)
        for (name, value) in error.headers.sorted(by: { $0.key < $1.key }) {
            response.headers.append((name, value))
        }
        return response
    }

    /// The HTML of an error page; also written as the static pages nginx serves when the
    /// worker cannot answer (413, 502).
    public func errorPage(status: Int, message: String, title: String? = nil, visitor: Visitor = .anonymous) -> String {
        ErrorPage(status: title == nil ? status : nil, title: title ?? ErrorPage.title(for: status), message: message)
            .render(in: frame(title: title ?? ErrorPage.title(for: status), section: .none, visitor: visitor)).text
    }
}

extension ErrorPage {
    static func title(for status: Int) -> String {
        switch status {
        case 400: tr("error.title.400")
        case 404: tr("error.title.404")
        case 405: tr("error.title.405")
        case 413: tr("error.title.413")
        case 415: tr("error.title.415")
        case 403: tr("error.title.403")
        case 429: tr("error.title.429")
        case 502, 503, 504: tr("error.title.restarting")
        case 500...: tr("error.title.500")
        default: tr("error.title.other", ["status": String(status)])
        }
    }
}

extension HTTPError {
    /// Anything that is not the person's to act on: a generic page, the details in the log.
    static var `internal`: HTTPError { HTTPError(500, tr("error.internal")) }
}
