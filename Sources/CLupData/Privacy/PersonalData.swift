import CLupDomain
import Foundation
import GRDB

/// Everything CLup holds about one account, as "download my data" gives it (GDPR art. 15 and
/// 20): the account, its sessions and devices, its reservations with the departments chosen
/// and the messages about them, the emails sent to it, and the failed sign-ins with its
/// address. Secrets are left out: the password's hash, session and device keys, the push
/// subscription's encryption keys.
public struct PersonalData: Encodable, Sendable {
    public struct Account: Encodable, Sendable {
        var email: String
        var name: String
        var role: String
        var createdAt: Date
        var emailConfirmedAt: Date?
        var usualTravelMode: String
        var loyalCustomerOptIn: Bool
        var notifyByEmail: Bool
        var notifyOnDevices: Bool
        var language: String
        /// The version of the terms of service accepted, and when.
        var termsOfServiceVersion: Int?
        var termsOfServiceAcceptedAt: Date?

        init(_ user: User) {
            email = user.email
            name = user.displayName
            role = user.role.rawValue
            createdAt = user.createdAt
            emailConfirmedAt = user.emailConfirmedAt
            usualTravelMode = user.travelMode.rawValue
            loyalCustomerOptIn = user.loyaltyOptIn
            notifyByEmail = user.notifyEmail
            notifyOnDevices = user.notifyPush
            language = user.language
            termsOfServiceVersion = user.termsVersion
            termsOfServiceAcceptedAt = user.termsAcceptedAt
        }
    }

    public struct Session: Encodable, Sendable {
        var signedInAt: Date
        var lastSeenAt: Date
    }

    public struct Device: Encodable, Sendable {
        /// The push service's host only (the full address is a capability).
        var pushService: String
        var addedAt: Date
    }

    public struct Visit: Encodable, Sendable {
        var store: String
        var kind: String
        var number: Int
        var people: Int
        var declaredMinutes: Int
        /// How much longer (above 1) or shorter than declared the wait estimate expected the
        /// visit to last, from the customer's past visits at the store (`CustomerPace`).
        var paceFromPastVisits: Double?
        var travelMode: String?
        var travelMetres: Int?
        var slotStart: Date?
        var status: String
        var createdAt: Date
        var leftForStoreAt: Date?
        var calledAt: Date?
        var enteredAt: Date?
        var exitedAt: Date?
        var endedAt: Date?
        var remindedAt: Date?
        var confirmedAt: Date?
        var departments: [String]
        var messages: [Message]
    }

    public struct Message: Encodable, Sendable {
        var kind: String
        var reason: String?
        var createdAt: Date
        var sentAt: Date?
    }

    public struct Email: Encodable, Sendable {
        var subject: String
        var createdAt: Date
        var sentAt: Date?
    }

    public struct FailedSignIn: Encodable, Sendable {
        var at: Date
        var clientAddress: String
    }

    /// A place on a full slot's waiting list.
    public struct WaitingListPlace: Encodable, Sendable {
        var store: String
        var slotStart: Date
        var people: Int
        var declaredMinutes: Int
        var status: String
        var joinedAt: Date
        var offeredAt: Date?
        var offerExpiresAt: Date?
        var endedAt: Date?

        init(_ entry: WaitlistEntry, store: String) {
            self.store = store
            slotStart = entry.slotStart
            people = entry.people
            declaredMinutes = entry.residenceMinutes
            status = entry.status.rawValue
            joinedAt = entry.createdAt
            offeredAt = entry.offeredAt
            offerExpiresAt = entry.offerExpiresAt
            endedAt = entry.endedAt
        }
    }

    var exportedAt: Date
    var account: Account
    var sessions: [Session]
    var devices: [Device]
    var storesManaged: [String]
    /// The stores whose door console the account runs as door staff.
    var doorStaffAt: [String]
    /// What CLup's support looked up or did about the account, and why (not who).
    var supportActions: [SupportAction]

    public struct SupportAction: Encodable, Sendable {
        var action: String
        var at: Date
        var reason: String
    }
    var reservations: [Visit]
    var waitingLists: [WaitingListPlace]
    var emails: [Email]
    var failedSignIns: [FailedSignIn]

    /// As JSON: keys sorted, dates in ISO 8601, indented for reading.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }
}

extension Privacy {
    /// What CLup holds about account `userId`, read in one snapshot; nil if there is none.
    public func personalData(userId: UserID, now: Date) throws -> PersonalData? {
        try database.reading { transaction in
            guard let user = try AppDatabase.user(id: userId, transaction) else { return nil }
            let account = PersonalData.Account(user)
            let sessions = try transaction.rows("""
                SELECT createdAt, lastSeenAt FROM session WHERE userId = \(userId) ORDER BY createdAt
                """).map { PersonalData.Session(signedInAt: try $0.decode(0), lastSeenAt: try $0.decode(1)) }
            let devices = try transaction.rows("""
                SELECT endpoint, createdAt FROM pushSubscription WHERE userId = \(userId) ORDER BY createdAt
                """).map { row in
                PersonalData.Device(pushService: URL(string: try row.decode(0, as: String.self))?.host ?? "",
                                    addedAt: try row.decode(1))
            }
            let managed = try transaction.column("""
                SELECT s.name FROM managedStore m JOIN store s ON s.id = m.storeId WHERE m.userId = \(userId) ORDER BY s.name
                """, as: String.self).compactMap { $0 }
            let doorStaffAt = try transaction.column("""
                SELECT s.name FROM doorStaff d JOIN store s ON s.id = d.storeId WHERE d.userId = \(userId) ORDER BY s.name
                """, as: String.self).compactMap { $0 }
            let supportActions = try transaction.rows("""
                SELECT action, at, reason FROM supportAction WHERE customerId = \(userId) ORDER BY at, id
                """).map { PersonalData.SupportAction(action: try $0.decode(0), at: try $0.decode(1),
                                                      reason: try Sealed.open($0.decode(2))) }
            var departments: [ReservationID: [String]] = [:]
            for row in try transaction.rows("""
                SELECT rd.reservationId, d.name FROM reservationDepartment rd
                JOIN reservation r ON r.id = rd.reservationId JOIN department d ON d.id = rd.departmentId
                WHERE r.userId = \(userId) ORDER BY d.position
                """)
            {
                departments[try row.decode(0), default: []].append(try row.decode(1))
            }
            var messages: [ReservationID: [PersonalData.Message]] = [:]
            for row in try transaction.rows("""
                SELECT n.reservationId, n.kind, n.reason, n.createdAt, n.dispatchedAt FROM notice n
                JOIN reservation r ON r.id = n.reservationId WHERE r.userId = \(userId) ORDER BY n.createdAt
                """)
            {
                messages[try row.decode(0), default: []].append(PersonalData.Message(
                    kind: try row.decode(1), reason: try row.value(2), createdAt: try row.decode(3), sentAt: try row.value(4)))
            }
            let visits = try transaction.rows("""
                SELECT r.\(unescaped: Reservation.columnList.replacingOccurrences(of: ", ", with: ", r.")), r.pace, s.name
                FROM reservation r JOIN store s ON s.id = r.storeId WHERE r.userId = \(userId) ORDER BY r.createdAt
                """).map { row in
                let visit = try Reservation(columnsOf: row)
                return PersonalData.Visit(
                    store: try row.decode(25), kind: visit.kind.rawValue, number: visit.number, people: visit.people,
                    declaredMinutes: visit.residenceMinutes, paceFromPastVisits: try row.value(24),
                    travelMode: visit.travelMode?.rawValue,
                    travelMetres: visit.travelMetres, slotStart: visit.slotStart, status: visit.status.rawValue,
                    createdAt: visit.createdAt, leftForStoreAt: visit.leftAt, calledAt: visit.calledAt,
                    enteredAt: visit.enteredAt, exitedAt: visit.exitedAt, endedAt: visit.endedAt,
                    remindedAt: visit.remindedAt, confirmedAt: visit.confirmedAt,
                    departments: departments[visit.id] ?? [], messages: messages[visit.id] ?? [])
            }
            let waitingLists = try transaction.rows("""
                SELECT w.\(unescaped: WaitlistEntry.columns.replacingOccurrences(of: ", ", with: ", w.")),
                       s.name AS storeName
                FROM waitlist w JOIN store s ON s.id = w.storeId WHERE w.userId = \(userId) ORDER BY w.id
                """).map { row in
                PersonalData.WaitingListPlace(try row.record(WaitlistEntry.self), store: try row.decode(13))
            }
            let emails = try transaction.records("""
                SELECT \(unescaped: AppDatabase.mailColumns) FROM outboxMessage WHERE recipientKey = \(LookupKey.recipient(user.email))
                ORDER BY createdAt, id
                """, as: OutboxMessage.self).filter { AppDatabase.sameAddress($0.recipient, user.email) }
                .map { PersonalData.Email(subject: $0.subject, createdAt: $0.createdAt, sentAt: $0.sentAt) }
            let failures = try transaction.rows("""
                SELECT at, clientAddress FROM signInFailure WHERE account = \(LookupKey.account(user.email)) ORDER BY at
                """).map { PersonalData.FailedSignIn(at: try $0.decode(0), clientAddress: try $0.decode(1)) }
            return PersonalData(exportedAt: now, account: account, sessions: sessions, devices: devices,
                                storesManaged: managed, doorStaffAt: doorStaffAt, supportActions: supportActions,
                                reservations: visits, waitingLists: waitingLists, emails: emails,
                                failedSignIns: failures)
        }
    }
}

/// A customer's data, exported, and what is kept no longer than `Retention` says.
/// Reached from the database as `privacy`; each write is one transaction.
public struct Privacy: Sendable {
    let database: AppDatabase
}

extension AppDatabase {
    /// A customer's data, and retention.
    public var privacy: Privacy { Privacy(database: self) }
}
