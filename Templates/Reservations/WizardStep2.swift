/// Step 2 of the wizard: line up now (with the wait and how to get there), or book a time.
public struct HowPage: Page {
    /// What lining up now would mean, when the store accepts the party.
    public struct LineUp: Sendable {
        /// "Estimated wait about 25 min: you would enter around 10:25."
        public var estimate: String
        public var modes: [Choice]
        public var hidden: [HiddenField]

        public init(estimate: String, modes: [Choice], hidden: [HiddenField]) {
            self.estimate = estimate
            self.modes = modes
            self.hidden = hidden
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
              <p class="steps">Step 2 · Line up or book</p>
              <h1>Line up or book at \(storeName)</h1>
              <p class="lead">\(summary) · <a href="\(changeHref)">change</a></p>

              <section class="panel">
                <h2>Line up now</h2>
                <p>\(queued)</p>
                \(lineUp.map(lineUpForm))
                \(refusal.map(refused))
              </section>

              <section class="panel">
                <h2>Book a time</h2>
                <p>Choose a slot from 2 hours to 7 days ahead; your place is kept for you.</p>
                \(firstSlot.map { "<p class=\"fine\">The first time you can book: \($0).</p>" })
                <p><a class="button" href="\(slotsHref)">Choose a time</a></p>
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
                <legend>How will you get there?</legend>
                \(Fragments.options(lineUp.modes, name: "mode"))
              </fieldset>
              <button type="submit">Continue</button>
            </form>
        """
    }

    private func refused(_ refusal: String) -> HTML {
        """
        <p class="form-error" role="status">\(refusal)</p>
            \(if: !suggestions.isEmpty, "<h3>Stores nearby with a shorter wait</h3>\n\(Fragments.suggestions(suggestions))")
        """
    }
}
