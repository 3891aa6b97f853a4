import Foundation
import Testing

@testable import CLupDomain

/// A maintenance window as an administrator asks for it, and what pages show of it when.
@Suite("Scheduled maintenance")
struct MaintenanceTests {
    /// Wednesday 18 November 2026, 10:00 in Rome (09:00 UTC).
    static let now = Date(timeIntervalSince1970: 1_794_992_400)

    static func request(day: String = "2026-12-01", from: String = "02:00", until: String = "04:00",
                        zone: String = "Europe/Rome", announce: String = "24") -> MaintenanceWindow.Request
    {
        MaintenanceWindow.Request(day: day, from: from, until: until, timeZone: zone, announceHours: announce)
    }

    @Test("a day, two local times and a zone make the window; an end at or before the start is the next day")
    func window() throws {
        let window = try MaintenanceWindow.window(Self.request(), now: Self.now).get()
        // 1 December in Rome is UTC+1: 02:00 is 01:00 UTC.
        #expect(window.startsAt == Date(timeIntervalSince1970: 1_796_086_800))
        #expect(window.endsAt == window.startsAt + 7200 && window.announceFrom == window.startsAt - 86400)
        #expect(window.timeZone == "Europe/Rome")
        let overnight = try MaintenanceWindow.window(Self.request(from: "23:00", until: "01:00"), now: Self.now).get()
        #expect(overnight.endsAt.timeIntervalSince(overnight.startsAt) == 7200)
        let summer = try MaintenanceWindow.window(Self.request(day: "2027-07-01", from: "02:00", until: "02:00", zone: "UTC"),
                                                  now: Self.now).get()
        #expect(summer.endsAt.timeIntervalSince(summer.startsAt) == 86400)
    }

    @Test("what cannot be a window is refused, naming the field")
    func problems() {
        let cases: [(MaintenanceWindow.Request, MaintenanceWindow.Problem)] = [
            (Self.request(day: "2026-02-30"), .badDay),
            (Self.request(day: "1 Dec"), .badDay),
            (Self.request(from: "25:00"), .badTime(field: "from")),
            (Self.request(until: "4pm"), .badTime(field: "until")),
            (Self.request(zone: "Mars/Olympus"), .unknownZone),
            (Self.request(announce: "400"), .badNotice),
            (Self.request(announce: "-1"), .badNotice),
            (Self.request(day: "2026-11-17"), .alreadyOver),
        ]
        for (request, problem) in cases {
            #expect(MaintenanceWindow.window(request, now: Self.now) == .failure(problem), "\(request)")
        }
        #expect(MaintenanceWindow.Problem.badNotice.field == "announceHours")
        #expect(MaintenanceWindow.Problem.alreadyOver.field == "until")
    }

    @Test("a window is announced, then under way, then gone; one under way is shown before any announced")
    func phases() throws {
        let starts = Self.now + 3600
        let soon = MaintenanceWindow(id: 1, startsAt: starts, endsAt: starts + 3600, announceFrom: starts - 7200,
                                     timeZone: "UTC")
        #expect(soon.phase(at: starts - 7201) == nil)
        #expect(soon.phase(at: starts - 7200) == .announced)
        #expect(soon.phase(at: starts) == .underway)
        #expect(soon.phase(at: starts + 3600) == nil)
        let later = MaintenanceWindow(id: 2, startsAt: starts + 86400, endsAt: starts + 90000,
                                      announceFrom: starts - 86400, timeZone: "UTC")
        #expect(MaintenanceWindow.shown([later, soon], at: Self.now)?.window.id == 1)
        #expect(MaintenanceWindow.shown([later, soon], at: starts + 10)?.phase == .underway)
        #expect(MaintenanceWindow.shown([later, soon], at: starts + 3600)?.window.id == 2)
        #expect(MaintenanceWindow.shown([later], at: starts - 86401) == nil)
    }
}
