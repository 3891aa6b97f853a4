import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// The door console for a store's staff: the tickets called, waiting and inside, and what a
/// scanner cannot do — call again, mark a no-show, let in or out by ticket number, close a
/// visit whose customer left without scanning — each with a reason, recorded with who did it.
/// Refused scans appear in the same log. Staff issue tickets here too (`issueTicket`): an
/// ordinary one for someone who phones the store, and a priority one where the store has a
/// priority lane.
///
/// A manager or the store's door staff use it from the management pages, signed in; staff at
/// the entrance use it on a door kiosk's screen, signed in there with their own PIN or with
/// their name and the store's shared staff PIN (`StaffPass`); the log keeps their name with
/// the kiosk's. Actions from a kiosk are limited
/// to `kioskLimit` in `kioskWindow`, and the manager's store page lists them.
struct DoorConsole {
    let database: AppDatabase
    let views: Views
    let codes: TicketCodes
    /// To follow a ticket from any phone: read to someone who phoned for one.
    let follow: FollowCodes
    let baseURL: String

    /// Enough for a busy entrance's exceptions; a console left open cannot empty a queue.
    static let kioskLimit = 30
    static let kioskWindow: TimeInterval = 10 * 60

    /// Where the console is open: for a signed-in manager, or on a kiosk's screen.
    enum Place {
        /// Signed in on the site: a manager of the store (or an administrator) when `manages`,
        /// else one of its door staff.
        case manager(userId: UserID, storeId: StoreID, manages: Bool = true)
        /// Staff signed in on a kiosk: with their own PIN (`person`) or the store's shared one.
        case kiosk(Kiosk, staffName: String, person: UserID?)

        var storeId: StoreID {
            switch self {
            case .manager(_, let storeId, _): storeId
            case .kiosk(let kiosk, _, _): kiosk.storeId
            }
        }

        var staffName: String {
            switch self {
            case .manager: ""
            case .kiosk(_, let name, _): name
            }
        }

        var isKiosk: Bool {
            if case .kiosk = self { return true }
            return false
        }

        var formAction: String {
            switch self {
            case .manager(_, let storeId, _): Paths.manageStoreDoor(storeId)
            case .kiosk: Paths.kioskDoor()
            }
        }

        var doorsAction: String {
            switch self {
            case .manager(_, let storeId, _): Paths.manageStoreDoorOffline(storeId)
            case .kiosk: Paths.kioskDoorOffline()
            }
        }

        var priorityAction: String {
            switch self {
            case .manager(_, let storeId, _): Paths.manageStoreDoorPriority(storeId)
            case .kiosk: Paths.kioskDoorPriority()
            }
        }

        var phoneAction: String {
            switch self {
            case .manager(_, let storeId, _): Paths.manageStoreDoorPhone(storeId)
            case .kiosk: Paths.kioskDoorPhone()
            }
        }

        /// The console showing ticket `id`, just issued by staff.
        func issued(_ id: ReservationID) -> String {
            switch self {
            case .manager(_, let storeId, _): Paths.manageStoreDoor(storeId, query: "issued=\(id)")
            case .kiosk: Paths.kioskDoor(query: "issued=\(id)")
            }
        }
    }

    /// The form as sent, and what to say about it.
    struct Form {
        var number = ""
        var reason = ""
        var chosen = DoorAction.Kind.admit
        var message: String?
        var error: String?
        var priorityError: String?
        var phoneError: String?
    }

    /// The actions staff can take, in the order offered; each is worded `door.action.<kind>`.
    static let actions: [DoorAction.Kind] = [.admit, .letOut, .leftUnscanned, .recall, .noShow]

    func show(_ context: some BrowserRequest, at place: Place) throws -> Response {
        try page(context, at: place, Form(), status: 200)
    }

    func act(_ context: some BrowserRequest, at place: Place) throws -> Response {
        let values = context.form
        var form = Form(number: (values["number"] ?? "").trimmingCharacters(in: .whitespaces),
                        reason: (values["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
        let kind = values["action"].flatMap(DoorAction.Kind.init(rawValue:)).flatMap { kind in
            Self.actions.contains(kind) ? kind : nil
        }
        form.chosen = kind ?? .admit
        func again(_ error: String, status: Int = 422) throws -> Response {
            form.error = error
            return try page(context, at: place, form, status: status)
        }
        guard let kind else { return try again(tr("door.chooseAction")) }
        guard let number = Int(form.number), (1...999_999).contains(number) else {
            return try again(tr("door.enterNumber"))
        }
        guard !form.reason.isEmpty, ManageArea.textProblem(form.reason, maxLength: 200) == nil else {
            return try again(tr("door.sayWhy"))
        }
        let now = context.now
        guard let staff = try staff(at: place, now: now) else {
            return try again(tr("door.kioskLimit", ["n": String(Self.kioskLimit)]), status: 429)
        }
        switch try database.doors.door(kind, storeId: place.storeId, number: number, reason: form.reason, by: staff, now: now) {
        case .done(let ticket):
            let store = database.board.entry(place.storeId)?.store
            switch kind {
            case .admit: form.message = tr("door.done.admit", ["number": String(number), "people": Formatting.people(ticket.people)])
            case .letOut: form.message = tr("door.done.letOut", ["number": String(number)])
            case .leftUnscanned: form.message = tr("door.done.leftUnscanned", ["number": String(number)])
            case .recall:
                let deadline = store.flatMap(ticket.callDeadline(at:)) ?? now
                form.message = tr("door.done.recall", ["number": String(number),
                                                       "time": Formatting.clock(deadline, now: now, timeZone: store?.zone ?? .current)])
            case .noShow: form.message = tr("door.done.noShow", ["number": String(number)])
            case .scanRefused, .offlineConflict, .priority, .offlineDoor, .phoneIn: break
            }
            form.number = ""
            form.reason = ""
            return try page(context, at: place, form, status: 200)
        case .refusedByRules(let scan):
            return try again(tr("door.notDone", ["why": ScanReport(scan, now: now).message]), status: 409)
        case .noSuchTicket:
            return try again(tr("door.noTicket", ["number": String(number)]), status: 404)
        case .notApplicable(let status):
            return try again(tr("door.notApplicable", ["number": String(number), "status": Self.statusWords(status)]), status: 409)
        }
    }

    /// Who acts at `place`; nil if a kiosk has reached its limit of actions.
    private func staff(at place: Place, now: Date) throws -> DoorStaff? {
        switch place {
        case .manager(let userId, _, _): return .user(userId)
        case .kiosk(let kiosk, let name, let person):
            guard try database.doors.doorActionCount(kioskId: kiosk.id, since: now - Self.kioskWindow) < Self.kioskLimit else {
                return nil
            }
            return .kiosk(id: kiosk.id, name: name, person: person)
        }
    }

    /// A ticket staff issue (never the public dispenser): with `priority`, for someone at the door
    /// who cannot wait long standing, in the place the store's lane gives it; otherwise an
    /// ordinary walk-in ticket for someone who phoned the store, who follows it with the code
    /// staff read them and gives its number at the door. The log keeps who issued it, not why.
    /// The console then shows the ticket, to print, show or read out.
    func issueTicket(_ context: some BrowserRequest, at place: Place, priority: Bool) throws -> Response {
        let values = context.form
        var form = Form()
        func again(_ error: String, status: Int = 422) throws -> Response {
            if priority { form.priorityError = error } else { form.phoneError = error }
            return try page(context, at: place, form, status: status)
        }
        let party: (people: Int, minutes: Int)
        let largest = database.board.entry(place.storeId)?.store.largestParty ?? StoreSettings.defaultLargestParty
        switch EntranceDesk.party(people: values["people"].flatMap { Int($0) }, minutes: values["minutes"].flatMap { Int($0) },
                                  largestParty: largest) {
        case .success(let checked): party = checked
        case .failure(let problem): return try again(problem.message)
        }
        let now = context.now
        guard let staff = try staff(at: place, now: now) else {
            return try again(tr("door.kioskLimit", ["n": String(Self.kioskLimit)]), status: 429)
        }
        switch try database.doors.issueWalkInTicket(storeId: place.storeId, people: party.people, residenceMinutes: party.minutes,
                                               requestKey: EntranceDesk.requestKey(values["requestKey"]), issuedBy: staff,
                                               priority: priority, now: now)
        {
        case .issued(let ticket), .alreadyIssued(let ticket):
            return .redirect(to: place.issued(ticket.id))
        case .noPriorityLane:  // said where the page says it, since it then has no priority form
            form.error = tr("door.priority.none")
            return try page(context, at: place, form, status: 409)
        case .noWalkInPlaces:
            return try again(tr("desk.noWalkIns"), status: 409)
        case .refused(let decision):
            let zone = database.board.entry(place.storeId)?.store.zone ?? .gmt
            return try again(EntranceDesk.refusal(decision, now: now, zone: zone).message, status: 409)
        case .noSuchStore:
            throw HTTPError.notFound
        }
    }

    /// Lets one of the store's doors admit while offline, or only let people out, as staff
    /// chose; said on the console and kept in the log. A door that is not the store's is a 404.
    func setAdmitsOffline(_ context: some BrowserRequest, at place: Place) throws -> Response {
        let values = context.form
        guard let kioskId = values["kiosk"].flatMap({ Int64($0) }), let admits = ["on": true, "off": false][values["admits"] ?? ""]
        else { throw HTTPError.notFound }
        var form = Form()
        let now = context.now
        guard let staff = try staff(at: place, now: now) else {
            form.error = tr("door.kioskLimit", ["n": String(Self.kioskLimit)])
            return try page(context, at: place, form, status: 429)
        }
        guard try database.doors.setAdmitsOffline(kioskId: kioskId, storeId: place.storeId, admits, by: staff, now: now),
              let door = try database.doors.offlineDoors(storeId: place.storeId, now: now).first(where: { $0.kioskId == kioskId })
        else { throw HTTPError.notFound }
        form.message = tr(admits ? "door.doors.nowAdmits" : "door.doors.nowLetsOut", ["door": door.label])
        return try page(context, at: place, form, status: 200)
    }

    static func statusWords(_ status: ReservationStatus) -> String {
        tr("door.status.\(status.rawValue)")
    }

    private func page(_ context: some BrowserRequest, at place: Place, _ form: Form, status: Int) throws -> Response {
        guard let entry = database.board.entry(place.storeId) else { throw HTTPError.notFound }
        let store = entry.store
        let now = context.now
        func time(_ date: Date) -> String { Formatting.clock(date, now: now, timeZone: store.zone) }
        // All from the board, as the entrance's own screen reads it.
        let board = EntranceBoard(entry.live, next: 30)
        let live = entry.live.live
        let called = live.compactMap { ticket -> DoorConsolePage.Row? in
            guard case .called(let at) = ticket.state else { return nil }
            return DoorConsolePage.Row(number: ticket.number, detail: "· \(Formatting.people(ticket.people)) · "
                + tr("door.by", ["time": time(at + Double(store.callGraceMinutes) * 60)]))
        }
        let waiting = board.waiting.map { ticket in
            DoorConsolePage.Row(number: ticket.number, detail: "· \(Formatting.people(ticket.people))"
                + (ticket.priority ? " · " + tr("door.priority") : "")
                + (ticket.walkIn ? " · " + tr("door.walkIn") : "") + (ticket.leftAt != nil ? " · " + tr("door.onTheWay") : ""))
        }
        let inside = live.compactMap { ticket -> DoorConsolePage.Row? in
            guard case .inside(let since) = ticket.state else { return nil }
            return DoorConsolePage.Row(number: ticket.number, detail: "· \(Formatting.people(ticket.people)) · " + tr("door.since", ["time": time(since)]))
        }
        let log = try database.doors.doorLog(storeId: store.id).map { Self.logRow($0, time: time($0.at)) }
        var page = DoorConsolePage(
            storeId: store.id.rawValue, storeName: store.name,
            inside: tr("door.insideOf", ["people": Formatting.people(board.peopleInside), "capacity": String(store.capacity)]),
            called: called, waiting: waiting, insideRows: inside,
            actions: Self.actions.map { Choice(value: $0.rawValue, label: tr("door.action.\($0.rawValue)"), checked: $0 == form.chosen) },
            number: form.number, reason: form.reason, message: form.message, error: form.error, log: log)
        page.formAction = place.formAction
        page.doorsAction = place.doorsAction
        page.doors = try database.doors.offlineDoors(storeId: store.id, now: now).map { door in
            DoorConsolePage.Door(kioskId: door.kioskId, label: door.label, admitsOffline: door.admitsOffline,
                                 holds: door.admitsOffline ? Self.holds(door.heldPlaces) : "")
        }
        page.onKiosk = place.isKiosk
        if case .manager(_, _, false) = place { page.backToStore = false }
        page.staffName = place.staffName
        func ticketForm(_ id: String, title: String, intro: String, button: String, action: String, error: String?)
            -> DoorConsolePage.TicketForm
        {
            DoorConsolePage.TicketForm(
                id: id, title: title, intro: intro, action: action,
                people: (1...store.largestParty).map { Choice(value: String($0), label: Formatting.people($0), checked: $0 == 1) },
                minutes: ResidenceTime.presets.map {
                    Choice(value: String($0), label: tr("unit.minutes", ["n": String($0)]), checked: $0 == 30)
                },
                requestKey: Secrets.token(), button: button, error: error)
        }
        let lane = store.settings.priority
        if lane.isOn {
            page.priority = ticketForm("priority", title: tr("door.priority.title"),
                                       intro: tr("door.priority.intro", ["policy": PriorityText.policy(lane)]),
                                       button: tr("door.priority.issue"), action: place.priorityAction, error: form.priorityError)
        }
        if store.settings.walkInPlaces > 0 {
            page.phone = ticketForm("phone", title: tr("door.phone.title"), intro: tr("door.phone.intro"),
                                    button: tr("door.phone.issue"), action: place.phoneAction, error: form.phoneError)
        }
        if let issued = context.request.query["issued"].flatMap({ Int64($0) }).map(ReservationID.init(rawValue:)),
            let ticket = try database.doors.walkInTicket(id: issued, storeId: store.id),
            now.timeIntervalSince(ticket.createdAt) < KioskArea.ticketShownFor,
            let kind = try database.doors.issuedByStaff(ticket.id)
        {
            let code = try QRCode(encoding: codes.text(for: ticket, now: now))
            let standing = database.board.standing(of: store.id, now: now)?.standing(of: ticket.id)
            page.issued = KioskTicketPage(ticket: ticket, store: store, code: code, standing: standing, now: now)
            page.issued?.follow = try follow.block(for: ticket.id, baseURL: baseURL)
            page.issuedByPhone = kind == .phoneIn
        }
        return views.page(title: tr("door.title", ["store": store.name]), section: place.isKiosk ? .none : .manage, context, page,
                          status: status)
    }

    /// A log entry as the console and the manager's store page show it, at `time` in words.
    static func logRow(_ entry: DoorLogEntry, time: String) -> DoorConsolePage.LogRow {
        let why = switch entry.kind {
        case .scanRefused: Self.refusalWords(entry.reason)
        case .offlineConflict:
            tr(entry.outcome == "exit" ? "door.conflict.exit" : "door.conflict.enter", ["why": Self.refusalWords(entry.reason)])
        case .offlineDoor:
            tr(entry.outcome == "on" ? "door.doors.nowAdmits" : "door.doors.nowLetsOut", ["door": entry.reason])
        default: entry.reason
        }
        return DoorConsolePage.LogRow(
            time: time, what: Self.logWords(entry.kind),
            number: entry.number.map(String.init) ?? "—",
            who: Self.who(entry.staff) ?? ([.scanRefused, .offlineConflict].contains(entry.kind) ? tr("door.scanner") : "—"),
            why: why)
    }

    /// What a door holds for letting people in offline, in words: "holds 3 places".
    static func holds(_ places: Int) -> String {
        tr("door.doors.holds", count: places)
    }

    static func logWords(_ kind: DoorAction.Kind) -> String {
        tr("door.kind.\(kind.rawValue)")
    }

    /// "Gianni at Entrance left", or a manager's name.
    static func who(_ staff: DoorLogEntry.Staff?) -> String? {
        switch staff {
        case .user(let name)?: name
        case .atKiosk(let name, let kiosk)?: tr("door.staffAt", ["name": name, "kiosk": kiosk])
        case nil: nil
        }
    }

    /// A refused scan's code, in words.
    static func refusalWords(_ code: String) -> String {
        Catalogue.text("door.refusal.\(code)") ?? code
    }
}

extension ManageArea {
    func door(_ context: ManagedStoreContext) throws -> Response {
        try console.show(context, at: consolePlace(context))
    }

    func doorAction(_ context: ManagedStoreContext) throws -> Response {
        try console.act(context, at: consolePlace(context))
    }

    func doorPriority(_ context: ManagedStoreContext) throws -> Response {
        try console.issueTicket(context, at: consolePlace(context), priority: true)
    }

    func doorPhone(_ context: ManagedStoreContext) throws -> Response {
        try console.issueTicket(context, at: consolePlace(context), priority: false)
    }

    func doorOffline(_ context: ManagedStoreContext) throws -> Response {
        try console.setAdmitsOffline(context, at: consolePlace(context))
    }

    /// The console for whoever the `doorOfStore` guard let in: a manager, or door staff.
    private func consolePlace(_ context: ManagedStoreContext) throws -> DoorConsole.Place {
        let user = context.user
        let manages = try user.role == .admin || database.accounts.isManager(userId: user.id, of: context.storeId)
        return .manager(userId: user.id, storeId: context.storeId, manages: manages)
    }

    /// The door console, for the store's managers and door staff.
    private var console: DoorConsole {
        DoorConsole(database: database, views: views, codes: codes, follow: follow, baseURL: settings.baseURL)
    }
}
