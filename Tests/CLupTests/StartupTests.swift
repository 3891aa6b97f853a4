import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

@Suite("Start-up: assets, schema, demo data, nginx configuration")
struct StartupTests {
    func temporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "clup-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test("asset URLs carry a fingerprint of the content; a missing asset stops start-up")
    func assets() throws {
        let assets = try Assets(publicDirectory: Fixture.root + "/Public")
        #expect(assets.stylesheet.wholeMatch(of: /\/assets\/app\.[0-9a-f]{10}\.css/) != nil)
        #expect(assets.script.wholeMatch(of: /\/assets\/app\.[0-9a-f]{10}\.js/) != nil)
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(throws: Assets.LoadError.self) { try Assets(publicDirectory: directory) }
    }

    @Test("the schema refuses what no store may be")
    func schemaChecks() throws {
        let database = try Fixture.database()
        let valid = Fixture.store("Ok", at: .milanCentre)
        var noCapacity = valid
        noCapacity.capacity = 0
        var emptyName = valid
        emptyName.name = ""
        var offTheMap = valid
        offTheMap.latitude = 123
        for store in [noCapacity, emptyName, offTheMap] {
            #expect(throws: (any Error).self) { try database.stores.createStore(store, hours: [], departments: []) }
        }
        // Hours whose close is not after their opening, and a department twice, are refused
        // and the whole store with them.
        #expect(throws: (any Error).self) {
            try database.stores.createStore(valid, hours: [OpeningInterval(weekday: 1, opens: 600, closes: 500)], departments: [])
        }
        #expect(throws: (any Error).self) {
            try database.stores.createStore(valid, hours: [], departments: [("Bakery", 5), ("Bakery", 6)])
        }
        #expect(try database.stores.storeCount() == 0)
    }

    @Test("the demo has 30+ stores in Milan with varied capacity, hours and departments")
    func demo() throws {
        let database = try Fixture.database()
        let now = Fixture.wednesdayMorning
        #expect(try DemoData.seed(database, now: now, timeZone: Fixture.rome, weeks: 1) >= 30)
        #expect(try DemoData.seed(database, now: now, timeZone: Fixture.rome) == 0)  // idempotent
        // A week of past visits, kept as statistics: every store has busy hours to show.
        for store in database.board.entries().map(\.store) {
            #expect(try database.statistics.storeHours(storeId: store.id, from: 0, to: Int.max / 7200).count > 40, "\(store.name)")
        }
        let listings = try database.stores.storeListings()
        #expect(listings.count >= 30)
        #expect(Set(listings.map(\.store.name)).count == listings.count)
        for listing in listings {
            let store = listing.store
            #expect((45.39...45.54).contains(store.latitude) && (9.04...9.28).contains(store.longitude), "\(store.name)")
            #expect((20...200).contains(store.capacity))
            let details = try #require(try database.stores.storeDetails(id: store.id))
            #expect((4...10).contains(details.departments.count), "\(store.name)")
        }
        let capacities = listings.map(\.store.capacity)
        #expect(capacities.min()! < 40 && capacities.max()! > 180)
        let states = listings.map { $0.openingHours.state(at: now) }
        #expect(states.filter { !$0.isOpen }.count >= 1)
        // One store is closed all of today, and one is still open at 01:00 tonight.
        #expect(listings.contains { $0.openingHours.intervals(on: now).isEmpty })
        #expect(listings.contains { $0.openingHours.state(at: Fixture.date(2026, 11, 19, 1)).isOpen })
    }

    @Test("the nginx template is filled completely, or not at all")
    func nginxConfig() throws {
        let template = try String(contentsOfFile: Fixture.root + "/nginx/clup-local.conf.in", encoding: .utf8)
        #expect(throws: NginxConfig.RenderError.self) { try NginxConfig.render(template: template, values: ["PORT": "1"]) }
        let values = ["PORT", "RUN_DIR", "UPSTREAM", "ENTRANCE_UPSTREAM", "PUBLIC_DIR", "NGINX_DIR", "LEAFLET_DIR", "ACCESS_LOG", "MAX_BODY",
                      "TILE_ORIGIN", "UNLIMITED_CLIENT", "NGINX_USER"]
        let text = try NginxConfig.render(template: template, values: Dictionary(uniqueKeysWithValues: values.map { ($0, "x") }))
        #expect(text.firstMatch(of: /@[A-Z][A-Z_]*@/) == nil)  // "@api_busy" is a named location, not a placeholder
    }

    @Test("the tile server's origin goes into the Content-Security-Policy")
    func tileOrigin() {
        #expect(NginxConfig.imageOrigin(ofTileURL: "https://tile.openstreetmap.org/{z}/{x}/{y}.png")
            == "https://tile.openstreetmap.org")
        #expect(NginxConfig.imageOrigin(ofTileURL: "https://{s}.tiles.example.org/{z}/{x}/{y}.png")
            == "https://*.tiles.example.org")
        #expect(NginxConfig.imageOrigin(ofTileURL: "/tiles/{z}/{x}/{y}.png") == "'self'")
    }

    @Test("a WAL grown past its limit is checkpointed and cut back to nothing; a small one is left alone")
    func walTruncated() throws {
        try Fixture.withDatabaseFile { database, path in try walTruncated(database, path: path) }
    }

    private func walTruncated(_ database: AppDatabase, path: String) throws {
        func walSize() throws -> Int { try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? -1 }
        #expect(try database.checkpointIfLarge() == nil)
        // A burst: 24 MB written in one transaction. SQLite's own checkpoints copy it back into
        // the database, but leave the file its size.
        try database.writer.write { db in
            try db.execute(sql: "CREATE TABLE burst (data BLOB)")
            for _ in 0..<24 { try db.execute(sql: "INSERT INTO burst VALUES (randomblob(1048576))") }
        }
        #expect(try walSize() > AppDatabase.walSizeLimit)
        let before = try #require(try database.checkpointIfLarge())
        #expect(before > AppDatabase.walSizeLimit)
        #expect(try walSize() == 0)
        #expect(try database.reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM burst") } == 24)
    }

    @Test("the WAL is checkpointed beside the writer: after the first call the writer's commits never do it")
    func checkpointAside() throws {
        try Fixture.withDatabaseFile { database, _ in try checkpointAside(database) }
    }

    private func checkpointAside(_ database: AppDatabase) throws {
        #expect(try database.writerAutocheckpoint() == 1000)  // SQLite's own, until asked
        try database.checkpointAside()
        #expect(try database.writerAutocheckpoint() == 0)
        // 3,000 pages through the WAL, in commits of 100: none of them copies it back.
        try database.writer.write { db in try db.execute(sql: "CREATE TABLE burst (data BLOB)") }
        for _ in 0..<30 {
            try database.writer.write { db in
                for _ in 0..<100 { try db.execute(sql: "INSERT INTO burst VALUES (randomblob(4000))") }
            }
        }
        let waiting = try #require(try database.checkpointAside())
        #expect(waiting.frames > 3000 && waiting.copied == waiting.frames)
        // Nothing new: nothing to copy, and the rows are all there.
        #expect(try database.checkpointAside().map { $0.frames == $0.copied } == true)
        #expect(try database.reader.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM burst") } == 3000)
    }
}
