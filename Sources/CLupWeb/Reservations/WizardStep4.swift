import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import Foundation

/// Step 4: the recap; then confirming, and every refusal with somewhere else to go.
extension ReservationsArea {
    func recap(_ context: CustomerContext) throws -> Response {
        let details = try store(context)
        let store = details.store
        let query = context.request.query
        let plan = try VisitPlan.parse(query)
        let shopper = self.shopper(context)
        let now = context.now
        var facts = [Fact("Store", store.name), Fact("Address", store.address)]
        var fields = plan.fields + shopper.fields
        switch query["kind"] {
        case "lineUp":
            let mode = query["mode"].flatMap(TravelMode.init(rawValue:)) ?? shopper.mode
            let metres = Int(shopper.position.distance(to: store.position).rounded())
            let travel = TravelMode.travel(mode: mode, metres: metres)
            let decision = alternatives(context, plan: plan, shopper: shopper)
                .decision(for: details, live: database.board.entry(store.id)?.live ?? .none, travel: travel)
            guard case .accepted(_, let entry) = decision else {
                return try refusedLineUp(context, details: details, plan: plan, shopper: shopper, decision: decision,
                                         status: 200)
            }
            let leave = Departure.leaveBy(entry: entry, travel: travel)
            facts += [Fact("Reservation", "Line up now"),
                      Fact("Getting there", "\(Formatting.duration(travel)) \(mode.phrase)"),
                      Fact("Leave", leave <= now + 60 ? "now, when you confirm"
                          : "around " + Formatting.clock(leave, now: now, timeZone: store.zone) + " (we will tell you)"),
                      Fact("Expected entry", "around " + Formatting.clock(entry, now: now, timeZone: store.zone))]
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
            let booked = try database.bookedPeople(storeId: store.id, in: slot)
            if SlotAvailability.of(booked: booked, capacity: store.slotCapacity, people: plan.people) == .full {
                return try refusedFull(context, details: details, plan: plan, shopper: shopper, start: slot.start,
                                       status: 409)
            }
            let window = store.settings.entryWindow(slotStart: slot.start)
            facts += [Fact("Reservation", "Booked visit"),
                      Fact("Slot", Formatting.slot(slot, now: now, timeZone: store.zone)),
                      Fact("Enter between", Formatting.time(window.lowerBound, timeZone: store.zone, now: now) + " and "
                          + Formatting.time(window.upperBound, timeZone: store.zone, now: now))]
            fields += [("kind", "booking"), ("slot", String(Int(slot.start.timeIntervalSince1970)))]
        default:
            throw HTTPError.badRequest("Choose to line up or to book a time. Please start again from the store's page.")
        }
        facts += [Fact("Visit length", "about \(plan.minutes) min"), Fact("People", Formatting.people(plan.people))]
        let active = try database.activeReservation(userId: context.user.id)
        let page = RecapPage(
            facts: facts,
            notice: active.map { "You already have a reservation at \($0.store.name). When you confirm, we will ask "
                + "whether to cancel it and keep this one." },
            hidden: Self.hidden(fields + [("requestKey", Secrets.token())]),
            action: Paths.storeReservations(store.id),
            backHref: query["kind"] == "booking"
                ? WizardLinks.slots(store.id, plan: plan, shopper: shopper)
                : WizardLinks.how(store.id, plan: plan, shopper: shopper))
        return views.page(title: "Check and confirm", section: .stores, context, page)
    }

    // MARK: Confirm

    /// Makes the reservation, or explains why not. Answers with the ticket (303) when made;
    /// with a choice when the customer already has one; with alternatives when refused.
    func create(_ context: CustomerContext) throws -> Response {
        let details = try store(context)
        let store = details.store
        let form = context.form
        let plan = try VisitPlan.parse(form)
        let shopper = ShopperContext(request: Request(method: .get, path: "/", query: form), settings: settings,
                                     user: context.user)
        guard let kind = form["kind"].flatMap(Reservation.Kind.init(rawValue:)) else {
            throw HTTPError.badRequest("Choose to line up or to book a time. Please start again from the store's page.")
        }
        guard let requestKey = form["requestKey"], Secrets.isWellFormed(requestKey) else {
            throw HTTPError.badRequest("This form is incomplete. Please go back to the recap and confirm again.")
        }
        let slotStart = kind == .booking ? try Self.slotStart(form) : nil
        let request = ReservationRequest(
            storeId: store.id, userId: context.user.id, kind: kind, people: plan.people, residenceMinutes: plan.minutes,
            travelMode: form["mode"].flatMap(TravelMode.init(rawValue:)) ?? shopper.mode, slotStart: slotStart,
            requestKey: requestKey, replacingActive: form["replace"] == "1",
            travelMetres: Int(shopper.position.distance(to: store.position).rounded()), departmentIds: plan.departments)
        switch try database.reserve(request, now: context.now) {
        case .created(let reservation), .alreadyMade(let reservation):
            return .redirect(to: Paths.ticket(reservation.id))
        case .hasActive(let active):
            let page = ConflictPage(
                active: TicketSummary(active, now: context.now), activeHref: Paths.ticket(active.reservation.id),
                storeName: store.name,
                hidden: Self.hidden(
                    form.pairs.filter { $0.name != "csrf" && $0.name != "replace" } + [("replace", "1")]),
                action: Paths.storeReservations(store.id), canReplace: active.reservation.status != .inside)
            return views.page(title: "You already have a reservation", section: .stores, context, page, status: 409)
        case .slotFull:
            return try refusedFull(context, details: details, plan: plan, shopper: shopper,
                                   start: slotStart ?? context.now, status: 409)
        case .slotRefused(let verdict):
            return try refusedSlot(context, details: details, plan: plan, shopper: shopper, verdict: verdict,
                                   status: 422)
        case .lineUpRefused(let decision):
            return try refusedLineUp(context, details: details, plan: plan, shopper: shopper, decision: decision,
                                     status: 409)
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
            heading: "You cannot line up at \(store.name) now",
            message: Self.refusal(decision, now: context.now, zone: store.zone),
            slotsHeading: nil, slots: [],
            suggestions: try alternatives(context, plan: plan, shopper: shopper).lineUpStores(near: store),
            backHref: WizardLinks.how(store.id, plan: plan, shopper: shopper), backLabel: "Book a time instead")
        return views.page(title: "Cannot line up", section: .stores, context, page, status: status)
    }

    private func refusedFull(_ context: CustomerContext, details: StoreBoard.Definition, plan: VisitPlan,
                             shopper: ShopperContext, start: Date, status: Int) throws -> Response
    {
        let store = details.store
        let alternatives = self.alternatives(context, plan: plan, shopper: shopper)
        let slotText = details.slotCalendar.slot(containing: start, now: context.now)
            .map { Formatting.slot($0, now: context.now, timeZone: store.zone) } ?? "that time"
        let page = RefusedPage(
            heading: "That slot is full",
            message: "Every place for \(slotText) at \(store.name) is booked. Choose another time, or one of the "
                + "stores nearby that have room then.",
            slotsHeading: "Other times at \(store.name)", slots: try alternatives.otherSlots(details, around: start),
            suggestions: try alternatives.bookingStores(near: store, at: start),
            backHref: WizardLinks.slots(store.id, plan: plan, shopper: shopper,
                                        day: details.slotCalendar.localDay(of: start)),
            backLabel: "See all times")
        return views.page(title: "Slot full", section: .stores, context, page, status: status)
    }

    private func refusedSlot(_ context: CustomerContext, details: StoreBoard.Definition, plan: VisitPlan,
                             shopper: ShopperContext, verdict: SlotCalendar.Verdict, status: Int) throws -> Response
    {
        let store = details.store
        let now = context.now
        let message: String
        switch verdict {
        case .tooSoon(let earliest):
            message = "Bookings must be at least 2 hours ahead. "
                + (earliest.map {
                    "The earliest time you can book is \(Formatting.slot($0, now: now, timeZone: store.zone))."
                } ?? "The store has no slots left within the next 7 days.")
        case .tooFar(let latest):
            message = "You can book up to 7 days ahead, until "
                + "\(Formatting.moment(latest, now: now, timeZone: store.zone)). Please choose an earlier day."
        case .endsAfterClosing(let slot, let closes):
            let starts = Formatting.time(slot.start, timeZone: store.zone, now: now)
            message = "\(store.name) closes at \(Formatting.clock(closes, now: now, timeZone: store.zone)), before a "
                + "visit of about \(plan.minutes) min starting at \(starts) would be over. Please choose an earlier "
                + "time, or plan a shorter visit."
        case .notASlot, .bookable:
            message = "\(store.name) has no slot starting at that time. Please choose one from the list."
        }
        let page = RefusedPage(
            heading: "That time cannot be booked", message: message, slotsHeading: nil, slots: [], suggestions: [],
            backHref: WizardLinks.slots(store.id, plan: plan, shopper: shopper), backLabel: "Choose a time")
        return views.page(title: "Cannot book that time", section: .stores, context, page, status: status)
    }
}
