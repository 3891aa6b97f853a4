import CLupPaths

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
    public var notice: String?
    public var displayNameError: String?
    public var passwordError: String?
    public var deleteError: String?

    public init(email: String, displayName: String, confirmed: Bool, modes: [Choice], loyaltyOptIn: Bool) {
        self.email = email
        self.displayName = displayName
        self.confirmed = confirmed
        self.modes = modes
        self.loyaltyOptIn = loyaltyOptIn
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <h1>Your account</h1>
            \(Fragments.notice(notice))
            <p class="fine">Signed in as <strong>\(email)</strong>\(if: !confirmed, " — not yet confirmed").</p>

            <section class="panel">
              <h2>Profile</h2>
              <form method="post" action="\(Paths.accountProfile())" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="displayName">Your name</label>
                  <input id="displayName" name="displayName" required maxlength="60" value="\(displayName)"\(Fragments.invalid(displayNameError, describedBy: "name-error"))>
                  \(Fragments.fieldError(displayNameError, id: "name-error"))
                </div>
                <div class="field">
                  <label for="travelMode">Usual means of transport</label>
                  <select id="travelMode" name="travelMode">
                    \(Fragments.selectOptions(modes))
                  </select>
                </div>
                <label class="check"><input type="checkbox" name="loyaltyOptIn"\(if: loyaltyOptIn, " checked")> List me among a store's loyal customers (managers see your name and visit count; never shown publicly)</label>
                <button type="submit">Save profile</button>
              </form>
            </section>

            <section class="panel" id="notifications">
              <h2>Notifications</h2>
              <p class="fine">We tell you when to leave for the store, when it is your turn, and remind you of a booking 2 hours before, asking you to confirm. If you choose no channel, we still send email.</p>
              <form method="post" action="\(Paths.accountNotifications())" class="stack">
                \(frame.csrfField)
                <label class="check"><input type="checkbox" name="email"\(if: notifyEmail, " checked")> By email, to \(email)</label>
                <label class="check"><input type="checkbox" name="push"\(if: notifyPush, " checked")> On my devices (\(pushDevices == 1 ? "1 browser" : "\(pushDevices) browsers") turned on)</label>
                <button type="submit">Save notifications</button>
              </form>
              <p class="push-offer" data-push-offer="\(Paths.accountPush())" hidden>
                <button type="button" class="secondary" data-push-enable>Turn on notifications on this device</button>
                <span class="fine" data-push-state></span>
              </p>
            </section>

            <section class="panel">
              <h2>Password</h2>
              \(Fragments.formError(passwordError))
              <form method="post" action="\(Paths.accountPassword())" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="currentPassword">Current password</label>
                  <input id="currentPassword" name="currentPassword" type="password" autocomplete="current-password" required>
                </div>
                <div class="field">
                  <label for="newPassword">New password</label>
                  <input id="newPassword" name="newPassword" type="password" autocomplete="new-password" required minlength="8" maxlength="128">
                </div>
                <div class="field">
                  <label for="newPasswordAgain">New password again</label>
                  <input id="newPasswordAgain" name="newPasswordAgain" type="password" autocomplete="new-password" required maxlength="128">
                </div>
                <button type="submit">Change password</button>
              </form>
            </section>

            <section class="panel">
              <h2>Devices</h2>
              <p>Signed in on a device you no longer use, or lost your phone?</p>
              <form method="post" action="\(Paths.signOutEverywhere())">
                \(frame.csrfField)
                <button type="submit" class="secondary">Sign out everywhere</button>
              </form>
            </section>

            <section class="panel danger">
              <h2>Delete your account</h2>
              <p>Your account, profile and reservations' personal details are removed for good. Visits stay in the stores' anonymous statistics.</p>
              \(Fragments.formError(deleteError))
              <form method="post" action="\(Paths.accountDelete())" class="stack">
                \(frame.csrfField)
                <div class="field">
                  <label for="deletePassword">Your password, to confirm</label>
                  <input id="deletePassword" name="password" type="password" autocomplete="current-password" required>
                </div>
                <button type="submit" class="danger">Delete my account</button>
              </form>
            </section>
            """)
    }
}
