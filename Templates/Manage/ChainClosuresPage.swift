import CLupPaths
import CLupText

/// Closures and special hours across stores: those to come, by day, each liftable at once,
/// and a form to close every store or a region's, or give them hours of their own, on a day
/// or a run of days.
public struct ChainClosuresPage: Page {
    public struct Row: Sendable {
        public var day: Int
        public var date: String
        /// "Closed", or the day's hours: "08:00–14:00".
        public var hours: String
        public var reason: String
        /// "500 of 500".
        public var stores: String
        /// A closure (lifted by reopening), or special hours (lifted by the usual hours).
        public var closed: Bool

        public init(day: Int, date: String, hours: String, reason: String, stores: String, closed: Bool) {
            self.day = day
            self.date = date
            self.hours = hours
            self.reason = reason
            self.stores = stores
            self.closed = closed
        }
    }

    public var rows: [Row]
    /// The form's values and problems, by field name (stores, from, until, kind, the four
    /// times, reason; problems of the times under "hours").
    public var values: [String: String]
    public var errors: [String: String]
    /// The regions a change may be limited to: (id, name).
    public var regions: [(id: String, name: String)] = []
    public var notice: String?
    /// The first and last day a closure may be on, as a date field's min and max.
    public var range = ("", "")

    public init(rows: [Row], values: [String: String], errors: [String: String]) {
        self.rows = rows
        self.values = values
        self.errors = errors
    }

    private func field(_ name: String, label: String, type: String, required: Bool, hint: String? = nil) -> HTML {
        Fragments.dayFormField(name, prefix: "closure", type: type, label: label, required: required, hint: hint,
                               values: values, errors: errors, range: range)
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(Paths.manage())">← \(tr("manage.yourStores"))</a></p>
            <h1>\(tr("closures.title"))</h1>
            <p>\(tr("closures.intro"))</p>
            \(Fragments.notice(notice))
            <section class="panel">
              <h2>\(tr("closures.coming"))</h2>
              \(if: rows.isEmpty, "<p class=\"empty\">\(tr("closures.none"))</p>")
              \(if: !rows.isEmpty, """
                  <div class="table-wrap" tabindex="0" role="region" aria-label="\(tr("closures.coming"))">
                    <table class="figures closures">
                      <thead><tr><th scope="col">\(tr("hours.date"))</th><th scope="col">\(tr("special.hours"))</th><th scope="col">\(tr("hours.reason"))</th><th scope="col">\(tr("closures.stores"))</th><th scope="col">\(tr("ticket.change"))</th></tr></thead>
                      <tbody>
                      \(rows.map { row in """
                          <tr><td>\(row.date)</td><td>\(row.hours)</td><td>\(row.reason)</td><td>\(row.stores)</td><td>
                            <form method="post" action="\(Paths.manageClosures())">
                              \(frame.csrfField)
                              <input type="hidden" name="action" value="\(row.closed ? "reopen" : "clear")"><input type="hidden" name="day" value="\(row.day)"><input type="hidden" name="reason" value="\(row.reason)">
                              \(row.closed
                                  ? "<button type=\"submit\" class=\"secondary\" data-confirm=\"\(tr("closures.reopenQuestion", ["date": row.date]))\" aria-label=\"\(tr("closures.reopenOn", ["date": row.date]))\">\(tr("closures.reopen"))</button>" as HTML
                                  : "<button type=\"submit\" class=\"secondary\" data-confirm=\"\(tr("closures.usualQuestion", ["date": row.date]))\" aria-label=\"\(tr("closures.usualOn", ["date": row.date]))\">\(tr("special.usual"))</button>" as HTML)
                            </form>
                          </td></tr>
                          """ as HTML })
                      </tbody>
                    </table>
                  </div>
                  """)
            </section>
            <section class="panel">
              <h2>\(tr("closures.new"))</h2>
              \(if: !errors.isEmpty, Fragments.formError(tr("closures.notClosed")))
              <form method="post" action="\(Paths.manageClosures())" class="stack">
                \(frame.csrfField)
                <input type="hidden" name="action" value="close">
                <div class="field">
                  <label for="closure-stores">\(tr("closures.which"))</label>
                  <select id="closure-stores" name="stores"\(Fragments.invalid(errors["stores"], describedBy: "closure-stores-error"))>
                    <option value="all"\(if: values["stores"] == "all" || values["stores"] == nil, " selected")>\(tr("closures.everyStore"))</option>
                    \(regions.map { region in
                        "<option value=\"\(region.id)\"\(if: values["stores"] == region.id, " selected")>\(tr("closures.region", ["name": region.name]))</option>" as HTML
                    })
                  </select>
                  \(Fragments.fieldError(errors["stores"], id: "closure-stores-error"))
                </div>
                \(field("from", label: tr("closures.from"), type: "date", required: true))
                \(field("until", label: tr("closures.until"), type: "date", required: false, hint: tr("closures.untilHint")))
                <fieldset class="choices">
                  <legend>\(tr("closures.kind"))</legend>
                  <label class="check"><input type="radio" name="kind" value="closed"\(if: values["kind"] != "hours", " checked")> \(tr("closures.kindClosed"))</label>
                  <label class="check"><input type="radio" name="kind" value="hours"\(if: values["kind"] == "hours", " checked")> \(tr("closures.kindHours"))</label>
                </fieldset>
                \(Fragments.openingFields(prefix: "closure", values: values, error: errors["hours"]))
                \(field("reason", label: tr("hours.reason"), type: "text", required: false, hint: tr("hours.reasonHint")))
                <button type="submit" data-confirm="\(tr("closures.closeQuestion"))">\(tr("closures.submit"))</button>
              </form>
            </section>
            """)
    }
}
