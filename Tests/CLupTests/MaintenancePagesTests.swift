import Foundation
import Logging
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// An administrator schedules maintenance from the web; every page and kiosk screen announces
/// it, and says when CLup is back while it lasts.
@Suite("Scheduled maintenance pages")
struct MaintenancePagesTests {
    let clock: TestClock
    let database: AppDatabase
    let app: App
    let store: Store

    init() throws {
        (clock, database, app) = try Fixture.start()
        store = try database.stores.createStore(Fixture.store("Bottega Duomo", at: Place.milan[0].position),
                                         hours: Fixture.weekdayHours, departments: [])
        try Fixture.manager("boss@example.org", of: store.id, in: database, now: clock.now)
        _ = try database.accounts.createUser(email: "admin@example.org", displayName: "Alba", passwordHash: Fixture.passwordHash,
                                    role: .admin, now: clock.now, confirmation: nil)
    }

    func admin() throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: "admin@example.org")
        try browser.get("/manage/maintenance")
        return browser
    }

    func schedule(_ browser: Browser, day: String = "2026-11-18", from: String = "22:00", until: String = "01:30",
                  zone: String = "Europe/Rome", announce: String = "24") throws -> Response
    {
        try browser.post("/manage/maintenance", [("day", day), ("from", from), ("until", until), ("timeZone", zone),
                                                 ("announceHours", announce)])
    }

    @Test("scheduled from the web, it is announced on every page and kiosk screen, then said to be under way, then gone")
    func announcedEverywhere() throws {
        let admin = try admin()
        let form = try admin.get("/manage/maintenance").bodyText
        #expect(form.contains("No maintenance is scheduled.") && form.contains(#"value="2026-11-18""#))
        #expect(form.contains(#"<option value="Europe/Rome" selected>"#))
        let scheduled = try schedule(admin)
        #expect(scheduled.status == 303 && scheduled.header("Location") == "/manage/maintenance?done=scheduled&told=0")
        let listed = try admin.get("/manage/maintenance?done=scheduled").bodyText
        #expect(listed.contains("Maintenance scheduled"))
        #expect(listed.contains("today at 22:00 – tomorrow at 01:30 (Europe/Rome), announced Tue 17 Nov at 22:00"))

        let announcement = "Scheduled maintenance today at 22:00 – tomorrow at 01:30 (Europe/Rome): CLup will not be available."
        let guest = try Browser(app).get("/").bodyText
        #expect(guest.contains(#"<div class="banner maintenance" role="status"><p>"# + announcement))
        #expect(try admin.get("/manage/stores/\(store.id)").bodyText.contains(announcement))
        let key = Secrets.token(bytes: 32)
        _ = try database.accounts.enrolKiosk(storeId: store.id, label: "Door", key: key, now: clock.now)
        let kiosk = Browser(app, address: "192.0.2.50")
        try kiosk.get("/kiosk")
        #expect(try kiosk.post("/kiosk/enrol", [("key", key)]).status == 303)
        #expect(try kiosk.get("/kiosk/board").bodyText.contains(announcement))
        // In Italian too.
        let browser = Browser(app)
        browser.cookies["lang"] = "it"
        let italian = try browser.get("/").bodyText
        #expect(italian.contains("Manutenzione programmata oggi alle 22:00 – domani alle 01:30 (Europe/Rome)"))

        clock.advance(12 * 3600 + 10 * 60)  // 22:10
        let underway = try Browser(app).get("/").bodyText
        #expect(underway.contains(#"<div class="banner maintenance underway" role="status"><p>"#
            + "CLup is under maintenance and back tomorrow at 01:30 (Europe/Rome)"))
        clock.advance(4 * 3600)
        #expect(!(try Browser(app).get("/").bodyText.contains("maintenance")))
    }

    @Test("a cancelled window is no longer announced; cancelling one twice says it is gone")
    func cancel() throws {
        let admin = try admin()
        try schedule(admin)
        let window = try #require(try database.maintenance.maintenanceWindows(now: clock.now).first)
        #expect(try Browser(app).get("/").bodyText.contains("Scheduled maintenance"))
        let cancelled = try admin.post("/manage/maintenance/cancel", [("window", String(window.id))])
        #expect(cancelled.header("Location") == "/manage/maintenance?done=cancelled")
        #expect(!(try Browser(app).get("/").bodyText.contains("Scheduled maintenance")))
        let again = try admin.post("/manage/maintenance/cancel", [("window", String(window.id))])
        #expect(again.header("Location") == "/manage/maintenance?done=gone")
        #expect(try admin.get("/manage/maintenance?done=gone").bodyText.contains("over or was cancelled already"))
    }

    @Test("what cannot be scheduled is refused with the field's problem, and nothing is scheduled")
    func refused() throws {
        let admin = try admin()
        for (fields, field, message) in [
            (("2026-02-30", "02:00", "04:00", "Europe/Rome", "24"), "day", "Give the day as a date, such as 2026-12-01."),
            (("2026-12-01", "25:00", "04:00", "Europe/Rome", "24"), "from", "Give a time of day, such as 02:00."),
            (("2026-12-01", "02:00", "04:00", "Mars/Olympus", "24"), "timeZone", "Choose a time zone from the list."),
            (("2026-12-01", "02:00", "04:00", "Europe/Rome", "999"), "announceHours", "Give a whole number of hours from 0 to 336."),
            (("2026-11-17", "02:00", "04:00", "Europe/Rome", "24"), "until", "That time is over already."),
        ] {
            let answer = try schedule(admin, day: fields.0, from: fields.1, until: fields.2, zone: fields.3, announce: fields.4)
            let html = answer.bodyText
            #expect(answer.status == 422 && html.contains(#"<p class="field-error" id="maintenance-\#(field)-error">\#(message)</p>"#),
                    "\(fields)")
            #expect(html.contains(#"value="\#(fields.0)""#))  // what was typed stays
        }
        #expect(try database.maintenance.maintenanceWindows(now: clock.now).isEmpty)
    }

    @Test("nginx's 502 page names the next maintenance, written again as it is scheduled and cancelled")
    func staticPage() throws {
        let folder = NSTemporaryDirectory() + "clup-errors-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var environment = AppEnvironment(database: database, now: { [clock] in clock.now }, logger: Logger(label: "test"),
                                         settings: SiteSettings(), tickets: Fixture.tickets)
        environment.staticPages = StaticPages(views: try Fixture.views(), directory: folder)
        let app = App(environment: environment, views: try Fixture.views())
        let admin = Browser(app)
        try admin.signIn(email: "admin@example.org")
        try admin.get("/manage/maintenance")
        try schedule(admin)
        let page = try String(contentsOfFile: folder + "/502.html", encoding: .utf8)
        #expect(page.contains("CLup is restarting or busy for a moment. Please reload the page in a few seconds. "
            + "Scheduled maintenance today at 22:00 – tomorrow at 01:30 (Europe/Rome): if it is under way, CLup is back at its end."))
        #expect(try String(contentsOfFile: folder + "/502.it.html", encoding: .utf8)
            .contains("Manutenzione programmata oggi alle 22:00 – domani alle 01:30 (Europe/Rome)"))
        #expect(FileManager.default.fileExists(atPath: folder + "/413.json"))
        let window = try #require(try database.maintenance.maintenanceWindows(now: clock.now).first)
        try admin.post("/manage/maintenance/cancel", [("window", String(window.id))])
        #expect(!(try String(contentsOfFile: folder + "/502.html", encoding: .utf8)).contains("maintenance"))
    }

    @Test("a window another worker schedules reaches this host's 502 page at the keeper's next turn")
    func keeper() throws {
        let folder = NSTemporaryDirectory() + "clup-errors-" + UUID().uuidString.prefix(8)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keeper = StaticPagesKeeper(pages: StaticPages(views: try Fixture.views(), directory: folder))
        let now = clock.now
        #expect(try keeper.keep(from: database, now: now))
        #expect(try !keeper.keep(from: database, now: now + 5))  // nothing changed
        // Scheduled through the database, as another worker or `clup admin` would.
        let window = try database.maintenance.scheduleMaintenance(
            MaintenanceWindow(id: 0, startsAt: now + 3600, endsAt: now + 7200, announceFrom: now, timeZone: "Europe/Rome"),
            now: now)
        #expect(try keeper.keep(from: database, now: now + 10))
        let page = { try String(contentsOfFile: folder + "/502.html", encoding: .utf8) }
        #expect(try page().contains("Scheduled maintenance today at 11:00 – 12:00 (Europe/Rome)"))
        // Unchanged, the pages are still written again every ten minutes: "today" stays true.
        #expect(try !keeper.keep(from: database, now: now + 60))
        #expect(try keeper.keep(from: database, now: now + StaticPagesKeeper.rewriteAfter + 10))
        #expect(try database.maintenance.cancelMaintenance(id: window.id, now: now + 700))
        #expect(try keeper.keep(from: database, now: now + 705))
        #expect(try !page().contains("maintenance"))
    }

    @Test("customers booked inside a window are told, in their language, and told again when it is cancelled")
    func bookedCustomersTold() throws {
        let thursday = { (hour: Int, minute: Int) in Fixture.date(2026, 11, 19, hour, minute) }
        let emails = ["early@example.org", "inside@example.org", "gone@example.org", "later@example.org"]
        let ids = try database.accounts.createCustomers(emails: emails, now: clock.now)
        try database.accounts.updateProfile(userId: ids[1], displayName: "Ida", travelMode: .walking, loyaltyOptIn: false,
                                            language: "it")
        var bookings: [Reservation] = []
        // 15-minute slots: 10:15 ends as the window opens; 10:30 and 10:45 are inside it; 14:00 is not.
        for (index, start) in [thursday(10, 15), thursday(10, 30), thursday(10, 45), thursday(14, 0)].enumerated() {
            guard case .created(let booking) = try database.reservations.reserve(ReservationRequest(
                storeId: store.id, userId: ids[index], kind: .booking, people: 1, residenceMinutes: 15, slotStart: start,
                requestKey: Secrets.token()), now: clock.now)
            else { Issue.record("not booked at \(start)"); return }
            bookings.append(booking)
        }
        let admin = try admin()
        let scheduled = try schedule(admin, day: "2026-11-19", from: "10:30", until: "11:00")
        #expect(scheduled.header("Location") == "/manage/maintenance?done=scheduled&told=2")
        #expect(try admin.get("/manage/maintenance?done=scheduled&told=2").bodyText.contains(
            "2 customers with a booking in it are told by email or on their phone"))
        // One of the two cancels before the worker's next turn: they are told nothing.
        #expect(try database.reservations.cancelReservation(id: bookings[2].id, userId: ids[2], now: clock.now))
        let writer = NoticeWriter(settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets)
        #expect(try database.maintenance.dispatchNotices(now: clock.now, render: writer.renderMaintenance) == 2)
        func maintenanceMail(_ email: String) throws -> [OutboxMessage] {
            try database.notices.mail(to: email).filter { $0.subject.contains("CLup") }
        }
        let told = try #require(try maintenanceMail("inside@example.org").first)
        #expect(told.subject == "CLup non sarà disponibile durante la tua prenotazione da Bottega Duomo")
        #expect(told.body.contains("CLup non sarà disponibile per manutenzione domani alle 10:30 – 11:00 (Europe/Rome), "
            + "durante la tua prenotazione da Bottega Duomo (domani alle 10:30)."))
        #expect(told.body.contains("/reservations/\(bookings[1].id)"))
        for email in ["early@example.org", "gone@example.org", "later@example.org"] {
            #expect(try maintenanceMail(email).isEmpty, "\(email)")
        }
        #expect(try database.maintenance.dispatchNotices(now: clock.now, render: writer.renderMaintenance) == 0)

        // Cancelled: the customer told hears it is off; nobody else hears anything.
        let window = try #require(try database.maintenance.maintenanceWindows(now: clock.now).first)
        clock.advance(600)
        try admin.post("/manage/maintenance/cancel", [("window", String(window.id))])
        #expect(try database.maintenance.dispatchNotices(now: clock.now, render: writer.renderMaintenance) == 1)
        let off = try maintenanceMail("inside@example.org")
        #expect(off.count == 2 && off[1].subject == "Manutenzione annullata: CLup resta disponibile per la tua prenotazione "
            + "da Bottega Duomo")
        #expect(try database.maintenance.notices(reservationId: bookings[1].id).map(\.kind) == [.scheduled, .cancelled])
        for email in ["early@example.org", "gone@example.org", "later@example.org"] {
            #expect(try maintenanceMail(email).isEmpty, "\(email)")
        }
    }

    @Test("a window cancelled before its notices went out tells nobody, then or later")
    func cancelledBeforeTold() throws {
        let ids = try database.accounts.createCustomers(emails: ["a@example.org"], now: clock.now)
        let start = Fixture.date(2026, 11, 19, 10, 30)
        guard case .created = try database.reservations.reserve(ReservationRequest(
            storeId: store.id, userId: ids[0], kind: .booking, people: 1, residenceMinutes: 15, slotStart: start,
            requestKey: Secrets.token()), now: clock.now)
        else { Issue.record("not booked"); return }
        let window = try database.maintenance.scheduleMaintenance(
            MaintenanceWindow(id: 0, startsAt: start, endsAt: start + 1800, announceFrom: clock.now, timeZone: "Europe/Rome"),
            now: clock.now)
        #expect(try database.maintenance.customersTold(windowId: window.id) == 1)
        #expect(try database.maintenance.cancelMaintenance(id: window.id, now: clock.now))
        let writer = NoticeWriter(settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets)
        #expect(try database.maintenance.dispatchNotices(now: clock.now, render: writer.renderMaintenance) == 1)
        #expect(try database.notices.mail(to: "a@example.org").allSatisfy { !$0.subject.contains("CLup") })
    }

    @Test("only administrators schedule maintenance")
    func adminsOnly() throws {
        let boss = Browser(app)
        try boss.signIn(email: "boss@example.org")
        #expect(try boss.get("/manage/maintenance").status == 403)
        try boss.get("/manage")
        #expect(try schedule(boss).status == 403)
        #expect(try database.maintenance.maintenanceWindows(now: clock.now).isEmpty)
        #expect(try Browser(app).get("/manage/maintenance").status == 303)  // a guest is sent to sign in
    }

    @Test("scheduled from the command line's side, windows are kept and cancelled on either engine")
    func kept() throws {
        let starts = clock.now + 3600
        let window = try database.maintenance.scheduleMaintenance(
            MaintenanceWindow(id: 0, startsAt: starts, endsAt: starts + 60, announceFrom: starts, timeZone: "UTC"), now: clock.now)
        #expect(try database.maintenance.maintenanceWindows(now: clock.now) == [window])
        #expect(try database.maintenance.cancelMaintenance(id: window.id, now: clock.now))
        #expect(!(try database.maintenance.cancelMaintenance(id: window.id, now: clock.now)))
        #expect(try database.maintenance.maintenanceWindows(now: clock.now).isEmpty)
    }
}
