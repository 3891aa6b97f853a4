import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// Step 2: line up now (the wait, and how the customer will get there), or book a time.
extension ReservationsArea {
    func how(_ context: CustomerContext) throws -> Response {
        let details = try store(context)
        let store = details.store
        let shopper = self.shopper(context)
        let query = context.request.query
        let plan: VisitPlan
        if query["minutes"] != nil {
            plan = try VisitPlan.parse(query, largestParty: store.largestParty)
        } else {
            let usual = try usualMinutes(userId: context.user.id, storeId: store.id)
            let choice = VisitPlan.choose(query, departments: details.departments, usual: usual,
                                          largestParty: store.largestParty)
            guard let chosen = choice.plan else {
                let page = ReservePage(details: details, choice: choice, usual: usual, shopper: shopper)
                return views.page(title: tr("wizard.reserveAt", ["store": store.name]), section: .stores, context, page, status: 422)
            }
            plan = chosen
        }
        let now = context.now
        let alternatives = self.alternatives(context, plan: plan, shopper: shopper)
        let live = database.board.entry(store.id)?.live ?? .none
        let decision = alternatives.decision(for: details, live: live)
        let queued = database.board.standing(of: store.id, now: now)?.online.people ?? 0
        var lineUp: HowPage.LineUp?
        var refusal: String?
        var suggestions: [SuggestionRow] = []
        if case .accepted(let wait, let entry) = decision {
            let metres = shopper.position.distance(to: store.position)
            lineUp = HowPage.LineUp(
                estimate: wait < 60 ? tr("how.freeNow")
                    : tr("how.estimate", ["wait": Formatting.wait(wait),
                                          "entry": Formatting.clock(entry, now: now, timeZone: store.zone)]),
                modes: Self.travelChoices(metres: metres, preferred: shopper.mode, now: now, zone: store.zone) { travel in
                    alternatives.decision(for: details, live: live, travel: travel)
                },
                hidden: Self.hidden([("kind", "lineUp")] + plan.fields + shopper.fields),
                priority: store.settings.priority.asksOnline ? PriorityText.policy(store.settings.priority) : nil)
        } else {
            refusal = Self.refusal(decision, now: now, zone: store.zone)
            suggestions = try alternatives.lineUpStores(near: store)
        }
        let page = HowPage(
            storeName: store.name, summary: plan.summary,
            changeHref: WizardLinks.start(store.id, shopper: shopper, plan: plan),
            recapAction: Paths.reserveRecap(store.id),
            queued: queued == 0 ? tr("how.nobodyQueued") : tr("how.queued", ["people": Formatting.people(queued)]),
            lineUp: lineUp, refusal: refusal, suggestions: suggestions,
            slotsHref: WizardLinks.slots(store.id, plan: plan, shopper: shopper),
            firstSlot: details.slotCalendar.firstBookable(now: now, residence: plan.residence).map {
                Formatting.slot($0, now: now, timeZone: store.zone)
            })
        return views.page(title: tr("how.title"), section: .stores, context, page)
    }

    /// Each means of transport with its travel time and when the customer would leave and go
    /// in ("On foot · 39 min · leave now, in around 20:39"); one that would get them there too
    /// late is shown but cannot be chosen. The preferred one is chosen if it can be.
    static func travelChoices(metres: Double, preferred: TravelMode, now: Date, zone: TimeZone,
                              decision: (TimeInterval) -> LineUpPolicy.Decision) -> [Choice]
    {
        var choices = TravelMode.allCases.map { mode in
            let travel = TravelMode.travel(mode: mode, metres: Int(metres.rounded()))
            let label = "\(mode.label) · \(Formatting.duration(travel)) · "
            switch decision(travel) {
            case .accepted(_, let entry):
                let leave = Departure.leaveBy(entry: entry, travel: travel)
                let entryText = Formatting.clock(entry, now: now, timeZone: zone)
                return Choice(value: mode.rawValue, label: label + (leave <= now + 60
                    ? tr("how.leaveNowIn", ["entry": entryText])
                    : tr("how.leaveAroundIn", ["leave": Formatting.clock(leave, now: now, timeZone: zone), "entry": entryText])),
                    checked: false)
            case .closesFirst:
                return Choice(value: mode.rawValue, label: label + tr("how.tooLate"), checked: false,
                              disabled: true)
            case .waitTooLong, .closed:
                return Choice(value: mode.rawValue, label: label + tr("how.tooFar"), checked: false, disabled: true)
            }
        }
        let chosen = choices.firstIndex { $0.value == preferred.rawValue && !$0.disabled }
            ?? choices.firstIndex { !$0.disabled }
        if let chosen { choices[chosen].checked = true }
        return choices
    }

    /// Why the party cannot line up, in words they can act on.
    static func refusal(_ decision: LineUpPolicy.Decision, now: Date, zone: TimeZone) -> String {
        switch decision {
        case .accepted:
            return ""
        case .closed(let opensAt):
            return opensAt.map { tr("refusal.closedOpens", ["time": Formatting.clock($0, now: now, timeZone: zone)]) }
                ?? tr("refusal.closed")
        case .waitTooLong(let wait?):
            return tr("refusal.tooLong", ["wait": Formatting.wait(wait)])
        case .waitTooLong(nil):
            return tr("refusal.party")
        case .closesFirst(let closes, let entry):
            return tr("refusal.closesFirst", ["entry": Formatting.clock(entry, now: now, timeZone: zone),
                                              "closes": Formatting.clock(closes, now: now, timeZone: zone)])
        }
    }
}
