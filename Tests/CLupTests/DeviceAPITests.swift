import Foundation
import GRDB
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// The device API for scanners and dispensers, and its OpenAPI description: every answer a
/// test receives is checked against the schema the document gives for it.
@Suite("Device API")
struct DeviceAPITests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let store: Store
    let other: Store
    let key: String
    let otherKey: String
    let document: OpenAPIDocument

    init() throws {
        let fixture = try EntranceFixture()
        (clock, database, app, store, other, key, otherKey) =
            (fixture.clock, fixture.database, fixture.app, fixture.store, fixture.other, fixture.key, fixture.otherKey)
        document = try OpenAPIDocument(path: Fixture.root + "/Public/api/openapi.json")
    }

    /// Calls the API and checks the answer against the document's schema for that operation and
    /// status (an undocumented status or field fails the test).
    @discardableResult
    func call(_ method: HTTPMethod, _ path: String, key: String?, json: String? = nil,
              contentType: String = "application/json") throws -> (status: Int, body: [String: Any], response: Response)
    {
        var request = Request(method: method, path: path, body: Array((json ?? "").utf8))
        if let key { request.headers["authorization"] = "Bearer \(key)" }
        if json != nil { request.headers["content-type"] = contentType }
        let response = app.respond(to: request)
        #expect(response.header("Content-Type") == "application/json")
        let body = try require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        let problems = document.validate(body, method: method, path: path, status: response.status)
        #expect(problems.isEmpty, "\(method.rawValue) \(path) → \(response.status): \(problems)")
        return (response.status, body, response)
    }

    @Test("every route of the API is described, and every described operation is routed")
    func documentMatchesRoutes() throws {
        let routed = Set(app.routeTable.filter { $0.pattern.hasPrefix("/api/") }
            .map { "\($0.method.rawValue) \($0.pattern)" })
        #expect(routed == document.operations)
        #expect(routed.count == 7)
    }

    @Test("every error code the device API answers with is in the description's list of codes")
    func everyCodeDescribed() throws {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Fixture.root + "/Public/api/openapi.json")))
        let components = (json as? [String: Any])?["components"] as? [String: Any]
        let schemas = components?["schemas"] as? [String: Any]
        let error = (schemas?["Error"] as? [String: Any])?["properties"] as? [String: Any]
        let described = Set(((error?["code"] as? [String: Any])?["enum"] as? [String]) ?? [])
        // The codes the worker's sources make its errors with (`EntranceError(status, "code", …)`).
        var made: Set<String> = []
        let folder = Fixture.root + "/Sources/CLupWeb"
        for file in try FileManager.default.subpathsOfDirectory(atPath: folder) where file.hasSuffix(".swift") {
            let source = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for match in source.matches(of: /EntranceError\(\d+, "([A-Za-z]+)"/) { made.insert(String(match.1)) }
        }
        #expect(made.count >= 20 && made.contains("wrongRole"))
        #expect(made.subtracting(described).isEmpty, "not described: \(made.subtracting(described).sorted())")
    }

    @Test("without a valid device key nothing is answered but 401, in JSON")
    func authentication() throws {
        let missing = try call(.get, "/api/v1/stores/\(store.id)/status", key: nil)
        #expect(missing.status == 401 && missing.body["code"] as? String == "unauthorized")
        #expect(missing.response.header("WWW-Authenticate") == "Bearer")
        // Every answer gives CLup's time, to the millisecond: the entrance's clock.
        #expect(missing.response.header("CLup-Time") == "2026-11-18T09:00:00.000Z")
        let wrong = try call(.post, "/api/v1/scan", key: Secrets.token(bytes: 32), json: #"{"code":"x"}"#)
        #expect(wrong.status == 401 && wrong.body["code"] as? String == "invalidKey")
        let kioskId = try require(try database.accounts.kiosks(storeId: store.id).first?.id)
        #expect(try database.accounts.revokeKiosk(id: kioskId, now: clock.now))
        #expect(try call(.get, "/api/v1/stores/\(store.id)/status", key: key).status == 401)
    }

    @Test("a dispenser issues a ticket whose code the scanner admits, then lets out")
    func ticketThenScan() throws {
        let requestKey = Secrets.token()
        let issued = try call(.post, "/api/v1/tickets", key: key,
                              json: #"{"people": 2, "residenceMinutes": 45, "requestKey": "\#(requestKey)"}"#)
        #expect(issued.status == 201)
        #expect(issued.body["status"] as? String == "called" && issued.body["estimatedWaitMinutes"] as? Int == 0)
        #expect(issued.body["issuedAt"] as? String == "2026-11-18T09:00:00Z")
        let code = try require(issued.body["code"] as? String)
        let signed = Fixture.storeKeys.verify(code) { storeId, keyId in storeId == store.id.rawValue && keyId == 1 }
        #expect(signed?.reservationId == issued.body["id"] as? Int64 && signed?.kind == .walkIn && signed?.people == 2)
        let again = try call(.post, "/api/v1/tickets", key: key,
                             json: #"{"people": 2, "residenceMinutes": 45, "requestKey": "\#(requestKey)"}"#)
        #expect(again.body["id"] as? Int64 == issued.body["id"] as? Int64)

        // A second walk-in waits for the share's two places, with an estimate.
        let waiting = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1, "residenceMinutes": 30}"#)
        #expect(waiting.body["status"] as? String == "waiting" && waiting.body["estimatedWaitMinutes"] as? Int == 45)

        let entered = try call(.post, "/api/v1/scan", key: key, json: #"{"code": "\#(code)"}"#)
        #expect(entered.body["result"] as? String == "enter" && entered.body["peopleInside"] as? Int == 2)
        let status = try call(.get, "/api/v1/stores/\(store.id)/status", key: key)
        #expect(status.body["peopleInside"] as? Int == 2 && status.body["open"] as? Bool == true)
        #expect((status.body["walkInQueue"] as? [String: Any])?["people"] as? Int == 1)
        #expect(status.body["calling"] as? [Int] == [])
        // Each wait comes with the range it falls in four times in five, around it.
        for (wait, range) in [("waitMinutes", "waitRangeMinutes"), ("walkInWaitMinutes", "walkInWaitRangeMinutes")] {
            let minutes = try require(status.body[wait] as? Int)
            let bounds = try require(status.body[range] as? [Int])
            #expect(bounds.count == 2 && bounds[0] <= minutes && minutes <= bounds[1], "\(range): \(bounds), \(minutes)")
        }
        clock.advance(40 * 60)
        let exited = try call(.post, "/api/v1/scan", key: key, json: #"{"code": "\#(code)"}"#)
        #expect(exited.body["result"] as? String == "exit" && exited.body["peopleInside"] as? Int == 0)
        // The exit called the waiting walk-in.
        let after = try call(.get, "/api/v1/stores/\(store.id)/status", key: key)
        #expect(after.body["calling"] as? [Int] == [waiting.body["number"] as? Int ?? -1])
        let again2 = try call(.post, "/api/v1/scan", key: key, json: #"{"code": "\#(code)"}"#)
        #expect(again2.body["result"] as? String == "refused" && again2.body["reason"] as? String == "alreadyUsed")
    }

    @Test("the status announces scheduled maintenance, says when it is under way, and leaves it out otherwise")
    func statusMaintenance() throws {
        #expect(try call(.get, "/api/v1/stores/\(store.id)/status", key: key).body["maintenance"] == nil)
        let starts = clock.now + 3 * 3600
        _ = try database.maintenance.scheduleMaintenance(MaintenanceWindow(id: 0, startsAt: starts, endsAt: starts + 7200,
                                                               announceFrom: starts - 86400, timeZone: "Europe/Rome"),
                                             now: clock.now)
        let announced = try require(try call(.get, "/api/v1/stores/\(store.id)/status", key: key).body["maintenance"]
            as? [String: Any])
        #expect(announced["underway"] as? Bool == false && announced["startsAt"] as? String == starts.formatted(.iso8601))
        #expect(announced["message"] as? String
            == "Scheduled maintenance today at 13:00 – 15:00 (Europe/Rome): CLup will not be available. "
            + "Reservations are kept, and the entrance keeps letting people in.")
        clock.advance(4 * 3600)
        let underway = try require(try call(.get, "/api/v1/stores/\(store.id)/status", key: key).body["maintenance"]
            as? [String: Any])
        #expect(underway["underway"] as? Bool == true && underway["endsAt"] as? String == (starts + 7200).formatted(.iso8601))
        clock.advance(3600)
        #expect(try call(.get, "/api/v1/stores/\(store.id)/status", key: key).body["maintenance"] == nil)
    }

    @Test("a kiosk keeps a block of tickets to print offline: numbered before later ones, let in when there is room")
    func offlineTicketBlock() throws {
        let first = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1, "residenceMinutes": 30}"#)
        #expect(first.body["number"] as? Int == 1)
        let block = try call(.post, "/api/v1/ticket-block", key: key)
        #expect(block.status == 200 && block.body["day"] as? String == "2026-11-18")
        let spare = try require(block.body["tickets"] as? [[String: Any]])
        let size = AppDatabase.ticketBlockSize
        #expect(spare.count == size && spare.map { $0["number"] as? Int } == (2...(1 + size)).map { $0 })
        let ids = spare.compactMap { $0["id"] as? Int64 }
        #expect(ids == (ids[0]..<(ids[0] + Int64(size))).map { $0 } && ids[0] > first.body["id"] as? Int64 ?? .max)
        // Asked again, the same block.
        let again = try call(.post, "/api/v1/ticket-block", key: key)
        #expect((again.body["tickets"] as? [[String: Any]])?.compactMap { $0["id"] as? Int64 } == ids)
        // A ticket issued online since is numbered, and given an id, past the block.
        let online = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1, "residenceMinutes": 30}"#)
        #expect(online.body["number"] as? Int == 2 + size && online.body["id"] as? Int64 ?? 0 > ids[size - 1])
        // Each spare has a genuine walk-in code of the store for one and for two.
        func code(_ index: Int, _ people: Int) throws -> String {
            try require((spare[index]["codes"] as? [String: String])?[String(people)])
        }
        for people in 1...2 {
            let signed = try require(Fixture.storeKeys.verify(try code(0, people)) { storeId, _ in storeId == store.id.rawValue })
            #expect(signed.reservationId == ids[0] && signed.kind == .walkIn && signed.people == people && signed.number == 2)
        }

        // Ticket 2, printed for two while CLup could not be reached, is reported: it waits from
        // when it was printed; reported again, the same ticket.
        let report = #"{"id": \#(ids[0]), "people": 2, "residenceMinutes": 45, "issuedAt": "2026-11-18T08:58:00Z"}"#
        let reported = try call(.post, "/api/v1/tickets/offline", key: key, json: report)
        #expect(reported.status == 201 && reported.body["number"] as? Int == 2 && reported.body["people"] as? Int == 2)
        #expect(reported.body["issuedAt"] as? String == "2026-11-18T08:58:00Z")
        #expect(try call(.post, "/api/v1/tickets/offline", key: key, json: report).status == 200)
        // The two walk-in places are taken: it waits, and the door lets it in all the same, as
        // it promised, while there is room.
        #expect(try database.reservations.reservation(id: ReservationID(ids[0]))?.reservation.status == .waiting)
        let entered = try call(.post, "/api/v1/scan", key: key, json: #"{"code": "\#(try code(0, 2))"}"#)
        #expect(entered.body["result"] as? String == "enter" && entered.body["peopleInside"] as? Int == 2)
        let visit = try require(try database.reservations.reservation(id: ReservationID(ids[0]))?.reservation)
        #expect(visit.status == .inside && visit.calledAt == clock.now && visit.enteredAt == clock.now)

        // Ticket 3, printed for one and scanned before the kiosk could report it: made by the
        // door, let in; the report that follows finds it.
        let scanned = try call(.post, "/api/v1/scan", key: key, json: #"{"code": "\#(try code(1, 1))"}"#)
        #expect(scanned.body["result"] as? String == "enter" && scanned.body["number"] as? Int == 3)
        let late = try call(.post, "/api/v1/tickets/offline", key: key,
                            json: #"{"id": \#(ids[1]), "people": 1, "residenceMinutes": 30, "issuedAt": "2026-11-18T08:59:00Z"}"#)
        #expect(late.status == 200 && late.body["status"] as? String == "inside")
        #expect((try call(.post, "/api/v1/ticket-block", key: key).body["tickets"] as? [[String: Any]])?.count == size - 2)

        // Another store's kiosk can neither report nor let in this kiosk's tickets.
        let stranger = try call(.post, "/api/v1/tickets/offline", key: otherKey,
                                json: #"{"id": \#(ids[2]), "people": 1, "residenceMinutes": 30, "issuedAt": "2026-11-18T08:59:00Z"}"#)
        #expect(stranger.status == 409 && stranger.body["code"] as? String == "notInBlock")
        let elsewhere = try call(.post, "/api/v1/scan", key: otherKey, json: #"{"code": "\#(try code(2, 1))"}"#)
        #expect(elsewhere.body["result"] as? String == "refused" && elsewhere.body["reason"] as? String == "otherStore")
        // Bad input is refused with its reason.
        for (json, expected) in [
            (#"{"id": \#(ids[3]), "people": 9, "residenceMinutes": 30, "issuedAt": "2026-11-18T08:59:00Z"}"#, "invalidPeople"),
            (#"{"id": \#(ids[3]), "people": 3, "residenceMinutes": 30, "issuedAt": "2026-11-18T08:59:00Z"}"#, "partyOverLimit"),
            (#"{"id": \#(ids[3]), "people": 1, "residenceMinutes": 30, "issuedAt": "yesterday"}"#, "invalidIssuedAt"),
            (#"{"id": \#(ids[3]), "people": 1, "residenceMinutes": 30, "issuedAt": "4698-12-01T12:48:04.089098-20:43"}"#,
             "clockAhead"),
            (#"{"id": \#(ids[3]), "people": 1, "residenceMinutes": 30, "issuedAt": "2026-11-16T08:59:00Z"}"#, "ticketTooOld"),
            (#"{"id": \#(online.body["id"] as? Int64 ?? 0), "people": 1, "residenceMinutes": 30, "issuedAt": "2026-11-18T08:59:00Z"}"#, "notInBlock"),
        ] {
            #expect(try call(.post, "/api/v1/tickets/offline", key: key, json: json).body["code"] as? String == expected)
        }
        // A block is of no use past its day: kept a week, then purged.
        #expect(try database.doors.ticketBlocks(storeId: store.id, days: 0...Int(Int32.max)).count == 1)
        clock.advance(Retention.ticketBlocks + 3600)
        try database.privacy.purgePersonalData(now: clock.now, sessionLifetime: Visitor.absoluteLifetime)
        #expect(try database.doors.ticketBlocks(storeId: store.id, days: 0...Int(Int32.max)).isEmpty)
    }

    @Test("security: a scan dated before its ticket existed, was called or entered is refused and logged; nothing moves")
    func scansBoundedByTicketHistory() throws {
        // Issued at 10:00 (09:00 UTC), called at once.
        let issued = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1, "residenceMinutes": 30}"#)
        let code = try require(issued.body["code"] as? String)
        let id = ReservationID(try require(issued.body["id"] as? Int64))
        func scan(at time: String) throws -> [String: Any] {
            try call(.post, "/api/v1/scan", key: key,
                     json: #"{"code": "\#(code)", "scanId": "\#(Secrets.token())", "scannedAt": "\#(time)"}"#).body
        }
        clock.advance(10 * 60)
        // Let in at 09:50, before the ticket was printed: refused, and the door log says why.
        let early = try scan(at: "2026-11-18T08:50:00Z")
        #expect(early["result"] as? String == "refused" && early["reason"] as? String == "impossibleTime")
        #expect(try database.reservations.reservation(id: id)?.reservation.status == .called)
        // Let in at 10:05; then an exit dated 23 hours before that entry: refused, still inside.
        #expect(try scan(at: "2026-11-18T09:05:00Z")["result"] as? String == "enter")
        let backwards = try scan(at: "2026-11-17T10:05:00Z")
        #expect(backwards["reason"] as? String == "impossibleTime")
        #expect(try database.reservations.reservation(id: id)?.reservation.status == .inside)
        let log = try database.doors.doorLog(storeId: store.id, limit: 10)
        #expect(log.filter { $0.kind == .scanRefused && $0.reason == "impossibleTime" }.count == 2)
        // No visit of negative length reaches the statistics: the real exit counts.
        #expect(try scan(at: "2026-11-18T09:09:00Z")["result"] as? String == "exit")
        let visit = try require(try database.reservations.reservation(id: id)?.reservation)
        #expect(visit.enteredAt == Fixture.date(2026, 11, 18, 10, 5) && visit.exitedAt == Fixture.date(2026, 11, 18, 10, 9))
        let measured = try database.storeLoad(store.id)?.actualSeconds
        #expect(abs((measured ?? 0) - 4 * 60) < 0.001)

        // A live scan (its kiosk waits for the answer) happens now, whatever the kiosk's clock
        // says: two minutes slow, before the ticket was even printed, or five minutes fast.
        for (index, skew) in [-120.0, 300.0].enumerated() {
            let next = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1, "residenceMinutes": 30}"#)
            let nextCode = try require(next.body["code"] as? String)
            let nextId = ReservationID(try require(next.body["id"] as? Int64))
            let kioskTime = (clock.now + skew).formatted(.iso8601)
            let live = try call(.post, "/api/v1/scan", key: key, json: """
                {"code": "\(nextCode)", "scanId": "\(Secrets.token())", "scannedAt": "\(kioskTime)", "answerWithin": 2.5}
                """)
            #expect(live.status == 200 && live.body["result"] as? String == "enter", "\(skew)")
            #expect(try database.reservations.reservation(id: nextId)?.reservation.enteredAt == clock.now)
            clock.advance(60 * Double(index + 1))
        }
    }

    @Test("a scan the scanner names counts once, at the time it happened; sent again it gets its first answer")
    func namedScans() throws {
        let issued = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1, "residenceMinutes": 30}"#)
        let code = try require(issued.body["code"] as? String)
        let id = ReservationID(try require(issued.body["id"] as? Int64))
        func scan(_ scanId: String, at: String?, key: String? = nil) throws -> (status: Int, body: [String: Any], response: Response) {
            let time = at.map { #", "scannedAt": "\#($0)""# } ?? ""
            return try call(.post, "/api/v1/scan", key: key ?? self.key,
                            json: #"{"code": "\#(code)", "scanId": "\#(scanId)"\#(time)}"#)
        }
        func receipts() throws -> Int {
            try database.value(Int.self, sql: "SELECT COUNT(*) FROM scanReceipt") ?? 0
        }
        // Scanned in at 10:02 and sent at 10:05, with its time: entered at 10:02.
        let entry = Secrets.token()
        clock.advance(5 * 60)
        let entered = try scan(entry, at: "2026-11-18T09:02:00Z")
        #expect(entered.status == 200 && entered.body["result"] as? String == "enter")
        #expect(try database.reservations.reservation(id: id)?.reservation.enteredAt == Fixture.date(2026, 11, 18, 10, 2))
        // Its answer was lost and it is sent again: the first answer, byte for byte; not an exit.
        clock.advance(60)
        let again = try scan(entry, at: "2026-11-18T09:02:00Z")
        #expect(again.response.body == entered.response.body)
        #expect(try database.reservations.reservation(id: id)?.reservation.status == .inside)
        // Another scan of the code is an exit, at the time it happened (to the millisecond).
        clock.advance(25 * 60)
        let exited = try scan(Secrets.token(), at: "2026-11-18T09:30:00.250Z")
        #expect(exited.body["result"] as? String == "exit")
        let visit = try require(try database.reservations.reservation(id: id)?.reservation)
        #expect(visit.status == .done && visit.exitedAt == Fixture.date(2026, 11, 18, 10, 30) + 0.25)
        // The visit was measured as it happened: 28 minutes and a quarter of a second.
        let measured = try database.storeLoad(store.id)?.actualSeconds
        #expect(abs((measured ?? 0) - (28 * 60 + 0.25)) < 0.001)
        // Without a time, a named scan happens now; another store's kiosk sending the same id
        // makes its own scan, refused.
        #expect(try scan(Secrets.token(), at: nil).body["reason"] as? String == "alreadyUsed")
        #expect(try scan(entry, at: nil, key: otherKey).body["reason"] as? String == "otherStore")

        // Let in by a scanner while offline, but already used: nothing applied, a conflict.
        let conflict = try call(.post, "/api/v1/scan", key: key, json: """
            {"code": "\(code)", "scanId": "\(Secrets.token())", "scannedAt": "2026-11-18T09:31:00Z", "offlineResult": "enter"}
            """)
        #expect(conflict.status == 200 && conflict.body["result"] as? String == "conflict")
        #expect(conflict.body["reason"] as? String == "alreadyUsed" && conflict.body["headline"] as? String == "CHECK")

        // Bad ids and times are refused with their reason, and nothing is kept.
        let kept = try receipts()
        let bad: [(String, String?, Int, String)] = [
            ("short", nil, 400, "invalidScanId"),
            (String(repeating: "a", count: 65), nil, 400, "invalidScanId"),
            ("not/url safe but long enough", nil, 400, "invalidScanId"),
            (Secrets.token(), "yesterday", 400, "invalidScannedAt"),
            (Secrets.token(), "2026-11-18T08:99:00Z", 400, "invalidScannedAt"),  // no such minute
            (Secrets.token(), "2026-02-30T08:00:00Z", 400, "invalidScannedAt"),  // no such day
            (Secrets.token(), "2026-11-18T09:34:00Z", 409, "clockAhead"),  // 3 minutes ahead: the kiosk's clock is fast
            (Secrets.token(), "2026-11-17T09:00:00Z", 409, "scanTooOld"),
        ]
        for (scanId, at, status, reason) in bad {
            let answer = try scan(scanId, at: at)
            #expect(answer.status == status && answer.body["code"] as? String == reason, "\(scanId) \(at ?? "")")
        }
        // What a scanner did offline is never refused for its time: sent more than a day late,
        // or dated ahead of CLup's clock, it is answered as a conflict with the reason, logged
        // for staff once however often it is sent, and not applied.
        let lateScanId = Secrets.token()
        for (scanId, at, reason) in [(lateScanId, "2026-11-17T09:00:00Z", "scanTooOld"),
                                     (Secrets.token(), "2026-11-18T09:34:00Z", "clockAhead"),
                                     (lateScanId, "2026-11-17T09:00:00Z", "scanTooOld")] {
            let answer = try call(.post, "/api/v1/scan", key: key, json: """
                {"code": "\(code)", "scanId": "\(scanId)", "scannedAt": "\(at)", "offlineResult": "exit"}
                """)
            #expect(answer.status == 200 && answer.body["result"] as? String == "conflict"
                    && answer.body["reason"] as? String == reason, "\(answer.body)")
        }
        let logged = try database.doors.doorLog(storeId: store.id).filter { ["scanTooOld", "clockAhead"].contains($0.reason) }
        #expect(logged.map(\.reason) == ["clockAhead", "scanTooOld"] && logged.allSatisfy { $0.kind == .offlineConflict })
        #expect(logged.allSatisfy { $0.at == clock.now && $0.outcome == "exit" })
        #expect(try database.reservations.reservation(id: id)?.reservation.status == .done)
        let afterCatchUp = try receipts()
        let untimed = try call(.post, "/api/v1/scan", key: key, json: #"{"code": "\#(code)", "scannedAt": "2026-11-18T09:30:00Z"}"#)
        #expect(untimed.status == 400 && untimed.body["code"] as? String == "invalidScanId")
        #expect(try afterCatchUp == kept + 2 && receipts() == afterCatchUp)
        // Kept a week, longer than a kiosk keeps what it could not send.
        clock.advance(Retention.scanReceipts - 3600)
        try database.privacy.purgePersonalData(now: clock.now, sessionLifetime: Visitor.absoluteLifetime)
        #expect(try receipts() == afterCatchUp)
        clock.advance(2 * 3600)
        try database.privacy.purgePersonalData(now: clock.now, sessionLifetime: Visitor.absoluteLifetime)
        #expect(try receipts() == 0)
    }

    @Test("a scan that waited longer for the worker than its scanner waits for the answer is not applied, nor kept")
    func lateScans() throws {
        let issued = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1, "residenceMinutes": 30}"#)
        let code = try require(issued.body["code"] as? String)
        let id = ReservationID(try require(issued.body["id"] as? Int64))
        let scanId = Secrets.token()
        func send(waited: TimeInterval) -> Response {
            var request = Request(method: .post, path: "/api/v1/scan", body: Array("""
                {"code": "\(code)", "scanId": "\(scanId)", "answerWithin": 2.5}
                """.utf8))
            request.headers["authorization"] = "Bearer \(key)"
            request.headers["content-type"] = "application/json"
            request.receivedAt = Date() - waited  // nginx's clock, as CLUP_REQUEST_START gives it
            return app.respond(to: request)
        }
        // The scanner gave up after 2.5 s and decided by itself: this one is dropped.
        let late = send(waited: 4)
        #expect(late.status == 503 && String(decoding: late.body, as: UTF8.self).contains("\"code\":\"late\""))
        #expect(try database.reservations.reservation(id: id)?.reservation.status == .called)
        // The same scan in time is applied: nothing of the late one was kept under its id.
        let inTime = send(waited: 0.1)
        #expect(inTime.status == 200 && String(decoding: inTime.body, as: UTF8.self).contains("\"result\":\"enter\""))
        #expect(try database.reservations.reservation(id: id)?.reservation.status == .inside)
        let both = try call(.post, "/api/v1/scan", key: key, json: """
            {"code": "\(code)", "scanId": "\(Secrets.token())", "answerWithin": 2.5, "offlineResult": "exit", "scannedAt": "2026-11-18T09:00:00Z"}
            """)
        #expect(both.status == 400 && both.body["code"] as? String == "invalidAnswerWithin")
    }

    @Test("a device acts only for its own store: other stores' codes are refused and their status forbidden")
    func ownStoreOnly() throws {
        let issued = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1, "residenceMinutes": 30}"#)
        let code = try require(issued.body["code"] as? String)
        let elsewhere = try call(.post, "/api/v1/scan", key: otherKey, json: #"{"code": "\#(code)"}"#)
        #expect(elsewhere.body["result"] as? String == "refused" && elsewhere.body["reason"] as? String == "otherStore")
        #expect(elsewhere.body["number"] == nil)
        let ticket = try require(try database.reservations.reservation(id: ReservationID(try require(issued.body["id"] as? Int64))))
        #expect(ticket.reservation.status == .called && ticket.reservation.enteredAt == nil)
        let forbidden = try call(.get, "/api/v1/stores/\(store.id)/status", key: otherKey)
        #expect(forbidden.status == 403 && forbidden.body["code"] as? String == "otherStore")
    }

    @Test("security: the API reads only application/json, and refuses a key given twice at any depth")
    func strictJSON() throws {
        let ticket = #"{"people": 1, "residenceMinutes": 30}"#
        #expect(try call(.post, "/api/v1/tickets", key: key, json: ticket, contentType: "application/json-seq").status == 415)
        #expect(try call(.post, "/api/v1/tickets", key: key, json: ticket, contentType: "application/jsonx").status == 415)
        let twice = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1, "residenceMinutes": 30, "people": 2}"#)
        #expect(twice.status == 400 && (twice.body["message"] as? String)?.contains("`people` is given more than once.") == true)
        let escaped = try call(.post, "/api/v1/scan", key: key, json: #"{"code": "A", "code": "B"}"#)
        #expect(escaped.status == 400 && escaped.body["code"] as? String == "invalidBody")
        #expect(StrictJSON.duplicateKey(in: Array(#"{"a": {"b": 1, "b": 2}}"#.utf8)) == "b")
        #expect(StrictJSON.duplicateKey(in: Array(#"[{"a": 1}, {"a": 2}]"#.utf8)) == nil)
        #expect(StrictJSON.duplicateKey(in: Array(#"{"a": "x,"a": 1", "b": ["a", "a"]}"#.utf8)) == nil)
        #expect(try database.value(Int.self, sql: "SELECT COUNT(*) FROM reservation") == 0)
        // security: only UTF-8 JSON. As UTF-16 (with or without its mark) the duplicate key
        // went unseen and the decoder read the first `people`; UTF-8 with a mark is refused too.
        let doubled = #"{"people": 5, "residenceMinutes": 30, "people": 1}"#
        let littleEndian: [UInt8] = doubled.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        let bigEndian: [UInt8] = doubled.utf16.flatMap { unit -> [UInt8] in [UInt8(unit >> 8), UInt8(unit & 0xFF)] }
        let plain: [UInt8] = Array(ticket.utf8)
        let bodies: [[UInt8]] = [littleEndian, [0xFF, 0xFE] + littleEndian, bigEndian, [0xEF, 0xBB, 0xBF] + plain, plain + [0xC3]]
        for body in bodies {
            var request = Request(method: .post, path: "/api/v1/tickets", body: body)
            request.headers["authorization"] = "Bearer \(key)"
            request.headers["content-type"] = "application/json"
            let response = app.respond(to: request)
            let answer = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect(response.status == 400 && answer?["code"] as? String == "invalidBody")
            #expect((answer?["message"] as? String)?.contains("not UTF-8 text without a byte order mark") == true)
        }
        #expect(try call(.post, "/api/v1/tickets", key: key, json: ticket, contentType: "application/json; charset=utf-16").status == 415)
        #expect(try database.value(Int.self, sql: "SELECT COUNT(*) FROM reservation") == 0)
        #expect(try call(.post, "/api/v1/tickets", key: key, json: ticket, contentType: "application/json; charset=utf-8").status == 201)
        #expect(try call(.post, "/api/v1/tickets", key: key, json: ticket, contentType: "application/json; charset=\"UTF-8\"").status == 201)
    }

    @Test("bad requests get a stable code and a message, and change nothing")
    func badRequests() throws {
        let notJSON = try call(.post, "/api/v1/tickets", key: key, json: "people=1", contentType: "application/x-www-form-urlencoded")
        #expect(notJSON.status == 415 && notJSON.body["code"] as? String == "unsupportedMediaType")
        let broken = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1"#)
        #expect(broken.status == 400 && broken.body["code"] as? String == "invalidBody")
        let missing = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1}"#)
        #expect(missing.status == 400 && (missing.body["message"] as? String)?.contains("`residenceMinutes` is missing") == true)
        let three = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 3, "residenceMinutes": 30}"#)
        #expect(three.status == 409 && three.body["code"] as? String == "partyOverLimit")
        let nine = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 9, "residenceMinutes": 30}"#)
        #expect(nine.status == 400 && nine.body["code"] as? String == "invalidPeople")
        // A store keeping one place for walk-ins cannot take a pair with a ticket, and says so.
        let small = try database.stores.createStore(
            Fixture.store("Piccolo", at: GeoPoint(latitude: 45.47, longitude: 9.19), capacity: 5),
            hours: Fixture.weekdayHours, departments: [])
        let smallKey = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: small.id, label: "Door", key: smallKey, now: clock.now)
        let pair = try call(.post, "/api/v1/tickets", key: smallKey, json: #"{"people": 2, "residenceMinutes": 30}"#)
        #expect(pair.status == 409 && pair.body["code"] as? String == "partyTooLarge")
        clock.advance(12 * 3600)
        let closed = try call(.post, "/api/v1/tickets", key: key, json: #"{"people": 1, "residenceMinutes": 30}"#)
        #expect(closed.status == 409 && closed.body["code"] as? String == "closed")
        let count = try database.value(Int.self, sql: "SELECT COUNT(*) FROM reservation")
        #expect(count == 0)
        let unknown = app.respond(to: Request(method: .get, path: "/api/v1/nothing"))
        #expect(unknown.status == 404 && unknown.bodyText.contains("\"code\":\"notFound\""))
        let wrongMethod = app.respond(to: Request(method: .get, path: "/api/v1/scan"))
        #expect(wrongMethod.status == 405 && wrongMethod.header("Allow") == "POST")
    }
}

/// The parts of an OpenAPI 3.1 document the tests check answers against: operations, and
/// JSON schemas with `type`, `required`, `properties`, `items`, `enum` and local `$ref`s.
struct OpenAPIDocument {
    let root: [String: Any]

    init(path: String) throws {
        let data = try require(FileManager.default.contents(atPath: path), "no \(path)")
        root = try require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private var paths: [String: [String: Any]] { root["paths"] as? [String: [String: Any]] ?? [:] }

    /// "POST /api/v1/scan", … for every operation described.
    var operations: Set<String> {
        Set(paths.flatMap { path, item in item.keys.map { "\($0.uppercased()) \(path)" } })
    }

    /// What is wrong with `body` as the answer of `method path` with `status`; empty if right.
    func validate(_ body: Any, method: HTTPMethod, path: String, status: Int) -> [String] {
        guard let (_, item) = paths.first(where: { Self.matches($0.key, path) }) else {
            return method == .get || method == .post ? validate(body, against: ["$ref": "#/components/schemas/Error"], at: "$")
                : ["no such path"]
        }
        guard let operation = item[method.rawValue.lowercased()] as? [String: Any] else {
            return validate(body, against: ["$ref": "#/components/schemas/Error"], at: "$")
        }
        guard var response = (operation["responses"] as? [String: Any])?[String(status)] as? [String: Any] else {
            return ["status \(status) is not documented"]
        }
        if let ref = response["$ref"] as? String { response = resolve(ref) ?? [:] }
        guard let content = response["content"] as? [String: Any],
            let schema = (content["application/json"] as? [String: Any])?["schema"] as? [String: Any]
        else { return ["no JSON schema for \(status)"] }
        return validate(body, against: schema, at: "$")
    }

    private static func matches(_ template: String, _ path: String) -> Bool {
        let a = template.split(separator: "/"), b = path.split(separator: "/")
        return a.count == b.count && zip(a, b).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
    }

    private func resolve(_ ref: String) -> [String: Any]? {
        var node: Any = root
        for part in ref.dropFirst(2).split(separator: "/") {
            guard let next = (node as? [String: Any])?[String(part)] else { return nil }
            node = next
        }
        return node as? [String: Any]
    }

    private func validate(_ value: Any, against schema: [String: Any], at location: String) -> [String] {
        if let ref = schema["$ref"] as? String {
            guard let target = resolve(ref) else { return ["\(location): unresolved \(ref)"] }
            return validate(value, against: target, at: location)
        }
        var problems: [String] = []
        if let allowed = schema["enum"] as? [Any], !allowed.contains(where: { "\($0)" == "\(value)" }) {
            problems.append("\(location): \(value) is not one of \(allowed)")
        }
        switch schema["type"] as? String {
        case "object":
            guard let object = value as? [String: Any] else { return problems + ["\(location): not an object"] }
            let properties = schema["properties"] as? [String: [String: Any]] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil {
                problems.append("\(location).\(name): required but missing")
            }
            let additional = schema["additionalProperties"] as? [String: Any]
            let namePattern = ((schema["propertyNames"] as? [String: Any])?["pattern"] as? String).flatMap { try? Regex($0) }
            for (name, member) in object {
                if let namePattern, name.firstMatch(of: namePattern) == nil {
                    problems.append("\(location).\(name): not a name the description allows")
                }
                guard let property = properties[name] ?? additional else {
                    problems.append("\(location).\(name): not documented")
                    continue
                }
                problems += validate(member, against: property, at: "\(location).\(name)")
            }
        case "array":
            guard let array = value as? [Any] else { return problems + ["\(location): not an array"] }
            let items = schema["items"] as? [String: Any] ?? [:]
            for (index, element) in array.enumerated() {
                problems += validate(element, against: items, at: "\(location)[\(index)]")
            }
        case "string":
            if !(value is String) { problems.append("\(location): not a string") }
        case "integer":
            if !(value is Int) || (value as? NSNumber).map(Self.isBoolean) == true {
                problems.append("\(location): not an integer")
            } else if let number = value as? Int {
                if let minimum = schema["minimum"] as? Int, number < minimum { problems.append("\(location): below \(minimum)") }
                if let maximum = schema["maximum"] as? Int, number > maximum { problems.append("\(location): above \(maximum)") }
            }
        case "boolean":
            if !((value as? NSNumber).map(Self.isBoolean) ?? false) { problems.append("\(location): not a boolean") }
        default:
            break
        }
        return problems
    }

    /// JSONSerialization gives booleans and numbers alike as NSNumber (and both cast to Bool
    /// and Int); a boolean is the one whose stored type is `c` (char).
    private static func isBoolean(_ number: NSNumber) -> Bool {
        String(cString: number.objCType) == "c"
    }
}
