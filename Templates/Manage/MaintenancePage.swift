import CLupPaths
import CLupText

/// An administrator's scheduled maintenance: the windows not over yet, each cancellable, and
/// a form to schedule another, every field checked with its reason.
public struct MaintenancePage: Page {
    public struct Row: Sendable {
        public var id: Int64
        /// "Tue 1 Dec at 02:00 – 04:00 (Europe/Rome), announced from Mon 30 Nov at 02:00".
        public var text: String
        public var underway: Bool

        public init(id: Int64, text: String, underway: Bool) {
            self.id = id
            self.text = text
            self.underway = underway
        }
    }

    public var windows: [Row]
    /// The form's values and problems, by field name (day, from, until, timeZone, announceHours).
    public var values: [String: String]
    public var errors: [String: String]
    public var zones: [String]
    public var notice: String?
    public var error: String?

    public init(windows: [Row], values: [String: String], errors: [String: String], zones: [String]) {
        self.windows = windows
        self.values = values
        self.errors = errors
        self.zones = zones
    }

    private func field(_ name: String, type: String, label: String, hint: String? = nil, extra: HTML = .empty) -> HTML {
        Fragments.inputField(name, prefix: "maintenance", type: type, label: label, value: values[name] ?? "", required: true,
                             hint: hint, error: errors[name], extra: extra)
    }

    public func render(in frame: Frame) -> HTML {
        let zone = values["timeZone"] ?? ""
        return frame.site("""
            <p class="back"><a href="\(Paths.manage())">← \(tr("manage.yourStores"))</a></p>
            <h1>\(tr("maintenance.title"))</h1>
            <p>\(tr("maintenance.intro"))</p>
            \(Fragments.notice(notice))
            \(Fragments.formError(error))
            <section class="panel">
              <h2>\(tr("maintenance.upcoming"))</h2>
              <ul class="rows">
                \(windows.map { row in """
                    <li>\(row.text)\(if: row.underway, " <strong>\(tr("maintenance.underwayNow"))</strong>") <form method="post" action="\(Paths.manageMaintenanceCancel())" class="inline">\(frame.csrfField)<input type="hidden" name="window" value="\(row.id)"><button type="submit" class="link" data-confirm="\(tr("maintenance.cancelQuestion"))">\(tr("maintenance.cancel"))</button></form></li>
                    """ })
              </ul>
              \(if: windows.isEmpty, "<p class=\"empty\">\(tr("maintenance.none"))</p>")
            </section>
            <section class="panel">
              <h2>\(tr("maintenance.new"))</h2>
              <form method="post" action="\(Paths.manageMaintenance())" class="stack">
                \(frame.csrfField)
                \(field("day", type: "date", label: tr("maintenance.day")))
                \(field("from", type: "time", label: tr("maintenance.from")))
                \(field("until", type: "time", label: tr("maintenance.until"), hint: tr("maintenance.untilHint")))
                <div class="field">
                  <label for="maintenance-timeZone">\(tr("maintenance.timeZone"))</label>
                  <select id="maintenance-timeZone" name="timeZone"\(if: errors["timeZone"] != nil, " aria-invalid=\"true\" aria-describedby=\"maintenance-timeZone-error\"")>\(Fragments.selectOptions(zones.map { Choice(value: $0, label: $0, checked: $0 == zone) }))</select>
                  \(Fragments.fieldError(errors["timeZone"], id: "maintenance-timeZone-error"))
                </div>
                \(field("announceHours", type: "number", label: tr("maintenance.announceHours"), hint: tr("maintenance.announceHint"), extra: " min=\"0\" max=\"336\" inputmode=\"numeric\""))
                <button type="submit">\(tr("maintenance.schedule"))</button>
              </form>
            </section>
            """)
    }
}
