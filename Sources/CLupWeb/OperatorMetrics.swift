import CLupData
import CLupSupport
import Foundation
import Metrics

/// `/metrics`: what a Prometheus server scrapes from this worker (docs/operations.md lists
/// every metric and what to page on). The executable supplies the registry's text; this
/// layer records through swift-metrics and decides who may read it.
public struct MetricsEndpoint: Sendable {
    /// Accepted from anywhere as `Authorization: Bearer TOKEN`; without one, only this
    /// machine may scrape (`CLUP_METRICS_TOKEN`).
    public var token: String?
    /// The registry's exposition, in Prometheus' text format.
    public var exposition: @Sendable () -> [UInt8]

    public init(token: String?, exposition: @escaping @Sendable () -> [UInt8]) {
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
        self.exposition = exposition
    }

    /// Whether `request` may read the metrics: from a loopback address, or with the token.
    /// Anyone else is told there is nothing here, as for any unknown path.
    func allows(_ request: Request) -> Bool {
        if Self.isLoopback(request.remoteAddress) { return true }
        guard let token, let given = request.headers["authorization"], given.hasPrefix("Bearer ") else { return false }
        return Secrets.constantTimeEquals(String(given.dropFirst(7)), token)
    }

    static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.hasPrefix("127.") || address.hasPrefix("::ffff:127.")
    }

    /// The scrape: the gauges only the database and the board know, set now, then the text.
    func answer(_ database: AppDatabase, now: Date) -> Response {
        if let outboxes = try? database.statistics.outboxGauges(now: now) {
            for outbox in outboxes {
                let dimensions = [("channel", outbox.channel), ("priority", outbox.priority)]
                Gauge(label: "clup_outbox_unsent", dimensions: dimensions).record(outbox.unsent)
                Gauge(label: "clup_outbox_oldest_due_seconds", dimensions: dimensions).record(outbox.oldestDue ?? 0)
            }
        }
        let traffic = database.statistics.trafficTotals()
        Gauge(label: "clup_stores").record(traffic.stores)
        Gauge(label: "clup_people_inside").record(traffic.inside)
        Gauge(label: "clup_people_waiting").record(traffic.waiting)
        Gauge(label: "clup_stores_full").record(traffic.full)
        return Response(status: 200, headers: [
            ("Content-Type", "text/plain; version=0.0.4; charset=utf-8"),
            ("Cache-Control", "no-store"),
        ], body: exposition())
    }
}

/// What the web layer records as it answers (see docs/operations.md).
enum WebMetrics {
    /// One answer: counted by route group and status, timed by route group.
    static func answered(path: String, status: Int, after duration: Duration) {
        let group = routeGroup(path)
        Counter(label: "clup_requests_total", dimensions: [("group", group), ("status", String(status))]).increment()
        Timer(label: "clup_request_duration_seconds", dimensions: [("group", group)]).record(duration: duration)
    }

    /// A scan's verdict at the door: entered, left, refused (with its reason) or a conflict
    /// with what the door did offline.
    static func scanned(_ report: ScanReport) {
        Counter(label: "clup_scans_total", dimensions: [("result", report.result), ("reason", report.reason ?? "")])
            .increment()
    }

    /// The part of the site a path belongs to: a handful of names whatever the path, so an
    /// unknown address cannot make a new series.
    static func routeGroup(_ path: String) -> String {
        let first = path.split(separator: "/", maxSplits: 1).first.map(String.init) ?? ""
        switch first {
        case "", "stores": return "stores"
        case "reservations", "bookings": return "reservations"
        case "manage": return "manage"
        case "kiosk": return "kiosk"
        case "api": return "api"
        case "healthz", "metrics": return "operations"
        case "signup", "signin", "signout", "confirm", "forgot", "reset", "account", "privacy", "terms", "en", "it":
            return "accounts"
        default: return "other"
        }
    }
}
