import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// Every store's live figures on one page (`/manage/overview`): people inside against
/// capacity, people waiting and the wait shown to customers, today's bookings, the kiosks
/// and which are silent, and the traffic light — for an administrator every store, for a
/// manager the stores they manage (their own and their regions'). Filtered by region, sorted
/// by any column, refreshed in place by the page's script; the same rows as CSV and JSON for
/// the operator's own tools. Live figures come from the board, as the store pages read them;
/// bookings and kiosks in one query each for all the stores.
extension ManageArea {
    /// One store's row, as the page, the CSV and the JSON give it.
    struct OverviewRow: Encodable {
        var id: Int64
        var name: String
        var region: String?
        var peopleInside: Int
        var capacity: Int
        var peopleWaiting: Int
        /// The wait a customer who lines up now is shown, in minutes (nil: none, or closed).
        var waitMinutes: Int?
        var bookingsToday: Int
        var kiosks: Int
        var silentKiosks: Int
        var light: String
        var status: String
    }

    /// The orders the page offers, by the `sort` parameter: the busiest first but for the name.
    static let overviewSorts = ["name", "inside", "waiting", "wait", "bookings", "kiosks", "light"]

    /// The rows the asker may see, in the region chosen (`region`: an id, `none`, or all) and
    /// the order chosen; with the regions to choose from.
    private func overviewRows(_ context: ManagerContext) throws
        -> (rows: [OverviewRow], regions: [StoreGroup], region: String, sort: String)
    {
        let user = context.user
        guard user.role == .admin || user.role == .manager else { throw HTTPError.forbidden }
        let now = context.now
        let visible: [StoreID] = user.role == .admin
            ? database.board.entries().map(\.id) : try database.accounts.managedStores(userId: user.id).map(\.id)
        let regionOf = try database.stores.regions()
        let allRegions = try database.stores.groups()
        let regions = user.role == .admin ? allRegions : allRegions.filter { group in visible.contains { regionOf[$0] == group.id } }
        let names = Dictionary(uniqueKeysWithValues: allRegions.map { ($0.id, $0.name) })
        let query = context.request.query
        let region = query["region"] ?? ""
        let chosen: [StoreID] = switch region {
        case "": visible
        case "none": visible.filter { regionOf[$0] == nil }
        default: visible.filter { regionOf[$0].map(String.init) == region }
        }
        // Each store's bookings today, on its own calendar: one count for each time zone the
        // stores shown are in.
        var bookings: [StoreID: Int] = [:]
        for (zone, ids) in Dictionary(grouping: chosen, by: { database.board.entry($0)?.store.zone ?? .gmt }) {
            let offsets = ZoneOffsets.table(for: zone, around: now)
            let today = ZoneOffsets.day(of: now, in: zone)
            let counts = try database.reservations.bookingCounts(
                from: offsets.instant(localSeconds: today * ZoneOffsets.secondsPerDay),
                to: offsets.instant(localSeconds: (today + 1) * ZoneOffsets.secondsPerDay))
            for id in ids { bookings[id] = counts[id] }
        }
        let kiosks = Dictionary(grouping: try database.doors.kioskHealth(now: now), by: \.storeId)
        var rows: [OverviewRow] = []
        for id in chosen {
            guard let (entry, standing) = database.board.live(id, now: now), !entry.definition.isRetired else { continue }
            let status = standing.status
            let waiting = entry.live.live.reduce(0) { total, ticket in
                switch ticket.state {
                case .waiting, .called: total + ticket.people
                case .inside, .booked: total
                }
            }
            let theirs = kiosks[id] ?? []
            rows.append(OverviewRow(
                id: id.rawValue, name: entry.store.name, region: regionOf[id].flatMap { names[$0] },
                peopleInside: status.peopleInside, capacity: status.capacity, peopleWaiting: waiting,
                waitMinutes: status.openState.isOpen ? status.wait.map { Int(($0 / 60).rounded()) } : nil,
                bookingsToday: bookings[id] ?? 0,
                kiosks: theirs.count, silentKiosks: theirs.filter { $0.silence(now: now, hours: entry.hours) != nil }.count,
                light: status.light.rawValue, status: status.reason.text))
        }
        let sort = Self.overviewSorts.contains(query["sort"] ?? "") ? query["sort"]! : "name"
        let lightOrder = ["red": 0, "yellow": 1, "green": 2]
        func busier(_ a: OverviewRow, _ b: OverviewRow) -> Bool? {
            switch sort {
            case "inside":
                let (x, y) = (Double(a.peopleInside) / Double(max(1, a.capacity)), Double(b.peopleInside) / Double(max(1, b.capacity)))
                return x == y ? nil : x > y
            case "waiting": return a.peopleWaiting == b.peopleWaiting ? nil : a.peopleWaiting > b.peopleWaiting
            case "wait": return a.waitMinutes == b.waitMinutes ? nil : (a.waitMinutes ?? -1) > (b.waitMinutes ?? -1)
            case "bookings": return a.bookingsToday == b.bookingsToday ? nil : a.bookingsToday > b.bookingsToday
            case "kiosks": return a.silentKiosks == b.silentKiosks ? nil : a.silentKiosks > b.silentKiosks
            case "light":
                let (x, y) = (lightOrder[a.light] ?? 3, lightOrder[b.light] ?? 3)
                return x == y ? nil : x < y
            default: return nil
            }
        }
        rows.sort { a, b in
            busier(a, b) ?? ((a.name.lowercased(), a.id) < (b.name.lowercased(), b.id))
        }
        return (rows, regions, region, sort)
    }

    func overview(_ context: ManagerContext) throws -> Response {
        let (rows, regions, region, sort) = try overviewRows(context)
        let now = context.now
        let zone = Self.chainZone(database)
        var page = ChainOverviewPage(
            rows: rows.map { row in
                ChainOverviewPage.Row(
                    id: row.id, name: row.name, region: row.region ?? "—",
                    inside: tr("store.insideOf", ["inside": String(row.peopleInside), "capacity": String(row.capacity)]),
                    full: row.peopleInside >= row.capacity,
                    waiting: String(row.peopleWaiting),
                    wait: row.waitMinutes.map { tr("unit.minutes", ["n": String($0)]) } ?? "—",
                    bookings: String(row.bookingsToday),
                    kiosks: row.kiosks == 0 ? tr("overview.noKiosks")
                        : row.silentKiosks > 0 ? tr("overview.silent", ["silent": String(row.silentKiosks), "kiosks": String(row.kiosks)])
                        : tr("overview.kiosksOK", ["kiosks": String(row.kiosks)]),
                    silent: row.silentKiosks > 0, light: row.light, status: row.status)
            },
            regions: [Choice(value: "", label: tr("overview.allRegions"), checked: region.isEmpty)]
                + regions.map { Choice(value: String($0.id), label: $0.name, checked: String($0.id) == region) }
                + [Choice(value: "none", label: tr("overview.noRegion"), checked: region == "none")],
            sort: sort, updated: Formatting.clock(now, now: now, timeZone: zone))
        page.query = FormData(pairs: region.isEmpty ? [] : [("region", region)]).urlEncoded
        page.sorts = Self.overviewSorts
        page.canManageRegions = context.user.role == .admin
        return views.page(title: tr("overview.title"), section: .manage, context, page)
    }

    func overviewCSV(_ context: ManagerContext) throws -> Response {
        let rows = try overviewRows(context).rows
        let header = ["store", "name", "region", "people_inside", "capacity", "people_waiting", "wait_minutes",
                      "bookings_today", "kiosks", "silent_kiosks", "light", "status"]
        let lines = rows.map { row in
            [String(row.id), row.name, row.region ?? "", String(row.peopleInside), String(row.capacity),
             String(row.peopleWaiting), row.waitMinutes.map(String.init) ?? "", String(row.bookingsToday),
             String(row.kiosks), String(row.silentKiosks), row.light, row.status]
        }
        return Response(status: 200, headers: [
            ("Content-Type", "text/csv; charset=utf-8"),
            ("Content-Disposition", "attachment; filename=\"clup-overview.csv\""),
            ("Cache-Control", "private, no-store"),
        ], body: Array(CSV.text(header: header, rows: lines).utf8))
    }

    func overviewJSON(_ context: ManagerContext) throws -> Response {
        struct Answer: Encodable {
            /// When the figures are from, ISO 8601 in UTC.
            var at: String
            var stores: [OverviewRow]
        }
        return .json(Answer(at: context.now.ISO8601Format(), stores: try overviewRows(context).rows))
    }
}
