import CLupPaths
import CLupText

/// The stores a manager manages (every store, for an admin).
public struct ManagePage: Page {
    public struct Row: Sendable {
        public var id: Int64
        public var name: String
        public var address: String

        public init(id: Int64, name: String, address: String) {
            self.id = id
            self.name = name
            self.address = address
        }
    }

    public var stores: [Row]
    /// The stores whose door console this account runs as door staff (and does not manage).
    public var doors: [Row] = []
    /// Stores retired for good: their statistics stay.
    public var retired: [Row] = []
    /// An admin may register stores.
    public var canRegister = false
    /// Managers and administrators see every store of theirs on the overview.
    public var canOverview = false
    /// What the last import did, after it.
    public var notice: String?

    public init(stores: [Row]) {
        self.stores = stores
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <h1>\(tr("manage.yourStores"))</h1>
            \(Fragments.notice(notice))
            \(if: canOverview, "<p class=\"actions\"><a class=\"button\" href=\"\(Paths.manageOverview())\">\(tr("overview.title"))</a>\(if: canRegister, " <a href=\"\(Paths.manageGroups())\">\(tr("groups.title"))</a>")</p>")
            \(if: canRegister, "<p class=\"actions\"><a class=\"button\" href=\"\(Paths.manageNewStore())\">\(tr("manage.register"))</a> <a class=\"button secondary\" href=\"\(Paths.manageImportStores())\">\(tr("import.title"))</a> <a href=\"\(Paths.manageClosures())\">\(tr("closures.title"))</a> <a href=\"\(Paths.manageMaintenance())\">\(tr("maintenance.title"))</a></p>")
            \(if: !stores.isEmpty || doors.isEmpty, """
                <ul class="rows">
                  \(stores.map { "<li><a href=\"\(Paths.manageStore($0.id))\"><strong>\($0.name)</strong></a> <span class=\"fine\">\($0.address)</span></li>" })
                </ul>
                """)
            \(if: stores.isEmpty && doors.isEmpty, "<p class=\"empty\">\(tr("manage.noStores"))</p>")
            \(if: !retired.isEmpty, """
                <h2>\(tr("retire.listTitle"))</h2>
                <ul class="rows">
                  \(retired.map { "<li><a href=\"\(Paths.manageStore($0.id))\"><strong>\($0.name)</strong></a> <span class=\"fine\">\($0.address)</span></li>" })
                </ul>
                """)
            \(if: !doors.isEmpty, """
                <h2>\(tr("manage.doorConsoles"))</h2>
                <p class="fine">\(tr("manage.doorConsolesHelp"))</p>
                <ul class="rows">
                  \(doors.map { "<li><a href=\"\(Paths.manageStoreDoor($0.id))\"><strong>\($0.name)</strong></a> <span class=\"fine\">\($0.address)</span></li>" })
                </ul>
                """)
            """)
    }
}

/// One managed store: its live figures and its entrance kiosks.
public struct ManageStorePage: Page {
    public struct KioskRow: Sendable {
        public var id: Int64
        public var label: String
        public var role: String
        public var enrolled: String
        public var revoked: Bool
        /// When it last reached CLup, in words ("never" until it has).
        public var contact = ""
        /// Silent for 2 minutes or more while the store is open: flagged.
        public var silent = false
        /// What it last said of itself and its refused scans, in words.
        public var reports: [String] = []

        public init(id: Int64, label: String, role: String, enrolled: String, revoked: Bool) {
            self.id = id
            self.label = label
            self.role = role
            self.enrolled = enrolled
            self.revoked = revoked
        }
    }

    /// The store's staff PIN: whether and when it was set, and why a new one was refused.
    public var staffPin = ""
    public var staffPinError: String?
    /// Door actions staff took on the store's kiosks lately, newest first.
    public var kioskActions: [DoorConsolePage.LogRow] = []

    public var id: Int64
    public var name: String
    public var address: String
    public var capacity: Int
    public var peopleInside: Int
    public var wait: String
    public var light: String
    public var reason: String
    public var kiosks: [KioskRow]
    public var bookings: [BookingRow] = []
    /// What the last edit did.
    public var notice: String?
    /// The store's recent changes: when, who, what.
    public var changes: [(when: String, who: String, what: String)] = []
    /// The enrol form as typed, and what is wrong with it.
    public var enrolLabel = ""
    public var enrolRole: String?
    public var enrolError: String?
    /// When and why the store was retired, in words; nil while it trades.
    public var retired: String?
    /// Administrators retire a store: the form, the reason typed and what is wrong with it.
    public var canRetire = false
    public var retireReason = ""
    public var retireError: String?
    /// The store's managers, shown to administrators only (nil for a manager), the address
    /// typed in the form to add one, and what is wrong with it.
    public var managers: [ManagerRow]?
    public var managerEmail = ""
    public var managerError: String?

    /// The store's door staff, each with whether they have set their own PIN; the address typed
    /// to add one, and what is wrong with it.
    public var doorStaff: [DoorStaffRow] = []
    public var doorStaffEmail = ""
    public var doorStaffError: String?

    public struct DoorStaffRow: Sendable {
        public var userId: Int64
        public var email: String
        public var name: String
        public var hasPin: Bool

        public init(userId: Int64, email: String, name: String, hasPin: Bool) {
            (self.userId, self.email, self.name, self.hasPin) = (userId, email, name, hasPin)
        }
    }

    public struct ManagerRow: Sendable {
        public var userId: Int64
        public var email: String
        public var name: String

        public init(userId: Int64, email: String, name: String) {
            self.userId = userId
            self.email = email
            self.name = name
        }
    }

    /// A booking coming up, and whether its customer confirmed it.
    public struct BookingRow: Sendable {
        public var slot: String
        public var number: Int
        public var people: Int
        public var answer: String

        public init(slot: String, number: Int, people: Int, answer: String) {
            self.slot = slot
            self.number = number
            self.people = people
            self.answer = answer
        }
    }

    public init(id: Int64, name: String, address: String, capacity: Int, peopleInside: Int, wait: String,
                light: String, reason: String, kiosks: [KioskRow])
    {
        self.id = id
        self.name = name
        self.address = address
        self.capacity = capacity
        self.peopleInside = peopleInside
        self.wait = wait
        self.light = light
        self.reason = reason
        self.kiosks = kiosks
    }

    /// The store's managers, each with a button that removes them, and the form that adds one
    /// (administrators only).
    func managersSection(_ managers: [ManagerRow], _ frame: Frame) -> HTML {
        """
        <section class="panel" id="managers">
          <h2>\(tr("manage.managers"))</h2>
          <p class="fine">\(tr("manage.managersHelp"))</p>
          \(if: managers.isEmpty, "<p>\(tr("manage.managersNone"))</p>")
          <ul class="changes">
            \(managers.map { manager in
                "<li>\(manager.name) · \(manager.email) <form method=\"post\" action=\"\(Paths.manageStoreManagerRemove(id))\" class=\"inline\">\(frame.csrfField)<input type=\"hidden\" name=\"user\" value=\"\(manager.userId)\"><button type=\"submit\" class=\"link\" data-confirm=\"\(tr("manage.managerRemoveQuestion", ["email": manager.email]))\">\(tr("manage.managerRemove"))</button></form></li>" as HTML
            })
          </ul>
          <form method="post" action="\(Paths.manageStoreManagers(id))" class="inline-form">
            \(frame.csrfField)
            <label>\(tr("manage.managerEmail"))
              <input type="email" name="email" required maxlength="254" autocomplete="off" value="\(managerEmail)"\(Fragments.invalid(managerError, describedBy: "manager-error"))>
            </label>
            <button type="submit">\(tr("manage.managerAdd"))</button>
          </form>
          \(Fragments.fieldError(managerError, id: "manager-error"))
        </section>
        """
    }

    /// The store's door staff, each with a button that removes them, and the form that adds one.
    func doorStaffSection(_ frame: Frame) -> HTML {
        """
        <h3 id="door-staff">\(tr("manage.doorStaff"))</h3>
        <p class="fine">\(tr("manage.doorStaffHelp"))</p>
        \(if: doorStaff.isEmpty, "<p>\(tr("manage.doorStaffNone"))</p>")
        <ul class="changes">
          \(doorStaff.map { person in
              "<li>\(person.name) · \(person.email) · <span class=\"fine\">\(tr(person.hasPin ? "manage.doorStaffPinSet" : "manage.doorStaffNoPin"))</span> <form method=\"post\" action=\"\(Paths.manageStoreDoorStaffRemove(id))\" class=\"inline\">\(frame.csrfField)<input type=\"hidden\" name=\"user\" value=\"\(person.userId)\"><button type=\"submit\" class=\"link\" data-confirm=\"\(tr("manage.doorStaffRemoveQuestion", ["email": person.email]))\">\(tr("manage.managerRemove"))</button></form></li>" as HTML
          })
        </ul>
        <form method="post" action="\(Paths.manageStoreDoorStaff(id))" class="inline-form">
          \(frame.csrfField)
          <label>\(tr("manage.doorStaffEmail"))
            <input type="email" name="email" required maxlength="254" autocomplete="off" value="\(doorStaffEmail)"\(Fragments.invalid(doorStaffError, describedBy: "door-staff-error"))>
          </label>
          <button type="submit">\(tr("manage.doorStaffAdd"))</button>
        </form>
        \(Fragments.fieldError(doorStaffError, id: "door-staff-error"))
        """
    }

    /// An active kiosk's state, and the button that takes it out of service.
    func revokeForm(_ kiosk: KioskRow, _ frame: Frame) -> HTML {
        """
        \(tr("manage.active")) <form method="post" action="\(Paths.manageStoreKioskRevoke(id))" class="inline">\(frame.csrfField)<input type="hidden" name="kiosk" value="\(kiosk.id)"><button type="submit" class="link" data-confirm="\(tr("manage.revokeQuestion", ["label": kiosk.label]))">\(tr("manage.revoke"))</button></form>
        """
    }

    /// "2 active", "1 active, 1 revoked", "none".
    public var kioskSummary: String {
        let revoked = kiosks.filter(\.revoked).count
        let active = kiosks.count - revoked
        if kiosks.isEmpty { return tr("manage.kiosksNone") }
        let silent = kiosks.filter(\.silent).count
        if silent > 0 { return tr("manage.kiosksSilent", count: silent, ["active": String(active)]) }
        return revoked == 0 ? tr("manage.kiosksActive", ["active": String(active)])
            : tr("manage.kiosksActiveRevoked", ["active": String(active), "revoked": String(revoked)])
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(Paths.manage())">← \(tr("manage.yourStores"))</a></p>
            <h1><span class="light light-\(light)" aria-hidden="true"></span> \(name)</h1>
            <p class="fine">\(address) · <a href="\(Paths.store(id))">\(tr("manage.publicPage"))</a></p>
            <p><a class="button" href="\(Paths.manageStoreStats(id))">\(tr("manage.statistics"))</a> <a class="button secondary" href="\(Paths.manageStoreDoor(id))">\(tr("kiosk.door"))</a> <a class="button secondary" href="\(Paths.manageStoreEdit(id))">\(tr("manage.edit"))</a> <a class="button secondary" href="\(Paths.manageStoreHours(id))">\(tr("store.hours"))</a></p>
            \(Fragments.notice(notice))
            \(retired.map { "<p class=\"notice\">\($0)</p>" as HTML })
            <dl class="facts">
              <div><dt>\(tr("manage.status"))</dt><dd>\(reason)</dd></div>
              <div><dt>\(tr("store.peopleInside"))</dt><dd>\(tr("store.insideOf", ["inside": String(peopleInside), "capacity": String(capacity)]))</dd></div>
              <div><dt>\(tr("store.estimatedWait"))</dt><dd>\(wait)</dd></div>
              <div><dt>\(tr("manage.kiosks"))</dt><dd>\(kioskSummary)</dd></div>
            </dl>
            <section class="panel">
              <h2>\(tr("manage.entranceKiosks"))</h2>
              <p class="fine">\(tr("manage.kiosksHelp1")) (<code>clup admin enrol-kiosk</code> \(tr("manage.kiosksHelpToo"))). \(tr("manage.kiosksHelp2")) <a href="\(Paths.kiosk())">\(Paths.kiosk.pattern)</a> \(tr("manage.kiosksHelp3")) <a href="\(Paths.apiDescription)">\(tr("manage.deviceAPI"))</a> \(tr("manage.kiosksHelp4"))</p>
              <div class="table-wrap" tabindex="0" role="region" aria-label="\(tr("manage.entranceKiosks"))">
                <table class="hours">
                  <thead><tr><th>#</th><th>\(tr("manage.label"))</th><th>\(tr("manage.kioskRole"))</th><th>\(tr("manage.enrolled"))</th><th>\(tr("manage.lastContact"))</th><th>\(tr("manage.kioskReports"))</th><th>\(tr("manage.state"))</th></tr></thead>
                  <tbody>
                  \(kiosks.map { kiosk in
                      "<tr\(if: kiosk.silent, " class=\"silent\"")><td>\(kiosk.id)</td><td>\(kiosk.label)</td><td>\(kiosk.role)</td><td>\(kiosk.enrolled)</td><td>\(kiosk.silent ? "<strong>\(kiosk.contact)</strong>" as HTML : "\(kiosk.contact)")</td><td>\(kiosk.reports.map { "<span class=\"kiosk-report\">\($0)</span>" as HTML })</td><td>\(kiosk.revoked ? "\(tr("manage.revoked"))" as HTML : revokeForm(kiosk, frame))</td></tr>" as HTML
                  })
                  </tbody>
                </table>
              </div>
              \(if: kiosks.isEmpty, "<p>\(tr("manage.noKiosk"))</p>")
              <h3 id="enrol">\(tr("manage.enrolTitle"))</h3>
              \(Fragments.formError(enrolError))
              <form method="post" action="\(Paths.manageStoreKiosks(id))" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="kiosk-label">\(tr("manage.label"))</label>
                  <input id="kiosk-label" name="label" required maxlength="60" value="\(enrolLabel)" aria-describedby="kiosk-label-hint">
                  <p class="fine" id="kiosk-label-hint">\(tr("manage.enrolLabelHint"))</p>
                </div>
                <fieldset>
                  <legend>\(tr("manage.kioskRole"))</legend>
                  <label class="check"><input type="radio" name="role" value="door" required\(if: enrolRole != "dispenser", " checked")> \(tr("manage.enrolDoor"))</label>
                  <label class="check"><input type="radio" name="role" value="dispenser"\(if: enrolRole == "dispenser", " checked")> \(tr("manage.enrolDispenser"))</label>
                </fieldset>
                <button type="submit">\(tr("manage.enrolSubmit"))</button>
              </form>
              \(doorStaffSection(frame))
              <h3 id="staff-pin">\(tr("manage.staffPin"))</h3>
              <p class="fine">\(tr("manage.staffPinHelp"))</p>
              <p>\(staffPin)</p>
              \(Fragments.formError(staffPinError))
              <form method="post" action="\(Paths.manageStoreStaffPin(id))" class="inline-form">
                \(frame.csrfField)
                <label>\(tr("manage.staffPinNew"))
                  <input type="password" name="pin" required inputmode="numeric" pattern="[0-9]{6,12}" minlength="6" maxlength="12" autocomplete="new-password">
                </label>
                <button type="submit">\(tr("manage.staffPinSave"))</button>
              </form>
              <h3>\(tr("manage.kioskActions"))</h3>
              \(if: kioskActions.isEmpty, "<p class=\"fine\">\(tr("manage.kioskActionsNone"))</p>")
              \(if: !kioskActions.isEmpty, """
                  <div class="table-wrap" tabindex="0" role="region" aria-label="\(tr("manage.kioskActions"))">
                    <table class="figures">
                      <thead><tr><th scope="col">\(tr("door.time"))</th><th scope="col">\(tr("privacy.what"))</th><th scope="col">\(tr("kiosk.ticket"))</th><th scope="col">\(tr("door.who"))</th><th scope="col">\(tr("privacy.why"))</th></tr></thead>
                      <tbody>\(kioskActions.map { "<tr><th scope=\"row\">\($0.time)</th><td>\($0.what)</td><td>\($0.number)</td><td>\($0.who)</td><td>\($0.why)</td></tr>" as HTML })</tbody>
                    </table>
                  </div>
                  """)
            </section>
            \(managers.map { managersSection($0, frame) })
            \(if: canRetire, """
                <section class="panel" id="retire">
                  <h2>\(tr("retire.title"))</h2>
                  <p class="fine">\(tr("retire.help"))</p>
                  <form method="post" action="\(Paths.manageStoreRetire(id))" class="stack">
                    \(frame.csrfField)
                    <div class="field">
                      <label for="retire-reason">\(tr("retire.reason"))</label>
                      <input id="retire-reason" name="reason" required maxlength="200" value="\(retireReason)"\(Fragments.invalid(retireError, describedBy: "retire-reason-error"))>
                      \(Fragments.fieldError(retireError, id: "retire-reason-error"))
                    </div>
                    <button type="submit" class="danger" data-confirm="\(tr("retire.question", ["store": name]))">\(tr("retire.button"))</button>
                  </form>
                </section>
                """)
            <section class="panel">
              <h2>\(tr("manage.changes"))</h2>
              \(if: changes.isEmpty, "<p class=\"fine\">\(tr("manage.noChanges"))</p>")
              <ul class="changes">
                \(changes.map { "<li><span class=\"fine\">\($0.when) · \($0.who)</span> \($0.what)</li>" as HTML })
              </ul>
            </section>
            <section class="panel">
              <h2>\(tr("manage.bookings24"))</h2>
              <p class="fine">\(tr("manage.bookingsHelp"))</p>
              <table class="hours">
                <thead><tr><th>\(tr("manage.slot"))</th><th>\(tr("manage.numberShort"))</th><th>\(tr("manage.people"))</th><th>\(tr("manage.confirmation"))</th></tr></thead>
                <tbody>
                \(bookings.map { "<tr><td>\($0.slot)</td><td>\($0.number)</td><td>\($0.people)</td><td>\($0.answer)</td></tr>" })
                </tbody>
              </table>
              \(if: bookings.isEmpty, "<p>\(tr("manage.noBookings"))</p>")
            </section>
            """)
    }
}

/// The door console: who is called, waiting and inside, actions by ticket number with a
/// reason, and the log of what staff did and which scans were refused.
public struct DoorConsolePage: Page {
    public struct Row: Sendable {
        public var number: Int
        public var detail: String

        public init(number: Int, detail: String) {
            self.number = number
            self.detail = detail
        }
    }

    public struct LogRow: Sendable {
        public var time: String
        public var what: String
        public var number: String
        public var who: String
        public var why: String

        public init(time: String, what: String, number: String, who: String, why: String) {
            self.time = time
            self.what = what
            self.number = number
            self.who = who
            self.why = why
        }
    }

    public var storeId: Int64
    public var storeName: String
    public var inside: String
    public var called: [Row]
    public var waiting: [Row]
    public var insideRows: [Row]
    public var actions: [Choice]
    public var number: String
    public var reason: String
    public var message: String?
    public var error: String?
    public var log: [LogRow]
    /// Where the form posts.
    public var formAction = ""
    /// On a kiosk's screen: the kiosk's frame, and the name the member of staff signed in with.
    public var onKiosk = false
    public var staffName = ""
    /// Whether the page leads back to the store's page (its managers) or to the list of
    /// consoles (door staff, who have no store page).
    public var backToStore = true
    /// The store's priority lane, where it has one: staff issue priority tickets here.
    public var priority: TicketForm?
    /// An ordinary ticket for someone who phones, where the store keeps places for walk-ins.
    public var phone: TicketForm?
    /// The ticket staff just issued, to print, show or read out; whether it was for a phone call.
    public var issued: KioskTicketPage?
    public var issuedByPhone = false
    /// The store's door kiosks, and which let people in while offline; where that is chosen.
    public var doors: [Door] = []
    public var doorsAction = ""

    public struct Door: Sendable {
        public var kioskId: Int64
        public var label: String
        public var admitsOffline: Bool
        /// What it holds, in words ("holds 3 places"), or "" for a door that does not admit.
        public var holds: String

        public init(kioskId: Int64, label: String, admitsOffline: Bool, holds: String) {
            (self.kioskId, self.label, self.admitsOffline, self.holds) = (kioskId, label, admitsOffline, holds)
        }
    }

    /// A form issuing a ticket: the party and the visit, no reason asked.
    public struct TicketForm: Sendable {
        /// The panel's id, and its fields' prefix.
        public var id: String
        public var title: String
        public var intro: String
        public var action: String
        public var people: [Choice]
        public var minutes: [Choice]
        public var requestKey: String
        public var button: String
        public var error: String?

        public init(id: String, title: String, intro: String, action: String, people: [Choice], minutes: [Choice],
                    requestKey: String, button: String, error: String?)
        {
            (self.id, self.title, self.intro, self.action) = (id, title, intro, action)
            (self.people, self.minutes, self.requestKey, self.button, self.error) = (people, minutes, requestKey, button, error)
        }
    }

    public init(storeId: Int64, storeName: String, inside: String, called: [Row], waiting: [Row], insideRows: [Row],
                actions: [Choice], number: String, reason: String, message: String?, error: String?, log: [LogRow])
    {
        self.storeId = storeId
        self.storeName = storeName
        self.inside = inside
        self.called = called
        self.waiting = waiting
        self.insideRows = insideRows
        self.actions = actions
        self.number = number
        self.reason = reason
        self.message = message
        self.error = error
        self.log = log
    }

    /// Issuing a ticket: what it is for, the party and the visit.
    private func ticketPanel(_ form: TicketForm?, _ frame: Frame) -> HTML {
        guard let form else { return "" }
        return """
            <section class="panel" id="\(form.id)">
              <h2>\(form.title)</h2>
              <p class="fine">\(form.intro)</p>
              \(Fragments.formError(form.error))
              <form method="post" action="\(form.action)" class="stack">
                \(frame.csrfField)
                <input type="hidden" name="requestKey" value="\(form.requestKey)">
                <div class="field">
                  <label for="\(form.id)-people">\(tr("fact.people"))</label>
                  <select id="\(form.id)-people" name="people">\(Fragments.selectOptions(form.people))</select>
                </div>
                <div class="field">
                  <label for="\(form.id)-minutes">\(tr("fact.visitLength"))</label>
                  <select id="\(form.id)-minutes" name="minutes">\(Fragments.selectOptions(form.minutes))</select>
                </div>
                <button type="submit">\(form.button)</button>
              </form>
            </section>
            """
    }

    /// The ticket just issued, as the dispenser prints one; for a phone call, what to read out.
    private var issuedPanel: HTML {
        guard let ticket = issued else { return "" }
        let number = String(ticket.number)
        return """
            <section class="panel door-issued" aria-labelledby="issued-heading">
              <h2 id="issued-heading">\(issuedByPhone ? tr("door.phone.issued", ["number": number]) : tr("door.priority.issued", ["number": number]))</h2>
              \(if: issuedByPhone, "<p class=\"no-print\">\(tr("door.phone.readOut", ["number": String(ticket.number), "address": ticket.follow?.address ?? "", "code": ticket.follow?.code ?? ""]))</p>")
              \(KioskTicketPage.receipt(storeName: ticket.storeName, storeAddress: ticket.storeAddress, number: ticket.number,
                                      facts: Fragments.facts(ticket.facts), called: ticket.called, headline: ticket.headline,
                                      code: ticket.code, note: issuedByPhone ? tr("door.phone.note") : tr("door.priority.note"),
                                      autoprint: false, follow: ticket.follow))
              <p class="no-print"><button type="button" class="secondary" data-print hidden>\(tr("door.priority.print"))</button></p>
            </section>
            """
    }

    /// Which doors let people in while offline: each door with a button that turns it over.
    private func doorsPanel(_ frame: Frame) -> HTML {
        guard !doors.isEmpty else { return "" }
        return """
            <section class="panel" id="doors">
              <h2>\(tr("door.doors.title"))</h2>
              <p class="fine">\(tr("door.doors.intro"))</p>
              <ul class="door-doors">
              \(doors.map { door in
                  """
                  <li>
                    <form method="post" action="\(doorsAction)" class="inline-form">
                      \(frame.csrfField)
                      <input type="hidden" name="kiosk" value="\(door.kioskId)">
                      <input type="hidden" name="admits" value="\(door.admitsOffline ? "off" : "on")">
                      <strong>\(door.label)</strong>
                      <span>\(tr(door.admitsOffline ? "door.doors.admits" : "door.doors.letsOut"))\(door.holds.isEmpty ? "" : " · " + door.holds)</span>
                      <button type="submit" class="secondary">\(tr(door.admitsOffline ? "door.doors.turnOff" : "door.doors.turnOn"))</button>
                    </form>
                  </li>
                  """ as HTML
              })
              </ul>
            </section>
            """
    }

    private func list(_ title: String, _ rows: [Row], empty: String) -> HTML {
        """
        <section class="panel door-list">
          <h2>\(title)</h2>
          \(rows.isEmpty ? "<p class=\"fine\">\(empty)</p>" as HTML : "<ul>\(rows.map { "<li><strong>\($0.number)</strong> \($0.detail)</li>" as HTML })</ul>")
        </section>
        """
    }

    public func render(in frame: Frame) -> HTML {
        let content: HTML = """
            <h1>\(tr("door.title", ["store": storeName]))</h1>
            <p class="door-inside">\(inside)</p>
            \(issuedPanel)
            \(Fragments.notice(message))
            \(Fragments.formError(error))
            <section class="panel">
              <h2>\(tr("door.act"))</h2>
              <form method="post" action="\(formAction)" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="number">\(tr("door.number"))</label>
                  <input id="number" name="number" inputmode="numeric" pattern="[0-9]*" required maxlength="6" value="\(number)">
                </div>
                <div class="field">
                  <label for="action">\(tr("door.action"))</label>
                  <select id="action" name="action">\(Fragments.selectOptions(actions))</select>
                </div>
                <div class="field">
                  <label for="reason">\(tr("door.why"))</label>
                  <input id="reason" name="reason" required maxlength="200" value="\(reason)" placeholder="\(tr("door.whyPlaceholder"))">
                </div>
                <button type="submit">\(tr("door.submit"))</button>
              </form>
            </section>
            \(ticketPanel(phone, frame))
            \(ticketPanel(priority, frame))
            \(doorsPanel(frame))
            <div class="door-lists">
              \(list(tr("door.called"), called, empty: tr("door.nobodyCalled")))
              \(list(tr("door.waiting"), waiting, empty: tr("door.nobodyWaiting")))
              \(list(tr("door.inside"), insideRows, empty: tr("door.nobodyInside")))
            </div>
            <section class="panel">
              <h2>\(tr("door.log"))</h2>
              <div class="table-wrap" tabindex="0" role="region" aria-label="\(tr("door.log"))">
                <table class="figures">
                  <thead><tr><th scope="col">\(tr("door.time"))</th><th scope="col">\(tr("privacy.what"))</th><th scope="col">\(tr("kiosk.ticket"))</th><th scope="col">\(tr("door.who"))</th><th scope="col">\(tr("privacy.why"))</th></tr></thead>
                  <tbody>\(log.map { "<tr><th scope=\"row\">\($0.time)</th><td>\($0.what)</td><td>\($0.number)</td><td>\($0.who)</td><td>\($0.why)</td></tr>" as HTML })</tbody>
                </table>
                \(if: log.isEmpty, "<p class=\"fine\">\(tr("door.nothingYet"))</p>")
              </div>
            </section>
            """
        guard !onKiosk else {
            return frame.kiosk(storeName: storeName, """
                <div class="kiosk-door">
                <div class="staff-bar">
                  <p>\(tr("staff.signedInAs", ["name": staffName]))</p>
                  <a href="\(Paths.kiosk())">\(tr("kiosk.menuLink"))</a>
                  <form method="post" action="\(Paths.kioskStaffSignOut())">
                    \(frame.csrfField)
                    <button type="submit" class="secondary">\(tr("staff.signOut"))</button>
                  </form>
                </div>
                \(content)
                </div>
                """)
        }
        return frame.site("""
            <p class="back">\(backToStore ? "<a href=\"\(Paths.manageStore(storeId))\">← \(storeName)</a>" as HTML : "<a href=\"\(Paths.manage())\">← \(tr("manage.yourStores"))</a>")</p>
            \(content)
            """)
    }
}

/// Editing a store's facts and rules: every field with its hint and, when refused, why.
public struct StoreEditPage: Page {
    public struct Field: Sendable {
        public var name: String
        public var label: String
        public var value: String
        public var hint: String
        public var numeric: Bool
        public var required: Bool
        public var error: String?
        /// A list to choose from instead of a text field.
        public var options: [Choice]?
        /// Several lines of text.
        public var multiline: Bool

        public init(name: String, label: String, value: String, hint: String, numeric: Bool, required: Bool = true,
                    error: String?, options: [Choice]? = nil, multiline: Bool = false)
        {
            self.options = options
            self.multiline = multiline
            self.required = required
            self.name = name
            self.label = label
            self.value = value
            self.hint = hint
            self.numeric = numeric
            self.error = error
        }
    }

    public var storeId: Int64
    public var storeName: String
    public var fields: [Field]
    /// A new store's registration instead of an edit.
    public var registering: Bool
    /// The map to pick the position on (with scripts, after the longitude): its tile URL
    /// template and their attribution.
    public var map: (tiles: String, attribution: String)?

    public init(storeId: Int64, storeName: String, fields: [Field], registering: Bool = false,
                map: (tiles: String, attribution: String)? = nil)
    {
        self.map = map
        self.storeId = storeId
        self.storeName = storeName
        self.fields = fields
        self.registering = registering
    }

    private func control(_ field: Field) -> HTML {
        let invalid = Fragments.invalid(field.error, describedBy: field.name + "-error")
        if let options = field.options {
            return "<select id=\"\(field.name)\" name=\"\(field.name)\"\(invalid)>\(Fragments.selectOptions(options))</select>"
        }
        if field.multiline {
            return "<textarea id=\"\(field.name)\" name=\"\(field.name)\" rows=\"6\"\(invalid)>\(field.value)</textarea>"
        }
        return "<input id=\"\(field.name)\" name=\"\(field.name)\" value=\"\(field.value)\"\(if: field.numeric, " inputmode=\"numeric\"")\(if: field.required, " required")\(invalid)>"
    }

    private func picker(after field: Field) -> HTML {
        guard field.name == "longitude", let map else { return .empty }
        return """
            <div class="field position-picker" data-position-picker hidden>
              <div class="map" id="position-map" data-tiles="\(map.tiles)" data-attribution="\(map.attribution)" role="application" aria-label="\(tr("storeForm.mapLabel"))"></div>
              <p class="fine">\(tr("storeForm.mapHint"))</p>
            </div>
            """
    }

    public func render(in frame: Frame) -> HTML {
        frame.site(head: map == nil ? .empty : """
            <link rel="stylesheet" href="/vendor/leaflet/leaflet.css">
            <script src="/vendor/leaflet/leaflet.js" defer></script>
            """, """
            <p class="back"><a href="\(registering ? Paths.manage() : Paths.manageStore(storeId))">← \(registering ? tr("manage.yourStores") : storeName)</a></p>
            <h1>\(registering ? tr("manage.register") : tr("storeForm.editTitle", ["store": storeName]))</h1>
            \(if: fields.contains { $0.error != nil }, Fragments.formError(tr("form.nothingChangedFields")))
            <form method="post" action="\(registering ? Paths.manageNewStore() : Paths.manageStoreEdit(storeId))" class="stack panel">
              \(frame.csrfField)
              \(fields.map { field in
                  """
                  <div class="field">
                    <label for="\(field.name)">\(field.label)</label>
                    \(control(field))
                    <p class="fine">\(field.hint)</p>
                    \(Fragments.fieldError(field.error, id: field.name + "-error"))
                  </div>
                  \(picker(after: field))
                  """ as HTML
              })
              <button type="submit">\(registering ? tr("storeForm.registerSubmit") : tr("storeForm.save"))</button>
            </form>
            """)
    }
}

/// A store's weekly hours: two openings a day at most, each a time to open and one to close
/// (a closing earlier than the opening runs past midnight); a day left empty is closed.
public struct StoreHoursPage: Page {
    public struct Day: Sendable {
        public var weekday: Int
        public var name: String
        /// Two openings: (opens, closes) as "HH:MM" or "".
        public var openings: [(opens: String, closes: String)]
        public var error: String?

        public init(weekday: Int, name: String, openings: [(opens: String, closes: String)], error: String?) {
            self.weekday = weekday
            self.name = name
            self.openings = openings
            self.error = error
        }
    }

    /// A coming day the store stays closed.
    public struct Closure: Sendable {
        /// The local day number, as the reopen form sends it back.
        public var day: String
        public var date: String
        public var reason: String

        public init(day: String, date: String, reason: String) {
            self.day = day
            self.date = date
            self.reason = reason
        }
    }

    /// The close-days form as sent (date, until, reason), with its problems by field.
    public struct NewClosure: Sendable {
        public var values: [String: String]
        public var errors: [String: String]

        public init(values: [String: String] = [:], errors: [String: String] = [:]) {
            self.values = values
            self.errors = errors
        }
    }

    /// A coming day with hours of its own.
    public struct Special: Sendable {
        /// The local day number, as the clearing form sends it back.
        public var day: String
        public var date: String
        /// "08:00–14:00".
        public var hours: String
        public var reason: String

        public init(day: String, date: String, hours: String, reason: String) {
            self.day = day
            self.date = date
            self.hours = hours
            self.reason = reason
        }
    }

    /// The special-hours form as sent (date, opens-a … closes-b, reason), with its problems
    /// by field (date, hours, reason).
    public struct NewSpecial: Sendable {
        public var values: [String: String]
        public var errors: [String: String]

        public init(values: [String: String] = [:], errors: [String: String] = [:]) {
            self.values = values
            self.errors = errors
        }
    }

    public var storeId: Int64
    public var storeName: String
    public var days: [Day]
    public var notice: String?
    public var closures: [Closure] = []
    public var newClosure = NewClosure()
    public var specials: [Special] = []
    public var newSpecial = NewSpecial()
    /// The first and last dates the form accepts, "2026-11-22".
    public var closureRange = ("", "")

    public init(storeId: Int64, storeName: String, days: [Day], notice: String? = nil) {
        self.storeId = storeId
        self.storeName = storeName
        self.days = days
        self.notice = notice
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(Paths.manageStore(storeId))">← \(storeName)</a></p>
            <h1>\(tr("hours.title", ["store": storeName]))</h1>
            \(Fragments.notice(notice))
            \(if: days.contains { $0.error != nil }, Fragments.formError(tr("hours.nothingChanged")))
            <p class="fine">\(tr("hours.help"))</p>
            <form method="post" action="\(Paths.manageStoreHours(storeId))" class="panel">
              \(frame.csrfField)
              <div class="table-wrap">
                <table class="figures hours-form">
                  <thead><tr><th scope="col">\(tr("wizard.day"))</th><th scope="col">\(tr("hours.opens"))</th><th scope="col">\(tr("hours.closes"))</th><th scope="col">\(tr("hours.opensAgain"))</th><th scope="col">\(tr("hours.closes"))</th></tr></thead>
                  <tbody>
                  \(days.map { day in
                      let cells: [HTML] = day.openings.enumerated().flatMap { index, opening -> [HTML] in
                          let part = index == 0 ? "a" : "b"
                          return [
                              "<td><input type=\"time\" name=\"opens-\(day.weekday)-\(part)\" value=\"\(opening.opens)\" aria-label=\"\(day.name): \(index == 0 ? tr("hours.opensLower") : tr("hours.opensAgainLower"))\"\(Fragments.invalid(day.error, describedBy: "day-\(day.weekday)-error"))></td>",
                              "<td><input type=\"time\" name=\"closes-\(day.weekday)-\(part)\" value=\"\(opening.closes)\" aria-label=\"\(day.name): \(index == 0 ? tr("hours.closesLower") : tr("hours.closesAgainLower"))\"\(Fragments.invalid(day.error, describedBy: "day-\(day.weekday)-error"))></td>",
                          ]
                      }
                      return """
                          <tr><th scope="row">\(day.name)</th>\(cells)</tr>
                          \(day.error.map { "<tr><td colspan=\"5\">\(Fragments.fieldError($0, id: "day-\(day.weekday)-error"))</td></tr>" as HTML })
                          """ as HTML
                  })
                  </tbody>
                </table>
              </div>
              <button type="submit">\(tr("hours.save"))</button>
            </form>
            <h2 id="closed-days">\(tr("hours.closedDays"))</h2>
            <p class="fine">\(tr("hours.closedHelp"))</p>
            \(if: closures.isEmpty, "<p>\(tr("hours.noClosures"))</p>")
            \(if: !closures.isEmpty, """
                <div class="table-wrap">
                  <table class="figures closures">
                    <thead><tr><th scope="col">\(tr("hours.date"))</th><th scope="col">\(tr("hours.reason"))</th><th scope="col">\(tr("ticket.change"))</th></tr></thead>
                    <tbody>
                    \(closures.map { closure in
                        """
                        <tr><td>\(closure.date)</td><td>\(closure.reason)</td><td>
                          <form method="post" action="\(Paths.manageStoreClosures(storeId))">
                            \(frame.csrfField)
                            <input type="hidden" name="action" value="reopen"><input type="hidden" name="day" value="\(closure.day)">
                            <button type="submit" class="secondary" aria-label="\(tr("hours.openOn", ["date": closure.date]))">\(tr("hours.openAsUsual"))</button>
                          </form>
                        </td></tr>
                        """ as HTML
                    })
                    </tbody>
                  </table>
                </div>
                """)
            \(if: !newClosure.errors.isEmpty, Fragments.formError(tr("hours.notClosed")))
            <form method="post" action="\(Paths.manageStoreClosures(storeId))" class="stack panel">
              \(frame.csrfField)
              <input type="hidden" name="action" value="close">
              \(closureField("date", label: tr("hours.date"), type: "date", required: true))
              \(closureField("until", label: tr("closures.until"), type: "date", required: false, hint: tr("hours.untilHint")))
              \(closureField("reason", label: tr("hours.reason"), type: "text", required: false, hint: tr("hours.reasonHint")))
              <button type="submit">\(tr("hours.closeSubmit"))</button>
            </form>
            \(specialSection(frame))
            """)
    }

    private func closureField(_ name: String, label: String, type: String, required: Bool, hint: String? = nil) -> HTML {
        Fragments.dayFormField(name, prefix: "closure", type: type, label: label, required: required, hint: hint,
                               values: newClosure.values, errors: newClosure.errors, range: closureRange)
    }

    private func specialSection(_ frame: Frame) -> HTML {
        let values = newSpecial.values
        let errors = newSpecial.errors
        return """
            <h2 id="special-hours">\(tr("special.title"))</h2>
            <p class="fine">\(tr("special.help"))</p>
            \(if: specials.isEmpty, "<p>\(tr("special.none"))</p>")
            \(if: !specials.isEmpty, """
                <div class="table-wrap">
                  <table class="figures closures">
                    <thead><tr><th scope="col">\(tr("hours.date"))</th><th scope="col">\(tr("special.hours"))</th><th scope="col">\(tr("hours.reason"))</th><th scope="col">\(tr("ticket.change"))</th></tr></thead>
                    <tbody>
                    \(specials.map { special in
                        """
                        <tr><td>\(special.date)</td><td>\(special.hours)</td><td>\(special.reason)</td><td>
                          <form method="post" action="\(Paths.manageStoreSpecialHours(storeId))">
                            \(frame.csrfField)
                            <input type="hidden" name="action" value="clear"><input type="hidden" name="day" value="\(special.day)">
                            <button type="submit" class="secondary" aria-label="\(tr("special.usualOn", ["date": special.date]))">\(tr("special.usual"))</button>
                          </form>
                        </td></tr>
                        """ as HTML
                    })
                    </tbody>
                  </table>
                </div>
                """)
            \(if: !errors.isEmpty, Fragments.formError(tr("special.notSet")))
            <form method="post" action="\(Paths.manageStoreSpecialHours(storeId))" class="stack panel">
              \(frame.csrfField)
              <input type="hidden" name="action" value="set">
              \(Fragments.dayFormField("date", prefix: "special", type: "date", label: tr("hours.date"), required: true,
                                       values: values, errors: errors, range: closureRange))
              \(Fragments.openingFields(prefix: "special", values: values, error: errors["hours"]))
              \(Fragments.dayFormField("reason", prefix: "special", type: "text", label: tr("hours.reason"), required: false,
                                       hint: tr("hours.reasonHint"), values: values, errors: errors, range: closureRange))
              <button type="submit">\(tr("special.submit"))</button>
            </form>
            """
    }
}

/// A kiosk just enrolled: its device key, shown this once, as text and as a QR code a
/// kiosk's scanner can read into the enrolment form.
public struct KioskEnrolledPage: Page {
    public var storeId: Int64
    public var label: String
    public var key: String
    public var code: QRDrawing

    public init(storeId: Int64, label: String, key: String, code: QRDrawing) {
        self.storeId = storeId
        self.label = label
        self.key = key
        self.code = code
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(tr("manage.enrolledTitle", ["label": label]))</h1>
              <p>\(tr("manage.enrolledKey"))</p>
              <p><code class="device-key">\(key)</code></p>
              <figure class="qr">\(Fragments.qr(code, label: tr("manage.enrolledQR")))</figure>
              <p>\(tr("manage.enrolledHow", ["path": Paths.kiosk.pattern]))</p>
              <p><a class="button" href="\(Paths.manageStore(storeId))">\(tr("manage.backToStore"))</a></p>
            </section>
            """)
    }
}
