import CLupDomain
import Foundation
import GRDB

/// Something that happened to a reservation that its customer should hear about. Written in
/// the transaction that makes it happen, at most one of each kind per reservation (the schema's
/// unique key), and later dispatched to the customer's channels.
public struct Notice: Codable, Sendable, Identifiable, FetchableRecord, TableRecord {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        /// Time to leave for the store.
        case leaveNow
        /// Called: the place is theirs, to be at the door by the call's deadline.
        case yourTurn
        /// A booking's reminder, two hours ahead, asking to confirm or cancel.
        case reminder
        case cancelled
        case expired
        /// A booking not confirmed within an hour of its reminder.
        case autoCancelled

        /// How soon its email must go: a call or a "leave now" first, a reminder before news.
        public var mailPriority: MailPriority {
            switch self {
            case .leaveNow, .yourTurn: .urgent
            case .reminder: .reminder
            case .cancelled, .expired, .autoCancelled: .informational
            }
        }
    }

    /// Why a reservation ended, for the message that says so.
    public enum Reason: String, Codable, Sendable {
        /// The customer cancelled it.
        case byCustomer
        /// The customer made another reservation in its place.
        case replaced
        /// Called, and not scanned within the grace period.
        case notScanned
        /// Still waiting when the store's day ended.
        case storeClosed
        /// A booking whose entry window closed unused.
        case missedWindow
        /// A booking whose reminder went unanswered.
        case unconfirmed
        /// Staff at the door marked it as not coming.
        case markedNoShow
        /// The store changed its opening hours, and the booked slot is no longer open.
        case storeHoursChanged
        /// The store closed on the booking's day (a holiday).
        case storeClosedThatDay
        /// The store keeps shorter hours on the booking's day (`Stores.setSpecialHours`).
        case specialHoursThatDay
        /// The store closed for good (`Stores.retire`).
        case storeRetired
        /// CLup's support cancelled it for the customer, with a reason they are told
        /// (`NoticeSubject.supportReason`).
        case bySupport
    }

    public var id: Int64
    public var reservationId: ReservationID
    public var kind: Kind
    public var reason: Reason?
    public var createdAt: Date
    public var dispatchedAt: Date?
    /// Dispatched again by email alone: its push was lost with the account's last browser
    /// subscription (`AppDatabase.mailLostPush`).
    public var emailOnly: Bool

    public static let databaseTableName = "notice"

    /// The statuses in which a notice of this kind still applies: a ticket cancelled before
    /// its call was dispatched gets no "your turn".
    public var appliesTo: Set<ReservationStatus> { kind.appliesTo }

    /// It tells the customer of what they did themselves (they cancelled, or replaced the
    /// reservation): its email keeps the mailbox's hourly cap (`AppDatabase.enqueue`), so
    /// nobody makes CLup mail them without end. What CLup did, it always says.
    public var reportsOwnAction: Bool { kind == .cancelled && (reason == .byCustomer || reason == .replaced) }
}

extension Notice.Kind {
    /// The statuses in which a notice of this kind still applies: a ticket cancelled before
    /// its call was dispatched gets no "your turn", and its email, if already in the outbox,
    /// is not sent.
    public var appliesTo: Set<ReservationStatus> {
        switch self {
        case .leaveNow: [.waiting, .called]
        case .yourTurn: [.called]
        case .reminder: [.booked]
        case .cancelled, .autoCancelled: [.cancelled]
        case .expired: [.expired]
        }
    }

    /// `appliesTo` as SQL, for both engines: true where the message in `message` (a row of
    /// outboxMessage) is about a notice its reservation `reservation` has moved past.
    static func noLongerAppliesSQL(message: String, reservation: String) -> String {
        let cases = allCases.map { kind in
            let statuses = kind.appliesTo.map { "'\($0.rawValue)'" }.sorted().joined(separator: ", ")
            return "WHEN '\(kind.rawValue)' THEN \(reservation).status NOT IN (\(statuses))"
        }
        return "CASE \(message).noticeKind \(cases.joined(separator: " ")) ELSE FALSE END"
    }
}

/// A browser that asked for push messages (the Push API's subscription): where to post, and
/// the keys to encrypt for it (RFC 8291).
public struct PushSubscription: Codable, Sendable, Identifiable, Equatable, FetchableRecord, TableRecord {
    public var id: Int64
    public var userId: UserID
    public var endpoint: String
    /// The browser's P-256 public key, uncompressed, base64url.
    public var p256dh: String
    /// The 16-byte authentication secret, base64url.
    public var auth: String
    public var createdAt: Date
    /// Attempts failed in a row (no answer, or an error status).
    public var failures: Int

    public static let databaseTableName = "pushSubscription"
}

/// A push message waiting to be sent to one subscription: the payload in clear, encrypted at
/// sending (each attempt with a fresh key, as RFC 8291 requires).
public struct PushMessage: Codable, Sendable, Identifiable, FetchableRecord, TableRecord {
    public var id: Int64
    public var pushSubscriptionId: Int64
    public var payload: String
    /// RFC 8030's Urgency: `high` for a call, `normal` otherwise.
    public var urgency: String
    public var createdAt: Date
    /// Not worth delivering after this (the push service's TTL is what is left).
    public var expiresAt: Date
    public var attempts: Int
    public var nextAttemptAt: Date
    public var sentAt: Date?
    public var lastError: String?

    public static let databaseTableName = "pushMessage"
}

/// What a notice says on each channel, as the dispatcher renders it.
public struct RenderedNotice: Sendable {
    public var subject: String
    public var body: String
    /// The push payload (JSON the service worker shows), or nil for no push message.
    public var push: String?
    public var urgency: String
    /// How long the push message stays worth delivering.
    public var pushLifetime: TimeInterval

    public init(subject: String, body: String, push: String?, urgency: String = "normal",
                pushLifetime: TimeInterval = 3600)
    {
        self.subject = subject
        self.body = body
        self.push = push
        self.urgency = urgency
        self.pushLifetime = pushLifetime
    }
}

/// Everything a notice's message is written from: for the account that holds the
/// reservation, or for the address a walk-in left at the dispenser.
public struct NoticeSubject: Sendable {
    public var notice: Notice
    public var reservation: Reservation
    public var store: Store
    public var user: User?
    public var walkIn: WalkInContact?
    /// For a booking cancelled because its store closed that day: the nearest other stores
    /// open that day, nearest first, with their distance in metres.
    public var alternatives: [(store: Store, metres: Double)] = []
    /// For a reservation support cancelled: why, as support wrote it.
    public var supportReason: String?

    /// The language it is written in.
    public var language: String { user?.language ?? walkIn?.language ?? "en" }
}

/// What a walk-in may leave at the dispenser: an address to be told it is their turn, in the
/// language of the screen they used. Kept until the visit ends.
public struct WalkInContact: Sendable, Equatable {
    public var email: String
    public var language: String

    public init(email: String, language: String) {
        (self.email, self.language) = (email, String(language.prefix(8)))
    }
}
