import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// Addresses of the wizard's steps, carrying the plan and the shopper's position.
enum WizardLinks {
    static func start(_ storeId: StoreID, shopper: ShopperContext, plan: VisitPlan? = nil) -> String {
        Paths.reserve(storeId, query: FormData(pairs: (plan?.fields ?? []) + shopper.fields).urlEncoded)
    }

    static func how(_ storeId: StoreID, plan: VisitPlan, shopper: ShopperContext) -> String {
        Paths.reserveHow(storeId, query: FormData(pairs: plan.fields + shopper.fields).urlEncoded)
    }

    static func slots(_ storeId: StoreID, plan: VisitPlan, shopper: ShopperContext, day: Int? = nil) -> String {
        let day = day.map { [(name: "day", value: String($0))] } ?? []
        return Paths.reserveSlots(storeId, query: FormData(pairs: plan.fields + shopper.fields + day).urlEncoded)
    }

    static func bookingRecap(_ storeId: StoreID, slot: Slot, plan: VisitPlan, shopper: ShopperContext) -> String {
        let pairs = [("kind", "booking"), ("slot", String(Int(slot.start.timeIntervalSince1970)))] + plan.fields
        return Paths.reserveRecap(storeId, query: FormData(pairs: pairs + shopper.fields).urlEncoded)
    }
}

/// Where else, or when else, a customer can go when their choice is refused (G4, RASD
/// §2.2.3): the nearest other stores that can take them, and the store's other free slots.
struct Alternatives {
    let database: AppDatabase
    let now: Date
    let plan: VisitPlan
    let shopper: ShopperContext

    /// Stores nearest `store` where the party could line up now.
    func lineUpStores(near store: Store) throws -> [SuggestionRow] {
        let listings = candidates(near: store)
        return Suggestions.nearest(
            to: store.position, among: listings, excluding: store.id, id: { $0.store.id },
            position: \.store.position,
            acceptable: { listing in decision(for: listing.definition, live: listing.live).isAccepted }
        ).map { entry in
            let id = entry.candidate.store.id
            let decision = decision(for: entry.candidate.definition, live: entry.candidate.live)
            return SuggestionRow(
                name: entry.candidate.store.name,
                detail: tr("suggest.wait", ["distance": Formatting.distance(metres: entry.metres), "wait": decision.waitText]),
                href: WizardLinks.how(id, plan: plan, shopper: shopper))
        }
    }

    /// How many of the stores nearest the chosen one are considered, nearest first.
    static let candidateReach = 200

    /// The stores nearest `store`, from the board's grid.
    private func candidates(near store: Store) -> [StoreBoard.Entry] {
        database.board.nearest(to: store.position, limit: Self.candidateReach, excluding: store.id).map(\.entry)
    }

    /// Whether the party could line up at `listing` now, `travel` away.
    func decision(for listing: StoreBoard.Definition, live: LiveTraffic, travel: TimeInterval = 0)
        -> LineUpPolicy.Decision
    {
        live.lineUpDecision(people: plan.people, residence: plan.residence, travel: travel,
                            settings: listing.store.settings, hours: listing.openingHours, now: now)
    }

    /// Stores nearest `store` with room for the party in their slot at `start`.
    func bookingStores(near store: Store, at start: Date) throws -> [SuggestionRow] {
        let listings = candidates(near: store)
        var found: [StoreID: Slot] = [:]
        return try Suggestions.nearest(
            to: store.position, among: listings, excluding: store.id, id: { $0.store.id },
            position: \.store.position,
            acceptable: { listing in
                let calendar = listing.calendar
                guard let slot = calendar.slot(containing: start, now: now), calendar.isBookable(slot, now: now),
                    calendar.closing(ifVisitOf: plan.residence, startsAt: slot) == nil
                else { return false }
                let id = listing.store.id
                guard try database.room(at: listing.store, for: plan.people, in: [slot])[slot.start]?.availability
                    != .full
                else { return false }
                found[id] = slot
                return true
            }
        ).compactMap { entry in
            let id = entry.candidate.store.id
            guard let slot = found[id] else { return nil }
            return SuggestionRow(
                name: entry.candidate.store.name,
                detail: tr("suggest.slot", ["distance": Formatting.distance(metres: entry.metres),
                                            "slot": Formatting.slot(slot, now: now, timeZone: entry.candidate.store.zone)]),
                href: WizardLinks.bookingRecap(id, slot: slot, plan: plan, shopper: shopper))
        }
    }

    /// The store's free slots nearest in time to `start`, on its day and the next, in order.
    func otherSlots(_ details: StoreBoard.Definition, around start: Date, limit: Int = 4) throws -> [SuggestionRow] {
        let calendar = details.slotCalendar
        let store = details.store
        let id = store.id
        let day = calendar.localDay(of: start)
        let candidates = (calendar.slots(localDay: day, now: now) + calendar.slots(localDay: day + 1, now: now))
            .filter {
                $0.start != start && calendar.isBookable($0, now: now)
                    && calendar.closing(ifVisitOf: plan.residence, startsAt: $0) == nil
            }
        guard !candidates.isEmpty else { return [] }
        let room = try database.room(at: store, for: plan.people, in: candidates)
        return candidates
            .filter { room[$0.start].map { $0.availability != .full } ?? false }
            .sorted { abs($0.start.timeIntervalSince(start)) < abs($1.start.timeIntervalSince(start)) }
            .prefix(limit)
            .sorted { $0.start < $1.start }
            .map { slot in
                SuggestionRow(
                    name: Formatting.slot(slot, now: now, timeZone: store.zone),
                    detail: Formatting.placesLeft(room[slot.start]?.left ?? 0),
                    href: WizardLinks.bookingRecap(id, slot: slot, plan: plan, shopper: shopper))
            }
    }
}

extension LineUpPolicy.Decision {
    var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }

    /// "under 1 min", "about 25 min".
    var waitText: String {
        if case .accepted(let wait, _) = self { return Formatting.wait(wait) }
        return tr("wait.over2h")
    }
}
