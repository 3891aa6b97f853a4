import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import Foundation

extension StoreCard {
    /// A store's card from the board's entry and its status, `metres` from the shopper.
    init(entry: StoreBoard.Entry, status: StoreStatus, metres: Double, shopper: ShopperContext, now: Date) {
        let store = entry.store
        let hours = entry.hours
        let openText: String
        switch status.openState {
        case .open(let until):
            openText = "Open until " + Formatting.clock(until, now: now, timeZone: store.zone)
        case .closed(let opensAt):
            openText = opensAt.map { "Closed · opens " + Formatting.clock($0, now: now, timeZone: store.zone) } ?? "Closed"
        }
        self.init(
            id: store.id, name: store.name, address: store.address,
            href: Paths.store(store.id, query: shopper.query()),
            distance: Formatting.distance(metres: metres),
            travel: Formatting.duration(shopper.mode.travelTime(metres: metres)) + " " + shopper.mode.phrase,
            hoursToday: Formatting.intervals(hours.intervals(on: now)), openText: openText,
            peopleInside: status.peopleInside, capacity: status.capacity,
            wait: status.openState.isOpen ? Formatting.wait(status.wait) : "—",
            light: status.light.rawValue, reason: status.reason.text,
            latitude: NumberText.fixed(store.latitude, digits: 5), longitude: NumberText.fixed(store.longitude, digits: 5))
    }
}

extension TravelMode {
    /// "on foot", "by car": completes "12 min …".
    var phrase: String {
        switch self {
        case .walking: "on foot"
        case .car: "by car"
        case .transit: "by public transport"
        }
    }
}
