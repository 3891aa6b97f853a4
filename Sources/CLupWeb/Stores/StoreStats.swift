import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import Foundation

/// A store's public statistics (R7, §2.2.6a): how busy it usually is, hour by hour, on each
/// weekday, "now" against the usual, the usual wait and visit, and the quietest hours left
/// today. Built from the kept hours of the last eight weeks only: anonymous, and as cheap with
/// a year of visits as with a week.
extension StoresArea {
    func stats(_ context: BrowserContext) throws -> Response {
        let now = context.now
        guard let (entry, standing) = database.board.live(try context.id(), now: now) else { throw HTTPError.notFound }
        let store = entry.store
        let zone = store.zone
        // The store's own day: past midnight in a late opening, still the evening's.
        let businessDay = entry.hours.businessDay(at: now)
        let today = ZoneOffsets.isoWeekday(day: businessDay)
        let weekday = context.request.query["day"].flatMap(Int.init).flatMap { (1...7).contains($0) ? $0 : nil } ?? today
        let lastHour = HourTotals.hour(of: now)
        let hours = try database.storeHours(storeId: store.id, from: lastHour - PopularTimes.weeks * 7 * 24, to: lastHour)
        let usual = PopularTimes(hours: hours, zone: zone, weekly: entry.hours.intervals)
        let openHours = Self.openHours(of: weekday, in: entry.hours)
        let local = localHour(lastHour, in: zone)
        let currentHour = local.hour + (local.day > businessDay ? 24 : 0)
        let capacity = Double(store.capacity)
        func percent(_ inside: Double) -> String { "\(Int((inside / capacity * 100).rounded())) %" }

        var summary: [String] = []
        if weekday == today {
            let inside = Double(standing.status.peopleInside)
            let usualNow = usual.cell(weekday: today, hour: currentHour).inside
            summary.append(standing.status.openState.isOpen
                ? "Now: \(Formatting.people(standing.status.peopleInside)) inside (\(percent(inside)) full)"
                    + (usualNow.map { ", usually \(percent($0)) at this hour." } ?? ".")
                : "Closed now.")
            let best = usual.bestHours(weekday: today, from: currentHour + 1, openHours: openHours)
            summary.append(best.isEmpty ? "Not enough visits yet to say which hours left today are quietest."
                : "Best times to go later today: " + best.map { NumberText.clock(hours: $0 % 24, minutes: 0) }
                    .joined(separator: ", ") + ".")
        }
        if let visit = usual.typicalVisit { summary.append("A visit usually lasts about \(Formatting.duration(visit)).") }

        let bars = openHours.map { hour in
            BarChart.Bar(label: NumberText.twoDigits(hour % 24),
                         value: usual.cell(weekday: weekday, hour: hour).inside.map { $0 / capacity * 100 },
                         highlighted: weekday == today && hour == currentHour)
        }
        let dayName = OpeningHours.weekdayNames[weekday - 1]
        let nowIndex = weekday == today ? openHours.firstIndex(of: currentHour) : nil
        let chart = BarChart(
            id: "usual", title: "\(dayName): how full \(store.name) usually is, by hour",
            description: "Bars: the share of the store's capacity usually in use at each opening hour on a \(dayName), "
                + "over the last \(PopularTimes.weeks) weeks."
                + (nowIndex != nil ? " The line marks how full it is now." : ""),
            bars: bars, minimumScale: 10,
            marker: nowIndex.map { ($0, Double(standing.status.peopleInside) / capacity * 100, "now") },
            labelEvery: openHours.count > 12 ? 2 : 1, unit: " %")
        let table = FigureTable(
            caption: "\(dayName), hour by hour", header: ["Hour", "Usually in use", "Usual wait"],
            rows: openHours.map { hour in
                let cell = usual.cell(weekday: weekday, hour: hour)
                return [NumberText.clock(hours: hour % 24, minutes: 0) + "–" + NumberText.clock(hours: (hour + 1) % 24, minutes: 0),
                        cell.inside.map(percent) ?? "too few visits", cell.wait.map(Formatting.wait) ?? "—"]
            })
        let page = StoreStatsPage(
            storeName: store.name, storeHref: Paths.store(store.id),
            dayName: weekday == today ? "Today (\(dayName))" : dayName,
            days: (1...7).map { day in
                StoreStatsPage.DayLink(name: String(OpeningHours.weekdayNames[day - 1].prefix(3)),
                                       href: Paths.storeStats(store.id, query: "day=\(day)"), current: day == weekday)
            },
            summary: summary, chart: chart, table: table,
            note: "From the last \(PopularTimes.weeks) weeks of visits, counted by hour and never by person. An hour "
                + "with fewer than \(PopularTimes.minimumVisits) visits in that time is not shown.")
        return views.page(title: "How busy \(store.name) usually is", section: .stores, context, page)
    }

    /// The hours of `weekday` in which the store is open at some point: 0–23, then 24 and on
    /// for an opening that runs past midnight (the small hours belong to the evening's day).
    static func openHours(of weekday: Int, in hours: OpeningHours) -> [Int] {
        (0..<48).filter { hour in
            hours.intervals.contains { $0.weekday == weekday && $0.opens < (hour + 1) * 60 && $0.closes > hour * 60 }
        }
    }
}
