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

            <section class="panel">
              <h2>Your data</h2>
              <p>Everything CLup holds about you — your account, sessions, devices, reservations with the messages about them, the emails sent to you — in one JSON file. <a href="\(Paths.privacy())">What is kept, and for how long</a>.</p>
              <p><a class="button secondary" href="\(Paths.accountData())" download>Download my data</a></p>
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

    public init(reservations: String, emails: String, notices: String, signInFailures: String, sessionIdle: String,
                sessionLongest: String, pushMessages: String)
    {
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
              <h1>Privacy</h1>
              <p class="lead">What CLup keeps about you, why, for how long, and who sees it.</p>

              <h2>Without an account</h2>
              <p>Looking at stores needs no account. Where you measure distances from (a place you choose, or your position if you let the browser share it) and how you travel are kept in cookies on your device, to show the nearest stores first; CLup does not store them. The web server's logs keep the network addresses that asked for pages, to keep the service running and safe, for as long as the server's log rotation keeps them (14 days with Debian's defaults).</p>
              <p>A <strong>ticket from the kiosk</strong> at a store's entrance is anonymous: its number, party size, visit length and times, nothing about who you are.</p>

              <h2>With an account</h2>
              <table class="figures text-table">
                <thead><tr><th scope="col">What</th><th scope="col">Why</th><th scope="col">How long</th></tr></thead>
                <tbody>
                  <tr><td>Your email address, name and password (only a one-way hash of it)</td><td>To sign you in, and to write to you</td><td>Until you delete your account</td></tr>
                  <tr><td>Your reservations: store, kind, party size, visit length, how you travel and how far, the departments you picked, and when you were called, went in and came out</td><td>To keep your place, tell you when to leave and let you in; the store's statistics</td><td>Linked to you for \(reservations), then anonymous (the statistics keep only counts by hour)</td></tr>
                  <tr><td>Messages about a reservation (leave now, your turn, reminders) and the emails sent to you</td><td>To tell you in time, once</td><td>Messages \(notices), emails \(emails) after sending; push messages \(pushMessages)</td></tr>
                  <tr><td>Devices where you turned notifications on (the browser's push address)</td><td>To send those messages</td><td>Until you turn them off, or the browser drops them</td></tr>
                  <tr><td>Your sessions (when you signed in and were last seen)</td><td>To keep you signed in</td><td>\(sessionIdle) without use, \(sessionLongest) at most</td></tr>
                  <tr><td>Failed sign-ins: the address typed and the network address</td><td>To slow down password guessing</td><td>\(signInFailures)</td></tr>
                </tbody>
              </table>

              <h2>Who sees it</h2>
              <ul>
                <li><strong>You</strong>, in your account and reservations.</li>
                <li><strong>The store's staff</strong> see each ticket's number, party size and times at the door, never your name or email address. Its managers see statistics by hour and department, counts only, hidden for an hour with fewer than 5 visits.</li>
                <li><strong>Loyal customers:</strong> only if you tick it in your account, the managers of a store you visit see your name, your number of visits there and your last visit. Untick it and they no longer do.</li>
                <li><strong>Nobody else.</strong> Emails go through the mail server CLup is set up with; push messages are encrypted for your browser before they reach its push service, which cannot read them.</li>
              </ul>

              <h2>Your choices</h2>
              <ul>
                <li><a href="\(Paths.accountData())">Download your data</a> (a JSON file with everything above about you) from your account.</li>
                <li>Change how you are told, or your loyal-customer choice, in <a href="\(Paths.account())">your account</a>.</li>
                <li>Delete your account there: your details go at once; your past visits stay only as anonymous counts.</li>
              </ul>
            </article>
            """)
    }
}
