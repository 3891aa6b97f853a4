import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import Foundation

/// The door console for a store's staff: the tickets called, waiting and inside, and what a
/// scanner cannot do — call again, mark a no-show, let in or out by ticket number, close a
/// visit whose customer left without scanning — each with a reason, recorded with who did it.
/// Refused scans appear in the same log.
extension ManageArea {
    static let doorActions: [(DoorAction.Kind, String)] = [
        (.admit, "Let in (the code will not scan)"), (.letOut, "Let out (the code will not scan)"),
        (.leftUnscanned, "Left without scanning out"), (.recall, "Call again"), (.noShow, "Mark as not coming"),
    ]

    func door(_ context: ManagedStoreContext) throws -> Response {
        try doorPage(context, number: "", reason: "", chosen: .admit, message: nil, error: nil, status: 200)
    }

    func doorAction(_ context: ManagedStoreContext) throws -> Response {
        let form = context.form
        let numberText = (form["number"] ?? "").trimmingCharacters(in: .whitespaces)
        let reason = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let kind = form["action"].flatMap(DoorAction.Kind.init(rawValue:)).flatMap { kind in
            Self.doorActions.contains { $0.0 == kind } ? kind : nil
        }
        func again(_ error: String, status: Int = 422) throws -> Response {
            try doorPage(context, number: numberText, reason: reason, chosen: kind ?? .admit, message: nil, error: error,
                         status: status)
        }
        guard let kind else { return try again("Choose an action from the list.") }
        guard let number = Int(numberText), (1...999_999).contains(number) else {
            return try again("Enter the ticket's number, as printed or shown on the customer's phone.")
        }
        guard !reason.isEmpty, reason.count <= 200 else {
            return try again("Say why, in a few words (at most 200 characters): it is kept in the log.")
        }
        let now = context.now
        switch try database.door(kind, storeId: context.storeId, number: number, reason: reason, userId: context.user.id,
                                 now: now)
        {
        case .done(let ticket):
            let store = database.board.entry(context.storeId)?.store
            let done: String
            switch kind {
            case .admit: done = "Ticket \(number) is in (\(Formatting.people(ticket.people)))."
            case .letOut: done = "Ticket \(number) is out."
            case .leftUnscanned: done = "Ticket \(number)'s visit is closed: the count inside is corrected."
            case .recall:
                let deadline = store.flatMap(ticket.callDeadline(at:)) ?? now
                done = "Ticket \(number) is called again, until "
                    + Formatting.clock(deadline, now: now, timeZone: store?.zone ?? .current) + "."
            case .noShow: done = "Ticket \(number) is marked as not coming; its place goes to the next in line."
            case .scanRefused: done = ""
            }
            return try doorPage(context, number: "", reason: "", chosen: kind, message: done, error: nil, status: 200)
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

    private func doorPage(_ context: ManagedStoreContext, number: String, reason: String, chosen: DoorAction.Kind,
                          message: String?, error: String?, status: Int) throws -> Response
    {
        guard let entry = database.board.entry(context.storeId) else { throw HTTPError.notFound }
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
        let page = DoorConsolePage(
            storeId: store.id, storeName: store.name,
            inside: "\(Formatting.people(board.peopleInside)) inside of \(store.capacity).",
            called: called, waiting: waiting, insideRows: inside,
            actions: Self.doorActions.map { Choice(value: $0.0.rawValue, label: $0.1, checked: $0.0 == chosen) },
            number: number, reason: reason, message: message, error: error, log: log)
        return views.page(title: "Door: \(store.name)", section: .manage, context, page, status: status)
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
