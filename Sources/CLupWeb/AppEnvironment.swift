import CLupData
import CLupDomain
import CLupSupport
import Foundation
import Logging

/// The side effects the application may use, built once in `main` and passed in, so tests can
/// pin the clock and use an in-memory database.
public struct AppEnvironment: Sendable {
    public var database: AppDatabase
    public var now: @Sendable () -> Date
    public var logger: Logger
    public var settings: SiteSettings
    /// Signs and reads the tokens in reservations' QR codes, with the server's secret.
    public var tickets: TicketToken
    /// The worker's background loops, as `/healthz` reports them.
    public var heartbeats: Heartbeats
    /// What `/metrics` answers with, and to whom; nil: not found.
    public var metrics: MetricsEndpoint?
    /// Finds the street or place typed in the home page's search: the demo city's gazetteer,
    /// or the geocoder the operator configures (`--geocoder-url`).
    public var places: any PlaceFinder
    /// nginx's own pages, written again when maintenance is scheduled or cancelled, so the 502
    /// page names it (`serve --errors-dir`); nil: not written by the worker.
    public var staticPages: StaticPages?

    public init(database: AppDatabase, now: @escaping @Sendable () -> Date, logger: Logger, settings: SiteSettings,
                tickets: TicketToken, heartbeats: Heartbeats = Heartbeats(), metrics: MetricsEndpoint? = nil,
                places: any PlaceFinder = DemoData.gazetteer)
    {
        self.places = places
        self.metrics = metrics
        self.database = database
        self.now = now
        self.logger = logger
        self.settings = settings
        self.tickets = tickets
        self.heartbeats = heartbeats
    }
}

/// Deployment choices that change what pages show.
public struct SiteSettings: Sendable {
    /// Map tile URL template in Leaflet's form; the page only uses it when scripts run.
    public var tileURL: String
    public var tileAttribution: String
    /// Where distances are measured from when the shopper has not said.
    public var defaultPlace: Place
    /// Named points offered instead of geolocation.
    public var places: [Place]
    /// The site's public address, for links in emails (no trailing slash).
    public var baseURL: String
    /// The push services browsers may subscribe through: a subscription's endpoint must be on
    /// one of these hosts or a subdomain (Chrome's, Firefox's, Edge's and Safari's), so a
    /// forged subscription cannot make the server post to an address of the attacker's choice.
    public var pushHosts = ["fcm.googleapis.com", "push.services.mozilla.com", "notify.windows.com", "push.apple.com"]
    /// Accepts push subscriptions to a plain-HTTP service on this machine (end-to-end tests).
    public var allowsLoopbackPush = false
    /// How long what CLup knows about people is kept, as the operator set it; the privacy
    /// page states it.
    public var retention = RetentionPolicy()

    /// The endpoint a browser's push subscription may post to, as it will be kept and sent to
    /// (`PushEndpoint`), or nil.
    public func pushEndpoint(_ text: String) -> String? {
        PushEndpoint.canonical(text, hosts: pushHosts, allowLoopback: allowsLoopbackPush)
    }

    public init(
        tileURL: String = "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
        tileAttribution: String = "© OpenStreetMap contributors",
        places: [Place] = Place.milan,
        baseURL: String = "http://127.0.0.1:8080"
    ) {
        self.tileURL = tileURL
        self.tileAttribution = tileAttribution
        self.places = places
        self.defaultPlace = places[0]
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
    }
}
