import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import Foundation

/// The door console for a store's staff: the tickets called, waiting and inside, and what a
/// scanner cannot do — call again, mark a no-show, let in or out by ticket number, close a
/// visit whose customer left without scanning — each with a reason, recorded with who did it.
/// Refused scans appear in the same log.
///
/// A manager uses it from the store's management pages, signed in; staff at the entrance use
/// it on an enrolled kiosk's screen, giving their name, which the log keeps with the kiosk's.
struct DoorConsole {
    let database: AppDatabase
    let views: Views

    /// Where the console is open: for a signed-in manager, or on a kiosk's screen.
    enum Place {
        case manager(userId: Int64, storeId: Int64)
        case kiosk(Kiosk)

        var storeId: Int64 {
            switch self {
            case .manager(_, let storeId): storeId
            case .kiosk(let kiosk): kiosk.storeId
            }
        }

        var isKiosk: Bool {
            if case .kiosk = self { return true }
            return false
        }

        var formAction: String {
            switch self {
            case .manager(_, let storeId): Paths.manageStoreDoor(storeId)
            case .kiosk: Paths.kioskDoor()
            }
        }
    }

    /// The form as sent, and what to say about it.
    struct Form {
        var number = ""
        var reason = ""
        var staffName = ""
        var chosen = DoorAction.Kind.admit
        var message: String?
        var error: String?
    }

    static let actions: [(DoorAction.Kind, String)] = [
        (.admit, "Let in (the code will not scan)"), (.letOut, "Let out (the code will not scan)"),
        (.leftUnscanned, "Left without scanning out"), (.recall, "Call again"), (.noShow, "Mark as not coming"),
    ]

    func show(_ context: some BrowserRequest, at place: Place) throws -> Response {
        try page(context, at: place, Form(), status: 200)
    }

    func act(_ context: some BrowserRequest, at place: Place) throws -> Response {
        let values = context.form
        var form = Form(number: (values["number"] ?? "").trimmingCharacters(in: .whitespaces),
                        reason: (values["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines),
                        staffName: (values["staff"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines))
        let kind = values["action"].flatMap(DoorAction.Kind.init(rawValue:)).flatMap { kind in
            Self.actions.contains { $0.0 == kind } ? kind : nil
        }
        form.chosen = kind ?? .admit
        func again(_ error: String, status: Int = 422) throws -> Response {
            form.error = error
            return try page(context, at: place, form, status: status)
        }
        guard let kind else { return try again("Choose an action from the list.") }
        guard let number = Int(form.number), (1...999_999).contains(number) else {
            return try again("Enter the ticket's number, as printed or shown on the customer's phone.")
        }
        guard !form.reason.isEmpty, form.reason.count <= 200 else {
            return try again("Say why, in a few words (at most 200 characters): it is kept in the log.")
        }
        let staff: DoorStaff
        switch place {
        case .manager(let userId, _): staff = .user(userId)
        case .kiosk(let kiosk):
            guard !form.staffName.isEmpty, ManageArea.textProblem(form.staffName, maxLength: 60) == nil else {
                return try again("Give your name (at most 60 characters): the log keeps who did what.")
            }
            staff = .kiosk(id: kiosk.id, name: form.staffName)
        }
        let now = context.now
        switch try database.door(kind, storeId: place.storeId, number: number, reason: form.reason, by: staff, now: now) {
        case .done(let ticket):
            let store = database.board.entry(place.storeId)?.store
            switch kind {
            case .admit: form.message = "Ticket \(number) is in (\(Formatting.people(ticket.people)))."
            case .letOut: form.message = "Ticket \(number) is out."
            case .leftUnscanned: form.message = "Ticket \(number)'s visit is closed: the count inside is corrected."
            case .recall:
                let deadline = store.flatMap(ticket.callDeadline(at:)) ?? now
                form.message = "Ticket \(number) is called again, until "
                    + Formatting.clock(deadline, now: now, timeZone: store?.zone ?? .current) + "."
            case .noShow: form.message = "Ticket \(number) is marked as not coming; its place goes to the next in line."
            case .scanRefused: break
            }
            // The staff member's name stays for the next action; the rest is cleared.
            form.number = ""
            form.reason = ""
            return try page(context, at: place, form, status: 200)
        case .refusedByRules(let scan):
            return try again("Not done: " + ScanReport(scan, now: now).message, status: 409)
        case .noSuchTicket:
            return try again("There is no ticket \(number) today at this store.", status: 404)
        case .notApplicable(let status):
            return try again("Not done: ticket \(number) is \(Self.statusWords(status)).", status: 409)
        }
    }

    static func statusWords(_ status: ReservationStatus) -> String {
        switch status {
        case .waiting: "waiting for its turn"
        case .called: "called and not yet in"
        case .booked: "a booking not yet used"
        case .inside: "inside"
        case .done: "a visit already over"
        case .cancelled: "cancelled"
        case .expired: "expired"
        }
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
            return DoorConsolePage.Row(number: ticket.number, detail: "· \(Formatting.people(ticket.people)) · by "
                + time(at + Double(store.callGraceMinutes) * 60))
        }
        let waiting = board.waiting.map { ticket in
            DoorConsolePage.Row(number: ticket.number, detail: "· \(Formatting.people(ticket.people))"
                + (ticket.walkIn ? " · walk-in" : "") + (ticket.leftAt != nil ? " · on the way" : ""))
        }
        let inside = live.compactMap { ticket -> DoorConsolePage.Row? in
            guard case .inside(let since) = ticket.state else { return nil }
            return DoorConsolePage.Row(number: ticket.number, detail: "· \(Formatting.people(ticket.people)) · since \(time(since))")
        }
        let log = try database.doorLog(storeId: store.id).map { entry in
            DoorConsolePage.LogRow(
                time: time(entry.at), what: Self.logWords(entry.kind),
                number: entry.number.map(String.init) ?? "—",
                who: entry.staff ?? (entry.kind == .scanRefused ? "scanner" : "—"),
                why: entry.kind == .scanRefused ? Self.refusalWords(entry.reason) : entry.reason)
        }
        var page = DoorConsolePage(
            storeId: store.id, storeName: store.name,
            inside: "\(Formatting.people(board.peopleInside)) inside of \(store.capacity).",
            called: called, waiting: waiting, insideRows: inside,
            actions: Self.actions.map { Choice(value: $0.0.rawValue, label: $0.1, checked: $0.0 == form.chosen) },
            number: form.number, reason: form.reason, message: form.message, error: form.error, log: log)
        page.formAction = place.formAction
        page.onKiosk = place.isKiosk
        page.staffName = form.staffName
        return views.page(title: "Door: \(store.name)", section: place.isKiosk ? .none : .manage, context, page,
                          status: status)
    }

    static func logWords(_ kind: DoorAction.Kind) -> String {
        switch kind {
        case .recall: "called again"
        case .noShow: "marked as not coming"
        case .admit: "let in by number"
        case .letOut: "let out by number"
        case .leftUnscanned: "closed: left without scanning"
        case .scanRefused: "scan refused"
        }
    }

    /// A refused scan's code, in words.
    static func refusalWords(_ code: String) -> String {
        switch code {
        case "unknownCode": "not a CLup code"
        case "otherStore": "another store's ticket"
        case "cancelled": "cancelled ticket"
        case "expired": "expired ticket"
        case "notYetCalled": "not called yet"
        case "tooEarly": "booking too early"
        case "tooLate": "booking too late"
        case "alreadyUsed": "already used"
        case "full": "store full"
        default: code
        }
    }
}

extension ManageArea {
    func door(_ context: ManagedStoreContext) throws -> Response {
        try DoorConsole(database: database, views: views)
            .show(context, at: .manager(userId: context.user.id, storeId: context.storeId))
    }

    func doorAction(_ context: ManagedStoreContext) throws -> Response {
        try DoorConsole(database: database, views: views)
            .act(context, at: .manager(userId: context.user.id, storeId: context.storeId))
    }
}
