import CLupPaths

/// Create an account: the fields typed so far (never the passwords) and a message per field.
public struct SignUpPage: Page {
    public var email = ""
    public var displayName = ""
    public var emailError: String?
    public var displayNameError: String?
    public var passwordError: String?

    public init(email: String = "", displayName: String = "") {
        self.email = email
        self.displayName = displayName
    }

    public var hasErrors: Bool { emailError != nil || displayNameError != nil || passwordError != nil }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <section class="narrow panel">
              <h1>Create an account</h1>
              <p class="fine">With an account you can line up remotely and book visits. Already have one? <a href="\(Paths.signIn())">Sign in</a>.</p>
              <form method="post" action="\(Paths.signUp())" class="stack" novalidate>
                \(frame.csrfField)
                <div class="field">
                  <label for="email">Email address</label>
                  <input id="email" name="email" type="email" autocomplete="email" required maxlength="254" value="\(email)"\(Fragments.invalid(emailError, describedBy: "email-error"))>
                  \(Fragments.fieldError(emailError, id: "email-error"))
                </div>
                <div class="field">
                  <label for="displayName">Your name</label>
                  <input id="displayName" name="displayName" autocomplete="given-name" required maxlength="60" value="\(displayName)"\(Fragments.invalid(displayNameError, describedBy: "name-error"))>
                  \(Fragments.fieldError(displayNameError, id: "name-error"))
                </div>
                <div class="field">
                  <label for="password">Password</label>
                  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="128" aria-describedby="password-hint\(if: passwordError != nil, " password-error")"\(if: passwordError != nil, " aria-invalid=\"true\"")>
                  <p class="fine" id="password-hint">At least 8 characters. A few unrelated words make a strong password.</p>
                  \(Fragments.fieldError(passwordError, id: "password-error"))
                </div>
                <div class="field">
                  <label for="passwordAgain">Password again</label>
                  <input id="passwordAgain" name="passwordAgain" type="password" autocomplete="new-password" required maxlength="128">
                </div>
                <p class="fine">CLup keeps your email address, name and reservations to keep your place and tell you when to go: <a href="\(Paths.privacy())">what is kept, for how long and who sees it</a>.</p>
                <button type="submit">Create account</button>
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
              <h1>Sign in</h1>
              \(Fragments.formError(error))
              <form method="post" action="\(Paths.signIn())" class="stack">
                \(frame.csrfField)
                <input type="hidden" name="next" value="\(next)">
                <div class="field">
                  <label for="email">Email address</label>
                  <input id="email" name="email" type="email" autocomplete="username" required value="\(email)">
                </div>
                <div class="field">
                  <label for="password">Password</label>
                  <input id="password" name="password" type="password" autocomplete="current-password" required>
                </div>
                <button type="submit">Sign in</button>
              </form>
              <p><a href="\(Paths.forgot())">Forgotten your password?</a></p>
              <p class="fine">New to CLup? <a href="\(Paths.signUp())">Create an account</a>.</p>
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
              <h1>Confirm your email</h1>
              <p>One more step: confirm that this address is yours.</p>
              <form method="post" action="\(Paths.confirm())">
                \(frame.csrfField)
                <input type="hidden" name="token" value="\(token)">
                <button type="submit">Confirm my email address</button>
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
              <h1>Forgotten your password?</h1>
              <p>Enter your email address and we will send you a link to choose a new one.</p>
              <form method="post" action="\(Paths.forgot())" class="stack" novalidate>
                \(frame.csrfField)
                <div class="field">
                  <label for="email">Email address</label>
                  <input id="email" name="email" type="email" autocomplete="email" required value="\(email)"\(Fragments.invalid(error, describedBy: "email-error"))>
                  \(Fragments.fieldError(error, id: "email-error"))
                </div>
                <button type="submit">Send me a link</button>
              </form>
              <p><a href="\(Paths.signIn())">Back to sign in</a></p>
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
              <h1>Choose a new password</h1>
              \(Fragments.formError(error))
              <form method="post" action="\(Paths.reset())" class="stack">
                \(frame.csrfField)
                <input type="hidden" name="token" value="\(token)">
                <div class="field">
                  <label for="password">New password</label>
                  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="8" maxlength="128">
                  <p class="fine">At least 8 characters. Every device will be signed out.</p>
                </div>
                <div class="field">
                  <label for="passwordAgain">New password again</label>
                  <input id="passwordAgain" name="passwordAgain" type="password" autocomplete="new-password" required maxlength="128">
                </div>
                <button type="submit">Change password</button>
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
              <p><a class="button" href="\(Paths.home())">Go to the store list</a></p>
            </section>
            """)
    }
}
