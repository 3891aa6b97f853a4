import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import Foundation

/// A customer's tickets: the ticket page with its QR code (also as a PNG), its live status as
/// JSON for the page's script, cancelling, and the list of their reservations. The
/// `reservationOwner` guard has already checked the reservation is theirs.
extension ReservationsArea {
    func ticket(_ context: OwnedTicketContext) throws -> Response {
        let owned = context.owned
        let progress = try self.progress(owned, now: context.now)
        let code = owned.reservation.status.isActive ? try QRCode(encoding: tickets.token(for: owned.reservation.id)) : nil
        let page = TicketPage(owned, progress: progress, code: code, now: context.now)
        return views.page(title: "Your ticket", section: .reservations, context, page)
    }

    /// Changes how the customer travels (R5.2): their travel time, "leave by" and call follow.
    func changeTravel(_ context: OwnedTicketContext) throws -> Response {
        let reservation = context.owned.reservation
        guard let mode = context.form["mode"].flatMap(TravelMode.init(rawValue:)) else {
            throw HTTPError.badRequest("Choose on foot, car or public transport.")
        }
        guard try database.changeTravelMode(id: reservation.id, userId: context.user.id, to: mode) else {
            throw HTTPError(409, "This ticket is no longer waiting for its turn, so how you travel no longer matters.")
        }
        return .redirect(to: Paths.ticket(reservation.id))
    }

    /// Confirms the booking from its ticket (R17).
    func confirmBooking(_ context: OwnedTicketContext) throws -> Response {
        let reservation = context.owned.reservation
        switch try database.confirmBooking(id: reservation.id, userId: context.user.id, now: context.now) {
        case .confirmed, .alreadyConfirmed:
            return .redirect(to: Paths.ticket(reservation.id))
        case .notBooked, .notFound:
            throw HTTPError(409, "This booking is no longer waiting for a visit, so there is nothing to confirm.")
        }
    }

    /// The ticket's live figures, for the script that refreshes the page.
    func status(_ context: OwnedTicketContext) throws -> Response {
        let owned = context.owned
        let asOf = Formatting.time(context.now, timeZone: owned.store.zone, now: context.now)
        return .json(try progress(owned, now: context.now).json(asOf: asOf))
    }

    /// The QR code as a PNG to save or print.
    func qrImage(_ context: OwnedTicketContext) throws -> Response {
        let owned = context.owned
        guard owned.reservation.status.isActive else {
            throw HTTPError(410, "This reservation is over, so its code no longer opens the door.")
        }
        let code = try QRCode(encoding: tickets.token(for: owned.reservation.id))
        let fileName = "clup-\(owned.store.name.fileNameSafe)-\(owned.reservation.number).png"
        return Response(status: 200, headers: [
            ("Content-Type", "image/png"),
            ("Cache-Control", "private, no-store"),
            ("Content-Disposition", "attachment; filename=\"\(fileName)\""),
        ], body: code.png())
    }

    func cancel(_ context: OwnedTicketContext) throws -> Response {
        let reservation = context.owned.reservation
        guard try database.cancelReservation(id: reservation.id, userId: context.user.id, now: context.now) else {
            throw HTTPError(409, reservation.status == .inside
                ? "You are in the store: this reservation ends when you scan out."
                : "This reservation is already over, so there is nothing to cancel.")
        }
        return .redirect(to: Paths.reservations(query: "cancelled=\(reservation.id)"))
    }

    func list(_ context: CustomerContext) throws -> Response {
        let now = context.now
        let all = try database.reservations(userId: context.user.id)
        let active = try all.first { $0.reservation.status.isActive }.map { owned in
            ReservationsPage.Active(
                summary: TicketSummary(owned, now: now), progress: try progress(owned, now: now),
                href: Paths.ticket(owned.reservation.id),
                cancelAction: owned.reservation.status.isCancellable ? Paths.ticketCancel(owned.reservation.id) : nil)
        }
        let page = ReservationsPage(
            active: active,
            history: all.filter { !$0.reservation.status.isActive }.map { ReservationsPage.HistoryRow($0, now: now) },
            cancelled: context.request.query["cancelled"] != nil)
        return views.page(title: "My reservations", section: .reservations, context, page)
    }

    private func progress(_ owned: ReservationWithStore, now: Date) throws -> TicketProgress {
        let reservation = owned.reservation
        guard reservation.status == .waiting else { return TicketProgress(owned, standing: nil, now: now) }
        let standing = database.board.standing(of: reservation.storeId, now: now)?.standing(of: reservation.id)
        return TicketProgress(owned, standing: standing, now: now)
    }
}

extension TicketSummary {
    init(_ owned: ReservationWithStore, now: Date) {
        let reservation = owned.reservation
        let zone = owned.store.zone
        if let start = reservation.slotStart {
            self.init(storeName: owned.store.name, kind: "Booked visit",
                      when: Formatting.moment(start, now: now, timeZone: zone), number: reservation.number)
        } else {
            self.init(storeName: owned.store.name, kind: reservation.walkIn ? "Walk-in ticket" : "Line-up",
                      when: "taken " + Formatting.moment(reservation.createdAt, now: now, timeZone: zone),
                      number: reservation.number)
        }
    }
}

extension TicketProgress {
    /// Where `owned` stands at `now`, in words; `standing` for a waiting line-up.
    init(_ owned: ReservationWithStore, standing: QueueStanding?, now: Date) {
        let reservation = owned.reservation
        let zone = owned.store.zone
        func clock(_ date: Date) -> String { Formatting.clock(date, now: now, timeZone: zone) }
        let status = reservation.status.rawValue
        let travel = reservation.travel
        let journey = reservation.travelMode.map { "\(Formatting.duration(travel)) \($0.phrase)" } ?? ""
        switch reservation.status {
        case .waiting where travel > 0:
            if let leftAt = reservation.leftAt {
                self.init(
                    status: status, headline: "Time to leave for the store",
                    detail: "Leave now: it takes you about \(journey). Your place is held for you until you arrive, "
                        + "around \(clock(leftAt + travel)); we will tell you when to go in.",
                    peopleAhead: standing?.peopleAhead, entry: standing?.entry.map { "around " + clock($0) },
                    leaveBy: "now", live: true)
                return
            }
            if let standing, let entry = standing.entry {
                let leave = Departure.leaveBy(entry: entry, travel: travel)
                let ahead = standing.peopleAhead == 0 ? "Nobody is ahead of you."
                    : "\(Formatting.people(standing.peopleAhead)) ahead of you."
                self.init(
                    status: status, headline: "You are in the queue",
                    detail: ahead + " Expected entry around \(clock(entry)). It takes you about \(journey): "
                        + (leave <= now ? "leave now." : "leave by \(clock(leave)); we will tell you when."),
                    peopleAhead: standing.peopleAhead, entry: "around " + clock(entry),
                    leaveBy: leave <= now ? "now" : clock(leave), live: true)
                return
            }
            fallthrough
        case .waiting:
            guard let standing, let entry = standing.entry else {
                self.init(status: status, headline: "You are in the queue",
                          detail: "Your party is larger than the places the store has for the queue.",
                          peopleAhead: standing?.peopleAhead, live: true)
                return
            }
            let ahead = standing.peopleAhead == 0 ? "Nobody is ahead of you."
                : "\(Formatting.people(standing.peopleAhead)) ahead of you."
            self.init(
                status: status, headline: "You are in the queue",
                detail: ahead + (entry <= now ? " Expected to enter any moment now."
                    : " Expected entry around \(clock(entry)) (in \(Formatting.duration(entry.timeIntervalSince(now))))."),
                peopleAhead: standing.peopleAhead, entry: entry <= now ? "now" : "around " + clock(entry), live: true)
        case .called:
            let deadline = reservation.callDeadline(at: owned.store) ?? now
            self.init(status: status, headline: "It is your turn: please go to the entrance",
                      detail: "Scan your code at the entrance by \(clock(deadline)), or the ticket expires.", live: true)
        case .booked:
            let slot = owned.slot ?? Slot(start: now, end: now)
            let window = owned.store.settings.entryWindow(slotStart: slot.start)
            let when = "Slot \(Formatting.slot(slot, now: now, timeZone: zone)). Scan your code at the entrance between "
                + "\(Formatting.time(window.lowerBound, timeZone: zone, now: now)) and "
                + "\(Formatting.time(window.upperBound, timeZone: zone, now: now))."
            if reservation.confirmedAt != nil {
                self.init(status: status, headline: "Your visit is booked · Confirmed", detail: when, live: false)
            } else if let reminded = reservation.remindedAt {
                self.init(
                    status: status, headline: "Please confirm your visit",
                    detail: when + " Confirm by \(clock(reminded + BookingReminder.replyWindow)), or the booking is "
                        + "cancelled and its place given to someone else.",
                    live: true)
            } else {
                self.init(
                    status: status, headline: "Your visit is booked",
                    detail: when + " We will remind you 2 hours before and ask you to confirm.", live: false)
            }
        case .inside:
            self.init(status: status, headline: "You are in the store",
                      detail: "Since \(clock(reservation.enteredAt ?? now)). Scan your code again on your way out.",
                      live: true)
        case .done:
            self.init(status: status, headline: "Visit complete", detail: Self.visit(reservation, now: now, zone: zone),
                      live: false)
        case .cancelled:
            self.init(status: status, headline: "Cancelled",
                      detail: (reservation.remindedAt != nil && reservation.confirmedAt == nil && reservation.kind == .booking
                          ? "This booking was cancelled because it was not confirmed within an hour of its reminder"
                          : "This reservation was cancelled")
                          + (reservation.endedAt.map { " " + Formatting.moment($0, now: now, timeZone: zone) } ?? "") + ".",
                      live: false)
        case .expired:
            self.init(status: status, headline: "Expired", detail: "This reservation was not used in time.", live: false)
        }
    }

    /// "In today at 10:05, out at 10:40 (35 min)."
    static func visit(_ reservation: Reservation, now: Date, zone: TimeZone) -> String {
        guard let entered = reservation.enteredAt else { return "" }
        let inAt = Formatting.moment(entered, now: now, timeZone: zone)
        guard let exited = reservation.exitedAt else { return "In \(inAt)." }
        return "In \(inAt), out at \(Formatting.time(exited, timeZone: zone, now: now)) "
            + "(\(Formatting.duration(exited.timeIntervalSince(entered))))."
    }

    struct JSON: Encodable {
        var status: String
        var headline: String
        var detail: String
        var peopleAhead: Int?
        var entry: String?
        var leaveBy: String?
        /// The store's local time of this answer ("20:14"), for the page to say when a change came.
        var asOf: String
    }

    func json(asOf: String) -> JSON {
        JSON(status: status, headline: headline, detail: detail, peopleAhead: peopleAhead, entry: entry, leaveBy: leaveBy,
             asOf: asOf)
    }
}

extension TicketPage {
    init(_ owned: ReservationWithStore, progress: TicketProgress, code: QRCode?, now: Date) {
        let reservation = owned.reservation
        let store = owned.store
        let summary = TicketSummary(owned, now: now)
        var facts = [Fact("Store", store.name), Fact("Address", store.address), Fact("Type", summary.kind)]
        if let slot = owned.slot { facts.append(Fact("Slot", Formatting.slot(slot, now: now, timeZone: store.zone))) }
        facts.append(Fact("Visit length", "about \(reservation.residenceMinutes) min"))
        facts.append(Fact("People", Formatting.people(reservation.people)))
        if let mode = reservation.travelMode {
            facts.append(Fact("Getting there", reservation.travel > 0
                ? "\(mode.label) · \(Formatting.duration(reservation.travel))" : mode.label))
        }
        var travel: TravelForm?
        if let metres = reservation.travelMetres, reservation.status == .waiting {
            travel = TravelForm(action: Paths.ticketTravel(reservation.id), choices: TravelMode.allCases.map { mode in
                Choice(value: mode.rawValue,
                       label: "\(mode.label) · \(Formatting.duration(TravelMode.travel(mode: mode, metres: metres)))",
                       checked: mode == reservation.travelMode)
            })
        }
        let awaitsConfirmation = reservation.status == .booked && reservation.confirmedAt == nil
        self.init(
            storeName: store.name, number: reservation.number, kind: summary.kind, progress: progress, facts: facts,
            code: code.map { QRDrawing(side: $0.svgSide, path: $0.svgPath) },
            pngHref: Paths.ticketImage(reservation.id), statusHref: Paths.ticketStatus(reservation.id),
            cancelAction: reservation.status.isCancellable ? Paths.ticketCancel(reservation.id) : nil,
            travel: travel, confirmAction: awaitsConfirmation ? Paths.ticketConfirm(reservation.id) : nil,
            pushAction: reservation.status.isActive ? Paths.accountPush() : "")
    }
}

extension ReservationsPage.HistoryRow {
    init(_ owned: ReservationWithStore, now: Date) {
        let summary = TicketSummary(owned, now: now)
        let reservation = owned.reservation
        let outcome: String
        switch reservation.status {
        case .done: outcome = TicketProgress.visit(reservation, now: now, zone: owned.store.zone)
        case .cancelled: outcome = "Cancelled"
        case .expired: outcome = "Expired: not used in time"
        default: outcome = ""
        }
        self.init(storeName: summary.storeName, kind: summary.kind, when: summary.when, outcome: outcome,
                  href: Paths.ticket(reservation.id))
    }
}

extension String {
    /// Letters and digits only, dashes between: for a file name offered to download.
    var fileNameSafe: String {
        let words = lowercased().split { !($0.isASCII && ($0.isLetter || $0.isNumber)) }
        return words.isEmpty ? "store" : words.joined(separator: "-")
    }
}
