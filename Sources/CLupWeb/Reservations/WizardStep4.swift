import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// Step 4: the recap; then confirming, and every refusal with somewhere else to go.
extension ReservationsArea {
    func recap(_ context: CustomerContext) throws -> Response {
        let details = try store(context)
        let store = details.store
        let query = context.request.query
        let plan = try VisitPlan.parse(query, largestParty: store.largestParty)
        let shopper = self.shopper(context)
        let now = context.now
        var facts = [Fact(tr("fact.store"), store.name), Fact(tr("fact.address"), store.address)]
        var fields = plan.fields + shopper.fields
        switch query["kind"] {
        case "lineUp":
            let mode = query["mode"].flatMap(TravelMode.init(rawValue:)) ?? shopper.mode
            let metres = Int(shopper.position.distance(to: store.position).rounded())
            let travel = TravelMode.travel(mode: mode, metres: metres)
            // A priority place, where the store lets its customers ask for one: the estimate is
            // the one in that place.
            let priority = query["priority"] == "1" && store.settings.priority.asksOnline
            let decision = (database.board.entry(store.id)?.live ?? .none).lineUpDecision(
                people: plan.people, residence: plan.residence, priority: priority, travel: travel,
                settings: store.settings, hours: details.openingHours, now: now, pool: .online).0
            guard case .accepted(_, let entry) = decision else {
                return try refusedLineUp(context, details: details, plan: plan, shopper: shopper, decision: decision,
                                         status: 200)
            }
            let leave = Departure.leaveBy(entry: entry, travel: travel)
            facts += [Fact(tr("reservations.reservation"), tr("wizard.lineUpNow")),
                      Fact(tr("fact.gettingThere"), "\(Formatting.duration(travel)) \(mode.phrase)"),
                      Fact(tr("fact.leave"), leave <= now + 60 ? tr("recap.leaveNow")
                          : tr("recap.leaveAround", ["time": Formatting.clock(leave, now: now, timeZone: store.zone)])),
                      Fact(tr("fact.expectedEntry"), tr("progress.around", ["time": Formatting.clock(entry, now: now, timeZone: store.zone)]))]
            if priority {
                facts.append(Fact(tr("fact.priority"), PriorityText.policy(store.settings.priority)))
                fields.append(("priority", "1"))
            }
            fields += [("kind", "lineUp"), ("mode", mode.rawValue)]
        case "booking":
            let start = try Self.slotStart(query)
            let slot: Slot
            switch details.slotCalendar.verdict(start: start, residence: plan.residence, now: now) {
            case .bookable(let bookable): slot = bookable
            case let verdict:
                return try refusedSlot(context, details: details, plan: plan, shopper: shopper, verdict: verdict,
                                       status: 422)
            }
            if try database.room(at: store, for: plan.people, in: [slot])[slot.start]?.availability == .full {
                return try refusedFull(context, details: details, plan: plan, shopper: shopper, start: slot.start,
                                       status: 409)
            }
            let window = store.settings.entryWindow(slotStart: slot.start)
            facts += [Fact(tr("reservations.reservation"), tr("kind.booking")),
                      Fact(tr("fact.slot"), Formatting.slot(slot, now: now, timeZone: store.zone)),
                      Fact(tr("fact.enterBetween"), tr("recap.between", [
                          "from": Formatting.time(window.lowerBound, timeZone: store.zone, now: now),
                          "to": Formatting.time(window.upperBound, timeZone: store.zone, now: now)]))]
            fields += [("kind", "booking"), ("slot", String(Int(slot.start.timeIntervalSince1970)))]
        default:
            throw HTTPError.badRequest(tr("recap.chooseKind"))
        }
        facts += [Fact(tr("fact.visitLength"), tr("fact.aboutMinutes", ["n": String(plan.minutes)])),
                  Fact(tr("fact.people"), Formatting.people(plan.people))]
        let active = try database.reservations.activeReservation(userId: context.user.id)
        let page = RecapPage(
            facts: facts,
            notice: active.map { tr("recap.alreadyHave", ["store": $0.store.name]) },
            hidden: Self.hidden(fields + [("requestKey", Secrets.token())]),
            action: Paths.storeReservations(store.id),
            backHref: query["kind"] == "booking"
                ? WizardLinks.slots(store.id, plan: plan, shopper: shopper)
                : WizardLinks.how(store.id, plan: plan, shopper: shopper))
        return views.page(title: tr("wizard.checkConfirm"), section: .stores, context, page)
    }

    // MARK: Confirm

    /// Makes the reservation, or explains why not. Answers with the ticket (303) when made;
    /// with a choice when the customer already has one; with alternatives when refused.
    func create(_ context: CustomerContext) throws -> Response {
        let details = try store(context)
        let store = details.store
        let form = context.form
        let plan = try VisitPlan.parse(form, largestParty: store.largestParty)
        let shopper = formShopper(context)
        guard let kind = form["kind"].flatMap(Reservation.Kind.init(rawValue:)) else {
            throw HTTPError.badRequest(tr("recap.chooseKind"))
        }
        guard let requestKey = form["requestKey"], Secrets.isWellFormed(requestKey) else {
            throw HTTPError.badRequest(tr("recap.incomplete"))
        }
        let slotStart = kind == .booking ? try Self.slotStart(form) : nil
        let request = ReservationRequest(
            storeId: store.id, userId: context.user.id, kind: kind, people: plan.people, residenceMinutes: plan.minutes,
            travelMode: form["mode"].flatMap(TravelMode.init(rawValue:)) ?? shopper.mode, slotStart: slotStart,
            requestKey: requestKey, replacingActive: form["replace"] == "1",
            travelMetres: min(TravelMode.longestMetres, Int(shopper.position.distance(to: store.position).rounded())),
            departmentIds: plan.departments, priority: form["priority"] == "1")
        switch try database.reservations.reserve(request, now: context.now) {
        case .created(let reservation), .alreadyMade(let reservation):
            return .redirect(to: Paths.ticket(reservation.id))
        case .hasActive(let active):
            let page = ConflictPage(
                active: TicketSummary(active, now: context.now), activeHref: Paths.ticket(active.reservation.id),
                storeName: store.name,
                hidden: Self.hidden(
                    form.pairs.filter { $0.name != "csrf" && $0.name != "replace" } + [("replace", "1")]),
                action: Paths.storeReservations(store.id), canReplace: active.reservation.status != .inside)
            return views.page(title: tr("conflict.title"), section: .stores, context, page, status: 409)
        case .slotFull:
            return try refusedFull(context, details: details, plan: plan, shopper: shopper,
                                   start: slotStart ?? context.now, status: 409)
        case .slotRefused(let verdict):
            return try refusedSlot(context, details: details, plan: plan, shopper: shopper, verdict: verdict,
                                   status: 422)
        case .lineUpRefused(let decision):
            return try refusedLineUp(context, details: details, plan: plan, shopper: shopper, decision: decision,
                                     status: 409)
        case .tooMany(let retryAt):
            let wait = max(60, retryAt.timeIntervalSince(context.now))
            var response = views.page(title: tr("refused.tooManyTitle"), section: .stores, context, MessagePage(
                title: tr("refused.tooManyTitle"),
                lines: [tr("refused.tooMany", ["count": String(ReservationRate.perHour), "wait": Formatting.duration(wait)])],
                link: (tr("nav.reservations"), Paths.reservations())), status: 429)
            response.headers.append(("Retry-After", String(Int(wait.rounded(.up)))))
            return response
        case .noSuchStore:
            throw HTTPError.notFound
        }
    }

    // MARK: Refusals, each with somewhere else to go

    private func refusedLineUp(_ context: CustomerContext, details: StoreBoard.Definition, plan: VisitPlan,
                               shopper: ShopperContext, decision: LineUpPolicy.Decision, status: Int) throws -> Response
    {
        let store = details.store
        let page = RefusedPage(
            heading: tr("refused.lineUp", ["store": store.name]),
            message: Self.refusal(decision, now: context.now, zone: store.zone),
            slotsHeading: nil, slots: [],
            suggestions: try alternatives(context, plan: plan, shopper: shopper).lineUpStores(near: store),
            backHref: WizardLinks.how(store.id, plan: plan, shopper: shopper), backLabel: tr("refused.bookInstead"))
        return views.page(title: tr("refused.lineUpTitle"), section: .stores, context, page, status: status)
    }

    private func refusedFull(_ context: CustomerContext, details: StoreBoard.Definition, plan: VisitPlan,
                             shopper: ShopperContext, start: Date, status: Int) throws -> Response
    {
        let store = details.store
        let alternatives = self.alternatives(context, plan: plan, shopper: shopper)
        let slotText = details.slotCalendar.slot(containing: start, now: context.now)
            .map { Formatting.slot($0, now: context.now, timeZone: store.zone) } ?? tr("refused.thatTime")
        let page = RefusedPage(
            heading: tr("refused.slotFull"),
            message: tr("refused.slotFullMessage", ["slot": slotText, "store": store.name]),
            slotsHeading: tr("refused.otherTimes", ["store": store.name]), slots: try alternatives.otherSlots(details, around: start),
            suggestions: try alternatives.bookingStores(near: store, at: start),
            backHref: WizardLinks.slots(store.id, plan: plan, shopper: shopper,
                                        day: details.slotCalendar.localDay(of: start)),
            backLabel: tr("refused.allTimes"),
            waitlist: try waitlistForm(details, slot: start, plan: plan, shopper: shopper, now: context.now))
        return views.page(title: tr("refused.slotFullTitle"), section: .stores, context, page, status: status)
    }

    func refusedSlot(_ context: CustomerContext, details: StoreBoard.Definition, plan: VisitPlan,
                             shopper: ShopperContext, verdict: SlotCalendar.Verdict, status: Int) throws -> Response
    {
        let store = details.store
        let now = context.now
        let message: String
        switch verdict {
        case .tooSoon(let earliest):
            message = tr("refused.tooSoon") + " "
                + (earliest.map { tr("refused.earliest", ["slot": Formatting.slot($0, now: now, timeZone: store.zone)]) }
                    ?? tr("refused.noSlots"))
        case .tooFar(let latest):
            message = tr("refused.tooFar", ["until": Formatting.moment(latest, now: now, timeZone: store.zone)])
        case .endsAfterClosing(let slot, let closes):
            let starts = Formatting.time(slot.start, timeZone: store.zone, now: now)
            message = tr("refused.endsAfterClosing", ["store": store.name,
                                                      "closes": Formatting.clock(closes, now: now, timeZone: store.zone),
                                                      "minutes": String(plan.minutes), "starts": starts])
        case .notASlot, .bookable:
            message = tr("refused.notASlot", ["store": store.name])
        }
        let page = RefusedPage(
            heading: tr("refused.cannotBook"), message: message, slotsHeading: nil, slots: [], suggestions: [],
            backHref: WizardLinks.slots(store.id, plan: plan, shopper: shopper), backLabel: tr("wizard.chooseTime"))
        return views.page(title: tr("refused.cannotBookTitle"), section: .stores, context, page, status: status)
    }
}
