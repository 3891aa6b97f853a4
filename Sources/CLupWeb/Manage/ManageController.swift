import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation
import Mustache

/// The manager's area: the stores they manage and, for each, its live figures, settings and
/// enrolled kiosks. Every request checks that the signed-in person manages that store (admins
/// manage all); guessing another store's id gets a 403.
struct ManageController {
    let app: App

    private var database: AppDatabase { app.environment.database }

    func list(_ context: RequestContext) throws -> Response {
        let user = try context.visitor.requireUser(for: context.request)
        guard user.role != .customer else { throw HTTPError.forbidden }
        let userId = user.id
        let stores = user.role == .admin ? try database.storeListings().map(\.store) : try database.managedStores(userId: userId)
        let page = ManagePage(stores: stores.map { ManagePage.Row(id: $0.id, name: $0.name, address: $0.address) })
        return app.page(.manage, title: "Your stores", section: .manage, context, page)
    }

    func store(_ context: RequestContext) throws -> Response {
        let id = try context.id("id")
        _ = try context.visitor.requireManager(of: id, for: context.request, database: database)
        guard let details = try database.storeDetails(id: id) else { throw HTTPError.notFound }
        let status = StoreStatus(settings: details.store.settings, hours: details.openingHours,
                                 live: try database.liveTraffic(storeId: id, now: context.now), now: context.now)
        let kiosks = try database.kiosks(storeId: id).map { kiosk in
            ManageStorePage.KioskRow(
                id: kiosk.id, label: kiosk.label,
                enrolled: Formatting.clock(kiosk.createdAt, now: context.now, timeZone: details.store.zone),
                revoked: kiosk.revokedAt != nil)
        }
        let page = ManageStorePage(
            id: id, name: details.store.name, address: details.store.address, capacity: details.store.capacity,
            peopleInside: status.peopleInside, wait: Formatting.wait(status.wait), light: status.light.rawValue,
            reason: status.reason.text, kiosks: kiosks)
        return app.page(.manageStore, title: details.store.name, section: .manage, context, page)
    }
}

struct ManagePage {
    struct Row {
        var id: Int64
        var name: String
        var address: String
    }

    var stores: [Row]
}

struct ManageStorePage {
    struct KioskRow {
        var id: Int64
        var label: String
        var enrolled: String
        var revoked: Bool
    }

    var id: Int64
    var name: String
    var address: String
    var capacity: Int
    var peopleInside: Int
    var wait: String
    var light: String
    var reason: String
    var kiosks: [KioskRow]
}

// MARK: - Template fields

extension ManagePage: MustacheParent {
    func child(named key: String) -> Any? {
        key == "stores" ? stores : nil
    }
}

extension ManagePage.Row: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "name": name
        case "address": address
        default: nil
        }
    }
}

extension ManageStorePage: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "name": name
        case "address": address
        case "capacity": capacity
        case "peopleInside": peopleInside
        case "wait": wait
        case "light": light
        case "reason": reason
        case "kiosks": kiosks
        default: nil
        }
    }
}

extension ManageStorePage.KioskRow: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "id": id
        case "label": label
        case "enrolled": enrolled
        case "revoked": revoked
        default: nil
        }
    }
}
