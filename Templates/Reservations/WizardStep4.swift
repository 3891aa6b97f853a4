import CLupText

/// Step 4 of the wizard: what will be reserved, and the button that does it.
public struct RecapPage: Page {
    public var facts: [Fact]
    public var notice: String?
    public var hidden: [HiddenField]
    public var action: String
    public var backHref: String

    public init(facts: [Fact], notice: String?, hidden: [HiddenField], action: String, backHref: String) {
        self.facts = facts
        self.notice = notice
        self.hidden = hidden
        self.action = action
        self.backHref = backHref
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <p class="steps">\(tr("wizard.lastStep"))</p>
              <h1>\(tr("wizard.checkConfirm"))</h1>
              <dl class="recap">
                \(Fragments.facts(facts))
              </dl>
              \(Fragments.notice(notice))
              <form method="post" action="\(action)" class="actions">
                \(frame.csrfField)
                \(Fragments.hidden(hidden))
                <button type="submit">\(tr("wizard.confirm"))</button>
                <a class="button secondary" href="\(backHref)">\(tr("wizard.back"))</a>
              </form>
            </section>
            """)
    }
}

/// A request that cannot be met, with what can be done instead.
public struct RefusedPage: Page {
    public var heading: String
    public var message: String
    public var slotsHeading: String?
    public var slots: [SuggestionRow]
    public var suggestions: [SuggestionRow]
    public var backHref: String
    public var backLabel: String
    /// For a full slot: its waiting list, to join.
    public var waitlist: WaitlistJoinForm?

    public init(heading: String, message: String, slotsHeading: String?, slots: [SuggestionRow],
                suggestions: [SuggestionRow], backHref: String, backLabel: String, waitlist: WaitlistJoinForm? = nil)
    {
        self.waitlist = waitlist
        self.heading = heading
        self.message = message
        self.slotsHeading = slotsHeading
        self.slots = slots
        self.suggestions = suggestions
        self.backHref = backHref
        self.backLabel = backLabel
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(heading)</h1>
              <p class="form-error" role="alert">\(message)</p>
              \(waitlist.map { $0.render(frame) })
              \(if: !slots.isEmpty, "<h2>\(slotsHeading ?? "")</h2>\n\(Fragments.suggestions(slots))")
              \(if: !suggestions.isEmpty, "<h2>\(tr("wizard.nearbyCanTake"))</h2>\n\(Fragments.suggestions(suggestions))")
              <p><a class="button secondary" href="\(backHref)">\(backLabel)</a></p>
            </section>
            """)
    }
}

/// A reservation in a sentence or two: for the conflict page and lists.
public struct TicketSummary: Sendable {
    public var storeName: String
    public var kind: String
    public var when: String
    public var number: Int

    public init(storeName: String, kind: String, when: String, number: Int) {
        self.storeName = storeName
        self.kind = kind
        self.when = when
        self.number = number
    }
}

/// The customer already has an active reservation: keep it, or replace it with this one.
public struct ConflictPage: Page {
    public var active: TicketSummary
    public var activeHref: String
    public var storeName: String
    public var hidden: [HiddenField]
    public var action: String
    public var canReplace: Bool

    public init(active: TicketSummary, activeHref: String, storeName: String, hidden: [HiddenField], action: String,
                canReplace: Bool)
    {
        self.active = active
        self.activeHref = activeHref
        self.storeName = storeName
        self.hidden = hidden
        self.action = action
        self.canReplace = canReplace
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(tr("conflict.title"))</h1>
              <p>\(active.kind) \(tr("conflict.at")) <strong>\(active.storeName)</strong>, \(active.when) (\(tr("ticket.numberShort", ["number": String(active.number)]))).</p>
              <p>\(tr("conflict.oneAtATime"))</p>
              \(canReplace ? replaceForm(frame) : insideNotice)
            </section>
            """)
    }

    private func replaceForm(_ frame: Frame) -> HTML {
        """
        <form method="post" action="\(action)" class="actions">
            \(frame.csrfField)
            \(Fragments.hidden(hidden))
            <button type="submit">\(tr("conflict.replace", ["store": storeName]))</button>
            <a class="button secondary" href="\(activeHref)">\(tr("conflict.keep"))</a>
          </form>
        """
    }

    private var insideNotice: HTML {
        """
        <p>\(tr("conflict.inside"))</p>
          <p><a class="button secondary" href="\(activeHref)">\(tr("conflict.seeTicket"))</a></p>
        """
    }
}
