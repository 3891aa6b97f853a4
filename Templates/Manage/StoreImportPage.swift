import CLupPaths
import CLupText

/// An administrator registers many stores from a CSV file: the columns a file may have, a
/// form to send one to be checked or imported, and then either every problem by line (nothing
/// imported) or, after a check, the stores ready to import with a button that imports them.
public struct StoreImportPage: Page {
    /// A column a file may have: its name, what it holds, and whether a file must have it.
    public struct Column: Sendable {
        public var name: String
        public var text: String
        public var required: Bool

        public init(name: String, text: String, required: Bool) {
            self.name = name
            self.text = text
            self.required = required
        }
    }

    /// A store a checked file would register.
    public struct Ready: Sendable {
        public var line: Int
        public var name: String
        public var address: String
        public var capacity: Int
        public var hasHours: Bool

        public init(line: Int, name: String, address: String, capacity: Int, hasHours: Bool) {
            self.line = line
            self.name = name
            self.address = address
            self.capacity = capacity
            self.hasHours = hasHours
        }
    }

    public var columns: [Column]
    /// "Line 4: Capacity: Enter a number from 1 to 10000." each; not empty when the file was refused.
    public var problems: [String] = []
    /// After a check that found nothing wrong: the stores, and the file to send again to import them.
    public var ready: [Ready] = []
    public var checkedText = ""
    public var error: String?

    /// The problems and stores listed in full; past these a count says how many more.
    static let shownProblems = 200
    static let shownStores = 20

    public init(columns: [Column]) {
        self.columns = columns
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(Paths.manage())">← \(tr("manage.yourStores"))</a></p>
            <h1>\(tr("import.title"))</h1>
            <p>\(tr("import.intro"))</p>
            \(Fragments.formError(error))
            \(problemsSection)
            \(readySection(frame))
            <section class="panel">
              <h2>\(tr("import.sendTitle"))</h2>
              <form method="post" action="\(Paths.manageImportStores())" enctype="multipart/form-data" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="import-file">\(tr("import.file"))</label>
                  <input id="import-file" name="file" type="file" accept=".csv,.txt,text/csv" required aria-describedby="import-file-hint">
                  <p class="fine" id="import-file-hint">\(tr("import.fileHint"))</p>
                </div>
                <p class="actions">
                  <button type="submit" name="action" value="check">\(tr("import.check"))</button>
                  <button type="submit" name="action" value="import" class="secondary">\(tr("import.importNow"))</button>
                </p>
              </form>
            </section>
            <section class="panel">
              <h2>\(tr("import.columnsTitle"))</h2>
              <p>\(tr("import.columnsIntro"))</p>
              <div class="table-wrap" tabindex="0" role="region" aria-label="\(tr("import.columnsTitle"))">
                <table class="figures text-table">
                  <thead><tr><th scope="col">\(tr("import.column"))</th><th scope="col">\(tr("import.holds"))</th></tr></thead>
                  <tbody>
                    \(columns.map { column in """
                        <tr><td><code>\(column.name)</code>\(if: column.required, " <strong>\(tr("import.required"))</strong>")</td><td>\(column.text)</td></tr>
                        """ })
                  </tbody>
                </table>
              </div>
              <p>\(tr("import.example"))</p>
              <div class="sample" tabindex="0" role="region" aria-label="\(tr("import.example"))"><pre>\(tr("import.exampleFile"))</pre></div>
            </section>
            """)
    }

    private var problemsSection: HTML {
        guard !problems.isEmpty else { return .empty }
        let more = problems.count - Self.shownProblems
        return """
            <section class="panel" role="alert" aria-labelledby="import-problems">
              <h2 id="import-problems">\(tr("import.refused", count: problems.count))</h2>
              <ul class="problems">
                \(problems.prefix(Self.shownProblems).map { "<li>\($0)</li>" })
              </ul>
              \(if: more > 0, "<p>\(tr("import.moreProblems", count: more))</p>")
            </section>
            """
    }

    private func readySection(_ frame: Frame) -> HTML {
        guard !ready.isEmpty else { return .empty }
        let more = ready.count - Self.shownStores
        let closed = ready.filter { !$0.hasHours }.count
        return """
            <section class="panel" aria-labelledby="import-ready">
              <h2 id="import-ready">\(tr("import.ready", count: ready.count))</h2>
              <p role="status">\(tr("import.nothingYet"))\(if: closed > 0, " \(tr("import.withoutHours", count: closed))")</p>
              <div class="table-wrap" tabindex="0" role="region" aria-labelledby="import-ready">
                <table class="figures text-table">
                  <thead><tr><th scope="col">\(tr("import.line"))</th><th scope="col">\(tr("storeField.name"))</th><th scope="col">\(tr("storeField.address"))</th><th scope="col">\(tr("import.capacity"))</th><th scope="col">\(tr("import.hours"))</th></tr></thead>
                  <tbody>
                    \(ready.prefix(Self.shownStores).map { store in """
                        <tr><td>\(store.line)</td><td>\(store.name)</td><td>\(store.address)</td><td>\(store.capacity)</td><td>\(store.hasHours ? tr("import.hoursSet") : tr("import.hoursNone"))</td></tr>
                        """ })
                  </tbody>
                </table>
              </div>
              \(if: more > 0, "<p>\(tr("import.moreStores", count: more))</p>")
              <form method="post" action="\(Paths.manageImportStores())" enctype="multipart/form-data">
                \(frame.csrfField)
                <input type="hidden" name="csv" value="\(checkedText)">
                <button type="submit" name="action" value="import">\(tr("import.importThese", count: ready.count))</button>
              </form>
            </section>
            """
    }
}
