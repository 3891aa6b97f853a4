import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Door staff with accounts of their own: a store's managers name them; they open only their
/// stores' door consoles, on the site or on a door kiosk with their own PIN; the door log names
/// them.
@Suite("Door staff")
struct DoorStaffTests {
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
        try Fixture.manager("other-boss@example.org", of: other.id, in: database, now: clock.now)
        for (email, name) in [("gianni@example.org", "Gianni Porta"), ("lucia@example.org", "Lucia Banchi")] {
            _ = try database.accounts.createUser(email: email, displayName: name, passwordHash: Fixture.passwordHash,
                                                 now: clock.now, confirmation: nil)
        }
        // Ticket 1 at the store: called at once, to be let in by number.
        let customer = try database.accounts.createUser(email: "c1@example.org", displayName: "C1",
                                                        passwordHash: Fixture.passwordHash, now: clock.now, confirmation: nil)
        _ = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: customer.id, kind: .lineUp, people: 1, residenceMinutes: 30, travelMode: .walking,
            requestKey: Secrets.token()), now: clock.now)
    }

    func signedIn(_ email: String, at path: String) throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: email)
        try browser.get(path)
        return browser
    }

    /// The store's manager names `email` door staff from the store's page.
    func addDoorStaff(_ email: String) throws -> Response {
        let boss = try signedIn("boss@example.org", at: "/manage/stores/\(store.id)")
        return try boss.post("/manage/stores/\(store.id)/door-staff", [("email", email)])
    }

    /// A door kiosk of the store, enrolled in a new browser.
    func doorKiosk(label: String = "Entrance left") throws -> Browser {
        let key = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: store.id, label: label, key: key, role: .door, now: clock.now)
        let kiosk = Browser(app, address: "192.0.2.77")
        try kiosk.get("/kiosk")
        #expect(try kiosk.post("/kiosk/enrol", [("key", key)]).status == 303)
        return kiosk
    }

    func user(_ email: String) throws -> User {
        try require(try database.accounts.user(email: email))
    }

    @Test("a manager names door staff; the account opens its store's door console and nothing else of the store's, or of another's")
    func onlyTheirConsoles() throws {
        let added = try addDoorStaff("Gianni@Example.org")
        #expect(added.status == 303 && added.header("Location") == "/manage/stores/\(store.id)?doorStaff=added#door-staff")
        #expect(try user("gianni@example.org").role == .staff)
        // Twice is said, and an address with no account is refused.
        let again = try addDoorStaff("gianni@example.org")
        #expect(again.status == 422 && again.bodyText.contains("gianni@example.org already runs this store&#39;s door."))
        let nobody = try addDoorStaff("nobody@example.org")
        #expect(nobody.status == 422 && nobody.bodyText.contains("No account has that email address"))
        let boss = try signedIn("boss@example.org", at: "/manage/stores/\(store.id)")
        let storePage = try boss.get("/manage/stores/\(store.id)").bodyText
        #expect(storePage.contains("Gianni Porta · gianni@example.org · <span class=\"fine\">no PIN yet: cannot sign in on a kiosk</span>"))
        #expect(try database.stores.storeChanges(storeId: store.id).map(ManageArea.changeText).contains("Door staff: gianni@example.org → added"))

        let gianni = try signedIn("gianni@example.org", at: "/manage")
        let list = try gianni.get("/manage")
        #expect(list.status == 200 && list.bodyText.contains("Door consoles"))
        #expect(list.bodyText.contains("href=\"/manage/stores/\(store.id)/door\""))
        #expect(!list.bodyText.contains("href=\"/manage/stores/\(store.id)\""))
        let console = try gianni.get("/manage/stores/\(store.id)/door")
        #expect(console.status == 200 && console.bodyText.contains("Door: Bottega Duomo"))
        #expect(console.bodyText.contains("<a href=\"/manage\">← Your stores</a>"))
        // Everything else of the store's is its managers', and another store's door is not theirs.
        for path in ["/manage/stores/\(store.id)", "/manage/stores/\(store.id)/stats", "/manage/stores/\(store.id)/edit",
                     "/manage/stores/\(store.id)/hours", "/manage/stores/\(other.id)/door", "/manage/new-store"]
        {
            #expect(try gianni.get(path).status == 403, "\(path)")
        }
        #expect(try gianni.post("/manage/stores/\(store.id)/door-staff", [("email", "lucia@example.org")]).status == 403)
        #expect(try gianni.post("/manage/stores/\(store.id)/staff-pin", [("pin", "246810")]).status == 403)
        #expect(try gianni.post("/manage/stores/\(other.id)/door",
                                [("action", "admit"), ("number", "1"), ("reason", "cracked screen")]).status == 403)

        // On the console, what they do is done and logged with their name.
        let admitted = try gianni.post("/manage/stores/\(store.id)/door",
                                       [("action", "admit"), ("number", "1"), ("reason", "cracked screen")])
        #expect(admitted.status == 200 && admitted.bodyText.contains("Ticket 1 is in (1 person)."))
        let log = try boss.get("/manage/stores/\(store.id)/door").bodyText
        #expect(log.contains("<td>let in by number</td><td>1</td><td>Gianni Porta</td><td>cracked screen</td>"))

        // Another store's manager cannot name or remove this store's door staff.
        let otherBoss = try signedIn("other-boss@example.org", at: "/manage/stores/\(other.id)")
        #expect(try otherBoss.post("/manage/stores/\(store.id)/door-staff", [("email", "lucia@example.org")]).status == 403)
        #expect(try otherBoss.post("/manage/stores/\(store.id)/door-staff/remove",
                                   [("user", String(try user("gianni@example.org").id.rawValue))]).status == 403)
    }

    @Test("door staff set their own PIN on their account page, giving their password; a customer has no such form")
    func ownPin() throws {
        let lucia = try signedIn("lucia@example.org", at: "/account")
        #expect(!(try lucia.get("/account").bodyText.contains("action=\"/account/door-pin\"")))
        #expect(try lucia.post("/account/door-pin", [("pin", "246810"), ("pinAgain", "246810"),
                                                    ("password", "correct horse battery")]).status == 403)

        #expect(try addDoorStaff("gianni@example.org").status == 303)
        let gianni = try signedIn("gianni@example.org", at: "/account")
        let page = try gianni.get("/account").bodyText
        #expect(page.contains("You have no PIN yet: set one to sign in on the door kiosks."))
        #expect(page.contains("<a href=\"/manage/stores/\(store.id)/door\">Door: Bottega Duomo</a>"))
        func set(_ pin: String, again: String? = nil, password: String = "correct horse battery") throws -> Response {
            try gianni.post("/account/door-pin", [("pin", pin), ("pinAgain", again ?? pin), ("password", password)])
        }
        let wrongPassword = try set("246810", password: "not my password")
        #expect(wrongPassword.status == 422)
        #expect(try set("12345").bodyText.contains("The staff PIN must be 6 to 12 digits."))
        #expect(try set("246810", again: "246811").bodyText.contains("The two PINs are not the same."))
        #expect(try database.accounts.doorPinSetAt(userId: try user("gianni@example.org").id) == nil)
        let saved = try set("246810")
        #expect(saved.status == 303 && saved.header("Location") == "/account?saved=doorPin#door")
        let after = try gianni.get("/account?saved=doorPin").bodyText
        #expect(after.contains("Your PIN is set.") && after.contains("Your PIN was set today at 10:00."))
        let hash = try require(try database.accounts.doorPinHash(userId: try user("gianni@example.org").id, storeId: store.id))
        #expect(hash.hasPrefix("$argon2id$") && PasswordHasher().verify("246810", against: hash))
        // Only for the stores they are door staff of.
        #expect(try database.accounts.doorPinHash(userId: try user("gianni@example.org").id, storeId: other.id) == nil)
    }

    @Test("on a door kiosk, door staff choose their name and give their own PIN; the log names them; removing them ends it")
    func kioskSignIn() throws {
        #expect(try addDoorStaff("gianni@example.org").status == 303)
        #expect(try addDoorStaff("lucia@example.org").status == 303)
        let gianniId = try user("gianni@example.org").id
        try database.accounts.setDoorPin(userId: gianniId, pinHash: PasswordHasher().hash("246810"), now: clock.now)
        let kiosk = try doorKiosk()
        // Only those with a PIN are offered; the store has no shared PIN, so only this form.
        let page = try kiosk.get("/kiosk/staff").bodyText
        #expect(page.contains("<option value=\"\(gianniId.rawValue)\">Gianni Porta</option>"))
        #expect(!page.contains("Lucia Banchi") && !page.contains("name=\"staff\""))

        let unchosen = try kiosk.post("/kiosk/staff", [("person", ""), ("pin", "246810")])
        #expect(unchosen.status == 422 && unchosen.bodyText.contains("Choose your name"))
        // Lucia has no PIN; someone else's account is no way in either.
        let luciaId = try user("lucia@example.org").id
        #expect(try kiosk.post("/kiosk/staff", [("person", String(luciaId.rawValue)), ("pin", "246810")]).status == 403)
        let boss = try user("boss@example.org").id
        #expect(try kiosk.post("/kiosk/staff", [("person", String(boss.rawValue)), ("pin", "246810")]).status == 403)
        let wrong = try kiosk.post("/kiosk/staff", [("person", String(gianniId.rawValue)), ("pin", "135790")])
        #expect(wrong.status == 403 && wrong.bodyText.contains("That is not your PIN."))
        let right = try kiosk.post("/kiosk/staff", [("person", String(gianniId.rawValue)), ("pin", "246810")])
        #expect(right.status == 303 && right.header("Location") == "/kiosk/door")
        let console = try kiosk.get("/kiosk/door")
        #expect(console.status == 200 && console.bodyText.contains("Signed in as Gianni Porta."))
        let admitted = try kiosk.post("/kiosk/door", [("action", "admit"), ("number", "1"), ("reason", "cracked screen")])
        #expect(admitted.status == 200 && admitted.bodyText.contains("Ticket 1 is in (1 person)."))
        let log = try database.doors.doorLog(storeId: store.id)
        #expect(log.first?.staff == .atKiosk(name: "Gianni Porta", kiosk: "Entrance left"))
        #expect(try database.reading { try $0.value("SELECT userId FROM doorAction WHERE action = 'admit'", as: UserID.self) }
                == gianniId)

        // A new PIN ends the pass made with the old one.
        try database.accounts.setDoorPin(userId: gianniId, pinHash: PasswordHasher().hash("97531086"), now: clock.now)
        #expect(try kiosk.get("/kiosk/door").header("Location") == "/kiosk/staff")
        #expect(try kiosk.post("/kiosk/staff", [("person", String(gianniId.rawValue)), ("pin", "97531086")]).status == 303)
        #expect(try kiosk.get("/kiosk/door").status == 200)

        // Removed from the store: the pass ends at once, the name leaves the kiosk, and an
        // account named for no store is a customer's again.
        let manager = try signedIn("boss@example.org", at: "/manage/stores/\(store.id)")
        let removed = try manager.post("/manage/stores/\(store.id)/door-staff/remove", [("user", String(gianniId.rawValue))])
        #expect(removed.status == 303)
        #expect(try kiosk.post("/kiosk/door", [("action", "letOut"), ("number", "1"), ("reason", "left")]).status == 403)
        #expect(!(try kiosk.get("/kiosk/staff").bodyText.contains("Gianni Porta")))
        #expect(try user("gianni@example.org").role == .customer)
        #expect(try user("lucia@example.org").role == .staff)
        #expect(try database.stores.storeChanges(storeId: store.id).map(ManageArea.changeText)
                .contains("Door staff: gianni@example.org → removed"))
    }

    @Test("security: wrong own PINs are throttled per person across kiosks, as the shared PIN is per store")
    func throttled() throws {
        #expect(try addDoorStaff("gianni@example.org").status == 303)
        let gianniId = try user("gianni@example.org").id
        try database.accounts.setDoorPin(userId: gianniId, pinHash: PasswordHasher().hash("246810"), now: clock.now)
        let kiosk = try doorKiosk()
        try kiosk.get("/kiosk/staff")
        var statuses: [Int] = []
        for attempt in 0..<6 {
            statuses.append(try kiosk.post("/kiosk/staff", [("person", String(gianniId.rawValue)),
                                                            ("pin", String(100_000 + attempt))]).status)
        }
        #expect(statuses == [403, 403, 403, 403, 403, 429])
        // Even the right PIN waits its turn.
        let waiting = try kiosk.post("/kiosk/staff", [("person", String(gianniId.rawValue)), ("pin", "246810")])
        #expect(waiting.status == 429 && waiting.header("Retry-After") != nil)
    }

    @Test("a manager also named door staff elsewhere becomes door staff, not a customer, when their last store goes")
    func managerToStaff() throws {
        let admin = try database.accounts.createUser(email: "admin@example.org", displayName: "Alba",
                                                     passwordHash: Fixture.passwordHash, role: .admin, now: clock.now,
                                                     confirmation: nil)
        try database.accounts.addDoorStaff(storeId: store.id, email: "other-boss@example.org", now: clock.now)
        #expect(try user("other-boss@example.org").role == .manager)
        let otherBoss = try user("other-boss@example.org")
        #expect(try database.accounts.removeManager(storeId: other.id, userId: otherBoss.id, now: clock.now,
                                                    loggedAs: .user(admin.id)))
        #expect(try user("other-boss@example.org").role == .staff)
        // Named a manager again, door staff become a manager.
        try database.accounts.assignStore(storeId: other.id, toManager: "other-boss@example.org")
        #expect(try user("other-boss@example.org").role == .manager)
    }
}
