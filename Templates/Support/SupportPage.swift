import CLupPaths
import CLupText

/// Support: look a customer up (address and why), their account and reservations with a form
/// that cancels one for them, closing the account (administrators), and the support log.
public struct SupportPage: Page {
    /// The look-up form as sent, what is wrong with it, and what came of it.
    public struct Search: Sendable {
        public var email: String
        public var reason: String
        public var emailError: String?
        public var reasonError: String?
        /// The address has no account (the look-up is logged all the same).
        public var notFound = false
        /// What the last action did (an account closed).
        public var notice: String?

        public init(email: String = "", reason: String = "") {
            (self.email, self.reason) = (email, reason)
        }
    }

    public struct Reservation: Sendable {
        public var id: Int64
        public var store: String
        public var number: Int
        /// Its kind and party, in words.
        public var what: String
        public var when: String
        public var status: String
        public var cancellable: Bool

        public init(id: Int64, store: String, number: Int, what: String, when: String, status: String, cancellable: Bool) {
            (self.id, self.store, self.number, self.what, self.when) = (id, store, number, what, when)
            (self.status, self.cancellable) = (status, cancellable)
        }
    }

    /// The customer looked up.
    public struct Customer: Sendable {
        public var id: Int64
        public var name: String
        public var email: String
        /// Whether confirmed, role, since when, language.
        public var facts: [Fact]
        public var reservations: [Reservation] = []
        /// Administrators close accounts under the terms.
        public var canClose = false
        public var notice: String?
        public var error: String?
        /// A cancellation refused for want of a reason: which reservation, and why.
        public var cancelError: (id: Int64, message: String)?
        public var closeReason = ""
        public var closeError: String?

        public init(id: Int64, name: String, email: String, facts: [Fact]) {
            (self.id, self.name, self.email, self.facts) = (id, name, email, facts)
        }
    }

    public struct LogRow: Sendable {
        public var when: String
        public var who: String
        public var what: String
        public var email: String
        public var why: String

        public init(when: String, who: String, what: String, email: String, why: String) {
            (self.when, self.who, self.what, self.email, self.why) = (when, who, what, email, why)
        }
    }

    public var search: Search
    public var customer: Customer?
    public var log: [LogRow] = []

    public init(search: Search) {
        self.search = search
    }

    private func searchPanel(_ frame: Frame) -> HTML {
        """
        <section class="panel" id="lookup">
          <h2>\(tr("support.lookUp"))</h2>
          <form method="post" action="\(Paths.support())" class="stack">
            \(frame.csrfField)
            <div class="field">
              <label for="support-email">\(tr("support.email"))</label>
              <input id="support-email" name="email" type="email" required maxlength="254" autocomplete="off" value="\(search.email)"\(Fragments.invalid(search.emailError, describedBy: "support-email-error"))>
              \(Fragments.fieldError(search.emailError, id: "support-email-error"))
            </div>
            <div class="field">
              <label for="support-reason">\(tr("support.why"))</label>
              <input id="support-reason" name="reason" required maxlength="200" autocomplete="off" value="\(search.reason)" aria-describedby="support-reason-hint\(if: search.reasonError != nil, " support-reason-error")"\(if: search.reasonError != nil, " aria-invalid=\"true\"")>
              <p class="fine" id="support-reason-hint">\(tr("support.whyHint"))</p>
              \(Fragments.fieldError(search.reasonError, id: "support-reason-error"))
            </div>
            <button type="submit">\(tr("support.lookUpButton"))</button>
          </form>
          \(if: search.notFound, "<p class=\"notice\" role=\"status\">\(tr("support.notFound", ["email": search.email]))</p>")
        </section>
        """
    }

    private func reservationRow(_ reservation: Reservation, of customer: Customer, _ frame: Frame) -> HTML {
        let error = customer.cancelError?.id == reservation.id ? customer.cancelError?.message : nil
        let field = "cancel-reason-\(reservation.id)"
        let cancel: HTML = reservation.cancellable ? """
            <form method="post" action="\(Paths.supportCancel())" class="stack">
              \(frame.csrfField)
              <input type="hidden" name="customer" value="\(customer.id)">
              <input type="hidden" name="reservation" value="\(reservation.id)">
              <div class="field">
                <label for="\(field)">\(tr("support.cancelWhy"))</label>
                <input id="\(field)" name="reason" required maxlength="200" autocomplete="off"\(Fragments.invalid(error, describedBy: field + "-error"))>
                \(Fragments.fieldError(error, id: field + "-error"))
              </div>
              <button type="submit" class="secondary" data-confirm="\(tr("support.cancelQuestion", ["number": String(reservation.number), "store": reservation.store]))">\(tr("support.cancelButton"))</button>
            </form>
            """ : ""
        return """
            <li>
              <p><strong>\(reservation.store)</strong> · \(tr("support.ticket", ["number": String(reservation.number)])) · \(reservation.what)</p>
              <p class="fine">\(reservation.when) · \(reservation.status)</p>
              \(cancel)
            </li>
            """
    }

    private func customerPanel(_ customer: Customer, _ frame: Frame) -> HTML {
        """
        <section class="panel" id="customer" aria-labelledby="customer-heading">
          <h2 id="customer-heading">\(customer.name) · \(customer.email)</h2>
          \(Fragments.notice(customer.notice))
          \(Fragments.formError(customer.error))
          <dl class="facts">
            \(Fragments.facts(customer.facts))
          </dl>
          <h3>\(tr("support.reservations"))</h3>
          \(if: customer.reservations.isEmpty, "<p class=\"fine\">\(tr("support.noReservations"))</p>")
          <ul class="rows">
            \(customer.reservations.map { reservationRow($0, of: customer, frame) })
          </ul>
          \(if: customer.canClose, """
              <h3 id="close">\(tr("support.close"))</h3>
              <p class="fine">\(tr("support.closeHelp"))</p>
              <form method="post" action="\(Paths.supportClose())" class="stack">
                \(frame.csrfField)
                <input type="hidden" name="customer" value="\(customer.id)">
                <div class="field">
                  <label for="close-reason">\(tr("support.closeWhy"))</label>
                  <textarea id="close-reason" name="reason" required maxlength="500" rows="3"\(Fragments.invalid(customer.closeError, describedBy: "close-reason-error"))>\(customer.closeReason)</textarea>
                  \(Fragments.fieldError(customer.closeError, id: "close-reason-error"))
                </div>
                <button type="submit" class="danger" data-confirm="\(tr("support.closeQuestion", ["email": customer.email]))">\(tr("support.closeButton"))</button>
              </form>
              """)
        </section>
        """
    }

    public func render(in frame: Frame) -> HTML {
        let logTitle = customer == nil ? tr("support.log") : tr("support.customerLog")
        return frame.site("""
            <h1>\(tr("support.title"))</h1>
            <p class="fine">\(tr("support.lead"))</p>
            \(Fragments.notice(search.notice))
            \(searchPanel(frame))
            \(customer.map { customerPanel($0, frame) })
            <section class="panel" id="log">
              <h2>\(logTitle)</h2>
              \(if: log.isEmpty, "<p class=\"fine\">\(tr("support.logEmpty"))</p>")
              \(if: !log.isEmpty, """
                  <div class="table-wrap" tabindex="0" role="region" aria-label="\(logTitle)">
                    <table class="figures">
                      <thead><tr><th scope="col">\(tr("door.time"))</th><th scope="col">\(tr("door.who"))</th><th scope="col">\(tr("privacy.what"))</th><th scope="col">\(tr("support.address"))</th><th scope="col">\(tr("privacy.why"))</th></tr></thead>
                      <tbody>\(log.map { "<tr><th scope=\"row\">\($0.when)</th><td>\($0.who)</td><td>\($0.what)</td><td>\($0.email)</td><td>\($0.why)</td></tr>" as HTML })</tbody>
                    </table>
                  </div>
                  """)
            </section>
            """)
    }
}
