import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import Foundation

/// Stores near me (the home page) and a store's own page: open to everyone.
struct StoresArea {
    let database: AppDatabase
    let views: Views
    let settings: SiteSettings

    func addRoutes(to pages: RouteGroup<BrowserContext>) {
        pages.get(Paths.home, home)
        pages.get(Paths.store, store)
    }

    /// The stores sorted by distance from the shopper, each with its live status.
    func home(_ context: BrowserContext) throws -> Response {
        let shopper = ShopperContext(request: context.request, settings: settings, user: context.visitor.user)
        let now = context.now
        let traffic = try database.liveTraffic(now: now)
        let cards = try database.storeListings()
            .map { listing in
                (shopper.position.distance(to: listing.store.position),
                 StoreCard(store: listing.store, hours: listing.openingHours, live: traffic[listing.store.id] ?? .none,
                           shopper: shopper, now: now))
            }
            .sorted { ($0.0, $0.1.id) < ($1.0, $1.1.id) }
            .map(\.1)
        let page = HomePage(
            positionLabel: shopper.positionLabel, notice: shopper.notice,
            latitude: String(format: "%.5f", shopper.position.latitude),
            longitude: String(format: "%.5f", shopper.position.longitude),
            modePhrase: shopper.mode.phrase, modeKey: shopper.mode.rawValue, stores: cards,
            places: settings.places.map { Choice(value: $0.key, label: $0.name, checked: $0.key == shopper.placeKey) },
            modes: TravelMode.allCases.map { mode in
                ModeLink(choice: Choice(value: mode.rawValue, label: mode.label, checked: mode == shopper.mode),
                         href: Paths.home(query: shopper.query(mode: mode)))
            },
            tileURL: settings.tileURL, tileAttribution: settings.tileAttribution)
        var response = views.page(title: "Stores near you", section: .stores, context, page)
        shopper.remember(in: &response, secure: context.secure)
        return response
    }

    /// One store: address, phone, status, the week's hours and its departments.
    func store(_ context: BrowserContext) throws -> Response {
        guard let details = try database.storeDetails(id: try context.id()) else { throw HTTPError.notFound }
        let shopper = ShopperContext(request: context.request, settings: settings, user: context.visitor.user)
        let now = context.now  // once: every figure on the page is for the same instant
        let live = try database.liveTraffic(storeId: details.store.id, now: now)
        let card = StoreCard(store: details.store, hours: details.openingHours, live: live, shopper: shopper, now: now)
        let hours = details.openingHours
        let today = hours.weekday(at: now)
        let store = details.store
        let page = StorePage(
            card: card, phone: store.phone, phoneHref: "tel:" + store.phone.filter { $0.isNumber || $0 == "+" },
            timeZone: store.timeZone,
            days: (1...7).map { weekday in
                StorePage.Day(name: OpeningHours.weekdayNames[weekday - 1],
                              hours: Formatting.intervals(hours.intervals(weekday: weekday)), isToday: weekday == today)
            },
            departments: details.departments.map { StorePage.DepartmentRow(name: $0.name, minutes: $0.estimatedMinutes) },
            backHref: Paths.home(query: shopper.query()), reserveHref: Paths.reserve(store.id, query: shopper.query()),
            positionLabel: shopper.positionLabel, notice: shopper.notice)
        var response = views.page(title: store.name, context, page)
        shopper.remember(in: &response, secure: context.secure)
        return response
    }
}
