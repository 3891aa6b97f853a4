import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// A store's statistics for its manager over a date range (§2.2.6b, §3.5.2): visits per day,
/// people inside over the day, waits, visit lengths, tickets that ended unused, the kinds of
/// visit, department influx and the loyal customers who opted in. Every table is also a CSV
/// download with the same rows. Built from the kept hours (and, for loyal customers, the
/// range's visits), so the page costs the same whatever the length of the history.
extension ManageArea {
    /// A range of the store's local days, from the `from` and `to` fields (yyyy-mm-dd).
    struct DayRange {
        var first: Int
        var last: Int
        var error: String?

        static let longest = 366

        init(_ query: FormData, today: Int) {
            let from = query["from"].flatMap(Self.day(of:))
            let to = query["to"].flatMap(Self.day(of:))
            first = today - 6
            last = today
            if (query["from"] != nil && from == nil) || (query["to"] != nil && to == nil) {
                error = tr("mstats.badDates")
            } else if let from, let to, from > to {
                error = tr("mstats.order")
            } else if let from, let to, to - from >= Self.longest {
                error = tr("mstats.tooLong", ["n": String(Self.longest)])
            } else {
                first = from ?? (to.map { $0 - 6 } ?? first)
                last = to ?? (from.map { min(today, $0 + 6) } ?? last)
                if last < first { last = first }
            }
        }

        /// Days since 1970 of a `yyyy-mm-dd` date; nil if it is not one.
        static func day(of text: String) -> Int? {
            let parts = text.split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
            guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2],
                (1970...2200).contains(year), (1...12).contains(month), (1...31).contains(day)
            else { return nil }
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            guard let date = calendar.date(from: DateComponents(year: year, month: month, day: day)),
                calendar.component(.day, from: date) == day
            else { return nil }
            return Int(date.timeIntervalSince1970 / 86_400)
        }

        static func text(of day: Int) -> String {
            let date = Date(timeIntervalSince1970: Double(day) * 86_400)
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            return "\(parts.year!)-\(NumberText.twoDigits(parts.month!))-\(NumberText.twoDigits(parts.day!))"
        }
    }

    static let tableNames = ["days", "hours", "departments", "loyal"]

    func stats(_ context: ManagedStoreContext) throws -> Response {
        guard let entry = database.board.entry(context.storeId) else { throw HTTPError.notFound }
        let store = entry.store
        let range = DayRange(context.request.query, today: entry.calendar.localDay(of: context.now))
        let (report, tables) = try self.tables(store: store, range: range)
        let query = "from=\(DayRange.text(of: range.first))&to=\(DayRange.text(of: range.last))"
        var linked = tables
        for index in linked.indices {
            linked[index].csvHref = Paths.manageStoreStatsCSV(store.id, query: "table=\(Self.tableNames[index])&" + query)
        }
        let total = report.total
        let capacity = Double(store.capacity)
        let daysChart = BarChart(
            id: "visits", title: tr("mstats.visitsPerDay"),
            description: tr("mstats.visitsDescription", ["from": DayRange.text(of: range.first),
                                                          "to": DayRange.text(of: range.last)]),
            bars: report.days.map { BarChart.Bar(label: String(DayRange.text(of: $0.day).suffix(2)), value: $0.totals.entries) },
            labelEvery: report.days.count > 16 ? (report.days.count + 15) / 16 : 1)
        let hoursChart = BarChart(
            id: "inside", title: tr("mstats.insideTitle"),
            description: tr("mstats.insideDescription"),
            bars: report.hoursOfDay.map {
                BarChart.Bar(label: NumberText.twoDigits($0.hour), value: $0.averageInside / capacity * 100)
            },
            minimumScale: 10, labelEvery: 3, unit: " %")
        let facts = [
            Fact(tr("mstats.visits"), tr("mstats.visitsPeople", ["visits": String(Int(total.entries)),
                                                                  "people": String(Int(total.entryPeople))])),
            Fact(tr("mstats.kinds"), "\(Int(total.lineUps)) · \(Int(total.bookings)) · \(Int(total.walkIns))"),
            Fact(tr("mstats.averageWait"), total.averageWait.map(Formatting.wait) ?? "—"),
        ] + (store.settings.priority.isOn || total.priorityEntries > 0 ? [
            Fact(tr("mstats.priority"), total.priorityEntries > 0
                ? tr("mstats.priorityUse", [
                    "tickets": String(Int(total.priorityEntries)),
                    "wait": total.averagePriorityWait.map(Formatting.wait) ?? "—",
                    "others": total.averageOtherWait.map(Formatting.wait) ?? "—"])
                : tr("mstats.priorityNone")),
        ] : []) + [
            Fact(tr("mstats.lengths"), Self.lengths(total)),
            Fact(tr("mstats.losses"),
                 "\(Int(total.noShows)) · \(Int(total.expiries)) · \(Int(total.cancellations))"),
            Fact(tr("mstats.peakInside"), tr("store.insideOf", ["inside": String(Int(total.peakInside)), "capacity": String(store.capacity)])),
        ]
        let page = ManageStatsPage(
            storeId: store.id.rawValue, storeName: store.name, from: DayRange.text(of: range.first), to: DayRange.text(of: range.last),
            rangeError: range.error, facts: facts,
            charts: [(daysChart, linked[0]), (hoursChart, linked[1])], tables: Array(linked[2...]))
        return views.page(title: tr("stats.title", ["store": store.name]), section: .manage, context, page,
                          status: range.error == nil ? 200 : 422)
    }

    /// One table of the statistics page as CSV (RFC 4180), with the same rows.
    func statsCSV(_ context: ManagedStoreContext) throws -> Response {
        guard let entry = database.board.entry(context.storeId) else { throw HTTPError.notFound }
        let range = DayRange(context.request.query, today: entry.calendar.localDay(of: context.now))
        if let error = range.error { throw HTTPError.badRequest(error) }
        guard let index = Self.tableNames.firstIndex(of: context.request.query["table"] ?? "") else {
            throw HTTPError.badRequest(tr("mstats.chooseTable", ["tables": Self.tableNames.joined(separator: ", ")]))
        }
        let table = try tables(store: entry.store, range: range).1[index]
        let name = "clup-store-\(entry.store.id)-\(Self.tableNames[index])-\(DayRange.text(of: range.first))-"
            + "\(DayRange.text(of: range.last)).csv"
        return Response(status: 200, headers: [
            ("Content-Type", "text/csv; charset=utf-8"),
            ("Content-Disposition", "attachment; filename=\"\(name)\""),
            ("Cache-Control", "private, no-store"),
        ], body: Array(CSV.text(header: table.header, rows: table.rows).utf8))
    }

    /// The report and its four tables: days, hours of the day, departments, loyal customers.
    func tables(store: Store, range: DayRange) throws -> (StoreReport, [FigureTable]) {
        let zone = store.zone
        // Hours a day either side cover every local day of the range, whatever the offset.
        let hours = try database.statistics.storeHours(storeId: store.id, from: (range.first - 1) * 24, to: (range.last + 2) * 24)
        let report = StoreReport(hours: hours, zone: zone, firstDay: range.first, lastDay: range.last)
        let start = ZoneOffsets(zone: zone, around: Date(timeIntervalSince1970: Double(range.first) * 86_400))
            .instant(localSeconds: range.first * 86_400)
        let end = ZoneOffsets(zone: zone, around: Date(timeIntervalSince1970: Double(range.last + 1) * 86_400))
            .instant(localSeconds: (range.last + 1) * 86_400)
        // Refused scans, from the door's log (a store refuses few: read as they are).
        let refusedDates = try database.doors.refusedScans(storeId: store.id, from: start, to: end)
        let clock = LocalHours(zone: zone, from: HourTotals.hour(of: start), to: HourTotals.hour(of: end))
        var refused: [Int: Int] = [:]
        for date in refusedDates { refused[clock.local(HourTotals.hour(of: date)).day, default: 0] += 1 }
        let capacity = Double(store.capacity)
        func percent(_ inside: Double) -> String { "\(Int((inside / capacity * 100).rounded())) %" }
        func minutes(_ seconds: TimeInterval?) -> String { seconds.map { Formatting.duration($0) } ?? "—" }
        let days = FigureTable(
            caption: tr("mstats.dayByDay"),
            header: ["day", "visits", "people", "lineUps", "bookings", "walkIns", "ticketToCall", "callToEntry",
                     "ticketToEntry", "declared", "actual", "noShows", "expired", "cancelled", "refused",
                     "peakInside"].map { tr("mstats.column.\($0)") },
            rows: report.days.map { day in
                let totals = day.totals
                return [DayRange.text(of: day.day), "\(Int(totals.entries))", "\(Int(totals.entryPeople))",
                        "\(Int(totals.lineUps))", "\(Int(totals.bookings))", "\(Int(totals.walkIns))",
                        minutes(totals.averageCallWait), minutes(totals.averageDoorTime), minutes(totals.averageWait),
                        minutes(totals.averageDeclared), minutes(totals.averageActual), "\(Int(totals.noShows))",
                        "\(Int(totals.expiries))", "\(Int(totals.cancellations))", "\(refused[day.day] ?? 0)",
                        percent(totals.peakInside)]
            })
        let hoursOfDay = FigureTable(
            caption: tr("mstats.hourByHour"),
            header: [tr("stats.hour"), tr("mstats.column.averageInside"), tr("mstats.column.peakInside")],
            rows: report.hoursOfDay.map { hour in
                [NumberText.clock(hours: hour.hour, minutes: 0), percent(hour.averageInside), percent(hour.peakInside)]
            })
        let departments = FigureTable(
            caption: tr("mstats.byDepartment"),
            header: [tr("mstats.column.department"), tr("mstats.column.visits")],
            rows: try database.statistics.departmentEntries(storeId: store.id, from: (range.first - 1) * 24,
                                                 to: (range.last + 2) * 24).map { [$0.name, "\($0.entries)"] })
        let loyal = FigureTable(
            caption: tr("mstats.loyal"),
            header: [tr("mstats.column.customer"), tr("mstats.column.visits"), tr("mstats.column.lastVisit")],
            rows: try database.statistics.loyalCustomers(storeId: store.id, from: start, to: end).map { customer in
                let (day, second) = ZoneOffsets(zone: zone, around: customer.lastVisit).localDay(customer.lastVisit)
                return [customer.name, "\(customer.visits)",
                        DayRange.text(of: day) + " " + NumberText.clock(hours: second / 3600, minutes: second % 3600 / 60)]
            })
        return (report, [days, hoursOfDay, departments, loyal])
    }

    static func lengths(_ totals: HourTotals) -> String {
        guard let declared = totals.averageDeclared, let actual = totals.averageActual else { return "—" }
        return "\(Formatting.duration(declared)) → \(Formatting.duration(actual))"
    }
}

/// Comma-separated values (RFC 4180), every field quoted. Text that a spreadsheet would run as
/// a formula — `=`, `+`, `-`, `@`, a tab or a carriage return first — is prefixed with `'`, at
/// the start of a field and after every `;` or `,` (and spaces) inside it too: a spreadsheet set to another
/// separator (Italian Excel reads `;`) splits the field there, and each piece starts a cell.
/// Checked on Unicode scalars, so a combining mark after `=` hides nothing.
enum CSV {
    static func text(header: [String], rows: [[String]]) -> String {
        ([header] + rows).map { $0.map(field).joined(separator: ",") }.joined(separator: "\r\n") + "\r\n"
    }

    static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t", "\r"]
    static let separators: Set<Unicode.Scalar> = [";", ","]

    static func field(_ value: String) -> String {
        var out = String.UnicodeScalarView()
        out.append("\"")
        var cellStart = true
        for scalar in value.unicodeScalars {
            if cellStart, formulaStarts.contains(scalar) { out.append("'") }
            if scalar == "\"" { out.append("\"") }
            out.append(scalar)
            // Spaces after a separator may be trimmed by the spreadsheet: the cell starts after them.
            cellStart = separators.contains(scalar) || (cellStart && scalar == " ")
        }
        out.append("\"")
        return String(out)
    }
}
