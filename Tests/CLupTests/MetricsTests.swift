import Foundation
import Logging
import Metrics
import Prometheus
import Synchronization
import Testing

@testable import CLupData
@testable import CLupJobs
@testable import CLupSupport
@testable import CLupWeb

/// The registry the whole test process records into: swift-metrics is bootstrapped once per
/// process, as `clup serve` does it.
enum TestMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }()

    /// The value of one series (`name{labels}` as the exposition writes it), or nil if absent.
    static func value(_ series: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(series + " ") }
            .flatMap { Double($0.dropFirst(series.count + 1)) }
    }

    static func value(_ series: String) -> Double {
        value(series, in: registry.emitToString()) ?? 0
    }
}

/// `/metrics`: who may read it, and that what the operator is told to watch moves as CLup
/// works. Other suites record into the same registry at the same time, so counters are
/// checked to have grown by at least what this suite did; the gauges are set from this
/// suite's own database at each scrape. Serialized: two scrapes would set them at once.
@Suite("Metrics", .serialized)
struct MetricsTests {
    let fixture: EntranceFixture
    let app: App
    static let token = Secrets.token(bytes: 32)

    init() throws {
        _ = TestMetrics.registry
        fixture = try EntranceFixture()
        let clock = fixture.clock
        let environment = AppEnvironment(
            database: fixture.database, now: { clock.now }, logger: Logger(label: "test"),
            settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets,
            metrics: MetricsEndpoint(token: Self.token) { TestMetrics.registry.emitToBuffer() })
        app = App(environment: environment, views: try Fixture.views())
    }

    func scrape(from address: String = "127.0.0.1", authorization: String? = nil) -> Response {
        var request = Request(method: .get, path: "/metrics", remoteAddress: address)
        if let authorization { request.headers["authorization"] = authorization }
        return app.respond(to: request)
    }

    @Test("only this machine, or a scraper with the token, reads /metrics; others find nothing there")
    func access() throws {
        let local = scrape()
        #expect(local.status == 200 && local.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(local.header("Cache-Control") == "no-store")
        #expect(scrape(from: "::1").status == 200)
        #expect(scrape(from: "203.0.113.7").status == 404)
        #expect(scrape(from: "203.0.113.7", authorization: "Bearer wrong").status == 404)
        #expect(scrape(from: "203.0.113.7", authorization: "Bearer " + Self.token + "x").status == 404)
        #expect(scrape(from: "203.0.113.7", authorization: "Bearer " + Self.token).status == 200)
        // A worker with no endpoint configured has no such page, even for this machine.
        #expect(try Fixture.app(database: fixture.database).get("/metrics").status == 404)
    }

    @Test("answers are counted by route group and status, and timed")
    func requests() throws {
        let ok = #"clup_requests_total{group="stores",status="200"}"#
        let missing = #"clup_requests_total{group="other",status="404"}"#
        let timed = #"clup_request_duration_seconds_count{group="stores"}"#
        let before = (TestMetrics.value(ok), TestMetrics.value(missing), TestMetrics.value(timed))
        for _ in 0..<3 { #expect(app.get("/").status == 200) }
        #expect(app.get("/no-such-page-\(Secrets.token(bytes: 4))").status == 404)
        let text = scrape().bodyText
        #expect(try #require(TestMetrics.value(ok, in: text)) >= before.0 + 3)
        #expect(try #require(TestMetrics.value(missing, in: text)) >= before.1 + 1)
        #expect(try #require(TestMetrics.value(timed, in: text)) >= before.2 + 3)
        // An unknown path makes no series of its own.
        #expect(!text.contains("no-such-page"))
    }

    @Test("outboxes by channel and priority: how many unsent, and how late the oldest due")
    func outboxes() throws {
        let now = fixture.clock.now
        func queue(_ priority: MailPriority, due seconds: TimeInterval) throws {
            try fixture.database.execute(sql: """
                INSERT INTO outboxMessage (recipient, subject, body, createdAt, attempts, nextAttemptAt, recipientKey, priority)
                VALUES ('x@example.org', 's', 'b', ?, 0, ?, 'x@example.org', ?)
                """, now - seconds, now - seconds, priority.rawValue)
        }
        try queue(.informational, due: 300)
        try queue(.informational, due: -60)  // not due yet: unsent, but not late
        try queue(.urgent, due: 70)
        let text = scrape().bodyText
        func gauge(_ name: String, _ priority: String) -> Double? {
            TestMetrics.value(#"\#(name){channel="mail",priority="\#(priority)"}"#, in: text)
        }
        #expect(gauge("clup_outbox_unsent", "informational") == 2)
        #expect(gauge("clup_outbox_oldest_due_seconds", "informational") == 300)
        #expect(gauge("clup_outbox_unsent", "urgent") == 1)
        #expect(gauge("clup_outbox_oldest_due_seconds", "urgent") == 70)
        #expect(gauge("clup_outbox_unsent", "account") == 0)
        #expect(TestMetrics.value(#"clup_outbox_unsent{channel="push",priority="high"}"#, in: text) == 0)
    }

    @Test("people inside and waiting over all stores, scans by verdict, writes by commit")
    func traffic() throws {
        let desk = EntranceDesk(database: fixture.database, tickets: Fixture.tickets,
                                codes: TicketCodes(database: fixture.database, tickets: Fixture.tickets))
        let kiosk = try #require(try fixture.database.accounts.kiosk(key: fixture.key))
        let entered = #"clup_scans_total{result="enter",reason=""}"#
        let unknown = #"clup_scans_total{result="refused",reason="unknownCode"}"#
        let commits = "clup_group_commit_size_count"
        let fromBoard = #"clup_locked_store_reads_total{from="board"}"#
        let before = (TestMetrics.value(entered), TestMetrics.value(unknown), TestMetrics.value(commits),
                      TestMetrics.value(fromBoard))
        // Two walk-ins of two: the store holds 10 with 2 places for walk-ins, so one is let in
        // and the other waits.
        var codes: [String] = []
        for _ in 0..<2 {
            let ticket = try desk.issueTicket(people: 2, minutes: 30, requestKey: nil, kiosk: kiosk, now: fixture.clock.now)
                .get()
            codes.append(try Fixture.doorCode(ticket, fixture.database, now: fixture.clock.now))
        }
        #expect(try desk.scan(code: codes[0], kiosk: kiosk, now: fixture.clock.now).result == "enter")
        #expect(try desk.scan(code: "not a ticket", kiosk: kiosk, now: fixture.clock.now).result == "refused")
        let text = scrape().bodyText
        #expect(TestMetrics.value("clup_stores", in: text) == 2)
        #expect(TestMetrics.value("clup_people_inside", in: text) == 2)
        #expect(TestMetrics.value("clup_people_waiting", in: text) == 2)
        #expect(TestMetrics.value("clup_stores_full", in: text) == 0)
        #expect(try #require(TestMetrics.value(entered, in: text)) >= before.0 + 1)
        #expect(try #require(TestMetrics.value(unknown, in: text)) >= before.1 + 1)
        if Fixture.onSQLite {
            // Three writes at least (two tickets, one entry), each in some group's commit.
            #expect(try #require(TestMetrics.value(commits, in: text)) >= before.2 + 1)
            #expect(text.contains(#"clup_group_commit_size_bucket{le="#))
            #expect(TestMetrics.value("clup_write_queue_depth", in: text) != nil)
        } else {
            // The second ticket, on the same worker, is decided from the board the first left.
            #expect(try #require(TestMetrics.value(fromBoard, in: text)) >= before.3 + 1)
        }
        // The board was read whole when the database opened.
        #expect(try #require(TestMetrics.value("clup_board_reloads_total", in: text)) >= 1)
    }

    @Test("each background loop's turns are timed, and how late each starts")
    func loops() throws {
        let name = "metrics-test-\(Secrets.token(bytes: 4))"
        let turns = Mutex(0)
        let service = BackgroundService(name: name, every: 0.01, logger: Logger(label: "test")) {
            turns.withLock { $0 += 1 }
            if turns.withLock({ $0 }) == 2 { throw MailError(description: "a failing turn") }
        }
        service.start()
        while turns.withLock({ $0 }) < 3 { Thread.sleep(forTimeInterval: 0.01) }
        #expect(service.stop())
        let text = scrape().bodyText
        #expect(try #require(TestMetrics.value(#"clup_service_turn_seconds_count{service="\#(name)"}"#, in: text)) >= 3)
        #expect(try #require(TestMetrics.value(#"clup_service_lag_seconds_count{service="\#(name)"}"#, in: text)) >= 3)
        #expect(TestMetrics.value(#"clup_service_errors_total{service="\#(name)"}"#, in: text) == 1)
    }
}
