import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Request → response through the real app, templates and an in-memory SQLite.
@Suite("Stores near me and the store page")
struct StoresPageTests {
    let database: AppDatabase
    let app: App
    let near: Store
    let far: Store

    init() throws {
        database = try Fixture.database()
        // Given three stores: one by the Duomo, one near Centrale, one with a hostile name.
        near = try database.stores.createStore(
            Fixture.store("Bottega Duomo", at: GeoPoint(latitude: 45.4650, longitude: 9.1890), capacity: 40),
            hours: Fixture.weekdayHours, departments: [("Bakery", 5), ("Fruit & vegetables", 8)])
        far = try database.stores.createStore(
            Fixture.store("Mercato Centrale", at: GeoPoint(latitude: 45.4850, longitude: 9.2040), capacity: 120),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 7 * 60, closes: 26 * 60) }, departments: [])
        try database.stores.createStore(
            Fixture.store("<script>alert(\"x\")</script> & 'Co'", at: GeoPoint(latitude: 45.50, longitude: 9.10)),
            hours: Fixture.weekdayHours, departments: [("<b>Deli</b>", 10)])
        app = try Fixture.app(database: database)
    }

    func position(of text: String, in body: String) -> Int? {
        body.range(of: text).map { body.distance(from: body.startIndex, to: $0.lowerBound) }
    }

    @Test("stores are listed closest first from the city centre by default")
    func defaultOrder() throws {
        let response = app.get("/")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        let body = response.bodyText
        #expect(body.contains("Duomo (city centre)"))
        let first = try #require(position(of: "Bottega Duomo", in: body))
        let second = try #require(position(of: "Mercato Centrale", in: body))
        #expect(first < second)
        #expect(body.contains("3 stores"))
    }

    @Test("a position near Centrale puts the Centrale store first")
    func orderFromPosition() throws {
        for target in ["/?lat=45.4861&lon=9.2044", "/?place=centrale"] {
            let body = app.get(target).bodyText
            let centrale = try #require(position(of: "Mercato Centrale", in: body))
            let duomo = try #require(position(of: "Bottega Duomo", in: body))
            #expect(centrale < duomo, "\(target)")
        }
    }

    @Test("each store shows distance, travel time, hours, people inside, wait and its light")
    func storeFigures() {
        let body = app.get("/?place=duomo").bodyText
        #expect(body.contains("Open until 21:00 · today 08:00–21:00"))
        #expect(body.contains("Open until tomorrow 02:00 · today 07:00–02:00"))  // open late, past midnight
        #expect(body.contains("0 / 40"))
        #expect(body.contains("<span class=\"figure-label\">Wait</span> under 1 min"))  // not "Wait No wait"
        #expect(body.contains("light-green"))
        // Bottega Duomo is 141 m from the centre (92 m north, 107 m west): shown as 150 m; on
        // foot 141 × 1.3 m at 4.8 km/h is 137 s, rounded up to 3 min.
        #expect(body.contains("150 m · 3 min on foot"))
    }

    @Test("on Sunday the weekday store is red and says when it opens")
    func closedStore() throws {
        let sunday = try Fixture.app(now: Fixture.date(2026, 11, 22, 10), database: database)
        let body = sunday.get("/").bodyText
        #expect(body.contains("Closed · opens tomorrow 08:00 · today Closed"))
        #expect(body.contains("light-red"))
    }

    @Test("the position form offers every place and the mode links every mode, the current ones marked, once each")
    func formOptions() {
        let body = app.get("/?place=navigli&mode=car").bodyText
        #expect(body.contains(#"<option value="navigli" selected>Navigli (Darsena)</option>"#))
        #expect(body.contains(#"<option value="duomo">Duomo (city centre)</option>"#))
        #expect(body.contains(#"<a href="/?place=navigli&amp;mode=walking">On foot</a>"#))
        #expect(body.contains(#"<a href="/?place=navigli&amp;mode=car" aria-current="true">Car</a>"#))
        // The means of transport is chosen in one place only, not also in a select.
        #expect(!body.contains(#"name="mode""#) && !body.contains("Travelling"))
    }

    @Test("choosing a means of transport changes travel times and is remembered in a safe cookie")
    func travelMode() throws {
        let response = app.get("/?place=duomo&mode=car")
        #expect(response.bodyText.contains("by car"))
        let cookie = try #require(response.setCookie(named: "mode"))
        #expect(cookie.hasPrefix("mode=car; Path=/; Max-Age=31536000"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && !cookie.contains("Secure"))
        // Later visits read the cookie; nothing is set again.
        let later = app.get("/", cookies: "mode=transit")
        #expect(later.bodyText.contains("by public transport"))
        #expect(later.setCookie(named: "mode") == nil)
    }

    @Test("the last position chosen is remembered for the next visit; a bad one is ignored")
    func rememberedPosition() throws {
        let chosen = app.get("/?place=centrale")
        let cookie = try #require(chosen.setCookie(named: "where"))
        #expect(cookie.hasPrefix("where=centrale; Path=/; Max-Age=31536000") && cookie.contains("HttpOnly"))
        // The next visit, with no position asked for, measures from there, and sets nothing.
        let later = app.get("/", cookies: "where=centrale")
        #expect(later.bodyText.contains("From <strong>Milano Centrale</strong>"))
        #expect(try #require(position(of: "Mercato Centrale", in: later.bodyText))
            < (try #require(position(of: "Bottega Duomo", in: later.bodyText))))
        #expect(later.setCookie(named: "where") == nil)
        // A point (the map, the browser's position) is kept by the page's script as
        // latitude:longitude; the server sets nothing for it, so the page stays shareable.
        let point = app.get("/?lat=45.4861&lon=9.2044")
        #expect(point.setCookie(named: "where") == nil && point.header("X-Accel-Expires") == "1")
        #expect(app.get("/", cookies: "where=45.48610:9.20440").bodyText.contains("From <strong>the point you chose</strong>"))
        // A position asked for wins over the one remembered; an unreadable cookie is ignored.
        #expect(app.get("/?place=duomo", cookies: "where=centrale").setCookie(named: "where")?.hasPrefix("where=duomo;") == true)
        let bad = app.get("/", cookies: "where=95:500")
        #expect(bad.bodyText.contains("From <strong>Duomo (city centre)</strong>") && !bad.bodyText.contains("class=\"notice\""))
    }

    @Test("over HTTPS the cookie is Secure")
    func secureCookie() throws {
        var request = Request(method: .get, path: "/", query: try FormData(urlEncoded: "mode=car"))
        request.isHTTPS = true
        #expect(app.respond(to: request).setCookie(named: "mode")?.contains("; Secure") == true)
    }

    @Test("a position or mode that cannot be read falls back to the defaults and says so",
          arguments: ["/?lat=abc&lon=9.1", "/?lat=95&lon=9.1", "/?lat=45.4", "/?place=atlantis", "/?mode=rocket"])
    func badPosition(target: String) {
        let response = app.get(target)
        #expect(response.status == 200)
        #expect(response.bodyText.contains("class=\"notice\""))
        #expect(response.setCookie(named: "mode") == nil)
        #expect(response.setCookie(named: "where") == nil)
    }

    @Test("a store's page shows address, phone, the week's hours and departments")
    func storePage() throws {
        let id = try #require(near.id)
        let response = app.get("/stores/\(id)?place=duomo")
        #expect(response.status == 200)
        let body = response.bodyText
        #expect(body.contains("<h1><span class=\"light light-green\" aria-hidden=\"true\"></span> Bottega Duomo</h1>"))
        #expect(body.contains("href=\"tel:+390212345678\""))
        #expect(body.contains("Wednesday (today)"))
        #expect(body.contains("<td>Closed</td>"))  // Sunday
        #expect(body.contains("Fruit &amp; vegetables"))
        #expect(body.contains("0 of 40"))
    }

    @Test("an unknown or malformed store id is a 404 in the site's layout",
          arguments: ["/stores/999", "/stores/abc", "/stores/-1", "/stores/0", "/stores/99999999999999999999"])
    func unknownStore(target: String) {
        let response = app.get(target)
        #expect(response.status == 404)
        #expect(response.bodyText.contains("Page not found"))
        #expect(response.bodyText.contains("class=\"site-header\""))
    }

    @Test("a script in a store's name is shown as text, never run", arguments: ["/", "/stores/3"])
    func escaping(target: String) {
        let body = app.get(target).bodyText
        #expect(!body.contains("<script>alert"))
        #expect(body.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;"))
        #expect(!body.contains("<b>Deli</b>"))
    }

    @Test("the wrong method is a 405 that names the allowed ones")
    func methodNotAllowed() {
        let response = app.request("POST", "/", body: [], contentType: "application/x-www-form-urlencoded")
        #expect(response.status == 405)
        #expect(response.header("Allow") == "GET, HEAD")
    }

    @Test("an unknown address is a 404")
    func notFound() {
        #expect(app.get("/nowhere").status == 404)
    }

    @Test("invalid UTF-8 in the query is a clear 400")
    func invalidUTF8() {
        let response = app.respond(
            cgiParams: ["REQUEST_METHOD": Array("GET".utf8), "DOCUMENT_URI": Array("/".utf8),
                        "QUERY_STRING": Array("place=".utf8) + [0xff, 0xfe]],
            body: [], bodyTooLarge: false)
        #expect(response.status == 400)
        #expect(response.bodyText.contains("not valid UTF-8"))
    }

    @Test("a body over the limit is a 413 page")
    func tooLarge() {
        let response = app.respond(cgiParams: ["REQUEST_METHOD": Array("POST".utf8)], body: [], bodyTooLarge: true)
        #expect(response.status == 413)
        #expect(response.bodyText.contains("Too much to send"))
    }

    @Test("a failure inside is a generic 500 that reveals nothing")
    func internalError() throws {
        // Stores are read from the board the worker keeps; a session is looked up in the database.
        try database.execute(sql: "DROP TABLE session")
        let response = app.get("/", cookies: "clup_session=\(Secrets.token())")
        #expect(response.status == 500)
        let body = response.bodyText
        #expect(body.contains("Something went wrong"))
        #expect(!body.contains("session") && !body.contains("SQLite") && !body.contains("no such table"))
        #expect(!body.contains("PostgreSQL") && !body.contains("relation"))
    }

    @Test("a guest's page without a form sets no cookie and is the same for every guest; a form's page sets its token")
    func guestToken() throws {
        let first = app.get("/?place=duomo")
        let second = app.get("/?place=duomo")
        #expect(first.setCookie(named: "clup_csrf") == nil && !first.bodyText.contains("name=\"csrf\""))
        #expect(first.bodyText == second.bodyText)
        #expect(first.header("X-Accel-Expires") == "1")  // nginx may share it for a second
        let signIn = app.get("/signin")
        #expect(signIn.header("X-Accel-Expires") == nil)
        let cookie = try #require(signIn.setCookie(named: "clup_csrf"))
        let token = try #require(signIn.bodyText.firstMatch(of: /name="csrf" value="([^"]*)"/)).1
        #expect(cookie.hasPrefix("clup_csrf=\(token);"))
    }

    @Test("/healthz answers in JSON")
    func health() {
        let response = app.get("/healthz")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        #expect(response.bodyText == #"{"database":"ok","disk":"ok","loops":"ok","outbox":"ok","status":"ok","writes":"ok"}"#)
        #expect(response.header("Cache-Control") == "no-store")
    }

    @Test("/healthz reports a background loop that stopped turning")
    func stoppedLoop() throws {
        let beats = Heartbeats()
        beats.expect("queue timer", every: 1)
        #expect(beats.silent().isEmpty)
        #expect(beats.silent(at: Date() + 29).isEmpty)
        #expect(beats.silent(at: Date() + 31) == ["queue timer"])
        beats.expect("mail", every: 60)  // a slow loop is given three of its turns
        #expect(beats.silent(at: Date() + 170) == ["queue timer"])
        #expect(beats.silent(at: Date() + 200) == ["mail", "queue timer"])
    }

    @Test("/healthz reports an outbox falling behind: urgent mail waiting a minute, any mail a quarter of an hour")
    func outboxBehind() throws {
        let now = Fixture.wednesdayMorning
        func queue(_ priority: MailPriority, waiting seconds: TimeInterval) throws {
            try database.execute(sql: """
                INSERT INTO outboxMessage (recipient, subject, body, createdAt, attempts, nextAttemptAt, recipientKey, priority)
                VALUES ('x@example.org', 's', 'b', ?, 0, ?, 'x@example.org', ?)
                """, now - seconds, now - seconds, priority.rawValue)
        }
        try queue(.informational, waiting: 14 * 60)
        try queue(.urgent, waiting: 50)
        #expect(app.get("/healthz").status == 200)
        try queue(.urgent, waiting: 70)
        let urgent = app.get("/healthz")
        #expect(urgent.status == 503 && urgent.bodyText.contains(#""outbox":"behind""#))
        #expect(urgent.bodyText.contains("urgent 70 s"))
        try database.execute(sql: "UPDATE outboxMessage SET sentAt = ? WHERE priority = 0", now)
        #expect(app.get("/healthz").status == 200)
        try queue(.informational, waiting: 16 * 60)
        #expect(app.get("/healthz").bodyText.contains("oldest due mail waiting 960 s"))
    }

    @Test("/healthz reports a database that cannot be read")
    func unhealthy() throws {
        try database.execute(sql: Fixture.onPostgres ? "DROP TABLE store CASCADE" : "DROP TABLE store")
        let response = app.get("/healthz")
        #expect(response.status == 503)
        #expect(response.bodyText.contains("unavailable"))
    }
}
