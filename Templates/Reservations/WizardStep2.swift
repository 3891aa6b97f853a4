import CLupText

/// Step 2 of the wizard: line up now (with the wait and how to get there), or book a time.
public struct HowPage: Page {
    /// What lining up now would mean, when the store accepts the party.
    public struct LineUp: Sendable {
        /// "Estimated wait about 25 min: you would enter around 10:25."
        public var estimate: String
        public var modes: [Choice]
        public var hidden: [HiddenField]
        /// The store's priority policy in words, where its customers may ask for a priority place.
        public var priority: String?

        public init(estimate: String, modes: [Choice], hidden: [HiddenField], priority: String? = nil) {
            self.estimate = estimate
            self.modes = modes
            self.hidden = hidden
            self.priority = priority
        }
    }

    public var storeName: String
    public var summary: String
    public var changeHref: String
    public var recapAction: String
    public var queued: String
    public var lineUp: LineUp?
    public var refusal: String?
    public var suggestions: [SuggestionRow]
    public var slotsHref: String
    public var firstSlot: String?

    public init(storeName: String, summary: String, changeHref: String, recapAction: String, queued: String,
                lineUp: LineUp?, refusal: String?, suggestions: [SuggestionRow], slotsHref: String,
                firstSlot: String?)
    {
        self.storeName = storeName
        self.summary = summary
        self.changeHref = changeHref
        self.recapAction = recapAction
        self.queued = queued
        self.lineUp = lineUp
        self.refusal = refusal
        self.suggestions = suggestions
        self.slotsHref = slotsHref
        self.firstSlot = firstSlot
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow">
              <p class="steps">\(tr("wizard.step2"))</p>
              <h1>\(tr("wizard.lineUpOrBook", ["store": storeName]))</h1>
              <p class="lead">\(summary) · <a href="\(changeHref)">\(tr("wizard.change"))</a></p>

              <section class="panel">
                <h2>\(tr("wizard.lineUpNow"))</h2>
                <p>\(queued)</p>
                \(lineUp.map(lineUpForm))
                \(refusal.map(refused))
              </section>

              <section class="panel">
                <h2>\(tr("wizard.bookTime"))</h2>
                <p>\(tr("wizard.bookLead"))</p>
                \(firstSlot.map { "<p class=\"fine\">\(tr("wizard.firstSlot", ["slot": $0]))</p>" })
                <p><a class="button" href="\(slotsHref)">\(tr("wizard.chooseTime"))</a></p>
              </section>
            </section>
            """)
    }

    private func lineUpForm(_ lineUp: LineUp) -> HTML {
        """
        <p><strong>\(lineUp.estimate)</strong></p>
            <form method="get" action="\(recapAction)" class="stack">
              \(Fragments.hidden(lineUp.hidden))
              <fieldset class="choices">
                <legend>\(tr("wizard.howGetThere"))</legend>
                \(Fragments.options(lineUp.modes, name: "mode"))
              </fieldset>
              \(lineUp.priority.map { policy in
                  "<label class=\"check\"><input type=\"checkbox\" name=\"priority\" value=\"1\"> \(tr("how.priority", ["policy": policy]))</label>" as HTML
              } ?? .empty)
              <button type="submit">\(tr("wizard.continue"))</button>
            </form>
        """
    }

    private func refused(_ refusal: String) -> HTML {
        """
        <p class="form-error" role="status">\(refusal)</p>
            \(if: !suggestions.isEmpty, "<h3>\(tr("wizard.shorterNearby"))</h3>\n\(Fragments.suggestions(suggestions))")
        """
    }
}
