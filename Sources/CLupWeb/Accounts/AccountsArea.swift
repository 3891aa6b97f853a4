import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// Sign up, confirm, sign in and out, reset a forgotten password, and the account page
/// (profile, password, sign out everywhere, delete).
///
/// An unconfirmed account may sign in, browse and edit its profile, but cannot reserve: the
/// reservation pages check `User.isConfirmed`. Forms that fail validation are shown again
/// with what was typed (never the passwords) and a message per field.
struct AccountsArea {
    let database: AppDatabase
    let views: Views
    let settings: SiteSettings
    private let hasher = PasswordHasher()

    init(database: AppDatabase, views: Views, settings: SiteSettings) {
        self.database = database
        self.views = views
        self.settings = settings
    }

    func addRoutes(to pages: RouteGroup<BrowserContext>) {
        pages.get(Paths.signUp, signUpForm)
        pages.post(Paths.signUp, signUp)
        pages.get(Paths.signIn, signInForm)
        pages.post(Paths.signIn, signIn)
        pages.post(Paths.signOut, signOut)
        pages.get(Paths.confirm, confirmForm)
        pages.post(Paths.confirm, confirm)
        pages.get(Paths.forgot, forgotForm)
        pages.post(Paths.forgot, forgot)
        pages.get(Paths.reset, resetForm)
        pages.post(Paths.reset, reset)
        pages.get(Paths.privacy, privacy)
        pages.get(Paths.terms, terms)
        for language in Language.allCases {
            pages.get(language.switchPath) { try switchLanguage($0, to: language) }
        }

        let account = pages.adding(.signedIn)
        account.post(Paths.signOutEverywhere, signOutEverywhere)
        account.post(Paths.resendConfirmation, resendConfirmation)
        account.get(Paths.confirmFirst, confirmFirst)
        account.get(Paths.account, self.account)
        account.post(Paths.accountProfile, updateProfile)
        account.post(Paths.accountPassword, changePassword)
        account.post(Paths.accountEmail, requestEmailChange)
        account.post(Paths.accountDoorPin, setDoorPin)
        pages.get(Paths.confirmEmailChange, emailChangeForm)
        pages.post(Paths.confirmEmailChange, confirmEmailChange)
        account.post(Paths.accountDelete, deleteAccount)
        account.post(Paths.accountNotifications, updateNotifications)
        account.post(Paths.accountPush, savePush)
        account.post(Paths.accountPushRemove, removePush)
        account.get(Paths.accountData, downloadData)
        account.get(Paths.termsAccept, termsAcceptForm)
        account.post(Paths.termsAccept, acceptTerms)
    }

    /// Reserving waits for the address to be confirmed: what to do, with the banner's "Send it
    /// again" above, and the way back to where the customer was.
    func confirmFirst(_ context: CustomerContext) throws -> Response {
        let next = safeNextPath(context.request.query["next"])
        guard !context.user.isConfirmed else { return .redirect(to: next) }
        return views.page(title: tr("error.unconfirmedTitle"), context, MessagePage(
            title: tr("error.unconfirmedTitle"),
            lines: [tr("confirmFirst.line", ["email": context.user.email]), tr("confirmFirst.again")],
            link: (tr("confirmFirst.back"), next)))
    }

    // MARK: Language

    /// The language switch on every page: remembers the choice on this device for a year (a
    /// preference, not account state, so it may be set on GET) and goes back to the page.
    func switchLanguage(_ context: BrowserContext, to language: Language) throws -> Response {
        var response = Response.redirect(to: safeNextPath(context.request.query["back"]))
        response.setCookie(Cookie(name: Request.languageCookie, value: language.rawValue, maxAge: 365 * 24 * 3600,
                                  secure: context.secure))
        return response
    }

    // MARK: Privacy

    func privacy(_ context: BrowserContext) throws -> Response {
        let days = Formatting.period
        let policy = settings.retention
        var page = PrivacyPage(
            reservations: days(policy.visits), emails: days(Retention.sentEmails),
            notices: days(Retention.notices), signInFailures: days(Retention.signInFailures),
            sessionIdle: days(Visitor.idleLifetime), sessionLongest: days(Visitor.absoluteLifetime),
            pushMessages: Formatting.period(24 * 3600), waitingLists: days(Retention.waitingLists))
        page.account = if let dormant = policy.dormantAccounts, let warning = policy.dormantWarning {
            tr("privacy.account.howLongDormant", ["period": days(dormant), "warning": days(warning)])
        } else {
            tr("privacy.account.howLong")
        }
        page.doorLog = days(policy.doorLog)
        page.storeChanges = days(policy.storeChanges)
        return views.page(title: tr("nav.privacy"), context, page)
    }

    // MARK: Terms of service

    /// "Version 1, in force from 25 November 2026."
    static var termsVersion: String {
        tr("terms.version", ["version": String(TermsOfService.version),
                             "date": Formatting.date(TermsOfService.effective)])
    }

    func terms(_ context: BrowserContext) throws -> Response {
        views.page(title: tr("nav.terms"), context, TermsPage(version: Self.termsVersion))
    }

    /// Asked of an account that has not accepted the terms in force (the `signedIn` guard
    /// sends it here from any page that needs an account); one that has goes on at once.
    func termsAcceptForm(_ context: CustomerContext) throws -> Response {
        let next = safeNextPath(context.request.query["next"])
        guard TermsOfService.mustAccept(context.user.termsVersion) else { return .redirect(to: next) }
        return views.page(title: tr("terms.acceptTitle"), context, TermsAcceptPage(
            version: Self.termsVersion, changed: context.user.termsVersion != nil, next: next))
    }

    func acceptTerms(_ context: CustomerContext) throws -> Response {
        if TermsOfService.mustAccept(context.user.termsVersion) {
            try database.accounts.acceptTerms(userId: context.user.id, version: TermsOfService.version, now: context.now)
        }
        return .redirect(to: safeNextPath(context.form["next"]))
    }

    /// Everything CLup holds about the signed-in account, as a JSON file to keep.
    func downloadData(_ context: CustomerContext) throws -> Response {
        guard let data = try database.privacy.personalData(userId: context.user.id, now: context.now) else {
            throw HTTPError.notFound
        }
        return Response(status: 200, headers: [
            ("Content-Type", "application/json; charset=utf-8"),
            ("Content-Disposition", "attachment; filename=\"clup-my-data.json\""),
            ("Cache-Control", "private, no-store"),
        ], body: Array(try data.json()))
    }

    private func mail(_ context: some HandlerContext) -> AccountMail {
        AccountMail(baseURL: settings.baseURL, now: context.now, client: context.request.client)
    }

    // MARK: Sign up

    func signUpForm(_ context: BrowserContext) -> Response {
        if context.visitor.user != nil { return .redirect(to: Paths.account()) }
        return views.page(title: tr("signup.title"), context, SignUpPage())
    }

    func signUp(_ context: BrowserContext) throws -> Response {
        let form = context.form
        var page = SignUpPage(email: form["email"]?.trimmed ?? "", displayName: form["displayName"]?.trimmed ?? "")
        let password = form["password"] ?? ""
        page.emailError = AccountFields.emailProblem(page.email)
        page.displayNameError = AccountFields.nameProblem(page.displayName)
        page.passwordError = PasswordHasher.weakness(of: password, email: page.email, displayName: page.displayName)?
            .message
        if page.passwordError == nil, password != form["passwordAgain"] {
            page.passwordError = tr("signup.mismatch")
        }
        page.termsAccepted = form["terms"] == "accepted"
        if !page.termsAccepted { page.termsError = tr("signup.termsRequired") }
        guard !page.hasErrors else {
            return views.page(title: tr("signup.title"), context, page, status: 422)
        }
        let hash = hasher.hash(password)
        let token = Secrets.token(bytes: 32)
        let mail = self.mail(context)
        let queued: MailQueueing
        do {
            queued = try database.accounts.createAccount(
                email: page.email, displayName: page.displayName, passwordHash: hash,
                language: Language.current.rawValue, acceptedTerms: TermsOfService.version, now: context.now,
                confirmation: (token, { mail.confirmation(to: $0, token: token) })
            ).confirmation ?? .queued(sendAt: context.now)
        } catch AccountError.mailRefused(let retryAt) {
            queued = .refused(retryAt: retryAt)
        } catch AccountError.emailTaken {
            // Tell the owner, and answer exactly as for a new account (the same pace and caps).
            if let existing = try database.accounts.user(email: page.email) {
                queued = try database.notices.enqueueMail(mail.alreadyRegistered(to: existing), now: context.now)
            } else {
                queued = .queued(sendAt: context.now)
            }
        }
        return mailPage(context, queued, email: page.email, link: (tr("nav.signIn"), Paths.signIn()),
                        refusedLink: (tr("signup.title"), Paths.signUp()),
                        sent: [tr("signup.sent", ["email": page.email]), tr("signup.sent2")],
                        later: { [tr("mail.queued", ["email": page.email, "wait": $0]), tr("signup.sent2")] })
    }

    /// The page after a form that mails someone: that it was sent; or that it leaves within a
    /// few minutes, held back to keep the client's pace (`MailPace`); or, with a 429, that it
    /// was not sent and when to try again. Never "sent" for a mail that was not queued.
    /// `refusedLink`: where the refusal page leads, if not where the sent page does (a sign-up
    /// refused made no account to sign in to).
    private func mailPage(_ context: some BrowserRequest & HandlerContext, _ queued: MailQueueing, email: String,
                          link: (String, String), refusedLink: (String, String)? = nil, sent: [String],
                          later: (String) -> [String]) -> Response
    {
        switch queued {
        case .refused(let retryAt):
            let wait = max(60, retryAt.timeIntervalSince(context.now))
            var response = views.page(title: tr("mail.notSentTitle"), context, MessagePage(
                title: tr("mail.notSentTitle"),
                lines: [tr("mail.notSent", ["email": email, "wait": Formatting.duration(wait)])],
                link: refusedLink ?? link),
                status: 429)
            response.headers.append(("Retry-After", String(Int(wait.rounded(.up)))))
            return response
        case .queued(let sendAt):
            let delay = sendAt.timeIntervalSince(context.now)
            return views.page(title: tr("mail.checkTitle"), context, MessagePage(
                title: tr("mail.checkTitle"), lines: delay < 60 ? sent : later(Formatting.duration(delay)), link: link))
        }
    }

    // MARK: Confirm

    func confirmForm(_ context: BrowserContext) throws -> Response {
        // Opening the link changes nothing: confirming is a button (a POST), so link scanners
        // and prefetchers cannot confirm on the owner's behalf.
        try linkPage(context, purpose: .confirm, expired: (tr("confirm.expiredLine"), (tr("nav.signIn"), Paths.signIn()))) {
            views.page(title: tr("confirm.title"), context, ConfirmPage(token: $0))
        }
    }

    /// The page an emailed link opens (`EmailedLink`): `page` for a token of `purpose` still
    /// good, else a 410 that says it has expired and where to go.
    private func linkPage(_ context: BrowserContext, purpose: EmailToken.Purpose,
                          expired: (line: String, link: (String, String)), page: (String) -> Response) throws -> Response
    {
        if let stashed = EmailedLink.stash(context, parameter: "token") { return stashed }
        let token = EmailedLink.token(context)
        var response = try database.accounts.isLinkValid(token, purpose: purpose, now: context.now)
            ? page(token)
            : views.page(title: tr("link.expired"), context, MessagePage(
                title: tr("link.expiredTitle"), lines: [expired.line], link: expired.link), status: 410)
        EmailedLink.protect(&response)
        return response
    }

    func confirm(_ context: BrowserContext) throws -> Response {
        do {
            _ = try database.accounts.confirmEmail(token: context.form["token"] ?? "", keeping: context.visitor.session?.idHash,
                                          now: context.now)
        } catch AccountError.invalidOrExpiredLink {
            throw HTTPError(410, tr("confirm.expired"))
        }
        let next = context.visitor.user == nil ? (tr("nav.signIn"), Paths.signIn()) : (tr("link.findStore"), Paths.home())
        return views.page(title: tr("confirm.doneTitle"), context, MessagePage(
            title: tr("confirm.done"), lines: [tr("confirm.doneLine")], link: next))
    }

    func resendConfirmation(_ context: CustomerContext) throws -> Response {
        let user = context.user
        var queued = MailQueueing.queued(sendAt: context.now)
        if !user.isConfirmed {
            let token = Secrets.token(bytes: 32)
            let mail = self.mail(context)
            queued = try database.accounts.issueLink(purpose: .confirm, email: user.email, token: token, now: context.now,
                                            mail: { mail.confirmation(to: $0, token: token) }).mail
        }
        return mailPage(context, queued, email: user.email, link: (tr("link.backToAccount"), Paths.account()),
                        sent: [tr("confirm.resent", ["email": user.email])],
                        later: { [tr("mail.queued", ["email": user.email, "wait": $0])] })
    }

    // MARK: Sign in and out

    func signInForm(_ context: BrowserContext) -> Response {
        let next = safeNextPath(context.request.query["next"])
        if context.visitor.user != nil { return .redirect(to: next) }
        return views.page(title: tr("signin.title"), context, SignInPage(next: next))
    }

    /// Throttled per address and client (`SignInThrottle`). An unknown address costs the same
    /// argon2id verification as a wrong password and gets the same answer.
    func signIn(_ context: BrowserContext) throws -> Response {
        // No address is longer than 254 characters (RFC 5321): a longer one is cut before it
        // is kept for throttling or written back into the page.
        let email = String((context.form["email"]?.trimmed ?? "").prefix(254))
        let account = email.lowercased()
        let client = context.request.client
        var page = SignInPage(email: email, next: safeNextPath(context.form["next"]))
        if let wait = try database.accounts.signInWait(account: account, clientAddress: client, now: context.now) {
            page.error = tr("signin.throttled", ["wait": Formatting.duration(wait)])
            var response = views.page(title: tr("signin.title"), context, page, status: 429)
            response.headers.append(("Retry-After", String(Int(wait))))
            return response
        }
        let user = account.isEmpty ? nil : try database.accounts.user(email: account)
        let verified = hasher.verify(context.form["password"] ?? "", against: user?.passwordHash ?? PasswordHasher.decoy)
        guard verified, let user else {
            try database.accounts.recordSignInFailure(account: account, clientAddress: client, now: context.now)
            page.error = tr("signin.wrong")
            return views.page(title: tr("signin.title"), context, page, status: 401)
        }
        try database.accounts.clearSignInFailures(account: account, clientAddress: client)
        // Always a new session id at sign-in, so an id planted before cannot be ridden.
        if let old = context.visitor.session { try database.accounts.deleteSession(idHash: old.idHash) }
        let token = Secrets.token()
        _ = try database.accounts.createSession(idHash: Secrets.hash(token), csrfToken: Secrets.token(), userId: user.id,
                                       now: context.now)
        // Terms accepted in an earlier version, or never (an account an administrator made):
        // asked now, before going on.
        var response = Response.redirect(to: TermsOfService.mustAccept(user.termsVersion)
            ? Paths.termsAccept(query: FormData(pairs: [("next", page.next)]).urlEncoded) : page.next)
        response.setCookie(Cookie(name: Visitor.sessionCookie(secure: context.secure), value: token,
                                  maxAge: Int(Visitor.absoluteLifetime), secure: context.secure))
        return response
    }

    func signOut(_ context: BrowserContext) throws -> Response {
        if let session = context.visitor.session { try database.accounts.deleteSession(idHash: session.idHash) }
        var response = Response.redirect(to: Paths.home())
        response.setCookie(Visitor.endedSession(secure: context.secure))
        return response
    }

    func signOutEverywhere(_ context: CustomerContext) throws -> Response {
        let user = context.user
        try database.accounts.deleteSessions(userId: user.id)
        var response = Response.redirect(to: Paths.signIn())
        response.setCookie(Visitor.endedSession(secure: context.secure))
        return response
    }

    // MARK: Forgotten password

    func forgotForm(_ context: BrowserContext) -> Response {
        views.page(title: tr("forgot.pageTitle"), context, ForgotPage(email: context.request.query["email"] ?? ""))
    }

    /// The same page, after the same work (one email enqueued), whether or not the address has
    /// an account.
    func forgot(_ context: BrowserContext) throws -> Response {
        let email = context.form["email"]?.trimmed ?? ""
        if let problem = AccountFields.emailProblem(email) {
            return views.page(title: tr("forgot.pageTitle"), context,
                            ForgotPage(email: email, error: problem), status: 422)
        }
        let token = Secrets.token(bytes: 32)
        let mail = self.mail(context)
        // Both mails keep the same pace and caps, so the answer says nothing of the account.
        let queued = try database.accounts.issueLink(purpose: .reset, email: email, token: token, now: context.now,
                                            mail: { mail.passwordReset(to: $0, token: token) },
                                            ifNoAccount: mail.noAccount(email: email)).mail
        return mailPage(context, queued, email: email, link: (tr("forgot.back"), Paths.signIn()),
                        sent: [tr("forgot.sent", ["email": email]), tr("forgot.sent2")],
                        later: { [tr("forgot.queued", ["email": email, "wait": $0]), tr("forgot.sent2")] })
    }

    func resetForm(_ context: BrowserContext) throws -> Response {
        try linkPage(context, purpose: .reset, expired: (tr("reset.expiredLine"), (tr("link.askNew"), Paths.forgot()))) {
            views.page(title: tr("reset.title"), context, ResetPage(token: $0))
        }
    }

    func reset(_ context: BrowserContext) throws -> Response {
        let token = context.form["token"] ?? ""
        let password = context.form["password"] ?? ""
        var page = ResetPage(token: token)
        page.error = PasswordHasher.weakness(of: password)?.message
        if page.error == nil, password != context.form["passwordAgain"] { page.error = tr("signup.mismatch") }
        if page.error != nil {
            return views.page(title: tr("reset.title"), context, page, status: 422)
        }
        do {
            _ = try database.accounts.resetPassword(token: token, passwordHash: hasher.hash(password), now: context.now)
        } catch AccountError.invalidOrExpiredLink {
            throw HTTPError(410, tr("reset.expired"))
        }
        var response = views.page(title: tr("reset.doneTitle"), context, MessagePage(
            title: tr("reset.done"),
            lines: [tr("reset.doneLine")], link: (tr("nav.signIn"), Paths.signIn())))
        response.setCookie(Visitor.endedSession(secure: context.secure))
        return response
    }

    // MARK: Account page

    func account(_ context: CustomerContext) throws -> Response {
        let user = context.user
        var page = try accountPage(context)
        switch context.request.query["saved"] {
        case "profile": page.notice = tr("account.savedProfile")
        case "notifications": page.notice = tr("account.savedNotifications")
        case "password": page.notice = tr("account.savedPassword")
        case "email": page.notice = tr("emailChange.changed")
        case "doorPin": page.notice = tr("account.doorPinSaved")
        default: break
        }
        return views.page(title: tr("account.title"), section: .account, context, page)
    }

    /// The signed-in account.s page, with their devices and, for door staff, their stores. consoles
    /// and their own PIN.
    private func accountPage(_ context: CustomerContext) throws -> AccountPage {
        let user = context.user
        var page = AccountPage(user: user)
        page.pushDevices = try database.notices.pushSubscriptions(userId: user.id).count
        let doors = try database.accounts.doorStores(userId: user.id)
        page.doorStores = doors.map { ($0.id.rawValue, $0.name) }
        if let zone = doors.first?.zone {  // the time as their (first) store's clocks show it
            page.doorPinSetAt = try database.accounts.doorPinSetAt(userId: user.id).map {
                Formatting.moment($0, now: context.now, timeZone: zone)
            }
        }
        return page
    }

    /// Door staff set the PIN they sign in with on their stores' door kiosks, giving their
    /// password again; passes made with the old PIN stop at their next request.
    func setDoorPin(_ context: CustomerContext) throws -> Response {
        let user = context.user
        var page = try accountPage(context)
        guard !page.doorStores.isEmpty else { throw HTTPError.forbidden }
        let pin = context.form["pin"] ?? ""
        if !hasher.verify(context.form["password"] ?? "", against: user.passwordHash) {
            page.doorPinError = tr("account.wrongCurrent")
        } else if !StaffPin.isAcceptable(pin) {
            page.doorPinError = tr("manage.staffPinBad")
        } else if pin != context.form["pinAgain"] {
            page.doorPinError = tr("account.doorPinMismatch")
        }
        if page.doorPinError != nil {
            return views.page(title: tr("account.title"), section: .account, context, page, status: 422)
        }
        try database.accounts.setDoorPin(userId: user.id, pinHash: hasher.hash(pin), now: context.now)
        return .redirect(to: Paths.account(query: "saved=doorPin") + "#door")
    }

    func updateProfile(_ context: CustomerContext) throws -> Response {
        let user = context.user
        let name = context.form["displayName"]?.trimmed ?? ""
        var page = try accountPage(context)
        page.displayName = name
        page.displayNameError = AccountFields.nameProblem(name)
        guard let mode = TravelMode(rawValue: context.form["travelMode"] ?? "") else {
            throw HTTPError.badRequest(tr("account.chooseMode"))
        }
        guard let language = Language(rawValue: context.form["language"] ?? user.language) else {
            throw HTTPError.badRequest(tr("language.unknown"))
        }
        if page.displayNameError != nil {
            return views.page(title: tr("account.title"), section: .account, context, page, status: 422)
        }
        try database.accounts.updateProfile(userId: user.id, displayName: name, travelMode: mode,
                                   loyaltyOptIn: context.form["loyaltyOptIn"] == "on", language: language.rawValue)
        return .redirect(to: Paths.account(query: "saved=profile"))
    }

    func updateNotifications(_ context: CustomerContext) throws -> Response {
        try database.accounts.updateNotificationChannels(userId: context.user.id, email: context.form["email"] == "on",
                                                push: context.form["push"] == "on")
        return .redirect(to: Paths.account(query: "saved=notifications"))
    }

    /// Keeps this browser's push subscription (sent by the page's script: the Push API's
    /// endpoint and keys). Answers 204, or 400 with what is wrong.
    func savePush(_ context: CustomerContext) throws -> Response {
        let form = context.form
        guard let endpoint = form["endpoint"].flatMap(settings.pushEndpoint) else {
            throw HTTPError.badRequest(tr("push.badService"))
        }
        guard let p256dh = form["p256dh"], PushKeys.isPublicKey(p256dh), let auth = form["auth"], PushKeys.isAuth(auth)
        else { throw HTTPError.badRequest(tr("push.badKeys")) }
        switch try database.notices.savePushSubscription(userId: context.user.id, endpoint: endpoint, p256dh: p256dh, auth: auth,
                                                 now: context.now)
        {
        case .saved: return Response(status: 204, headers: [("Cache-Control", "no-store")], body: [])
        case .anotherAccounts: throw HTTPError(409, tr("push.anotherAccount"))
        }
    }

    func removePush(_ context: CustomerContext) throws -> Response {
        let endpoint = context.form["endpoint"] ?? ""
        try database.notices.deletePushSubscription(userId: context.user.id, endpoint: settings.pushEndpoint(endpoint) ?? endpoint)
        return Response(status: 204, headers: [("Cache-Control", "no-store")], body: [])
    }

    func changePassword(_ context: CustomerContext) throws -> Response {
        let user = context.user
        var page = try accountPage(context)
        let new = context.form["newPassword"] ?? ""
        if !hasher.verify(context.form["currentPassword"] ?? "", against: user.passwordHash) {
            page.passwordError = tr("account.wrongCurrent")
        } else if let weakness = PasswordHasher.weakness(of: new, email: user.email, displayName: user.displayName) {
            page.passwordError = weakness.message
        } else if new != context.form["newPasswordAgain"] {
            page.passwordError = tr("account.newMismatch")
        }
        if page.passwordError != nil {
            return views.page(title: tr("account.title"), section: .account, context, page, status: 422)
        }
        let mail = self.mail(context)
        try database.accounts.changePassword(userId: user.id, passwordHash: hasher.hash(new),
                                    keepingSession: context.visitor.session?.idHash, now: context.now,
                                    notice: { mail.passwordChanged(to: $0) })
        return .redirect(to: Paths.account(query: "saved=password"))
    }

    /// Sends a link to the new address, after the password is given again; the account moves
    /// when the link is opened. An address with an account of its own is told instead, and the
    /// page says the same either way.
    func requestEmailChange(_ context: CustomerContext) throws -> Response {
        let user = context.user
        var page = try accountPage(context)
        let newEmail = context.form["newEmail"]?.trimmed ?? ""
        page.newEmail = newEmail
        if !hasher.verify(context.form["password"] ?? "", against: user.passwordHash) {
            page.emailError = tr("account.wrongCurrent")
        } else if let problem = AccountFields.emailProblem(newEmail) {
            page.emailError = problem
        } else if newEmail.lowercased() == user.email.lowercased() {
            page.emailError = tr("emailChange.same")
        }
        if page.emailError != nil {
            return views.page(title: tr("account.title"), section: .account, context, page, status: 422)
        }
        let token = Secrets.token(bytes: 32)
        let mail = self.mail(context)
        let queued = try database.accounts.requestEmailChange(
            userId: user.id, newEmail: newEmail, token: token, now: context.now,
            mail: { mail.emailChange(to: newEmail, of: $0, token: token) }, taken: { mail.emailTaken(to: $0) })
        return mailPage(context, queued, email: newEmail, link: (tr("link.backToAccount"), Paths.account()),
                        sent: [tr("emailChange.sent", ["email": newEmail, "old": user.email])],
                        later: { [tr("mail.queued", ["email": newEmail, "wait": $0])] })
    }

    func emailChangeForm(_ context: BrowserContext) throws -> Response {
        try linkPage(context, purpose: .changeEmail,
                     expired: (tr("emailChange.expiredLine"), (tr("link.backToAccount"), Paths.account()))) { token in
            let newEmail = (try? database.accounts.pendingEmailChange(token: token, now: context.now)) ?? nil
            return views.page(title: tr("emailChange.title"), context, EmailChangePage(token: token, newEmail: newEmail ?? ""))
        }
    }

    func confirmEmailChange(_ context: BrowserContext) throws -> Response {
        let mail = self.mail(context)
        do {
            _ = try database.accounts.confirmEmailChange(token: context.form["token"] ?? "", now: context.now,
                                                         notice: { mail.emailChanged(to: $0, newEmail: $1) })
        } catch AccountError.invalidOrExpiredLink {
            throw HTTPError(410, tr("emailChange.expiredLine"))
        } catch AccountError.emailTaken {
            throw HTTPError(409, tr("emailChange.takenMeanwhile"))
        }
        if context.visitor.user != nil { return .redirect(to: Paths.account(query: "saved=email")) }
        return views.page(title: tr("emailChange.doneTitle"), context, MessagePage(
            title: tr("emailChange.doneTitle"), lines: [tr("emailChange.changed")], link: (tr("nav.signIn"), Paths.signIn())))
    }

    /// Deletes the account and its personal data after the password is given again.
    func deleteAccount(_ context: CustomerContext) throws -> Response {
        let user = context.user
        guard hasher.verify(context.form["password"] ?? "", against: user.passwordHash) else {
            var page = try accountPage(context)
            page.deleteError = tr("account.deleteWrong")
            return views.page(title: tr("account.title"), section: .account, context, page, status: 422)
        }
        try database.accounts.deleteUser(id: user.id, now: context.now)
        var response = views.page(title: tr("account.deletedTitle"), context, MessagePage(
            title: tr("account.deleted"),
            lines: [tr("account.deletedLine")],
            link: (tr("link.backToStores"), Paths.home())))
        response.setCookie(Visitor.endedSession(secure: context.secure))
        return response
    }
}

/// Checks on the fields of account forms.
enum AccountFields {
    /// A deliberately simple check: one @, something on each side, a dot in the domain, no
    /// spaces. The confirmation email is the real test.
    static func emailProblem(_ email: String) -> String? {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard email.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !email.contains(where: { $0.isWhitespace || $0.isNewline }),
            PlainText.isPrintable(email)
        else { return tr("field.emailProblem") }
        return nil
    }

    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return tr("field.nameEmpty") }
        if name.count > 60 { return tr("field.atMost", ["n": "60"]) }
        if !PlainText.isPrintable(name) { return tr("field.printable") }
        return nil
    }
}

extension AccountPage {
    init(user: User) {
        self.init(
            email: user.email, displayName: user.displayName, confirmed: user.isConfirmed,
            modes: TravelMode.allCases.map { Choice(value: $0.rawValue, label: $0.label, checked: $0 == user.travelMode) },
            loyaltyOptIn: user.loyaltyOptIn)
        languages = Language.allCases.map {
            Choice(value: $0.rawValue, label: $0.autonym, checked: $0.rawValue == user.language)
        }
        notifyEmail = user.notifyEmail
        notifyPush = user.notifyPush
    }
}

/// The shape of a Push API subscription's keys (RFC 8291): a P-256 public key, uncompressed
/// (65 bytes), and a 16-byte secret, both base64url.
enum PushKeys {
    static func isPublicKey(_ text: String) -> Bool {
        Secrets.base64urlBytes(text).map { $0.count == 65 && $0.first == 4 } ?? false
    }

    static func isAuth(_ text: String) -> Bool {
        Secrets.base64urlBytes(text)?.count == 16
    }
}


extension String {
    var trimmed: String { trimmingCharacters(in: .whitespacesAndNewlines) }
}

extension PasswordHasher.Weakness {
    /// What to do about it, in the current language.
    public var message: String {
        switch self {
        case .tooShort(let minimum): tr("password.tooShort", ["n": String(minimum)])
        case .tooLong(let maximum): tr("field.atMost", ["n": String(maximum)])
        case .common: tr("password.common")
        case .repetitive: tr("password.repetitive")
        case .personal: tr("password.personal")
        }
    }
}
