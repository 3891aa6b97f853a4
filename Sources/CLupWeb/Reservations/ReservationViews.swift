import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation
import Mustache

/// A label and its value, for recaps and tickets.
struct Fact {
    var label: String
    var value: String

    init(_ label: String, _ value: String) {
        self.label = label
        self.value = value
    }
}

/// One option of a radio group or checkbox list.
struct Choice {
    var value: String
    var label: String
    var checked: Bool
}

/// Step 1: how long and how many.
struct ReservePage {
    var storeName: String
    var storeHref: String
    var action: String
    var presets: [Choice]
    var usual: Choice?
    var departments: [Choice]
    var departmentsChosen: Bool
    var hasDepartments: Bool
    var people: [Choice]
    var timeError: String?
    var peopleError: String?
    var hidden: [HiddenField]

    init(details: StoreDetails, choice: VisitPlan.Choice, usual: Int?, shopper: ShopperContext) {
        let id = details.store.id
        storeName = details.store.name
        storeHref = "/stores/\(id)?" + shopper.query()
        action = "/stores/\(id)/reserve/how"
        let time = choice.time ?? (usual != nil ? "usual" : "30")
        presets = ResidenceTime.presets.map {
            Choice(value: String($0), label: "\($0) min", checked: time == String($0))
        }
        self.usual = usual.map {
            Choice(value: "usual", label: "Your usual: about \($0) min", checked: time == "usual")
        }
        departments = details.departments.map { department in
            Choice(value: String(department.id), label: "\(department.name) · \(department.estimatedMinutes) min",
                   checked: choice.departmentIds.contains(department.id))
        }
        departmentsChosen = time == "departments"
        hasDepartments = !departments.isEmpty
        people = [Choice(value: "1", label: "Just me", checked: choice.people != 2),
                  Choice(value: "2", label: "Two of us", checked: choice.people == 2)]
        timeError = choice.timeError
        peopleError = choice.peopleError
        hidden = WizardController.hidden(shopper.fields)
    }
}

/// Step 2: line up now, or book a time.
struct HowPage {
    struct LineUp {
        /// "Estimated wait about 25 min: you would enter around 10:25."
        var estimate: String
        var modes: [Choice]
        var hidden: [HiddenField]
    }

    var storeName: String
    var summary: String
    var changeHref: String
    var recapAction: String
    var queued: String
    var lineUp: LineUp?
    var refusal: String?
    var suggestions: [SuggestionRow] = []
    var slotsHref: String
    var firstSlot: String?

    init(store: Store, plan: VisitPlan, shopper: ShopperContext, queued: Int) {
        let id = store.id
        storeName = store.name
        summary = plan.summary
        changeHref = WizardLinks.start(id, shopper: shopper, plan: plan)
        recapAction = "/stores/\(id)/reserve/recap"
        self.queued = queued == 0 ? "Nobody is in the queue." : "\(Formatting.people(queued)) in the queue."
        slotsHref = WizardLinks.slots(id, plan: plan, shopper: shopper)
    }
}

struct DayTab {
    var label: String
    var href: String
    var current: Bool
}

struct SlotChoice {
    var value: String
    var time: String
    /// free, nearlyFull, full or unavailable: the colour.
    var state: String
    var note: String
}

/// Step 3 for a booking: the slot picker.
struct SlotsPage {
    var storeName: String
    var summary: String
    var changeHref: String
    var action: String
    var days: [DayTab]
    var slots: [SlotChoice]
    var hasSlots: Bool
    /// Why some of the day's slots are not offered.
    var notes: [String]
    /// The store does not open that day.
    var closed: Bool
    var hidden: [HiddenField]

    init(store: Store, plan: VisitPlan, shopper: ShopperContext, days: [DayTab], slots: [SlotChoice],
         notes: [String], closed: Bool, hidden: [HiddenField])
    {
        storeName = store.name
        summary = plan.summary
        changeHref = WizardLinks.how(store.id, plan: plan, shopper: shopper)
        action = "/stores/\(store.id)/reserve/recap"
        self.days = days
        self.slots = slots
        hasSlots = !slots.isEmpty
        self.notes = notes
        self.closed = closed
        self.hidden = hidden
    }
}

/// Step 4: what will be reserved, and the button that does it.
struct RecapPage {
    var storeName: String
    var facts: [Fact]
    var notice: String?
    var hidden: [HiddenField]
    var action: String
    var backHref: String

    init(store: Store, facts: [Fact], notice: String?, hidden: [HiddenField], backHref: String) {
        storeName = store.name
        self.facts = facts
        self.notice = notice
        self.hidden = hidden
        action = "/stores/\(store.id)/reservations"
        self.backHref = backHref
    }
}

/// A request that cannot be met, with what can be done instead.
struct RefusedPage {
    var heading: String
    var message: String
    var slotsHeading: String?
    var slots: [SuggestionRow]
    var suggestions: [SuggestionRow]
    var backHref: String
    var backLabel: String

    var hasSlots: Bool { !slots.isEmpty }
    var hasSuggestions: Bool { !suggestions.isEmpty }
}

/// A reservation in a sentence or two: for the conflict page and lists.
struct TicketSummary {
    var storeName: String
    var kind: String
    var when: String
    var number: Int

    init(_ owned: ReservationWithStore, now: Date) {
        let reservation = owned.reservation
        let zone = owned.store.zone
        storeName = owned.store.name
        number = reservation.number
        if let start = reservation.slotStart {
            kind = "Booked visit"
            when = Formatting.moment(start, now: now, timeZone: zone)
        } else {
            kind = reservation.walkIn ? "Walk-in ticket" : "Line-up"
            when = "taken " + Formatting.moment(reservation.createdAt, now: now, timeZone: zone)
        }
    }
}

/// The customer already has an active reservation: keep it, or replace it with this one.
struct ConflictPage {
    var active: TicketSummary
    var activeHref: String
    var storeName: String
    var hidden: [HiddenField]
    var action: String
    var canReplace: Bool
}

/// Where a reservation stands now, in words and figures; the page and its JSON agree.
struct TicketProgress {
    var status: String
    var headline: String
    var detail: String
    var peopleAhead: Int?
    var entry: String?
    /// Still changing: the page refreshes itself.
    var live: Bool

    init(_ owned: ReservationWithStore, standing: QueueStanding?, now: Date) {
        let reservation = owned.reservation
        let zone = owned.store.zone
        func clock(_ date: Date) -> String { Formatting.clock(date, now: now, timeZone: zone) }
        status = reservation.status.rawValue
        live = false
        switch reservation.status {
        case .waiting:
            live = true
            headline = "You are in the queue"
            peopleAhead = standing?.peopleAhead
            if let entry = standing?.entry {
                self.entry = entry <= now ? "now" : "around " + clock(entry)
                let ahead = standing.map { $0.peopleAhead == 0 ? "Nobody is ahead of you." :
                    "\(Formatting.people($0.peopleAhead)) ahead of you." } ?? ""
                detail = ahead + (entry <= now ? " Expected to enter any moment now."
                    : " Expected entry around \(clock(entry))"
                        + " (in \(Formatting.duration(entry.timeIntervalSince(now)))).")
            } else {
                detail = "Your party is larger than the places the store has for the queue."
            }
        case .called:
            live = true
            headline = "It is your turn: please go to the entrance"
            let deadline = (reservation.calledAt ?? now) + Double(owned.store.callGraceMinutes) * 60
            detail = "Scan your code at the entrance by \(clock(deadline)), or the ticket expires."
        case .booked:
            let slot = owned.slot ?? Slot(start: now, end: now)
            let window = owned.store.settings.entryWindow(slotStart: slot.start)
            headline = "Your visit is booked"
            detail = "Slot \(Formatting.slot(slot, now: now, timeZone: zone)). Scan your code at the entrance between "
                + "\(Formatting.time(window.lowerBound, timeZone: zone, now: now)) and "
                + "\(Formatting.time(window.upperBound, timeZone: zone, now: now))."
        case .inside:
            live = true
            headline = "You are in the store"
            detail = "Since \(clock(reservation.enteredAt ?? now)). Scan your code again on your way out."
        case .done:
            headline = "Visit complete"
            detail = Self.visit(reservation, now: now, zone: zone)
        case .cancelled:
            headline = "Cancelled"
            detail = "You cancelled this reservation"
                + (reservation.endedAt.map { " " + Formatting.moment($0, now: now, timeZone: zone) } ?? "") + "."
        case .expired:
            headline = "Expired"
            detail = "This reservation was not used in time."
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
    }

    var json: JSON { JSON(status: status, headline: headline, detail: detail, peopleAhead: peopleAhead, entry: entry) }
}

/// The ticket page: the recap, live progress, and the QR code.
struct TicketPage {
    var id: Int64
    var storeName: String
    var storeHref: String
    var number: Int
    var kind: String
    var progress: TicketProgress
    var facts: [Fact]
    var qrSide: Int?
    var qrPath: String?
    var pngHref: String
    var statusHref: String
    var cancellable: Bool
    var cancelAction: String

    init(_ owned: ReservationWithStore, progress: TicketProgress, code: QRCode?, now: Date) {
        let reservation = owned.reservation
        let store = owned.store
        id = reservation.id
        storeName = store.name
        storeHref = "/stores/\(store.id)"
        number = reservation.number
        let summary = TicketSummary(owned, now: now)
        kind = summary.kind
        self.progress = progress
        var facts = [Fact("Store", store.name), Fact("Address", store.address), Fact("Type", summary.kind)]
        if let slot = owned.slot { facts.append(Fact("Slot", Formatting.slot(slot, now: now, timeZone: store.zone))) }
        facts.append(Fact("Visit length", "about \(reservation.residenceMinutes) min"))
        facts.append(Fact("People", Formatting.people(reservation.people)))
        if let mode = reservation.travelMode { facts.append(Fact("Getting there", mode.label)) }
        self.facts = facts
        qrSide = code?.svgSide
        qrPath = code?.svgPath
        pngHref = "/reservations/\(id)/qr.png"
        statusHref = "/reservations/\(id)/status"
        cancellable = reservation.status.isCancellable
        cancelAction = "/reservations/\(id)/cancel"
    }
}

struct ActiveRow {
    var summary: TicketSummary
    var progress: TicketProgress
    var href: String
    var cancelAction: String
    var cancellable: Bool

    init(_ owned: ReservationWithStore, progress: TicketProgress, now: Date) {
        summary = TicketSummary(owned, now: now)
        self.progress = progress
        href = "/reservations/\(owned.reservation.id)"
        cancelAction = href + "/cancel"
        cancellable = owned.reservation.status.isCancellable
    }
}

struct HistoryRow {
    var storeName: String
    var kind: String
    var when: String
    var outcome: String
    var href: String

    init(_ owned: ReservationWithStore, now: Date) {
        let summary = TicketSummary(owned, now: now)
        storeName = summary.storeName
        kind = summary.kind
        when = summary.when
        let reservation = owned.reservation
        switch reservation.status {
        case .done: outcome = TicketProgress.visit(reservation, now: now, zone: owned.store.zone)
        case .cancelled: outcome = "Cancelled"
        case .expired: outcome = "Expired: not used in time"
        default: outcome = ""
        }
        href = "/reservations/\(reservation.id)"
    }
}

struct ReservationsPage {
    var active: ActiveRow?
    var history: [HistoryRow]
    var cancelled: Bool

    var hasHistory: Bool { !history.isEmpty }
}

// MARK: - Template fields

extension Fact: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "label": label
        case "value": value
        default: nil
        }
    }
}

extension Choice: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "value": value
        case "label": label
        case "checked": checked
        default: nil
        }
    }
}

extension HiddenField: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "name": name
        case "value": value
        default: nil
        }
    }
}

extension SuggestionRow: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "name": name
        case "detail": detail
        case "href": href
        default: nil
        }
    }
}

extension ReservePage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "storeHref": storeHref
        case "action": action
        case "presets": presets
        case "usual": usual
        case "departments": departments
        case "departmentsChosen": departmentsChosen
        case "hasDepartments": hasDepartments
        case "people": people
        case "timeError": timeError
        case "peopleError": peopleError
        case "hidden": hidden
        default: nil
        }
    }
}

extension HowPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "summary": summary
        case "changeHref": changeHref
        case "recapAction": recapAction
        case "queued": queued
        case "lineUp": lineUp
        case "refusal": refusal
        case "suggestions": suggestions
        case "hasSuggestions": !suggestions.isEmpty
        case "slotsHref": slotsHref
        case "firstSlot": firstSlot
        default: nil
        }
    }
}

extension HowPage.LineUp: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "estimate": estimate
        case "modes": modes
        case "hidden": hidden
        default: nil
        }
    }
}

extension DayTab: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "label": label
        case "href": href
        case "current": current
        default: nil
        }
    }
}

extension SlotChoice: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "value": value
        case "time": time
        case "state": state
        case "note": note
        default: nil
        }
    }
}

extension SlotsPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "summary": summary
        case "changeHref": changeHref
        case "action": action
        case "days": days
        case "slots": slots
        case "hasSlots": hasSlots
        case "notes": notes
        case "closed": closed
        case "hidden": hidden
        default: nil
        }
    }
}

extension RecapPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "facts": facts
        case "notice": notice
        case "hidden": hidden
        case "action": action
        case "backHref": backHref
        default: nil
        }
    }
}

extension RefusedPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "heading": heading
        case "message": message
        case "slotsHeading": slotsHeading
        case "slots": slots
        case "hasSlots": hasSlots
        case "suggestions": suggestions
        case "hasSuggestions": hasSuggestions
        case "backHref": backHref
        case "backLabel": backLabel
        default: nil
        }
    }
}

extension TicketSummary: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "kind": kind
        case "when": when
        case "number": number
        default: nil
        }
    }
}

extension ConflictPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "active": active
        case "activeHref": activeHref
        case "storeName": storeName
        case "hidden": hidden
        case "action": action
        case "canReplace": canReplace
        default: nil
        }
    }
}

extension TicketProgress: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "status": status
        case "headline": headline
        case "detail": detail
        case "live": live
        default: nil
        }
    }
}

extension TicketPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "storeName": storeName
        case "storeHref": storeHref
        case "number": number
        case "kind": kind
        case "progress": progress
        case "facts": facts
        case "qrSide": qrSide
        case "qrPath": qrPath
        case "pngHref": pngHref
        case "statusHref": statusHref
        case "cancellable": cancellable
        case "cancelAction": cancelAction
        default: nil
        }
    }
}

extension ActiveRow: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "summary": summary
        case "progress": progress
        case "href": href
        case "cancelAction": cancelAction
        case "cancellable": cancellable
        default: nil
        }
    }
}

extension HistoryRow: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "kind": kind
        case "when": when
        case "outcome": outcome
        case "href": href
        default: nil
        }
    }
}

extension ReservationsPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "active": active
        case "history": history
        case "hasHistory": hasHistory
        case "cancelled": cancelled
        default: nil
        }
    }
}
