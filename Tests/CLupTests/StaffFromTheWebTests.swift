import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// A manager enrols their store's kiosks from its page, and an administrator adds and removes
/// its managers; every action goes into the store's change log with who made it.
@Suite("Staff from the web")
struct StaffFromTheWebTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let store: Store
    let other: Store

    init() throws {
        (clock, database, app) = try Fixture.start()
        store = try database.stores.createStore(Fixture.store("Bottega Duomo", at: Place.milan[0].position),
                                         hours: Fixture.weekdayHours, departments: [])
        other = try database.stores.createStore(Fixture.store("Mercato Brera", at: GeoPoint(latitude: 45.47, longitude: 9.19)),
                                         hours: Fixture.weekdayHours, departments: [])
        try Fixture.manager("boss@example.org", of: store.id, in: database, now: clock.now)
        _ = try database.accounts.createUser(email: "admin@example.org", displayName: "Alba", passwordHash: Fixture.passwordHash,
                                    role: .admin, now: clock.now, confirmation: nil)
    }

    /// Signed in, on the store's page (its forms' token at hand).
    func signedIn(_ email: String) throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: email)
        try browser.get("/manage/stores/\(store.id)")
        return browser
    }

    func changes(_ storeId: StoreID) throws -> [String] {
        try database.stores.storeChanges(storeId: storeId).map { "\($0.by ?? "-"): \(ManageArea.changeText($0))" }
    }

    @Test("a manager enrols a kiosk: its key shown once, as text and a QR code, working at once, and logged")
    func enrol() throws {
        let boss = try signedIn("boss@example.org")
        let page = try boss.get("/manage/stores/\(store.id)").bodyText
        #expect(page.contains(#"<form method="post" action="/manage/stores/\#(store.id)/kiosks" class="stack">"#))
        #expect(!page.contains("Add a manager"))  // managers are the administrator's to change
        let enrolled = try boss.post("/manage/stores/\(store.id)/kiosks", [("label", "  Entrance left "), ("role", "door")])
        #expect(enrolled.status == 200 && enrolled.header("Cache-Control") == "no-store")
        #expect(enrolled.header("Referrer-Policy") == "no-referrer")
        let html = enrolled.bodyText
        #expect(html.contains("Kiosk “Entrance left” enrolled"))
        let key = try #require(html.firstMatch(of: /<code class="device-key">([A-Za-z0-9_-]{43})<\/code>/)?.1)
        #expect(html.contains(#"<svg viewBox="0 0 "#) && html.contains(#"aria-label="The device key as a QR code""#))
        let kiosk = try #require(try database.accounts.kiosk(key: String(key)))
        #expect(kiosk.storeId == store.id && kiosk.label == "Entrance left" && kiosk.role == .door)
        #expect(try changes(store.id) == ["Boss: Kiosk: Entrance left (door) → enrolled"])
        // The key is not shown again: the store page lists the kiosk, without it.
        let again = try boss.get("/manage/stores/\(store.id)").bodyText
        #expect(again.contains("<td>Entrance left</td>") && !again.contains(String(key)))
        // Revoked from the same page: refused at once.
        try boss.post("/manage/stores/\(store.id)/kiosks/revoke", [("kiosk", String(kiosk.id))])
        #expect(try database.accounts.kiosk(key: String(key)) == nil)
        #expect(try changes(store.id).first == "Boss: Kiosk: Entrance left (door) → revoked")
    }

    @Test("a kiosk without a name, with a name too long or without a role is refused, and nothing is enrolled")
    func enrolRefused() throws {
        let boss = try signedIn("boss@example.org")
        for (fields, message) in [
            ([("label", " "), ("role", "door")], "Give the kiosk a name of up to 60 characters."),
            ([("label", String(repeating: "x", count: 61)), ("role", "door")], "Give the kiosk a name of up to 60 characters."),
            ([("label", "Tickets"), ("role", "printer")], "Choose what the kiosk does."),
        ] {
            let refused = try boss.post("/manage/stores/\(store.id)/kiosks", fields)
            #expect(refused.status == 422 && refused.bodyText.contains(message), "\(fields)")
        }
        #expect(try database.accounts.kiosks(storeId: store.id).isEmpty && (try changes(store.id)).isEmpty)
        // Another store's manager may not enrol one here.
        #expect(try boss.post("/manage/stores/\(other.id)/kiosks", [("label", "Door"), ("role", "door")]).status == 403)
        #expect(try database.accounts.kiosks(storeId: other.id).isEmpty)
    }

    @Test("an administrator adds and removes a store's managers by email; a customer becomes a manager; all logged")
    func managers() throws {
        _ = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada", passwordHash: Fixture.passwordHash,
                                    now: clock.now, confirmation: nil)
        let admin = try signedIn("admin@example.org")
        let page = try admin.get("/manage/stores/\(store.id)").bodyText
        #expect(page.contains("Boss · boss@example.org") && page.contains("Add a manager"))
        let added = try admin.post("/manage/stores/\(store.id)/managers", [("email", " ADA@example.org ")])
        #expect(added.status == 303 && added.header("Location") == "/manage/stores/\(store.id)?manager=added#managers")
        let ada = try #require(try database.accounts.user(email: "ada@example.org"))
        #expect(try ada.role == .manager && database.accounts.isManager(userId: ada.id, of: store.id))
        #expect(try admin.get("/manage/stores/\(store.id)?manager=added").bodyText.contains("The manager is added"))
        // Already one, or no such account: said, and nothing changes.
        let already = try admin.post("/manage/stores/\(store.id)/managers", [("email", "boss@example.org")])
        #expect(already.status == 422 && already.bodyText.contains("boss@example.org already manages this store."))
        let unknown = try admin.post("/manage/stores/\(store.id)/managers", [("email", "nobody@example.org")])
        #expect(unknown.status == 422 && unknown.bodyText.contains("No account has that email address"))
        #expect(unknown.bodyText.contains(#"value="nobody@example.org" aria-invalid="true""#))
        // Removed from one of two stores: still a manager, of the other.
        try database.accounts.assignStore(storeId: other.id, toManager: "ada@example.org")
        #expect(try admin.post("/manage/stores/\(other.id)/managers/remove", [("user", String(ada.id.rawValue))]).status == 303)
        #expect(try database.accounts.user(email: "ada@example.org")?.role == .manager)
        // Removed from the last: the store is no longer theirs, and the account is a customer's again.
        let removed = try admin.post("/manage/stores/\(store.id)/managers/remove", [("user", String(ada.id.rawValue))])
        #expect(removed.status == 303)
        #expect(try !database.accounts.isManager(userId: ada.id, of: store.id))
        #expect(try database.accounts.user(email: "ada@example.org")?.role == .customer)
        #expect(try signedIn("ada@example.org").get("/manage").status == 403)
        #expect(try admin.post("/manage/stores/\(store.id)/managers/remove", [("user", String(ada.id.rawValue))]).status == 404)
        #expect(try changes(store.id) == ["Alba: Manager: ada@example.org → removed", "Alba: Manager: ada@example.org → added"])
        // An administrator managing a store stays an administrator when removed from it.
        let adminId = try #require(try database.accounts.user(email: "admin@example.org")).id
        try database.accounts.assignStore(storeId: store.id, toManager: "admin@example.org")
        #expect(try database.accounts.removeManager(storeId: store.id, userId: adminId, now: clock.now, loggedAs: .commandLine))
        #expect(try database.accounts.user(email: "admin@example.org")?.role == .admin)
        // A manager cannot change managers, even of their own store.
        let boss = try signedIn("boss@example.org")
        #expect(try boss.post("/manage/stores/\(store.id)/managers", [("email", "ada@example.org")]).status == 403)
    }
}
