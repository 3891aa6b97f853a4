import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation
import Logging

/// Stores near me (the home page) and a store's own page: open to everyone.
struct StoresArea {
    let database: AppDatabase
    let views: Views
    let settings: SiteSettings
    /// The search box's finder (`AppEnvironment.places`).
    let places: any PlaceFinder
    let logger: Logger
    let summaries = StoreSummaries()
    let nearby = NearbyCards()

    func addRoutes(to pages: RouteGroup<BrowserContext>) {
        pages.get(Paths.home, home)
        pages.get(Paths.store, store)
        pages.get(Paths.storeStats, stats)
    }

    /// How many stores the home page lists at first, and how many more each "more" adds.
    static let pageSize = 30
    static let mostShown = 300

    /// The stores nearest the shopper, each with its live status: found through the board's
    /// grid and read from its kept standings, so the cost does not grow with the stores there
    /// are.
    func home(_ context: BrowserContext) throws -> Response {
        var shopper = ShopperContext(request: context.request, settings: settings, user: context.visitor.user)
        let search = context.request.query["q"].flatMap(PlaceQuery.cleaned)
        if let search {
            // Found: the stores from there, at an address that names it (a named place by its
            // key, so that it is remembered as choosing it from the list is).
            switch findPlace(search) {
            case .success(let found?):
                let named = settings.places.first { $0.position == found.position }
                let fields: [(name: String, value: String)] = named.map { [("place", $0.key)] } ?? [
                    ("lat", NumberText.fixed(found.position.latitude, digits: 5)),
                    ("lon", NumberText.fixed(found.position.longitude, digits: 5)), ("near", found.name),
                ]
                return .redirect(to: Paths.home(query: FormData(pairs: fields).urlEncoded))
            case .success(nil):
                shopper.notice = tr("search.notFound", ["query": search, "place": shopper.positionLabel])
            case .failure:
                shopper.notice = tr("search.unavailable", ["place": shopper.positionLabel])
            }
        }
        let now = context.now
        let board = database.board
        let shown = context.request.query["show"].flatMap { Int($0) }
            .map { min(Self.mostShown, max(Self.pageSize, $0)) } ?? Self.pageSize
        let key = NearbyCards.Key(language: .current, position: shopper.query(), mode: shopper.mode, shown: shown)
        let list = nearby.list(key, board: board, now: now) {
            let found = board.nearestLive(to: shopper.position, limit: shown, now: now)
            let cards = zip(summaries.summaries(found), found).map { summary, found in
                StoreCard(summary: summary, metres: found.metres, shopper: shopper)
            }
            let total = board.storeCount
            let more = cards.count < total && shown < Self.mostShown
                ? Paths.home(query: shopper.query(mode: nil, extra: [("show", String(shown + Self.pageSize))])) : nil
            let modes = TravelMode.allCases.map { mode in
                ModeLink(choice: Choice(value: mode.rawValue, label: mode.label, checked: mode == shopper.mode),
                         href: Paths.home(query: shopper.query(mode: mode)))
            }
            return (NearbyCards.List(stores: StoreList(cards), total: total, modes: modes, more: more),
                    found.map(\.standing.at).min())
        }
        let page = HomePage(
            positionLabel: shopper.positionLabel, notice: shopper.notice,
            latitude: NumberText.fixed(shopper.position.latitude, digits: 5),
            longitude: NumberText.fixed(shopper.position.longitude, digits: 5),
            modePhrase: shopper.mode.phrase, modeKey: shopper.mode.rawValue, stores: list.stores,
            totalStores: list.total, moreHref: list.more,
            places: settings.places.map { Choice(value: $0.key, label: $0.localizedName, checked: $0.key == shopper.placeKey) },
            modes: list.modes, tileURL: settings.tileURL, tileAttribution: settings.tileAttribution, search: search ?? "")
        var response = views.page(title: tr("home.title"), section: .stores, context, page)
        shopper.remember(in: &response, secure: context.secure)
        return response
    }

    /// The place the search box names; a finder that cannot be asked is logged, and the page
    /// says search is not available.
    private func findPlace(_ search: String) -> Result<FoundPlace?, Error> {
        do {
            return .success(try places.find(search))
        } catch {
            logger.warning("address search failed: \(error)")
            return .failure(error)
        }
    }

    /// One store: address, phone, status, the week's hours and its departments.
    func store(_ context: BrowserContext) throws -> Response {
        let now = context.now  // once: every figure on the page is for the same instant
        guard let (entry, standing) = database.board.live(try context.id(), now: now) else { throw HTTPError.notFound }
        guard !entry.definition.isRetired else { throw HTTPError(410, tr("store.retiredGone")) }
        let shopper = ShopperContext(request: context.request, settings: settings, user: context.visitor.user)
        let store = entry.store
        let card = StoreCard(summary: StoreSummary(entry: entry, status: standing.status, now: now),
                             metres: shopper.position.distance(to: store.position), shopper: shopper)
        // The coming week from today, so a closed day (a holiday) shows where it falls.
        let today = entry.calendar.localDay(of: now)
        let page = StorePage(
            card: card, phone: store.phone, phoneHref: "tel:" + store.phone.filter { $0.isNumber || $0 == "+" },
            timeZone: store.timeZone,
            days: (today..<today + 7).map { day in
                StorePage.Day(name: Formatting.weekday(ZoneOffsets.isoWeekday(day: day)),
                              hours: Formatting.hours(of: entry.definition, localDay: day), isToday: day == today)
            },
            departments: entry.definition.departments.map {
                StorePage.DepartmentRow(name: $0.name, minutes: $0.estimatedMinutes)
            },
            backHref: Paths.home(query: shopper.query()), reserveHref: Paths.reserve(store.id, query: shopper.query()),
            positionLabel: shopper.positionLabel, notice: shopper.notice)
        var response = views.page(title: store.name, section: .stores, context, page)
        shopper.remember(in: &response, secure: context.secure)
        return response
    }
}
