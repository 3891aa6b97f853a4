import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// An administrator closes stores on a day or a run of days (a national holiday, a strike),
/// or gives them hours of their own (an early closing on Christmas Eve), for every store or a
/// region's, in one go (`/manage/closures`): each store as its hours page would do it, the
/// bookings left outside cancelled and their customers told, each change in its store's change
/// log. What is to come is listed by day, with how many stores each closes or changes, and each
/// can be lifted at once.
extension StoreFields {
    /// The longest run of days closed at once.
    public static let longestClosure = 31
}

extension ManageArea {
    func chainClosuresForm(_ context: ManagerContext) throws -> Response {
        var page = try chainClosuresPage(context, values: ["stores": "all", "kind": "closed"], errors: [:])
        let query = context.request.query
        func count(_ name: String) -> Int { query[name].flatMap(Int.init) ?? 0 }
        if query["closed"] != nil || query["special"] != nil {
            var parts: [String] = []
            if count("closed") > 0 || query["special"] == nil { parts.append(tr("closures.done", count: count("closed"))) }
            if query["special"] != nil { parts.append(tr("closures.special", count: count("special"))) }
            if count("leftClosed") > 0 { parts.append(tr("closures.leftClosed", count: count("leftClosed"))) }
            if count("clashed") > 0 { parts.append(tr("closures.clashed", count: count("clashed"))) }
            let none = query["special"] == nil ? tr("closures.noBookings") : tr("closures.noneOutside")
            parts.append(count("cancelled") == 0 ? none : tr("closures.cancelled", count: count("cancelled")))
            page.notice = parts.joined(separator: " ")
        } else if let reopened = query["reopened"].flatMap(Int.init) {
            page.notice = tr("closures.reopened", count: reopened)
        } else if let usual = query["usual"].flatMap(Int.init) {
            page.notice = tr("closures.usual", count: usual)
        }
        return views.page(title: tr("closures.title"), section: .manage, context, page)
    }

    func changeChainClosures(_ context: ManagerContext) throws -> Response {
        let form = context.form
        if form["action"] == "reopen" || form["action"] == "clear" {
            guard let day = form["day"].flatMap(Int.init) else { throw HTTPError.badRequest(tr("hours.whichDay")) }
            let reason = form["reason"] ?? ""
            if form["action"] == "reopen" {
                let reopened = try database.stores.reopenDays(storeIds: nil, day: day, reason: reason, userId: context.user.id,
                                                              now: context.now)
                return .redirect(to: Paths.manageClosures(query: "reopened=\(reopened)"))
            }
            let cleared = try database.stores.clearSpecialHours(storeIds: nil, day: day, reason: reason,
                                                                userId: context.user.id, now: context.now)
            return .redirect(to: Paths.manageClosures(query: "usual=\(cleared)"))
        }
        var values = Self.specialValues(form)
        for name in ["from", "until", "stores", "kind"] {
            values[name] = (form[name] ?? "").trimmingCharacters(in: .whitespaces)
        }
        let today = chainToday(context.now)
        var (days, errors) = Self.checkedDays(values, dateField: "from", today: today)
        // Every store (nil), or a region's.
        var storeIds: [StoreID]?
        if let region = values["stores"], !region.isEmpty, region != "all" {
            if let id = Int64(region), try database.stores.group(id: id) != nil {
                storeIds = try database.stores.regions().filter { $0.value == id }.map(\.key).sorted()
            } else {
                errors["stores"] = tr("closures.noRegion")
            }
        }
        let openings = values["kind"] == "hours"
            ? Self.specialOpenings(values, day: days?.lowerBound ?? today) : (intervals: [OpeningInterval](), error: String?.none)
        if let problem = openings.error { errors["hours"] = problem }
        guard errors.isEmpty, let days else {
            let page = try chainClosuresPage(context, values: values, errors: errors)
            return views.page(title: tr("closures.title"), section: .manage, context, page, status: 422)
        }
        let reason = values["reason"] ?? ""
        if values["kind"] == "hours" {
            let done = try database.stores.setSpecialHours(storeIds: storeIds, days: days,
                                                           openings: openings.intervals.map { ($0.opens, $0.closes) },
                                                           reason: reason, userId: context.user.id, now: context.now)
            return .redirect(to: Paths.manageClosures(
                query: "special=\(done.set)&leftClosed=\(done.closed)&clashed=\(done.clashed)&cancelled=\(done.cancelled)"))
        }
        let done = try database.stores.closeDays(storeIds: storeIds, days: days, reason: reason,
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
        func share(_ count: Int) -> String { tr("closures.storesClosed", ["n": String(count), "of": String(stores)]) }
        let closed = try database.stores.closuresAcrossStores(from: today).map { closure in
            ChainClosuresPage.Row(day: closure.day, date: Formatting.date(LocalDate(day: closure.day)),
                                  hours: tr("hours.closed"), reason: closure.reason, stores: share(closure.stores), closed: true)
        }
        let special = try database.stores.specialHoursAcrossStores(from: today).map { special in
            ChainClosuresPage.Row(day: special.day, date: Formatting.date(LocalDate(day: special.day)),
                                  hours: Formatting.intervals(special.openings), reason: special.reason,
                                  stores: share(special.stores), closed: false)
        }
        var page = ChainClosuresPage(rows: (closed + special).sorted { ($0.day, $0.closed ? 0 : 1) < ($1.day, $1.closed ? 0 : 1) },
                                     values: values, errors: errors)
        page.regions = try database.stores.groups().map { (String($0.id), $0.name) }
        page.range = (LocalDate(day: today).text, LocalDate(day: today + Self.closureHorizon).text)
        return page
    }
}
