import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// The chain's overview and its regions: an administrator sees every store's live figures on
/// one page, filters a region and exports them; a region's managers manage its stores and see
/// only theirs.
@Suite("Chain overview and regions")
struct ChainOverviewTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let duomo: Store
    let brera: Store
    let navigli: Store

    init() throws {
        (clock, database, app) = try Fixture.start()
        duomo = try database.stores.createStore(Fixture.store("Bottega Duomo", at: Place.milan[0].position),
                                                hours: Fixture.weekdayHours, departments: [])
        brera = try database.stores.createStore(Fixture.store("Mercato Brera", at: GeoPoint(latitude: 45.472, longitude: 9.187),
                                                              capacity: 1),
                                                hours: Fixture.weekdayHours, departments: [])
        navigli = try database.stores.createStore(Fixture.store("Alimentari Navigli", at: GeoPoint(latitude: 45.452, longitude: 9.176)),
                                                  hours: Fixture.weekdayHours, departments: [])
        try Fixture.manager("duomo@example.org", of: duomo.id, in: database, now: clock.now)
        for (email, name, role) in [("admin@example.org", "Alba", Role.admin), ("nord@example.org", "Nora", .customer)] {
            _ = try database.accounts.createUser(email: email, displayName: name, passwordHash: Fixture.passwordHash,
                                                 role: role, now: clock.now, confirmation: nil)
        }
        // Brera holds one person: the first line-up is called, the next two wait.
        for index in 1...3 {
            let user = try database.accounts.createUser(email: "c\(index)@example.org", displayName: "C\(index)",
                                                        passwordHash: Fixture.passwordHash, now: clock.now, confirmation: nil)
            _ = try database.reservations.reserve(ReservationRequest(
                storeId: brera.id, userId: user.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
                requestKey: Secrets.token()), now: clock.now)
        }
    }

    func signedIn(_ email: String, at path: String = "/manage") throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: email)
        try browser.get(path)
        return browser
    }

    /// The store names of the overview's rows, in order.
    func names(_ page: Response) -> [String] {
        page.bodyText.matches(of: #/<th scope="row"><a href="/manage/stores/\d+">([^<]+)</a></th>/#).map { String($0.output.1) }
    }

    /// An administrator makes region Nord with Brera and Navigli from the web.
    func makeNord(_ admin: Browser) throws -> Int64 {
        try admin.get("/manage/groups")
        let created = try admin.post("/manage/groups", [("name", "Nord")])
        #expect(created.status == 303)
        let id = try #require(created.header("Location").flatMap { Int64($0.split(separator: "/")[2].prefix { $0.isNumber }) })
        try admin.get("/manage/groups/\(id)")
        let added = try admin.post("/manage/groups/\(id)/stores", [("store", String(brera.id.rawValue)),
                                                                    ("store", String(navigli.id.rawValue))])
        #expect(added.status == 303 && added.header("Location") == "/manage/groups/\(id)?added=2#stores")
        return id
    }

    @Test("an administrator sees every store's live figures, sorted and filtered by region, and exports them")
    func administratorOverview() throws {
        let admin = try signedIn("admin@example.org")
        #expect(try admin.get("/manage").bodyText.contains("href=\"/manage/overview\""))
        let nord = try makeNord(admin)
        #expect(try admin.post("/manage/groups", [("name", "nord")]).bodyText.contains("There is a region called nord already."))
        #expect(try database.stores.storeChanges(storeId: brera.id).map(ManageArea.changeText).contains("Region:  → Nord"))

        let all = try admin.get("/manage/overview")
        #expect(all.status == 200)
        #expect(names(all) == ["Alimentari Navigli", "Bottega Duomo", "Mercato Brera"])
        let html = all.bodyText
        // Brera holds one: the first line-up is called, two wait behind it.
        #expect(html.contains("<td>Nord</td><td>0 of 1</td><td>3</td>"))
        #expect(names(try admin.get("/manage/overview?sort=waiting")).first == "Mercato Brera")
        #expect(names(try admin.get("/manage/overview?region=\(nord)")) == ["Alimentari Navigli", "Mercato Brera"])
        #expect(names(try admin.get("/manage/overview?region=none")) == ["Bottega Duomo"])
        #expect(try admin.get("/manage/overview?region=\(nord)&sort=nonsense").status == 200)

        let csv = try admin.get("/manage/overview.csv?region=\(nord)")
        #expect(csv.status == 200 && csv.header("Content-Type") == "text/csv; charset=utf-8")
        // Every field quoted, as `CSV.text` writes them; read here without the quotes.
        let lines = csv.bodyText.split(separator: "\r\n", omittingEmptySubsequences: true)
            .map { $0.replacingOccurrences(of: "\"", with: "") }
        #expect(lines.first == "store,name,region,people_inside,capacity,people_waiting,wait_minutes,bookings_today,kiosks,silent_kiosks,light,status")
        #expect(lines.count == 3 && lines.contains { $0.hasPrefix("\(brera.id),Mercato Brera,Nord,0,1,3,") })

        let json = try admin.get("/manage/overview.json")
        struct Answer: Decodable {
            struct Row: Decodable {
                var id: Int64; var name: String; var region: String?; var peopleWaiting: Int; var capacity: Int; var waitMinutes: Int?
            }
            var at: String
            var stores: [Row]
        }
        let answer = try JSONDecoder().decode(Answer.self, from: Data(json.body))
        #expect(answer.stores.map(\.name) == ["Alimentari Navigli", "Bottega Duomo", "Mercato Brera"])
        #expect(answer.stores.last?.region == "Nord" && answer.stores.last?.peopleWaiting == 3)
        #expect(answer.at == "2026-11-18T09:00:00Z")
        #expect(answer.stores.allSatisfy { $0.waitMinutes != nil })
        // Closed at night: no wait is shown.
        clock.advance(12 * 3600)
        let night = try JSONDecoder().decode(Answer.self, from: Data(try admin.get("/manage/overview.json").body))
        #expect(night.stores.count == 3 && night.stores.allSatisfy { $0.waitMinutes == nil })
    }

    @Test("each store's bookings today are counted on its own calendar, not on the chain's")
    func bookingsTodayInEachStoresZone() throws {
        var broadway = Fixture.store("Deli Broadway", at: GeoPoint(latitude: 40.76, longitude: -73.98))
        broadway.timeZone = "America/New_York"
        let store = try database.stores.createStore(
            broadway, hours: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 1440) }, departments: [])
        // 20:00 this Wednesday in New York is 02:00 on Thursday in Milan: today for the store,
        // tomorrow for the chain's first store.
        let evening = Fixture.date(2026, 11, 18, 20, in: try #require(TimeZone(identifier: "America/New_York")))
        let user = try database.accounts.createUser(email: "ny@example.org", displayName: "Ny", passwordHash: "x",
                                                    now: clock.now, confirmation: nil)
        let booked = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: user.id, kind: .booking, people: 1, residenceMinutes: 30, slotStart: evening,
            requestKey: Secrets.token()), now: clock.now)
        guard case .created = booked else { throw RequireError(message: "not booked: \(booked)") }
        let lines = try signedIn("admin@example.org").get("/manage/overview.csv").bodyText
            .split(separator: "\r\n").map { $0.replacingOccurrences(of: "\"", with: "").split(separator: ",", omittingEmptySubsequences: false) }
        let row = try #require(lines.first { $0.first == "\(store.id)" })
        #expect(row[7] == "1", "bookings today: \(row)")
        #expect(lines.filter { $0.first != "\(store.id)" }.dropFirst().allSatisfy { $0[7] == "0" })
    }

    @Test("a region's manager manages its stores and sees only them; a store's manager only theirs; door staff none")
    func managersSeeTheirs() throws {
        let admin = try signedIn("admin@example.org")
        let nord = try makeNord(admin)
        try admin.get("/manage/groups/\(nord)")
        #expect(try admin.post("/manage/groups/\(nord)/managers", [("email", "nord@example.org")]).status == 303)
        #expect(try database.accounts.user(email: "nord@example.org")?.role == .manager)

        let nora = try signedIn("nord@example.org")
        #expect(names(try nora.get("/manage/overview")) == ["Alimentari Navigli", "Mercato Brera"])
        #expect(try nora.get("/manage/stores/\(brera.id)").status == 200)
        #expect(try nora.get("/manage/stores/\(duomo.id)").status == 403)
        #expect(try nora.get("/manage/overview.csv").bodyText.contains("Bottega Duomo") == false)
        #expect(try nora.get("/manage/groups").status == 403)
        // A store added to the region later is theirs at once.
        try database.stores.addToGroup(nord, storeIds: [duomo.id], now: clock.now, loggedAs: .commandLine)
        #expect(try nora.get("/manage/stores/\(duomo.id)").status == 200)

        let duomoManager = try signedIn("duomo@example.org")
        #expect(names(try duomoManager.get("/manage/overview")) == ["Bottega Duomo"])

        try database.accounts.addDoorStaff(storeId: brera.id, email: "c1@example.org", now: clock.now)
        let staff = try signedIn("c1@example.org")
        #expect(try staff.get("/manage/overview").status == 403)

        // Removed from the region, a manager of nothing else is a customer again.
        let nora2 = try #require(try database.accounts.user(email: "nord@example.org"))
        try admin.get("/manage/groups/\(nord)")
        #expect(try admin.post("/manage/groups/\(nord)/managers/remove", [("user", String(nora2.id.rawValue))]).status == 303)
        #expect(try database.accounts.user(email: "nord@example.org")?.role == .customer)
        #expect(try nora.get("/manage/overview").status == 403)
    }

    @Test("a store leaves its region from the region's page; the change is logged")
    func storeLeaves() throws {
        let admin = try signedIn("admin@example.org")
        let nord = try makeNord(admin)
        let removed = try admin.post("/manage/groups/\(nord)/stores/remove", [("store", String(brera.id.rawValue))])
        #expect(removed.status == 303)
        #expect(try database.stores.regions()[brera.id] == nil)
        #expect(try database.stores.storeChanges(storeId: brera.id).map(ManageArea.changeText).contains("Region: Nord → "))
        #expect(try admin.post("/manage/groups/\(nord)/stores/remove", [("store", String(brera.id.rawValue))]).status == 404)
        #expect(try admin.get("/manage/groups/999").status == 404)
    }

    @Test("a region is renamed and deleted from its page: its stores stay, in no region; its manager of nothing is a customer")
    func renameAndDelete() throws {
        let admin = try signedIn("admin@example.org")
        let nord = try makeNord(admin)
        _ = try database.stores.createGroup(name: "Sud", now: clock.now)
        try admin.get("/manage/groups/\(nord)")
        #expect(try admin.post("/manage/groups/\(nord)/managers", [("email", "nord@example.org")]).status == 303)
        // Another region's name, in any case, is refused; what was typed stays in the field.
        let taken = try admin.post("/manage/groups/\(nord)/rename", [("name", "sud")])
        #expect(taken.status == 422 && taken.bodyText.contains("id=\"group-rename-error\"") && taken.bodyText.contains("value=\"sud\""))
        #expect(try admin.post("/manage/groups/\(nord)/rename", [("name", " ")]).status == 422)
        let renamed = try admin.post("/manage/groups/\(nord)/rename", [("name", "Milano Nord")])
        #expect(renamed.header("Location") == "/manage/groups/\(nord)?done=renamed")
        #expect(try admin.get("/manage/groups/\(nord)?done=renamed").bodyText.contains("<h1>Milano Nord</h1>"))
        #expect(try database.stores.storeChanges(storeId: brera.id).map(ManageArea.changeText).contains("Region: Nord → Milano Nord"))

        let deleted = try admin.post("/manage/groups/\(nord)/delete", [])
        #expect(deleted.header("Location") == "/manage/groups?deleted=2")
        let list = try admin.get("/manage/groups?deleted=2").bodyText
        #expect(list.contains("The region is deleted; its 2 stores are in no region now.") && !list.contains("Milano Nord"))
        #expect(try database.stores.regions().isEmpty)
        #expect(try database.stores.storeChanges(storeId: navigli.id).map(ManageArea.changeText).contains("Region: Milano Nord → "))
        #expect(try database.stores.storeDetails(id: brera.id) != nil)
        #expect(try database.accounts.user(email: "nord@example.org")?.role == .customer)
        #expect(try admin.post("/manage/groups/\(nord)/delete", []).status == 404)
        // Only administrators.
        let duomoManager = try signedIn("duomo@example.org")
        let sud = try #require(try database.stores.groups().first?.id)
        #expect(try duomoManager.post("/manage/groups/\(sud)/delete", []).status == 403)
        #expect(try database.stores.group(id: sud) != nil)
    }
}
