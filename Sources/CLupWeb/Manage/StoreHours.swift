import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// A manager sets a store's weekly hours: up to two openings a day, past midnight allowed,
/// empty days closed. Each day is checked with its reason; saving records the change and
/// cancels, telling each customer, the bookings whose slots the new hours no longer have.
extension ManageArea {
    func hoursForm(_ context: ManagedStoreContext) throws -> Response {
        guard let entry = database.board.entry(context.storeId) else { throw HTTPError.notFound }
        let days = Self.weekDays(entry.hours)
        let query = context.request.query
        let notice = query["registered"] != nil
            ? tr("hours.registered", ["store": entry.store.name])
            : Self.closureNotice(query) ?? Self.specialNotice(query)
        return hoursPage(context, entry, days: days, notice: notice)
    }

    func hoursPage(_ context: ManagedStoreContext, _ entry: StoreBoard.Entry, days: [StoreHoursPage.Day],
                   notice: String? = nil, closure: StoreHoursPage.NewClosure = .init(),
                   special: StoreHoursPage.NewSpecial = .init(), status: Int = 200) -> Response
    {
        let store = entry.store
        let today = entry.calendar.localDay(of: context.now)
        var page = StoreHoursPage(storeId: store.id.rawValue, storeName: store.name, days: days, notice: notice)
        page.closures = entry.definition.closures.filter { $0.day >= today }.map { closure in
            StoreHoursPage.Closure(day: String(closure.day), date: Formatting.date(LocalDate(day: closure.day)),
                                   reason: closure.reason)
        }
        page.newClosure = closure
        page.specials = Dictionary(grouping: entry.definition.specialHours.filter { $0.day >= today }, by: \.day)
            .sorted { $0.key < $1.key }
            .map { day, openings in
                StoreHoursPage.Special(day: String(day), date: Formatting.date(LocalDate(day: day)),
                                       hours: Formatting.intervals(openings.map(\.interval)), reason: openings[0].reason)
            }
        page.newSpecial = special
        page.closureRange = (LocalDate(day: today).text, LocalDate(day: today + Self.closureHorizon).text)
        return views.page(title: tr("store.hours"), section: .manage, context, page, status: status)
    }

    /// Each day's openings as the form shows them, two per day.
    static func weekDays(_ hours: OpeningHours) -> [StoreHoursPage.Day] {
        (1...7).map { weekday in
            let intervals = hours.intervals(weekday: weekday).prefix(2).map {
                (OpeningHours.clockText($0.opens), OpeningHours.clockText($0.closes))
            }
            return StoreHoursPage.Day(weekday: weekday, name: Formatting.weekday(weekday),
                                      openings: Array(intervals) + Array(repeating: ("", ""), count: 2 - intervals.count),
                                      error: nil)
        }
    }

    /// How far ahead a day may be closed.
    static let closureHorizon = 366

    /// Closes the store on a day or a run of days (`action=close`, a date, an optional last
    /// day — a refit — and an optional reason), or opens it again (`action=reopen`, the day).
    /// Closing cancels those days' bookings, each customer told.
    func changeClosures(_ context: ManagedStoreContext) throws -> Response {
        guard let entry = database.board.entry(context.storeId) else { throw HTTPError.notFound }
        let store = entry.store
        let form = context.form
        if form["action"] == "reopen" {
            guard let day = form["day"].flatMap(Int.init) else { throw HTTPError.badRequest(tr("hours.whichDay")) }
            let reopened = try database.stores.reopenDay(storeId: store.id, day: day, userId: context.user.id, now: context.now)
            return .redirect(to: Paths.manageStoreHours(store.id, query: "reopened=\(reopened ? day : -1)"))
        }
        var values: [String: String] = [:]
        for name in ["date", "until"] { values[name] = (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
        values["reason"] = (form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let (days, errors) = Self.checkedDays(values, dateField: "date", today: entry.calendar.localDay(of: context.now))
        guard let days else { return closureRefused(context, entry, values: values, errors: errors) }
        let done = try database.stores.closeDays(storeIds: [store.id], days: days, reason: values["reason"] ?? "",
                                                 userId: context.user.id, now: context.now)
        guard done.closed > 0 else {
            let problem = days.count == 1 ? tr("hours.alreadyClosed") : tr("hours.alreadyClosedDays")
            return closureRefused(context, entry, values: values, errors: ["date": problem])
        }
        return .redirect(to: Paths.manageStoreHours(
            store.id, query: "closed=\(days.lowerBound)&until=\(days.upperBound)&cancelled=\(done.cancelled)"))
    }

    private func closureRefused(_ context: ManagedStoreContext, _ entry: StoreBoard.Entry, values: [String: String],
                                errors: [String: String]) -> Response
    {
        hoursPage(context, entry, days: Self.weekDays(entry.hours), closure: .init(values: values, errors: errors),
                  status: 422)
    }

    struct ClosureProblem: Error {
        var date: String? = nil
        var reason: String?
    }

    /// The local day of a closure's date field, or what is wrong with the date and the reason.
    static func closureProblem(date: String, reason: String, today: Int) -> Result<Int, ClosureProblem> {
        var problem = ClosureProblem(reason: textProblem(reason, maxLength: 100))
        let day = LocalDate(text: date)?.day
        if let day {
            if day < today {
                problem.date = tr("hours.pastDay")
            } else if day > today + closureHorizon {
                problem.date = tr("hours.tooFar")
            }
        } else {
            problem.date = tr("hours.badDate")
        }
        guard problem.date == nil, problem.reason == nil, let day else { return .failure(problem) }
        return .success(day)
    }

    /// The local day of form field `dateField` and the reason's problem, as `closureProblem`
    /// checks them: the day, or the problems under `dateField` and "reason".
    static func checkedDay(_ values: [String: String], dateField: String, today: Int) -> (day: Int?, errors: [String: String]) {
        switch closureProblem(date: values[dateField] ?? "", reason: values["reason"] ?? "", today: today) {
        case .success(let day): return (day, [:])
        case .failure(let problem): return (nil, [dateField: problem.date, "reason": problem.reason].compactMapValues { $0 })
        }
    }

    /// The run of days from form fields `dateField` and "until" (optional, the first day
    /// alone when empty; at most `StoreFields.longestClosure` days), with the reason's problem:
    /// the days, or the problems under those fields and "reason".
    static func checkedDays(_ values: [String: String], dateField: String, today: Int)
        -> (days: ClosedRange<Int>?, errors: [String: String])
    {
        var (first, errors) = checkedDay(values, dateField: dateField, today: today)
        guard let until = values["until"], !until.isEmpty else { return (first.map { $0...$0 }, errors) }
        guard let last = LocalDate(text: until)?.day else {
            errors["until"] = tr("hours.badDate")
            return (nil, errors)
        }
        guard let first else { return (nil, errors) }
        if last < first {
            errors["until"] = tr("closures.untilBefore")
        } else if last - first >= StoreFields.longestClosure {
            errors["until"] = tr("closures.tooLong", ["n": String(StoreFields.longestClosure)])
        }
        return (errors.isEmpty ? first...last : nil, errors)
    }

    /// What the last closing or reopening did, from the page's address.
    static func closureNotice(_ query: FormData) -> String? {
        if let day = query["closed"].flatMap(Int.init) {
            let cancelled = query["cancelled"].flatMap(Int.init) ?? 0
            let closed = query["until"].flatMap(Int.init).flatMap { last in
                last > day ? tr("hours.closedFromTo", ["from": Formatting.date(LocalDate(day: day)),
                                                       "to": Formatting.date(LocalDate(day: last))]) : nil
            } ?? tr("hours.closedOn", ["date": Formatting.date(LocalDate(day: day))])
            return closed + " " + (cancelled == 0 ? tr("hours.noBookings") : tr("hours.bookingsCancelled", count: cancelled))
        }
        if let day = query["reopened"].flatMap(Int.init) {
            return day < 0 ? tr("hours.notClosedDay") : tr("hours.reopened", ["date": Formatting.date(LocalDate(day: day))])
        }
        return nil
    }

    func saveHours(_ context: ManagedStoreContext) throws -> Response {
        guard let entry = database.board.entry(context.storeId) else { throw HTTPError.notFound }
        let form = context.form
        let openings = (1...7).map { weekday in
            ["a", "b"].map { part in
                ((form["opens-\(weekday)-\(part)"] ?? "").trimmingCharacters(in: .whitespaces),
                 (form["closes-\(weekday)-\(part)"] ?? "").trimmingCharacters(in: .whitespaces))
            }
        }
        let (intervals, errors) = StoreFields.week(openings)
        let days = (1...7).map { weekday in
            StoreHoursPage.Day(weekday: weekday, name: Formatting.weekday(weekday),
                               openings: openings[weekday - 1], error: errors[weekday - 1])
        }
        guard days.allSatisfy({ $0.error == nil }) else { return hoursPage(context, entry, days: days, status: 422) }
        let cancelled = try database.stores.replaceHours(storeId: entry.store.id, with: intervals, userId: context.user.id,
                                                  now: context.now)
        return .redirect(to: Paths.manageStore(entry.store.id, query: "hours=saved&cancelled=\(cancelled)"))
    }

    /// A day's openings ("HH:MM" pairs, empty for none), or why they are not valid.
    static func parseDay(_ weekday: Int, _ openings: [(String, String)]) -> ([OpeningInterval], String?) {
        var intervals: [OpeningInterval] = []
        for (opens, closes) in openings where !(opens.isEmpty && closes.isEmpty) {
            if let problem = timeProblem(opens) ?? timeProblem(closes) { return ([], problem) }
            guard let open = minutes(opens) else { return ([], tr("hours.missingOpen")) }
            guard let close = minutes(closes) else { return ([], tr("hours.missingClose")) }
            guard open != close else { return ([], tr("hours.sameTimes")) }
            intervals.append(OpeningInterval(weekday: weekday, opens: open, closes: close > open ? close : close + 1440))
        }
        intervals.sort { $0.opens < $1.opens }
        if intervals.count == 2, intervals[0].closes > intervals[1].opens {
            return ([], tr("hours.overlap"))
        }
        if intervals.count == 2, intervals[0].closes > 1440 {
            return ([], tr("hours.lastPastMidnight"))
        }
        return (intervals, nil)
    }

    /// What is wrong with a time as typed, in words; nil if it is a time of day or empty
    /// (a missing time is the opening's problem, said by `parseDay`).
    static func timeProblem(_ text: String) -> String? {
        guard !text.isEmpty, minutes(text) == nil else { return nil }
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let hours = Int(parts[0]), let minutes = Int(parts[1]), (1...2).contains(parts[0].count),
            parts[1].count == 2, hours >= 0, minutes >= 0
        else { return tr("hours.notATime", ["time": text]) }
        if minutes >= 60 { return tr("hours.badMinutes", ["time": text]) }
        return tr("hours.pastMidnightTime", ["time": text])
    }

    /// Minutes after midnight of "HH:MM"; nil if it is not a time of day.
    static func minutes(_ text: String) -> Int? { OpeningHours.minutes(text) }

    /// What the last change of hours did, from the page's address after saving.
    static func hoursNotice(_ query: FormData) -> String? {
        guard query["hours"] == "saved" else { return nil }
        let cancelled = query["cancelled"].flatMap(Int.init) ?? 0
        return tr("hours.saved") + (cancelled == 0 ? "" : " " + tr("hours.savedCancelled", count: cancelled))
    }
}

extension StoreFields {
    /// A week's openings from each day's (opens, closes) pairs as typed ("HH:MM", "" for
    /// none; Monday first), or each day's problem (nil where the day is fine).
    public static func week(_ openings: [[(String, String)]]) -> ([OpeningInterval], [String?]) {
        var intervals: [OpeningInterval] = []
        var errors: [String?] = []
        for (index, day) in openings.enumerated() {
            let (parsed, error) = ManageArea.parseDay(index + 1, day)
            intervals += parsed
            errors.append(error)
        }
        // A day running past midnight must close before the next day opens.
        for weekday in 1...7 {
            let next = weekday % 7 + 1
            guard let late = intervals.filter({ $0.weekday == weekday }).map(\.closes).max(), late > 1440,
                let early = intervals.filter({ $0.weekday == next }).map(\.opens).min(), late - 1440 > early,
                errors[weekday - 1] == nil
            else { continue }
            errors[weekday - 1] = tr("hours.pastNextOpening", ["day": Formatting.weekday(next),
                                                                "time": OpeningHours.clockText(early)])
        }
        return (intervals, errors)
    }
}

extension StoreFields {
    /// A week's openings from each day's text (Monday first) as the command line and a CSV
    /// import write them: "08:00-13:00,15:00-20:00", a closing earlier than the opening running
    /// past midnight ("18:00-02:00"); "closed" or nothing for a closed day. Each day's problem
    /// where it has one.
    public static func week(text days: [String]) -> ([OpeningInterval], [String?]) {
        var shapeErrors: [String?] = []
        let openings = days.map { text -> [(String, String)] in
            let text = text.trimmingCharacters(in: .whitespaces)
            guard text.lowercased() != "closed", !text.isEmpty else {
                shapeErrors.append(nil)
                return []
            }
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            let pairs = parts.map { part -> [String] in
                part.split(separator: "-", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            }
            if pairs.contains(where: { $0.count != 2 }) {
                shapeErrors.append(tr("hours.textShape"))
            } else if pairs.count > 2 {
                shapeErrors.append(tr("hours.textTooMany"))
            } else {
                shapeErrors.append(nil)
            }
            return pairs.filter { $0.count == 2 }.map { ($0[0], $0[1]) }
        }
        let (intervals, errors) = week(openings)
        return (intervals, zip(shapeErrors, errors).map { $0 ?? $1 })
    }
}

extension StoreFields {
    /// The local days from a date ("2026-12-25"), an optional last day and a reason, checked
    /// as the hours page checks them, or each option's problem.
    public static func closure(date: String, until: String?, reason: String, today: Int) -> Result<ClosedRange<Int>, Problems> {
        let (days, errors) = ManageArea.checkedDays(["date": date, "until": until ?? "", "reason": reason], dateField: "date",
                                                    today: today)
        guard let days else { return .failure(Problems(errors: errors)) }
        return .success(days)
    }
}
