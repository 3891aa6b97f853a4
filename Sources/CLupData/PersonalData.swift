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

extension AppDatabase {
    /// What CLup holds about account `userId`, read in one snapshot; nil if there is none.
    public func personalData(userId: UserID, now: Date) throws -> PersonalData? {
        if let postgres { return try postgres.personalData(userId: userId, now: now) }
        return try reader.read { db in
            guard let user = try User.fetchOne(db, id: userId) else { return nil }
            let account = PersonalData.Account(user)
            let sessions = try Row.fetchAll(db, sql: """
                SELECT createdAt, lastSeenAt FROM session WHERE userId = ? ORDER BY createdAt
                """, arguments: [userId]).map { PersonalData.Session(signedInAt: $0[0], lastSeenAt: $0[1]) }
            let devices = try Row.fetchAll(db, sql: """
                SELECT endpoint, createdAt FROM pushSubscription WHERE userId = ? ORDER BY createdAt
                """, arguments: [userId]).map { row in
                PersonalData.Device(pushService: URL(string: row[0] as String)?.host ?? "", addedAt: row[1])
            }
            let managed = try String.fetchAll(db, sql: """
                SELECT s.name FROM managedStore m JOIN store s ON s.id = m.storeId WHERE m.userId = ? ORDER BY s.name
                """, arguments: [userId])
            var departments: [ReservationID: [String]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT rd.reservationId, d.name FROM reservationDepartment rd
                JOIN reservation r ON r.id = rd.reservationId JOIN department d ON d.id = rd.departmentId
                WHERE r.userId = ? ORDER BY d.position
                """, arguments: [userId]) {
                departments[row[0], default: []].append(row[1])
            }
            var messages: [ReservationID: [PersonalData.Message]] = [:]
            for row in try Row.fetchAll(db, sql: """
                SELECT n.reservationId, n.kind, n.reason, n.createdAt, n.dispatchedAt FROM notice n
                JOIN reservation r ON r.id = n.reservationId WHERE r.userId = ? ORDER BY n.createdAt
                """, arguments: [userId]) {
                messages[row[0], default: []].append(
                    PersonalData.Message(kind: row[1], reason: row[2], createdAt: row[3], sentAt: row[4]))
            }
            let visits = try Row.fetchAll(db, sql: """
                SELECT r.\(Reservation.columnList.replacingOccurrences(of: ", ", with: ", r.")), r.pace, s.name AS storeName
                FROM reservation r JOIN store s ON s.id = r.storeId WHERE r.userId = ? ORDER BY r.createdAt
                """, arguments: [userId]).map { row in
                let visit = try Reservation(columnsOf: row)
                return PersonalData.Visit(
                    store: row["storeName"], kind: visit.kind.rawValue, number: visit.number, people: visit.people,
                    declaredMinutes: visit.residenceMinutes, paceFromPastVisits: row["pace"],
                    travelMode: visit.travelMode?.rawValue,
                    travelMetres: visit.travelMetres, slotStart: visit.slotStart, status: visit.status.rawValue,
                    createdAt: visit.createdAt, leftForStoreAt: visit.leftAt, calledAt: visit.calledAt,
                    enteredAt: visit.enteredAt, exitedAt: visit.exitedAt, endedAt: visit.endedAt,
                    remindedAt: visit.remindedAt, confirmedAt: visit.confirmedAt,
                    departments: departments[visit.id] ?? [], messages: messages[visit.id] ?? [])
            }
            let waitingLists = try Row.fetchAll(db, sql: """
                SELECT w.\(WaitlistEntry.columns.replacingOccurrences(of: ", ", with: ", w.")), s.name AS storeName
                FROM waitlist w JOIN store s ON s.id = w.storeId WHERE w.userId = ? ORDER BY w.id
                """, arguments: [userId]).map { row in
                PersonalData.WaitingListPlace(try WaitlistEntry(row: row), store: row["storeName"])
            }
            let emails = try OutboxMessage.filter(OutboxMessage.Columns.recipientKey == LookupKey.recipient(user.email))
                .order(Column("createdAt"), OutboxMessage.Columns.id).fetchAll(db)
                .filter { Self.sameAddress($0.recipient, user.email) }
                .map { PersonalData.Email(subject: $0.subject, createdAt: $0.createdAt, sentAt: $0.sentAt) }
            let failures = try Row.fetchAll(db, sql: """
                SELECT at, clientAddress FROM signInFailure WHERE account = ? ORDER BY at
                """, arguments: [LookupKey.account(user.email)]).map { PersonalData.FailedSignIn(at: $0[0], clientAddress: $0[1]) }
            return PersonalData(exportedAt: now, account: account, sessions: sessions, devices: devices,
                                storesManaged: managed, reservations: visits, waitingLists: waitingLists, emails: emails,
                                failedSignIns: failures)
        }
    }
}
