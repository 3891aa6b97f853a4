import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// A booking reminder's Confirm and Cancel links (R17, UC8). They carry a token signed for
/// this purpose alone, so they work from the email without signing in; opening one changes
/// nothing, and the page's button (a CSRF-checked POST) gives the answer.
extension ReservationsArea {
    func replyForm(_ context: BrowserContext) throws -> Response {
        if let stashed = EmailedLink.stash(context, parameter: "t") { return stashed }
        var response = try replyPage(context)
        EmailedLink.protect(&response)
        return response
    }

    private func replyPage(_ context: BrowserContext) throws -> Response {
        let query = context.request.query
        let (owned, token) = try repliedBooking(EmailedLink.token(context), now: context.now)
        let now = context.now
        guard owned.reservation.status == .booked else { return replyOutcome(context, owned, answered: nil) }
        var facts = [Fact(tr("fact.store"), owned.store.name), Fact(tr("fact.address"), owned.store.address)]
        if let slot = owned.slot { facts.append(Fact(tr("fact.slot"), Formatting.slot(slot, now: now, timeZone: owned.store.zone))) }
        facts.append(Fact(tr("fact.people"), Formatting.people(owned.reservation.people)))
        if owned.reservation.confirmedAt != nil { facts.append(Fact(tr("manage.status"), tr("reply.confirmed"))) }
        let page = BookingReplyPage(storeName: owned.store.name, facts: facts, token: token,
                                    action: Paths.bookingReply(), cancelFirst: query["answer"] == "cancel")
        return views.page(title: tr("reply.pageTitle"), context, page)
    }

    func reply(_ context: BrowserContext) throws -> Response {
        let (owned, _) = try repliedBooking(context.form["t"], now: context.now)
        let reservation = owned.reservation
        guard let userId = reservation.userId else { throw HTTPError.notFound }
        switch context.form["answer"] {
        case "confirm":
            let reply = try database.reservations.confirmBooking(id: reservation.id, userId: userId, now: context.now)
            return replyOutcome(context, try database.reservations.reservation(id: reservation.id) ?? owned,
                                answered: reply == .confirmed || reply == .alreadyConfirmed ? "confirm" : nil)
        case "cancel":
            let cancelled = try database.reservations.cancelReservation(id: reservation.id, userId: userId, now: context.now)
            return replyOutcome(context, try database.reservations.reservation(id: reservation.id) ?? owned,
                                answered: cancelled ? "cancel" : nil)
        default:
            throw HTTPError.badRequest(tr("reply.choose"))
        }
    }

    /// The booking a reply token names; 404 for a token that is not one, and 410 once its slot
    /// has ended: a link in an old email answers nothing.
    private func repliedBooking(_ token: String?, now: Date) throws -> (ReservationWithStore, String) {
        guard let token, let id = replies.reservationId(from: token).map({ ReservationID($0) }), let owned = try database.reservations.reservation(id: id),
            owned.reservation.kind == .booking
        else {
            throw HTTPError(404, tr("reply.badLink"))
        }
        if let slot = owned.slot, now >= slot.end { throw HTTPError(410, tr("reply.expiredLink")) }
        return (owned, token)
    }

    private func replyOutcome(_ context: BrowserContext, _ owned: ReservationWithStore, answered: String?) -> Response {
        let store = owned.store.name
        let title: String
        let line: String
        switch (answered, owned.reservation.status) {
        case ("confirm", _):
            title = tr("reply.confirmedTitle")
            line = tr("reply.confirmedLine", ["store": store])
        case ("cancel", _):
            title = tr("reply.cancelledTitle")
            line = tr("reply.cancelledLine", ["store": store])
        case (_, .cancelled):
            title = tr("reply.wasCancelled")
            line = owned.reservation.remindedAt != nil && owned.reservation.confirmedAt == nil
                ? tr("reply.notConfirmed") : tr("reply.cancelledBefore")
        default:
            title = tr("reply.over")
            line = tr("reply.nothingLeft")
        }
        return views.page(title: title, context, MessagePage(
            title: title, lines: [line], link: (tr("nav.reservations"), Paths.reservations())))
    }
}
