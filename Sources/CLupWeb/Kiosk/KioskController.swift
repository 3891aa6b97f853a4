import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation

/// The browser at a store's entrance (SPEC 7–9): enrolled once with a device key, it
/// dispenses walk-in tickets, scans codes at entry and exit, and shows the numbers called.
///
/// Every page but enrolment needs this browser's kiosk cookie, resolved afresh on each request,
/// so a revoked key stops working at once; a kiosk only ever acts for its own store.
struct KioskController {
    let app: App

    private var database: AppDatabase { app.environment.database }
    private var desk: EntranceDesk { EntranceDesk(environment: app.environment) }

    /// A browser stays enrolled for as long as browsers keep a cookie (about 400 days).
    static let cookieLifetime = 400 * 24 * 3600

    // MARK: Enrolment

    /// The kiosk's start page: the enrolment form, or the store's three screens.
    func home(_ context: RequestContext) throws -> Response {
        guard let kiosk = context.visitor.kiosk else {
            let revoked = context.request.cookies[Visitor.kioskCookie(secure: context.secure)] != nil
            var response = enrolPage(context, error: revoked
                ? "This browser's device key no longer works: it was revoked. Enter a new key to go on." : nil)
            if revoked { response.setCookie(kioskCookie(value: "", maxAge: 0, secure: context.secure)) }
            return response
        }
        return app.page(.kioskHome, title: "Kiosk", context, try KioskHomePage(kiosk: kiosk, store: store(of: kiosk)))
    }

    func enrol(_ context: RequestContext) throws -> Response {
        let key = (context.form["key"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard let kiosk = try database.kiosk(key: key) else {
            return enrolPage(context, error: "That device key is not valid, or it was revoked. Check it and try again.",
                             status: 403)
        }
        app.environment.logger.info("kiosk \(kiosk.id) enrolled a browser from \(context.request.remoteAddress)")
        var response = Response.redirect(to: "/kiosk")
        response.setCookie(kioskCookie(value: key, maxAge: Self.cookieLifetime, secure: context.secure))
        return response
    }

    /// Forgets the key in this browser (the key itself stays valid until an admin revokes it).
    func leave(_ context: RequestContext) throws -> Response {
        var response = Response.redirect(to: "/kiosk")
        response.setCookie(kioskCookie(value: "", maxAge: 0, secure: context.secure))
        return response
    }

    private func enrolPage(_ context: RequestContext, error: String?, status: Int = 200) -> Response {
        app.page(.kioskEnrol, title: "Set up a kiosk", context, KioskEnrolPage(error: error), status: status)
    }

    private func kioskCookie(value: String, maxAge: Int, secure: Bool) -> Cookie {
        Cookie(name: Visitor.kioskCookie(secure: secure), value: value, maxAge: maxAge, secure: secure)
    }

    // MARK: Ticket dispenser

    func dispenser(_ context: RequestContext) throws -> Response {
        let kiosk = try requireKiosk(context)
        return try dispenserPage(kiosk, context, error: nil)
    }

    func issue(_ context: RequestContext) throws -> Response {
        let kiosk = try requireKiosk(context)
        let outcome = try desk.issueTicket(
            people: context.form["people"].flatMap { Int($0) }, minutes: context.form["minutes"].flatMap { Int($0) },
            requestKey: context.form["requestKey"], kiosk: kiosk, now: context.now)
        switch outcome {
        case .success(let ticket):
            return .redirect(to: "/kiosk/tickets/\(ticket.id)")
        case .failure(let error):
            return try dispenserPage(kiosk, context, error: error)
        }
    }

    private func dispenserPage(_ kiosk: Kiosk, _ context: RequestContext, error: EntranceError?) throws -> Response {
        guard let details = try database.storeDetails(id: kiosk.storeId) else { throw HTTPError.notFound }
        let live = try database.liveTraffic(storeId: kiosk.storeId, now: context.now)
        let page = DispenserPage(details: details, live: live, now: context.now, error: error?.message)
        return app.page(.kioskDispenser, title: "Take a ticket", context, page, status: error?.status ?? 200)
    }

    /// The ticket to print. Only this store's walk-in tickets, and only while they are fresh:
    /// the kiosk is a public screen, not a history.
    func ticket(_ context: RequestContext) throws -> Response {
        let kiosk = try requireKiosk(context)
        guard let ticket = try database.walkInTicket(id: try context.id("id"), storeId: kiosk.storeId),
            context.now.timeIntervalSince(ticket.createdAt) < KioskTicketPage.shownFor
        else { throw HTTPError.notFound }
        let store = try store(of: kiosk)
        let code = try QRCode(encoding: app.environment.tickets.token(for: ticket.id))
        let page = KioskTicketPage(ticket: ticket, store: store, code: code,
                                   standing: try desk.standing(of: ticket, now: context.now), now: context.now)
        return app.page(.kioskTicket, title: "Your ticket", context, page)
    }

    // MARK: Scanner

    func scanner(_ context: RequestContext) throws -> Response {
        let kiosk = try requireKiosk(context)
        let store = try store(of: kiosk)
        let inside = try database.liveTraffic(storeId: kiosk.storeId, now: context.now).peopleInside
        return app.page(.kioskScanner, title: "Scanner", context,
                        ScannerPage(store: store, report: nil, peopleInside: inside))
    }

    /// A scan from the scanner page: the page again with the verdict, or the verdict as JSON
    /// for the page's script.
    func scan(_ context: RequestContext) throws -> Response {
        let kiosk = try requireKiosk(context)
        let report = try desk.scan(code: context.form["code"] ?? "", kiosk: kiosk, now: context.now)
        if context.request.headers["accept"]?.contains("application/json") == true { return .json(report) }
        return app.page(.kioskScanner, title: report.headline, context,
                        ScannerPage(store: try store(of: kiosk), report: report, peopleInside: report.peopleInside))
    }

    // MARK: Now calling

    func board(_ context: RequestContext) throws -> Response {
        let kiosk = try requireKiosk(context)
        let store = try store(of: kiosk)
        let board = try database.entranceBoard(storeId: kiosk.storeId, now: context.now)
        return app.page(.kioskBoard, title: "Now calling", context, BoardPage(store: store, board: board))
    }

    // MARK: Helpers

    /// This browser's kiosk, or a trip to the enrolment page.
    private func requireKiosk(_ context: RequestContext) throws -> Kiosk {
        guard let kiosk = context.visitor.kiosk else {
            if context.request.method == .get { throw HTTPError.redirect(to: "/kiosk") }
            throw HTTPError(403, "This browser is not an enrolled kiosk (or its key was revoked). Enrol it again at /kiosk.")
        }
        return kiosk
    }

    private func store(of kiosk: Kiosk) throws -> Store {
        guard let store = try database.store(id: kiosk.storeId) else { throw HTTPError.notFound }
        return store
    }
}
