import CLupData
import CLupDomain
import CLupText
import Foundation

/// The emails accounts receive. Plain text: readable in every client, nothing to render.
/// Each is written in the language of the account it goes to (an address with no account:
/// the language of the page that asked).
///
/// An account whose address is not confirmed is greeted without its display name: whoever
/// signed up typed that name, and may not own the address — CLup's sender must not carry a
/// stranger's words ("URGENT: verify at http://…") to any inbox.
struct AccountMail {
    let baseURL: String
    let now: Date
    /// The client whose form asked, as rate limits count it: mail to an address that may not be
    /// theirs (a confirmation or reset link, "no account here", "someone signed up as you")
    /// keeps that client's pace (`MailPace`) as well as the mailbox's cap.
    var client: String?

    func confirmation(to user: User, token: String) -> NewOutboxMessage {
        asked(message(to: user, subject: "mail.confirm.subject", body: "mail.confirm.body",
                      ["link": "\(baseURL)/confirm?token=\(token)"]))
    }

    func passwordReset(to user: User, token: String) -> NewOutboxMessage {
        asked(message(to: user, subject: "mail.reset.subject", body: "mail.reset.body",
                      ["link": "\(baseURL)/reset?token=\(token)"]))
    }

    /// Sent when a reset is asked for an address with no account, so the answer and its
    /// timing are the same whether or not the account exists.
    func noAccount(email: String) -> NewOutboxMessage {
        NewOutboxMessage(recipient: email, subject: tr("mail.noAccount.subject"),
                         body: tr("mail.noAccount.body", ["link": "\(baseURL)/signup"]), now: now, requestedBy: client)
    }

    /// Sent when someone signs up with an address that already has an account: the owner
    /// learns of it, and the sign-up page reveals nothing.
    func alreadyRegistered(to user: User) -> NewOutboxMessage {
        asked(message(to: user, subject: "mail.already.subject", body: "mail.already.body",
                      ["signIn": "\(baseURL)/signin", "forgot": "\(baseURL)/forgot"]))
    }

    /// `message` as asked for by this form's client.
    private func asked(_ message: NewOutboxMessage) -> NewOutboxMessage {
        var message = message
        message.requestedBy = client.map { String($0.prefix(64)) }
        return message
    }

    func passwordChanged(to user: User) -> NewOutboxMessage {
        message(to: user, subject: "mail.changed.subject", body: "mail.changed.body", ["forgot": "\(baseURL)/forgot"])
    }

    /// A link that moves the account to `newEmail`, sent there. Greeted without the name: the
    /// address may not be the account owner's.
    func emailChange(to newEmail: String, of user: User, token: String) -> NewOutboxMessage {
        asked(message(to: user, at: newEmail, byName: false, subject: "mail.emailChange.subject",
                      body: "mail.emailChange.body", ["email": newEmail, "link": "\(baseURL)/confirm/email?token=\(token)"]))
    }

    /// Sent to an address that has an account when someone asked to move another account to it.
    func emailTaken(to owner: User) -> NewOutboxMessage {
        asked(message(to: owner, subject: "mail.emailTaken.subject", body: "mail.emailTaken.body",
                      ["signIn": "\(baseURL)/signin"]))
    }

    /// Sent to the old address once the account has moved to `newEmail`.
    func emailChanged(to user: User, newEmail: String) -> NewOutboxMessage {
        message(to: user, subject: "mail.emailChanged.subject", body: "mail.emailChanged.body", ["email": newEmail])
    }

    /// Sent to the owner of an account unused for nearly the period the operator set, with the
    /// day it will be deleted unless they sign in.
    func dormantWarning(to user: User, deletedOn: Date) -> NewOutboxMessage {
        let day = Language.$current.withValue(Language(rawValue: user.language) ?? .en) {
            Formatting.date(LocalDate(day: ZoneOffsets.table(for: .gmt, around: deletedOn).localDay(deletedOn).day))
        }
        return message(to: user, subject: "mail.dormant.subject", body: "mail.dormant.body",
                       ["date": day, "email": user.email, "signIn": "\(baseURL)/signin",
                        "privacy": "\(baseURL)/privacy"], subjectValues: ["date": day])
    }

    /// Sent to the owner of an account closed under the terms of service, with the reason.
    func closed(_ user: User, reason: String) -> NewOutboxMessage {
        var letter = message(to: user, subject: "mail.closed.subject", body: "mail.closed.body",
                             ["email": user.email, "reason": reason, "terms": "\(baseURL)/terms"])
        letter.priority = .account
        return letter
    }

    /// `body` to the account's owner (at `address`, if not its own), in their language,
    /// greeted by name only where the address is confirmed as theirs (`byName`).
    private func message(to user: User, at address: String? = nil, byName: Bool? = nil, subject: String, body: String,
                         _ values: KeyValuePairs<String, String>,
                         subjectValues: KeyValuePairs<String, String> = [:]) -> NewOutboxMessage
    {
        Language.$current.withValue(Language(rawValue: user.language) ?? .en) {
            NewOutboxMessage(recipient: address ?? user.email, subject: tr(subject, subjectValues),
                             body: (byName ?? user.isConfirmed ? tr("mail.hello", ["name": user.displayName])
                                        : tr("mail.helloUnconfirmed"))
                                + "\n\n" + tr(body, values)
                                + "\n\n— CLup", now: now)
        }
    }
}

/// Writes the warning `Privacy.retireDormantAccounts` sends before deleting an unused account.
public struct DormantWarningWriter: Sendable {
    let baseURL: String

    public init(settings: SiteSettings) {
        baseURL = settings.baseURL
    }

    public func write(_ user: User, deletedOn: Date) -> (subject: String, body: String) {
        let message = AccountMail(baseURL: baseURL, now: deletedOn).dormantWarning(to: user, deletedOn: deletedOn)
        return (message.subject, message.body)
    }
}

/// The letter an account closed under the terms of service receives (`clup admin close-account`).
public struct ClosureLetter: Sendable {
    let baseURL: String

    public init(settings: SiteSettings) {
        baseURL = settings.baseURL
    }

    /// What is wrong with a reason as typed: nil if it may be sent.
    public static func problem(_ reason: String) -> String? {
        (1...500).contains(reason.count) && PlainText.isPrintable(reason) ? nil : "give the reason in 1 to 500 printable characters"
    }

    public func write(to user: User, reason: String, now: Date) -> NewOutboxMessage {
        AccountMail(baseURL: baseURL, now: now).closed(user, reason: reason)
    }
}
