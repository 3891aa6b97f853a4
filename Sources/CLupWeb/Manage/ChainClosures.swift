import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// An administrator closes every store on a day or a run of days (a national holiday, a
/// strike) in one go (`/manage/closures`): each store as its hours page would close it, its
/// bookings those days cancelled and their customers told, each closure in its store's change
/// log. The closures to come are listed by day, with how many stores each closes, and each can
/// be lifted everywhere at once.
extension StoreFields {
    /// The longest run of days closed at once.
    public static let longestClosure = 31
}

extension ManageArea {
    func chainClosuresForm(_ context: ManagerContext) throws -> Response {
        var page = try chainClosuresPage(context, values: [:], errors: [:])
        let query = context.request.query
        if let closed = query["closed"].flatMap(Int.init) {
            let cancelled = query["cancelled"].flatMap(Int.init) ?? 0
            page.notice = tr("closures.done", count: closed)
                + " " + (cancelled == 0 ? tr("closures.noBookings") : tr("closures.cancelled", count: cancelled))
        } else if let reopened = query["reopened"].flatMap(Int.init) {
            page.notice = tr("closures.reopened", count: reopened)
        }
        return views.page(title: tr("closures.title"), section: .manage, context, page)
    }

    func closeEveryStore(_ context: ManagerContext) throws -> Response {
        let form = context.form
        if form["action"] == "reopen" {
            guard let day = form["day"].flatMap(Int.init) else { throw HTTPError.badRequest(tr("hours.whichDay")) }
            let reopened = try database.stores.reopenDays(storeIds: nil, day: day, userId: context.user.id, now: context.now)
            return .redirect(to: Paths.manageClosures(query: "reopened=\(reopened)"))
        }
        var values: [String: String] = [:]
        for name in ["from", "until", "reason"] { values[name] = (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
        let today = chainToday(context.now)
        var errors: [String: String] = [:]
        var first: Int?
        switch Self.closureProblem(date: values["from"] ?? "", reason: values["reason"] ?? "", today: today) {
        case .success(let day): first = day
        case .failure(let problem):
            errors["from"] = problem.date
            errors["reason"] = problem.reason
        }
        var last = first
        if let until = values["until"], !until.isEmpty {
            if let day = LocalDate(text: until)?.day {
                if let first, day < first {
                    errors["until"] = tr("closures.untilBefore")
                } else if let first, day - first >= StoreFields.longestClosure {
                    errors["until"] = tr("closures.tooLong", ["n": String(StoreFields.longestClosure)])
                } else {
                    last = day
                }
            } else {
                errors["until"] = tr("hours.badDate")
            }
        }
        guard errors.isEmpty, let first, let last else {
            let page = try chainClosuresPage(context, values: values, errors: errors)
            return views.page(title: tr("closures.title"), section: .manage, context, page, status: 422)
        }
        let done = try database.stores.closeDays(storeIds: nil, days: first...last, reason: values["reason"] ?? "",
                                                 userId: context.user.id, now: context.now)
        return .redirect(to: Paths.manageClosures(query: "closed=\(done.closed)&cancelled=\(done.cancelled)"))
    }

    /// Today in the chain's calendar: the first store's zone (a chain keeps one), else Rome's.
    private func chainToday(_ now: Date) -> Int {
        ZoneOffsets.day(of: now, in: Self.chainZone(database))
    }

    /// The chain's calendar: its first store's time zone (a chain keeps one).
    static func chainZone(_ database: AppDatabase) -> TimeZone {
        database.board.entries().first?.store.zone ?? TimeZone(identifier: "Europe/Rome") ?? .gmt
    }

    private func chainClosuresPage(_ context: ManagerContext, values: [String: String], errors: [String: String]) throws
        -> ChainClosuresPage
    {
        let today = chainToday(context.now)
        let stores = try database.stores.storeCount()
        let rows = try database.stores.closuresAcrossStores(from: today).map { closure in
            ChainClosuresPage.Row(day: closure.day, date: Formatting.date(LocalDate(day: closure.day)),
                                  reason: closure.reason, stores: tr("closures.storesClosed", ["n": String(closure.stores),
                                                                                            "of": String(stores)]))
        }
        var page = ChainClosuresPage(rows: rows, values: values, errors: errors)
        page.range = (LocalDate(day: today).text, LocalDate(day: today + Self.closureHorizon).text)
        return page
    }
}
