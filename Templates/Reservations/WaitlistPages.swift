import CLupText

/// The form that puts a customer on a full slot's waiting list (on the "slot full" page).
public struct WaitlistJoinForm: Sendable {
    public var action: String
    public var hidden: [HiddenField]
    /// Parties on the list already.
    public var waiting: Int
    /// The longest an offer stays open.
    public var offerMinutes: Int

    public init(action: String, hidden: [HiddenField], waiting: Int, offerMinutes: Int) {
        self.offerMinutes = offerMinutes
        self.action = action
        self.hidden = hidden
        self.waiting = waiting
    }

    func render(_ frame: Frame) -> HTML {
        """
        <section class="waitlist-join">
          <h2>\(tr("waitlist.joinHeading"))</h2>
          <p>\(tr("waitlist.joinLead", ["minutes": String(offerMinutes)]))</p>
          \(if: waiting > 0, "<p class=\"fine\">\(tr("waitlist.alreadyWaiting", ["n": String(waiting)]))</p>")
          <form method="post" action="\(action)">
            \(frame.csrfField)
            \(Fragments.hidden(hidden))
            <button type="submit">\(tr("waitlist.join"))</button>
          </form>
        </section>
        """
    }
}

/// A customer's place on a waiting list: how many are ahead, an offer to answer, or how it ended.
public struct WaitlistPage: Page {
    public enum State: Sendable {
        case waiting(ahead: Int, leaveAction: String)
        /// A place held until `deadline`: accepting may replace `replacing` (their active
        /// reservation), or be impossible while `blockedBy` says why.
        case offered(deadline: String, acceptAction: String, declineAction: String, replacing: String?,
                     blockedBy: String?)
        case accepted(ticketHref: String)
        /// Passed on, left or closed: what happened, and where to look for another time.
        case ended(message: String, slotsHref: String)
    }

    public var storeName: String
    public var facts: [Fact]
    public var state: State
    /// A line at the top: "you are already on this list"…
    public var notice: String?

    public init(storeName: String, facts: [Fact], state: State, notice: String?) {
        self.storeName = storeName
        self.facts = facts
        self.state = state
        self.notice = notice
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(tr("waitlist.heading", ["store": storeName]))</h1>
              \(notice.map { "<p class=\"notice\" role=\"status\">\($0)</p>" })
              \(stateSection(frame))
              <dl class="facts">
                \(facts.map { "<dt>\($0.label)</dt><dd>\($0.value)</dd>" })
              </dl>
            </section>
            """)
    }

    private func stateSection(_ frame: Frame) -> HTML {
        switch state {
        case .waiting(let ahead, let leaveAction):
            return """
                <p class="status">\(ahead == 0 ? tr("waitlist.first") : tr("waitlist.ahead", ["n": String(ahead)]))</p>
                <p>\(tr("waitlist.waitingDetail"))</p>
                <form method="post" action="\(leaveAction)">
                  \(frame.csrfField)
                  <button type="submit" class="secondary">\(tr("waitlist.leave"))</button>
                </form>
                """
        case .offered(let deadline, let acceptAction, let declineAction, let replacing, let blockedBy):
            return """
                <p class="status">\(tr("waitlist.offered", ["time": deadline]))</p>
                <p>\(tr("waitlist.offeredDetail"))</p>
                \(blockedBy.map { "<p class=\"form-error\" role=\"alert\">\($0)</p>" })
                \(if: blockedBy == nil, """
                <form method="post" action="\(acceptAction)">
                  \(frame.csrfField)
                  \(replacing.map { "<input type=\"hidden\" name=\"replace\" value=\"1\"><p class=\"fine\">\(tr("waitlist.replaces", ["reservation": $0]))</p>" })
                  <button type="submit">\(tr("waitlist.accept"))</button>
                </form>
                """)
                <form method="post" action="\(declineAction)">
                  \(frame.csrfField)
                  <button type="submit" class="secondary">\(tr("waitlist.decline"))</button>
                </form>
                """
        case .accepted(let ticketHref):
            return """
                <p class="status">\(tr("waitlist.accepted"))</p>
                <p><a class="button" href="\(ticketHref)">\(tr("reservations.showTicket"))</a></p>
                """
        case .ended(let message, let slotsHref):
            return """
                <p class="status">\(message)</p>
                <p><a class="button secondary" href="\(slotsHref)">\(tr("waitlist.otherTimes"))</a></p>
                """
        }
    }
}

/// The customer's place on a waiting list, on "My reservations".
public struct WaitlistSummary: Sendable {
    public var storeName: String
    public var slot: String
    public var status: String
    public var href: String

    public init(storeName: String, slot: String, status: String, href: String) {
        self.storeName = storeName
        self.slot = slot
        self.status = status
        self.href = href
    }

    func render() -> HTML {
        """
        <section class="panel">
          <h2>\(tr("waitlist.title"))</h2>
          <p><strong>\(storeName)</strong> · \(slot)</p>
          <p class="status">\(status)</p>
          <div class="actions"><a class="button" href="\(href)">\(tr("waitlist.show"))</a></div>
        </section>
        """
    }
}
