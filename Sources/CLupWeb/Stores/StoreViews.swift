import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation
import Mustache

/// One store in the list: everything a shopper compares, already formatted.
struct StoreCard {
    var id: Int64
    var name: String
    var address: String
    var href: String
    var metres: Double
    var distance: String
    var travel: String
    var hoursToday: String
    var openText: String
    var peopleInside: Int
    var capacity: Int
    var wait: String
    var light: String
    var reason: String
    var latitude: String
    var longitude: String

    init(store: Store, hours: OpeningHours, live: LiveTraffic, shopper: ShopperContext, now: Date) {
        let status = StoreStatus(settings: store.settings, hours: hours, live: live, now: now)
        id = store.id
        name = store.name
        address = store.address
        href = "/stores/\(id)?" + shopper.query()
        metres = shopper.position.distance(to: store.position)
        distance = Formatting.distance(metres: metres)
        travel = Formatting.duration(shopper.mode.travelTime(metres: metres)) + " " + shopper.mode.phrase
        hoursToday = Formatting.intervals(hours.intervals(on: now))
        switch status.openState {
        case .open(let until):
            openText = "Open until " + Formatting.clock(until, now: now, timeZone: store.zone)
        case .closed(let opensAt):
            openText = opensAt.map { "Closed · opens " + Formatting.clock($0, now: now, timeZone: store.zone) } ?? "Closed"
        }
        peopleInside = status.peopleInside
        capacity = status.capacity
        wait = status.openState.isOpen ? Formatting.wait(status.wait) : "—"
        light = status.light.rawValue
        reason = status.reason.text
        latitude = String(format: "%.5f", store.latitude)
        longitude = String(format: "%.5f", store.longitude)
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

struct PlaceOption {
    var key: String
    var name: String
    var selected: Bool
}

struct ModeOption {
    var key: String
    var label: String
    var selected: Bool
    var href: String
}

struct HomePage {
    var positionLabel: String
    var notice: String?
    var latitude: String
    var longitude: String
    var modePhrase: String
    var modeKey: String
    var stores: [StoreCard]
    var storeCount: Int
    var places: [PlaceOption]
    var modes: [ModeOption]
    var tileURL: String
    var tileAttribution: String

    init(shopper: ShopperContext, stores: [StoreCard], places: [PlaceOption], modes: [ModeOption], tileURL: String,
         tileAttribution: String)
    {
        positionLabel = shopper.positionLabel
        notice = shopper.notice
        latitude = String(format: "%.5f", shopper.position.latitude)
        longitude = String(format: "%.5f", shopper.position.longitude)
        modePhrase = shopper.mode.phrase
        modeKey = shopper.mode.rawValue
        self.stores = stores
        storeCount = stores.count
        self.places = places
        self.modes = modes
        self.tileURL = tileURL
        self.tileAttribution = tileAttribution
    }
}

struct StorePage {
    struct Day {
        var name: String
        var hours: String
        var isToday: Bool
    }

    struct DepartmentRow {
        var name: String
        var minutes: Int
    }

    var card: StoreCard
    var phone: String
    var phoneHref: String
    var timeZone: String
    var days: [Day]
    var departments: [DepartmentRow]
    var hasDepartments: Bool
    var backHref: String
    var reserveHref: String
    var positionLabel: String
    var notice: String?

    init(card: StoreCard, details: StoreDetails, shopper: ShopperContext, now: Date) {
        self.card = card
        phone = details.store.phone
        phoneHref = "tel:" + details.store.phone.filter { $0.isNumber || $0 == "+" }
        timeZone = details.store.timeZone
        let hours = details.openingHours
        let today = hours.weekday(at: now)
        days = (1...7).map { weekday in
            Day(name: OpeningHours.weekdayNames[weekday - 1],
                hours: Formatting.intervals(hours.intervals(weekday: weekday)), isToday: weekday == today)
        }
        departments = details.departments.map { DepartmentRow(name: $0.name, minutes: $0.estimatedMinutes) }
        hasDepartments = !departments.isEmpty
        backHref = "/?" + shopper.query()
        reserveHref = "/stores/\(card.id)/reserve?" + shopper.query()
        positionLabel = shopper.positionLabel
        notice = shopper.notice
    }
}

// MARK: - Template fields
//
// Templates look fields up by name through `child(named:)`: explicit and fast, where the
// library's fallback would reflect over every field of every value on every lookup.

extension StoreCard: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "name": name
        case "address": address
        case "href": href
        case "distance": distance
        case "travel": travel
        case "hoursToday": hoursToday
        case "openText": openText
        case "peopleInside": peopleInside
        case "capacity": capacity
        case "wait": wait
        case "light": light
        case "reason": reason
        case "latitude": latitude
        case "longitude": longitude
        default: nil
        }
    }
}

extension PlaceOption: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "key": self.key
        case "name": name
        case "selected": selected
        default: nil
        }
    }
}

extension ModeOption: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "key": self.key
        case "label": label
        case "selected": selected
        case "href": href
        default: nil
        }
    }
}

extension HomePage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "positionLabel": positionLabel
        case "notice": notice
        case "latitude": latitude
        case "longitude": longitude
        case "modePhrase": modePhrase
        case "modeKey": modeKey
        case "stores": stores
        case "storeCount": storeCount
        case "places": places
        case "modes": modes
        case "tileURL": tileURL
        case "tileAttribution": tileAttribution
        default: nil
        }
    }
}

extension StorePage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "card": card
        case "phone": phone
        case "phoneHref": phoneHref
        case "timeZone": timeZone
        case "days": days
        case "departments": departments
        case "hasDepartments": hasDepartments
        case "backHref": backHref
        case "reserveHref": reserveHref
        case "positionLabel": positionLabel
        case "notice": notice
        default: nil
        }
    }
}

extension StorePage.Day: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "name": name
        case "hours": hours
        case "isToday": isToday
        default: nil
        }
    }
}

extension StorePage.DepartmentRow: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "name": name
        case "minutes": minutes
        default: nil
        }
    }
}
