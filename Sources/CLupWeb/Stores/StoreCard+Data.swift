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
                guard let summary = kept[Key(store: item.entry.id, language: language)],
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
            made.append((Key(store: item.entry.id, language: language), item.entry.version, item.standing.at,
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

/// The home page's list of the nearest stores' cards for one position, means of transport,
/// language and length, kept while the board has not changed and none of the standings it
/// shows would yet have been computed again (`StoreBoard.standingLifetime`): within those
/// bounds a page made afresh would show the same cards. Every signed-in shopper at the same
/// place (a named place, or the same point) then reads the list in one look-up rather than
/// finding, copying and formatting thirty stores — what nginx's one-second cache does for
/// guests, with the board's changes shown at once.
final class NearbyCards: Sendable {
    /// Past this many lists kept, all are forgotten (simple, and rare).
    static let capacity = 1_000

    struct Key: Hashable {
        var language: Language
        /// The position as links carry it (`ShopperContext.query()`).
        var position: String
        var mode: TravelMode
        var shown: Int
    }

    struct List {
        var stores: StoreList
        var total: Int
        /// The links to the same list by another means of transport, and to a longer one.
        var modes: [ModeLink]
        var more: String?
    }

    private struct Kept {
        var list: List
        var boardChanges: Int
        var madeAt: Date
        /// When the oldest standing on it would be computed again.
        var until: Date
    }

    private let kept = Mutex<[Key: Kept]>([:])

    /// The list kept for `key`, else the one `make` gives (with the time of the oldest
    /// standing it shows), kept.
    func list(_ key: Key, board: StoreBoard, now: Date,
              make: () -> (list: List, oldestStanding: Date?)) -> List
    {
        let changes = board.changes
        if let found = kept.withLock({ $0[key] }), found.boardChanges == changes, found.madeAt <= now,
            now <= found.until
        {
            return found.list
        }
        let made = make()
        let until = (made.oldestStanding ?? now) + StoreBoard.standingLifetime
        kept.withLock { kept in
            if kept.count >= Self.capacity { kept.removeAll(keepingCapacity: true) }
            kept[key] = Kept(list: made.list, boardChanges: changes, madeAt: now, until: until)
        }
        return made.list
    }
}
