import Foundation

/// How fast one client may have CLup mail addresses that may not be its own: the confirmation
/// link of a sign-up, "there is no account here" for a forgotten password.
///
/// The goal is that nobody uses CLup's forms to mail strangers in bulk, without ever turning a
/// real person away because other people signed up at the same time: a city's launch, or a
/// library or mobile carrier whose customers share one address. So there is no deployment-wide
/// cap, and one client's mail is paced rather than dropped (a generic cell rate algorithm, kept
/// as one mark per client):
///
/// - a burst of `burst` mails leaves at once;
/// - after it, one every `interval` (240 an hour, 200 sign-ups an hour from one shared address
///   all go out);
/// - a mail that would have to wait longer than `longestDelay` is refused, and the page says
///   when to try again.
///
/// Each mailbox still receives at most `AppDatabase.mailPerRecipientPerHour` an hour.
public enum MailPace {
    public static let burst = 20
    public static let interval: TimeInterval = 15
    public static let longestDelay: TimeInterval = 3600

    /// What happens to a mail asked for at `now`.
    public enum Admission: Equatable, Sendable {
        /// It leaves at `sendAt` (now, or later to keep the pace); the client's mark becomes `mark`.
        case accepted(sendAt: Date, mark: Date)
        /// It would wait too long; a mail asked for at `retryAt` would be accepted.
        case refused(retryAt: Date)
    }

    /// The client's mark is when its next mail would leave were there no burst allowance (the
    /// algorithm's theoretical arrival time); nil for a client with none still in force.
    public static func admit(mark: Date?, now: Date) -> Admission {
        let tolerance = Double(burst - 1) * interval
        let mark = max(mark ?? now, now)
        let sendAt = max(now, mark - tolerance)
        guard sendAt.timeIntervalSince(now) <= longestDelay else {
            return .refused(retryAt: mark - tolerance - longestDelay)
        }
        return .accepted(sendAt: sendAt, mark: mark + interval)
    }
}
