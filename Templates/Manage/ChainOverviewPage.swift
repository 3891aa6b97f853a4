import CLupPaths
import CLupText

/// Every store's live figures on one page, filtered by region, sorted by any column; the
/// page's script refreshes the table in place (`data-live-table`), and the figures are also
/// offered as CSV and JSON.
public struct ChainOverviewPage: Page {
    public struct Row: Sendable {
        public var id: Int64
        public var name: String
        public var region: String
        public var inside: String
        /// At or over capacity: marked.
        public var full: Bool
        public var waiting: String
        public var wait: String
        public var bookings: String
        public var kiosks: String
        /// A kiosk silent while the store is open: marked.
        public var silent: Bool
        public var light: String
        public var status: String

        public init(id: Int64, name: String, region: String, inside: String, full: Bool, waiting: String, wait: String,
                    bookings: String, kiosks: String, silent: Bool, light: String, status: String)
        {
            (self.id, self.name, self.region, self.inside, self.full) = (id, name, region, inside, full)
            (self.waiting, self.wait, self.bookings, self.kiosks) = (waiting, wait, bookings, kiosks)
            (self.silent, self.light, self.status) = (silent, light, status)
        }
    }

    public var rows: [Row]
    public var regions: [Choice]
    /// The column the rows are sorted by, and the columns that sort (`overview.sort.<name>`).
    public var sort: String
    public var sorts: [String] = []
    /// When the figures are from, as a clock reading.
    public var updated: String
    /// The region chosen, as a query ("" for all), kept by the sort links and the exports.
    public var query = ""
    /// Administrators arrange the regions.
    public var canManageRegions = false

    public init(rows: [Row], regions: [Choice], sort: String, updated: String) {
        (self.rows, self.regions, self.sort, self.updated) = (rows, regions, sort, updated)
    }

    private func link(sort column: String) -> String {
        Paths.manageOverview(query: query.isEmpty ? "sort=\(column)" : "\(query)&sort=\(column)")
    }

    private func header(_ column: String) -> HTML {
        let label = tr("overview.column.\(column)")
        let sorted = column == sort
        let order = column == "name" ? "ascending" : "descending"
        return """
            <th scope="col"\(if: sorted, " aria-sort=\"\(order)\"")>\(sorts.contains(column) ? "<a href=\"\(link(sort: column))\">\(label)</a>" as HTML : "\(label)")</th>
            """
    }

    public func render(in frame: Frame) -> HTML {
        let exports = query.isEmpty ? "" : "?" + query
        return frame.site("""
            <p class="back"><a href="\(Paths.manage())">← \(tr("manage.yourStores"))</a></p>
            <h1>\(tr("overview.title"))</h1>
            <p class="fine">\(tr("overview.lead"))</p>
            <form method="get" action="\(Paths.manageOverview())" class="inline-form">
              <label>\(tr("overview.region"))
                <select name="region">\(Fragments.selectOptions(regions))</select>
              </label>
              <input type="hidden" name="sort" value="\(sort)">
              <button type="submit">\(tr("overview.show"))</button>
            </form>
            <p class="actions"><a class="button secondary" href="\(Paths.manageOverviewCSV())\(exports)" download>\(tr("overview.csv"))</a> <a href="\(Paths.manageOverviewJSON())\(exports)">\(tr("overview.json"))</a>\(if: canManageRegions, " <a href=\"\(Paths.manageGroups())\">\(tr("groups.title"))</a>")</p>
            <p class="fine" data-live-updated aria-live="polite">\(tr("overview.updated", ["time": updated, "count": String(rows.count)]))</p>
            <div class="table-wrap" tabindex="0" role="region" aria-label="\(tr("overview.title"))">
              <table class="figures overview" data-live-table data-live-seconds="20">
                <thead><tr>\(["name", "region", "inside", "waiting", "wait", "bookings", "kiosks", "light"].map(header))</tr></thead>
                <tbody>
                \(rows.map { row in
                    """
                    <tr\(if: row.full || row.silent, " class=\"attention\"")><th scope="row"><a href="\(Paths.manageStore(row.id))">\(row.name)</a></th><td>\(row.region)</td><td>\(row.full ? "<strong>\(row.inside)</strong>" as HTML : "\(row.inside)")</td><td>\(row.waiting)</td><td>\(row.wait)</td><td>\(row.bookings)</td><td>\(row.silent ? "<strong>\(row.kiosks)</strong>" as HTML : "\(row.kiosks)")</td><td><span class="light light-\(row.light)" aria-hidden="true"></span> \(row.status)</td></tr>
                    """ as HTML
                })
                </tbody>
              </table>
            </div>
            \(if: rows.isEmpty, "<p class=\"empty\">\(tr("overview.none"))</p>")
            """)
    }
}
