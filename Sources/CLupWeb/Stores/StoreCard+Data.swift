import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation
import Synchronization

extension StoreSummary {
    /// A store's summary from the board's entry and its status at `now`.
    init(entry: StoreBoard.Entry, status: StoreStatus, now: Date) {
        let store = entry.store
        let openText: String
        switch status.openState {
        case .open(let until):
            openText = tr("open.until", ["time": Formatting.clock(until, now: now, timeZone: store.zone)])
        case .closed(let opensAt):
            openText = opensAt.map { tr("open.closedOpens", ["time": Formatting.clock($0, now: now, timeZone: store.zone)]) }
                ?? tr("hours.closed")
        }
        self.init(
            id: store.id.rawValue, name: store.name, address: store.address,
            hoursToday: Formatting.hours(of: entry.definition, localDay: entry.calendar.localDay(of: now)),
            openText: openText,
            peopleInside: status.peopleInside, capacity: status.capacity,
            wait: status.openState.isOpen ? Formatting.wait(status.wait, range: status.waitRange) : "—",
            light: status.light.rawValue, reason: status.reason.text,
            latitude: NumberText.fixed(store.latitude, digits: 5), longitude: NumberText.fixed(store.longitude, digits: 5))
    }
}

extension StoreCard {
    /// A store's card: its summary, and the shopper's link, distance and travel time.
    init(summary: StoreSummary, metres: Double, shopper: ShopperContext) {
        self.init(
            summary: summary, href: Paths.store(summary.id, query: shopper.query()),
            distance: Formatting.distance(metres: metres),
            travel: Formatting.duration(shopper.mode.travelTime(metres: metres)) + " " + shopper.mode.phrase)
    }
}

/// Each store's summary, kept for the standing it was made from: the store list formats and
/// renders a store's card once per change of its status and language, not once per page.
final class StoreSummaries: Sendable {
    /// Past this many summaries kept, the oldest are forgotten (all at once: simple, and rare).
    static let capacity = 5_000
    private struct Key: Hashable {
        var store: StoreID
        var language: Language
    }
    private let kept = Mutex<[Key: (version: Int, at: Date, summary: StoreSummary)]>([:])

    /// The summaries of `found` (board entries with their standings), made where missing.
    func summaries(_ found: [(entry: StoreBoard.Entry, standing: StoreStanding, metres: Double)]) -> [StoreSummary] {
        let language = Language.current
        var result = kept.withLock { kept in
            found.map { item -> StoreSummary? in
                guard let summary = kept[Key(store: item.entry.store.id, language: language)],
                    summary.version == item.entry.version,
                    summary.at == item.standing.at
                else { return nil }
                return summary.summary
            }
        }
        var made: [(Key, Int, Date, StoreSummary)] = []
        for index in result.indices where result[index] == nil {
            let item = found[index]
            let summary = StoreSummary(entry: item.entry, status: item.standing.status, now: item.standing.at)
            result[index] = summary
            made.append((Key(store: item.entry.store.id, language: language), item.entry.version, item.standing.at,
                         summary))
        }
        if !made.isEmpty {
            kept.withLock { kept in
                if kept.count + made.count > Self.capacity { kept.removeAll(keepingCapacity: true) }
                for (key, version, at, summary) in made { kept[key] = (version, at, summary) }
            }
        }
        return result.map { $0! }
    }
}
