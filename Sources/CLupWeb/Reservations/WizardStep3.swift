import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// Step 3, for a booking: the slot picker, one day at a time.
extension ReservationsArea {
    func slots(_ context: CustomerContext) throws -> Response {
        let details = try store(context)
        let store = details.store
        let plan = try VisitPlan.parse(context.request.query, largestParty: store.largestParty)
        let shopper = self.shopper(context)
        let now = context.now
        let calendar = details.slotCalendar
        let days = calendar.bookingDays(now: now)
        let firstDay = calendar.firstBookable(now: now, residence: plan.residence).map { calendar.localDay(of: $0.start) }
            ?? days[0]
        let requested = context.request.query["day"].flatMap { Int($0) }
        let day = requested.flatMap { days.contains($0) ? $0 : nil } ?? firstDay
        let daySlots = calendar.slots(startingOn: day, now: now)
        // Only bookable slots the visit fits in are offered; a line says why others are not.
        let bookable = daySlots.filter { calendar.isBookable($0, now: now) }
        let slots = bookable.filter { calendar.closing(ifVisitOf: plan.residence, startsAt: $0) == nil }
        var notes: [String] = []
        if let first = slots.first ?? daySlots.last,
            daySlots.contains(where: { $0.start < now + SlotCalendar.leadTime })
        {
            notes.append(slots.isEmpty
                ? tr("slots.noneLeft")
                : tr("slots.firstToday", ["time": Formatting.time(first.start, timeZone: store.zone, now: now)]))
        }
        if slots.count < bookable.count {
            notes.append(tr("slots.tooClose", ["minutes": String(plan.minutes)]))
        }
        if daySlots.contains(where: { $0.start > now + SlotCalendar.horizon }) {
            notes.append(tr("slots.tooFar"))
        }
        let room = try database.room(at: store, for: plan.people, in: slots)
        let offsets = ZoneOffsets.table(for: store.zone, around: now)
        let page = SlotsPage(
            storeName: store.name, summary: plan.summary,
            changeHref: WizardLinks.how(store.id, plan: plan, shopper: shopper),
            action: Paths.reserveRecap(store.id),
            days: days.map { candidate in
                let noon = offsets.instant(localSeconds: candidate * ZoneOffsets.secondsPerDay + 12 * 3600)
                return DayTab(label: Formatting.day(noon, now: now, timeZone: store.zone).capitalizedFirst,
                              href: WizardLinks.slots(store.id, plan: plan, shopper: shopper, day: candidate),
                              current: candidate == day)
            },
            slots: slots.map { slot in
                let room = room[slot.start] ?? SlotRoom(left: 0, availability: .full)
                return SlotChoice(
                    value: String(Int(slot.start.timeIntervalSince1970)),
                    time: Formatting.time(slot.start, timeZone: store.zone, now: now) + "–"
                        + Formatting.time(slot.end, timeZone: store.zone, now: now),
                    state: room.availability.rawValue,
                    note: room.availability == .full ? tr("slots.full") : Formatting.placesLeft(room.left))
            },
            notes: notes, closed: daySlots.isEmpty,
            hidden: Self.hidden([("kind", "booking")] + plan.fields + shopper.fields))
        return views.page(title: tr("wizard.chooseTime"), section: .stores, context, page)
    }
}
