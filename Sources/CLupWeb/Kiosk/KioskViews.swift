import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation
import Mustache

/// Enter a device key to make this browser a store's kiosk.
struct KioskEnrolPage {
    var error: String?
}

/// An enrolled kiosk's start page: its store and its three screens.
struct KioskHomePage {
    var storeName: String
    var label: String

    init(kiosk: Kiosk, store: Store) {
        storeName = store.name
        label = kiosk.label
    }
}

/// The ticket dispenser: how long, how many, print. Touch targets are large; 30 minutes and
/// one person are chosen already, so one tap prints the commonest ticket.
struct DispenserPage {
    var storeName: String
    var presets: [Choice]
    var people: [Choice]
    /// A fresh key per form: a double tap prints one ticket.
    var requestKey: String
    var waitText: String
    var error: String?

    init(details: StoreDetails, live: LiveTraffic, now: Date, error: String?) {
        let store = details.store
        storeName = store.name
        presets = ResidenceTime.presets.map { Choice(value: String($0), label: "\($0) min", checked: $0 == 30) }
        people = [Choice(value: "1", label: "Just me", checked: true),
                  Choice(value: "2", label: "Two of us", checked: false)]
        requestKey = Secrets.token()
        if store.settings.walkInPlaces == 0 {
            waitText = "This store keeps no places for walk-ins: please line up with CLup online."
        } else {
            let decision = live.lineUpDecision(people: 1, residence: StoreStatus.typicalVisit, settings: store.settings,
                                               hours: details.openingHours, now: now, pool: .walkIn)
            if case .accepted(let wait, _) = decision {
                waitText = wait < 60 ? "No wait right now." : "Wait right now: about \(Formatting.duration(wait))."
            } else {
                waitText = EntranceDesk.refusal(decision, now: now, zone: store.zone).message
            }
        }
        self.error = error
    }
}

/// The printed walk-in ticket: store, number, QR code, time issued and the expected wait.
struct KioskTicketPage {
    /// The kiosk shows a ticket for this long after issuing it, then only its QR code on paper
    /// opens the door.
    static let shownFor: TimeInterval = 10 * 60
    /// Seconds before the screen returns to the dispenser for the next person.
    static let resetAfter = 20

    var storeName: String
    var storeAddress: String
    var number: Int
    var facts: [Fact]
    var called: Bool
    var headline: String
    var qrSide: Int
    var qrPath: String
    var resetAfter = Self.resetAfter

    init(ticket: Reservation, store: Store, code: QRCode, standing: QueueStanding?, now: Date) {
        let zone = store.zone
        storeName = store.name
        storeAddress = store.address
        number = ticket.number
        called = ticket.status == .called
        if called {
            let deadline = (ticket.calledAt ?? now) + Double(store.callGraceMinutes) * 60
            headline = "Go in now: scan this code at the entrance by \(Formatting.clock(deadline, now: now, timeZone: zone))."
        } else if let entry = standing?.entry {
            headline = "Wait: about \(Formatting.duration(entry.timeIntervalSince(now))) (around "
                + "\(Formatting.clock(entry, now: now, timeZone: zone))). Watch the screen for your number."
        } else {
            headline = "Watch the screen at the entrance for your number."
        }
        facts = [
            Fact("Issued", Formatting.moment(ticket.createdAt, now: now, timeZone: zone)),
            Fact("People", Formatting.people(ticket.people)),
            Fact("Visit length", "about \(ticket.residenceMinutes) min"),
        ]
        qrSide = code.svgSide
        qrPath = code.svgPath
    }
}

/// The scanner: one input that a USB or Bluetooth scanner types into, the last verdict, and
/// the count inside.
struct ScannerPage {
    var storeName: String
    var report: ScanReport?
    var peopleInside: Int
    var capacity: Int

    init(store: Store, report: ScanReport?, peopleInside: Int) {
        storeName = store.name
        self.report = report
        self.peopleInside = peopleInside
        capacity = store.capacity
    }
}

/// The "now calling" screen at the entrance.
struct BoardPage {
    static let refreshSeconds = 10

    var storeName: String
    var called: [Int]
    var next: [Int]
    var peopleInside: Int
    var capacity: Int
    var refreshSeconds = Self.refreshSeconds

    init(store: Store, board: EntranceBoard) {
        storeName = store.name
        called = board.called.map(\.number)
        next = board.waiting.map(\.number)
        peopleInside = board.peopleInside
        capacity = store.capacity
    }
}

// MARK: - Template fields

extension KioskEnrolPage: MustacheParent {
    func child(named key: String) -> Any? {
        key == "error" ? error : nil
    }
}

extension KioskHomePage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "label": label
        default: nil
        }
    }
}

extension DispenserPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "presets": presets
        case "people": people
        case "requestKey": requestKey
        case "waitText": waitText
        case "error": error
        default: nil
        }
    }
}

extension KioskTicketPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "storeAddress": storeAddress
        case "number": number
        case "facts": facts
        case "called": called
        case "headline": headline
        case "qrSide": qrSide
        case "qrPath": qrPath
        case "resetAfter": resetAfter
        default: nil
        }
    }
}

extension ScannerPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "report": report
        case "peopleInside": peopleInside
        case "capacity": capacity
        default: nil
        }
    }
}

extension ScanReport: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "result": result
        case "headline": headline
        case "message": message
        default: nil
        }
    }
}

extension BoardPage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "storeName": storeName
        case "called": called
        case "hasCalled": !called.isEmpty
        case "next": next
        case "hasNext": !next.isEmpty
        case "peopleInside": peopleInside
        case "capacity": capacity
        case "refreshSeconds": refreshSeconds
        default: nil
        }
    }
}
