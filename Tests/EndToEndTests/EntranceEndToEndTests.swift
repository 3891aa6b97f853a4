@testable import CLupData
import CLupDomain
import CLupSupport
import CLupWeb
import Foundation
import GRDB
import Testing

/// The store entrance through real nginx and the real worker, on the real clock: a kiosk
/// enrolled with a key from `clup admin enrol-kiosk`, walk-in tickets, scans, calling, and
/// many scans at once.
@Suite("The entrance end to end", .serialized)
struct EntranceEndToEndTests {
    /// A store open round the clock in UTC.
    static func store(_ stack: Stack, name: String, capacity: Int, walkInPercent: Int, slotCapacity: Int? = nil) throws
        -> StoreID
    {
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        let store = try database.stores.createStore(
            NewStore(name: name, address: "Via Veloce 1, Milano", phone: "+39 02 0",
                  position: GeoPoint(latitude: 45.466, longitude: 9.19), capacity: capacity, timeZone: "UTC",
                  settings: StoreSettings(capacity: capacity, walkInPercent: walkInPercent, slotCapacity: slotCapacity)),
            hours: (1...7).map { OpeningInterval(weekday: $0, opens: 0, closes: 1440) }, departments: [])
        try stack.waitForStore(store.id)
        return store.id
    }

    /// A kiosk enrolled as an administrator does it; returns the device key it printed.
    static func enrolKiosk(_ stack: Stack, store: StoreID, role: String = "door") throws -> String {
        let output = try stack.run(Stack.clupBinary, ["admin", "enrol-kiosk", "--database", stack.database,
                                                       "--store", store.description, "--label", "Entrance", "--role", role])
        return String(try #require(output.firstMatch(of: /device key[^:]*: ([A-Za-z0-9_-]{43})/)).1)
    }

    /// What the QR code drawn on a page says, read by zbarimg: the page's SVG path is drawn
    /// as a picture, module by module, and zbarimg decodes the picture.
    static func decodeQR(in html: String, stack: Stack) throws -> String {
        let side = Int(String(try #require(html.firstMatch(of: /viewBox="0 0 (\d+) \d+"/)).1)) ?? 0
        let path = String(try #require(html.firstMatch(of: /<path d="([^"]+)"/)).1)
        let scale = 6
        var pixels = [UInt8](repeating: 255, count: side * scale * side * scale)
        for run in path.matches(of: /M(\d+) (\d+)h(\d+)/) {
            let (x, y, width) = (Int(run.1) ?? 0, Int(run.2) ?? 0, Int(run.3) ?? 0)
            for row in (y * scale)..<((y + 1) * scale) {
                for column in (x * scale)..<((x + width) * scale) { pixels[row * side * scale + column] = 0 }
            }
        }
        let file = stack.directory + "/ticket.pgm"
        var image = Data("P5 \(side * scale) \(side * scale) 255\n".utf8)
        image.append(contentsOf: pixels)
        try image.write(to: URL(fileURLWithPath: file))
        return try stack.run("/usr/bin/zbarimg", ["-q", "--raw", file]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func scan(_ kiosk: Client, _ code: String) throws -> Stack.HTTPResponse {
        try kiosk.get("/kiosk/scanner")
        return try kiosk.post("/kiosk/scan", [("code", code)])
    }

    @Test("walk-in ticket → its QR decodes → called when a place frees → enters → exits; forged, other-store and used codes refused")
    func walkInJourney() throws {
        // Given a store of 2 with one place kept for walk-ins, and its kiosk.
        let stack = try Stack()
        let storeId = try Self.store(stack, name: "Porta Aperta", capacity: 2, walkInPercent: 50)
        let key = try Self.enrolKiosk(stack, store: storeId)
        let kiosk = Client(stack)
        try kiosk.get("/kiosk")
        #expect(try kiosk.post("/kiosk/enrol", [("key", key)]).status == 303)
        #expect(try kiosk.get("/kiosk").body.contains("Porta Aperta"))
        let tokens = try TicketToken(secret: stack.secret)
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)

        func takeTicket() throws -> (id: Int64, page: String) {
            let form = try kiosk.get("/kiosk/dispenser")
            let requestKey = String(try #require(form.body.firstMatch(of: /name="requestKey" value="([^"]+)"/)).1)
            let issued = try kiosk.post("/kiosk/tickets", [("minutes", "30"), ("people", "1"), ("requestKey", requestKey)])
            #expect(issued.status == 303)
            let location = try #require(issued.header("Location"))
            #expect(location.contains("?ref="))  // the printed ticket's address, signed for this kiosk
            let path = location.split(separator: "?").first ?? ""
            return (try #require(Int64(path.split(separator: "/").last ?? "")), try kiosk.get(location).body)
        }

        // The first walk-in takes the walk-in place and is called at once; the second waits.
        let first = try takeTicket()
        #expect(first.page.contains("Go in now"))
        let second = try takeTicket()
        #expect(second.page.contains("Watch the screen") || second.page.contains("Wait: about 30 min"))
        // The codes drawn are signed with the store's key: zbarimg reads them at 6 pixels a
        // module (49 modules with the quiet zone: 294 dots, 37 mm on a 203 dpi receipt printer).
        let keys = StoreKeys(tokens)
        let secondCode = try Self.decodeQR(in: second.page, stack: stack)
        #expect(secondCode.count == DoorCode.textLength)
        #expect(keys.verify(secondCode) { store, key in store == storeId.rawValue && key == 1 }?.reservationId == second.id)
        let firstCode = try Self.decodeQR(in: first.page, stack: stack)
        #expect(keys.verify(firstCode) { store, key in store == storeId.rawValue && key == 1 }?.reservationId == first.id)

        // Refusals change nothing: not yet called, forged, another store's.
        let otherStore = try Self.store(stack, name: "Altro Negozio", capacity: 10, walkInPercent: 50)
        let otherKey = try Self.enrolKiosk(stack, store: otherStore)
        let otherTicket = try stack.curl(["-H", "Authorization: Bearer \(otherKey)", "-H", "Content-Type: application/json",
                                          "--data-binary", #"{"people": 1, "residenceMinutes": 30}"#,
                                          stack.baseURL + "/api/v1/tickets"])
        #expect(otherTicket.status == 201)
        let otherCode = String(try #require(otherTicket.body.firstMatch(of: /"code":"([A-Za-z0-9_-]+)"/)).1)
        var forged = Array(secondCode)
        forged[20] = forged[20] == "A" ? "B" : "A"
        let before = try database.reader.read { db in try Row.fetchAll(db, sql: "SELECT * FROM reservation ORDER BY id") }
        let refusals = [
            (secondCode, "has not been called yet"), (String(forged), "not a CLup ticket"),
            (otherCode, "This ticket is for another store: Altro Negozio."),
        ]
        for (code, reason) in refusals {
            let refused = try Self.scan(kiosk, code)
            #expect(refused.body.contains(">REFUSED<") && refused.body.contains(reason), "\(reason)")
        }
        let after = try database.reader.read { db in try Row.fetchAll(db, sql: "SELECT * FROM reservation ORDER BY id") }
        #expect(before == after)

        // The first enters (count 1) and leaves (count 0); its place goes to the second.
        let entered = try Self.scan(kiosk, firstCode)
        #expect(entered.body.contains(">ENTER<") && entered.body.contains("data-field=\"peopleInside\">1</strong>"))
        let exited = try Self.scan(kiosk, firstCode)
        #expect(exited.body.contains(">EXIT<") && exited.body.contains("data-field=\"peopleInside\">0</strong>"))
        let board = try kiosk.get("/kiosk/board")
        #expect(board.body.contains("<ul class=\"board-called\"><li>2</li></ul>"))

        // The second, called, enters; the same code again lets them out; a third time is refused.
        #expect(try Self.scan(kiosk, secondCode).body.contains(">ENTER<"))
        let status = try stack.curl(["-H", "Authorization: Bearer \(key)", stack.baseURL + "/api/v1/stores/\(storeId)/status"])
        #expect(status.status == 200 && status.body.contains("\"peopleInside\":1"))
        #expect(try Self.scan(kiosk, secondCode).body.contains(">EXIT<"))
        let again = try Self.scan(kiosk, secondCode)
        #expect(again.body.contains(">REFUSED<") && again.body.contains("already used"))
        let visits = try database.reader.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reservation WHERE enteredAt IS NOT NULL AND exitedAt IS NOT NULL")
        }
        #expect(visits == 2)
    }

    @Test("100 holders of admissible codes scan at once at a store of 20: 20 enter, 80 are refused as full")
    func hundredScansAtOnce() throws {
        let stack = try Stack()
        let storeId = try Self.store(stack, name: "Piena", capacity: 20, walkInPercent: 0, slotCapacity: 100)
        let key = try Self.enrolKiosk(stack, store: storeId)
        // Given 100 bookings of one person in a slot whose entry window is open for the next
        // five minutes at least (written directly: the wizard only books 2 hours ahead).
        let now = Date()
        var slot = (now.timeIntervalSince1970 / 900).rounded(.down) * 900
        if now.timeIntervalSince1970 - slot > 300 { slot += 900 }
        let database = try AppDatabase.open(path: stack.database, dataKey: .scratch)
        let ids: [Int64] = try database.writer.write { db in
            try (1...100).map { number in
                try db.execute(sql: """
                    INSERT INTO reservation (storeId, kind, walkIn, day, number, people, residenceMinutes, slotStart,
                                             status, createdAt)
                    VALUES (?, 'booking', 0, 1, ?, 1, 30, ?, 'booked', ?)
                    """, arguments: [storeId, number, Date(timeIntervalSince1970: slot), now])
                return db.lastInsertedRowID
            }
        }
        let tokens = try TicketToken(secret: stack.secret)

        let answers = try stack.parallelPosts("/api/v1/scan", ids.map { id in
            (headers: ["Authorization: Bearer \(key)", "Content-Type: application/json"],
             body: #"{"code": "\#(tokens.token(for: id))"}"#)
        })
        #expect(answers.count == 100 && answers.allSatisfy { $0.status == 200 })
        let entered = answers.filter { $0.body.contains("\"result\":\"enter\"") }
        let refused = answers.filter { $0.body.contains("\"result\":\"refused\"") }
        #expect(entered.count == 20)
        #expect(refused.count == 80)
        #expect(refused.allSatisfy { $0.body.contains("\"reason\":\"full\"") && $0.body.contains("The store is full") })

        // The count inside equals the visit records, and the API says the same.
        let (inside, visits, integrity) = try database.reader.read { db in
            (try Int.fetchOne(db, sql: "SELECT SUM(people) FROM reservation WHERE status = 'inside'"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reservation WHERE enteredAt IS NOT NULL"),
             try String.fetchOne(db, sql: "PRAGMA integrity_check"))
        }
        #expect(inside == 20 && visits == 20 && integrity == "ok")
        let status = try stack.curl(["-H", "Authorization: Bearer \(key)", stack.baseURL + "/api/v1/stores/\(storeId)/status"])
        #expect(status.body.contains("\"peopleInside\":20"))
    }
}
