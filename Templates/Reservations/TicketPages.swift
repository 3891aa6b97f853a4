import CLupPaths
import CLupText

/// Where a reservation stands now, in words and figures; the ticket page and its JSON agree.
public struct TicketProgress: Sendable, Equatable {
    /// The reservation's status, as a stable code (`waiting`, `called`…).
    public var status: String
    public var headline: String
    public var detail: String
    public var peopleAhead: Int?
    public var entry: String?
    /// When to leave for the store ("20:14", "now"), for a line-up with a travel time.
    public var leaveBy: String?
    /// What comes before it: "Leave by" a time, "Leave" now.
    public var leaveByLabel: String?
    /// Still changing: the page refreshes itself.
    public var live: Bool

    public init(status: String, headline: String, detail: String, peopleAhead: Int? = nil, entry: String? = nil,
                leaveBy: String? = nil, leaveByLabel: String? = nil, live: Bool)
    {
        self.leaveByLabel = leaveByLabel
        self.status = status
        self.headline = headline
        self.detail = detail
        self.peopleAhead = peopleAhead
        self.entry = entry
        self.leaveBy = leaveBy
        self.live = live
    }
}

/// The ticket's form to change how the customer travels (R5.2).
public struct TravelForm: Sendable {
    public var action: String
    public var choices: [Choice]
    /// Where the page's script sends the customer's position, once they ask it to.
    public var positionAction: String

    public init(action: String, choices: [Choice], positionAction: String = "") {
        self.action = action
        self.choices = choices
        self.positionAction = positionAction
    }
}

/// The ticket page: live progress, the QR code, and the recap.
public struct TicketPage: Page {
    public var storeName: String
    public var number: Int
    public var kind: String
    public var progress: TicketProgress
    public var facts: [Fact]
    /// Nil once the reservation is over: its code no longer opens the door.
    public var code: QRDrawing?
    public var pngHref: String
    public var statusHref: String
    public var cancelAction: String?
    public var travel: TravelForm?
    /// A booking awaiting the customer's confirmation.
    public var confirmAction: String?
    /// Where this browser can turn on notifications (shown by the script when it can).
    public var pushAction: String
    /// The account's browsers stopped taking its notifications: said, with where they go now.
    public var pushLost: String?

    public init(storeName: String, number: Int, kind: String, progress: TicketProgress, facts: [Fact],
                code: QRDrawing?, pngHref: String, statusHref: String, cancelAction: String?,
                travel: TravelForm? = nil, confirmAction: String? = nil, pushAction: String = "")
    {
        self.travel = travel
        self.confirmAction = confirmAction
        self.pushAction = pushAction
        self.storeName = storeName
        self.number = number
        self.kind = kind
        self.progress = progress
        self.facts = facts
        self.code = code
        self.pngHref = pngHref
        self.statusHref = statusHref
        self.cancelAction = cancelAction
    }

    public func render(in frame: Frame) -> HTML {
        frame.site(head: progress.live ? "<noscript><meta http-equiv=\"refresh\" content=\"30\"></noscript>" : .empty, """
            <article class="ticket" data-status="\(progress.status)" data-status-url="\(progress.live ? statusHref : "")">
              <header class="ticket-head">
                <p class="ticket-store">\(storeName)</p>
                <p class="ticket-number"><span class="fine">\(tr("ticket.kindNumber", ["kind": kind]))</span> \(number)</p>
              </header>
              <p class="ticket-alert" role="alert" data-alert hidden></p>
              <p class="connection-lost" role="status" data-connection-lost hidden>\(tr("ticket.connectionLost"))</p>
              <section class="ticket-status status-\(progress.status)" aria-live="polite">
                <h1 data-field="headline">\(progress.headline)</h1>
                <p data-field="detail">\(progress.detail)</p>
                \(progress.leaveBy.map { leaveBy($0, label: progress.leaveByLabel ?? tr("ticket.leaveBy")) })
              </section>
              \(confirmAction.map { confirmForm($0, frame) })
              \(code.map(qr))
              <dl class="recap">
                \(Fragments.facts(facts))
              </dl>
              <div class="actions no-print">
                \(if: code != nil, saveAndPrint)
                <a class="button secondary" href="\(Paths.reservations())">\(tr("nav.reservations"))</a>
              </div>
              \(travel.map { travelForm($0, frame) })
              \(pushLost.map { "<p class=\"no-print push-lost\" role=\"status\">\($0)</p>" as HTML })
              <p class="no-print push-offer" data-push-offer="\(pushAction)" hidden>
                <button type="button" class="secondary" data-push-enable>\(tr("ticket.notifyMe"))</button>
                <span class="fine" data-push-state></span>
              </p>
              \(cancelAction.map { cancelForm($0, frame) })
            </article>
            """)
    }

    private func leaveBy(_ time: String, label: String) -> HTML {
        "<p class=\"leave-by\"><span data-field=\"leaveByLabel\">\(label)</span> <strong data-field=\"leaveBy\">\(time)</strong></p>"
    }

    private func confirmForm(_ action: String, _ frame: Frame) -> HTML {
        """
        <form method="post" action="\(action)" class="no-print confirm-form">
            \(frame.csrfField)
            <button type="submit">\(tr("ticket.confirmVisit"))</button>
          </form>
        """
    }

    private func travelForm(_ form: TravelForm, _ frame: Frame) -> HTML {
        """
        <form method="post" action="\(form.action)" class="no-print travel-form">
            \(frame.csrfField)
            <label for="travel-mode">\(tr("ticket.howGetting"))</label>
            <span class="inline-field">
              <select id="travel-mode" name="mode">\(Fragments.selectOptions(form.choices))</select>
              <button type="submit" class="secondary">\(tr("ticket.change"))</button>
            </span>
            <span class="follow-position">
              <button type="button" class="secondary" data-follow-position="\(form.positionAction)" hidden>\(tr("ticket.followPosition"))</button>
              <span class="fine" data-follow-status role="status" hidden></span>
            </span>
          </form>
        """
    }

    private func qr(_ code: QRDrawing) -> HTML {
        """
        <figure class="qr">
            \(Fragments.qr(code, label: tr("ticket.qrLabel", ["number": String(number)])))
            <figcaption>\(tr("ticket.showCode"))</figcaption>
          </figure>
        """
    }

    private var saveAndPrint: HTML {
        """
        <a class="button secondary" href="\(pngHref)" download>\(tr("ticket.savePNG"))</a>
            <button type="button" class="secondary" data-print hidden>\(tr("ticket.print"))</button>
        """
    }

    private func cancelForm(_ action: String, _ frame: Frame) -> HTML {
        """
        <form method="post" action="\(action)" class="no-print cancel-form">
            \(frame.csrfField)
            <button type="submit" class="danger" data-confirm="\(tr("ticket.cancelQuestion"))">\(tr("ticket.cancel"))</button>
          </form>
        """
    }
}

/// My reservations: the active one with its live status, and the history.
public struct ReservationsPage: Page {
    public struct Active: Sendable {
        public var summary: TicketSummary
        public var progress: TicketProgress
        public var href: String
        public var cancelAction: String?

        public init(summary: TicketSummary, progress: TicketProgress, href: String, cancelAction: String?) {
            self.summary = summary
            self.progress = progress
            self.href = href
            self.cancelAction = cancelAction
        }
    }

    public struct HistoryRow: Sendable {
        public var storeName: String
        public var kind: String
        public var when: String
        public var outcome: String
        public var href: String

        public init(storeName: String, kind: String, when: String, outcome: String, href: String) {
            self.storeName = storeName
            self.kind = kind
            self.when = when
            self.outcome = outcome
            self.href = href
        }
    }

    public var active: Active?
    public var history: [HistoryRow]
    public var cancelled: Bool
    /// Their place on a waiting list, while they are on one.
    public var waitlist: WaitlistSummary?

    public init(active: Active?, history: [HistoryRow], cancelled: Bool, waitlist: WaitlistSummary? = nil) {
        self.waitlist = waitlist
        self.active = active
        self.history = history
        self.cancelled = cancelled
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <h1>\(tr("nav.reservations"))</h1>
            \(if: cancelled, "<p class=\"notice\" role=\"status\">\(tr("reservations.cancelled"))</p>")
            \(waitlist.map { $0.render() })
            \(active.map { activePanel($0, frame) } ?? noActivePanel)
            <section class="panel">
              <h2>\(tr("reservations.history"))</h2>
              \(history.isEmpty ? "<p class=\"fine\">\(tr("reservations.noHistory"))</p>" : historyTable)
            </section>
            """)
    }

    private func activePanel(_ active: Active, _ frame: Frame) -> HTML {
        """
        <section class="panel">
          <h2>\(tr("reservations.now"))</h2>
          <p><strong>\(active.summary.storeName)</strong> · \(active.summary.kind) \(tr("ticket.numberShort", ["number": String(active.summary.number)])), \(active.summary.when)</p>
          <p class="status">\(active.progress.headline)</p><p>\(active.progress.detail)</p>
          <div class="actions">
            <a class="button" href="\(active.href)">\(tr("reservations.showTicket"))</a>
            \(active.cancelAction.map { action in
                """
                <form method="post" action="\(action)" class="inline">
                      \(frame.csrfField)
                      <button type="submit" class="danger" data-confirm="\(tr("ticket.cancelQuestion"))">\(tr("reservations.cancel"))</button>
                    </form>
                """
            })
          </div>
        </section>
        """
    }

    private var noActivePanel: HTML {
        """
        <section class="panel">
          <p>\(tr("reservations.none")) <a href="\(Paths.home())">\(tr("reservations.findStore"))</a></p>
        </section>
        """
    }

    private var historyTable: HTML {
        """
        <table class="history">
            <thead><tr><th scope="col">\(tr("reservations.store"))</th><th scope="col">\(tr("reservations.reservation"))</th><th scope="col">\(tr("reservations.outcome"))</th></tr></thead>
            <tbody>
            \(history.map { "<tr><td><a href=\"\($0.href)\">\($0.storeName)</a></td><td>\($0.kind), \($0.when)</td><td>\($0.outcome)</td></tr>" })
            </tbody>
          </table>
        """
    }
}

/// A booking reminder's link: the booking, and buttons that confirm or cancel it (a GET
/// changes nothing; the button's POST does).
public struct BookingReplyPage: Page {
    public var storeName: String
    public var facts: [Fact]
    public var token: String
    public var action: String
    /// The answer the link was for, whose button comes first.
    public var cancelFirst: Bool

    public init(storeName: String, facts: [Fact], token: String, action: String, cancelFirst: Bool) {
        self.storeName = storeName
        self.facts = facts
        self.token = token
        self.action = action
        self.cancelFirst = cancelFirst
    }

    public func render(in frame: Frame) -> HTML {
        let confirm: HTML = "<button type=\"submit\" name=\"answer\" value=\"confirm\"\(if: cancelFirst, " class=\"secondary\"")>\(tr("ticket.confirmVisit"))</button>"
        let cancel: HTML = "<button type=\"submit\" name=\"answer\" value=\"cancel\" class=\"\(cancelFirst ? "danger" : "secondary")\">\(tr("reply.cancel"))</button>"
        return frame.site("""
            <section class="narrow panel">
              <h1>\(tr("reply.title", ["store": storeName]))</h1>
              <dl class="recap">
                \(Fragments.facts(facts))
              </dl>
              <p>\(tr("reply.lead"))</p>
              <form method="post" action="\(action)" class="actions">
                \(frame.csrfField)
                <input type="hidden" name="t" value="\(token)">
                \(cancelFirst ? cancel : confirm)
                \(cancelFirst ? confirm : cancel)
              </form>
            </section>
            """)
    }
}
