import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// nginx in front of CLup as the open internet meets it: methods it does not serve, one
/// client over its limits while the others are served, and the device API's errors in JSON
/// when the worker is away. The stack's own client (127.0.0.1) is spared the limits, as the
/// run script's browser and the benchmark are; 127.0.0.2 is limited like any outside client.
@Suite("nginx hardened, end to end")
struct HardeningEndToEndTests {
    /// `curl` from 127.0.0.2 to the stack: one line per URL, "status" (several URLs reuse one
    /// connection, so they arrive back to back).
    func statuses(_ stack: Stack, _ arguments: [String], urls: [String]) throws -> [Int] {
        let output = try stack.run("/usr/bin/curl", ["-s", "--interface", "127.0.0.2", "--max-time", "20",
                                                     "-w", "%{http_code}\n"] + arguments
                                       + urls.flatMap { ["-o", "/dev/null", "http://127.0.0.2:\(stack.port)" + $0] })
        return output.split(separator: "\n").compactMap { Int($0) }
    }

    @Test("anything but GET, HEAD and POST is refused with 405, saying what is allowed (the API's per operation); TRACE included")
    func methods() throws {
        let stack = try Stack()
        for method in ["TRACE", "DELETE", "PUT", "OPTIONS", "PATCH"] {
            let answer = try stack.curl(["-X", method, stack.baseURL + "/"])
            #expect(answer.status == 405, "\(method)")
            #expect(answer.header("Allow") == "GET, HEAD, POST", "\(method)")
            #expect(answer.body.contains("Not allowed here") && answer.body.contains("GET, HEAD and POST"), "\(method)")
            #expect(answer.header("Content-Security-Policy")?.contains("default-src 'self'") == true, "\(method)")
        }
        // The device API's 405 lists its operations' methods, as its description does.
        for (path, allowed) in [("/api/v1/scan", "POST"), ("/api/v1/tickets/offline", "POST"),
                                ("/api/v1/stores/1/status", "GET, HEAD"), ("/api/v1/stores/1/status?x=1", "GET, HEAD")] {
            let answer = try stack.curl(["-X", "OPTIONS", stack.baseURL + path])
            #expect(answer.status == 405 && answer.header("Allow") == allowed, "\(path)")
            #expect(answer.header("Content-Type") == "application/json", "\(path)")
        }
        #expect(try stack.get("/").status == 200)
    }

    @Test("one client over its limits gets 429 with a page that says so, while another is served at once")
    func limits() throws {
        let stack = try Stack()
        // Sign-in posts: a handful, then refused (the worker's own throttle comes on top).
        let signIns = try statuses(stack, ["-X", "POST", "--data", "email=a%40example.org&password=x&csrf=t"],
                                   urls: Array(repeating: "/signin", count: 12))
        #expect(signIns.count == 12)
        #expect(signIns.filter { $0 == 429 }.count >= 5)
        #expect(signIns.prefix(5).allSatisfy { $0 != 429 })
        // The refusal is the site's page, with when to try again.
        let refused = try Stack.parse(try stack.run("/usr/bin/curl", [
            "-s", "-i", "--interface", "127.0.0.2", "-X", "POST", "--data", "email=a", "http://127.0.0.2:\(stack.port)/signin",
        ]))
        #expect(refused.status == 429)
        #expect(refused.header("Retry-After") == "5")
        #expect(refused.body.contains("Too many requests from your network in a short time."))
        // 120 requests back to back on one connection: the burst (60, less the sign-ins above)
        // and the rate (20 a second) let about 50 through; the rest are refused.
        let pages = try statuses(stack, [], urls: Array(repeating: "/assets/app.css", count: 120))
        #expect(pages.count == 120)
        #expect(pages.filter { $0 == 200 }.count >= 40 && pages.filter { $0 == 200 }.count < 100)
        #expect(pages.filter { $0 == 429 }.count >= 20)
        #expect(Set(pages).isSubset(of: [200, 429]))
        // Meanwhile another client is served.
        #expect(try stack.get("/").status == 200)
        #expect(try stack.get("/signin").status == 200)
    }

    @Test("security: sign-ins at /signin/ share /signin's limit through nginx, and the worker routes neither variant")
    func signInSlash() throws {
        let stack = try Stack()
        let answers = try statuses(stack, ["-X", "POST", "--data", "email=a%40example.org&password=x&csrf=t"],
                                   urls: Array(repeating: "/signin/", count: 12))
        #expect(answers.count == 12)
        #expect(answers.filter { $0 == 429 }.count >= 5)
        #expect(Set(answers).isSubset(of: [404, 429]))
    }

    @Test("security: an emailed link's token reaches no log line and no Referer; the access log is 0640")
    func tokensOutOfLogs() throws {
        let stack = try Stack()
        let token = "TOKENxx" + String(repeating: "a", count: 36)
        let first = try stack.curl([stack.baseURL + "/reset?token=" + token])
        #expect(first.status == 303 && first.header("Location") == "/reset")
        #expect(first.cookie("clup_link")?.hasPrefix("clup_link=" + token) == true)
        #expect(first.cookie("clup_link")?.contains("HttpOnly") == true)
        let page = try stack.curl(["-b", "clup_link=" + token, stack.baseURL + "/reset"])
        #expect(page.status == 410)  // not a real link: it has expired, as far as anyone can tell
        // One policy, the worker's: nginx adds its own only to answers that have none.
        let raw = try stack.run("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "-b", "clup_link=" + token,
                                                  stack.baseURL + "/reset"])
        let policies = raw.split(separator: "\r\n").filter { $0.lowercased().hasPrefix("referrer-policy:") }
        #expect(policies.map { $0.lowercased() } == ["referrer-policy: no-referrer"])
        #expect(try stack.curl([stack.baseURL + "/signin"]).header("Referrer-Policy") == "strict-origin-when-cross-origin")
        _ = try stack.curl(["-H", "Referer: http://127.0.0.1/confirm?token=" + token, stack.baseURL + "/bookings/reply?t=" + token])
        Thread.sleep(forTimeInterval: 0.3)  // nginx writes its log line after the answer
        let log = try String(contentsOfFile: stack.accessLog, encoding: .utf8)
        #expect(log.contains("\"GET /reset HTTP/1.1\" 303") && log.contains("GET /bookings/reply HTTP/1.1"))
        #expect(!log.contains("TOKENxx"))
        let mode = try FileManager.default.attributesOfItem(atPath: stack.accessLog)[.posixPermissions] as? Int
        #expect(mode == 0o640)
    }

    @Test("security: a Cookie header nginx and the worker could read differently never fills the guests' page cache")
    func cachePoisoning() throws {
        let stack = try Stack()
        func page(_ cookie: String?) throws -> Stack.HTTPResponse {
            try stack.curl((cookie.map { ["-H", "Cookie: " + $0] } ?? []) + ["-H", "Accept-Language: en", stack.baseURL + "/"])
        }
        // nginx reads LANG as lang (empty: the English key) where the worker reads lang=it; then
        // nginx splits at the comma and keys "it" where the worker reads no lang (English).
        // Within the cache's second, other guests still get their own language.
        for _ in 0..<3 {
            _ = try page("LANG=; lang=it")
            #expect(try page(nil).body.contains("<html lang=\"en\""))
            _ = try page("x=1, lang=it")
            #expect(try page("lang=it").body.contains("<html lang=\"it\""))
            Thread.sleep(forTimeInterval: 0.4)
        }
        // A plain header is still shared: the second of two requests within the cache's
        // second is a hit (tried three times, as a busy machine may let a second pass between).
        let hit = try (0..<3).contains { _ in
            _ = try page(nil)
            return try page(nil).header("X-Cache-Status") == "HIT"
        }
        #expect(hit)
    }

    @Test("2,500 slow connections from one client: others are served in under 100 ms, and nginx drops them in 10 s")
    func slowConnections() throws {
        let stack = try Stack()
        // One client (127.0.0.4) opens 2,500 connections and sends each the start of a request
        // it never finishes, as a slowloris attack does. (Not from an address nginx listens on:
        // its 2,500 local ports would be taken there from other tests' stacks.)
        var attack: [Int32] = []
        defer { attack.forEach { close($0) } }
        for _ in 0..<2_500 {
            let fd = try #require(Stack.connect(from: "127.0.0.4", to: "127.0.0.2", port: stack.port),
                                  "connect: errno \(errno)")
            let start = "GET / HTTP/1.1\r\nHost: localhost\r\nX-Slow: "
            _ = start.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            attack.append(fd)
        }
        // Another client (127.0.0.3, limited like anyone) meanwhile: pages and static files.
        var times: [Double] = []
        for path in Array(repeating: ["/signin", "/assets/app.css", "/?place=duomo"], count: 7).flatMap({ $0 }) {
            let answer = try stack.run("/usr/bin/curl", ["-s", "-o", "/dev/null", "--interface", "127.0.0.3", "--max-time", "5",
                                                         "-w", "%{http_code} %{time_total}",
                                                         "http://127.0.0.2:\(stack.port)" + path])
            let parts = answer.split(separator: " ")
            #expect(parts.first == "200", "\(path): \(answer)")
            times.append(Double(parts.last ?? "") ?? 99)
        }
        let slowest = times.max() ?? 99
        print("slow connections: 2,500 open from one client; another client's 21 requests: slowest "
              + "\(String(format: "%.1f", slowest * 1000)) ms, median \(String(format: "%.1f", times.sorted()[times.count / 2] * 1000)) ms")
        #expect(slowest < 0.1)
        // nginx gives up on them after its 10-second header timeout: every one is closed.
        Thread.sleep(forTimeInterval: 11.5)
        var byte: UInt8 = 0
        let closed = attack.filter { fd in
            var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            return Glibc.poll(&poll, 1, 2_000) == 1 && recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
        }.count
        #expect(closed == attack.count)
    }

    @Test("the device API answers its documented JSON error, with Retry-After, when the worker is away")
    func apiErrorsInJSON() throws {
        let stack = try Stack()
        #expect(try stack.stopWorker() == 0)
        let answer = try stack.curl(["-H", "Authorization: Bearer nothing", stack.baseURL + "/api/v1/stores/1/status"])
        #expect(answer.status == 503)
        #expect(answer.header("Content-Type") == "application/json")
        #expect(answer.header("Retry-After") == "5")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: String])
        #expect(json["code"] == "unavailable" && json["message"] == "CLup is restarting. Try again in a few seconds.")
        let italian = try stack.curl(["-H", "Authorization: Bearer nothing", "-H", "Accept-Language: it",
                                      stack.baseURL + "/api/v1/stores/1/status"])
        let message = try #require(try JSONSerialization.jsonObject(with: Data(italian.body.utf8)) as? [String: String])
        #expect(message["message"] == "CLup si sta riavviando. Riprova tra qualche secondo.")
        // Pages still get the site's restarting page.
        let page = try stack.get("/")
        #expect(page.status == 502 && page.body.contains("CLup is restarting"))
    }

    @Test("the database and its WAL are its owner's alone; the worker's socket is nginx's group's alone")
    func privateFiles() throws {
        let stack = try Stack()
        #expect(try stack.get("/").status == 200)  // the database in use: WAL and shared memory exist
        for suffix in ["", "-wal", "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: stack.database + suffix)
            #expect((attributes[.posixPermissions] as? Int) == 0o600, "clup.sqlite\(suffix)")
        }
        let socket = try FileManager.default.attributesOfItem(atPath: stack.socket)
        #expect((socket[.posixPermissions] as? Int) == 0o660)
        #expect((socket[.groupOwnerAccountName] as? String) == Stack.nginxGroup)
    }

    @Test("security: a process running as nobody cannot reach the worker's socket around nginx")
    func socketNotForNobody() throws {
        guard geteuid() == 0 else { return }  // only root can become nobody; as another user there is no nobody to fear
        let stack = try Stack()
        #expect(Stack.nginxGroup != "nogroup")
        let probe = "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect(sys.argv[1]); print('connected')\n"
            + "except PermissionError: print('refused')\n"
        let answer = try stack.run("/usr/bin/setpriv", ["--reuid", "nobody", "--regid", "nogroup", "--clear-groups",
                                                        "/usr/bin/python3", "-c", probe, stack.socket])
        #expect(answer.trimmingCharacters(in: .whitespacesAndNewlines) == "refused")
        // nginx, running as its own user, still reaches it.
        #expect(try stack.get("/").status == 200)
    }

    /// `nginx/clup-production.conf.in` as `clup nginx-config` fills it (README, production
    /// step 5), with `arguments`.
    func productionTemplate(_ stack: Stack, _ arguments: [String] = []) throws -> String {
        try stack.run(Stack.clupBinary, ["nginx-config", "--template", Stack.root + "/nginx/clup-production.conf.in"] + arguments)
    }

    /// `nginx/clup-production.conf.in` filled and made to run on this machine, in `folder`: a
    /// test certificate for clup.example.org, this checkout, `stack`'s sockets, loopback
    /// ports. Returns the site as rewritten and the HTTP and HTTPS ports; `folder/nginx.conf`
    /// includes it.
    func productionSite(in folder: String, for stack: Stack) throws -> (site: String, http: Int, https: Int) {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        chmod(folder, 0o755)
        _ = try stack.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                                                "/CN=clup.example.org", "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem"])
        let (http, https) = (try Stack.freePort(), try Stack.freePort())
        var site = try productionTemplate(stack)
        for rule in ["limit_req zone=clup_signin burst=5 nodelay;", "return 405;", "add_header Allow $clup_allow always;",
                     "error_page 502 503 504 = @api_unavailable;", "client_header_timeout 10s;"] {
            #expect(site.contains(rule), "\(rule)")
        }
        for (from, to) in [("/etc/letsencrypt/live/clup.example.org/fullchain.pem", folder + "/cert.pem"),
                           ("/etc/letsencrypt/live/clup.example.org/privkey.pem", folder + "/key.pem"),
                           ("/srv/clup/", Stack.root + "/"), ("/var/cache/nginx/clup", folder + "/cache"),
                           ("/var/log/nginx/clup-access.log", folder + "/access.log"),
                           ("unix:/run/clup/clup-entrance.sock", "unix:" + stack.directory + "/clup-entrance.sock"),
                           ("unix:/run/clup/clup.sock", "unix:" + stack.socket),
                           ("listen [::]:80 default_server;", ""), ("listen [::]:443 ssl default_server;", ""),
                           ("listen [::]:80;", ""), ("listen [::]:443 ssl http2;", ""),
                           ("listen 80 default_server;", "listen 127.0.0.1:\(http) default_server;"),
                           ("listen 443 ssl default_server;", "listen 127.0.0.1:\(https) ssl default_server;"),
                           ("listen 80;", "listen 127.0.0.1:\(http);"),
                           ("listen 443 ssl http2;", "listen 127.0.0.1:\(https) ssl http2;")] {
            site = site.replacingOccurrences(of: from, with: to)
        }
        try site.write(toFile: folder + "/site.conf", atomically: true, encoding: .utf8)
        try """
            \(geteuid() == 0 ? "user \(Stack.nginxUser);" : "")
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log;
            daemon off;
            events {}
            http {
                include /etc/nginx/mime.types;
                include \(folder)/site.conf;
            }
            """.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        return (site, http, https)
    }

    @Test("the production configuration is valid nginx, with the same limits and refusals")
    func productionConfiguration() throws {
        let folder = NSTemporaryDirectory() + "clup-production-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stack = try Stack()
        let (site, _, _) = try productionSite(in: folder, for: stack)
        // `nginx -t` exits non-zero, and `run` throws, on any error in it.
        #expect(throws: Never.self) { try stack.run(Stack.nginxBinary, ["-t", "-q", "-p", folder, "-c", folder + "/nginx.conf"]) }
        // security: a name not its own gets nothing; forward-secret ciphers only; the cache's
        // status is not shown; /healthz is for this machine.
        #expect(site.contains("return 444;") && site.contains("ssl_reject_handshake on;"))
        #expect(site.contains("ssl_ciphers ECDHE-") && !site.contains("X-Cache-Status"))
        #expect(site.contains("location = /healthz {\n        allow 127.0.0.0/8;"))
        // The map tiles' origin in the policy is the deployment's (CLUP_TILE_URL or --tile-url),
        // on every block that sets the policy; OpenStreetMap's without one.
        let policies = site.split(separator: "\n").filter { $0.contains("img-src") }
        #expect(policies.count == 3 && policies.allSatisfy { $0.contains("img-src 'self' data: https://tile.openstreetmap.org;") })
        let ownTiles = try productionTemplate(stack, ["--tile-url", "https://{s}.tiles.example.net/{z}/{x}/{y}.png"])
        let ownPolicies = ownTiles.split(separator: "\n").filter { $0.contains("img-src") }
        #expect(ownPolicies.count == 3 && ownPolicies.allSatisfy { $0.contains("img-src 'self' data: https://*.tiles.example.net;") })
        // nginx does not inherit add_header into a block with its own: every block that adds a
        // header adds the security headers too (and, in production, HSTS).
        for (config, include, hsts) in [
            (try productionTemplate(stack),
             "include /srv/clup/nginx/security-headers.conf;", true),
            (try String(contentsOfFile: Stack.root + "/nginx/clup-local.conf.in", encoding: .utf8),
             "include @NGINX_DIR@/security-headers.conf;", false),
        ] {
            let blocks = Self.blocks(config).filter { $0.body.contains("add_header ") }
            #expect(blocks.count >= 8)
            for block in blocks {
                #expect(block.body.contains(include), "\(block.head) drops the security headers")
                if hsts { #expect(block.body.contains("Strict-Transport-Security"), "\(block.head) drops HSTS") }
            }
        }
    }

    @Test("production's nginx in front of workers on other hosts: one upstream server each, left alone when failing, /healthz for the load balancers named")
    func productionSeveralHosts() throws {
        let folder = NSTemporaryDirectory() + "clup-production-hosts-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stack = try Stack()
        let site = try productionTemplate(stack, ["--worker", "10.0.0.5:9000", "--worker", "[fd00::6]:9000",
                                                  "--healthz-from", "10.0.1.0/24", "--healthz-from", "fd00:1::/64"])
        func upstream(_ name: String) -> String {
            guard let start = site.range(of: "upstream \(name) {") else { return "" }
            return String(site[start.upperBound...].prefix { $0 != "}" })
        }
        let (workers, entrances) = (upstream("clup_worker"), upstream("clup_entrance"))
        #expect(workers.contains("server 10.0.0.5:9000 max_fails=2 fail_timeout=10s;")
                    && workers.contains("server [fd00::6]:9000 max_fails=2 fail_timeout=10s;"), "\(workers)")
        #expect(entrances.contains("server 10.0.0.5:9001 max_fails=2 fail_timeout=10s;")
                    && entrances.contains("server [fd00::6]:9001 max_fails=2 fail_timeout=10s;"), "\(entrances)")
        #expect(!site.contains("unix:"), "no local socket is left in front of remote workers")
        #expect(site.contains("allow ::1;\n        allow 10.0.1.0/24;\n        allow fd00:1::/64;\n        deny all;"))
        // Valid nginx as it is written (the workers need not be up for `nginx -t`).
        var local = try productionSite(in: folder, for: stack).site
        local = local.replacingOccurrences(of: "server unix:" + stack.socket + ";",
                                           with: "server 10.0.0.5:9000 max_fails=2 fail_timeout=10s;")
        try local.write(toFile: folder + "/site.conf", atomically: true, encoding: .utf8)
        #expect(throws: Never.self) { try stack.run(Stack.nginxBinary, ["-t", "-q", "-p", folder, "-c", folder + "/nginx.conf"]) }
        // What is not an address is refused with what is wrong.
        for (arguments, message) in [(["--worker", "db.example.org:9000"], "--worker db.example.org:9000"),
                                     (["--worker", "10.0.0.5:9000", "--socket", "/run/x.sock"], "not both"),
                                     (["--healthz-from", "everyone"], "--healthz-from everyone")] {
            let (status, said) = try stack.clupRefusal(["nginx-config", "--template",
                                                        Stack.root + "/nginx/clup-production.conf.in"] + arguments)
            #expect(status != 0 && said.contains(message), "\(arguments): \(said)")
        }
    }

    /// Each `{ … }` block of an nginx configuration: the words before it, and its own
    /// directives (its nested blocks left out).
    static func blocks(_ config: String) -> [(head: String, body: String)] {
        var found: [(String, String)] = []
        var stack: [(head: String, body: String)] = []
        var line = ""
        for character in config.split(separator: "\n").map({ $0.split(separator: "#", maxSplits: 1).first.map(String.init) ?? "" })
            .joined(separator: "\n")
        {
            switch character {
            case "{":
                stack.append((line.trimmingCharacters(in: .whitespacesAndNewlines), ""))
                line = ""
            case "}":
                if var block = stack.popLast() {
                    block.body += line
                    found.append(block)
                }
                line = ""
            case ";":
                line.append(";")
                if !stack.isEmpty { stack[stack.count - 1].body += line + "\n" }
                line = ""
            default:
                line.append(character)
            }
        }
        return found
    }

    @Test("security: the production configuration, run with a test certificate, keeps its headers on every answer")
    func productionRun() throws {
        let folder = NSTemporaryDirectory() + "clup-production-run-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stack = try Stack()
        let (_, _, https) = try productionSite(in: folder, for: stack)
        let nginx = try stack.launch(Stack.nginxBinary, ["-p", folder, "-c", folder + "/nginx.conf"])
        defer { nginx.terminate(); nginx.waitUntilExit() }
        let base = "https://clup.example.org:\(https)"
        let resolve = ["-k", "--resolve", "clup.example.org:\(https):127.0.0.1", "--resolve", "other.example:\(https):127.0.0.1"]
        try stack.waitUntil("production nginx answers") { (try? stack.curl(resolve + [base + "/sw.js"]).status) == 200 }
        // Every kind of answer carries the security headers: pages, static files, nginx's own
        // errors, the device API's JSON errors.
        let answers = [
            try stack.curl(resolve + [base + "/"]),
            try stack.curl(resolve + [base + "/sw.js"]),
            try stack.curl(resolve + ["-X", "DELETE", base + "/"]),
            try stack.curl(resolve + ["-X", "DELETE", base + "/api/v1/scan"]),
            try stack.curl(resolve + ["--data-binary", "@" + Stack.root + "/Public/assets/icon-512.png", base + "/api/v1/scan"]),
        ]
        #expect(answers.map(\.status) == [200, 200, 405, 405, 413])
        for (index, answer) in answers.enumerated() {
            #expect(answer.header("Strict-Transport-Security")?.contains("max-age=63072000") == true, "\(index)")
            #expect(answer.header("X-Content-Type-Options") == "nosniff", "\(index)")
            #expect(answer.header("Referrer-Policy") != nil, "\(index)")
            #expect(answer.header("X-Cache-Status") == nil, "\(index)")
            // Pages, nginx's included, have a Content-Security-Policy (a script file needs none).
            if index != 1 { #expect(answer.header("Content-Security-Policy") != nil, "\(index)") }
        }
        // Also when the worker is away: the API's 503 keeps every header.
        #expect(try stack.stopWorker() == 0)
        let away = try stack.curl(resolve + [base + "/api/v1/stores/1/status"])
        #expect(away.status == 503 && away.header("Content-Type") == "application/json")
        #expect(away.header("Strict-Transport-Security") != nil && away.header("X-Content-Type-Options") == "nosniff")
        #expect(away.header("Retry-After") == "5")
        // The device API's errors are its documented JSON.
        #expect(answers[3].header("Content-Type") == "application/json" && answers[3].body.contains("\"code\":\"methodNotAllowed\""))
        #expect(answers[4].header("Content-Type") == "application/json" && answers[4].body.contains("\"code\":\"payloadTooLarge\""), "\(answers[4])")
        // Another name gets no TLS handshake at all.
        #expect(throws: (any Error).self) { try stack.curl(resolve + ["https://other.example:\(https)/"]) }
    }

    @Test("/healthz says within about a second that another process holds the write lock, and recovers")
    func healthUnderOutsideLock() throws {
        let stack = try Stack()
        #expect(try stack.get("/healthz").status == 200)
        // Another process holds the write lock for three seconds, as a stuck writer elsewhere would.
        let holder = try stack.launch("/usr/bin/python3", ["-c", """
            import sqlite3, time
            db = sqlite3.connect("\(stack.database)", isolation_level=None)
            db.execute("BEGIN IMMEDIATE"); time.sleep(3); db.execute("ROLLBACK")
            """])
        Thread.sleep(forTimeInterval: 0.5)
        let started = Date()
        let blocked = try stack.get("/healthz")
        #expect(Date().timeIntervalSince(started) < 2.5)
        #expect(blocked.status == 503)
        #expect(blocked.body.contains(#""writes":"blocked""#) && blocked.body.contains("write lock is held elsewhere"))
        #expect(try stack.get("/").status == 200)  // pages read meanwhile
        holder.waitUntilExit()
        #expect(try stack.get("/healthz").status == 200)
    }

    @Test("under systemd the worker says it is ready, and pings the watchdog only while it answers")
    func systemdWatchdog() throws {
        let stack = try Stack()
        // A datagram socket standing in for systemd's.
        let path = stack.directory + "/notify.sock"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        var wait = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        /// What the worker said within `seconds`.
        func messages(for seconds: Double) -> [String] {
            var said: [String] = []
            let deadline = Date() + seconds
            var buffer = [UInt8](repeating: 0, count: 256)
            while Date() < deadline {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 { said.append(String(decoding: buffer[..<count], as: UTF8.self)) }
            }
            return said
        }

        let socketPath = stack.directory + "/watched.sock"
        let worker = Process()
        worker.executableURL = URL(fileURLWithPath: Stack.clupBinary)
        worker.arguments = ["serve", "--database", stack.database, "--socket", socketPath, "--secret-file",
                            stack.directory + "/secret", "--vapid-key-file", stack.directory + "/vapid-key",
                            "--public", Stack.root + "/Public", "--mail-dir", stack.directory + "/mail"]
        // A 1.5 s watchdog: a probe, and a ping, every half second.
        worker.environment = stack.environment.merging(
            ["NOTIFY_SOCKET": path, "WATCHDOG_USEC": "1500000"]) { $1 }
        worker.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        worker.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try worker.run()
        defer {
            kill(worker.processIdentifier, SIGCONT)
            worker.terminate()
            worker.waitUntilExit()
        }
        let first = messages(for: 2.5)
        #expect(first.first == "READY=1")
        #expect(first.filter { $0 == "WATCHDOG=1" }.count >= 3)
        // Hung: no pings, so systemd would kill and restart it.
        kill(worker.processIdentifier, SIGSTOP)
        _ = messages(for: 0.6)  // one already on its way
        #expect(messages(for: 2).isEmpty)
        kill(worker.processIdentifier, SIGCONT)
        #expect(messages(for: 2).contains("WATCHDOG=1"))
    }
}
