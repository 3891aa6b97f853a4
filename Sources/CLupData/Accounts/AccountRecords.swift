import CLupDomain
import CLupSupport
import Foundation
import GRDB

/// What a person may do: customers reserve; door staff also run the door console of the
/// stores they are named for; support staff look customers up to help them; managers manage
/// their stores; admins create stores, managers and kiosks, and do what support does.
public enum Role: String, Codable, Sendable, DatabaseValueConvertible {
    case customer, staff, support, manager, admin

    /// Opens `/manage`: door staff see their consoles there, managers their stores.
    public var opensManage: Bool { [.staff, .manager, .admin].contains(self) }

    /// Opens `/support`.
    public var helpsCustomers: Bool { self == .support || self == .admin }
}

/// A person with an account (RASD "OnlineUser", managers, admins).
public struct User: Codable, Sendable, Identifiable, Equatable, FetchableRecord, PersistableRecord {
    public typealias ID = UserID

    public var id: UserID
    /// Stored as typed, sealed; found by its keyed hash (`emailKey`), whatever the case.
    @Sealed public var email: String
    @Sealed public var displayName: String
    /// libsodium's argon2id string (algorithm, parameters, salt and hash together).
    public var passwordHash: String
    public var role: Role
    /// Nil until the emailed link is followed: an unconfirmed account cannot reserve.
    public var emailConfirmedAt: Date?
    public var travelMode: TravelMode
    public var loyaltyOptIn: Bool
    public var createdAt: Date
    /// The channels the customer chose for reservation messages (email is used anyway when
    /// nothing else would reach them).
    public var notifyEmail: Bool
    public var notifyPush: Bool
    /// The language emails and notifications are written in ("en", "it").
    public var language: String
    /// The version of the terms of service it accepted, and when; nil: none yet
    /// (`TermsOfService.mustAccept`).
    public var termsVersion: Int?
    public var termsAcceptedAt: Date?

    public static let databaseTableName = "user"

    public enum Columns {
        static let id = Column(CodingKeys.id)
        /// `LookupKey.email` of the address: how an account is found by it.
        static let emailKey = Column("emailKey")
    }

    public var isConfirmed: Bool { emailConfirmedAt != nil }
}

/// An account about to be created (the database gives it its id).
struct NewUser: Codable, Sendable, PersistableRecord {
    @Sealed var email: String
    @Sealed var displayName: String
    var emailKey: String
    var passwordHash: String
    var role: Role
    var emailConfirmedAt: Date?
    var travelMode: TravelMode
    var loyaltyOptIn: Bool
    var createdAt: Date
    var language: String
    var termsVersion: Int?
    var termsAcceptedAt: Date?

    static let databaseTableName = User.databaseTableName
}

extension TravelMode: DatabaseValueConvertible {}

/// A signed-in browser. The cookie holds the random id; the table holds only its hash.
public struct UserSession: Codable, Sendable, FetchableRecord, PersistableRecord {
    public var idHash: String
    public var userId: UserID
    /// The token every state-changing form of this session must carry.
    public var csrfToken: String
    public var createdAt: Date
    public var lastSeenAt: Date

    public static let databaseTableName = "session"

    public enum Columns {
        static let idHash = Column(CodingKeys.idHash)
        static let userId = Column(CodingKeys.userId)
        static let lastSeenAt = Column(CodingKeys.lastSeenAt)
    }
}

/// A single-use emailed link: confirm an address, or reset a password.
public struct EmailToken: Codable, Sendable, FetchableRecord, PersistableRecord {
    public enum Purpose: String, Codable, Sendable, DatabaseValueConvertible {
        case confirm, reset
        /// Moves the account to a new address, once the new mailbox opens the link.
        case changeEmail
    }

    public var tokenHash: String
    public var userId: UserID
    public var purpose: Purpose
    public var expiresAt: Date
    public var usedAt: Date?

    public static let databaseTableName = "emailToken"

    public enum Columns {
        static let tokenHash = Column(CodingKeys.tokenHash)
        static let userId = Column(CodingKeys.userId)
        static let purpose = Column(CodingKeys.purpose)
        static let usedAt = Column(CodingKeys.usedAt)
    }
}

/// An email waiting to be sent, or sent. Mail is written here in the same transaction as the
/// change it reports, and delivered from here, so a mail server outage loses nothing.
public struct OutboxMessage: Codable, Sendable, Identifiable, FetchableRecord, PersistableRecord {
    public var id: Int64
    @Sealed public var recipient: String
    @Sealed public var subject: String
    @Sealed public var body: String
    public var createdAt: Date
    public var attempts: Int
    public var nextAttemptAt: Date
    public var sentAt: Date?
    public var lastError: String?

    public static let databaseTableName = "outboxMessage"

    public enum Columns {
        static let id = Column(CodingKeys.id)
        static let nextAttemptAt = Column(CodingKeys.nextAttemptAt)
        static let sentAt = Column(CodingKeys.sentAt)
        static let recipientKey = Column("recipientKey")
    }

}

/// How soon an email must go: the outbox sends the most urgent first, so a "your turn" never
/// waits behind a backlog of informational mail.
public enum MailPriority: Int, Codable, Sendable, Comparable, CaseIterable, DatabaseValueConvertible {
    /// "Leave now", "it is your turn": late, they are worse than none.
    case urgent = 0
    /// Confirmation links, password resets, account notices: someone is waiting for them.
    case account = 1
    /// A booking's reminder, with its hour to answer.
    case reminder = 2
    /// Cancellations, expiries and the like.
    case informational = 3

    public static func < (lhs: MailPriority, rhs: MailPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What became of a mail asked for: queued, to leave at `sendAt` (now, or later to keep its
/// client's pace), or refused, and when the same mail would be accepted.
public enum MailQueueing: Equatable, Sendable {
    case queued(sendAt: Date)
    case refused(retryAt: Date)

    public var isQueued: Bool {
        if case .queued = self { return true }
        return false
    }
}

/// An email about to be put in the outbox (the database gives it its id).
public struct NewOutboxMessage: Codable, Sendable, PersistableRecord {
    @Sealed public var recipient: String
    @Sealed public var subject: String
    @Sealed public var body: String
    public var createdAt: Date
    public var attempts: Int
    public var nextAttemptAt: Date
    /// The mailbox, as rate limits compare it: `LookupKey.recipient`.
    public var recipientKey: String
    /// For mail a form sends to an address its sender may not own (a confirmation link, a
    /// reset link, "no account here", "someone tried to sign up as you"): the client that
    /// asked, as rate limits count it. Such mail keeps its client's pace (`MailPace`) as well
    /// as the mailbox's hourly cap.
    public var requestedBy: String?
    public var priority: MailPriority
    /// For a reservation's notice: the reservation and the notice's kind. A newer message
    /// about the same reservation supersedes this one while it is unsent, and it is not sent
    /// once the reservation has moved past it (`Notice.Kind.appliesTo`).
    public var reservationId: ReservationID?
    public var noticeKind: Notice.Kind?

    public static let databaseTableName = OutboxMessage.databaseTableName

    public init(recipient: String, subject: String, body: String, now: Date, requestedBy: String? = nil,
                priority: MailPriority = .account, about notice: Notice? = nil)
    {
        self.reservationId = notice?.reservationId
        self.noticeKind = notice?.kind
        self.recipient = recipient
        self.subject = subject
        self.body = body
        self.createdAt = now
        self.attempts = 0
        self.nextAttemptAt = now
        self.recipientKey = LookupKey.recipient(recipient)
        self.requestedBy = requestedBy.map { String($0.prefix(64)) }
        self.priority = priority
    }
}

/// One failed sign-in, kept for an hour for throttling.
struct SignInFailure: Codable, Sendable, FetchableRecord, PersistableRecord {
    /// The account typed, as its keyed hash (`LookupKey.account`).
    var account: String
    var clientAddress: String
    var at: Date

    static let databaseTableName = "signInFailure"

    enum Columns {
        static let account = Column(CodingKeys.account)
        static let clientAddress = Column(CodingKeys.clientAddress)
        static let at = Column(CodingKeys.at)
    }
}

/// A manager's right over one store.
struct ManagedStore: Codable, Sendable, FetchableRecord, PersistableRecord {
    var userId: UserID
    var storeId: StoreID

    static let databaseTableName = "managedStore"

    enum Columns {
        static let userId = Column(CodingKeys.userId)
        static let storeId = Column(CodingKeys.storeId)
    }
}

/// What an enrolled kiosk is for, which decides the screens and device calls its key opens.
public enum KioskRole: String, Codable, Sendable, CaseIterable, DatabaseValueConvertible {
    /// Customer-facing: the ticket dispenser and the "now calling" board, nothing else. Whoever
    /// stands in front of it reaches no staff screen and cannot scan.
    case dispenser
    /// The entrance: the scanner, the board and the dispenser, and the staff's door console
    /// behind the store's staff PIN.
    case door

    /// Whether this kiosk may scan codes at entry and exit (the scanner page, `POST /api/v1/scan`)
    /// and open the staff's door console (with the staff PIN).
    public var isAtTheDoor: Bool { self == .door }
}

/// A browser at a store's entrance, enrolled with a device key bound to that store.
public struct Kiosk: Codable, Sendable, Identifiable, FetchableRecord, PersistableRecord {
    public var id: Int64
    public var storeId: StoreID
    public var label: String
    public var keyHash: String
    public var createdAt: Date
    public var revokedAt: Date?
    public var role: KioskRole

    public static let databaseTableName = "kiosk"

    public enum Columns {
        static let keyHash = Column(CodingKeys.keyHash)
        static let revokedAt = Column(CodingKeys.revokedAt)
    }
}

/// A kiosk about to be enrolled (the database gives it its id).
struct NewKiosk: Codable, Sendable, PersistableRecord {
    var storeId: StoreID
    var label: String
    var keyHash: String
    var createdAt: Date
    var role: KioskRole

    static let databaseTableName = Kiosk.databaseTableName
}

/// Who made a change the store's log records: a signed-in user, or an administrator at the
/// command line (no account; the log shows "an administrator").
public struct ChangeAuthor: Sendable, Equatable {
    public var userId: UserID?

    public static let commandLine = ChangeAuthor(userId: nil)
    public static func user(_ id: UserID) -> ChangeAuthor { ChangeAuthor(userId: id) }
}
