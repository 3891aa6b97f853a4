import CLupPaths
import CLupText

/// Enter a device key to make this browser a store's kiosk.
public struct KioskEnrolPage: Page {
    public var error: String?

    public init(error: String?) {
        self.error = error
    }

    public func render(in frame: Frame) -> HTML {
        frame.kiosk(storeName: nil, """
            <section class="narrow panel">
              <h1>\(tr("kiosk.enrolTitle"))</h1>
              <p>\(tr("kiosk.enrolLead")) (<code>clup admin enrol-kiosk</code>). \(tr("kiosk.enrolLead2"))</p>
              \(Fragments.formError(error))
              <form method="post" action="\(Paths.kioskEnrol())" class="stack">
                \(frame.csrfField)
                <label>\(tr("kiosk.deviceKey"))
                  <input type="password" name="key" required autocomplete="off" autocapitalize="off" spellcheck="false" minlength="32" maxlength="200">
                </label>
                <button type="submit">\(tr("kiosk.enrolSubmit"))</button>
              </form>
            </section>
            """)
    }
}

/// A door kiosk's start page, which staff open by its address: its store and its screens.
public struct KioskHomePage: Page {
    public var storeName: String
    public var label: String

    public init(storeName: String, label: String) {
        self.storeName = storeName
        self.label = label
    }

    public func render(in frame: Frame) -> HTML {
        frame.kiosk(storeName: storeName, """
            <section class="kiosk-menu">
              <h1>\(storeName)</h1>
              <p class="fine">\(tr("kiosk.menuLead", ["label": label]))</p>
              <nav class="kiosk-choices" aria-label="\(tr("kiosk.screens"))">
                <a class="kiosk-choice" href="\(Paths.kioskScanner())"><strong>\(tr("kiosk.scanner"))</strong><span>\(tr("kiosk.scannerText"))</span></a>
                <a class="kiosk-choice" href="\(Paths.kioskBoard())"><strong>\(tr("kiosk.board"))</strong><span>\(tr("kiosk.boardText"))</span></a>
                <a class="kiosk-choice" href="\(Paths.kioskDispenser())"><strong>\(tr("kiosk.dispenser"))</strong><span>\(tr("kiosk.dispenserText"))</span></a>
                <a class="kiosk-choice" href="\(Paths.kioskDoor())"><strong>\(tr("kiosk.door"))</strong><span>\(tr("kiosk.doorText"))</span></a>
              </nav>
              <p class="fine">\(tr("kiosk.menuHelp"))</p>
            </section>
            """)
    }
}

/// Staff sign in at a door kiosk to open the door console: their name (the log keeps it) and
/// the store's staff PIN. While the store has none, the page says who sets it.
public struct StaffSignInPage: Page {
    /// What was sent, and why it was refused.
    public struct Form: Sendable {
        /// The name typed beside the shared PIN.
        public var name: String
        /// The door staff account chosen, to sign in with its own PIN.
        public var person: Int64?
        public var error: String?

        public init(name: String = "", person: Int64? = nil, error: String? = nil) {
            (self.name, self.person, self.error) = (name, person, error)
        }
    }

    public var storeName: String
    /// The store's door staff with a PIN of their own, by name.
    public var people: [Choice]
    public var hasSharedPin: Bool
    public var form: Form

    public init(storeName: String, people: [Choice], hasSharedPin: Bool, form: Form) {
        self.storeName = storeName
        self.people = people
        self.hasSharedPin = hasSharedPin
        self.form = form
    }

    private func ownPinForm(_ frame: Frame) -> HTML {
        guard !people.isEmpty else { return "" }
        return """
            <form method="post" action="\(Paths.kioskStaff())" class="stack" aria-labelledby="own-pin">
              \(frame.csrfField)
              <h2 id="own-pin">\(tr("staff.ownPin"))</h2>
              <div class="field">
                <label for="staff-person">\(tr("staff.whoAreYou"))</label>
                <select id="staff-person" name="person" required><option value="">\(tr("staff.chooseName"))</option>\(Fragments.selectOptions(people))</select>
              </div>
              <div class="field">
                <label for="person-pin">\(tr("staff.yourPin"))</label>
                <input type="password" id="person-pin" name="pin" required inputmode="numeric" pattern="[0-9]*" minlength="6" maxlength="12" autocomplete="off">
              </div>
              <button type="submit">\(tr("staff.signIn"))</button>
            </form>
            """
    }

    private func sharedPinForm(_ frame: Frame) -> HTML {
        guard hasSharedPin else { return "" }
        return """
            <form method="post" action="\(Paths.kioskStaff())" class="stack"\(if: !people.isEmpty, " aria-labelledby=\"shared-pin\"")>
              \(frame.csrfField)
              \(if: !people.isEmpty, "<h2 id=\"shared-pin\">\(tr("staff.sharedPin"))</h2>")
              <div class="field">
                <label for="staff-name">\(tr("field.yourName"))</label>
                <input id="staff-name" name="staff" required maxlength="60" autocomplete="off" value="\(form.name)">
              </div>
              <div class="field">
                <label for="shared-pin-field">\(tr("staff.pin"))</label>
                <input type="password" id="shared-pin-field" name="pin" required inputmode="numeric" pattern="[0-9]*" minlength="6" maxlength="12" autocomplete="off">
              </div>
              <button type="submit">\(tr("staff.signIn"))</button>
            </form>
            """
    }

    public func render(in frame: Frame) -> HTML {
        let none = people.isEmpty && !hasSharedPin
        return frame.kiosk(storeName: storeName, """
            <section class="narrow panel">
              <h1>\(tr("staff.title"))</h1>
              <p>\(tr(people.isEmpty ? "staff.lead" : "staff.leadOwn", ["minutes": "5"]))</p>
              \(Fragments.formError(form.error))
              \(if: none, "<p class=\"notice\">\(tr("staff.noPin"))</p>")
              \(ownPinForm(frame))
              \(sharedPinForm(frame))
              <p><a href="\(Paths.kiosk())">\(tr("kiosk.menuLink"))</a></p>
            </section>
            """)
    }
}

/// The ticket dispenser: how long, how many, print. Touch targets are large; 30 minutes and
/// one person are chosen already, so one tap prints the commonest ticket.
public struct DispenserPage: Page {
    public var storeName: String
    public var presets: [Choice]
    public var people: [Choice]
    /// A fresh key per form: a double tap prints one ticket.
    public var requestKey: String
    public var waitText: String
    public var error: String?
    /// The address a walk-in may leave to be told it is their turn, as typed, and why it was
    /// refused.
    public var email = ""
    public var emailError: String?

    public init(storeName: String, presets: [Choice], people: [Choice], requestKey: String, waitText: String,
                error: String?)
    {
        self.storeName = storeName
        self.presets = presets
        self.people = people
        self.requestKey = requestKey
        self.waitText = waitText
        self.error = error
    }

    public func render(in frame: Frame) -> HTML {
        frame.kiosk(storeName: storeName, """
            <section class="dispenser">
              <h1>\(tr("kiosk.takeTicket"))</h1>
              <p class="dispenser-wait" data-field="wait">\(waitText)</p>
              <div class="kiosk-access no-print" data-kiosk-access hidden>
                <button type="button" class="secondary" data-large-text aria-pressed="false">\(tr("kiosk.largeText"))</button>
                <button type="button" class="secondary" data-read-aloud aria-pressed="false">\(tr("kiosk.readAloud"))</button>
              </div>
              <p class="offline-banner" data-offline role="status" hidden></p>
              \(Fragments.formError(error))
              <form method="post" action="\(Paths.kioskTickets())" class="stack" data-dispenser data-spares-url="\(Paths.kioskSpares())" data-printed-url="\(Paths.kioskSparesPrinted())">
                \(frame.csrfField)
                <input type="hidden" name="requestKey" value="\(requestKey)">
                <fieldset class="choices">
                  <legend>\(tr("wizard.howLong"))</legend>
                  <div class="tiles">
                    \(Self.tiles(presets, name: "minutes"))
                  </div>
                </fieldset>
                <fieldset class="choices">
                  <legend>\(tr("wizard.howMany"))</legend>
                  <div class="tiles\(if: people.count <= 2, " two")">
                    \(Self.tiles(people, name: "people"))
                  </div>
                </fieldset>
                <details class="dispenser-email"\(if: !email.isEmpty || emailError != nil, " open")>
                  <summary>\(tr("kiosk.email.summary"))</summary>
                  <div class="field">
                    <label for="email">\(tr("kiosk.email.label"))</label>
                    \(Fragments.fieldError(emailError, id: "email-error"))
                    <input id="email" name="email" type="email" inputmode="email" autocomplete="off" autocapitalize="none" spellcheck="false" maxlength="254" value="\(email)" aria-describedby="email-hint\(if: emailError != nil, " email-error")"\(if: emailError != nil, " aria-invalid=\"true\"")>
                    <p class="fine" id="email-hint">\(tr("kiosk.email.hint"))</p>
                  </div>
                </details>
                <button type="submit" class="huge">\(tr("kiosk.print"))</button>
                <p class="fine no-print" data-kiosk-keys hidden>\(tr("kiosk.keys"))</p>
              </form>
            </section>
            """)
    }

    static func tiles(_ choices: [Choice], name: String) -> HTML {
        HTML.joined(choices.map {
            "<label class=\"tile\"><input type=\"radio\" name=\"\(name)\" value=\"\($0.value)\"\(if: $0.checked, " checked")><span>\($0.label)</span></label>"
        })
    }
}

/// The printed walk-in ticket: store, number, QR code, time issued and the expected wait. It
/// returns to the dispenser by itself for the next person.
public struct KioskTicketPage: Page {
    /// Seconds before the screen returns to the dispenser.
    public static let resetAfter = 20

    public var storeName: String
    public var storeAddress: String
    public var number: Int
    public var facts: [Fact]
    public var called: Bool
    public var headline: String
    public var code: QRDrawing
    /// How to follow the ticket from any phone: its short code, the page's address, and that
    /// address as a QR code.
    public var follow: Follow?
    /// The holder left an address to be told by email when it is their turn.
    public var willEmail = false

    public struct Follow: Sendable, Equatable {
        public var code: String
        public var address: String
        public var qr: QRDrawing

        public init(code: String, address: String, qr: QRDrawing) {
            (self.code, self.address, self.qr) = (code, address, qr)
        }
    }

    public init(storeName: String, storeAddress: String, number: Int, facts: [Fact], called: Bool, headline: String,
                code: QRDrawing, follow: Follow? = nil)
    {
        self.follow = follow
        self.storeName = storeName
        self.storeAddress = storeAddress
        self.number = number
        self.facts = facts
        self.called = called
        self.headline = headline
        self.code = code
    }

    public func render(in frame: Frame) -> HTML {
        // Back to the dispenser after a while: by the script where it runs (a timed meta refresh
        // is a barrier for some people, WCAG 2.2.1), by the browser where it does not.
        frame.kiosk(storeName: storeName, head: """
            <noscript><meta http-equiv="refresh" content="\(Self.resetAfter); url=\(Paths.kioskDispenser())"></noscript>
            """, """
            \(Self.receipt(storeName: storeName, storeAddress: storeAddress, number: number, facts: Fragments.facts(facts),
                           called: called, headline: headline, code: code, note: tr("kiosk.receiptNote"), follow: follow))
            \(if: willEmail, "<p class=\"no-print notice\">\(tr("kiosk.email.willWrite"))</p>")
            <p class="no-print kiosk-next"><a class="button huge" href="\(Paths.kioskDispenser())">\(tr("kiosk.next"))</a></p>
            <p class="no-print fine" data-reset-note>\(tr("kiosk.resets", ["seconds": String(Self.resetAfter)]))</p>
            <p class="no-print" data-more-time hidden><button type="button" class="secondary">\(tr("kiosk.moreTime"))</button></p>
            """)
    }
}

extension KioskTicketPage {
    /// The printed ticket: the store, the number, what to do, the QR code and the facts.
    static func receipt(storeName: String, storeAddress: String, number: Int, facts: HTML, called: Bool,
                        headline: String, code: QRDrawing, note: String, autoprint: Bool = true, follow: Follow? = nil) -> HTML
    {
        let printing: HTML = autoprint
            ? " data-autoprint data-refresh-seconds=\"\(resetAfter)\" data-refresh-to=\"\(Paths.kioskDispenser())\"" : ""
        return """
        <article class="receipt"\(printing)>
          <p class="receipt-store">\(storeName)</p>
          <p class="receipt-address">\(storeAddress)</p>
          <h1 class="receipt-number" data-say="\(tr("kiosk.sayNumber", ["number": String(number)]))"><span>\(tr("kiosk.ticket"))</span> \(number)</h1>
          <p class="receipt-headline\(if: called, " called")" data-say="\(headline)">\(headline)</p>
          <figure class="receipt-qr">
            \(Fragments.qr(code, label: tr("ticket.qrLabel", ["number": String(number)])))
          </figure>
          <dl class="receipt-facts">
            \(facts)
          </dl>
          <p class="receipt-note">\(note)</p>
          \(follow.map(Self.followBlock))
        </article>
        """
    }

    /// How to follow the ticket from any phone: the address and short code in words, and the
    /// address as a small QR code, said not to be for the door.
    static func followBlock(_ follow: Follow) -> HTML {
        """
        <div class="receipt-follow">
          <figure class="receipt-follow-qr">\(Fragments.qr(follow.qr, label: tr("receipt.followQR")))</figure>
          <p>\(tr("receipt.follow")) <strong>\(follow.address)</strong><br>\(tr("receipt.followCode")) <strong class="follow-code">\(follow.code)</strong></p>
        </div>
        """
    }

    /// The receipt of a spare ticket of the kiosk's block, printed by the dispenser's script
    /// while CLup cannot be reached: the time it is printed is filled in then.
    public static func offlineReceipt(storeName: String, storeAddress: String, number: Int, people: Int,
                                      code: QRDrawing, follow: Follow? = nil) -> String
    {
        receipt(storeName: storeName, storeAddress: storeAddress, number: number,
                facts: """
                <div><dt>\(tr("fact.issued"))</dt><dd data-printed-at></dd></div>
                <div><dt>\(tr("fact.people"))</dt><dd>\(tr("people", count: people))</dd></div>
                """,
                called: false, headline: tr("receipt.printedOffline"), code: code, note: tr("kiosk.receiptNoteOffline"),
                follow: follow).text
    }
}

/// The last scan's verdict as the scanner shows it.
public struct ScanDisplay: Sendable {
    /// enter, exit or refused: the colour.
    public var result: String
    public var headline: String
    public var message: String

    public init(result: String, headline: String, message: String) {
        self.result = result
        self.headline = headline
        self.message = message
    }
}

/// The scanner: one input that a USB or Bluetooth scanner types into, the last verdict, and
/// the count inside.
public struct ScannerPage: Page {
    public var storeName: String
    public var report: ScanDisplay?
    public var peopleInside: Int
    public var capacity: Int

    public init(storeName: String, report: ScanDisplay?, peopleInside: Int, capacity: Int) {
        self.storeName = storeName
        self.report = report
        self.peopleInside = peopleInside
        self.capacity = capacity
    }

    public func render(in frame: Frame) -> HTML {
        let shown = report ?? ScanDisplay(result: "", headline: tr("js.ready"), message: tr("js.scanPrompt"))
        return frame.kiosk(storeName: storeName, """
            <h1 class="visually-hidden">\(tr("kiosk.scanner"))</h1>
            <section class="scanner" data-scanner data-state-url="\(Paths.kioskDoorState())" data-lease-url="\(Paths.kioskDoorLease())">
              <p class="offline-banner" data-offline role="status" hidden></p>
              <div class="scan-result\(report.map { " result-\($0.result)" })" data-scan-result aria-live="assertive">
                <p class="scan-headline" data-field="headline">\(shown.headline)</p>
                <p class="scan-message" data-field="message">\(shown.message)</p>
              </div>
              <p class="scan-count">\(tr("kiosk.inside")) <strong data-field="peopleInside">\(peopleInside)</strong> / \(capacity)</p>
              <p class="offline-notes" data-offline-notes hidden></p>
              <form method="post" action="\(Paths.kioskScan())" class="scan-form" data-scan-form>
                \(frame.csrfField)
                <label for="code">\(tr("kiosk.code"))</label>
                <input id="code" name="code" autofocus autocomplete="off" autocapitalize="off" spellcheck="false" maxlength="200" data-scan-input>
                <button type="submit">\(tr("kiosk.check"))</button>
              </form>
              <div class="camera" data-camera hidden>
                <button type="button" class="secondary" data-camera-toggle>\(tr("js.useCamera"))</button>
                <video data-camera-video playsinline muted hidden></video>
              </div>
            </section>
            """)
    }
}

/// The "now calling" screen at the entrance.
public struct BoardPage: Page {
    /// Without JavaScript the page reloads itself this often; with it, it asks for the numbers
    /// every `pollSeconds` and changes only what changed.
    public static let refreshSeconds = 10
    public static let pollSeconds = 3

    public var storeName: String
    /// Called tickets, the latest call first.
    public var called: [Int]
    public var next: [Int]
    public var peopleInside: Int
    public var capacity: Int

    public init(storeName: String, called: [Int], next: [Int], peopleInside: Int, capacity: Int) {
        self.storeName = storeName
        self.called = called
        self.next = next
        self.peopleInside = peopleInside
        self.capacity = capacity
    }

    /// The board updates in place, so its live region is announced by screen readers as a
    /// number is called ("Now calling 14"); with sound turned on it chimes and says it in the
    /// page's language. The controls are buttons any keyboard reaches.
    public func render(in frame: Frame) -> HTML {
        frame.kiosk(storeName: storeName, head: "<noscript><meta http-equiv=\"refresh\" content=\"\(Self.refreshSeconds)\"></noscript>", """
            <section class="board" data-board data-poll-seconds="\(Self.pollSeconds)">
              <h1>\(tr("kiosk.board"))</h1>
              <p class="board-announce" role="status" aria-live="assertive" aria-atomic="true" data-board-announce></p>
              <div data-board-called>\(Self.calledList(called))</div>
              <p class="board-hint">\(tr("kiosk.boardHint"))</p>
              <div data-board-next>\(Self.nextList(next))</div>
              <p class="board-count">\(tr("kiosk.inside")) <strong data-board-inside>\(peopleInside)</strong> / \(capacity)</p>
              <div class="board-controls no-print" data-board-controls hidden>
                <button type="button" class="secondary" data-board-sound aria-pressed="false">\(tr("js.boardSoundOn"))</button>
                <button type="button" class="secondary" data-board-repeat disabled>\(tr("board.repeat"))</button>
                <button type="button" class="secondary" data-board-fullscreen>\(tr("board.fullScreen"))</button>
              </div>
              <div class="board-history" data-board-history hidden>
                <h2>\(tr("board.lastCalls"))</h2>
                <ol data-board-history-list></ol>
              </div>
              <p class="fine" data-board-updated>\(tr("kiosk.updatedEvery", ["seconds": String(Self.refreshSeconds)]))</p>
            </section>
            """)
    }

    static func calledList(_ numbers: [Int]) -> HTML {
        numbers.isEmpty ? nobodyCalled : "<ul class=\"board-called\">\(items(numbers))</ul>"
    }

    static func nextList(_ numbers: [Int]) -> HTML {
        numbers.isEmpty ? .empty : "<h2>\(tr("kiosk.nextNumbers"))</h2><ul class=\"board-next\">\(items(numbers))</ul>"
    }

    static var nobodyCalled: HTML { "<p class=\"board-empty\">\(tr("kiosk.nobodyCalled"))</p>" }

    static func items(_ numbers: [Int]) -> HTML {
        HTML.joined(numbers.map { "<li>\($0)</li>" })
    }
}

/// A printed ticket followed from any phone or computer (`/t?code=…`): the store, the number,
/// where it stands and when it should be called — nothing of anyone else — and the form to
/// type a code from the ticket.
public struct FollowPage: Page {
    public struct Ticket: Sendable {
        public var storeName: String
        public var number: Int
        public var people: String
        public var status: String
        public var detail: String?
        public var called: Bool
        public var updated: String
        /// While the ticket is live, the page asks again this often.
        public var refreshSeconds: Int?

        public init(storeName: String, number: Int, people: String, status: String, detail: String?, called: Bool,
                    updated: String, refreshSeconds: Int?)
        {
            (self.storeName, self.number, self.people, self.status, self.detail, self.called, self.updated,
             self.refreshSeconds) = (storeName, number, people, status, detail, called, updated, refreshSeconds)
        }
    }

    public var code: String
    public var ticket: Ticket?
    public var error: String?

    public init(code: String, ticket: Ticket?, error: String?) {
        (self.code, self.ticket, self.error) = (code, ticket, error)
    }

    public func render(in frame: Frame) -> HTML {
        let head: HTML = ticket?.refreshSeconds.map { "<noscript><meta http-equiv=\"refresh\" content=\"\($0)\"></noscript>" } ?? .empty
        return frame.site(head: head, """
            <section class="narrow panel follow"\(if: ticket?.refreshSeconds != nil, " data-refresh-seconds=\"\(ticket?.refreshSeconds ?? 0)\"")>
              \(ticket.map { ticket in """
                  <p class="follow-store">\(ticket.storeName)</p>
                  <h1>\(tr("follow.ticket", ["number": String(ticket.number)]))</h1>
                  <p class="follow-status\(if: ticket.called, " called")" role="status">\(ticket.status)</p>
                  \(ticket.detail.map { "<p class=\"follow-detail\">\($0)</p>" as HTML })
                  <p class="fine">\(ticket.people) · \(tr("follow.updated", ["time": ticket.updated]))\(if: ticket.refreshSeconds != nil, " · \(tr("follow.refreshes", ["seconds": String(ticket.refreshSeconds ?? 0)]))")</p>
                  """ as HTML } ?? "<h1>\(tr("follow.title"))</h1><p>\(tr("follow.intro"))</p>")
              \(Fragments.formError(error))
              <form method="get" action="\(Paths.follow())" class="stack follow-form">
                <label for="follow-code">\(tr("follow.codeLabel"))</label>
                <input id="follow-code" name="code" value="\(ticket == nil ? code : "")" autocomplete="off" autocapitalize="characters" spellcheck="false" maxlength="40" required aria-describedby="follow-code-hint"\(if: error != nil, " aria-invalid=\"true\"")>
                <p class="fine" id="follow-code-hint">\(tr("follow.codeHint"))</p>
                <button type="submit">\(tr("follow.look"))</button>
              </form>
            </section>
            """)
    }
}
