import ArgumentParser
import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import CLupText
import CLupWeb
import FastCGI
import Foundation
import Logging
import Metrics
import Prometheus

/// The `clup` command: serve the site, manage the database, and produce the files nginx needs.
@main
struct CLupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clup",
        abstract: "CLup — customer line-up for grocery stores.",
        subcommands: [Serve.self, Migrate.self, SeedDemo.self, SendMail.self, Admin.self, Generate.self, MeasureBoard.self,
                      NginxConfigCommand.self, Probe.self, Simulate.self, CopyToPostgres.self]
    )
}

/// Options every command that opens the database shares. Defaults come from the environment
/// (`CLUP_DATABASE`, `CLUP_DATABASE_URL`), so a deployment sets them once.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "SQLite database file. serve, migrate and seed-demo create it if missing; the other commands need it to exist.")
    var database: String = ProcessInfo.processInfo.environment["CLUP_DATABASE"] ?? "clup.sqlite"

    @Option(help: ArgumentHelp(
        "PostgreSQL instead of SQLite: postgres://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]…]/DATABASE[?schema=NAME].",
        discussion: "With several hosts (a Patroni cluster's nodes), CLup connects to the one that takes writes."))
    var databaseURL: String? = ProcessInfo.processInfo.environment["CLUP_DATABASE_URL"]

    @Option(help: "Seconds to keep trying a PostgreSQL server that does not answer at start, before giving up.")
    var connectWait: Double = 30

    @Option(help: ArgumentHelp(
        "File holding the data key names and email addresses are sealed with (at least 32 characters).",
        discussion: "Keep it outside the database's folder and its backups; `clup admin create-data-key FILE` makes one."))
    var dataKeyFile: String = ProcessInfo.processInfo.environment["CLUP_DATA_KEY_FILE"] ?? "clup.data-key"

    /// The data key, or an error that says how to make one.
    func dataKey() throws -> DataKey {
        try Self.dataKey(at: dataKeyFile)
    }

    static func dataKey(at path: String) throws -> DataKey {
        do {
            return try DataKey.load(path: path)
        } catch {
            throw CommandError(String(describing: error))
        }
    }

    /// The database in words, for messages (a URL's password hidden).
    var described: String { databaseURL.map(AppDatabase.redacted(url:)) ?? database }

    /// Opens (or creates) the database readable by its owner only: it holds password hashes
    /// and email addresses. The umask covers its WAL and shared-memory files and whatever the
    /// process writes afterwards (mail, keys); files left more open by an older version are
    /// closed up. With `--database-url`, opens PostgreSQL instead (`openPostgres`).
    func open() throws -> AppDatabase {
        if let databaseURL { return try openPostgres(databaseURL) }
        umask(0o077)
        let opened = try Self.opening(database) { try AppDatabase.open(path: database, dataKey: try dataKey()) }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database + suffix) {
            chmod(database + suffix, 0o600)
        }
        return opened
    }

    /// Runs `open`, turning a data key that does not fit the database into a command error.
    static func opening(_ described: String, _ open: () throws -> AppDatabase) throws -> AppDatabase {
        do {
            return try open()
        } catch let error as DataKeyError {
            throw CommandError("\(described): \(error)")
        }
    }

    /// The database, which must exist already: an administrator's command never creates an
    /// empty one (in whatever folder it was typed) to then find nobody in it.
    func openExisting() throws -> AppDatabase {
        if let databaseURL { return try openPostgres(databaseURL) }
        guard FileManager.default.fileExists(atPath: database) else {
            throw CommandError("no database at \(database): set CLUP_DATABASE or pass --database "
                + "(`clup migrate` creates one)")
        }
        return try open()
    }

    /// PostgreSQL at `url`. A server that does not answer yet (starting, failing over) is
    /// tried again every two seconds for `connectWait` seconds, each time said in the log;
    /// then the command stops with what went wrong, rather than a supervisor restarting it
    /// in a tight loop. A URL that cannot be right is refused at once.
    func openPostgres(_ url: String) throws -> AppDatabase {
        let logger = Logger(label: "clup")
        let deadline = Date() + connectWait
        while true {
            do {
                return try Self.opening(described) { try AppDatabase.open(url: url, dataKey: try dataKey()) }
            } catch let error as CommandError {
                throw error
            } catch where AppDatabase.storageFailure(error) == .busy && Date() < deadline {
                logger.warning("PostgreSQL at \(described) does not answer (\(error)); trying again in 2 s")
                Thread.sleep(forTimeInterval: 2)
            } catch {
                throw CommandError("cannot open PostgreSQL at \(described): \(error)")
            }
        }
    }
}

/// Where the static files are, and what pages show. (Page templates are compiled in.)
struct SiteOptions: ParsableArguments {
    @Option(name: .customLong("public"), help: "Directory of the static files nginx serves.")
    var publicDirectory: String = ProcessInfo.processInfo.environment["CLUP_PUBLIC"] ?? "Public"

    @Option(help: "Map tile URL template ({z}/{x}/{y}); the map is skipped when tiles cannot load.")
    var tileURL: String = ProcessInfo.processInfo.environment["CLUP_TILE_URL"]
        ?? "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

    @Option(help: ArgumentHelp(
        "A Nominatim-compatible geocoder for the home page's address search (https://host[/path][?countrycodes=it…]).",
        discussion: "Without one, the demo city's streets and places are searched on the server, and nothing typed leaves it."))
    var geocoderURL: String? = ProcessInfo.processInfo.environment["CLUP_GEOCODER_URL"]

    /// What the home page's search asks; a geocoder's address that cannot be one is refused.
    /// At most half the worker's `pageThreads` wait for the geocoder at once.
    func places(pageThreads: Int) throws -> any PlaceFinder {
        guard let geocoderURL else { return DemoData.gazetteer }
        let geocoder = NominatimFinder(baseURL: geocoderURL)
        do {
            _ = try geocoder.url(for: "Milano")
        } catch {
            throw ValidationError("--geocoder-url: \(error)")
        }
        return RememberingFinder(geocoder, waiters: max(1, pageThreads / 2))
    }

    @Option(help: "The site's public address, for links in emails.")
    var baseURL: String = ProcessInfo.processInfo.environment["CLUP_BASE_URL"] ?? "http://127.0.0.1:8080"

    var settings: SiteSettings { SiteSettings(tileURL: tileURL, baseURL: baseURL) }

    func views(pushKey: String? = nil) throws -> Views {
        Views(assets: try Assets(publicDirectory: publicDirectory), pushKey: pushKey)
    }
}

/// How long what CLup knows about people is kept (`RetentionPolicy`), in days; the privacy
/// page states what is set.
struct RetentionOptions: ParsableArguments {
    private static func days(_ name: String, _ usual: Int) -> Int {
        ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? usual
    }

    @Option(help: "Days a reservation stays linked to its customer before it is made anonymous (CLUP_KEEP_VISITS_DAYS).")
    var keepVisitsDays = Self.days("CLUP_KEEP_VISITS_DAYS", 365)

    @Option(help: "Days without a sign-in after which a customer's account is deleted, its owner warned before; 0 keeps accounts (CLUP_DORMANT_ACCOUNT_DAYS).")
    var dormantAccountDays = Self.days("CLUP_DORMANT_ACCOUNT_DAYS", 3 * 365)

    @Option(help: "Days the door log (with the names staff gave) is kept (CLUP_KEEP_DOOR_LOG_DAYS).")
    var keepDoorLogDays = Self.days("CLUP_KEEP_DOOR_LOG_DAYS", 365)

    @Option(help: "Days a store's change log is kept (CLUP_KEEP_STORE_CHANGES_DAYS).")
    var keepStoreChangesDays = Self.days("CLUP_KEEP_STORE_CHANGES_DAYS", 2 * 365)

    func validate() throws {
        for (option, value) in [("--keep-visits-days", keepVisitsDays), ("--keep-door-log-days", keepDoorLogDays),
                                ("--keep-store-changes-days", keepStoreChangesDays)] where !(1...36500).contains(value) {
            throw ValidationError("\(option) must be a number of days from 1 to 36500")
        }
        guard (0...36500).contains(dormantAccountDays) else {
            throw ValidationError("--dormant-account-days must be a number of days from 1 to 36500, or 0 for never")
        }
    }

    var policy: RetentionPolicy {
        RetentionPolicy(visits: Double(keepVisitsDays) * 86400,
                        dormantAccounts: dormantAccountDays == 0 ? nil : Double(dormantAccountDays) * 86400,
                        doorLog: Double(keepDoorLogDays) * 86400, storeChanges: Double(keepStoreChangesDays) * 86400)
    }
}

/// The application server's key for Web Push (VAPID). Made on the first start if the file is
/// missing; keep it across restarts, since browsers subscribed with its public half.
struct PushOptions: ParsableArguments {
    @Option(help: "File holding the VAPID private key (created, readable only by CLup, if missing).")
    var vapidKeyFile: String = ProcessInfo.processInfo.environment["CLUP_VAPID_KEY_FILE"] ?? "run/vapid-key"

    @Option(help: "Contact for push services, a mailto: or https: URL (default: mailto: and the sender address).")
    var vapidSubject: String? = ProcessInfo.processInfo.environment["CLUP_VAPID_SUBJECT"]

    @Flag(help: .hidden)
    var allowLoopbackPush = false

    func key(mailFrom: String, logger: Logger) throws -> VAPIDKey {
        let subject = vapidSubject ?? "mailto:\(mailFrom)"
        if let data = FileManager.default.contents(atPath: vapidKeyFile) {
            do {
                return try VAPIDKey(privateKey: String(decoding: data, as: UTF8.self), subject: subject)
            } catch {
                throw ValidationError("\(vapidKeyFile): \(error)")
            }
        }
        let privateKey = VAPIDKey.generatePrivateKey()
        guard FileManager.default.createFile(atPath: vapidKeyFile, contents: Data((privateKey + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600])
        else { throw ValidationError("cannot write the VAPID key to \(vapidKeyFile)") }
        logger.info("made a new VAPID key in \(vapidKeyFile)")
        return try VAPIDKey(privateKey: privateKey, subject: subject)
    }
}

/// A clock for end-to-end tests: real time plus the offset in seconds a file holds, so a test
/// moves the worker's time forward without waiting. Unset in production.
struct ClockOptions: ParsableArguments {
    @Option(help: .hidden)
    var clockOffsetFile: String?

    var now: @Sendable () -> Date {
        guard let path = clockOffsetFile else { return { Date() } }
        return {
            let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? "0"
            return Date() + (Double(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
        }
    }
}

/// The server's secret, which signs the tokens in QR codes. It must stay the same across
/// restarts (a new one invalidates every code already issued) and never be shared.
struct SecretOptions: ParsableArguments {
    @Option(help: "File holding the server secret (at least 32 characters; e.g. `head -c 48 /dev/urandom | base64`).")
    var secretFile: String = ProcessInfo.processInfo.environment["CLUP_SECRET_FILE"] ?? "clup.secret"

    func tickets() throws -> TicketToken {
        guard let data = FileManager.default.contents(atPath: secretFile) else {
            throw ValidationError(
                "no server secret at \(secretFile). Create one, readable only by CLup:\n"
                    + "  (umask 077; head -c 48 /dev/urandom | base64 > \(secretFile))")
        }
        do {
            return try TicketToken(secret: String(decoding: data, as: UTF8.self))
        } catch {
            throw ValidationError("\(secretFile): \(error)")
        }
    }
}

/// How mail leaves: an SMTP server when `--smtp-url` is set, else `.eml` files in a folder.
struct MailOptions: ParsableArguments {
    @Option(help: "SMTP server, e.g. smtp://mail.example.org:587 (or smtps://…:465). Unset: mail goes to --mail-dir.")
    var smtpURL: String? = ProcessInfo.processInfo.environment["CLUP_SMTP_URL"]

    @Flag(help: "Refuse to send unless the SMTP connection is upgraded with STARTTLS.")
    var smtpStarttls = ProcessInfo.processInfo.environment["CLUP_SMTP_STARTTLS"] == "1"

    @Option(help: "SMTP user name (the password comes from CLUP_SMTP_PASSWORD).")
    var smtpUser: String? = ProcessInfo.processInfo.environment["CLUP_SMTP_USER"]

    @Option(help: "Folder for outgoing mail when no SMTP server is set.")
    var mailDir: String = ProcessInfo.processInfo.environment["CLUP_MAIL_DIR"] ?? "run/mail"

    @Option(help: "Sender address.")
    var mailFrom: String = ProcessInfo.processInfo.environment["CLUP_MAIL_FROM"] ?? "noreply@clup.invalid"

    func delivery(database: AppDatabase, logger: Logger) -> MailDelivery {
        let transport: any MailTransport = smtpURL.map {
            SMTPTransport(url: $0, requireTLS: smtpStarttls, username: smtpUser,
                          password: ProcessInfo.processInfo.environment["CLUP_SMTP_PASSWORD"])
        } ?? DirectoryTransport(directory: mailDir)
        return MailDelivery(database: database, transport: transport, from: mailFrom, logger: logger)
    }
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve CLup over FastCGI until SIGTERM or SIGINT.")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var site: SiteOptions
    @OptionGroup var secret: SecretOptions
    @OptionGroup var retention: RetentionOptions

    @Option(help: "Unix socket to listen on.")
    var socket: String = ProcessInfo.processInfo.environment["CLUP_SOCKET"] ?? "run/clup.sock"

    @Option(help: "Listen on TCP 127.0.0.1:PORT instead of the unix socket.")
    var port: Int?

    @Option(help: "Listen on TCP ADDRESS:PORT (an address of this host, [v6]:PORT for IPv6) for web servers on other hosts, instead of the unix socket; the entrance on the next port. Needs --allow-from.")
    var listen: String?

    @Option(help: "With --listen: a web server's address or network (10.0.0.5, 10.0.0.0/24) allowed to connect; give it once per network. Others are refused.")
    var allowFrom: [String] = []

    @Option(help: "Permission bits of the socket, octal (0660 lets the web server's group connect).")
    var socketMode: String = "0660"

    @Option(help: "Group to give the socket: the web server's (its workers then connect, nobody else).")
    var socketGroup: String?

    @Option(help: "Worker threads for pages (default: 2 per core).")
    var threads: Int = 2 * ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Unix socket for the entrance: the device API and the kiosk's scans, on threads of their own (default: the socket's name with -entrance).")
    var entranceSocket: String? = ProcessInfo.processInfo.environment["CLUP_ENTRANCE_SOCKET"]

    @Option(help: "With --port: the entrance's TCP port (default: the next port).")
    var entrancePort: Int?

    @Option(help: "Threads that serve only the entrance socket.")
    var entranceThreads: Int = 2

    @Option(help: "Where nginx's own pages are (`clup generate --output`): written again when maintenance is scheduled or cancelled from the web, so the 502 page names it.")
    var errorsDir: String? = ProcessInfo.processInfo.environment["CLUP_ERRORS_DIR"]

    @Option(help: "Largest request body accepted, in bytes (forms are refused past 64 KiB and uploads past 2 MiB whatever this is).")
    var maxBody: Int = FormData.maxUploadBytes

    @OptionGroup var mail: MailOptions

    @Option(help: "Seconds between looks at the outbox.")
    var mailInterval: Double = 2

    @Option(help: "Seconds between updates of the queues (lapsed calls expire, the next tickets are called).")
    var queueInterval: Double = 5

    @OptionGroup var push: PushOptions
    @OptionGroup var clock: ClockOptions

    /// Where the pages and the entrance are served: unix sockets, TCP on loopback (`--port`), or
    /// TCP on an address of this host for the web servers `--allow-from` names (`--listen`).
    func endpoints(mode: mode_t, group: gid_t?) throws -> (pages: FastCGIServer.Endpoint, entrance: FastCGIServer.Endpoint) {
        if let listen {
            guard port == nil else { throw ValidationError("give --listen or --port, not both") }
            guard let (address, port) = Self.hostAndPort(listen), port < 65535 else {
                throw ValidationError("--listen: ADDRESS:PORT, with an IPv4 address or [an IPv6 one], and a port below 65535")
            }
            guard !allowFrom.isEmpty else {
                throw ValidationError("--listen answers only the web servers --allow-from names: give at least one")
            }
            let allowed = try allowFrom.map { text in
                guard let network = PeerNetwork(text) else {
                    throw ValidationError("--allow-from \(text): an address or a network such as 10.0.0.0/24")
                }
                return network
            }
            return (.network(address: address, port: port, allowed: allowed),
                    .network(address: address, port: entrancePort ?? port + 1, allowed: allowed))
        }
        guard allowFrom.isEmpty else { throw ValidationError("--allow-from goes with --listen") }
        if let port { return (.tcp(port: port), .tcp(port: entrancePort ?? port + 1)) }
        return (.unix(path: socket, mode: mode, group: group),
                .unix(path: entranceSocket ?? Self.entranceSocket(for: socket), mode: mode, group: group))
    }

    /// "10.0.0.5:9000" or "[fd00::5]:9000", as an address and a port; nil if it is neither.
    static func hostAndPort(_ text: String) -> (address: String, port: Int)? {
        let address: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            address = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { return nil }
            address = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard let number = Int(port), (1...65535).contains(number), !port.hasPrefix("+"),
              PeerNetwork.address(String(address)) != nil
        else { return nil }
        return (String(address), number)
    }

    func run() throws {
        let logger = Logger(label: "clup")
        guard Sodium.ensureInitialized() else { throw ValidationError("libsodium could not be initialised") }
        FreedMemory.keepForReuse()
        guard let mode = mode_t(socketMode, radix: 8) else { throw ValidationError("--socket-mode must be octal") }
        var group: gid_t?
        if let socketGroup {
            guard let entry = getgrnam(socketGroup) else { throw ValidationError("--socket-group: no group \(socketGroup)") }
            group = entry.pointee.gr_gid
        }
        // Everything that can fail is checked before the socket opens: assets, secrets, schema.
        let vapid = try push.key(mailFrom: mail.mailFrom, logger: logger)
        let views = try site.views(pushKey: vapid.publicKey)
        _ = PasswordHasher.decoy  // computed now, so the first unknown-address sign-in is not slower
        var settings = site.settings
        settings.allowsLoopbackPush = push.allowLoopbackPush
        settings.retention = retention.policy
        let now = clock.now
        // Before anything records: a metric made earlier would count nowhere.
        let metrics = Self.bootstrapMetrics()
        var environment = AppEnvironment(
            database: try database.open(), now: now, logger: logger, settings: settings,
            tickets: try secret.tickets(), metrics: metrics, places: try site.places(pageThreads: threads))
        var keeper: StaticPagesKeeper?
        if let errorsDir {
            let pages = StaticPages(views: views, directory: errorsDir)
            environment.staticPages = pages
            keeper = StaticPagesKeeper(pages: pages)
            try keeper?.keep(from: environment.database, now: now())
        }
        let app = App(environment: environment, views: views)
        let (endpoint, entrance) = try endpoints(mode: mode, group: group)
        let server = try FastCGIServer(
            // Page threads yield the CPU to the entrance's when both have work (nice 5: a
            // third of the weight), so a scan at the door does not wait behind page renders.
            configuration: .init(listeners: [.init(endpoint: endpoint, threads: threads, name: "pages", niceness: 5),
                                             .init(endpoint: entrance, threads: entranceThreads, name: "entrance")],
                                 maxBodySize: maxBody),
            logger: logger)
        let database = environment.database
        let beats = environment.heartbeats
        beats.expect("mail", every: mailInterval)
        beats.expect("queue timer", every: 1)
        beats.expect("notices", every: 1)
        let writer = NoticeWriter(settings: settings, tickets: environment.tickets)
        var services = [
            WorkerServices.mail(mail.delivery(database: database, logger: logger), every: mailInterval, now: now,
                                logger: logger, beat: { beats.beat("mail") }),
            WorkerServices.queues(database, every: queueInterval, now: now, logger: logger,
                                  beat: { beats.beat("queue timer") }),
            WorkerServices.notices(database, render: writer.render, renderWaitlist: writer.renderWaitlist,
                                   renderMaintenance: writer.renderMaintenance,
                                   push: PushDelivery(database: database, vapid: vapid, logger: logger),
                                   sessionLifetime: Visitor.absoluteLifetime, retention: settings.retention,
                                   dormantWarning: DormantWarningWriter(settings: settings).write, now: now, logger: logger,
                                   beat: { beats.beat("notices") }),
        ]
        // The WAL is copied into the database file beside the writer, never in its commits.
        services.append(BackgroundService(name: "checkpoints", every: 0.25, logger: logger) {
            try database.checkpointAside()
        })
        if let keeper {
            // Every 5 s: a window another worker scheduled reaches this host's pages as soon
            // as this worker's own banners show it.
            services.append(BackgroundService(name: "static pages", every: 5, logger: logger) {
                if try keeper.keep(from: database, now: now()) { logger.info("nginx's pages written again") }
            })
        }
        let serviceGroup = ServiceGroup(services)
        serviceGroup.start()
        // Listening: systemd may count the worker started, and watch it answer from now on.
        SystemdNotify.send("READY=1")
        if port == nil { SystemdNotify.startWatchdog(probing: entranceSocket ?? Self.entranceSocket(for: socket)) }
        // Until SIGTERM: then requests in flight finish, and the services after them.
        server.run { request in
            let response = app.respond(cgiParams: request.params, body: request.body,
                                       bodyTooLarge: request.bodyTooLarge)
            return FastCGIResponse(status: response.status, headers: response.headers, body: response.body)
        }
        let stuck = serviceGroup.stop(timeout: 10)
        if stuck.isEmpty {
            logger.info("services stopped")
        } else {
            logger.warning("services still running at exit: \(stuck.joined(separator: ", "))")
        }
    }
}

extension Serve {
    /// The Prometheus registry behind swift-metrics, with buckets fitted to what CLup times and
    /// counts, and the `/metrics` endpoint that reads it (`CLUP_METRICS_TOKEN` lets a server
    /// that is not this machine scrape).
    static func bootstrapMetrics() -> MetricsEndpoint {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets["clup_request_duration_seconds"] =
            [1, 2.5, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 10000].map { Duration.microseconds(Int64($0 * 1000)) }
        factory.valueHistogramBuckets["clup_group_commit_size"] = [1, 2, 4, 8, 16, 32, 64]
        MetricsSystem.bootstrap(factory)
        return MetricsEndpoint(token: ProcessInfo.processInfo.environment["CLUP_METRICS_TOKEN"]) {
            registry.emitToBuffer()
        }
    }

    /// `run/clup.sock` → `run/clup-entrance.sock`.
    static func entranceSocket(for socket: String) -> String {
        socket.hasSuffix(".sock") ? String(socket.dropLast(5)) + "-entrance.sock" : socket + "-entrance"
    }
}

struct SendMail: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send-mail", abstract: "Send the mail that is due now, once (serve does this every few seconds).")

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var mail: MailOptions

    func run() throws {
        let result = try mail.delivery(database: try database.openExisting(), logger: Logger(label: "clup"))
            .deliverDue(now: Date())
        print("sent \(result.sent), failed \(result.failed)")
    }
}

struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create or upgrade the database schema.")

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        _ = try database.open()  // opening runs the migrations
        print("database \(database.described) is up to date")
    }
}

struct SeedDemo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "seed-demo", abstract: "Load the demo stores across Milan into an empty database.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "Time zone of the demo stores.")
    var timeZone: String = "Europe/Rome"

    @Option(help: "Weeks of past visits to make up, for the statistics pages (0: none).")
    var weeks: Int = 4

    func run() throws {
        guard let zone = TimeZone(identifier: timeZone) else { throw ValidationError("unknown time zone \(timeZone)") }
        guard (0...52).contains(weeks) else { throw ValidationError("--weeks must be between 0 and 52") }
        let added = try DemoData.seed(try database.open(), now: Date(), timeZone: zone, weeks: weeks)
        print(added > 0 ? "added \(added) demo stores" : "the database already has stores; nothing added")
    }
}

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write the static pages nginx serves itself (405, 413, 429, and 502 when the worker cannot answer), "
            + "in each language: 502.html in English, 502.it.html in Italian; and the device API's 405 and 413 as JSON.")

    @OptionGroup var site: SiteOptions

    @Option(help: "Directory to write the pages to.")
    var output: String = "Public/errors"

    @Flag(help: "Name the next scheduled maintenance on the 502 page, read from the database (CLUP_DATABASE…).")
    var maintenance = false

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        let window = maintenance ? try database.openExisting().maintenance.maintenanceWindows(now: Date()).first : nil
        for path in try StaticPages(views: try site.views(), directory: output).write(maintenance: window, now: Date()) {
            print("wrote \(path)")
        }
    }
}

struct NginxConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nginx-config",
        abstract: "Print the local nginx configuration for these paths and ports, or production's from its template.")

    @Option(help: "The template to fill.") var template: String = "nginx/clup-local.conf.in"
    @Option(help: "HTTP port on 127.0.0.1.") var port: Int = 8080
    @Option(help: "Directory for nginx's pid, logs and temporary files (the local template's).") var runDir: String = "run"
    @Option(help: "The worker's unix socket; give it once per worker when several share the database.")
    var socket: [String] = []
    @Option(help: "The worker's TCP port, instead of a socket.") var workerPort: Int?
    @Option(help: "A worker on another host, ADDRESS:PORT as its `clup serve --listen` says (the entrance on the next port); give it once per worker, instead of sockets.")
    var worker: [String] = []
    @Option(help: "A load balancer's address or network (10.0.1.0/24) that may ask /healthz, besides this machine; give it once per network.")
    var healthzFrom: [String] = []
    @Option(help: "Each worker's entrance socket (default: each socket's name with -entrance).")
    var entranceSocket: [String] = []
    @Option(help: "The worker's entrance TCP port (default: the worker port's next).") var entrancePort: Int?
    @Option(name: .customLong("public"), help: "Static files.") var publicDirectory: String = "Public"
    @Option(help: "Directory of the nginx snippets.") var nginxDir: String = "nginx"
    @Option(help: "Leaflet's directory.") var leaflet: String = "/usr/share/javascript/leaflet"
    @Option(help: "Access log path, or 'off'.") var accessLog: String = "off"
    @Option(help: "Largest request body, in nginx's notation.") var maxBody: String = "64k"
    @Option(help: "The user nginx's workers run as when nginx starts as root; only its group may reach the worker's socket.")
    var user: String = NginxUser.name
    @Option(help: "A client address spared the per-client limits (this machine's own browser, tests and benchmark); 'none' for none.")
    var unlimitedClient: String = "127.0.0.1"
    @Option(help: "Map tile URL template, for the Content-Security-Policy.")
    var tileURL: String = ProcessInfo.processInfo.environment["CLUP_TILE_URL"]
        ?? "https://tile.openstreetmap.org/{z}/{x}/{y}.png"

    func run() throws {
        func absolute(_ path: String) -> String {
            path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        }
        let upstreams: [String]
        let entranceUpstreams: [String]
        guard worker.isEmpty || (workerPort == nil && socket.isEmpty) else {
            throw ValidationError("give --worker, or --socket or --worker-port, not both")
        }
        if !worker.isEmpty {
            let workers = try worker.map { text in
                guard let (address, port) = Serve.hostAndPort(text), port < 65535 else {
                    throw ValidationError("--worker \(text): ADDRESS:PORT, with an IPv4 address or [an IPv6 one]")
                }
                return (address.contains(":") ? "[\(address)]" : address, port)
            }
            // Passive health checks (open-source nginx has no active ones): a worker that fails
            // twice is left alone for 10 s and its requests go to the others.
            upstreams = workers.map { "\($0.0):\($0.1) max_fails=2 fail_timeout=10s" }
            entranceUpstreams = workers.map { "\($0.0):\($0.1 + 1) max_fails=2 fail_timeout=10s" }
        } else if let workerPort {
            upstreams = ["127.0.0.1:\(workerPort)"]
            entranceUpstreams = ["127.0.0.1:\(entrancePort ?? workerPort + 1)"]
        } else {
            // Production's template serves the unit's sockets (nginx/clup.service) unless told.
            let production = (template as NSString).lastPathComponent == "clup-production.conf.in"
            let sockets = (socket.isEmpty ? [production ? "/run/clup/clup.sock" : "\(runDir)/clup.sock"] : socket)
                .map(absolute)
            guard entranceSocket.isEmpty || entranceSocket.count == sockets.count else {
                throw ValidationError("give --entrance-socket once per --socket, or not at all")
            }
            upstreams = sockets.map { "unix:" + $0 }
            entranceUpstreams = (entranceSocket.isEmpty ? sockets.map(Serve.entranceSocket(for:)) : entranceSocket)
                .map { "unix:" + absolute($0) }
        }
        let text = try String(contentsOfFile: template, encoding: .utf8)
        /// The whitespace before `placeholder`'s line in the template, for the lines after its first.
        func indent(_ placeholder: String) -> String {
            guard let found = text.range(of: placeholder) else { return "" }
            let lineStart = text[..<found.lowerBound].lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
            return String(text[lineStart..<found.lowerBound].prefix { $0 == " " })
        }
        /// One `server` line per worker, as the upstream block lists them.
        func servers(_ addresses: [String], at placeholder: String) -> String {
            addresses.map { "server \($0);" }.joined(separator: "\n" + indent(placeholder))
        }
        let upstream = servers(upstreams, at: "@UPSTREAM@")
        let entranceUpstream = servers(entranceUpstreams, at: "@ENTRANCE_UPSTREAM@")
        let healthz: String = try healthzFrom.map { network -> String in
            guard PeerNetwork(network) != nil else {
                throw ValidationError("--healthz-from \(network): an address or a network such as 10.0.1.0/24")
            }
            return "allow \(network);\n" + indent("@HEALTHZ_ALLOW@")
        }.joined()
        print(try NginxConfig.render(template: text, values: [
            "PORT": String(port), "RUN_DIR": absolute(runDir), "UPSTREAM": upstream,
            "ENTRANCE_UPSTREAM": entranceUpstream,
            "PUBLIC_DIR": absolute(publicDirectory), "NGINX_DIR": absolute(nginxDir), "LEAFLET_DIR": leaflet,
            "ACCESS_LOG": accessLog == "off" ? "off" : absolute(accessLog) + " clup", "MAX_BODY": maxBody,
            "TILE_ORIGIN": NginxConfig.imageOrigin(ofTileURL: tileURL),
            "UNLIMITED_CLIENT": unlimitedClient == "none" ? "" : "\(unlimitedClient) 1;",
            "NGINX_USER": user, "HEALTHZ_ALLOW": healthz,
        ]), terminator: "")
    }
}

/// The system user nginx's workers run as on this machine, made by scripts/lib/common.sh: a
/// user of their own, so that no other unprivileged process (`nobody` is shared by many) is in
/// the group the worker's socket is opened to.
enum NginxUser {
    static let name = "clup-nginx"
}

/// A command that cannot go on, said in words (printed as "Error: …", exit status 1).
struct CommandError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

struct CopyToPostgres: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy-to-postgres",
        abstract: "Copy a SQLite database into an empty PostgreSQL one, every row and id, in one transaction.",
        discussion: """
            Stop the worker first: the copy reads one snapshot of the SQLite file, and what is \
            written to it afterwards is not copied. Then start the workers with CLUP_DATABASE_URL.
            """)

    @Option(help: "The SQLite database to copy.")
    var database: String = ProcessInfo.processInfo.environment["CLUP_DATABASE"] ?? "clup.sqlite"

    @Option(help: "The PostgreSQL database to copy into (postgres://…); it must have no stores yet.")
    var to: String

    @Option(help: "The data key both databases are sealed with.")
    var dataKeyFile: String = ProcessInfo.processInfo.environment["CLUP_DATA_KEY_FILE"] ?? "clup.data-key"

    func run() throws {
        guard FileManager.default.fileExists(atPath: database) else { throw CommandError("no database at \(database)") }
        let source = try DatabaseOptions.opening(database) {
            try AppDatabase.open(path: database, dataKey: try DatabaseOptions.dataKey(at: dataKeyFile))
        }
        let options = try DatabaseOptions.parse(["--database-url", to, "--connect-wait", "0", "--data-key-file", dataKeyFile])
        let target = try options.openPostgres(to)
        do {
            let counts = try source.copy(to: target)
            for (table, rows) in counts where rows > 0 { print("\(table): \(rows)") }
            print("copied \(counts.map(\.rows).reduce(0, +)) rows from \(database) to \(options.described)")
        } catch let refused as AppDatabase.CopyRefused {
            throw CommandError(refused.description)
        }
    }
}
