import CLupPaths
import CLupText

/// The account page: profile, password, devices, and deleting the account.
public struct AccountPage: Page {
    public var email: String
    public var displayName: String
    public var confirmed: Bool
    public var modes: [Choice]
    public var loyaltyOptIn: Bool
    public var notifyEmail = true
    public var notifyPush = true
    /// Browsers with notifications turned on.
    public var pushDevices = 0
    /// The language of emails and notifications.
    public var languages: [Choice] = []
    public var notice: String?
    public var displayNameError: String?
    public var passwordError: String?
    public var deleteError: String?
    /// The address typed to move the account to, and what is wrong with the request.
    public var newEmail = ""
    public var emailError: String?
    /// For door staff: the stores whose door they run (id, name), when they set their own PIN
    /// (nil: not yet), and why a new PIN was refused.
    public var doorStores: [(id: Int64, name: String)] = []
    public var doorPinSetAt: String?
    public var doorPinError: String?

    public init(email: String, displayName: String, confirmed: Bool, modes: [Choice], loyaltyOptIn: Bool) {
        self.email = email
        self.displayName = displayName
        self.confirmed = confirmed
        self.modes = modes
        self.loyaltyOptIn = loyaltyOptIn
    }

    /// Door staff: their stores' consoles, and the PIN they sign in with on those stores' kiosks.
    private func doorSection(_ frame: Frame) -> HTML {
        guard !doorStores.isEmpty else { return "" }
        return """
            <section class="panel" id="door">
              <h2>\(tr("account.door"))</h2>
              <p class="fine">\(tr("account.doorLead"))</p>
              <ul class="rows">
                \(doorStores.map { "<li><a href=\"\(Paths.manageStoreDoor($0.id))\">\(tr("door.title", ["store": $0.name]))</a></li>" as HTML })
              </ul>
              <p>\(doorPinSetAt.map { tr("account.doorPinSetAt", ["time": $0]) } ?? tr("account.doorPinNone"))</p>
              \(Fragments.formError(doorPinError))
              <form method="post" action="\(Paths.accountDoorPin())" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="doorPin">\(tr("account.doorPinNew"))</label>
                  <input id="doorPin" name="pin" type="password" required inputmode="numeric" pattern="[0-9]{6,12}" minlength="6" maxlength="12" autocomplete="new-password" aria-describedby="doorPin-hint">
                  <p class="fine" id="doorPin-hint">\(tr("account.doorPinHint"))</p>
                </div>
                <div class="field">
                  <label for="doorPinAgain">\(tr("account.doorPinAgain"))</label>
                  <input id="doorPinAgain" name="pinAgain" type="password" required inputmode="numeric" pattern="[0-9]{6,12}" minlength="6" maxlength="12" autocomplete="new-password">
                </div>
                <div class="field">
                  <label for="doorPassword">\(tr("field.currentPassword"))</label>
                  <input id="doorPassword" name="password" type="password" autocomplete="current-password" required>
                </div>
                <button type="submit">\(tr("account.doorPinSave"))</button>
              </form>
            </section>
            """
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <h1>\(tr("account.title"))</h1>
            \(Fragments.notice(notice))
            <p class="fine">\(tr("account.signedInAs")) <strong>\(email)</strong>\(if: !confirmed, " — \(tr("account.notConfirmed"))").</p>

            <section class="panel">
              <h2>\(tr("account.profile"))</h2>
              <form method="post" action="\(Paths.accountProfile())" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="displayName">\(tr("field.yourName"))</label>
                  <input id="displayName" name="displayName" required maxlength="60" value="\(displayName)"\(Fragments.invalid(displayNameError, describedBy: "name-error"))>
                  \(Fragments.fieldError(displayNameError, id: "name-error"))
                </div>
                <div class="field">
                  <label for="travelMode">\(tr("account.usualMode"))</label>
                  <select id="travelMode" name="travelMode">
                    \(Fragments.selectOptions(modes))
                  </select>
                </div>
                <div class="field">
                  <label for="language">\(tr("account.language"))</label>
                  <select id="language" name="language">
                    \(Fragments.selectOptions(languages))
                  </select>
                </div>
                <label class="check"><input type="checkbox" name="loyaltyOptIn"\(if: loyaltyOptIn, " checked")> \(tr("account.loyalty"))</label>
                <button type="submit">\(tr("account.saveProfile"))</button>
              </form>
            </section>

            <section class="panel" id="notifications">
              <h2>\(tr("account.notifications"))</h2>
              <p class="fine">\(tr("account.notificationsLead"))</p>
              <form method="post" action="\(Paths.accountNotifications())" class="stack">
                \(frame.csrfField)
                <label class="check"><input type="checkbox" name="email"\(if: notifyEmail, " checked")> \(tr("account.byEmail", ["email": email]))</label>
                <label class="check"><input type="checkbox" name="push"\(if: notifyPush, " checked")> \(tr("account.onDevices", count: pushDevices))</label>
                <button type="submit">\(tr("account.saveNotifications"))</button>
              </form>
              <p class="push-offer" data-push-offer="\(Paths.accountPush())" hidden>
                <button type="button" class="secondary" data-push-enable>\(tr("account.pushEnable"))</button>
                <span class="fine" data-push-state></span>
              </p>
            </section>

            <section class="panel" id="email">
              <h2>\(tr("emailChange.heading"))</h2>
              <p class="fine">\(tr("emailChange.current", ["email": email]))</p>
              \(Fragments.formError(emailError))
              <form method="post" action="\(Paths.accountEmail())" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="newEmail">\(tr("emailChange.newAddress"))</label>
                  <input id="newEmail" name="newEmail" type="email" autocomplete="email" required maxlength="254" value="\(newEmail)">
                </div>
                <div class="field">
                  <label for="emailPassword">\(tr("field.currentPassword"))</label>
                  <input id="emailPassword" name="password" type="password" autocomplete="current-password" required>
                </div>
                <button type="submit">\(tr("emailChange.send"))</button>
              </form>
            </section>

            \(doorSection(frame))
            <section class="panel">
              <h2>\(tr("field.password"))</h2>
              \(Fragments.formError(passwordError))
              <form method="post" action="\(Paths.accountPassword())" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="currentPassword">\(tr("field.currentPassword"))</label>
                  <input id="currentPassword" name="currentPassword" type="password" autocomplete="current-password" required>
                </div>
                <div class="field">
                  <label for="newPassword">\(tr("field.newPassword"))</label>
                  <input id="newPassword" name="newPassword" type="password" autocomplete="new-password" required minlength="8" maxlength="128">
                </div>
                <div class="field">
                  <label for="newPasswordAgain">\(tr("field.newPasswordAgain"))</label>
                  <input id="newPasswordAgain" name="newPasswordAgain" type="password" autocomplete="new-password" required maxlength="128">
                </div>
                <button type="submit">\(tr("reset.submit"))</button>
              </form>
            </section>

            <section class="panel">
              <h2>\(tr("account.devices"))</h2>
              <p>\(tr("account.devicesLead"))</p>
              <form method="post" action="\(Paths.signOutEverywhere())">
                \(frame.csrfField)
                <button type="submit" class="secondary">\(tr("account.signOutEverywhere"))</button>
              </form>
            </section>

            <section class="panel">
              <h2>\(tr("account.data"))</h2>
              <p>\(tr("account.dataLead")) <a href="\(Paths.privacy())">\(tr("account.dataLink"))</a>.</p>
              <p><a class="button secondary" href="\(Paths.accountData())" download>\(tr("account.download"))</a></p>
            </section>

            <section class="panel danger">
              <h2>\(tr("account.delete"))</h2>
              <p>\(tr("account.deleteLead"))</p>
              \(Fragments.formError(deleteError))
              <form method="post" action="\(Paths.accountDelete())" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="deletePassword">\(tr("account.deletePassword"))</label>
                  <input id="deletePassword" name="password" type="password" autocomplete="current-password" required>
                </div>
                <button type="submit" class="danger">\(tr("account.deleteSubmit"))</button>
              </form>
            </section>
            """)
    }
}

/// What CLup stores about people, why, for how long and who sees it. The periods come from
/// the retention rules the worker enforces.
public struct PrivacyPage: Page {
    public var reservations: String
    public var emails: String
    public var notices: String
    public var signInFailures: String
    public var sessionIdle: String
    public var sessionLongest: String
    public var pushMessages: String
    public var waitingLists: String
    /// How long an account is kept: until deleted, or until unused for the period in force.
    public var account = ""
    /// How long the door log and a store's change log are kept.
    public var doorLog = ""
    public var storeChanges = ""

    public init(reservations: String, emails: String, notices: String, signInFailures: String, sessionIdle: String,
                sessionLongest: String, pushMessages: String, waitingLists: String)
    {
        self.waitingLists = waitingLists
        self.reservations = reservations
        self.emails = emails
        self.notices = notices
        self.signInFailures = signInFailures
        self.sessionIdle = sessionIdle
        self.sessionLongest = sessionLongest
        self.pushMessages = pushMessages
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <article class="narrow prose">
              <h1>\(tr("nav.privacy"))</h1>
              <p class="lead">\(tr("privacy.lead"))</p>

              <h2>\(tr("privacy.withoutAccount"))</h2>
              <p>\(tr("privacy.cookies"))</p>
              <p>\(tr("privacy.kiosk"))</p>

              <h2>\(tr("privacy.withAccount"))</h2>
              <table class="figures text-table">
                <thead><tr><th scope="col">\(tr("privacy.what"))</th><th scope="col">\(tr("privacy.why"))</th><th scope="col">\(tr("privacy.howLong"))</th></tr></thead>
                <tbody>
                  <tr><td>\(tr("privacy.account.what"))</td><td>\(tr("privacy.account.why"))</td><td>\(account)</td></tr>
                  <tr><td>\(tr("privacy.reservations.what"))</td><td>\(tr("privacy.reservations.why"))</td><td>\(tr("privacy.reservations.howLong", ["period": reservations, "waitingLists": waitingLists]))</td></tr>
                  <tr><td>\(tr("privacy.messages.what"))</td><td>\(tr("privacy.messages.why"))</td><td>\(tr("privacy.messages.howLong", ["notices": notices, "emails": emails, "push": pushMessages]))</td></tr>
                  <tr><td>\(tr("privacy.devices.what"))</td><td>\(tr("privacy.devices.why"))</td><td>\(tr("privacy.devices.howLong"))</td></tr>
                  <tr><td>\(tr("privacy.sessions.what"))</td><td>\(tr("privacy.sessions.why"))</td><td>\(tr("privacy.sessions.howLong", ["idle": sessionIdle, "longest": sessionLongest]))</td></tr>
                  <tr><td>\(tr("privacy.failures.what"))</td><td>\(tr("privacy.failures.why"))</td><td>\(signInFailures)</td></tr>
                  <tr><td>\(tr("privacy.doorLog.what"))</td><td>\(tr("privacy.doorLog.why"))</td><td>\(doorLog)</td></tr>
                  <tr><td>\(tr("privacy.storeChanges.what"))</td><td>\(tr("privacy.storeChanges.why"))</td><td>\(storeChanges)</td></tr>
                  <tr><td>\(tr("privacy.support.what"))</td><td>\(tr("privacy.support.why"))</td><td>\(storeChanges)</td></tr>
                </tbody>
              </table>

              <h2>\(tr("privacy.whoSees"))</h2>
              <ul>
                <li><strong>\(tr("privacy.you"))</strong> \(tr("privacy.youText"))</li>
                <li><strong>\(tr("privacy.staff"))</strong> \(tr("privacy.staffText"))</li>
                <li><strong>\(tr("privacy.supportWho"))</strong> \(tr("privacy.supportWhoText"))</li>
                <li><strong>\(tr("privacy.loyal"))</strong> \(tr("privacy.loyalText"))</li>
                <li><strong>\(tr("privacy.nobody"))</strong> \(tr("privacy.nobodyText"))</li>
              </ul>

              <h2>\(tr("privacy.choices"))</h2>
              <ul>
                <li><a href="\(Paths.accountData())">\(tr("privacy.download"))</a> \(tr("privacy.downloadText"))</li>
                <li>\(tr("privacy.change")) <a href="\(Paths.account())">\(tr("privacy.yourAccount"))</a>.</li>
                <li>\(tr("privacy.deleteText"))</li>
              </ul>
            </article>
            """)
    }
}
