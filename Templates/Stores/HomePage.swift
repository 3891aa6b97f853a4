import CLupPaths
import CLupText
import Foundation

/// What a shopper compares about a store, whoever and wherever they are, already formatted:
/// it changes with the store's status only, so the worker keeps one per store and status, with
/// its card's HTML rendered once (`cardOpening`, `cardBody`).
public struct StoreSummary: Sendable {
    public var id: Int64
    public var name: String
    public var address: String
    public var hoursToday: String
    public var openText: String
    public var peopleInside: Int
    public var capacity: Int
    public var wait: String
    /// green, yellow or red: the traffic light's class.
    public var light: String
    public var reason: String
    public var latitude: String
    public var longitude: String
    /// The card up to its link's address, and from after it to the distance.
    public let cardOpening: HTML
    public let cardBody: HTML
    public let cardClosing: HTML

    /// "Short wait · open until 21:00"; a closed store's opening text alone ("Closed · opens
    /// tomorrow 08:00"), which says "closed" already.
    public var statusLine: String {
        openText.hasPrefix(reason) ? openText : reason + " · " + openText
    }

    public init(id: Int64, name: String, address: String, hoursToday: String, openText: String, peopleInside: Int,
                capacity: Int, wait: String, light: String, reason: String, latitude: String, longitude: String)
    {
        self.id = id
        self.name = name
        self.address = address
        self.hoursToday = hoursToday
        self.openText = openText
        self.peopleInside = peopleInside
        self.capacity = capacity
        self.wait = wait
        self.light = light
        self.reason = reason
        self.latitude = latitude
        self.longitude = longitude
        cardOpening = """
              <li class="store" data-store data-lat="\(latitude)" data-lon="\(longitude)" data-name="\(name)" data-light="\(light)" data-wait="\(wait)" data-href="
            """
        cardBody = """
            ">
                  <span class="light light-\(light)" aria-hidden="true"></span>
                  <span class="store-main">
                    <span class="store-name">\(name)</span>
                    <span class="store-address">\(address)</span>
                    <span class="store-hours">\(openText) · \(tr("card.today", ["hours": hoursToday]))</span>
                  </span>
                  <span class="store-figures">
                    <span class="status status-\(light)">\(reason)</span>
                    <span class="figure"><span class="figure-label">\(tr("card.wait"))</span> \(wait)</span>
                    <span class="figure"><span class="figure-label">\(tr("card.inside"))</span> \(peopleInside) / \(capacity)</span>
                    <span class="figure"><span class="figure-label">\(tr("card.distance"))</span>\u{20}
            """
        cardClosing = """
            </span>
                  </span>
                </a>
                <a class="store-stats" href="\(Paths.storeStats(id))">\(tr("card.busyTimes"))</a>
              </li>

            """
    }
}

/// One store in the list: its summary, and what depends on where the shopper is.
public struct StoreCard: Sendable {
    public var summary: StoreSummary
    /// The store's page, keeping the shopper's position.
    public var href: String
    public var distance: String
    public var travel: String

    public init(summary: StoreSummary, href: String, distance: String, travel: String) {
        self.summary = summary
        self.href = href
        self.distance = distance
        self.travel = travel
    }
}

/// A means of transport as a link that switches to it.
public struct ModeLink: Sendable {
    public var choice: Choice
    public var href: String

    public init(choice: Choice, href: String) {
        self.choice = choice
        self.href = href
    }
}

/// Stores near you: the controls, the map and the list, closest first.
public struct HomePage: Page {
    public var positionLabel: String
    public var notice: String?
    public var latitude: String
    public var longitude: String
    public var modePhrase: String
    public var modeKey: String
    public var stores: StoreList
    /// How many stores there are in all, and the link that lists more of them.
    public var totalStores: Int
    public var moreHref: String?
    public var places: [Choice]
    public var modes: [ModeLink]
    public var tileURL: String
    public var tileAttribution: String
    /// What the search box holds: the street or place last searched for.
    public var search: String

    public init(positionLabel: String, notice: String?, latitude: String, longitude: String, modePhrase: String,
                modeKey: String, stores: StoreList, totalStores: Int, moreHref: String?, places: [Choice],
                modes: [ModeLink], tileURL: String, tileAttribution: String, search: String = "")
    {
        self.search = search
        self.positionLabel = positionLabel
        self.notice = notice
        self.latitude = latitude
        self.longitude = longitude
        self.modePhrase = modePhrase
        self.modeKey = modeKey
        self.stores = stores
        self.totalStores = totalStores
        self.moreHref = moreHref
        self.places = places
        self.modes = modes
        self.tileURL = tileURL
        self.tileAttribution = tileAttribution
    }

    public func render(in frame: Frame) -> HTML {
        frame.site(head: """
            <link rel="stylesheet" href="/vendor/leaflet/leaflet.css">
            <script src="/vendor/leaflet/leaflet.js" defer></script>
            """, """
            <section class="intro">
              <h1>\(tr("home.title"))</h1>
              <p class="lead">\(tr("home.leadStart")) <strong>\(positionLabel)</strong>, <strong>\(modePhrase)</strong>.</p>
              \(Fragments.notice(notice))
            </section>

            <div class="controls">
              <form method="get" action="\(Paths.home())" role="search">
                <label for="q" class="visually-hidden">\(tr("home.search"))</label>
                <div class="control-row">
                  <input id="q" name="q" type="search" maxlength="200" value="\(search)" placeholder="\(tr("home.searchHint"))" autocomplete="street-address">
                  <button type="submit">\(tr("home.searchButton"))</button>
                </div>
              </form>
              <form method="get" action="\(Paths.home())">
                <label for="place">\(tr("home.measureFrom"))</label>
                <div class="control-row">
                  <select id="place" name="place">
                    \(Fragments.selectOptions(places))
                  </select>
                  <button type="submit">\(tr("home.update"))</button>
                  <button type="button" class="secondary" data-locate hidden>\(tr("home.useLocation"))</button>
                </div>
                <p class="locate-status" data-locate-status role="status" hidden></p>
              </form>
            </div>

            <nav class="modes" aria-label="\(tr("home.modes"))">
              \(modes.map { "<a href=\"\($0.href)\"\(if: $0.choice.checked, " aria-current=\"true\"")>\($0.choice.label)</a>" })
            </nav>

            <div class="home-layout">
              <details class="map-box" data-map-box hidden>
                <summary>\(tr("home.map"))</summary>
                <div class="map" id="map" data-tiles="\(tileURL)" data-attribution="\(tileAttribution)" data-lat="\(latitude)" data-lon="\(longitude)" data-mode="\(modeKey)"></div>
                <p class="fine map-hint">\(tr("home.mapHint"))</p>
              </details>
              <div class="home-list">
                <p class="count">\(countText)</p>
                <ol class="stores">
                \(stores.html)
                </ol>
                \(moreHref.map { "<p class=\"more\"><a class=\"button secondary\" href=\"\($0)\">\(tr("home.more"))</a></p>" })
                \(if: stores.isEmpty, "<p class=\"empty\">\(tr("home.none"))</p>")
              </div>
            </div>
            """)
    }

    /// "34 stores", or "The 30 nearest of 2,000 stores".
    var countText: String {
        stores.count == totalStores ? tr("home.count", count: totalStores)
            : tr("home.nearestOf", ["shown": String(stores.count), "total": Numbers.grouped(totalStores)])
    }
}

/// The home page's cards, rendered: the worker keeps a list for every shopper at the same
/// place (`NearbyCards`), so the page writes it as it is.
public struct StoreList: Sendable {
    public let count: Int
    public let html: HTML
    public var isEmpty: Bool { count == 0 }

    public init(_ cards: [StoreCard]) {
        count = cards.count
        html = Self.render(cards)
    }

    /// The cards, each from its summary's fragments, written into one buffer: only the
    /// shopper's part is formatted per list.
    private static func render(_ cards: [StoreCard]) -> HTML {
        var html = HTML.empty
        html.reserveCapacity(cards.reduce(0) { $0 + $1.summary.cardOpening.byteCount + $1.summary.cardBody.byteCount
            + $1.summary.cardClosing.byteCount + 2 * $1.href.utf8.count + 120 })
        for card in cards {
            html += card.summary.cardOpening
            html += "\(card.href)\">\n    <a class=\"store-link\" href=\"\(card.href)"
            html += card.summary.cardBody
            html += "\(card.distance) · \(card.travel)"
            html += card.summary.cardClosing
        }
        return html
    }
}
