import CLupPaths
import CLupText

/// Closures across every store: those to come, by day, each liftable everywhere, and a form to
/// close every store on a day or a run of days.
public struct ChainClosuresPage: Page {
    public struct Row: Sendable {
        public var day: Int
        public var date: String
        public var reason: String
        /// "500 of 500 stores".
        public var stores: String

        public init(day: Int, date: String, reason: String, stores: String) {
            self.day = day
            self.date = date
            self.reason = reason
            self.stores = stores
        }
    }

    public var rows: [Row]
    /// The form's values and problems, by field name (from, until, reason).
    public var values: [String: String]
    public var errors: [String: String]
    public var notice: String?
    /// The first and last day a closure may be on, as a date field's min and max.
    public var range = ("", "")

    public init(rows: [Row], values: [String: String], errors: [String: String]) {
        self.rows = rows
        self.values = values
        self.errors = errors
    }

    private func field(_ name: String, label: String, type: String, required: Bool, hint: String? = nil) -> HTML {
        let limits: HTML = type == "date" ? " min=\"\(range.0)\" max=\"\(range.1)\"" : " maxlength=\"100\""
        return Fragments.inputField(name, prefix: "closure", type: type, label: label, value: values[name] ?? "",
                                    required: required, hint: hint, error: errors[name], extra: limits)
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(Paths.manage())">← \(tr("manage.yourStores"))</a></p>
            <h1>\(tr("closures.title"))</h1>
            <p>\(tr("closures.intro"))</p>
            \(Fragments.notice(notice))
            <section class="panel">
              <h2>\(tr("closures.coming"))</h2>
              \(if: rows.isEmpty, "<p class=\"empty\">\(tr("hours.noClosures"))</p>")
              \(if: !rows.isEmpty, """
                  <div class="table-wrap" tabindex="0" role="region" aria-label="\(tr("closures.coming"))">
                    <table class="figures closures">
                      <thead><tr><th scope="col">\(tr("hours.date"))</th><th scope="col">\(tr("hours.reason"))</th><th scope="col">\(tr("closures.stores"))</th><th scope="col">\(tr("ticket.change"))</th></tr></thead>
                      <tbody>
                      \(rows.map { row in """
                          <tr><td>\(row.date)</td><td>\(row.reason)</td><td>\(row.stores)</td><td>
                            <form method="post" action="\(Paths.manageClosures())">
                              \(frame.csrfField)
                              <input type="hidden" name="action" value="reopen"><input type="hidden" name="day" value="\(row.day)">
                              <button type="submit" class="secondary" data-confirm="\(tr("closures.reopenQuestion", ["date": row.date]))" aria-label="\(tr("closures.reopenOn", ["date": row.date]))">\(tr("closures.reopen"))</button>
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
                \(field("from", label: tr("closures.from"), type: "date", required: true))
                \(field("until", label: tr("closures.until"), type: "date", required: false, hint: tr("closures.untilHint")))
                \(field("reason", label: tr("hours.reason"), type: "text", required: false, hint: tr("hours.reasonHint")))
                <button type="submit" data-confirm="\(tr("closures.closeQuestion"))">\(tr("closures.submit"))</button>
              </form>
            </section>
            """)
    }
}
