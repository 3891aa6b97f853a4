import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import Foundation

/// A manager sets a store's weekly hours: up to two openings a day, past midnight allowed,
/// empty days closed. Each day is checked with its reason; saving records the change and
/// cancels, telling each customer, the bookings whose slots the new hours no longer have.
extension ManageArea {
    func hoursForm(_ context: ManagedStoreContext) throws -> Response {
        guard let entry = database.board.entry(context.storeId) else { throw HTTPError.notFound }
        let days = (1...7).map { weekday -> StoreHoursPage.Day in
            let intervals = entry.hours.intervals.filter { $0.weekday == weekday }.prefix(2).map {
                (OpeningHours.clockText($0.opens), OpeningHours.clockText($0.closes))
            }
            return StoreHoursPage.Day(weekday: weekday, name: OpeningHours.weekdayNames[weekday - 1],
                                      openings: Array(intervals) + Array(repeating: ("", ""), count: 2 - intervals.count),
                                      error: nil)
        }
        let notice = context.request.query["registered"] == nil ? nil
            : "\(entry.store.name) is registered. Set its opening hours: until then it shows as closed."
        return views.page(title: "Opening hours", section: .manage, context,
                          StoreHoursPage(storeId: entry.store.id, storeName: entry.store.name, days: days, notice: notice))
    }

    func saveHours(_ context: ManagedStoreContext) throws -> Response {
        guard let entry = database.board.entry(context.storeId) else { throw HTTPError.notFound }
        let form = context.form
        var days: [StoreHoursPage.Day] = []
        var intervals: [OpeningInterval] = []
        for weekday in 1...7 {
            let openings = ["a", "b"].map { part in
                ((form["opens-\(weekday)-\(part)"] ?? "").trimmingCharacters(in: .whitespaces),
                 (form["closes-\(weekday)-\(part)"] ?? "").trimmingCharacters(in: .whitespaces))
            }
            let (parsed, error) = Self.parseDay(weekday, openings)
            intervals += parsed
            days.append(StoreHoursPage.Day(weekday: weekday, name: OpeningHours.weekdayNames[weekday - 1],
                                           openings: openings, error: error))
        }
        // A day running past midnight must close before the next day opens.
        for weekday in 1...7 {
            let next = weekday % 7 + 1
            guard let late = intervals.filter({ $0.weekday == weekday }).map(\.closes).max(), late > 1440,
                let early = intervals.filter({ $0.weekday == next }).map(\.opens).min(), late - 1440 > early,
                days[weekday - 1].error == nil
            else { continue }
            days[weekday - 1].error = "It runs past midnight beyond \(OpeningHours.weekdayNames[next - 1])'s opening "
                + "at \(OpeningHours.clockText(early))."
        }
        guard days.allSatisfy({ $0.error == nil }) else {
            return views.page(title: "Opening hours", section: .manage, context,
                              StoreHoursPage(storeId: entry.store.id, storeName: entry.store.name, days: days), status: 422)
        }
        let cancelled = try database.replaceHours(storeId: entry.store.id, with: intervals, userId: context.user.id,
                                                  now: context.now)
        return .redirect(to: Paths.manageStore(entry.store.id, query: "hours=saved&cancelled=\(cancelled)"))
    }

    /// A day's openings ("HH:MM" pairs, empty for none), or why they are not valid.
    static func parseDay(_ weekday: Int, _ openings: [(String, String)]) -> ([OpeningInterval], String?) {
        var intervals: [OpeningInterval] = []
        for (opens, closes) in openings where !(opens.isEmpty && closes.isEmpty) {
            guard let open = minutes(opens), let close = minutes(closes) else {
                return ([], "Give both times of an opening, as hours and minutes (08:00).")
            }
            guard open != close else { return ([], "An opening cannot close when it opens.") }
            intervals.append(OpeningInterval(weekday: weekday, opens: open, closes: close > open ? close : close + 1440))
        }
        intervals.sort { $0.opens < $1.opens }
        if intervals.count == 2, intervals[0].closes > intervals[1].opens {
            return ([], "The two openings overlap.")
        }
        if intervals.count == 2, intervals[0].closes > 1440 {
            return ([], "Only the day's last opening can run past midnight.")
        }
        return (intervals, nil)
    }

    /// Minutes after midnight of "HH:MM"; nil if it is not a time of day.
    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]), (0..<24).contains(hours),
            (0..<60).contains(minutes), parts[1].count == 2
        else { return nil }
        return hours * 60 + minutes
    }

    /// What the last change of hours did, from the page's address after saving.
    static func hoursNotice(_ query: FormData) -> String? {
        guard query["hours"] == "saved" else { return nil }
        let cancelled = query["cancelled"].flatMap(Int.init) ?? 0
        return "The opening hours are saved." + (cancelled == 0 ? "" : cancelled == 1
            ? " 1 booking was in a slot the new hours do not have: it is cancelled, and its customer told why."
            : " \(cancelled) bookings were in slots the new hours do not have: they are cancelled, and their customers "
                + "told why.")
    }
}
