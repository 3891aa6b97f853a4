import CLupText

/// Step 1 of the wizard: how long and how many.
public struct ReservePage: Page {
    public var storeName: String
    public var storeHref: String
    public var action: String
    public var presets: [Choice]
    public var usual: Choice?
    public var departments: [Choice]
    public var departmentsChosen: Bool
    public var people: [Choice]
    public var timeError: String?
    public var peopleError: String?
    public var hidden: [HiddenField]

    public init(storeName: String, storeHref: String, action: String, presets: [Choice], usual: Choice?,
                departments: [Choice], departmentsChosen: Bool, people: [Choice], timeError: String?,
                peopleError: String?, hidden: [HiddenField])
    {
        self.storeName = storeName
        self.storeHref = storeHref
        self.action = action
        self.presets = presets
        self.usual = usual
        self.departments = departments
        self.departmentsChosen = departmentsChosen
        self.people = people
        self.timeError = timeError
        self.peopleError = peopleError
        self.hidden = hidden
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(storeHref)">← \(storeName)</a></p>
            <section class="narrow panel">
              <p class="steps">\(tr("wizard.step1"))</p>
              <h1>\(tr("wizard.planVisit", ["store": storeName]))</h1>
              <form method="get" action="\(action)" class="stack">
                \(Fragments.hidden(hidden))
                <fieldset class="choices"\(if: timeError != nil, " aria-describedby=\"time-error\"")>
                  <legend>\(tr("wizard.howLong"))</legend>
                  \(Fragments.fieldError(timeError, id: "time-error"))
                  \(usual.map { "<label class=\"check\"><input type=\"radio\" name=\"time\" value=\"\($0.value)\"\(if: $0.checked, " checked")> \($0.label) <span class=\"fine\">(\(tr("wizard.fromPast")))</span></label>" })
                  <div class="presets">
                    \(Fragments.options(presets, name: "time", style: "pill"))
                  </div>
                  \(if: !departments.isEmpty, departmentChoices)
                </fieldset>
                <fieldset class="choices"\(if: peopleError != nil, " aria-describedby=\"people-error\"")>
                  <legend>\(tr("wizard.howMany"))</legend>
                  \(Fragments.fieldError(peopleError, id: "people-error"))
                  <div class="presets">
                    \(Fragments.options(people, name: "people", style: "pill"))
                  </div>
                </fieldset>
                <button type="submit">\(tr("wizard.continue"))</button>
              </form>
            </section>
            """)
    }

    private var departmentChoices: HTML {
        """
        <label class="check"><input type="radio" name="time" value="departments"\(if: departmentsChosen, " checked")> \(tr("wizard.fromDepartments"))</label>
              <div class="department-choices">
                \(Fragments.options(departments, name: "department", type: "checkbox"))
              </div>
        """
    }
}
