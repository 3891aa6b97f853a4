import CLupData
import CLupDomain
import CLupSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// CLup as a chain runs it on several machines, here on one: three PostgreSQL nodes under
/// Patroni and etcd (`scripts/cluster`), two workers, nginx in front; where machines are lost
/// or cut off, etcd, each node and each worker is a host of its own (a network namespace).
/// Run by `scripts/cluster-test` (CLUP_TEST_CLUSTER=1); it takes about four minutes. Every
/// connection to PostgreSQL is TLS, checked against the cluster's own CA, as a deployment's is.
@Suite("A cluster: PostgreSQL under Patroni, two workers", .serialized,
       .enabled(if: ProcessInfo.processInfo.environment["CLUP_TEST_CLUSTER"] == "1"))
struct ClusterEndToEndTests {
    /// The cluster, started for one test and stopped with it.
    final class Cluster: Sendable {
        let directory = NSTemporaryDirectory() + "clup-cluster-" + UUID().uuidString.prefix(8)
        let url: String
        private let script = Stack.root + "/scripts/cluster"

        /// `hosts`: etcd and each node a network host of its own (`--netns`), so that the
        /// network between them can be cut; otherwise all on loopback.
        init(hosts: Bool = false) throws {
            do {
                url = try Self.run(script, ["start", directory] + (hosts ? ["--netns"] : []))
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            } catch {
                // What did start (etcd, a node) goes too.
                _ = try? Self.run(script, ["stop", directory])
                throw error
            }
        }

        deinit { _ = try? Self.run(script, ["stop", directory]) }

        /// The primary's node name.
        func primary() throws -> String {
            try Self.run(script, ["primary", directory]).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// The nodes whose PostgreSQL accepts writes now (not in recovery), as each says itself.
        func writable() throws -> [String] {
            try Self.run(script, ["writable", directory]).split(separator: "\n").map(String.init)
        }

        /// The rows `sql` returns, run as the superuser in CLup's database on the primary: a
        /// line each.
        func sql(_ sql: String) throws -> [String] {
            try Self.run(script, ["sql", directory, sql]).split(separator: "\n").map(String.init)
        }

        /// A full backup of the cluster, taken on the primary (pgBackRest).
        func backup() throws { try Self.run(script, ["backup", directory, "full"]) }

        /// Whether the primary archives its WAL: it begins a new segment and the one before
        /// reaches the backup repository.
        func archives() -> Bool { (try? Self.run(script, ["archiving", directory])) != nil }

        /// The backups and the archived WAL restored to `time` (PostgreSQL's text for a
        /// timestamp) in a server of its own beside the cluster: its URL.
        func restore(to time: String) throws -> String {
            try Self.run(script, ["restore", directory, time]).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        /// A host of its own for a worker, on the cluster's network (`hosts` clusters only).
        func host(_ name: String) throws -> Stack.WorkerHost {
            let words = try Self.run(script, ["host", directory, name]).split(separator: " ")
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            try Stack.check(words.count == 2, "no address for host \(name)")
            return Stack.WorkerHost(run: [script, "on", directory, name], address: words[0], web: words[1])
        }

        /// Kills host `name` as a lost machine goes: every process on it, and its cable cut.
        func killHost(_ name: String) throws { try Self.run(script, ["kill-host", directory, name]) }

        /// Two workers, each on a host of its own, nginx on this machine in front of them.
        func stack() throws -> Stack {
            try Stack(databaseURL: url, hosts: [try host("worker1"), try host("worker2")])
        }

        /// Cuts `node` off from etcd and the other nodes (this machine and the workers' hosts
        /// still reach it), or joins it again.
        func partition(_ node: String) throws { try Self.run(script, ["partition", directory, node]) }
        func heal(_ node: String) throws { try Self.run(script, ["heal", directory, node]) }

        /// Whether Patroni accepts `file` as node1's configuration here (its addresses, ports,
        /// etcd reachable, PostgreSQL's programs).
        func accepts(configuration file: String) -> Bool {
            (try? Self.run(script, ["check-config", directory, file])) != nil
        }

        /// Each node's role as Patroni reports it ("leader", "sync_standby", "replica").
        func roles() throws -> [String: String] {
            let status = try Self.run(script, ["status", directory])
            let members = (try JSONSerialization.jsonObject(with: Data(status.utf8)) as? [String: Any])?["members"]
            var roles: [String: String] = [:]
            for member in members as? [[String: Any]] ?? [] {
                if let name = member["name"] as? String { roles[name] = member["role"] as? String }
            }
            return roles
        }

        /// Kills the primary as a lost machine goes: its Patroni and its PostgreSQL, SIGKILL,
        /// no goodbye. Returns the node's name.
        func killPrimary() throws -> String {
            let node = try primary()
            let patroni = try String(contentsOfFile: "\(directory)/\(node).pid", encoding: .utf8)
            let postmaster = try String(contentsOfFile: "\(directory)/\(node)/postmaster.pid", encoding: .utf8)
            for text in [patroni, postmaster.split(separator: "\n").first.map(String.init) ?? ""] {
                if let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)) { kill(pid, SIGKILL) }
            }
            return node
        }

        /// Runs the cluster script through the shell and returns what it printed. Not with
        /// Foundation's Process: the servers the script leaves running inherit what it is
        /// given, and its exit was not seen while they ran; the shell's `system` waits for the
        /// script alone.
        @discardableResult
        static func run(_ executable: String, _ arguments: [String]) throws -> String {
            let file = NSTemporaryDirectory() + "clup-cluster-output-" + UUID().uuidString
            defer { try? FileManager.default.removeItem(atPath: file) }
            let command = ([executable] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
                .joined(separator: " ")
            let status = system("\(command) > '\(file)' 2>/dev/null < /dev/null")
            try Stack.check(status == 0, "\(executable) \(arguments.joined(separator: " ")) failed (\(status))")
            return (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
        }
    }

    /// A store open round the clock, with a dispenser and a door kiosk; their device keys.
    /// Room for every ticket the loads below can ask for: a ticket refused is then the
    /// cluster's doing (503), never the store's rules (409 when the wait grows too long, which
    /// 200 places reached within the 35 s once the workers wrote fast enough).
    static let roomy = 10_000

    func store(_ stack: Stack, _ database: AppDatabase, capacity: Int) throws -> (StoreID, dispenser: String, door: String) {
        let store = try database.stores.createStore(
            NewStore(name: "Bottega Replicata", address: "Via Doppia 2, Milano", phone: "+39 02 0",
                     position: GeoPoint(latitude: 45.466, longitude: 9.19), capacity: capacity, timeZone: "UTC",
                     settings: StoreSettings(capacity: capacity, walkInPercent: 90)),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 1440) }, departments: [])
        // Written by another process: both workers hear of it (their board feeds).
        try stack.waitForStore(store.id)
        func enrol(_ role: String) throws -> String {
            let output = try stack.run(Stack.clupBinary, ["admin", "enrol-kiosk", "--store", store.id.description,
                                                          "--label", role, "--role", role] + stack.databaseArguments)
            return String(try #require(output.firstMatch(of: /device key[^:]*: ([A-Za-z0-9_-]{43})/)).1)
        }
        return (store.id, try enrol("dispenser"), try enrol("door"))
    }

    /// What a test runs against: a cluster, two workers with nginx in front, the test's own
    /// connection to the database, and a store with its dispenser's and door's keys.
    struct Deployment {
        let cluster: Cluster
        let stack: Stack
        let database: AppDatabase
        let storeId: StoreID
        let dispenser: String
        let door: String
    }

    /// A deployment on `cluster`, or on a new one (its nodes, and then each worker, hosts of
    /// their own with `hosts`), its store with `capacity` places.
    func deploy(hosts: Bool = false, capacity: Int = Self.roomy, on given: Cluster? = nil) throws -> Deployment {
        let cluster = try given ?? Cluster(hosts: hosts)
        let stack = hosts ? try cluster.stack() : try Stack(databaseURL: cluster.url, workers: 2)
        let database = try AppDatabase.open(url: cluster.url, dataKey: .scratch)
        let (storeId, dispenser, door) = try store(stack, database, capacity: capacity)
        return Deployment(cluster: cluster, stack: stack, database: database, storeId: storeId, dispenser: dispenser,
                          door: door)
    }

    /// A call of the device API through nginx.
    func api(_ stack: Stack, _ path: String, key: String, json: String) throws -> (status: Int, body: [String: Any]) {
        let response = try stack.curl(["-X", "POST", "-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json",
                                       "--data-binary", json, stack.baseURL + path])
        let body = (try? JSONSerialization.jsonObject(with: Data(response.body.utf8))) as? [String: Any] ?? [:]
        return (response.status, body)
    }

    /// A walk-in ticket from the dispenser (201 Created): its id and code, or the status refusing
    /// it. The same `request` asked again gets the same ticket.
    func ticket(_ stack: Stack, key: String, request: String = Secrets.token()) throws -> (status: Int, id: Int64?, code: String?) {
        let answer = try api(stack, "/api/v1/tickets", key: key,
                             json: #"{"people": 1, "residenceMinutes": 15, "requestKey": "\#(request)"}"#)
        return (answer.status, (answer.body["id"] as? NSNumber)?.int64Value, answer.body["code"] as? String)
    }

    func scan(_ stack: Stack, key: String, code: String) throws -> (status: Int, result: String?) {
        let answer = try api(stack, "/api/v1/scan", key: key, json: #"{"code": "\#(code)", "scanId": "\#(Secrets.token())"}"#)
        return (answer.status, answer.body["result"] as? String)
    }

    /// A walk-in ticket asked for under load: when it was answered, how, and its request key.
    struct Write {
        var at: Date
        var status: Int
        var id: Int64?
        var request: String
    }

    /// What a load through nginx saw, and when its event happened.
    struct Load {
        var writes: [Write]
        /// Each page read's status.
        var reads: [Int]
        var eventAt: Date

        var acknowledged: [Date] { writes.filter { $0.status == 201 }.map(\.at).sorted() }
        var refused: [Write] { writes.filter { $0.status != 201 } }
        /// The longest stretch between two acknowledged tickets.
        var longestWithoutWrite: TimeInterval {
            zip(acknowledged, acknowledged.dropFirst()).map { $1.timeIntervalSince($0) }.max() ?? .infinity
        }
        var summary: String {
            "\(acknowledged.count) tickets acknowledged; longest stretch without a write "
                + String(format: "%.1f", longestWithoutWrite) + " s"
        }
    }

    /// `seconds` of load through nginx: two threads asking the dispenser for walk-in tickets
    /// one after another (`made` is given each ticket made: its id and code), one reading the
    /// home page as a shopper browsing, and `event` done once, `eventAfter` seconds in, on a
    /// thread of its own, which then calls `watch` five times a second.
    func underLoad(_ stack: Stack, dispenser: String, seconds: TimeInterval, eventAfter: TimeInterval,
                   _ event: @escaping @Sendable () -> Void, watch: @escaping @Sendable () -> Void = {},
                   made: @escaping @Sendable (Int64, String) -> Void = { _, _ in }) throws -> Load
    {
        let writes = Mutex<[Write]>([])
        let reads = Mutex<[Int]>([])
        let eventAt = Mutex<Date?>(nil)
        let started = Date()
        Stack.together(4) { thread in
            while Date() < started + seconds {
                switch thread {
                case 0:
                    if Date() >= started + eventAfter, eventAt.withLock({ $0 }) == nil {
                        event()
                        eventAt.withLock { $0 = Date() }
                    }
                    watch()
                    Thread.sleep(forTimeInterval: 0.2)
                case 1:
                    reads.withLock { $0.append((try? stack.get("/").status) ?? 0) }
                    Thread.sleep(forTimeInterval: 0.05)
                default:
                    let request = Secrets.token()
                    guard let answer = try? ticket(stack, key: dispenser, request: request) else { continue }
                    writes.withLock { $0.append(Write(at: Date(), status: answer.status, id: answer.id, request: request)) }
                    if answer.status == 201, let id = answer.id, let code = answer.code { made(id, code) }
                    if answer.status != 201 { Thread.sleep(forTimeInterval: 0.1) }
                }
            }
        }
        return Load(writes: writes.withLock { $0 }, reads: reads.withLock { $0 },
                    eventAt: try #require(eventAt.withLock { $0 }))
    }

    /// Every ticket `load` had acknowledged is in the database.
    func expectNoneLost(_ load: Load, url: String, storeId: StoreID) throws {
        let fresh = try AppDatabase.open(url: url, dataKey: .scratch)
        for write in load.writes where write.status == 201 {
            let id = try #require(write.id)
            #expect(try fresh.doors.walkInTicket(id: ReservationID(id), storeId: storeId) != nil, "ticket \(id) was lost")
        }
    }

    @Test("the primary killed under load: a replica takes over, the workers follow, no acknowledged write is lost")
    func failover() throws {
        let deployment = try deploy(hosts: true)
        let (cluster, stack, storeId, dispenser, door) = (deployment.cluster, deployment.stack, deployment.storeId,
                                                          deployment.dispenser, deployment.door)

        let entered = Mutex<[Int64]>([])
        let killed = Mutex<String?>(nil)
        let load = try underLoad(stack, dispenser: dispenser, seconds: 35, eventAfter: 8, {
            killed.withLock { $0 = (try? cluster.killPrimary()) ?? "?" }
        }, made: { id, code in
            if let scanned = try? scan(stack, key: door, code: code), scanned.status == 200, scanned.result == "enter" {
                entered.withLock { $0.append(id) }
                // Out again: the places stay free, so the queue never refuses the next.
                _ = try? scan(stack, key: door, code: code)
            }
        })
        let node = try #require(killed.withLock { $0 })
        let newPrimary = try cluster.primary()
        #expect(newPrimary != node)
        print("cluster failover: primary \(node) killed; \(load.summary); new primary \(newPrimary)")
        #expect(load.longestWithoutWrite < 15, "the writes stopped for \(load.longestWithoutWrite) s")
        // Writes refused meanwhile were told so (503, nothing changed), never left hanging.
        #expect(load.refused.allSatisfy { $0.status == 503 }, "\(Set(load.refused.map(\.status)))")
        // Every read was answered, the primary gone or not.
        #expect(load.reads.count > 50 && load.reads.allSatisfy { $0 == 200 })
        // No acknowledged write is lost: every ticket answered 201 is there, and every entry.
        try expectNoneLost(load, url: cluster.url, storeId: storeId)
        let fresh = try AppDatabase.open(url: cluster.url, dataKey: .scratch)
        for id in entered.withLock({ $0 }) {
            #expect(try fresh.doors.walkInTicket(id: ReservationID(id), storeId: storeId)?.enteredAt != nil, "entry \(id) was lost")
        }
        #expect(load.acknowledged.count > 50 && load.acknowledged.last.map { $0 > load.eventAt } == true)
        // The new primary archives its WAL to the same repository as the old one did.
        #expect(cluster.archives())
    }

    @Test("the capacity holds across both workers; a worker's host lost under load: nginx sends everything to the other, nothing acknowledged is lost")
    func workerHostLost() throws {
        let deployment = try deploy(hosts: true, capacity: 10)
        let (cluster, stack, database, storeId, dispenser, door) = (
            deployment.cluster, deployment.stack, deployment.database, deployment.storeId, deployment.dispenser,
            deployment.door)
        // Thirty walk-ins at once through both workers: nine walk-in places, so nine called.
        let codes = Mutex<[String]>([])
        Stack.together(6) { _ in
            for _ in 0..<5 {
                if let made = try? ticket(stack, key: dispenser), made.status == 201, let code = made.code {
                    codes.withLock { $0.append(code) }
                }
            }
        }
        #expect(codes.withLock { $0 }.count == 30)
        // Every code scanned at once, through both workers: never more inside than the places.
        let results = Mutex<[String]>([])
        let all = codes.withLock { $0 }
        Stack.together(all.count) { index in
            let result = (try? scan(stack, key: door, code: all[index]))?.result ?? "none"
            results.withLock { $0.append(result) }
        }
        let enters = results.withLock { $0 }.filter { $0 == "enter" }.count
        #expect(enters == 9, "\(Dictionary(grouping: results.withLock { $0 }, by: { $0 }).mapValues(\.count))")
        #expect(try database.reservations.liveTraffic(storeId: storeId, now: Date()).peopleInside == 9)

        // Under load, the second worker's host is lost: its processes killed, its cable cut
        // (nginx's packets to it go unanswered, as to a machine switched off).
        let (roomy, roomyDispenser, _) = try store(stack, database, capacity: Self.roomy)
        let load = try underLoad(stack, dispenser: roomyDispenser, seconds: 25, eventAfter: 5, {
            try? cluster.killHost("worker2")
        })
        print("cluster worker host lost: \(load.summary)")
        #expect(load.acknowledged.count > 50 && load.acknowledged.last.map { $0 > load.eventAt + 10 } == true)
        // nginx waits 2 s on a connection to the lost host before asking the other worker, and
        // a transaction the lost worker left open holds its store's lock until the server ends
        // it (3 s).
        #expect(load.longestWithoutWrite < 10, "the writes stopped for \(load.longestWithoutWrite) s")
        // Every page asked for was served: nginx asks the other worker when one does not answer.
        #expect(load.reads.count > 50 && load.reads.allSatisfy { $0 == 200 },
                "\(Dictionary(grouping: load.reads, by: { $0 }).mapValues(\.count))")
        // A ticket the lost worker was making when it died is answered 502 (nginx does not send
        // a write twice): asked again with its request key, it is made, or found made, once.
        #expect(load.refused.count <= 2 && load.refused.allSatisfy { $0.status == 502 || $0.status == 504 },
                "\(load.refused.map(\.status))")
        for write in load.refused {
            let again = try ticket(stack, key: roomyDispenser, request: write.request)
            #expect(again.status == 201, "ticket asked again: \(again.status)")
        }
        try expectNoneLost(load, url: cluster.url, storeId: roomy)
    }

    @Test("every connection to PostgreSQL is encrypted and checked, the workers' and the replicas'; a certificate that does not name the host is refused")
    func tls() throws {
        let deployment = try deploy()
        let cluster = deployment.cluster
        // The workers stay up to the end: their connections are counted below.
        defer { withExtendedLifetime(deployment) {} }
        // Every client connection (the workers', their board feeds', this test's), and both
        // replicas' streams.
        let clients = try cluster.sql("""
            SELECT a.usename, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s ON s.pid = a.pid
            WHERE a.usename = 'clup' OR a.backend_type = 'walsender'
            """)
        #expect(clients.filter { $0.hasPrefix("clup|") }.count >= 3, "\(clients)")
        #expect(clients.filter { $0.hasPrefix("replicator|") }.count == 2, "\(clients)")
        #expect(!clients.isEmpty && clients.allSatisfy { $0.hasSuffix("|t") }, "\(clients)")
        // The same servers under a name their certificates do not give (they name 127.0.0.1).
        let misnamed = cluster.url.replacingOccurrences(of: "127.0.0.1", with: "localhost")
        #expect {
            _ = try AppDatabase.open(url: misnamed, dataKey: .scratch)
        } throws: { error in
            "\(error)".contains("does not match host name \"localhost\"")
        }
    }

    @Test("rows deleted by mistake: restored to a moment before, with every write acknowledged by then and none after")
    func pointInTimeRecovery() throws {
        let deployment = try deploy()
        let (cluster, stack, database, storeId, dispenser) = (
            deployment.cluster, deployment.stack, deployment.database, deployment.storeId, deployment.dispenser)
        try cluster.backup()
        // Walk-in tickets acknowledged (201) through nginx, before and after the moment chosen.
        func tickets(_ count: Int) throws -> [ReservationID] {
            try (0..<count).map { _ in
                let made = try ticket(stack, key: dispenser)
                try Stack.check(made.status == 201, "a ticket was refused (\(made.status))")
                return ReservationID(try #require(made.id))
            }
        }
        let before = try tickets(20)
        Thread.sleep(forTimeInterval: 0.5)
        // The moment, as the primary's clock has it.
        let moment = try #require(try cluster.sql("SELECT clock_timestamp()::text").first)
        Thread.sleep(forTimeInterval: 0.5)
        let after = try tickets(20)
        // The mistake: the store's reservations all deleted, on every node at once.
        try cluster.sql("DELETE FROM reservation WHERE storeId = \(storeId)")
        #expect(try database.doors.walkInTicket(id: before[0], storeId: storeId) == nil)

        let started = Date()
        let restored = try AppDatabase.open(url: try cluster.restore(to: moment), dataKey: .scratch)
        print("cluster point-in-time recovery: restored to \(moment) in "
            + String(format: "%.1f", Date().timeIntervalSince(started)) + " s")
        for id in before {
            #expect(try restored.doors.walkInTicket(id: id, storeId: storeId) != nil, "ticket \(id) made before \(moment) is missing")
        }
        for id in after {
            #expect(try restored.doors.walkInTicket(id: id, storeId: storeId) == nil, "ticket \(id) made after \(moment) is there")
        }
    }

    @Test("etcd lost: no failover, the writes go on")
    func etcdLost() throws {
        let deployment = try deploy()
        let (cluster, stack, dispenser) = (deployment.cluster, deployment.stack, deployment.dispenser)
        let primary = try cluster.primary()
        try Cluster.run(Stack.root + "/scripts/cluster", ["kill-etcd", cluster.directory])
        // Past Patroni's lease (9 s): a primary that could not renew it would have stepped down.
        var statuses: [Int] = []
        let until = Date() + 15
        while Date() < until {
            statuses.append(try ticket(stack, key: dispenser).status)
            Thread.sleep(forTimeInterval: 0.2)
        }
        #expect(statuses.count > 20 && statuses.allSatisfy { $0 == 201 }, "\(Dictionary(grouping: statuses, by: { $0 }).mapValues(\.count))")
        #expect(try cluster.primary() == primary)
    }

    @Test("the primary cut off from etcd and the replicas, the workers still reaching it: no split brain")
    func partition() throws {
        let cluster = try Cluster(hosts: true)
        // The shipped node configuration is one Patroni accepts on such a host, and the
        // check refuses one that is not.
        let shipped = Stack.root + "/nginx/patroni.yml"
        #expect(cluster.accepts(configuration: shipped))
        let broken = cluster.directory + "/broken.yml"
        try String(contentsOfFile: shipped, encoding: .utf8)
            .replacingOccurrences(of: "connect_address: @ADDRESS@:5432", with: "connect_address: localhost:5432")
            .write(toFile: broken, atomically: true, encoding: .utf8)
        #expect(!cluster.accepts(configuration: broken))
        let deployment = try deploy(hosts: true, on: cluster)
        let (stack, storeId, dispenser) = (deployment.stack, deployment.storeId, deployment.dispenser)
        let old = try cluster.primary()

        // What each node's PostgreSQL says it is, sampled throughout: never two primaries.
        let writable = Mutex<[[String]]>([])
        let load = try underLoad(stack, dispenser: dispenser, seconds: 35, eventAfter: 5, {
            try? cluster.partition(old)
        }, watch: {
            if let nodes = try? cluster.writable() { writable.withLock { $0.append(nodes) } }
        })
        let newPrimary = try cluster.primary()
        #expect(newPrimary != old)
        let samples = writable.withLock { $0 }
        #expect(samples.count > 50 && samples.allSatisfy { $0.count <= 1 }, "\(samples.filter { $0.count > 1 })")
        #expect(samples.contains { $0 == [newPrimary] })

        print("cluster partition: \(old) cut off; \(load.summary); new primary \(newPrimary)")
        #expect(load.longestWithoutWrite < 20, "the writes stopped for \(load.longestWithoutWrite) s")
        #expect(load.acknowledged.last.map { $0 > load.eventAt + 10 } == true, "no write after the partition")
        #expect(load.refused.allSatisfy { $0.status == 503 }, "\(Set(load.refused.map(\.status)))")
        #expect(load.reads.count > 50 && load.reads.allSatisfy { $0 == 200 })

        // Healed, the old primary comes back as a replica of the new one, and every ticket
        // acknowledged on either side of the cut is there.
        try cluster.heal(old)
        var roles: [String: String] = [:]
        let rejoinBy = Date() + 60
        repeat {
            Thread.sleep(forTimeInterval: 1)
            roles = (try? cluster.roles()) ?? [:]
        } while Date() < rejoinBy && !["replica", "sync_standby"].contains(roles[old] ?? "")
        #expect(["replica", "sync_standby"].contains(roles[old] ?? ""), "\(roles)")
        #expect(roles[newPrimary] == "leader", "\(roles)")
        try expectNoneLost(load, url: cluster.url, storeId: storeId)
    }
}
