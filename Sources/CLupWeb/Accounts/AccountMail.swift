import CLupData
import CLupDomain
import Foundation

/// The emails accounts receive. Plain text: readable in every client, nothing to render.
struct AccountMail {
    let baseURL: String
    let now: Date

    func confirmation(to user: User, token: String) -> NewOutboxMessage {
        NewOutboxMessage(recipient: user.email, subject: "Confirm your CLup account", body: """
            Hello \(user.displayName),

            Welcome to CLup. Please confirm this is your email address by opening the link below.
            Until you do, you can browse stores but not line up or book a visit.

            \(baseURL)/confirm?token=\(token)

            The link works for 7 days. If you did not sign up for CLup, ignore this email and
            no account will be used.

            — CLup
            """, now: now)
    }

    func passwordReset(to user: User, token: String) -> NewOutboxMessage {
        NewOutboxMessage(recipient: user.email, subject: "Reset your CLup password", body: """
            Hello \(user.displayName),

            Someone (we hope you) asked to reset the password of your CLup account. Choose a new
            password here:

            \(baseURL)/reset?token=\(token)

            The link works once, for one hour. If you did not ask for it, ignore this email: your
            password stays as it is.

            — CLup
            """, now: now)
    }

    /// Sent when a reset is asked for an address with no account, so the answer and its
    /// timing are the same whether or not the account exists.
    func noAccount(email: String) -> NewOutboxMessage {
        NewOutboxMessage(recipient: email, subject: "Your CLup password reset request", body: """
            Hello,

            Someone (we hope you) asked to reset the CLup password for this address, but there is
            no CLup account with it. If you meant to sign up, you can do so at:

            \(baseURL)/signup

            If you did not ask, ignore this email.

            — CLup
            """, now: now)
    }

    /// Sent when someone signs up with an address that already has an account: the owner
    /// learns of it, and the sign-up page reveals nothing.
    func alreadyRegistered(to user: User) -> NewOutboxMessage {
        NewOutboxMessage(recipient: user.email, subject: "You already have a CLup account", body: """
            Hello \(user.displayName),

            Someone (we hope you) tried to sign up for CLup with this address, which already has
            an account. You can sign in at \(baseURL)/signin, or reset your password at
            \(baseURL)/forgot if you have forgotten it.

            — CLup
            """, now: now)
    }

    func passwordChanged(to user: User) -> NewOutboxMessage {
        NewOutboxMessage(recipient: user.email, subject: "Your CLup password was changed", body: """
            Hello \(user.displayName),

            The password of your CLup account was just changed, and other devices were signed out.
            If this was not you, reset your password at once: \(baseURL)/forgot

            — CLup
            """, now: now)
    }
}
