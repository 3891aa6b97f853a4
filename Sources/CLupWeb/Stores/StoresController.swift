import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation

/// Stores near me (the home page) and a store's own page.
struct StoresController {
    let app: App

    /// The stores sorted by distance from the shopper, each with its live status.
    func home(_ context: RequestContext) throws -> Response {
        let request = context.request
        let shopper = ShopperContext(request: request, settings: app.environment.settings, user: context.visitor.user)
        let now = context.now
        let database = app.environment.database
        let traffic = try database.liveTraffic(now: now)
        let cards = try database.storeListings()
            .map { listing in
                StoreCard(store: listing.store, hours: listing.openingHours, live: traffic[listing.store.id] ?? .none,
                          shopper: shopper, now: now)
            }
            .sorted { ($0.metres, $0.id) < ($1.metres, $1.id) }
        let settings = app.environment.settings
        let page = HomePage(
            shopper: shopper,
            stores: cards,
            places: settings.places.map { PlaceOption(key: $0.key, name: $0.name, selected: $0.key == shopper.placeKey) },
            modes: TravelMode.allCases.map { mode in
                ModeOption(key: mode.rawValue, label: mode.label, selected: mode == shopper.mode,
                           href: "/?" + shopper.query(mode: mode))
            },
            tileURL: settings.tileURL,
            tileAttribution: settings.tileAttribution)
        var response = app.page(.home, title: "Stores near you", section: .stores, context, page)
        shopper.remember(in: &response, secure: request.isHTTPS)
        return response
    }

    /// One store: address, phone, status, the week's hours and its departments.
    func store(_ context: RequestContext) throws -> Response {
        let request = context.request
        guard let details = try app.environment.database.storeDetails(id: try context.id("id")) else {
            throw HTTPError.notFound
        }
        let shopper = ShopperContext(request: request, settings: app.environment.settings, user: context.visitor.user)
        let now = context.now  // once: every figure on the page is for the same instant
        let live = try app.environment.database.liveTraffic(storeId: details.store.id, now: now)
        let card = StoreCard(store: details.store, hours: details.openingHours, live: live, shopper: shopper, now: now)
        let page = StorePage(card: card, details: details, shopper: shopper, now: now)
        var response = app.page(.store, title: details.store.name, context, page)
        shopper.remember(in: &response, secure: request.isHTTPS)
        return response
    }
}
