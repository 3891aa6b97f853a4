import CLupData
import CLupDomain
import CLupSupport
import CLupWeb
import Foundation
import Testing

/// A user's view of CLup: real nginx, the real worker, an SQLite file, HTTP over loopback.
@Suite("End to end through nginx", .serialized)
struct EndToEndTests {
    @Test("the home page, a store page and static files, with security headers")
    func browse() throws {
        let stack = try Stack()

        // The home page lists the demo stores.
        let home = try stack.get("/")
        #expect(home.status == 200)
        #expect(home.body.contains("Mercato Fresco Duomo"))
        #expect(home.body.contains("34 stores"))
        #expect(home.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        #expect(home.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        #expect(home.header("X-Content-Type-Options") == "nosniff")
        #expect(home.header("Referrer-Policy") == "strict-origin-when-cross-origin")
        #expect(home.header("Cache-Control") == "no-store")

        // Its stylesheet, fingerprinted, is served by nginx with a year's cache.
        let stylesheet = try #require(home.body.firstMatch(of: /href="(\/assets\/app\.[0-9a-f]{10}\.css)"/)?.1)
        let css = try stack.get(String(stylesheet))
        #expect(css.status == 200)
        #expect(css.header("Content-Type") == "text/css")
        #expect(css.header("Cache-Control") == "public, max-age=31536000, immutable")
        #expect(css.body.contains(".store-link"))
        #expect(try stack.get("/vendor/leaflet/leaflet.js").status == 200)

        // A store page, a missing page, a malformed query and the health check.
        let store = try stack.get("/stores/1?mode=car")
        #expect(store.status == 200)
        #expect(store.body.contains("Opening hours"))
        #expect(store.cookie("mode")?.hasPrefix("mode=car;") == true)
        let missing = try stack.get("/no/such/page")
        #expect(missing.status == 404)
        #expect(missing.body.contains("Page not found"))
        #expect(try stack.get("/?place=%FF").status == 400)
        let health = try stack.get("/healthz")
        #expect(health.body == #"{"database":"ok","disk":"ok","loops":"ok","outbox":"ok","status":"ok","writes":"ok"}"#)
        // This machine scrapes the worker's metrics through nginx, fresh every time.
        let metrics = try stack.get("/metrics")
        #expect(metrics.status == 200 && metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.body.contains(#"clup_requests_total{group="stores",status="200"}"#))
        #expect(metrics.body.contains(#"clup_requests_total{group="other",status="404"}"#))
        #expect(metrics.body.contains("clup_people_inside 0") && metrics.body.contains("clup_stores "))
        #expect(metrics.body.contains(#"clup_service_turn_seconds_count{service="queues"}"#))
        #expect(try stack.get("/metrics").body != metrics.body)  // counted anew: not a cached copy
        // The web app's manifest in each language, as the pages link it.
        let manifest = try stack.get("/manifest.it.webmanifest")
        #expect(manifest.status == 200 && manifest.header("Content-Type") == "application/manifest+json")
        #expect(manifest.body.contains(#""lang": "it""#) && manifest.body.contains("Mettiti in fila"))
        #expect(try stack.curl(["-H", "Cookie: lang=it", stack.baseURL + "/signin"]).body
            .contains(#"<link rel="manifest" href="/manifest.it.webmanifest">"#))
        #expect(try stack.get("/manifest.webmanifest").body.contains(#""lang": "en""#))
    }

    @Test("a guest's page is served from nginx's cache for a second; a signed-in or cookie-setting one never is")
    func guestCache() throws {
        let stack = try Stack()
        let first = try stack.get("/?place=duomo")
        let again = try stack.get("/?place=duomo")
        #expect(first.header("X-Cache-Status") == "MISS" && again.header("X-Cache-Status") == "HIT")
        #expect(again.body == first.body)
        // The worker gives the length, so nginx sends the page whole, not in chunks, from its
        // cache as from the worker.
        for response in [first, again] {
            #expect(response.header("Content-Length") == String(response.body.utf8.count))
            #expect(response.header("Transfer-Encoding") == nil)
        }
        #expect(again.header("X-Accel-Expires") == nil)  // for nginx only
        #expect(again.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
        #expect(again.header("X-Content-Type-Options") == "nosniff")
        // A point's page, as the benchmark's guests and links ask for it, is shared too.
        #expect(try stack.get("/?lat=45.46420&lon=9.19000").header("X-Cache-Status") == "MISS")
        #expect(try stack.get("/?lat=45.46420&lon=9.19000").header("X-Cache-Status") == "HIT")
        // Another mode is another page, and so is another remembered position.
        #expect(try stack.curl(["-H", "Cookie: where=centrale", stack.baseURL + "/"]).header("X-Cache-Status") == "MISS")
        #expect(try stack.curl(["-H", "Cookie: mode=car", stack.baseURL + "/?place=duomo"])
            .header("X-Cache-Status") == "MISS")
        // Each language is a page of its own: chosen on the device, or asked for by the browser.
        let italian = try stack.curl(["-H", "Cookie: lang=it", stack.baseURL + "/?place=duomo"])
        #expect(italian.header("X-Cache-Status") == "MISS" && italian.body.contains("<html lang=\"it\">"))
        let asked = try stack.curl(["-H", "Accept-Language: it-IT,it;q=0.9", stack.baseURL + "/?place=duomo"])
        #expect(asked.header("X-Cache-Status") == "MISS" && asked.body.contains("Negozi vicino a te"))
        let again2 = try stack.curl(["-H", "Accept-Language: it-IT,it;q=0.9", stack.baseURL + "/?place=duomo"])
        #expect(again2.header("X-Cache-Status") == "HIT" && again2.body.contains("Negozi vicino a te"))
        #expect(try stack.get("/?place=duomo").body.contains("Stores near you"))
        // A session or kiosk cookie bypasses the cache, whatever it holds.
        for cookie in ["clup_session=someone", "__Host-clup_session=someone", "a=1; clup_kiosk=key"] {
            let personal = try stack.curl(["-H", "Cookie: \(cookie)", stack.baseURL + "/?place=duomo"])
            #expect(personal.header("X-Cache-Status") == "BYPASS", "\(cookie)")
        }
        // A page that sets a cookie (the sign-in form's token) is never stored.
        _ = try stack.get("/signin")
        #expect(try stack.get("/signin").header("X-Cache-Status") == "MISS")
        // After its second, the page is fetched again.
        Thread.sleep(forTimeInterval: 2.1)
        #expect(["EXPIRED", "MISS", "UPDATING", "STALE"].contains(try stack.get("/?place=duomo").header("X-Cache-Status")))
    }

    @Test("oversized bodies are refused with the site's 413 page")
    func oversized() throws {
        let stack = try Stack(maxBody: "64k")
        let response = try stack.post("/", body: String(repeating: "a", count: 200_000))
        #expect(response.status == 413)
        #expect(response.body.contains("Too much to send"))
    }

    @Test("SIGTERM stops the worker cleanly; nginx keeps serving static files and says CLup is restarting")
    func shutdown() throws {
        let stack = try Stack()
        #expect(try stack.get("/").status == 200)
        #expect(try stack.stopWorker() == 0)
        #expect(!FileManager.default.fileExists(atPath: stack.socket))

        // Static files never needed the worker. (A guest's page asked for within its second
        // may still come from nginx's cache; a page nobody shares cannot.)
        let home = try stack.get("/signin")
        #expect(home.status == 502)
        #expect(home.body.contains("CLup is restarting"))
        // In the visitor's language, as the worker would have answered.
        let italian = try stack.curl(["-H", "Cookie: lang=it", stack.baseURL + "/signin"])
        #expect(italian.status == 502 && italian.body.contains("<h1>CLup si sta riavviando</h1>"))
        let asked = try stack.curl(["-H", "Accept-Language: it-CH, de;q=0.5", stack.baseURL + "/signin"])
        #expect(asked.status == 502 && asked.body.contains("<html lang=\"it\">"))
        #expect(try stack.get("/vendor/leaflet/leaflet.css").status == 200)

        // A new worker picks up where the old one left off.
        try stack.startWorker()
        #expect(try stack.get("/").body.contains("Mercato Fresco Duomo"))
    }

    @Test("SIGTERM under load: every request in flight is answered in full, the rest see the restarting page")
    func drainOnShutdown() throws {
        let stack = try Stack()
        // A session cookie (even an unknown one) keeps nginx's guest cache out of the way: every
        // request reaches the worker.
        let cookie = "Cookie: clup_session=unknown-session-token-0000"
        let fullSize = try stack.curl(["-H", cookie, stack.baseURL + "/?place=duomo"]).body.utf8.count

        // Given 80 page requests, up to 20 at a time, …
        let urls = (0..<80).flatMap { _ in ["-o", "/dev/null", stack.baseURL + "/?place=duomo"] }
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "-H", cookie, "--parallel", "--parallel-max", "20", "-w", "%{http_code} %{size_download}\\n"]
            + urls
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        // … when the worker is told to stop while they are being served,
        usleep(150_000)
        #expect(try stack.stopWorker() == 0)
        let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map { $0.split(separator: " ") }
        curl.waitUntilExit()

        // then every answer is a whole page or the 502 page: nothing cut off, no reset.
        #expect(lines.count == 80)
        let served = lines.filter { $0.first == "200" }
        let refused = lines.filter { $0.first == "502" }
        #expect(served.count + refused.count == 80, "\(lines)")
        #expect(!served.isEmpty)
        #expect(served.allSatisfy { Int($0[1]) == fullSize })
    }

    @Test("an account's life: sign up, confirm by email, sign in, forget, reset, sign in again, delete")
    func accountJourney() throws {
        let directory = NSTemporaryDirectory() + "clup-smtp-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let smtp = try MailServer(directory: directory)
        let stack = try Stack(serveArguments: ["--smtp-url", smtp.url, "--mail-interval", "0.2"])
        let email = "grace@example.org"
        let browser = Client(stack)

        // Sign up; the confirmation arrives through the SMTP server.
        try browser.get("/signup")
        let signedUp = try browser.post("/signup", [("email", email), ("displayName", "Grace"),
                                                    ("password", "a long first password"),
                                                    ("passwordAgain", "a long first password"), ("terms", "accepted")])
        #expect(signedUp.body.contains("Check your email"))
        let welcome = try smtp.message(to: email, subject: "Confirm your CLup account")
        let confirm = try MailServer.link("/confirm", in: welcome)
        #expect(confirm.hasPrefix("/confirm?token="))

        // Confirm from the link's page.
        #expect(try browser.open(confirm).body.contains("Confirm my email address"))
        let token = String(confirm.split(separator: "=")[1])
        #expect(try browser.post("/confirm", [("token", token)]).body.contains("Your email is confirmed"))

        // Sign in: the session cookie is HttpOnly and SameSite=Lax.
        try browser.get("/signin")
        let signedIn = try browser.post("/signin", [("email", email), ("password", "a long first password")])
        #expect(signedIn.status == 303)
        #expect(signedIn.cookie("clup_session")?.contains("HttpOnly") == true)
        #expect(try browser.get("/account").body.contains(email))

        // Forget the password; reset it from the second email.
        try browser.post("/signout", [])
        try browser.get("/forgot")
        #expect(try browser.post("/forgot", [("email", email)]).body.contains("Check your email"))
        let resetMail = try smtp.message(to: email, subject: "Reset your CLup password")
        let reset = try MailServer.link("/reset", in: resetMail)
        #expect(try browser.open(reset).body.contains("Choose a new password"))
        let resetToken = String(reset.split(separator: "=")[1])
        #expect(try browser.post("/reset", [("token", resetToken), ("password", "a long second password"),
                                            ("passwordAgain", "a long second password")])
            .body.contains("Your password is changed"))

        // The old password no longer works; the new one does.
        try browser.get("/signin")
        #expect(try browser.post("/signin", [("email", email), ("password", "a long first password")]).status == 401)
        #expect(try browser.post("/signin", [("email", email), ("password", "a long second password")]).status == 303)

        // Delete the account; it is gone.
        try browser.get("/account")
        #expect(try browser.post("/account/delete", [("password", "a long second password")])
            .body.contains("Your account is deleted"))
        try browser.get("/signin")
        #expect(try browser.post("/signin", [("email", email), ("password", "a long second password")]).status == 401)
    }
}
