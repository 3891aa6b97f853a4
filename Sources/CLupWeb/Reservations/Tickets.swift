import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// A customer's tickets: the ticket page with its QR code (also as a PNG), its live status as
/// JSON for the page's script, cancelling, and the list of their reservations. The
/// `reservationOwner` guard has already checked the reservation is theirs.
extension ReservationsArea {
    func ticket(_ context: OwnedTicketContext) throws -> Response {
        let owned = context.owned
        let progress = try self.progress(owned, now: context.now)
        let code = owned.reservation.status.isActive ? try QRCode(encoding: codes.text(for: owned.reservation, now: context.now)) : nil
        var page = TicketPage(owned, progress: progress, code: code, now: context.now)
        if context.user.notifyPush, owned.reservation.status.isActive, try database.notices.pushLost(userId: context.user.id) != nil {
            page.pushLost = tr("ticket.pushLost", ["email": context.user.email])
        }
        return views.page(title: tr("ticket.title"), section: .reservations, context, page)
    }

    /// Changes how the customer travels (R5.2): their travel time, "leave by" and call follow.
    func changeTravel(_ context: OwnedTicketContext) throws -> Response {
        let reservation = context.owned.reservation
        guard let mode = context.form["mode"].flatMap(TravelMode.init(rawValue:)) else {
            throw HTTPError.badRequest(tr("ticket.chooseMode"))
        }
        switch try database.reservations.changeTravelMode(id: reservation.id, userId: context.user.id, to: mode) {
        case .changed:
            return .redirect(to: Paths.ticket(reservation.id))
        case .notChangeable:
            throw HTTPError(409, tr("ticket.notWaiting"))
        case .refused(let refusal):
            throw HTTPError(422, Self.travelRefusal(refusal, store: context.owned.store, now: context.now))
        }
    }

    /// Why a line-up keeps its travel (`TravelChange`), in words.
    static func travelRefusal(_ refusal: TravelChange.Refusal, store: Store, now: Date) -> String {
        switch refusal {
        case .tooFar(let travel):
            tr("ticket.travelTooFar", ["travel": Formatting.duration(travel),
                                       "longest": Formatting.duration(LineUpPolicy.longestWait)])
        case .onTheWay(let leftAt, let travel):
            tr("ticket.travelOnTheWay", ["time": Formatting.time(leftAt, timeZone: store.zone, now: now),
                                         "travel": Formatting.duration(travel)])
        }
    }

    /// Where the customer is now, sent by the ticket page while it is open, only after they
    /// asked for it: the distance to the store becomes the line-up's travel, so the leave-by
    /// time and the call (`Departure`) follow where they are. Answers the ticket's figures.
    func reportPosition(_ context: OwnedTicketContext) throws -> Response {
        let owned = context.owned
        guard let latitude = context.form["lat"].flatMap(Double.init), let longitude = context.form["lon"].flatMap(Double.init),
              let here = GeoPoint(validLatitude: latitude, longitude: longitude)
        else { throw HTTPError.badRequest(tr("ticket.badPosition")) }
        let metres = min(TravelMode.longestMetres, Int(here.distance(to: owned.store.position).rounded()))
        switch try database.reservations.changeTravelDistance(id: owned.reservation.id, userId: context.user.id, to: metres) {
        case .changed:
            break
        case .notChangeable:
            throw HTTPError(409, tr("ticket.notWaiting"))
        case .refused(let refusal):
            // The ticket's script shows the message in place of "your position set when to leave".
            return .json(["message": Self.travelRefusal(refusal, store: owned.store, now: context.now)], status: 422)
        }
        guard let updated = try database.reservations.reservation(id: owned.reservation.id) else {
            throw HTTPError(409, tr("ticket.notWaiting"))
        }
        let asOf = Formatting.time(context.now, timeZone: updated.store.zone, now: context.now)
        return .json(try progress(updated, now: context.now).json(asOf: asOf))
    }

    /// Confirms the booking from its ticket (R17).
    func confirmBooking(_ context: OwnedTicketContext) throws -> Response {
        let reservation = context.owned.reservation
        switch try database.reservations.confirmBooking(id: reservation.id, userId: context.user.id, now: context.now) {
        case .confirmed, .alreadyConfirmed:
            return .redirect(to: Paths.ticket(reservation.id))
        case .notBooked, .notFound:
            throw HTTPError(409, tr("ticket.nothingToConfirm"))
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
            throw HTTPError(410, tr("ticket.over"))
        }
        let code = try QRCode(encoding: codes.text(for: owned.reservation, now: context.now))
        let fileName = "clup-\(owned.store.name.fileNameSafe)-\(owned.reservation.number).png"
        return Response(status: 200, headers: [
            ("Content-Type", "image/png"),
            ("Cache-Control", "private, no-store"),
            ("Content-Disposition", "attachment; filename=\"\(fileName)\""),
        ], body: code.png())
    }

    func cancel(_ context: OwnedTicketContext) throws -> Response {
        let reservation = context.owned.reservation
        guard try database.reservations.cancelReservation(id: reservation.id, userId: context.user.id, now: context.now) else {
            throw HTTPError(409, reservation.status == .inside
                ? tr("ticket.cancelInside") : tr("ticket.cancelOver"))
        }
        return .redirect(to: Paths.reservations(query: "cancelled=\(reservation.id)"))
    }

    func list(_ context: CustomerContext) throws -> Response {
        let now = context.now
        let all = try database.reservations.forCustomer(userId: context.user.id)
        let active = try all.first { $0.reservation.status.isActive }.map { owned in
            ReservationsPage.Active(
                summary: TicketSummary(owned, now: now), progress: try progress(owned, now: now),
                href: Paths.ticket(owned.reservation.id),
                cancelAction: owned.reservation.status.isCancellable ? Paths.ticketCancel(owned.reservation.id) : nil)
        }
        let page = ReservationsPage(
            active: active,
            history: all.filter { !$0.reservation.status.isActive }.map { ReservationsPage.HistoryRow($0, now: now) },
            cancelled: context.request.query["cancelled"] != nil,
            waitlist: try waitlistSummary(userId: context.user.id, now: now))
        return views.page(title: tr("nav.reservations"), section: .reservations, context, page)
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
            self.init(storeName: owned.store.name, kind: tr("kind.booking"),
                      when: Formatting.moment(start, now: now, timeZone: zone), number: reservation.number)
        } else {
            self.init(storeName: owned.store.name, kind: reservation.walkIn ? tr("kind.walkIn") : tr("kind.lineUp"),
                      when: tr("ticket.taken", ["moment": Formatting.moment(reservation.createdAt, now: now, timeZone: zone)]),
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
        /// The range an entry falls in four times in five, as clock times, when it is two
        /// minutes wide or more (the upper end rounded up to the minute).
        func span(_ range: ClosedRange<Date>?) -> (from: String, to: String)? {
            guard let range, range.upperBound.timeIntervalSince(range.lowerBound) >= 120 else { return nil }
            return (clock(max(now, range.lowerBound)), clock(range.upperBound + 59))
        }
        /// "around 10:14 (10:11–10:18)", or "around 10:14" without a range.
        func around(_ entry: Date, _ range: ClosedRange<Date>?) -> String {
            guard let span = span(range) else { return tr("progress.around", ["time": clock(entry)]) }
            return tr("progress.aroundRange", ["time": clock(entry), "from": span.from, "to": span.to])
        }
        /// "10:14 (10:11–10:18)", for the sentences that say "around" themselves.
        func entryTime(_ entry: Date, _ range: ClosedRange<Date>?) -> String {
            guard let span = span(range) else { return clock(entry) }
            return tr("progress.timeRange", ["time": clock(entry), "from": span.from, "to": span.to])
        }
        switch reservation.status {
        case .waiting where travel > 0:
            if let leftAt = reservation.leftAt {
                self.init(
                    status: status, headline: tr("progress.leave"),
                    detail: tr("progress.leaveDetail", ["journey": journey, "arrival": clock(leftAt + travel)]),
                    peopleAhead: standing?.peopleAhead, entry: standing?.entry.map { around($0, standing?.range) },
                    leaveBy: tr("progress.now"), leaveByLabel: tr("ticket.leave"), live: true)
                return
            }
            if let standing, let entry = standing.entry {
                let leave = Departure.leaveBy(entry: entry, travel: travel)
                let ahead = Self.ahead(standing.peopleAhead)
                self.init(
                    status: status, headline: tr("progress.queue"),
                    detail: ahead + " " + (leave <= now
                        ? tr("progress.entryLeaveNow", ["entry": entryTime(entry, standing.range), "journey": journey])
                        : tr("progress.entryLeaveBy", ["entry": entryTime(entry, standing.range), "journey": journey,
                                                       "leave": clock(leave)])),
                    peopleAhead: standing.peopleAhead, entry: around(entry, standing.range),
                    leaveBy: leave <= now ? tr("progress.now") : clock(leave),
                    leaveByLabel: leave <= now ? tr("ticket.leave") : tr("ticket.leaveBy"), live: true)
                return
            }
            fallthrough
        case .waiting:
            guard let standing, let entry = standing.entry else {
                self.init(status: status, headline: tr("progress.queue"),
                          detail: tr("progress.partyTooLarge"),
                          peopleAhead: standing?.peopleAhead, live: true)
                return
            }
            let ahead = Self.ahead(standing.peopleAhead)
            self.init(
                status: status, headline: tr("progress.queue"),
                detail: ahead + " " + (entry <= now ? tr("progress.anyMoment")
                    : span(standing.range).map { span in
                        tr("progress.entryInRange", ["entry": clock(entry), "from": span.from, "to": span.to,
                                                     "in": Formatting.duration(entry.timeIntervalSince(now))])
                    } ?? tr("progress.entryIn", ["entry": clock(entry),
                                                 "in": Formatting.duration(entry.timeIntervalSince(now))])),
                peopleAhead: standing.peopleAhead,
                entry: entry <= now ? tr("progress.now") : around(entry, standing.range), live: true)
        case .called:
            let deadline = reservation.callDeadline(at: owned.store) ?? now
            self.init(status: status, headline: tr("progress.called"),
                      detail: tr("progress.calledDetail", ["deadline": clock(deadline)]), live: true)
        case .booked:
            let slot = owned.slot ?? Slot(start: now, end: now)
            let window = owned.store.settings.entryWindow(slotStart: slot.start)
            let when = tr("progress.slot", ["slot": Formatting.slot(slot, now: now, timeZone: zone),
                                            "from": Formatting.time(window.lowerBound, timeZone: zone, now: now),
                                            "to": Formatting.time(window.upperBound, timeZone: zone, now: now)])
            if reservation.confirmedAt != nil {
                self.init(status: status, headline: tr("progress.bookedConfirmed"), detail: when, live: false)
            } else if let reminded = reservation.remindedAt {
                self.init(
                    status: status, headline: tr("progress.pleaseConfirm"),
                    detail: when + " " + tr("progress.confirmBy", ["time": clock(reminded + BookingReminder.replyWindow)]),
                    live: true)
            } else {
                self.init(
                    status: status, headline: tr("progress.booked"),
                    detail: when + " " + tr("progress.willRemind"), live: false)
            }
        case .inside:
            self.init(status: status, headline: tr("progress.inside"),
                      detail: tr("progress.insideDetail", ["time": clock(reservation.enteredAt ?? now)]),
                      live: true)
        case .done:
            self.init(status: status, headline: tr("progress.done"), detail: Self.visit(reservation, now: now, zone: zone),
                      live: false)
        case .cancelled:
            let unconfirmed = reservation.remindedAt != nil && reservation.confirmedAt == nil && reservation.kind == .booking
            let moment = reservation.endedAt.map { Formatting.moment($0, now: now, timeZone: zone) }
            self.init(status: status, headline: tr("progress.cancelled"),
                      detail: moment.map {
                          tr(unconfirmed ? "progress.cancelledUnconfirmedAt" : "progress.cancelledAt", ["moment": $0])
                      } ?? tr(unconfirmed ? "progress.cancelledUnconfirmed" : "progress.cancelledPlain"),
                      live: false)
        case .expired:
            self.init(status: status, headline: tr("progress.expired"), detail: tr("progress.expiredDetail"), live: false)
        }
    }

    /// "Nobody is ahead of you.", "3 people ahead of you."
    static func ahead(_ people: Int) -> String {
        people == 0 ? tr("progress.nobodyAhead") : tr("progress.ahead", ["people": Formatting.people(people)])
    }

    /// "In today at 10:05, out at 10:40 (35 min)."
    static func visit(_ reservation: Reservation, now: Date, zone: TimeZone) -> String {
        guard let entered = reservation.enteredAt else { return "" }
        let inAt = Formatting.moment(entered, now: now, timeZone: zone)
        guard let exited = reservation.exitedAt else { return tr("visit.in", ["in": inAt]) }
        return tr("visit.inOut", ["in": inAt, "out": Formatting.time(exited, timeZone: zone, now: now),
                                  "length": Formatting.duration(exited.timeIntervalSince(entered))])
    }

    struct JSON: Encodable {
        var status: String
        var headline: String
        var detail: String
        var peopleAhead: Int?
        var entry: String?
        var leaveBy: String?
        var leaveByLabel: String?
        /// The store's local time of this answer ("20:14"), for the page to say when a change came.
        var asOf: String
    }

    func json(asOf: String) -> JSON {
        JSON(status: status, headline: headline, detail: detail, peopleAhead: peopleAhead, entry: entry, leaveBy: leaveBy,
             leaveByLabel: leaveBy == nil ? nil : leaveByLabel ?? tr("ticket.leaveBy"), asOf: asOf)
    }
}

extension TicketPage {
    init(_ owned: ReservationWithStore, progress: TicketProgress, code: QRCode?, now: Date) {
        let reservation = owned.reservation
        let store = owned.store
        let summary = TicketSummary(owned, now: now)
        var facts = [Fact(tr("fact.store"), store.name), Fact(tr("fact.address"), store.address),
                     Fact(tr("fact.type"), summary.kind)]
        if let slot = owned.slot { facts.append(Fact(tr("fact.slot"), Formatting.slot(slot, now: now, timeZone: store.zone))) }
        facts.append(Fact(tr("fact.visitLength"), tr("fact.aboutMinutes", ["n": String(reservation.residenceMinutes)])))
        facts.append(Fact(tr("fact.people"), Formatting.people(reservation.people)))
        if reservation.priority { facts.append(Fact(tr("fact.priority"), PriorityText.policy(store.settings.priority))) }
        if let mode = reservation.travelMode {
            facts.append(Fact(tr("fact.gettingThere"), reservation.travel > 0
                ? "\(mode.label) · \(Formatting.duration(reservation.travel))" : mode.label))
        }
        var travel: TravelForm?
        if let metres = reservation.travelMetres, reservation.status == .waiting {
            travel = TravelForm(action: Paths.ticketTravel(reservation.id), choices: TravelMode.allCases.map { mode in
                Choice(value: mode.rawValue,
                       label: "\(mode.label) · \(Formatting.duration(TravelMode.travel(mode: mode, metres: metres)))",
                       checked: mode == reservation.travelMode)
            }, positionAction: Paths.ticketPosition(reservation.id))
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
        case .cancelled: outcome = tr("progress.cancelled")
        case .expired: outcome = tr("outcome.expired")
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
