import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// An admin registers a store in the browser: every field checked, the store then on the
/// shoppers' pages, closed until its hours are set, and the registration recorded.
@Suite("Registering a store")
struct StoreRegistrationTests {
    let database: AppDatabase
    let app: App

    init() throws {
        database = try Fixture.database()
        app = try Fixture.app(database: database)
        for (email, role) in [("admin@example.org", Role.admin), ("boss@example.org", .manager)] {
            _ = try database.accounts.createUser(email: email, displayName: "Alba", passwordHash: Fixture.passwordHash,
                                        role: role, now: Fixture.wednesdayMorning, confirmation: nil)
        }
    }

    func signedIn(_ email: String) throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: email)
        try browser.get("/manage/new-store")
        return browser
    }

    func form(_ changes: [String: String] = [:]) -> [(String, String)] {
        var values = ["name": "Bottega Nuova", "address": "Via Nuova 1, 20121 Milano", "latitude": "45.4700",
                      "longitude": "9.1900", "phone": "", "timeZone": "Europe/Rome", "capacity": "40",
                      "walkInPercent": "25", "slotMinutes": "30", "departments": "Bakery, 10\nFruit & veg, 6\n"]
        values.merge(changes) { $1 }
        return values.map { ($0.key, $0.value) }.sorted { $0.0 < $1.0 }
    }

    @Test("an admin registers a store: it is on the shoppers' pages at once, closed until its hours are set")
    func register() throws {
        let admin = try signedIn("admin@example.org")
        #expect(try admin.get("/manage").bodyText.contains("Register a store"))
        let saved = try admin.post("/manage/new-store", form())
        #expect(saved.status == 303)
        let location = try require(saved.header("Location"))
        #expect(location.hasSuffix("/hours?registered=1"))
        #expect(try admin.get(location).bodyText.contains("Bottega Nuova is registered. Set its opening hours: until then "
            + "it shows as closed."))
        let store = try require(database.board.entries().first { $0.store.name == "Bottega Nuova" })
        #expect(store.store.capacity == 40 && store.store.walkInPercent == 25 && store.store.slotMinutes == 30)
        // The rules not given take their usual values; the slot capacity is worked out (30 online places × 30 min / 120).
        #expect(store.store.slotCapacity == 7 && store.store.entryBeforeMinutes == 10
            && store.store.entryAfterMinutes == 15 && store.store.callGraceMinutes == 10)
        #expect(store.definition.departments.map(\.name) == ["Bakery", "Fruit & veg"])
        #expect(store.hours.intervals.isEmpty)
        let page = try Browser(app).get("/stores/\(store.store.id)")
        #expect(page.status == 200 && page.bodyText.contains("Bottega Nuova") && page.bodyText.contains("Closed"))
        #expect(try database.stores.storeChanges(storeId: store.store.id).map(\.after) == ["registered"])
    }

    @Test("the rules as given: people per slot, the entry window and the time to reach the door")
    func rules() throws {
        let admin = try signedIn("admin@example.org")
        let form = try admin.get("/manage/new-store").bodyText
        #expect(form.contains("<input id=\"entryAfterMinutes\" name=\"entryAfterMinutes\" value=\"15\""))
        #expect(try admin.post("/manage/new-store", self.form(["slotCapacity": "3", "entryBeforeMinutes": "5",
                                                                "entryAfterMinutes": "20", "callGraceMinutes": "12"]))
            .status == 303)
        let store = try require(database.board.entries().first).store
        #expect(store.slotCapacity == 3 && store.entryBeforeMinutes == 5 && store.entryAfterMinutes == 20
            && store.callGraceMinutes == 12)
    }

    @Test("every field is checked with its reason, and nothing is registered; only admins may register")
    func refusals() throws {
        let admin = try signedIn("admin@example.org")
        let refused = try admin.post("/manage/new-store", form([
            "name": "", "latitude": "100", "longitude": "east", "timeZone": "Mars/Olympus", "capacity": "0",
            "slotMinutes": "17", "departments": "Bakery, 10\nbakery, 12",
        ]))
        #expect(refused.status == 422)
        let html = refused.bodyText
        for (field, message) in [
            ("name", "This cannot be empty."), ("latitude", "Enter a latitude from -90 to 90, like 45.4642."),
            ("longitude", "Enter a longitude from -180 to 180, like 9.1900."), ("timeZone", "Choose a time zone from the list."),
            ("capacity", "Enter a number from 1 to 10000."), ("slotMinutes", "Choose a slot length from the list."),
            ("departments", "Line 2: bakery is listed twice."),
        ] {
            #expect(html.contains("<p class=\"field-error\" id=\"\(field)-error\">\(message)</p>"), "\(field)")
        }
        let rules = try admin.post("/manage/new-store", form(["slotCapacity": "0", "entryBeforeMinutes": "61",
                                                              "entryAfterMinutes": "", "callGraceMinutes": "soon"]))
        #expect(rules.status == 422)
        for (field, message) in [("slotCapacity", "Enter a number from 1 to 10000."),
                                 ("entryBeforeMinutes", "Enter a number from 0 to 60."),
                                 ("entryAfterMinutes", "Enter a whole number."),
                                 ("callGraceMinutes", "Enter a whole number.")] {
            #expect(rules.bodyText.contains("<p class=\"field-error\" id=\"\(field)-error\">\(message)</p>"), "\(field)")
        }
        let many = (1...51).map { "Department \($0), 5" }.joined(separator: "\n")
        #expect(try admin.post("/manage/new-store", form(["departments": many])).bodyText.contains("List at most 50 departments."))
        #expect(try admin.post("/manage/new-store", form(["departments": "Bakery ten"])).bodyText
            .contains("Line 1: write a department&#39;s name"))
        #expect(database.board.entries().isEmpty)

        let manager = try signedIn("boss@example.org")
        #expect(try manager.get("/manage/new-store").status == 403)
        #expect(try manager.post("/manage/new-store", form()).status == 403)
        #expect(!(try manager.get("/manage").bodyText.contains("Register a store")))
        #expect(database.board.entries().isEmpty)
    }
}
