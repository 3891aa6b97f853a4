import Foundation
import Testing

@testable import CLupDomain

/// The entrance rules' table of cases (`Tests/Shared/entrance-cases.json`), which the door
/// kiosk's offline copy of the rules is checked against too (check_door_offline.py): the two
/// copies cannot drift apart without one of the checks failing.
@Suite("Entrance rules: the shared table of cases")
struct EntranceCasesTests {
    struct Table: Decodable {
        var cases: [Case]
    }

    struct Case: Decodable {
        var name: String
        var status: String
        var calledMinutesAgo: Double?
        var slotInMinutes: Double?
        var graceMinutes: Int?
        var beforeMinutes: Int?
        var afterMinutes: Int?
        var printedOffline: Bool?
        var people: Int
        var inside: Int
        var capacity: Int
        var expect: String
    }

    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../Shared/entrance-cases.json").standardized.path

    @Test("every case of the table gets its verdict from Entrance.verdict")
    func table() throws {
        let table = try JSONDecoder().decode(Table.self, from: Data(contentsOf: URL(fileURLWithPath: Self.path)))
        #expect(table.cases.count >= 15)
        let now = Fixture.wednesdayMorning
        for item in table.cases {
            let status = try #require(ReservationStatus(rawValue: item.status))
            let ticket = DoorTicket(storeId: 1, status: status, people: item.people,
                                    calledAt: item.calledMinutesAgo.map { now - $0 * 60 },
                                    slotStart: item.slotInMinutes.map { now + $0 * 60 },
                                    printedOffline: item.printedOffline ?? false)
            let settings = StoreSettings(capacity: item.capacity, entryBeforeMinutes: item.beforeMinutes ?? 10,
                                         entryAfterMinutes: item.afterMinutes ?? 15, callGraceMinutes: item.graceMinutes ?? 10)
            let verdict = Entrance.verdict(for: ticket, at: 1, settings: settings, peopleInside: item.inside, now: now)
            let got = switch verdict {
            case .enter: "enter"
            case .exit: "exit"
            case .refused(let refusal): refusal.code
            }
            #expect(got == item.expect, "\(item.name)")
        }
    }
}
