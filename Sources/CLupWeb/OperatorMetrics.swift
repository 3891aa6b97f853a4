import CLupData
import CLupDomain
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
        var body = exposition()
        if let kiosks = try? database.doors.kioskHealth(now: now) {
            body += Self.kioskLines(kiosks, hours: { database.board.entry($0)?.hours }, now: now).utf8
        }
        return Response(status: 200, headers: [
            ("Content-Type", "text/plain; version=0.0.4; charset=utf-8"),
            ("Cache-Control", "no-store"),
        ], body: body)
    }

    /// Every kiosk in service, in Prometheus' text format: written here rather than kept in the
    /// registry, so a kiosk revoked or a store removed leaves no series behind.
    static func kioskLines(_ kiosks: [KioskHealth], hours: @escaping (StoreID) -> OpeningHours?, now: Date) -> String {
        guard !kiosks.isEmpty else { return "" }
        func labels(_ kiosk: KioskHealth) -> String {
            "{store=\"\(kiosk.storeId.rawValue)\",kiosk=\"\(kiosk.id)\",role=\"\(kiosk.role.rawValue)\"}"
        }
        let series: [(name: String, help: String, value: (KioskHealth) -> Double?)] = [
            ("clup_kiosk_seconds_since_contact", "Seconds since the kiosk last reached CLup (none: never since enrolled).",
             { $0.seenAt.map { max(0, now.timeIntervalSince($0)) } }),
            ("clup_kiosk_silent", "1 when the kiosk has been silent for 2 minutes or more while its store is open.",
             { kiosk in hours(kiosk.storeId).map { kiosk.silence(now: now, hours: $0) == nil ? 0 : 1 } }),
            ("clup_kiosk_offline_queued", "Scans or tickets the kiosk made offline and had not sent when it last asked.",
             { Double($0.queued) }),
            ("clup_kiosk_refused_scans", "The kiosk's scans refused in the last 24 hours, at the door or on catching up.",
             { Double($0.refusedScans) }),
            ("clup_kiosk_clock_offset_seconds", "CLup's time minus the kiosk's clock, as the kiosk measured it.",
             { $0.clockOffsetMs.map { Double($0) / 1000 } }),
        ]
        var text = ""
        for metric in series {
            text += "# HELP \(metric.name) \(metric.help)\n# TYPE \(metric.name) gauge\n"
            for kiosk in kiosks {
                guard let value = metric.value(kiosk) else { continue }
                text += "\(metric.name)\(labels(kiosk)) \(value == value.rounded() ? String(Int64(value)) : String(value))\n"
            }
        }
        return text
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
