import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// Lining up and booking (RASD use case 3) and the customer's tickets (R15, MP1).
///
/// The wizard: how long and how many → line up or book → (means of transport | slot) → recap
/// → confirm. Every step is a plain page and a GET form, so it works without JavaScript and
/// the back button; only confirming changes anything. Its steps live in `WizardStep*.swift`.
/// Only confirmed customers may reserve; a ticket is only ever shown to its owner.
struct ReservationsArea {
    let database: AppDatabase
    let views: Views
    let settings: SiteSettings
    let tickets: TicketToken
    /// The QR codes of tickets.
    let codes: TicketCodes
    /// Signs the Confirm and Cancel links of booking reminders.
    var replies: TicketToken { tickets.derived(for: Self.replyPurpose) }
    static let replyPurpose = "booking-reply"

    func addRoutes(to pages: RouteGroup<BrowserContext>) {
        pages.get(Paths.bookingReply, replyForm)
        pages.post(Paths.bookingReply, reply)
        let customers = pages.adding(.signedIn)
        let wizard = customers.adding(.confirmed)
        wizard.get(Paths.reserve, start)
        wizard.get(Paths.reserveHow, how)
        wizard.get(Paths.reserveSlots, slots)
        wizard.get(Paths.reserveRecap, recap)
        wizard.post(Paths.storeReservations, create)
        wizard.post(Paths.storeWaitlist, joinWaitlist)

        customers.get(Paths.reservations, list)
        let owner = customers.adding(.reservationOwner(database: database))
        owner.get(Paths.ticket, ticket)
        owner.get(Paths.ticketStatus, status)
        owner.get(Paths.ticketImage, qrImage)
        owner.post(Paths.ticketCancel, cancel)
        owner.post(Paths.ticketTravel, changeTravel)
        owner.post(Paths.ticketPosition, reportPosition)
        owner.post(Paths.ticketConfirm, confirmBooking)
        let listed = customers.adding(.waitlistOwner(database: database))
        listed.get(Paths.waitlist, waitlistPage)
        listed.post(Paths.waitlistAccept, acceptOffer)
        listed.post(Paths.waitlistLeave, leaveWaitlist)
    }

    // MARK: Helpers the steps share

    func store(_ context: some HandlerContext) throws -> StoreBoard.Definition {
        guard let details = database.board.entry(try context.id())?.definition else { throw HTTPError.notFound }
        guard !details.isRetired else { throw HTTPError(410, tr("store.retiredGone")) }
        return details
    }

    func shopper(_ context: CustomerContext) -> ShopperContext {
        ShopperContext(request: context.request, settings: settings, user: context.user)
    }

    /// The shopper as a posted form carries them (its fields are the wizard's query's).
    func formShopper(_ context: CustomerContext) -> ShopperContext {
        ShopperContext(request: Request(method: .get, path: "/", query: context.form), settings: settings,
                       user: context.user)
    }

    /// The customer's usual visit length at the store, once they have enough visits (R1.3).
    func usualMinutes(userId: UserID, storeId: StoreID) throws -> Int? {
        ResidenceTime.fromVisits(try database.reservations.pastVisits(userId: userId, storeId: storeId).map(\.actual))
    }

    func alternatives(_ context: some HandlerContext, plan: VisitPlan, shopper: ShopperContext) -> Alternatives {
        Alternatives(database: database, now: context.now, plan: plan, shopper: shopper)
    }

    static func slotStart(_ form: FormData) throws(HTTPError) -> Date {
        guard let seconds = form["slot"].flatMap({ Int($0) }), seconds > 0 else {
            throw .badRequest(tr("plan.chooseSlot"))
        }
        return Date(timeIntervalSince1970: Double(seconds))
    }

    static func hidden(_ pairs: [(name: String, value: String)]) -> [HiddenField] {
        pairs.map { HiddenField(name: $0.name, value: $0.value) }
    }
}

extension String {
    /// "today" → "Today".
    var capitalizedFirst: String { prefix(1).uppercased() + dropFirst() }
}
