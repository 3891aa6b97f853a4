import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// A printed ticket followed from any phone: its short code and the public page it opens.
@Suite("Following a printed ticket")
struct FollowTests {
    let fixture: EntranceFixture
    var app: App { fixture.app }
    var database: AppDatabase { fixture.database }
    let codes = FollowCodes(signer: Fixture.tickets.derived(for: "follow"))

    init() throws {
        fixture = try EntranceFixture()
    }

    /// A walk-in ticket printed at the store's dispenser, and the page it was printed from.
    func printed(_ kiosk: Browser) throws -> (ticket: Reservation, page: String) {
        let form = try kiosk.get("/kiosk/dispenser")
        let requestKey = String(try require(form.bodyText.firstMatch(of: /name="requestKey" value="([^"]+)"/)).1)
        let response = try kiosk.post("/kiosk/tickets", [("minutes", "30"), ("people", "1"), ("requestKey", requestKey)])
        let location = try require(response.header("Location"))
        let id = try KioskTests.ticketId(in: location)
        return (try require(try database.doors.walkInTicket(id: id, storeId: fixture.store.id)), try kiosk.get(location).bodyText)
    }

    /// A walk-in ticket asked for at the dispenser with `email`; the response.
    func ask(_ kiosk: Browser, email: String) throws -> Response {
        let form = try kiosk.get("/kiosk/dispenser")
        let requestKey = String(try require(form.bodyText.firstMatch(of: /name="requestKey" value="([^"]+)"/)).1)
        return try kiosk.post("/kiosk/tickets", [("minutes", "30"), ("people", "1"), ("requestKey", requestKey),
                                                 ("email", email)])
    }

    @Test("a walk-in may leave an address: told once by email when it is their turn, forgotten when the visit ends")
    func emailWhenCalled() throws {
        let kiosk = Browser(app, address: "192.0.2.80")
        try kiosk.get("/kiosk")
        #expect(try kiosk.post("/kiosk/enrol", [("key", fixture.key)]).status == 303)
        let form = try kiosk.get("/kiosk/dispenser").bodyText
        #expect(form.contains("Email me when it is my turn (optional)") && form.contains("type=\"email\""))
        // Two walk-in places: a ticket called at once keeps no address, as its holder is there.
        let now = try require(try ask(kiosk, email: "quick@example.org").header("Location"))
        let first = try require(try database.doors.walkInTicket(id: try KioskTests.ticketId(in: now), storeId: fixture.store.id))
        #expect(try first.status == .called && !database.doors.hasContact(first.id))
        #expect(!(try kiosk.get(now).bodyText.contains("We will email you")))
        let (second, _) = try printed(kiosk)
        // A mistyped address is said, and nothing is issued.
        let wrong = try ask(kiosk, email: "nonna@")
        #expect(wrong.status == 422 && wrong.bodyText.contains("That does not look like an email address"))
        #expect(wrong.bodyText.contains("value=\"nonna@\"") && wrong.bodyText.contains("<details class=\"dispenser-email\" open>"))
        #expect(try database.reservations.liveTraffic(storeId: fixture.store.id, now: fixture.clock.now).live.count == 2)
        // The third waits: its address is kept, sealed, and the ticket says so.
        let location = try require(try ask(kiosk, email: " Nonna@Example.org ").header("Location"))
        let third = try require(try database.doors.walkInTicket(id: try KioskTests.ticketId(in: location), storeId: fixture.store.id))
        #expect(try third.status == .waiting && database.doors.hasContact(third.id))
        #expect(try kiosk.get(location).bodyText.contains("We will email you when it is your turn."))
        let stored = try database.reading { try $0.value("SELECT email FROM walkInContact", as: String.self) }
        #expect(stored?.hasPrefix("s1:") == true && stored?.contains("Nonna") == false)

        // The first two go in; the first leaves: the third is called, and told once by email,
        // with the address to follow the ticket (no account to open).
        let writer = NoticeWriter(settings: SiteSettings(baseURL: "https://clup.example.org"), tickets: Fixture.tickets)
        for ticket in [first, second] {
            #expect(try database.doors.scan(reservationId: ticket.id, at: fixture.store.id, now: fixture.clock.now).verdict == .enter)
        }
        fixture.clock.advance(600)
        #expect(try database.doors.scan(reservationId: first.id, at: fixture.store.id, now: fixture.clock.now).verdict == .exit)
        try database.notices.dispatchNotices(now: fixture.clock.now, render: writer.render)
        try database.notices.dispatchNotices(now: fixture.clock.now, render: writer.render)
        let mail = try database.notices.mail(to: "Nonna@Example.org")
        #expect(mail.count == 1 && mail.first?.subject == "It is your turn at Bottega Duomo")
        let body = mail.first?.body ?? ""
        #expect(body.hasPrefix("Hello,\n\n") && body.contains("https://clup.example.org/t?code=\(codes.code(for: third.id))"))
        #expect(body.contains("You left this address at the ticket machine of Bottega Duomo"))
        // The visit ends: the address and the mail are forgotten; nothing else is.
        #expect(try database.privacy.forgetEndedWalkIns() == 0)
        #expect(try database.doors.scan(reservationId: third.id, at: fixture.store.id, now: fixture.clock.now).verdict == .enter)
        fixture.clock.advance(600)
        #expect(try database.doors.scan(reservationId: third.id, at: fixture.store.id, now: fixture.clock.now).verdict == .exit)
        #expect(try database.privacy.forgetEndedWalkIns() == 1)
        #expect(try database.notices.mail(to: "Nonna@Example.org").isEmpty && !database.doors.hasContact(third.id))
        #expect(try database.reservations.reservation(id: third.id)?.reservation.status == .done)
    }

    @Test("a code is short, reads back whatever its case, spaces and dashes, and a changed letter names nothing")
    func shortCodes() throws {
        for id in [1, 31, 32, 125_813, 9_007_199_254_740_993] as [Int64] {
            let code = codes.code(for: ReservationID(id))
            #expect(code.count <= 22 && code.wholeMatch(of: /[0-9A-Z]+-[0-9A-Z]{8}/) != nil, "\(code)")
            #expect(codes.id(in: code) == ReservationID(id))
            #expect(codes.id(in: " " + code.lowercased().replacing("-", with: " ") + " ") == ReservationID(id))
            let last = code.last!
            let changed = String(code.dropLast()) + (last == "0" ? "1" : "0")
            #expect(codes.id(in: changed) == nil)
        }
        #expect(codes.id(in: "") == nil && codes.id(in: "ABC") == nil && codes.id(in: String(repeating: "Z", count: 30)) == nil)
    }

    @Test("the printed ticket carries its code and the page's address; the page shows its place and nothing of anyone")
    func page() throws {
        let kiosk = Browser(app, address: "192.0.2.80")
        try kiosk.get("/kiosk")
        #expect(try kiosk.post("/kiosk/enrol", [("key", fixture.key)]).status == 303)
        // Two places for walk-ins: the first two are called, the third waits behind nobody
        // waiting, the fourth behind the third.
        let (first, _) = try printed(kiosk)
        _ = try printed(kiosk)
        let (third, _) = try printed(kiosk)
        let (fourth, receipt) = try printed(kiosk)
        let code = codes.code(for: fourth.id)
        #expect(receipt.contains("<strong class=\"follow-code\">\(code)</strong>"))
        #expect(receipt.contains("Follow your turn on any phone or computer: <strong>clup.example.org/t</strong>"))
        let qr = try QRCode(encoding: "https://clup.example.org/t?code=" + code)
        #expect(receipt.contains("<path d=\"\(qr.svgPath)\""))

        // Anyone opens it, signed in or not, by the QR's address or the code typed.
        let guest = Browser(app, address: "198.51.100.9")
        let page = try guest.get("/t?code=" + code.lowercased().replacing("-", with: " ")).bodyText
        #expect(page.contains("<h1>Ticket \(fourth.number)</h1>") && page.contains("Bottega Duomo"))
        #expect(page.contains("1 person ahead of you in the queue."))
        #expect(page.contains("Expected call around"))
        // Nothing of the others: not the number ahead, nor the tickets called.
        #expect(!page.contains(">\(third.number)<") && !page.contains("Ticket \(third.number)"))
        #expect(page.contains("<noscript><meta http-equiv=\"refresh\" content=\"30\"></noscript>"))

        // The first goes in and out: the third is called, and the fourth is next.
        fixture.clock.advance(60)
        #expect(try database.doors.scan(reservationId: first.id, at: fixture.store.id, now: fixture.clock.now).verdict == .enter)
        #expect(try database.doors.scan(reservationId: first.id, at: fixture.store.id, now: fixture.clock.now).verdict == .exit)
        let called = try guest.get("/t?code=" + codes.code(for: third.id)).bodyText
        #expect(called.contains("It is your turn: go to the entrance and scan the ticket by 10:11."))
        #expect(try guest.get("/t?code=" + code).bodyText.contains("You are next in the queue."))

        // The form alone, and a wrong code: told, with the form again.
        let form = try guest.get("/t")
        #expect(form.status == 200 && form.bodyText.contains("name=\"code\""))
        let wrong = try guest.get("/t?code=" + String(code.dropLast()) + (code.last == "0" ? "1" : "0"))
        #expect(wrong.status == 404 && wrong.bodyText.contains("No ticket has that code."))
        // An online customer's reservation has no printed code: a code made for its id opens nothing.
        let customer = try database.accounts.createUser(email: "ada@example.org", displayName: "Ada",
                                                        passwordHash: Fixture.passwordHash, now: fixture.clock.now,
                                                        confirmation: nil)
        guard case .created(let online) = try database.reservations.reserve(ReservationRequest(
            storeId: fixture.store.id, userId: try require(customer.id), kind: .lineUp, people: 1, residenceMinutes: 30,
            travelMode: .walking, slotStart: nil, requestKey: Secrets.token()), now: fixture.clock.now)
        else { Issue.record("the line-up was refused"); return }
        #expect(try guest.get("/t?code=" + codes.code(for: online.id)).status == 404)
    }
}
