import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// Several doors letting people in while offline, each within its lease, driven as a hardware
/// scanner drives them: through the device API and its description, with the scanner's own
/// offline decisions scripted here as the description tells a vendor to make them.
extension DeviceAPITests {
    /// A scripted hardware scanner at one door: what it keeps (the state and its lease), the
    /// scans it decided offline, in order, and whether it decides alone now.
    final class Scanner {
        let key: String
        var lease: (version: Int64, places: Int)?
        var admitsOffline = false
        var queue: [(code: String, scanId: String, did: String)] = []
        var inside: Set<String> = []

        init(key: String) { self.key = key }

        /// Decides an entry offline as the description says: in only if the party fits the lease.
        func enterOffline(_ code: String, people: Int) -> Bool {
            guard admitsOffline, let held = lease, people <= held.places else { return false }
            lease = (held.version, held.places - people)
            queue.append((code, Secrets.token(), "enter"))
            inside.insert(code)
            return true
        }

        func exitOffline(_ code: String, people: Int) {
            if admitsOffline, let held = lease { lease = (held.version, held.places + people) }
            queue.append((code, Secrets.token(), "exit"))
        }
    }

    /// Renews `scanner`'s lease as a scanner does, answer checked against the description.
    @discardableResult
    func renew(_ scanner: Scanner) throws -> [String: Any] {
        let held = scanner.lease.map { String($0.version) } ?? "null"
        let answer = try call(.post, "/api/v1/door/lease", key: scanner.key, json: #"{"heldVersion": \#(held)}"#)
        #expect(answer.status == 200)
        scanner.admitsOffline = answer.body["admitsOffline"] as? Bool ?? false
        scanner.lease = (answer.body["version"] as? Int64 ?? 0, answer.body["places"] as? Int ?? 0)
        return answer.body
    }

    /// Sends what `scanner` did offline, oldest first; returns each answer's result.
    func catchUp(_ scanner: Scanner) throws -> [String] {
        defer { scanner.queue = [] }
        return try scanner.queue.map { scan in
            let json = #"{"code": "\#(scan.code)", "scanId": "\#(scan.scanId)", "scannedAt": "2026-11-18T09:00:00.500853Z", "offlineResult": "\#(scan.did)"}"#
            return try call(.post, "/api/v1/scan", key: scanner.key, json: json).body["result"] as? String ?? ""
        }
    }

    /// A second door kiosk of the store, letting people in offline too; its scripted scanner.
    func sideDoor(admits: Bool = true) throws -> (kiosk: Kiosk, scanner: Scanner) {
        let key = Secrets.token(bytes: 32)
        let kiosk = try database.accounts.enrolKiosk(storeId: store.id, label: "Side door", key: key, now: clock.now)
        if admits {
            #expect(try database.doors.setAdmitsOffline(kioskId: kiosk.id, storeId: store.id, true,
                                                        by: .kiosk(id: kiosk.id, name: "Gianni"), now: clock.now))
        }
        return (kiosk, Scanner(key: key))
    }

    /// The spare tickets of the front door's block: a code for one, per ticket.
    func spareCodes() throws -> [String] {
        let block = try call(.post, "/api/v1/ticket-block", key: key)
        return try require(block.body["tickets"] as? [[String: Any]]).compactMap { ($0["codes"] as? [String: String])?["1"] }
    }

    @Test("two scanners offline with 6 free places let in 6 at most; a code let in at both counts once, reported once")
    func twoDoorsOffline() throws {
        let spares = try spareCodes()
        let front = Scanner(key: key)
        let (_, side) = try sideDoor()
        // 4 people inside: 6 free places of 10.
        for index in 0..<4 {
            #expect(try call(.post, "/api/v1/scan", key: key, json: #"{"code": "\#(spares[index])"}"#).body["result"] as? String == "enter")
        }
        // Both doors read the state and take their leases: 3 places each.
        for scanner in [front, side] {
            let state = try call(.get, "/api/v1/door/state", key: scanner.key)
            #expect(state.body["admitsOffline"] as? Bool == true && state.body["admittingDoors"] as? String == "Front door, Side door")
            #expect(state.body["peopleInside"] as? Int == 4)
            #expect(try renew(scanner)["places"] as? Int == 3)
        }
        // A scan at a third door, which lets people out only offline, would take places the
        // two hold: refused, with why.
        let exitKey = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: store.id, label: "Exit door", key: exitKey, now: clock.now)
        let held = try call(.post, "/api/v1/scan", key: exitKey, json: #"{"code": "\#(spares[4])"}"#)
        #expect(held.body["result"] as? String == "refused" && held.body["reason"] as? String == "placesHeld")

        // CLup cannot be reached. Each door lets people in until its lease is used; the same
        // code (spare 4, a screenshot) is let in at both.
        let atFront = [4, 5, 6, 7].map { front.enterOffline(spares[$0], people: 1) }
        let atSide = [4, 8, 9].map { side.enterOffline(spares[$0], people: 1) }
        #expect(atFront == [true, true, true, false] && atSide == [true, true, true])
        #expect(!side.enterOffline(spares[7], people: 1))
        let letIn = atFront.filter { $0 }.count + atSide.filter { $0 }.count
        #expect(letIn == 6, "never more than the 6 free places")

        // CLup answers again (a second on; the scanners dated their scans to the microsecond):
        // every scan is applied once; the code let in twice is inside once, and the second
        // door's entry is reported to staff as a conflict, once.
        clock.advance(1)
        #expect(try catchUp(front) == ["enter", "enter", "enter"])
        #expect(try catchUp(side) == ["conflict", "enter", "enter"])
        let status = try call(.get, "/api/v1/stores/\(store.id)/status", key: key)
        #expect(status.body["peopleInside"] as? Int == 9)
        let conflicts = try database.doors.doorLog(storeId: store.id).filter { $0.kind == .offlineConflict }
        #expect(conflicts.count == 1 && conflicts.first?.reason == "alreadyInside")
        // Both leases are spent, as each door spent its copy; renewed, they share the 1 place
        // left between 3 doors: none each.
        #expect(try database.doors.offlineDoors(storeId: store.id, now: clock.now).map(\.heldPlaces) == [0, 0, 0])
        #expect(try renew(front)["places"] as? Int == 0 && renew(side)["places"] as? Int == 0)
        // A party leaving by the side door offline gives its door the place back.
        side.exitOffline(spares[8], people: 1)
        #expect(side.lease?.places == 1)
        #expect(try catchUp(side) == ["exit"])
        #expect(try database.doors.offlineDoors(storeId: store.id, now: clock.now).map(\.heldPlaces) == [0, 1, 0])
    }

    @Test("a lease grows at once, shrinks only once the door says it holds the smaller grant, and lapses unrenewed")
    func leaseVersions() throws {
        let front = Scanner(key: key)
        let frontKiosk = try require(try database.accounts.kiosk(key: key))
        // The store's only door holds all 10 free places.
        var lease = try renew(front)
        #expect(lease["version"] as? Int64 == 1 && lease["places"] as? Int == 10 && lease["admitsOffline"] as? Bool == true)
        #expect(lease["expiresAt"] as? String == "2026-11-18T13:00:00.000Z")
        func held() throws -> [Int] { try database.doors.offlineDoors(storeId: store.id, now: clock.now).map(\.heldPlaces) }
        // A door that lets people out only joins: the front door's share is halved, but CLup
        // counts the 10 it may still hold until it says it has the new grant.
        let (_, side) = try sideDoor(admits: false)
        let lost = try database.doors.renewLease(kiosk: frontKiosk, heldVersion: 1, now: clock.now)
        #expect(lost == DoorLease(version: 2, places: 5, expiresAt: clock.now + DoorLease.lapse))
        #expect(try held() == [10, 0])
        // The answer was lost: the door says it holds version 1 again; still counted as 10.
        lease = try renew(front)
        #expect(try lease["version"] as? Int64 == 2 && lease["places"] as? Int == 5 && held() == [10, 0])
        // It says it holds version 2: 5.
        try renew(front)
        #expect(try held() == [5, 0])
        // Renewed again with nothing changed, the lease is read, not written: its renewal time
        // (and so its expiry) moves only once a minute.
        clock.advance(30)
        #expect(try renew(front)["expiresAt"] as? String == "2026-11-18T13:00:00.000Z")
        clock.advance(31)
        #expect(try renew(front)["expiresAt"] as? String == "2026-11-18T13:01:01.000Z")
        // The side door's lease: none, and it says so.
        let sideLease = try renew(side)
        #expect(sideLease["admitsOffline"] as? Bool == false && sideLease["places"] as? Int == 0)
        // A door that stops renewing gives its places back after 4 hours; so does one turned off.
        clock.advance(DoorLease.lapse + 1)
        #expect(try held() == [0, 0])
        try renew(front)
        #expect(try held() == [5, 0])
        #expect(try database.doors.setAdmitsOffline(kioskId: frontKiosk.id, storeId: store.id, false,
                                                    by: .kiosk(id: frontKiosk.id, name: "Gianni"), now: clock.now))
        #expect(try renew(front)["admitsOffline"] as? Bool == false)
        #expect(try held() == [0, 0])
        // So does one revoked.
        #expect(try database.doors.setAdmitsOffline(kioskId: frontKiosk.id, storeId: store.id, true,
                                                    by: .kiosk(id: frontKiosk.id, name: "Gianni"), now: clock.now))
        try renew(front)
        #expect(try held() == [5, 0])
        #expect(try database.accounts.revokeKiosk(id: frontKiosk.id, now: clock.now))
        #expect(try database.doors.offlineDoors(storeId: store.id, now: clock.now).map(\.label) == ["Side door"])
        #expect(try database.doors.setAdmitsOffline(kioskId: frontKiosk.id, storeId: store.id, true,
                                                    by: .kiosk(id: frontKiosk.id, name: "Gianni"), now: clock.now) == false)
    }

    @Test("an entry a door makes online spends its own lease first, then free places no door holds")
    func onlineEntriesSpendTheLease() throws {
        let spares = try spareCodes()
        let front = Scanner(key: key)
        let (_, side) = try sideDoor()
        try renew(front)
        try renew(side)
        #expect(front.lease?.places == 5 && side.lease?.places == 5)
        // The front door lets 5 in online: its own lease, as its copy goes.
        for index in 0..<5 {
            #expect(try call(.post, "/api/v1/scan", key: key, json: #"{"code": "\#(spares[index])"}"#).body["result"] as? String == "enter")
        }
        #expect(try database.doors.offlineDoors(storeId: store.id, now: clock.now).map(\.heldPlaces) == [0, 5])
        // The sixth waits for the side door to renew, which leaves it half of the 5 free.
        #expect(try call(.post, "/api/v1/scan", key: key, json: #"{"code": "\#(spares[5])"}"#).body["reason"] as? String == "placesHeld")
        #expect(try renew(side)["places"] as? Int == 2)
        try renew(side)  // said it holds the 2
        #expect(try call(.post, "/api/v1/scan", key: key, json: #"{"code": "\#(spares[5])"}"#).body["result"] as? String == "enter")
        #expect(try database.doors.offlineDoors(storeId: store.id, now: clock.now).map(\.heldPlaces) == [0, 2])
    }

    @Test("a dispenser's key reads no door state and renews no lease; a lease request is checked")
    func doorEndpointsForDoorsOnly() throws {
        let dispenser = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: store.id, label: "Tickets", key: dispenser, role: .dispenser, now: clock.now)
        #expect(try call(.get, "/api/v1/door/state", key: dispenser).body["code"] as? String == "wrongRole")
        #expect(try call(.post, "/api/v1/door/lease", key: dispenser, json: "{}").body["code"] as? String == "wrongRole")
        #expect(try call(.post, "/api/v1/door/lease", key: key, json: #"{"heldVersion": "one"}"#).body["code"] as? String == "invalidBody")
        #expect(try call(.post, "/api/v1/door/lease", key: key, json: "{}").body["places"] as? Int == 10)
        #expect(try call(.get, "/api/v1/door/state", key: nil).status == 401)
    }
}
