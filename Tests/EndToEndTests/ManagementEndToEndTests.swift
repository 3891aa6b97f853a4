import CLupData
import CLupDomain
import CLupSupport
@testable import CLupWeb
import Foundation
import Testing

/// A manager changes a store through the real nginx and worker, and shoppers see it at once.
@Suite("Store management end to end", .serialized)
struct ManagementEndToEndTests {
    @Test("a manager edits a store's capacity and hours in the browser; the store page follows at once; bad input changes nothing")
    func editThroughNginx() throws {
        let stack = try Stack()
        let storeId = try ReservationEndToEndTests.roundTheClockStore(stack)
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        let hash = PasswordHasher().hash("correct horse battery")
        _ = try database.accounts.createUser(email: "boss@example.org", displayName: "Boss", passwordHash: hash, role: .manager,
                                    now: Date(), confirmation: nil)
        try database.accounts.assignStore(storeId: storeId, toManager: "boss@example.org")
        let boss = Client(stack)
        try boss.get("/signin")
        #expect(try boss.post("/signin", [("email", "boss@example.org"), ("password", "correct horse battery")]).status == 303)

        // Capacity 60 → 25, through the form.
        let form = try boss.get("/manage/stores/\(storeId)/edit")
        #expect(form.status == 200)
        var fields: [(String, String)] = []
        for field in ManageArea.editFields {
            // A text field's value, or a list's chosen option.
            let pattern = try Regex(field.choices == nil ? "name=\"\(field.name)\" value=\"([^\"]*)\""
                                        : "(?s)name=\"\(field.name)\".*?<option value=\"([^\"]*)\" selected>")
            fields.append((field.name, form.body.firstMatch(of: pattern)?.output[1].substring.map(String.init) ?? ""))
        }
        fields = fields.map { $0.0 == "capacity" ? ("capacity", "25") : $0 }
        let saved = try boss.post("/manage/stores/\(storeId)/edit", fields)
        #expect(saved.status == 303)
        try stack.waitUntil("the store page shows the new capacity", seconds: 5) {
            (try? stack.get("/stores/\(storeId)").body.contains("of 25</dd>")) == true
        }

        // Hours: closed on every day but today's weekday (UTC), open 00:00–23:00 then.
        try boss.get("/manage/stores/\(storeId)/hours")
        let today = Calendar(identifier: .iso8601).dateComponents(in: TimeZone(identifier: "UTC")!, from: Date()).weekday!
        let isoToday = (today + 5) % 7 + 1
        var hours: [(String, String)] = []
        for weekday in 1...7 {
            let open = weekday == isoToday
            hours += [("opens-\(weekday)-a", open ? "00:00" : ""), ("closes-\(weekday)-a", open ? "23:59" : ""),
                      ("opens-\(weekday)-b", ""), ("closes-\(weekday)-b", "")]
        }
        #expect(try boss.post("/manage/stores/\(storeId)/hours", hours).status == 303)
        try stack.waitUntil("the store page shows the new hours", seconds: 5) {
            (try? stack.get("/stores/\(storeId)").body.contains("<td>Closed</td>")) == true
        }
        // A closed day, two days ahead: shoppers read it with its reason in the coming week.
        let closing = LocalDate(day: Int(Date().timeIntervalSince1970 / 86400) + 2).text
        #expect(try boss.post("/manage/stores/\(storeId)/closures",
                              [("action", "close"), ("date", closing), ("reason", "Inventory")]).status == 303)
        try stack.waitUntil("the store page shows the closed day", seconds: 5) {
            (try? stack.get("/stores/\(storeId)").body.contains("<td>Closed: Inventory</td>")) == true
        }
        // Bad input: nothing changes, and the page says why.
        let bad = try boss.post("/manage/stores/\(storeId)/edit", fields.map { $0.0 == "capacity" ? ("capacity", "0") : $0 })
        #expect(bad.status == 422 && bad.body.contains("Enter a number from 1 to 10000."))
        let badHours = try boss.post("/manage/stores/\(storeId)/hours",
                                     hours.map { $0.0 == "opens-\(isoToday)-a" ? ($0.0, "9") : $0 })
        #expect(badHours.status == 422 && badHours.body.contains("Write times as hours and minutes, like 08:00"))
        #expect(try stack.get("/stores/\(storeId)").body.contains("of 25</dd>"))
        let badDay = try boss.post("/manage/stores/\(storeId)/closures", [("action", "close"), ("date", "31/12")])
        #expect(badDay.status == 422 && badDay.body.contains("Enter a date, like 2026-12-25."))
        #expect(try database.stores.storeChanges(storeId: storeId).map(\.field).sorted() == ["capacity", "closed", "hours"])
    }

    @Test("an admin registers a store in the browser; it is on the shoppers' pages at once; bad input registers nothing")
    func registerThroughNginx() throws {
        let stack = try Stack()
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        _ = try database.accounts.createUser(email: "admin@example.org", displayName: "Alba",
                                    passwordHash: PasswordHasher().hash("correct horse battery"), role: .admin, now: Date(),
                                    confirmation: nil)
        let admin = Client(stack)
        try admin.get("/signin")
        #expect(try admin.post("/signin", [("email", "admin@example.org"), ("password", "correct horse battery")]).status == 303)
        #expect(try admin.get("/manage").body.contains("Register a store"))
        try admin.get("/manage/new-store")
        var fields = [("name", "Bottega del Test"), ("address", "Via Prova 1, 20121 Milano"), ("latitude", "45.4700"),
                      ("longitude", "9.1900"), ("phone", ""), ("timeZone", "Europe/Rome"), ("capacity", "30"),
                      ("walkInPercent", "20"), ("slotMinutes", "15"), ("departments", "Bakery, 10")]
        let bad = try admin.post("/manage/new-store", fields.map { $0.0 == "timeZone" ? ("timeZone", "Mars/Olympus") : $0 })
        #expect(bad.status == 422 && bad.body.contains("Choose a time zone from the list."))
        fields = fields.map { $0.0 == "capacity" ? ("capacity", "30") : $0 }
        let storesBefore = try database.stores.storeCount()
        let zero = try admin.post("/manage/new-store", fields.map { $0.0 == "capacity" ? ("capacity", "0") : $0 })
        #expect(zero.status == 422 && zero.body.contains("Enter a number from 1 to 10000."))
        func departments(_ count: Int) -> [(String, String)] {
            let aisles = (1...count).map { "Aisle \($0), 5" }.joined(separator: "\n")
            return fields.map { $0.0 == "departments" ? ("departments", aisles) : $0 }
        }
        let many = try admin.post("/manage/new-store", departments(51))
        #expect(many.status == 422 && many.body.contains("List at most 50 departments."))
        // 10,000 of them is more than a form may send: nginx answers with the site's page.
        let tooMany = try admin.post("/manage/new-store", departments(10_000))
        #expect(tooMany.status == 413 && tooMany.body.contains("What you sent is larger than CLup accepts."))
        #expect(try database.stores.storeCount() == storesBefore)
        let made = try admin.post("/manage/new-store", fields)
        #expect(made.status == 303)
        let id = try #require(made.header("Location")?.split(separator: "/").dropFirst(2).first.flatMap { Int64($0) }.map { StoreID($0) })
        try stack.waitForStore(id)
        let page = try stack.get("/stores/\(id)").body
        #expect(page.contains("Bottega del Test") && page.contains("Bakery"))
        // The home page, measured from the store's door, lists it first; the wizard offers its departments.
        #expect(try stack.get("/?lat=45.47000&lon=9.19000").body.contains("Bottega del Test"))
        #expect(try admin.get("/stores/\(id)/reserve").body.contains("Bakery"))
        #expect(try database.stores.storeChanges(storeId: id).map(\.after) == ["registered"])
    }
}
