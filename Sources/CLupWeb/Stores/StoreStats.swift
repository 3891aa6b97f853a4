import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// A store's public statistics (R7, §2.2.6a): how busy it usually is, hour by hour, on each
/// weekday, "now" against the usual, the usual wait and visit, and the quietest hours left
/// today. Built from the kept hours of the last eight weeks only: anonymous, and as cheap with
/// a year of visits as with a week.
extension StoresArea {
    func stats(_ context: BrowserContext) throws -> Response {
        let now = context.now
        guard let (entry, standing) = database.board.live(try context.id(), now: now) else { throw HTTPError.notFound }
        guard !entry.definition.isRetired else { throw HTTPError(410, tr("store.retiredGone")) }
        let store = entry.store
        let zone = store.zone
        // The store's own day: past midnight in a late opening, still the evening's.
        let businessDay = entry.hours.businessDay(at: now)
        let today = ZoneOffsets.isoWeekday(day: businessDay)
        let weekday = context.request.query["day"].flatMap(Int.init).flatMap { (1...7).contains($0) ? $0 : nil } ?? today
        let lastHour = HourTotals.hour(of: now)
        let hours = try database.statistics.storeHours(storeId: store.id, from: lastHour - PopularTimes.weeks * 7 * 24, to: lastHour)
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
                ? (usualNow.map {
                    tr("stats.nowUsually", ["people": Formatting.people(standing.status.peopleInside),
                                            "percent": percent(inside), "usual": percent($0)])
                } ?? tr("stats.now", ["people": Formatting.people(standing.status.peopleInside), "percent": percent(inside)]))
                : tr("stats.closedNow"))
            let best = usual.bestHours(weekday: today, from: currentHour + 1, openHours: openHours)
            summary.append(best.isEmpty ? tr("stats.notEnough")
                : tr("stats.best", ["hours": best.map { NumberText.clock(hours: $0 % 24, minutes: 0) }.joined(separator: ", ")]))
        }
        if let visit = usual.typicalVisit { summary.append(tr("stats.visitLasts", ["time": Formatting.duration(visit)])) }

        let bars = openHours.map { hour in
            BarChart.Bar(label: NumberText.twoDigits(hour % 24),
                         value: usual.cell(weekday: weekday, hour: hour).inside.map { $0 / capacity * 100 },
                         highlighted: weekday == today && hour == currentHour)
        }
        let dayName = Formatting.weekday(weekday)
        let nowIndex = weekday == today ? openHours.firstIndex(of: currentHour) : nil
        let chart = BarChart(
            id: "usual", title: tr("stats.chartTitle", ["day": dayName, "store": store.name]),
            description: tr("stats.chartDescription", ["day": dayName, "weeks": String(PopularTimes.weeks)])
                + (nowIndex != nil ? " " + tr("stats.chartNow") : ""),
            bars: bars, minimumScale: 10,
            marker: nowIndex.map { ($0, Double(standing.status.peopleInside) / capacity * 100, tr("stats.nowMarker")) },
            labelEvery: openHours.count > 12 ? 2 : 1, unit: " %")
        let table = FigureTable(
            caption: tr("stats.tableCaption", ["day": dayName]),
            header: [tr("stats.hour"), tr("stats.usuallyInUse"), tr("stats.usualWait")],
            rows: openHours.map { hour in
                let cell = usual.cell(weekday: weekday, hour: hour)
                return [NumberText.clock(hours: hour % 24, minutes: 0) + "–" + NumberText.clock(hours: (hour + 1) % 24, minutes: 0),
                        cell.inside.map(percent) ?? tr("stats.tooFew"), cell.wait.map(Formatting.wait) ?? "—"]
            })
        let page = StoreStatsPage(
            storeName: store.name, storeHref: Paths.store(store.id),
            dayName: weekday == today ? tr("stats.todayDay", ["day": dayName]) : dayName,
            days: (1...7).map { day in
                StoreStatsPage.DayLink(name: Formatting.weekdayShort(day),
                                       href: Paths.storeStats(store.id, query: "day=\(day)"), current: day == weekday)
            },
            summary: summary, chart: chart, table: table,
            note: tr("stats.note", ["weeks": String(PopularTimes.weeks), "visits": String(PopularTimes.minimumVisits)]))
        return views.page(title: tr("stats.howBusy", ["store": store.name]), section: .stores, context, page)
    }

    /// The hours of `weekday` in which the store is open at some point: 0–23, then 24 and on
    /// for an opening that runs past midnight (the small hours belong to the evening's day).
    static func openHours(of weekday: Int, in hours: OpeningHours) -> [Int] {
        (0..<48).filter { hour in
            hours.intervals.contains { $0.weekday == weekday && $0.opens < (hour + 1) * 60 && $0.closes > hour * 60 }
        }
    }
}
