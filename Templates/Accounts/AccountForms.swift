import CLupPaths
import CLupText

/// Create an account: the fields typed so far (never the passwords) and a message per field.
public struct SignUpPage: Page {
    public var email = ""
    public var displayName = ""
    public var emailError: String?
    public var displayNameError: String?
    public var passwordError: String?
    public var termsAccepted = false
    public var termsError: String?

    public init(email: String = "", displayName: String = "") {
        self.email = email
        self.displayName = displayName
    }

    public var hasErrors: Bool {
        emailError != nil || displayNameError != nil || passwordError != nil || termsError != nil
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(tr("signup.title"))</h1>
              <p class="fine">\(tr("signup.lead")) <a href="\(Paths.signIn())">\(tr("nav.signIn"))</a>.</p>
              <form method="post" action="\(Paths.signUp())" class="stack" novalidate>
                \(frame.csrfField)
                <div class="field">
                  <label for="email">\(tr("field.email"))</label>
                  <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="\(email)"\(Fragments.invalid(emailError, describedBy: "email-error"))>
                  \(Fragments.fieldError(emailError, id: "email-error"))
                </div>
                <div class="field">
                  <label for="displayName">\(tr("field.yourName"))</label>
                  <input id="displayName" name="displayName" autocomplete="given-name" required maxlength="60" value="\(displayName)"\(Fragments.invalid(displayNameError, describedBy: "name-error"))>
                  \(Fragments.fieldError(displayNameError, id: "name-error"))
                </div>
                <div class="field">
                  <label for="password">\(tr("field.password"))</label>
                  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="128" aria-describedby="password-hint\(if: passwordError != nil, " password-error")"\(if: passwordError != nil, " aria-invalid=\"true\"")>
                  <p class="fine" id="password-hint">\(tr("signup.passwordHint"))</p>
                  \(Fragments.fieldError(passwordError, id: "password-error"))
                </div>
                <div class="field">
                  <label for="passwordAgain">\(tr("field.passwordAgain"))</label>
                  <input id="passwordAgain" name="passwordAgain" type="password" autocomplete="new-password" required maxlength="128">
                </div>
                <p class="fine">\(tr("signup.privacy")) <a href="\(Paths.privacy())">\(tr("signup.privacyLink"))</a>.</p>
                <div class="field">
                  <label class="check"><input id="terms" type="checkbox" name="terms" value="accepted" required\(if: termsAccepted, " checked")\(Fragments.invalid(termsError, describedBy: "terms-error"))> <span>\(tr("signup.terms")) <a href="\(Paths.terms())" target="_blank">\(tr("signup.termsLink"))</a></span></label>
                  \(Fragments.fieldError(termsError, id: "terms-error"))
                </div>
                <button type="submit">\(tr("signup.submit"))</button>
              </form>
            </section>
            """)
    }
}

/// Sign in, returning to `next` afterwards.
public struct SignInPage: Page {
    public var email = ""
    public var next = "/"
    public var error: String?

    public init(email: String = "", next: String = "/", error: String? = nil) {
        self.email = email
        self.next = next
        self.error = error
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(tr("signin.title"))</h1>
              \(Fragments.formError(error))
              <form method="post" action="\(Paths.signIn())" class="stack">
                \(frame.csrfField)
                <input type="hidden" name="next" value="\(next)">
                <div class="field">
                  <label for="email">\(tr("field.email"))</label>
                  <input id="email" name="email" type="email" autocomplete="username" required value="\(email)">
                </div>
                <div class="field">
                  <label for="password">\(tr("field.password"))</label>
                  <input id="password" name="password" type="password" autocomplete="current-password" required>
                </div>
                <button type="submit">\(tr("signin.submit"))</button>
              </form>
              <p><a href="\(Paths.forgot())">\(tr("forgot.title"))</a></p>
              <p class="fine">\(tr("signin.new")) <a href="\(Paths.signUp())">\(tr("signup.title"))</a>.</p>
            </section>
            """)
    }
}

/// The page an emailed confirmation link opens: a button confirms (no change on GET).
public struct ConfirmPage: Page {
    public var token: String

    public init(token: String) {
        self.token = token
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(tr("confirm.title"))</h1>
              <p>\(tr("confirm.lead"))</p>
              <form method="post" action="\(Paths.confirm())">
                \(frame.csrfField)
                <input type="hidden" name="token" value="\(token)">
                <button type="submit">\(tr("confirm.submit"))</button>
              </form>
            </section>
            """)
    }
}

/// The page a change-of-address link opens: the new address, and a button that moves the
/// account to it (a POST, so link scanners cannot).
public struct EmailChangePage: Page {
    public var token: String
    public var newEmail: String

    public init(token: String, newEmail: String) {
        self.token = token
        self.newEmail = newEmail
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(tr("emailChange.title"))</h1>
              <p>\(tr("emailChange.lead", ["email": newEmail]))</p>
              <form method="post" action="\(Paths.confirmEmailChange())">
                \(frame.csrfField)
                <input type="hidden" name="token" value="\(token)">
                <button type="submit">\(tr("emailChange.submit"))</button>
              </form>
            </section>
            """)
    }
}

/// Ask for a link to choose a new password.
public struct ForgotPage: Page {
    public var email = ""
    public var error: String?

    public init(email: String = "", error: String? = nil) {
        self.email = email
        self.error = error
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(tr("forgot.title"))</h1>
              <p>\(tr("forgot.lead"))</p>
              <form method="post" action="\(Paths.forgot())" class="stack" novalidate>
                \(frame.csrfField)
                <div class="field">
                  <label for="email">\(tr("field.email"))</label>
                  <input id="email" name="email" type="email" autocomplete="email" required value="\(email)"\(Fragments.invalid(error, describedBy: "email-error"))>
                  \(Fragments.fieldError(error, id: "email-error"))
                </div>
                <button type="submit">\(tr("forgot.submit"))</button>
              </form>
              <p><a href="\(Paths.signIn())">\(tr("forgot.back"))</a></p>
            </section>
            """)
    }
}

/// Choose a new password from an emailed link.
public struct ResetPage: Page {
    public var token: String
    public var error: String?

    public init(token: String, error: String? = nil) {
        self.token = token
        self.error = error
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(tr("reset.title"))</h1>
              \(Fragments.formError(error))
              <form method="post" action="\(Paths.reset())" class="stack">
                \(frame.csrfField)
                <input type="hidden" name="token" value="\(token)">
                <div class="field">
                  <label for="password">\(tr("field.newPassword"))</label>
                  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="128">
                  <p class="fine">\(tr("reset.hint"))</p>
                </div>
                <div class="field">
                  <label for="passwordAgain">\(tr("field.newPasswordAgain"))</label>
                  <input id="passwordAgain" name="passwordAgain" type="password" autocomplete="new-password" required maxlength="128">
                </div>
                <button type="submit">\(tr("reset.submit"))</button>
              </form>
            </section>
            """)
    }
}

/// A short page that reports what happened and offers the next step.
public struct MessagePage: Page {
    public var title: String
    public var lines: [String]
    public var link: (label: String, href: String)

    public init(title: String, lines: [String], link: (label: String, href: String)) {
        self.title = title
        self.lines = lines
        self.link = link
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>\(title)</h1>
              \(lines.map { "<p>\($0)</p>" })
              <p><a class="button" href="\(link.href)">\(link.label)</a></p>
            </section>
            """)
    }
}

/// An error the person can act on, in the site's layout.
public struct ErrorPage: Page {
    /// Shown above the heading; nil for a refusal that is an ordinary situation.
    public var status: Int?
    public var title: String
    public var message: String

    public init(status: Int?, title: String, message: String) {
        self.status = status
        self.title = title
        self.message = message
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="error-page">
              \(status.map { "<p class=\"error-code\">\($0)</p>" })
              <h1>\(title)</h1>
              <p>\(message)</p>
              <p><a class="button" href="\(Paths.home())">\(tr("error.toStores"))</a></p>
            </section>
            """)
    }
}

/// The terms of service in force, as a page of their own (`/terms`).
public struct TermsPage: Page {
    /// "Version 1, in force from 25 November 2026."
    public var version: String

    public init(version: String) {
        self.version = version
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <article class="narrow prose">
              <h1>\(tr("nav.terms"))</h1>
              <p class="lead">\(tr("terms.lead"))</p>
              <p class="fine">\(version)</p>
              \(Self.sections)
            </article>
            """)
    }

    /// The terms themselves, also shown above the form that accepts them.
    static var sections: HTML {
        let sections = [
            ("terms.serviceTitle", "terms.service"), ("terms.accountTitle", "terms.account"),
            ("terms.reservationsTitle", "terms.reservations"), ("terms.fairTitle", "terms.fair"),
            ("terms.dataTitle", "terms.data"), ("terms.availabilityTitle", "terms.availability"),
            ("terms.changesTitle", "terms.changes"),
        ]
        return HTML.joined(sections.map { title, text in HTML("<h2>\(tr(title))</h2>\n<p>\(tr(text))</p>\n") })
    }
}

/// Asked at sign-in of an account that has not accepted the terms in force: the terms, and a
/// button that accepts them and goes on to `next`.
public struct TermsAcceptPage: Page {
    public var version: String
    /// Whether the account accepted an earlier version (the terms changed) or none.
    public var changed: Bool
    public var next: String

    public init(version: String, changed: Bool, next: String) {
        self.version = version
        self.changed = changed
        self.next = next
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <article class="narrow prose">
              <h1>\(tr("terms.acceptTitle"))</h1>
              <p class="lead">\(tr(changed ? "terms.acceptChanged" : "terms.acceptFirst"))</p>
              <p class="fine">\(version)</p>
              \(TermsPage.sections)
              <form method="post" action="\(Paths.termsAccept())" class="stack">
                \(frame.csrfField)
                <input type="hidden" name="next" value="\(next)">
                <button type="submit">\(tr("terms.acceptButton"))</button>
              </form>
              <p class="fine">\(tr("terms.decline")) <a href="\(Paths.account())">\(tr("terms.declineLink"))</a>.</p>
            </article>
            """)
    }
}
