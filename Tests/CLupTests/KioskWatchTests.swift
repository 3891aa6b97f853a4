import Foundation
import Logging
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Kiosks watched: each one's last contact, what it says of itself and its refused scans, on
/// the manager's store page and in `/metrics`; one silent for 2 minutes in opening hours is
/// flagged. And CLup's clock given to every kiosk and device.
@Suite("Kiosks watched")
struct KioskWatchTests {
    let fixture: EntranceFixture
    let app: App
    let manager: Browser
    /// The fingerprint of the script pages link to now.
    let version: String

    init() throws {
        fixture = try EntranceFixture()
        let clock = fixture.clock
        // `/metrics` with nothing from the registry: only what the database says of the kiosks.
        let environment = AppEnvironment(
            database: fixture.database, now: { clock.now }, logger: Logger(label: "test"),
            settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets,
            metrics: MetricsEndpoint(token: nil) { [] })
        let views = try Fixture.views()
        app = App(environment: environment, views: views)
        version = String(try require(views.assets.script.firstMatch(of: /app\.([0-9a-f]+)\.js/)).1)
        try Fixture.manager("boss@example.org", of: fixture.store.id, in: fixture.database, now: clock.now)
        manager = Browser(app)
        try manager.signIn(email: "boss@example.org")
    }

    var clock: TestClock { fixture.clock }
    var kioskId: Int64 { get throws { try require(try fixture.database.accounts.kiosk(key: fixture.key)).id } }

    /// The door kiosk's browser, enrolled, its script saying what it runs.
    func door(queued: Int = 0, clockOffsetMs: Int = 0) throws -> Browser {
        let kiosk = Browser(app, address: "192.0.2.60")
        try kiosk.get("/kiosk")
        #expect(try kiosk.post("/kiosk/enrol", [("key", fixture.key)]).status == 303)
        kiosk.headers = ["clup-kiosk-version": version, "clup-kiosk-queued": String(queued),
                         "clup-kiosk-clock": String(clockOffsetMs)]
        return kiosk
    }


    /// The kiosk's row on its manager's store page, as text.
    func row() throws -> String {
        let page = try manager.get("/manage/stores/\(fixture.store.id)").bodyText
        let id = try kioskId
        let row = try require(page.firstMatch(of: try Regex("<tr( class=\"silent\")?><td>\(id)</td>.*?</tr>")))
        return String(page[row.range])
    }

    func metrics() -> String {
        app.respond(to: Request(method: .get, path: "/metrics", remoteAddress: "127.0.0.1")).bodyText
    }

    @Test("a kiosk's last contact, page, offline queue, clock and refused scans are on its manager's page and in /metrics")
    func watched() throws {
        #expect(try row().contains("<td>Not yet</td>"))
        let kiosk = try door(queued: 2, clockOffsetMs: -300_000)
        try kiosk.get("/kiosk/scanner")
        _ = try kiosk.post("/kiosk/scan", [("code", "not a code")])
        let seen = try row()
        #expect(seen.contains("<td>Just now</td>"))
        #expect(seen.contains("2 made offline, not yet sent") && seen.contains("1 scan refused in 24 hours"))
        #expect(seen.contains("Clock 5 min fast") && seen.contains("Page \(version), current"))
        let id = try kioskId
        let labels = "{store=\"\(fixture.store.id.rawValue)\",kiosk=\"\(id)\",role=\"door\"}"
        let scraped = metrics()
        for line in ["clup_kiosk_seconds_since_contact\(labels) 0", "clup_kiosk_silent\(labels) 0",
                     "clup_kiosk_offline_queued\(labels) 2", "clup_kiosk_refused_scans\(labels) 1",
                     "clup_kiosk_clock_offset_seconds\(labels) -300"] {
            #expect(scraped.contains(line + "\n"), "\(line)")
        }
        // The refused scan is not a staff action on the kiosk's screen: the manager's list of
        // those stays empty.
        #expect(try manager.get("/manage/stores/\(fixture.store.id)").bodyText.contains("No door actions on a kiosk in the last 7 days."))

        // Silent for 2 minutes while the store is open (Wednesday 10:02): flagged.
        clock.advance(119)
        #expect(try !row().contains("class=\"silent\""))
        clock.advance(1)
        let silent = try row()
        #expect(silent.contains("class=\"silent\"") && silent.contains("<strong>Silent for 2 min</strong>"))
        #expect(try manager.get("/manage/stores/\(fixture.store.id)").bodyText.contains("1 active, 1 silent"))
        #expect(metrics().contains("clup_kiosk_silent\(labels) 1\n") && metrics().contains("clup_kiosk_seconds_since_contact\(labels) 120\n"))
        // It answers again, its queue sent and its clock set: no longer flagged.
        kiosk.headers = ["clup-kiosk-version": version, "clup-kiosk-queued": "0", "clup-kiosk-clock": "40"]
        try kiosk.get("/kiosk/scanner/state")
        let back = try row()
        #expect(!back.contains("silent") && !back.contains("made offline") && !back.contains("Clock"))
        // After closing (21:00) a kiosk switched off is not silent.
        clock.advance(11 * 3600)
        #expect(try !row().contains("class=\"silent\"") && row().contains("<td>11 h ago</td>"))
        #expect(metrics().contains("clup_kiosk_silent\(labels) 0\n"))
    }

    @Test("a kiosk's contact is written at most every 30 seconds, and at once when what it says changes")
    func throttled() throws {
        let kiosk = try door()
        let seenAt = { try require(try fixture.database.doors.kioskHealth(storeId: fixture.store.id, now: clock.now).first?.seenAt) }
        try kiosk.get("/kiosk/scanner/state")
        let first = try seenAt()
        clock.advance(20)
        try kiosk.get("/kiosk/scanner/state")
        #expect(try seenAt() == first)
        // A page the browser loads by itself sends no headers: what the kiosk said stays.
        kiosk.headers = [:]
        clock.advance(11)
        try kiosk.get("/kiosk/board")
        let health = try require(try fixture.database.doors.kioskHealth(storeId: fixture.store.id, now: clock.now).first)
        #expect(health.seenAt == clock.now && health.version == version && health.clockOffsetMs == 0)
        // Scans made offline waiting: written at once.
        kiosk.headers = ["clup-kiosk-queued": "3"]
        clock.advance(1)
        try kiosk.get("/kiosk/scanner/state")
        #expect(try seenAt() == clock.now)
        #expect(try fixture.database.doors.kioskHealth(now: clock.now).first { $0.id == (try kioskId) }?.queued == 3)
        // Nonsense is left out, not stored.
        kiosk.headers = ["clup-kiosk-version": "<script>", "clup-kiosk-queued": "-1", "clup-kiosk-clock": "soon"]
        clock.advance(31)
        try kiosk.get("/kiosk/scanner/state")
        let kept = try require(try fixture.database.doors.kioskHealth(storeId: fixture.store.id, now: clock.now).first)
        #expect(kept.seenAt == clock.now && kept.version == version && kept.queued == 3 && kept.clockOffsetMs == 0)
    }

    @Test("a device on the API is watched the same way, and every kiosk and device answer gives CLup's time")
    func deviceWatchedAndTimed() throws {
        var request = Request(method: .get, path: "/api/v1/stores/\(fixture.store.id)/status")
        request.headers["authorization"] = "Bearer \(fixture.key)"
        request.headers["clup-kiosk-version"] = "scanner-2.1.0"
        request.headers["clup-kiosk-queued"] = "4"
        let answer = app.respond(to: request)
        #expect(answer.status == 200 && answer.header("CLup-Time") == "2026-11-18T09:00:00.000Z")
        let health = try require(try fixture.database.doors.kioskHealth(storeId: fixture.store.id, now: clock.now).first)
        #expect(health.version == "scanner-2.1.0" && health.queued == 4 && health.clockOffsetMs == nil)
        #expect(try row().contains("Version scanner-2.1.0"))
        // A kiosk's pages give it too; a shopper's do not.
        let kiosk = try door()
        clock.advance(0.25)
        #expect(try kiosk.get("/kiosk/scanner").header("CLup-Time") == "2026-11-18T09:00:00.250Z")
        #expect(try Browser(app).get("/").header("CLup-Time") == nil)
    }
}
