import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation
import Logging

/// The browser at a store's entrance (SPEC 7–9): enrolled once with a device key, it
/// dispenses walk-in tickets, scans codes at entry and exit, and shows the numbers called.
///
/// Every screen but enrolment is behind the `kiosk` guard, which reads this browser's kiosk
/// cookie afresh on each request, so a revoked key stops working at once; a kiosk only ever
/// acts for its own store.
struct KioskArea {
    let database: AppDatabase
    let views: Views
    let desk: EntranceDesk
    let watch: KioskWatch
    /// The codes printed on tickets, to follow them from any phone (`FollowArea`).
    let follow: FollowCodes
    let baseURL: String
    let logger: Logger

    /// A browser stays enrolled for as long as browsers keep a cookie (about 400 days).
    static let cookieLifetime = 400 * 24 * 3600
    /// The kiosk shows a ticket for this long after issuing it; then only its QR code on paper
    /// opens the door.
    static let ticketShownFor: TimeInterval = 10 * 60

    func addRoutes(to pages: RouteGroup<BrowserContext>) {
        pages.get(Paths.kiosk, home)
        pages.post(Paths.kioskEnrol, enrol)

        // Customer-facing screens, on every kiosk: nothing on them leads to a staff screen.
        let kiosk = pages.adding(.kiosk).adding(.watched(by: watch))
        kiosk.get(Paths.kioskDispenser, dispenser)
        kiosk.post(Paths.kioskTickets, issue)
        kiosk.get(Paths.kioskTicket, ticket)
        kiosk.post(Paths.kioskSpares, spares)
        kiosk.post(Paths.kioskSparesPrinted, reportPrinted)
        kiosk.get(Paths.kioskBoard, board)

        // The door: scanning, and the staff's console behind the store's staff PIN.
        let door = kiosk.adding(.doorKiosk)
        door.get(Paths.kioskScanner, scanner)
        door.post(Paths.kioskScan, scan)
        door.get(Paths.kioskDoorState) { context in .json(try desk.doorState(kiosk: context.kiosk, now: context.now)) }
        door.post(Paths.kioskDoorLease) { context in
            .json(try desk.lease(kiosk: context.kiosk, heldVersion: context.form["heldVersion"].flatMap { Int64($0) },
                                 now: context.now))
        }
        door.get(Paths.kioskStaff, staffSignInPage)
        door.post(Paths.kioskStaff, staffSignIn)
        door.post(Paths.kioskStaffSignOut, staffSignOut)
        let console = DoorConsole(database: database, views: views, codes: desk.codes, follow: follow, baseURL: baseURL)
        let staff = door.adding(.staff(database: database, signer: staffPasses))
        staff.get(Paths.kioskDoor) { context in
            try console.show(context, at: context.place)
        }
        staff.post(Paths.kioskDoor) { context in
            try console.act(context, at: context.place)
        }
        staff.post(Paths.kioskDoorPriority) { context in
            try console.issueTicket(context, at: context.place, priority: true)
        }
        staff.post(Paths.kioskDoorPhone) { context in
            try console.issueTicket(context, at: context.place, priority: false)
        }
        staff.post(Paths.kioskDoorOffline) { context in
            try console.setAdmitsOffline(context, at: context.place)
        }
    }

    /// Staff passes are signed with a key of their own, derived from the server's secret.
    var staffPasses: TicketToken { desk.tickets.derived(for: "staff pass") }

    /// A printed ticket's page is opened by the address the dispenser is sent to right after
    /// printing: the ticket's id signed for that kiosk. No other screen, and nobody counting
    /// ids, opens another party's ticket and the code that admits it.
    var printedTickets: TicketToken { desk.tickets.derived(for: "printed ticket") }

    func printedTicketLink(_ id: ReservationID, kioskId: Int64) -> String {
        Paths.kioskTicket(id.rawValue, query: "ref=" + printedTickets.signature(of: "\(kioskId):\(id.rawValue)"))
    }

    // MARK: Enrolment

    /// The kiosk's start page: the enrolment form; a dispenser's own screen; or, at the door,
    /// the menu staff open by its address (no customer-facing screen links to it).
    func home(_ context: BrowserContext) throws -> Response {
        guard let kiosk = context.visitor.kiosk else {
            let revoked = context.request.cookies[Visitor.kioskCookie(secure: context.secure)] != nil
            var response = enrolPage(context, error: revoked
                ? tr("kiosk.revoked") : nil)
            if revoked { response.setCookie(kioskCookie(value: "", maxAge: 0, secure: context.secure)) }
            return response
        }
        guard kiosk.role == .door else { return .redirect(to: Paths.kioskDispenser()) }
        return views.page(title: tr("kiosk.title"), context,
                          KioskHomePage(storeName: try store(of: kiosk).name, label: kiosk.label))
    }

    func enrol(_ context: BrowserContext) throws -> Response {
        let key = (context.form["key"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard let kiosk = try database.accounts.kiosk(key: key) else {
            return enrolPage(context, error: tr("kiosk.badKey"),
                             status: 403)
        }
        logger.info("kiosk \(kiosk.id) (\(kiosk.role.rawValue)) enrolled a browser from \(context.request.remoteAddress)")
        var response = Response.redirect(to: Paths.kiosk())
        response.setCookie(kioskCookie(value: key, maxAge: Self.cookieLifetime, secure: context.secure))
        return response
    }

    // MARK: Staff at the door

    /// The store's door staff by name, each with their own PIN; the store's shared PIN with a
    /// name typed, where it has one; or, with neither, who can set them up.
    func staffSignInPage(_ context: KioskContext) throws -> Response {
        try staffPage(context, StaffSignInPage.Form())
    }

    /// Wrong PINs are throttled per kiosk, and per person or per store's shared PIN
    /// (`StaffPin.throttleAccount`), never by the network address the kiosk shares with the
    /// shop's guests. A name chosen that is not the store's door staff with a PIN any more is
    /// refused as a wrong PIN would be, and counted as one.
    func staffSignIn(_ context: KioskContext) throws -> Response {
        let kiosk = context.kiosk
        var form = StaffSignInPage.Form(name: (context.form["staff"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines),
                                        person: context.form["person"].flatMap { Int64($0) })
        let pin = context.form["pin"] ?? ""
        func again(_ error: String?, status: Int) throws -> Response {
            form.error = error
            return try staffPage(context, form, status: status)
        }
        if form.person == nil, context.form["person"] != nil {  // the list's "choose your name"
            return try again(tr("staff.chooseName"), status: 422)
        }
        let pass: StaffPass
        let pinHash: String?
        let throttled: String
        if let personId = form.person {
            let person = UserID(rawValue: personId)
            let name = try database.accounts.doorStaffWithPin(storeId: kiosk.storeId).first { $0.id == person }?.name
            pass = StaffPass(kioskId: kiosk.id, staffName: name ?? "", person: person, now: context.now)
            pinHash = name == nil ? nil : try database.accounts.doorPinHash(userId: person, storeId: kiosk.storeId)
            throttled = StaffPin.throttleAccount(person: personId)
        } else {
            guard let shared = try database.accounts.staffPinHash(storeId: kiosk.storeId) else {
                return try again(nil, status: 409)
            }
            guard !form.name.isEmpty, ManageArea.textProblem(form.name, maxLength: 60) == nil else {
                return try again(tr("door.giveName"), status: 422)
            }
            pass = StaffPass(kioskId: kiosk.id, staffName: form.name, person: nil, now: context.now)
            pinHash = shared
            throttled = StaffPin.throttleAccount(storeId: kiosk.storeId.rawValue)
        }
        let client = StaffPin.throttleClient(kioskId: kiosk.id)
        if let wait = try database.accounts.signInWait(account: throttled, clientAddress: client, now: context.now) {
            var response = try again(tr("staff.tooManyPins", ["time": Formatting.duration(max(60, wait))]), status: 429)
            response.headers.append(("Retry-After", String(Int(wait.rounded(.up)))))
            return response
        }
        guard let pinHash, StaffPin.isAcceptable(pin), PasswordHasher().verify(pin, against: pinHash) else {
            try database.accounts.recordSignInFailure(account: throttled, clientAddress: client, now: context.now)
            logger.notice("kiosk \(kiosk.id): a wrong staff PIN from \(context.request.client)")
            return try again(tr(form.person == nil ? "staff.wrongPin" : "staff.wrongOwnPin"), status: 403)
        }
        try database.accounts.clearSignInFailures(account: throttled, clientAddress: client)
        logger.info("kiosk \(kiosk.id): staff signed in to the door console\(pass.person.map { " (account \($0))" } ?? "")")
        var response = Response.redirect(to: Paths.kioskDoor())
        response.setCookie(pass.cookie(pinHash: pinHash, signer: staffPasses, now: context.now, secure: context.secure))
        return response
    }

    func staffSignOut(_ context: KioskContext) throws -> Response {
        var response = Response.redirect(to: Paths.kiosk())
        response.setCookie(StaffPass.signedOut(secure: context.secure))
        return response
    }

    private func staffPage(_ context: KioskContext, _ form: StaffSignInPage.Form, status: Int = 200) throws -> Response {
        let store = try store(of: context.kiosk)
        let people = try database.accounts.doorStaffWithPin(storeId: store.id).map { person in
            Choice(value: String(person.id.rawValue), label: person.name, checked: person.id.rawValue == form.person)
        }
        let shared = try database.accounts.staffPinHash(storeId: store.id) != nil
        return views.page(title: tr("staff.title"), context,
                          StaffSignInPage(storeName: store.name, people: people, hasSharedPin: shared, form: form),
                          status: status)
    }

    private func enrolPage(_ context: BrowserContext, error: String?, status: Int = 200) -> Response {
        views.page(title: tr("kiosk.enrolTitle"), context, KioskEnrolPage(error: error), status: status)
    }

    private func kioskCookie(value: String, maxAge: Int, secure: Bool) -> Cookie {
        Cookie(name: Visitor.kioskCookie(secure: secure), value: value, maxAge: maxAge, secure: secure)
    }

    // MARK: Ticket dispenser

    func dispenser(_ context: KioskContext) throws -> Response {
        try dispenserPage(context, error: nil)
    }

    func issue(_ context: KioskContext) throws -> Response {
        // The dispenser's script says how long it waits before printing a spare ticket instead:
        // a request that waited longer for the worker issues nothing, or two tickets would be
        // printed for one.
        do {
            try EntranceDesk.checkInTime(answerWithin: context.form["answerWithin"], receivedAt: context.request.receivedAt)
        } catch let error as EntranceError {
            return DeviceArea.error(error)
        }
        // An address to be told it is their turn, if they left one: checked before anything is issued.
        let email = String((context.form["email"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(300))
        if !email.isEmpty, AccountFields.emailProblem(email) != nil {
            return try dispenserPage(context, error: nil, email: email, emailError: tr("kiosk.email.invalid"))
        }
        let outcome = try desk.issueTicket(
            people: context.form["people"].flatMap { Int($0) }, minutes: context.form["minutes"].flatMap { Int($0) },
            requestKey: context.form["requestKey"], kiosk: context.kiosk,
            contact: email.isEmpty ? nil : WalkInContact(email: email, language: Language.current.rawValue), now: context.now)
        switch outcome {
        case .success(let ticket):
            return .redirect(to: printedTicketLink(ticket.id, kioskId: context.kiosk.id))
        case .failure(let error):
            return try dispenserPage(context, error: error, email: email)
        }
    }

    private func dispenserPage(_ context: KioskContext, error: EntranceError?, email: String = "", emailError: String? = nil)
        throws -> Response
    {
        guard let (entry, standing) = database.board.live(context.kiosk.storeId, now: context.now) else {
            throw HTTPError.notFound
        }
        var page = DispenserPage(entry: entry, standing: standing, now: context.now, error: error?.message)
        page.email = email
        page.emailError = emailError
        return views.page(title: tr("kiosk.takeTicket"), context, page, status: error?.status ?? (emailError == nil ? 200 : 422))
    }

    /// The ticket to print: only one this kiosk printed (`printedTicketLink`), never a priority
    /// ticket staff issued, and only while it is fresh: the kiosk is a public screen, not a
    /// history.
    func ticket(_ context: KioskContext) throws -> Response {
        let kiosk = context.kiosk
        let id: ReservationID = try context.id()
        guard let ref = context.request.query["ref"], printedTickets.isSignature(ref, of: "\(kiosk.id):\(id.rawValue)"),
            let ticket = try database.doors.walkInTicket(id: id, storeId: kiosk.storeId), !ticket.priority,
            context.now.timeIntervalSince(ticket.createdAt) < Self.ticketShownFor
        else { throw HTTPError.notFound }
        let store = try store(of: kiosk)
        let code = try QRCode(encoding: desk.codes.text(for: ticket, now: context.now))
        var page = KioskTicketPage(ticket: ticket, store: store, code: code,
                                   standing: try desk.standing(of: ticket, now: context.now), now: context.now)
        page.follow = try followBlock(ticket.id)
        page.willEmail = try database.doors.hasContact(ticket.id)
        return views.page(title: tr("ticket.title"), context, page)
    }

    /// How a printed ticket is followed from any phone (`FollowCodes.block`).
    func followBlock(_ id: ReservationID) throws -> KioskTicketPage.Follow {
        try follow.block(for: id, baseURL: baseURL)
    }

    /// The kiosk's spare tickets for today (its block, reserved on first asking), each as the
    /// receipt to print for each party size the store takes: what the dispenser's script keeps, to
    /// print while CLup cannot be reached.
    func spares(_ context: KioskContext) throws -> Response {
        let store = try store(of: context.kiosk)
        // A ticket's receipts (one per party size) share its address to follow it: drawn once.
        var follows: [ReservationID: KioskTicketPage.Follow] = [:]
        let block = try desk.spareTickets(kiosk: context.kiosk, now: context.now) { id, number, people, code in
            let qr = try QRCode(encoding: code)
            let follow = try follows[id] ?? followBlock(id)
            follows[id] = follow
            return KioskTicketPage.offlineReceipt(storeName: store.name, storeAddress: store.address, number: number,
                                                  people: people, code: QRDrawing(side: qr.svgSide, path: qr.svgPath),
                                                  follow: follow)
        }
        guard let block else { throw HTTPError.notFound }
        return .json(block)
    }

    /// A ticket the dispenser printed offline, reported by its script once CLup answers (as the
    /// device API's `POST /api/v1/tickets/offline`): JSON `{id, number, status}`, or the API's
    /// error.
    func reportPrinted(_ context: KioskContext) throws -> Response {
        do {
            let (ticket, made) = try desk.reportOfflineTicket(
                context.form["id"].flatMap { Int64($0) }.map { ReservationID($0) },
                people: context.form["people"].flatMap { Int($0) }, minutes: context.form["minutes"].flatMap { Int($0) },
                issuedAt: context.form["issuedAt"], kiosk: context.kiosk, now: context.now)
            return .json(PrintedJSON(id: ticket.id, number: ticket.number, status: ticket.status.rawValue),
                         status: made ? 201 : 200)
        } catch let error as EntranceError {
            return DeviceArea.error(error)
        }
    }

    struct PrintedJSON: Encodable {
        var id: ReservationID
        var number: Int
        var status: String
    }

    // MARK: Scanner

    func scanner(_ context: KioskContext) throws -> Response {
        let store = try store(of: context.kiosk)
        let inside = database.board.standing(of: store.id, now: context.now)?.status.peopleInside ?? 0
        return views.page(title: tr("kiosk.scanner"), context,
                          ScannerPage(storeName: store.name, report: nil, peopleInside: inside, capacity: store.capacity))
    }

    /// A scan from the scanner page: the page again with the verdict, or the verdict as JSON
    /// for the page's script.
    func scan(_ context: KioskContext) throws -> Response {
        let wantsJSON = context.request.headers["accept"]?.contains("application/json") == true
        if wantsJSON, let scanId = context.form["scanId"] {
            // The page's script names and dates each scan, so a retry counts once.
            do {
                let answer = try desk.scan(code: context.form["code"] ?? "", kiosk: context.kiosk, scanId: scanId,
                                           scannedAt: context.form["scannedAt"], offlineResult: context.form["offlineResult"],
                                           answerWithin: context.form["answerWithin"],
                                           receivedAt: context.request.receivedAt, now: context.now)
                return .json(text: answer.answer)
            } catch let error as EntranceError {
                return DeviceArea.error(error)
            }
        }
        let report = try desk.scan(code: context.form["code"] ?? "", kiosk: context.kiosk, now: context.now)
        if wantsJSON { return .json(report) }
        let store = try store(of: context.kiosk)
        let page = ScannerPage(
            storeName: store.name,
            report: ScanDisplay(result: report.result, headline: report.headline, message: report.message),
            peopleInside: report.peopleInside, capacity: store.capacity)
        return views.page(title: report.headline, context, page)
    }

    // MARK: Now calling

    /// The numbers called (latest first), the next ones and the count inside: a page, or as
    /// JSON (`BoardJSON`) for the page's script, which updates the board in place.
    func board(_ context: KioskContext) throws -> Response {
        let store = try store(of: context.kiosk)
        let board = EntranceBoard(database.board.entry(store.id)?.live ?? .none)
        if context.request.headers["accept"]?.contains("application/json") == true {
            return .json(BoardJSON(called: board.called.map(\.number), next: board.waiting.map(\.number),
                                   peopleInside: board.peopleInside, capacity: store.capacity))
        }
        return views.page(title: tr("kiosk.board"), context, BoardPage(
            storeName: store.name, called: board.called.map(\.number), next: board.waiting.map(\.number),
            peopleInside: board.peopleInside, capacity: store.capacity))
    }

    /// The board as its script reads it: ticket numbers and counts, nothing of anyone.
    struct BoardJSON: Encodable {
        var called: [Int]
        var next: [Int]
        var peopleInside: Int
        var capacity: Int
    }

    private func store(of kiosk: Kiosk) throws -> Store {
        guard let store = database.board.entry(kiosk.storeId)?.store else { throw HTTPError.notFound }
        return store
    }
}

extension DispenserPage {
    /// The dispenser with 30 minutes and one person chosen, and the walk-in wait right now.
    init(entry: StoreBoard.Entry, standing: StoreStanding, now: Date, error: String?) {
        let store = entry.store
        let waitText: String
        if store.settings.walkInPlaces == 0 {
            waitText = tr("desk.noWalkIns")
        } else {
            let decision = standing.newcomerDecision(.walkIn)
            if case .accepted(let wait, _) = decision {
                waitText = wait < 60 ? tr("kiosk.noWait") : tr("kiosk.waitNow", ["time": Formatting.duration(wait)])
            } else {
                waitText = EntranceDesk.refusal(decision, now: now, zone: store.zone).message
            }
        }
        self.init(
            storeName: store.name,
            presets: ResidenceTime.presets.map { Choice(value: String($0), label: tr("unit.minutes", ["n": String($0)]), checked: $0 == 30) },
            people: Choice.parties(upTo: store.largestParty, chosen: 1),
            requestKey: Secrets.token(), waitText: waitText, error: error)
    }
}

extension KioskTicketPage {
    init(ticket: Reservation, store: Store, code: QRCode, standing: QueueStanding?, now: Date) {
        let zone = store.zone
        let called = ticket.status == .called
        let headline: String
        if called {
            let deadline = ticket.callDeadline(at: store) ?? now
            headline = tr("receipt.goIn", ["time": Formatting.clock(deadline, now: now, timeZone: zone)])
        } else if let entry = standing?.entry {
            headline = tr("receipt.wait", ["wait": Formatting.duration(entry.timeIntervalSince(now)),
                                           "entry": Formatting.clock(entry, now: now, timeZone: zone)])
        } else {
            headline = tr("receipt.watch")
        }
        var facts = [
            Fact(tr("fact.issued"), Formatting.moment(ticket.createdAt, now: now, timeZone: zone)),
            Fact(tr("fact.people"), Formatting.people(ticket.people)),
            Fact(tr("fact.visitLength"), tr("fact.aboutMinutes", ["n": String(ticket.residenceMinutes)])),
        ]
        if ticket.priority { facts.append(Fact(tr("fact.priority"), PriorityText.policy(store.settings.priority))) }
        self.init(
            storeName: store.name, storeAddress: store.address, number: ticket.number,
            facts: facts,
            called: called, headline: headline, code: QRDrawing(side: code.svgSide, path: code.svgPath))
    }
}
