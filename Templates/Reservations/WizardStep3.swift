import CLupText

/// A day of the slot picker.
public struct DayTab: Sendable {
    public var label: String
    public var href: String
    public var current: Bool

    public init(label: String, href: String, current: Bool) {
        self.label = label
        self.href = href
        self.current = current
    }
}

/// A bookable slot.
public struct SlotChoice: Sendable {
    public var value: String
    public var time: String
    /// free, nearlyFull or full: the colour.
    public var state: String
    public var note: String

    public init(value: String, time: String, state: String, note: String) {
        self.value = value
        self.time = time
        self.state = state
        self.note = note
    }
}

/// Step 3 of the wizard, for a booking: the slot picker.
public struct SlotsPage: Page {
    public var storeName: String
    public var summary: String
    public var changeHref: String
    public var action: String
    public var days: [DayTab]
    public var slots: [SlotChoice]
    /// Why some of the day's slots are not offered.
    public var notes: [String]
    /// The store does not open that day.
    public var closed: Bool
    public var hidden: [HiddenField]

    public init(storeName: String, summary: String, changeHref: String, action: String, days: [DayTab],
                slots: [SlotChoice], notes: [String], closed: Bool, hidden: [HiddenField])
    {
        self.storeName = storeName
        self.summary = summary
        self.changeHref = changeHref
        self.action = action
        self.days = days
        self.slots = slots
        self.notes = notes
        self.closed = closed
        self.hidden = hidden
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow">
              <p class="steps">\(tr("wizard.step3"))</p>
              <h1>\(tr("wizard.chooseTimeAt", ["store": storeName]))</h1>
              <p class="lead">\(summary) · <a href="\(changeHref)">\(tr("wizard.backLower"))</a></p>
              <nav class="days" aria-label="\(tr("wizard.day"))">
                \(days.map { "<a href=\"\($0.href)\"\(if: $0.current, " aria-current=\"page\"")>\($0.label)</a>" })
              </nav>
              \(notes.map { "<p class=\"fine\">\($0)</p>" })
              \(if: !slots.isEmpty, slotForm)
              \(if: closed, "<p class=\"empty\">\(tr("wizard.closedDay"))</p>")
            </section>
            """)
    }

    private var slotForm: HTML {
        """
        <form method="get" action="\(action)" class="stack">
            \(Fragments.hidden(hidden))
            <fieldset class="slots">
              <legend>\(tr("wizard.slots")) <span class="fine">(\(tr("wizard.slotsKey")))</span></legend>
              \(slots.map { "<label class=\"slot slot-\($0.state)\"><input type=\"radio\" name=\"slot\" value=\"\($0.value)\" required> <span class=\"slot-time\">\($0.time)</span> <span class=\"slot-note\">\($0.note)</span></label>" })
            </fieldset>
            <button type="submit">\(tr("wizard.continue"))</button>
          </form>
        """
    }
}
