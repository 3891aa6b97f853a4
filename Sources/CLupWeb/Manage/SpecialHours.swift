import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// A manager gives a store hours of its own on one date (an early closing on Christmas Eve),
/// from its hours page: one or two openings, checked as a weekday's are, replacing that day's
/// weekday hours; the bookings outside them are cancelled, each customer told with the stores
/// open instead. "Usual hours" gives the day its weekday's hours back.
extension ManageArea {
    func changeSpecialHours(_ context: ManagedStoreContext) throws -> Response {
        guard let entry = database.board.entry(context.storeId) else { throw HTTPError.notFound }
        let store = entry.store
        let form = context.form
        if form["action"] == "clear" {
            guard let day = form["day"].flatMap(Int.init) else { throw HTTPError.badRequest(tr("hours.whichDay")) }
            let cleared = try database.stores.clearSpecialHours(storeId: store.id, day: day, userId: context.user.id,
                                                                now: context.now)
            return .redirect(to: Paths.manageStoreHours(store.id, query: "usual=\(cleared ? day : -1)"))
        }
        var values = Self.specialValues(form)
        values["date"] = (form["date"] ?? "").trimmingCharacters(in: .whitespaces)
        let today = entry.calendar.localDay(of: context.now)
        var (day, errors) = Self.checkedDay(values, dateField: "date", today: today)
        let parsed = Self.specialOpenings(values, day: day ?? today)
        if let problem = parsed.error ?? day.flatMap({ Self.nightProblem(parsed.intervals, day: $0, hours: entry.hours) }) {
            errors["hours"] = problem
        }
        guard errors.isEmpty, let day else {
            return hoursPage(context, entry, days: Self.weekDays(entry.hours),
                             special: .init(values: values, errors: errors), status: 422)
        }
        switch try database.stores.setSpecialHours(storeId: store.id, day: day, intervals: parsed.intervals,
                                                   reason: values["reason"] ?? "", userId: context.user.id, now: context.now)
        {
        case .set(let cancelled):
            return .redirect(to: Paths.manageStoreHours(store.id, query: "special=\(day)&cancelled=\(cancelled)"))
        case .unchanged:
            return .redirect(to: Paths.manageStoreHours(store.id, query: "special=\(day)&cancelled=0"))
        case .closedThatDay:
            errors["date"] = tr("special.closedThatDay")
            return hoursPage(context, entry, days: Self.weekDays(entry.hours),
                             special: .init(values: values, errors: errors), status: 422)
        case .clashesWithNight(let clash):
            // Its nights changed since the page checked them.
            errors["hours"] = Self.nightText(clash, day: day)
            return hoursPage(context, entry, days: Self.weekDays(entry.hours),
                             special: .init(values: values, errors: errors), status: 422)
        }
    }

    /// The special-hours fields as typed: the four times and the reason, trimmed.
    static func specialValues(_ form: FormData) -> [String: String] {
        var values: [String: String] = [:]
        for name in ["opens-a", "closes-a", "opens-b", "closes-b"] {
            values[name] = (form[name] ?? "").trimmingCharacters(in: .whitespaces)
        }
        values["reason"] = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return values
    }

    /// A special day's openings from its four time fields, checked as a weekday's are, or
    /// what is wrong with them; one opening at least (a day with none is a closed day).
    static func specialOpenings(_ values: [String: String], day: Int) -> (intervals: [OpeningInterval], error: String?) {
        let openings = ["a", "b"].map { (values["opens-\($0)"] ?? "", values["closes-\($0)"] ?? "") }
        let (intervals, error) = parseDay(ZoneOffsets.isoWeekday(day: day), openings)
        if let error { return ([], error) }
        return intervals.isEmpty ? ([], tr("special.noHours")) : (intervals, nil)
    }

    /// What is wrong with a special day's openings against the store's nights either side: the
    /// evening before may run past midnight into the day, and the day's own late opening must
    /// close before the next day opens. Nil if they fit.
    static func nightProblem(_ intervals: [OpeningInterval], day: Int, hours: OpeningHours) -> String? {
        hours.nightClash(intervals, localDay: day).map { nightText($0, day: day) }
    }

    /// A clash with the nights either side of local day `day`, in words.
    static func nightText(_ clash: OpeningHours.NightClash, day: Int) -> String {
        switch clash {
        case .eveningBefore(let closes): tr("special.afterNight", ["time": OpeningHours.clockText(closes)])
        case .nextMorning(let opens):
            tr("hours.pastNextOpening", ["day": Formatting.weekday(ZoneOffsets.isoWeekday(day: day + 1)),
                                         "time": OpeningHours.clockText(opens)])
        }
    }

    /// What the last setting or clearing of special hours did, from the page's address.
    static func specialNotice(_ query: FormData) -> String? {
        if let day = query["special"].flatMap(Int.init) {
            let cancelled = query["cancelled"].flatMap(Int.init) ?? 0
            return tr("special.set", ["date": Formatting.date(LocalDate(day: day))]) + " "
                + (cancelled == 0 ? tr("special.noneOutside") : tr("hours.bookingsCancelled", count: cancelled))
        }
        if let day = query["usual"].flatMap(Int.init) {
            return day < 0 ? tr("special.notSpecial") : tr("special.cleared", ["date": Formatting.date(LocalDate(day: day))])
        }
        return nil
    }
}

extension StoreFields {
    /// A special day's openings as the command line writes them, "08:00-14:00" or
    /// "08:00-13:00,15:00-20:00" (minutes after the day's midnight), checked as a weekday's;
    /// one at least.
    public struct OpeningsProblem: Error, CustomStringConvertible {
        public var description: String
    }

    public static func dayOpenings(text: String) throws -> [(opens: Int, closes: Int)] {
        let (intervals, errors) = week(text: [text] + Array(repeating: "closed", count: 6))
        if let problem = errors[0] { throw OpeningsProblem(description: "--hours: " + problem) }
        guard !intervals.isEmpty else { throw OpeningsProblem(description: "--hours: " + tr("special.noHours")) }
        return intervals.map { ($0.opens, $0.closes) }
    }
}
