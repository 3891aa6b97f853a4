import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// Support (`/support`, for support staff and administrators): look a customer up by their
/// address, giving why; see their account and reservations; cancel a reservation for them with
/// a reason they are told; and, for administrators, close an account that breaks the terms,
/// its owner emailed why. Every look-up and action is logged (`Support`), and the log is on
/// the page for those who may read it.
///
/// The address travels in a POST's body, never in an address (which access logs keep); the
/// answer to a look-up is the page itself, so it is not kept in the browser's history either.
struct SupportArea {
    let database: AppDatabase
    let views: Views
    let settings: SiteSettings

    func addRoutes(to pages: RouteGroup<BrowserContext>) {
        let support = pages.adding(.signedIn).adding(.support)
        support.get(Paths.support, home)
        support.post(Paths.support, lookUp)
        support.post(Paths.supportCancel, cancel)
        support.post(Paths.supportClose, close)
    }

    /// Reasons are short notes, kept in the log (and told the customer for a cancellation).
    static let reasonLength = 200

    func home(_ context: CustomerContext) throws -> Response {
        try page(context, SupportPage.Search())
    }

    /// Looks a customer up; the look-up is logged whether or not the address has an account.
    func lookUp(_ context: CustomerContext) throws -> Response {
        var search = SupportPage.Search(email: String((context.form["email"] ?? "").trimmed.prefix(254)),
                                        reason: (context.form["reason"] ?? "").trimmed)
        search.emailError = search.email.isEmpty ? tr("support.giveEmail") : AccountFields.emailProblem(search.email)
        search.reasonError = Self.reasonProblem(search.reason)
        guard search.emailError == nil, search.reasonError == nil else { return try page(context, search, status: 422) }
        let customer = try database.support.lookUp(email: search.email, reason: search.reason, by: context.user.id,
                                                   now: context.now)
        guard let customer else {
            search.notFound = true
            return try page(context, search)
        }
        return try page(context, SupportPage.Search(), customer: customer)
    }

    /// Cancels one of the customer's reservations, with the reason they are told.
    func cancel(_ context: CustomerContext) throws -> Response {
        let customer = try customer(context)
        guard let id = context.form["reservation"].flatMap({ Int64($0) }).map(ReservationID.init(rawValue:)) else {
            throw HTTPError.notFound
        }
        let reason = (context.form["reason"] ?? "").trimmed
        if let problem = Self.reasonProblem(reason) {
            return try page(context, SupportPage.Search(), customer: customer, status: 422) { view in
                view.cancelError = (id.rawValue, problem)
            }
        }
        switch try database.support.cancel(reservationId: id, of: customer.id, reason: reason, by: context.user.id,
                                           now: context.now)
        {
        case .cancelled(let reservation):
            let store = database.board.entry(reservation.storeId)?.store.name ?? ""
            return try page(context, SupportPage.Search(), customer: customer) { view in
                view.notice = tr("support.cancelled", ["number": String(reservation.number), "store": store])
            }
        case .notCancellable:
            return try page(context, SupportPage.Search(), customer: customer, status: 409) { view in
                view.error = tr("support.notCancellable")
            }
        }
    }

    /// Closes an account under the terms (administrators only): deleted as its owner would
    /// delete it, its owner emailed the reason.
    func close(_ context: CustomerContext) throws -> Response {
        guard context.user.role == .admin else { throw HTTPError.forbidden }
        let customer = try customer(context)
        let reason = (context.form["reason"] ?? "").trimmed
        if ClosureLetter.problem(reason) != nil {
            return try page(context, SupportPage.Search(), customer: customer, status: 422) { view in
                view.closeReason = reason
                view.closeError = tr("support.closeReasonBad")
            }
        }
        // A customer's account, or door staff's; not one that runs stores or helps customers.
        guard [.customer, .staff].contains(customer.role) else {
            return try page(context, SupportPage.Search(), customer: customer, status: 409) { view in
                view.error = tr("support.closeStaff")
            }
        }
        let letter = ClosureLetter(settings: settings)
        _ = try database.support.closeAccount(customer.id, reason: reason, by: context.user.id, now: context.now,
                                              farewell: { letter.write(to: $0, reason: reason, now: context.now) })
        var search = SupportPage.Search()
        search.notice = tr("support.closed", ["email": customer.email])
        return try page(context, search)
    }

    /// The customer a form names, who must still have an account.
    private func customer(_ context: CustomerContext) throws -> User {
        guard let id = context.form["customer"].flatMap({ Int64($0) }),
            let customer = try database.support.customer(id: UserID(rawValue: id))
        else { throw HTTPError(404, tr("support.gone")) }
        return customer
    }

    static func reasonProblem(_ reason: String) -> String? {
        reason.isEmpty ? tr("support.giveReason") : ManageArea.textProblem(reason, maxLength: reasonLength)
    }

    /// The page: the search form (as sent, with what is wrong), a customer looked up, and the
    /// log — of that customer, or of everyone's last look-ups.
    private func page(_ context: CustomerContext, _ search: SupportPage.Search, customer: User? = nil, status: Int = 200,
                      adjust: (inout SupportPage.Customer) -> Void = { _ in }) throws -> Response
    {
        let now = context.now
        let zone = ManageArea.chainZone(database)
        var view = SupportPage(search: search)
        if let customer {
            var shown = SupportPage.Customer(
                id: customer.id.rawValue, name: customer.displayName, email: customer.email,
                facts: [
                    Fact(tr("support.account"), customer.isConfirmed ? tr("support.confirmed") : tr("support.unconfirmed")),
                    Fact(tr("support.role"), tr("role.\(customer.role.rawValue)")),
                    Fact(tr("support.since"), Formatting.moment(customer.createdAt, now: now, timeZone: zone)),
                    Fact(tr("account.language"), Language(rawValue: customer.language)?.autonym ?? customer.language),
                ])
            shown.reservations = try database.reservations.forCustomer(userId: customer.id, limit: 10).map { item in
                let reservation = item.reservation
                let when = reservation.slotStart ?? reservation.createdAt
                return SupportPage.Reservation(
                    id: reservation.id.rawValue, store: item.store.name, number: reservation.number,
                    what: tr("kind.\(reservation.kind.rawValue)") + " · " + Formatting.people(reservation.people),
                    when: Formatting.moment(when, now: now, timeZone: item.store.zone),
                    status: DoorConsole.statusWords(reservation.status), cancellable: reservation.status.isCancellable)
            }
            shown.canClose = context.user.role == .admin
            adjust(&shown)
            view.customer = shown
        }
        view.log = try database.support.log(customerId: customer?.id, limit: customer == nil ? 50 : 20).map { entry in
            var what = tr("support.action.\(entry.action.rawValue)")
            if let ticket = entry.ticket {
                what += " · " + tr("support.ticketAt", ["number": String(ticket.number), "store": ticket.store])
            }
            return SupportPage.LogRow(when: Formatting.moment(entry.at, now: now, timeZone: zone),
                                      who: entry.staff ?? tr("support.formerStaff"), what: what, email: entry.email,
                                      why: entry.reason)
        }
        return views.page(title: tr("support.title"), section: .support, context, view, status: status)
    }
}
