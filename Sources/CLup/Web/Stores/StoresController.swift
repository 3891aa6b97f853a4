import Foundation

/// Stores near me (the home page) and a store's own page.
struct StoresController {
    let app: App

    /// The stores sorted by distance from the shopper, each with its live status.
    func home(_ request: Request) throws -> Response {
        let shopper = ShopperContext(request: request, settings: app.environment.settings)
        let now = app.environment.now()
        let cards = try app.environment.database.storeListings()
            .map { listing in
                StoreCard(store: listing.store, hours: listing.openingHours, traffic: traffic(for: listing.store),
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
        var response = Response.html(app.views.render(.home, title: "Stores near you", section: .stores, page: page))
        shopper.remember(in: &response, secure: request.isHTTPS)
        return response
    }

    /// One store: address, phone, status, the week's hours and its departments.
    func store(_ request: Request, id: String) throws -> Response {
        guard let id = Int64(id), id > 0, let details = try app.environment.database.storeDetails(id: id) else {
            throw HTTPError.notFound
        }
        let shopper = ShopperContext(request: request, settings: app.environment.settings)
        let now = app.environment.now()  // once: every figure on the page is for the same instant
        let card = StoreCard(store: details.store, hours: details.openingHours, traffic: traffic(for: details.store),
                             shopper: shopper, now: now)
        let page = StorePage(card: card, details: details, shopper: shopper, now: now)
        var response = Response.html(app.views.render(.store, title: details.store.name, page: page))
        shopper.remember(in: &response, secure: request.isHTTPS)
        return response
    }

    /// The store's live traffic. No one can line up, book or be scanned in yet (those
    /// capabilities are still to come), so every store's queue and occupancy are empty; the
    /// status is nonetheless computed by the real estimator from this input.
    private func traffic(for store: Store) -> StoreTraffic {
        .empty
    }
}
