import CLupPaths
import CLupText

/// A bar chart drawn on the server as SVG: readable without JavaScript, on a phone and on
/// paper, with a title and a description for screen readers. Pages put the same numbers in a
/// table below it.
public struct BarChart: Sendable {
    public struct Bar: Sendable {
        public var label: String
        /// Nil: nothing to show for this bar (too few visits, or closed).
        public var value: Double?
        /// Drawn apart (the current hour).
        public var highlighted: Bool

        public init(label: String, value: Double?, highlighted: Bool = false) {
            self.label = label
            self.value = value
            self.highlighted = highlighted
        }
    }

    public var id: String
    public var title: String
    public var description: String
    public var bars: [Bar]
    /// The value of a full-height bar (at least the largest value).
    public var scale: Double
    /// A level drawn across the bar at `marker.index` ("now").
    public var marker: (index: Int, value: Double, label: String)?
    /// Every how many bars a label is written under the axis.
    public var labelEvery: Int
    /// After each value ("%", or nothing for counts).
    public var unit: String

    /// The top of the chart is the largest value rounded up to a round number (at least
    /// `minimumScale`), and is written at the top right.
    public init(id: String, title: String, description: String, bars: [Bar], minimumScale: Double = 1,
                marker: (index: Int, value: Double, label: String)? = nil, labelEvery: Int = 1, unit: String = "")
    {
        self.id = id
        self.title = title
        self.description = description
        self.bars = bars
        self.scale = Self.roundUp(max(minimumScale, bars.compactMap(\.value).max() ?? 0, marker?.value ?? 0))
        self.marker = marker
        self.labelEvery = max(1, labelEvery)
        self.unit = unit
    }

    /// 1, 2 or 5 times a power of ten, at least `value`.
    static func roundUp(_ value: Double) -> Double {
        guard value > 0 else { return 1 }
        var power = 1.0
        while power * 10 <= value { power *= 10 }
        while power > value { power /= 10 }
        return [1.0, 2, 5, 10].map { $0 * power }.first { $0 >= value } ?? value
    }

    static let width = 600.0
    static let height = 160.0

    func render() -> HTML {
        let top = 14.0
        let plot = Self.height
        let slot = Self.width / Double(max(1, bars.count))
        let barWidth = slot * 0.78
        func y(_ value: Double) -> Double { top + plot - plot * min(1, value / scale) }
        var shapes: [HTML] = [
            "<line class=\"grid\" x1=\"0\" x2=\"\(Self.number(Self.width))\" y1=\"\(Self.number(top))\" y2=\"\(Self.number(top))\"></line>",
            "<text class=\"scale\" x=\"\(Self.number(Self.width))\" y=\"\(Self.number(top - 3))\" text-anchor=\"end\">\(Self.number(scale))\(unit)</text>",
        ]
        for (index, bar) in bars.enumerated() {
            let x = Double(index) * slot + (slot - barWidth) / 2
            if let value = bar.value {
                let barTop = y(value)
                shapes.append("<rect class=\"bar\(bar.highlighted ? " bar-now" : "")\" x=\"\(Self.number(x))\" y=\"\(Self.number(barTop))\" width=\"\(Self.number(barWidth))\" height=\"\(Self.number(top + plot - barTop))\"><title>\(bar.label): \(Self.number(value))\(unit)</title></rect>")
            } else {
                shapes.append("<rect class=\"bar-none\" x=\"\(Self.number(x))\" y=\"\(Self.number(top + plot - 3))\" width=\"\(Self.number(barWidth))\" height=\"3\"></rect>")
            }
            if index % labelEvery == 0 {
                shapes.append("<text x=\"\(Self.number(x + barWidth / 2))\" y=\"\(Self.number(top + plot + 16))\" text-anchor=\"middle\">\(bar.label)</text>")
            }
        }
        if let marker {
            let x = Double(marker.index) * slot + (slot - barWidth) / 2
            let level = y(marker.value)
            shapes.append("<line class=\"marker\" x1=\"\(Self.number(x - 3))\" x2=\"\(Self.number(x + barWidth + 3))\" y1=\"\(Self.number(level))\" y2=\"\(Self.number(level))\"></line>")
            shapes.append("<text class=\"marker-label\" x=\"\(Self.number(x + barWidth / 2))\" y=\"\(Self.number(max(12, level - 5)))\" text-anchor=\"middle\">\(marker.label)</text>")
        }
        return """
            <figure class="chart">
              <svg viewBox="0 0 \(Self.number(Self.width)) \(Self.number(top + plot + 22))" role="img" aria-labelledby="\(id)-title \(id)-desc">
                <title id="\(id)-title">\(title)</title>
                <desc id="\(id)-desc">\(description)</desc>
                <line class="axis" x1="0" x2="\(Self.number(Self.width))" y1="\(Self.number(top + plot))" y2="\(Self.number(top + plot))"></line>
                \(shapes)
              </svg>
              <figcaption>\(title)</figcaption>
            </figure>
            """
    }

    /// One decimal at most, no trailing zero: SVG coordinates and values.
    static func number(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

/// A table of figures with a header row, as pages and CSV exports share it.
public struct FigureTable: Sendable {
    public var caption: String
    public var header: [String]
    public var rows: [[String]]
    /// Where the same table is downloaded as CSV, if anywhere.
    public var csvHref: String?

    public init(caption: String, header: [String], rows: [[String]], csvHref: String? = nil) {
        self.caption = caption
        self.header = header
        self.rows = rows
        self.csvHref = csvHref
    }

    func render() -> HTML {
        """
        <div class="table-wrap" tabindex="0" role="region" aria-label="\(caption)">
          <table class="figures">
            <caption>\(caption)\(csvHref.map { " <a class=\"csv\" href=\"\($0)\">CSV</a>" as HTML })</caption>
            <thead><tr>\(header.map { "<th scope=\"col\">\($0)</th>" })</tr></thead>
            <tbody>\(rows.map { row in "<tr>\(row.enumerated().map { $0.offset == 0 ? "<th scope=\"row\">\($0.element)</th>" : "<td>\($0.element)</td>" as HTML })</tr>" as HTML })</tbody>
          </table>
          \(if: rows.isEmpty, "<p class=\"fine\">\(tr("stats.nothingInRange"))</p>")
        </div>
        """
    }
}

/// A store's public statistics: how busy it usually is, hour by hour, on each weekday.
public struct StoreStatsPage: Page {
    public struct DayLink: Sendable {
        public var name: String
        public var href: String
        public var current: Bool

        public init(name: String, href: String, current: Bool) {
            self.name = name
            self.href = href
            self.current = current
        }
    }

    public var storeName: String
    public var storeHref: String
    public var dayName: String
    public var days: [DayLink]
    public var summary: [String]
    public var chart: BarChart
    public var table: FigureTable
    public var note: String

    public init(storeName: String, storeHref: String, dayName: String, days: [DayLink], summary: [String],
                chart: BarChart, table: FigureTable, note: String)
    {
        self.storeName = storeName
        self.storeHref = storeHref
        self.dayName = dayName
        self.days = days
        self.summary = summary
        self.chart = chart
        self.table = table
        self.note = note
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(storeHref)">← \(storeName)</a></p>
            <h1>\(tr("stats.howBusy", ["store": storeName]))</h1>
            <nav class="days stats-days" aria-label="\(tr("stats.weekday"))">
              \(days.map { "<a href=\"\($0.href)\"\(if: $0.current, " aria-current=\"page\"")>\($0.name)</a>" as HTML })
            </nav>
            <h2>\(dayName)</h2>
            \(summary.map { "<p>\($0)</p>" as HTML })
            \(chart.render())
            \(table.render())
            <p class="fine">\(note)</p>
            """)
    }
}

/// A store's figures for its manager over a date range, each table with its CSV.
public struct ManageStatsPage: Page {
    public var storeId: Int64
    public var storeName: String
    public var from: String
    public var to: String
    public var rangeError: String?
    public var facts: [Fact]
    public var charts: [(chart: BarChart, table: FigureTable)]
    public var tables: [FigureTable]

    public init(storeId: Int64, storeName: String, from: String, to: String, rangeError: String?, facts: [Fact],
                charts: [(chart: BarChart, table: FigureTable)], tables: [FigureTable])
    {
        self.storeId = storeId
        self.storeName = storeName
        self.from = from
        self.to = to
        self.rangeError = rangeError
        self.facts = facts
        self.charts = charts
        self.tables = tables
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(Paths.manageStore(storeId))">← \(storeName)</a></p>
            <h1>\(tr("stats.title", ["store": storeName]))</h1>
            <form method="get" action="\(Paths.manageStoreStats(storeId))" class="range-form no-print">
              <div class="field"><label for="from">\(tr("stats.from"))</label><input id="from" name="from" type="date" value="\(from)" required></div>
              <div class="field"><label for="to">\(tr("stats.to"))</label><input id="to" name="to" type="date" value="\(to)" required></div>
              <button type="submit" class="secondary">\(tr("stats.show"))</button>
            </form>
            \(Fragments.formError(rangeError))
            <dl class="facts">
              \(Fragments.facts(facts))
            </dl>
            \(charts.map { "<section class=\"panel\">\($0.chart.render())\($0.table.render())</section>" as HTML })
            \(tables.map { "<section class=\"panel\">\($0.render())</section>" as HTML })
            """)
    }
}
