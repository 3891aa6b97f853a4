import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// Waiting lists for full slots (`WaitingList`): joining one from the "slot full" page, the
/// customer's place on it, and answering the place it offers.
extension ReservationsArea {
    /// The form that joins `slot`'s list, when the slot could be booked if it had room.
    func waitlistForm(_ details: StoreBoard.Definition, slot start: Date, plan: VisitPlan, shopper: ShopperContext,
                      now: Date) throws -> WaitlistJoinForm?
    {
        let store = details.store
        guard case .bookable(let slot) = details.slotCalendar.verdict(start: start, residence: plan.residence, now: now)
        else { return nil }
        let listed = try database.waitingLists.waitlists(storeId: store.id, in: [slot])[slot.start] ?? []
        guard listed.count < WaitingList.longestList else { return nil }
        return WaitlistJoinForm(
            action: Paths.storeWaitlist(store.id),
            hidden: Self.hidden(plan.fields + shopper.fields + [("slot", String(Int(slot.start.timeIntervalSince1970))),
                                                                ("requestKey", Secrets.token())]),
            waiting: listed.count { $0.status == .waiting }, offerMinutes: Int(WaitingList.offerWindow / 60))
    }

    func joinWaitlist(_ context: CustomerContext) throws -> Response {
        let details = try store(context)
        let store = details.store
        let form = context.form
        let plan = try VisitPlan.parse(form, largestParty: store.largestParty)
        let shopper = formShopper(context)
        guard let requestKey = form["requestKey"], Secrets.isWellFormed(requestKey) else {
            throw HTTPError.badRequest(tr("recap.incomplete"))
        }
        let start = try Self.slotStart(form)
        let request = WaitlistRequest(storeId: store.id, userId: context.user.id, slotStart: start, people: plan.people,
                                      residenceMinutes: plan.minutes, requestKey: requestKey)
        switch try database.waitingLists.joinWaitlist(request, now: context.now) {
        case .joined(let entry), .alreadyJoined(let entry):
            return .redirect(to: Paths.waitlist(entry.id))
        case .onAnotherList(let entry):
            return .redirect(to: Paths.waitlist(entry.id, query: "already=1"))
        case .refused(.notFull):
            // A place came free meanwhile: the recap books it.
            guard let slot = details.slotCalendar.slot(containing: start, now: context.now) else { throw HTTPError.notFound }
            return .redirect(to: WizardLinks.bookingRecap(store.id, slot: slot, plan: plan, shopper: shopper))
        case .refused(.listFull):
            throw HTTPError(409, tr("waitlist.listFull"))
        case .slotRefused(let verdict):
            return try refusedSlot(context, details: details, plan: plan, shopper: shopper, verdict: verdict, status: 422)
        case .noSuchStore:
            throw HTTPError.notFound
        }
    }

    func waitlistPage(_ context: OwnedWaitlistContext) throws -> Response {
        let entry = context.place.entry
        let store = context.place.store
        let now = context.now
        let slot = Slot(start: entry.slotStart, end: entry.slotStart + Double(store.slotMinutes) * 60)
        let facts = [Fact(tr("fact.store"), store.name), Fact(tr("fact.address"), store.address),
                     Fact(tr("fact.slot"), Formatting.slot(slot, now: now, timeZone: store.zone)),
                     Fact(tr("fact.visitLength"), tr("fact.aboutMinutes", ["n": String(entry.residenceMinutes)])),
                     Fact(tr("fact.people"), Formatting.people(entry.people))]
        let shopper = ShopperContext(request: context.request, settings: settings, user: context.user)
        let elsewhere = WizardLinks.start(store.id, shopper: shopper)
        let state: WaitlistPage.State
        switch entry.status {
        case .waiting:
            state = .waiting(ahead: context.place.ahead, leaveAction: Paths.waitlistLeave(entry.id))
        case .offered where (entry.offerExpiresAt ?? now) > now:
            let active = try database.reservations.activeReservation(userId: context.user.id)
            let summary = active.map { TicketSummary($0, now: now) }
            state = .offered(
                deadline: Formatting.clock(entry.offerExpiresAt ?? now, now: now, timeZone: store.zone),
                acceptAction: Paths.waitlistAccept(entry.id), declineAction: Paths.waitlistLeave(entry.id),
                replacing: summary.map { "\($0.storeName), \($0.kind) \($0.when)" },
                blockedBy: active?.reservation.status == .inside
                    ? tr("waitlist.inside", ["store": active?.store.name ?? ""]) : nil)
        case .offered, .passed:
            state = .ended(message: tr("waitlist.passed"), slotsHref: elsewhere)
        case .accepted:
            state = .accepted(ticketHref: entry.reservationId.map { Paths.ticket($0) } ?? Paths.reservations())
        case .left:
            state = .ended(message: tr("waitlist.left"), slotsHref: elsewhere)
        case .closed:
            state = .ended(message: tr("waitlist.closed"), slotsHref: elsewhere)
        }
        let page = WaitlistPage(storeName: store.name, facts: facts, state: state,
                                notice: context.request.query["already"] != nil ? tr("waitlist.oneAtATime") : nil)
        return views.page(title: tr("waitlist.title"), section: .reservations, context, page)
    }

    func acceptOffer(_ context: OwnedWaitlistContext) throws -> Response {
        let id = context.place.entry.id
        switch try database.waitingLists.acceptOffer(id: id, userId: context.user.id, replacingActive: context.form["replace"] == "1",
                                        now: context.now)
        {
        case .booked(let reservation):
            return .redirect(to: Paths.ticket(reservation.id))
        case .hasActive:
            // Their reservations changed since the page was drawn: it now says what accepting replaces.
            return .redirect(to: Paths.waitlist(id))
        case .notOffered:
            throw HTTPError(409, tr("waitlist.offerOver"))
        case .notFound:
            throw HTTPError.notFound
        }
    }

    func leaveWaitlist(_ context: OwnedWaitlistContext) throws -> Response {
        let id = context.place.entry.id
        _ = try database.waitingLists.leaveWaitlist(id: id, userId: context.user.id, now: context.now)
        return .redirect(to: Paths.waitlist(id))
    }

    /// The customer's place on a list, for "My reservations".
    func waitlistSummary(userId: UserID, now: Date) throws -> WaitlistSummary? {
        guard let place = try database.waitingLists.openWaitlistPlace(userId: userId) else { return nil }
        let entry = place.entry
        let store = place.store
        let slot = Slot(start: entry.slotStart, end: entry.slotStart + Double(store.slotMinutes) * 60)
        let status = entry.status == .offered
            ? tr("waitlist.offered", ["time": Formatting.clock(entry.offerExpiresAt ?? now, now: now, timeZone: store.zone)])
            : place.ahead == 0 ? tr("waitlist.first") : tr("waitlist.ahead", ["n": String(place.ahead)])
        return WaitlistSummary(storeName: store.name, slot: Formatting.slot(slot, now: now, timeZone: store.zone),
                               status: status, href: Paths.waitlist(entry.id))
    }
}

/// What a newcomer's party finds in a slot: the places left, and whether it can book one —
/// a place a waiting list could take is the list's (`WaitingList.canBook`).
struct SlotRoom {
    var left: Int
    var availability: SlotAvailability
}

extension AppDatabase {
    /// The room for a party of `people` in each of `store`'s `slots`, by slot start.
    func room(at store: Store, for people: Int, in slots: [Slot]) throws -> [Date: SlotRoom] {
        let booked = try reservations.bookedPeople(storeId: store.id, in: slots)
        let lists = try waitingLists.waitlists(storeId: store.id, in: slots)
        var result: [Date: SlotRoom] = [:]
        for slot in slots {
            let taken = booked[slot.start] ?? 0
            let listed = lists[slot.start] ?? []
            let left = max(0, WaitingList.free(capacity: store.slotCapacity, booked: taken, entries: listed))
            let canBook = WaitingList.canBook(people: people, capacity: store.slotCapacity, booked: taken, entries: listed)
            result[slot.start] = SlotRoom(
                left: left,
                availability: canBook
                    ? SlotAvailability.of(booked: store.slotCapacity - left, capacity: store.slotCapacity, people: people)
                    : .full)
        }
        return result
    }
}
