import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation

/// The reservation wizard (RASD use case 3): how long and how many → line up or book →
/// (means of transport | slot) → recap → confirm. Every step is a plain page and a GET form,
/// so it works without JavaScript and the back button; only confirming changes anything.
///
/// Only confirmed customers may reserve: everyone else is sent to sign in, or told to
/// confirm their address first.
struct WizardController {
    let app: App

    private var database: AppDatabase { app.environment.database }

    // MARK: Step 1: how long, how many

    func start(_ context: RequestContext) throws -> Response {
        let (_, userId) = try customer(context)
        let details = try store(context)
        let shopper = self.shopper(context)
        let usual = try usualMinutes(userId: userId, storeId: details.store.id)
        let query = context.request.query
        var choice = VisitPlan.Choice(time: nil, departmentIds: [], people: nil)
        if let plan = try? VisitPlan.parse(query) {
            choice.time = ResidenceTime.presets.contains(plan.minutes) ? String(plan.minutes) : nil
            choice.people = plan.people
        }
        let page = ReservePage(details: details, choice: choice, usual: usual, shopper: shopper)
        return app.page(.reserve, title: "Reserve at \(details.store.name)", section: .stores, context, page)
    }

    // MARK: Step 2: line up or book

    func how(_ context: RequestContext) throws -> Response {
        let (_, userId) = try customer(context)
        let details = try store(context)
        let store = details.store
        let shopper = self.shopper(context)
        let query = context.request.query
        let plan: VisitPlan
        if query["minutes"] != nil {
            plan = try VisitPlan.parse(query)
        } else {
            let usual = try usualMinutes(userId: userId, storeId: store.id)
            let choice = VisitPlan.choose(query, departments: details.departments, usual: usual)
            guard let chosen = choice.plan else {
                let page = ReservePage(details: details, choice: choice, usual: usual, shopper: shopper)
                return app.page(.reserve, title: "Reserve at \(store.name)", section: .stores, context, page,
                                status: 422)
            }
            plan = chosen
        }
        let now = context.now
        let alternatives = Alternatives(database: database, now: now, plan: plan, shopper: shopper)
        let live = try database.liveTraffic(storeId: store.id, now: now)
        let decision = alternatives.decision(for: details, live: live)
        let queued = live.traffic(settings: store.settings, now: now).queue.reduce(0) { $0 + $1.people }
        var page = HowPage(store: store, plan: plan, shopper: shopper, queued: queued)
        if case .accepted(let wait, let entry) = decision {
            page.lineUp = HowPage.LineUp(
                estimate: wait < 60 ? "No wait: you could go in as soon as you arrive."
                    : "Estimated wait \(Formatting.wait(wait)): you would enter around "
                        + Formatting.clock(entry, now: now, timeZone: store.zone) + ".",
                modes: TravelMode.allCases.map { mode in
                    let travel = mode.travelTime(metres: shopper.position.distance(to: store.position))
                    return Choice(value: mode.rawValue, label: "\(mode.label) · \(Formatting.duration(travel))",
                                  checked: mode == shopper.mode)
                },
                hidden: Self.hidden([("kind", "lineUp")] + plan.fields + shopper.fields))
        } else {
            page.refusal = Self.refusal(decision, now: now, zone: store.zone)
            page.suggestions = try alternatives.lineUpStores(near: store)
        }
        if let first = details.slotCalendar.firstBookable(now: now) {
            page.firstSlot = Formatting.slot(first, now: now, timeZone: store.zone)
        }
        return app.page(.reserveHow, title: "Line up or book", section: .stores, context, page)
    }

    // MARK: Step 3 (booking): the slot

    func slots(_ context: RequestContext) throws -> Response {
        _ = try customer(context)
        let details = try store(context)
        let store = details.store
        let plan = try VisitPlan.parse(context.request.query)
        let shopper = self.shopper(context)
        let now = context.now
        let calendar = details.slotCalendar
        let days = calendar.bookingDays(now: now)
        let firstDay = calendar.firstBookable(now: now).map { calendar.localDay(of: $0.start) } ?? days[0]
        let requested = context.request.query["day"].flatMap { Int($0) }
        let day = requested.flatMap { days.contains($0) ? $0 : nil } ?? firstDay
        let daySlots = calendar.slots(localDay: day, now: now)
        // Only bookable slots are offered; a line says why earlier or later ones are not.
        let slots = daySlots.filter { calendar.isBookable($0, now: now) }
        var notes: [String] = []
        if let first = slots.first ?? daySlots.last,
            daySlots.contains(where: { $0.start < now + SlotCalendar.leadTime })
        {
            notes.append(slots.isEmpty
                ? "Bookings open 2 hours ahead: there is no time left to book on this day."
                : "Bookings open 2 hours ahead: the first time you can book on this day is "
                    + Formatting.time(first.start, timeZone: store.zone, now: now) + ".")
        }
        if daySlots.contains(where: { $0.start > now + SlotCalendar.horizon }) {
            notes.append("Later times on this day are more than 7 days ahead and cannot be booked yet.")
        }
        let booked = try slots.first.map { first in
            try database.bookedPeople(storeId: store.id, in: first.start...(slots.last?.start ?? first.start))
        } ?? [:]
        let offsets = ZoneOffsets.table(for: store.zone, around: now)
        let page = SlotsPage(
            store: store, plan: plan, shopper: shopper,
            days: days.map { candidate in
                let noon = offsets.instant(localSeconds: candidate * ZoneOffsets.secondsPerDay + 12 * 3600)
                return DayTab(label: Formatting.day(noon, now: now, timeZone: store.zone).capitalizedFirst,
                              href: WizardLinks.slots(store.id, plan: plan, shopper: shopper, day: candidate),
                              current: candidate == day)
            },
            slots: slots.map { slot in
                let taken = booked[slot.start] ?? 0
                let availability = SlotAvailability.of(booked: taken, capacity: store.slotCapacity, people: plan.people)
                let left = store.slotCapacity - taken
                return SlotChoice(
                    value: String(Int(slot.start.timeIntervalSince1970)),
                    time: Formatting.time(slot.start, timeZone: store.zone, now: now) + "–"
                        + Formatting.time(slot.end, timeZone: store.zone, now: now),
                    state: availability.rawValue,
                    note: availability == .full ? "full" : Formatting.placesLeft(left))
            },
            notes: notes, closed: daySlots.isEmpty,
            hidden: Self.hidden([("kind", "booking")] + plan.fields + shopper.fields))
        return app.page(.reserveSlots, title: "Choose a time", section: .stores, context, page)
    }

    // MARK: Step 4: the recap

    func recap(_ context: RequestContext) throws -> Response {
        let (_, userId) = try customer(context)
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
            let decision = Alternatives(database: database, now: now, plan: plan, shopper: shopper)
                .decision(for: details, live: try database.liveTraffic(storeId: store.id, now: now))
            guard case .accepted(let wait, let entry) = decision else {
                return try refusedLineUp(context, details: details, plan: plan, shopper: shopper, decision: decision,
                                         status: 200)
            }
            let travel = mode.travelTime(metres: shopper.position.distance(to: store.position))
            facts += [Fact("Reservation", "Line up now"), Fact("Estimated wait", Formatting.wait(wait)),
                      Fact("Expected entry", "around " + Formatting.clock(entry, now: now, timeZone: store.zone)),
                      Fact("Getting there", "\(Formatting.duration(travel)) \(mode.phrase)")]
            fields += [("kind", "lineUp"), ("mode", mode.rawValue)]
        case "booking":
            let start = try Self.slotStart(query)
            let slot: Slot
            switch details.slotCalendar.verdict(start: start, now: now) {
            case .bookable(let bookable): slot = bookable
            case let verdict:
                return try refusedSlot(context, details: details, plan: plan, shopper: shopper, verdict: verdict,
                                       start: start, status: 422)
            }
            let booked = try database.bookedPeople(storeId: store.id, at: slot.start)
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
        let active = try database.activeReservation(userId: userId)
        let page = RecapPage(
            store: store, facts: facts,
            notice: active.map { "You already have a reservation at \($0.store.name). When you confirm, we will ask "
                + "whether to cancel it and keep this one." },
            hidden: Self.hidden(fields + [("requestKey", Secrets.token())]),
            backHref: query["kind"] == "booking"
                ? WizardLinks.slots(store.id, plan: plan, shopper: shopper)
                : WizardLinks.how(store.id, plan: plan, shopper: shopper))
        return app.page(.reserveRecap, title: "Check and confirm", section: .stores, context, page)
    }

    // MARK: Confirm

    /// Makes the reservation, or explains why not. Answers with the ticket (303) when made;
    /// with a choice when the customer already has one; with alternatives when refused.
    func create(_ context: RequestContext) throws -> Response {
        let (_, userId) = try customer(context)
        let details = try store(context)
        let store = details.store
        let form = context.form
        let plan = try VisitPlan.parse(form)
        let shopper = ShopperContext(request: Request(method: .get, path: "/", query: form),
                                     settings: app.environment.settings, user: context.visitor.user)
        guard let kind = form["kind"].flatMap(Reservation.Kind.init(rawValue:)) else {
            throw HTTPError.badRequest("Choose to line up or to book a time. Please start again from the store's page.")
        }
        guard let requestKey = form["requestKey"], Secrets.isWellFormed(requestKey) else {
            throw HTTPError.badRequest("This form is incomplete. Please go back to the recap and confirm again.")
        }
        let slotStart = kind == .booking ? try Self.slotStart(form) : nil
        let request = ReservationRequest(
            storeId: store.id, userId: userId, kind: kind, people: plan.people, residenceMinutes: plan.minutes,
            travelMode: form["mode"].flatMap(TravelMode.init(rawValue:)) ?? shopper.mode, slotStart: slotStart,
            requestKey: requestKey, replacingActive: form["replace"] == "1")
        switch try database.reserve(request, now: context.now) {
        case .created(let reservation), .alreadyMade(let reservation):
            return .redirect(to: "/reservations/\(reservation.id)")
        case .hasActive(let active):
            let page = ConflictPage(
                active: TicketSummary(active, now: context.now),
                activeHref: "/reservations/\(active.reservation.id)", storeName: store.name,
                hidden: Self.hidden(
                    form.pairs.filter { $0.name != "csrf" && $0.name != "replace" } + [("replace", "1")]),
                action: "/stores/\(store.id)/reservations", canReplace: active.reservation.status != .inside)
            return app.page(.reserveConflict, title: "You already have a reservation", section: .stores, context, page,
                            status: 409)
        case .slotFull:
            return try refusedFull(context, details: details, plan: plan, shopper: shopper,
                                   start: slotStart ?? context.now, status: 409)
        case .slotRefused(let verdict):
            return try refusedSlot(context, details: details, plan: plan, shopper: shopper, verdict: verdict,
                                   start: slotStart ?? context.now, status: 422)
        case .lineUpRefused(let decision):
            return try refusedLineUp(context, details: details, plan: plan, shopper: shopper, decision: decision,
                                     status: 409)
        case .noSuchStore:
            throw HTTPError.notFound
        }
    }

    // MARK: Refusals, each with somewhere else to go

    private func refusedLineUp(_ context: RequestContext, details: StoreDetails, plan: VisitPlan,
                               shopper: ShopperContext, decision: LineUpPolicy.Decision, status: Int) throws -> Response
    {
        let store = details.store
        let alternatives = Alternatives(database: database, now: context.now, plan: plan, shopper: shopper)
        let page = RefusedPage(
            heading: "You cannot line up at \(store.name) now",
            message: Self.refusal(decision, now: context.now, zone: store.zone),
            slotsHeading: nil, slots: [],
            suggestions: try alternatives.lineUpStores(near: store),
            backHref: WizardLinks.how(store.id, plan: plan, shopper: shopper), backLabel: "Book a time instead")
        return app.page(.reserveRefused, title: "Cannot line up", section: .stores, context, page, status: status)
    }

    private func refusedFull(_ context: RequestContext, details: StoreDetails, plan: VisitPlan,
                             shopper: ShopperContext, start: Date, status: Int) throws -> Response
    {
        let store = details.store
        let alternatives = Alternatives(database: database, now: context.now, plan: plan, shopper: shopper)
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
        return app.page(.reserveRefused, title: "Slot full", section: .stores, context, page, status: status)
    }

    private func refusedSlot(_ context: RequestContext, details: StoreDetails, plan: VisitPlan,
                             shopper: ShopperContext, verdict: SlotCalendar.Verdict, start: Date, status: Int) throws
        -> Response
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
        case .notASlot, .bookable:
            message = "\(store.name) has no slot starting at that time. Please choose one from the list."
        }
        let page = RefusedPage(
            heading: "That time cannot be booked", message: message, slotsHeading: nil, slots: [], suggestions: [],
            backHref: WizardLinks.slots(store.id, plan: plan, shopper: shopper), backLabel: "Choose a time")
        return app.page(.reserveRefused, title: "Cannot book that time", section: .stores, context, page,
                        status: status)
    }

    /// Why the party cannot line up, in words they can act on.
    static func refusal(_ decision: LineUpPolicy.Decision, now: Date, zone: TimeZone) -> String {
        switch decision {
        case .accepted:
            return ""
        case .closed(let opensAt):
            return "The store is closed now"
                + (opensAt.map { " and opens \(Formatting.clock($0, now: now, timeZone: zone))." } ?? ".")
                + " You can book a time instead."
        case .waitTooLong(let wait?):
            return "The wait is \(Formatting.wait(wait)), over the 2 hours CLup lets anyone wait. Book a time "
                + "instead, or try a store nearby."
        case .waitTooLong(nil):
            return "This store keeps too few places for the queue to let a party of your size in. Try a store "
                + "nearby, or come alone."
        case .closesFirst(let closes, let entry):
            return "Your turn would come around \(Formatting.clock(entry, now: now, timeZone: zone)), too close to "
                + "closing time (\(Formatting.clock(closes, now: now, timeZone: zone))) for your visit."
        }
    }

    // MARK: Helpers

    /// The signed-in, confirmed customer and their id.
    private func customer(_ context: RequestContext) throws -> (User, Int64) {
        let user = try context.visitor.requireUser(for: context.request)
        let id = user.id
        guard user.isConfirmed else {
            throw HTTPError(403, "Please confirm your email address before you line up or book: open the link we "
                + "sent you. You can ask for a new link from the banner at the top of the page.")
        }
        return (user, id)
    }

    private func store(_ context: RequestContext) throws -> StoreDetails {
        guard let details = try database.storeDetails(id: try context.id("id")) else { throw HTTPError.notFound }
        return details
    }

    private func shopper(_ context: RequestContext) -> ShopperContext {
        ShopperContext(request: context.request, settings: app.environment.settings, user: context.visitor.user)
    }

    /// The customer's usual visit length at the store, once they have enough visits (R1.3).
    private func usualMinutes(userId: Int64, storeId: Int64) throws -> Int? {
        ResidenceTime.fromVisits(try database.visitDurations(userId: userId, storeId: storeId))
    }

    static func slotStart(_ form: FormData) throws(HTTPError) -> Date {
        guard let seconds = form["slot"].flatMap({ Int($0) }), seconds > 0 else {
            throw .badRequest("Choose a time slot from the list.")
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
