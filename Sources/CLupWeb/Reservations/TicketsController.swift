import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation

/// A customer's tickets: the ticket page with its QR code (also as a PNG), its live status as
/// JSON for the page's script, cancelling, and the list of their reservations (R15, MP1).
///
/// A reservation is only ever shown to its owner; anyone else gets the same 404 as for an id
/// that does not exist, so ids reveal nothing.
struct TicketsController {
    let app: App

    private var database: AppDatabase { app.environment.database }

    func ticket(_ context: RequestContext) throws -> Response {
        let owned = try ownReservation(context)
        let progress = try self.progress(owned, now: context.now)
        let token = app.environment.tickets.token(for: owned.reservation.id)
        let code = owned.reservation.status.isActive ? try QRCode(encoding: token) : nil
        let page = TicketPage(owned, progress: progress, code: code, now: context.now)
        return app.page(.ticket, title: "Your ticket", section: .reservations, context, page)
    }

    /// The ticket's live figures, for the script that refreshes the page.
    func status(_ context: RequestContext) throws -> Response {
        let owned = try ownReservation(context)
        let progress = try self.progress(owned, now: context.now)
        return .json(progress.json)
    }

    /// The QR code as a PNG to save or print.
    func qrImage(_ context: RequestContext) throws -> Response {
        let owned = try ownReservation(context)
        guard owned.reservation.status.isActive else {
            throw HTTPError(410, "This reservation is over, so its code no longer opens the door.")
        }
        let code = try QRCode(encoding: app.environment.tickets.token(for: owned.reservation.id))
        let fileName = "clup-\(owned.store.name.fileNameSafe)-\(owned.reservation.number).png"
        return Response(status: 200, headers: [
            ("Content-Type", "image/png"),
            ("Cache-Control", "private, no-store"),
            ("Content-Disposition", "attachment; filename=\"\(fileName)\""),
        ], body: code.png())
    }

    func cancel(_ context: RequestContext) throws -> Response {
        let user = try context.visitor.requireUser(for: context.request)
        let id = try context.id("id")
        let userId = user.id
        guard let owned = try database.reservation(id: id), owned.reservation.userId == userId
        else { throw HTTPError.notFound }
        guard try database.cancelReservation(id: id, userId: userId, now: context.now) else {
            throw HTTPError(409, owned.reservation.status == .inside
                ? "You are in the store: this reservation ends when you scan out."
                : "This reservation is already over, so there is nothing to cancel.")
        }
        return .redirect(to: "/reservations?cancelled=\(id)")
    }

    func list(_ context: RequestContext) throws -> Response {
        let user = try context.visitor.requireUser(for: context.request)
        let userId = user.id
        let all = try database.reservations(userId: userId)
        let active = try all.first { $0.reservation.status.isActive }.map { owned in
            (owned, try progress(owned, now: context.now))
        }
        let page = ReservationsPage(
            active: active.map { ActiveRow($0.0, progress: $0.1, now: context.now) },
            history: all.filter { !$0.reservation.status.isActive }.map { HistoryRow($0, now: context.now) },
            cancelled: context.request.query["cancelled"] != nil)
        return app.page(.reservations, title: "My reservations", section: .reservations, context, page)
    }

    // MARK: Helpers

    private func ownReservation(_ context: RequestContext) throws -> ReservationWithStore {
        let user = try context.visitor.requireUser(for: context.request)
        guard let owned = try database.reservation(id: try context.id("id")), owned.reservation.userId == user.id
        else { throw HTTPError.notFound }
        return owned
    }

    private func progress(_ owned: ReservationWithStore, now: Date) throws -> TicketProgress {
        let reservation = owned.reservation
        guard reservation.status == .waiting else { return TicketProgress(owned, standing: nil, now: now) }
        let live = try database.liveTraffic(storeId: reservation.storeId, now: now)
        let settings = owned.store.settings
        let standing = QueueStanding.of(reservation.id, live: live.live, settings: settings,
                                        estimator: live.estimator(settings: settings, pool: reservation.pool), now: now)
        return TicketProgress(owned, standing: standing, now: now)
    }
}

extension String {
    /// Letters and digits only, dashes between: for a file name offered to download.
    var fileNameSafe: String {
        let words = lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return words.isEmpty ? "store" : words.joined(separator: "-")
    }
}
