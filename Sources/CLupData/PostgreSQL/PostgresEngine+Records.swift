import CLupDomain
import Foundation
import PostgresNIO

/// What CLup keeps and gives back on PostgreSQL: retention, a customer's export of their data,
/// and the statistics pages' reads — the same named methods as `AppDatabase+Retention.swift`,
/// `PersonalData.swift` and `StoreHour.swift`.
extension PostgresEngine {
    // MARK: Retention

    func purgePersonalData(now: Date, sessionLifetime: TimeInterval) throws -> Int {
        let batch = Retention.batch
        let steps: [(sql: String, before: Date)] = [
            ("""
             UPDATE reservation SET userId = NULL WHERE id IN (
                 SELECT id FROM reservation WHERE userId IS NOT NULL AND createdAt < $1
                 AND status IN ('done', 'cancelled', 'expired') LIMIT \(batch))
             """, now - Retention.reservations),
            ("DELETE FROM outboxMessage WHERE id IN (SELECT id FROM outboxMessage WHERE sentAt < $1 LIMIT \(batch))",
             now - Retention.sentEmails),
            ("DELETE FROM notice WHERE id IN (SELECT id FROM notice WHERE dispatchedAt < $1 LIMIT \(batch))",
             now - Retention.notices),
            ("DELETE FROM waitlist WHERE id IN (SELECT id FROM waitlist WHERE endedAt < $1 LIMIT \(batch))",
             now - Retention.waitingLists),
            ("DELETE FROM signInFailure WHERE id IN (SELECT id FROM signInFailure WHERE at < $1 LIMIT \(batch))",
             now - Retention.signInFailures),
            ("""
             DELETE FROM emailToken WHERE tokenHash IN (SELECT tokenHash FROM emailToken WHERE expiresAt < $1 LIMIT \(batch))
             """, now - Retention.emailTokens),
            ("DELETE FROM session WHERE idHash IN (SELECT idHash FROM session WHERE createdAt < $1 LIMIT \(batch))",
             now - sessionLifetime),
            ("DELETE FROM formReply WHERE key IN (SELECT key FROM formReply WHERE at < $1 LIMIT \(batch))",
             now - Retention.formReplies),
            ("""
             DELETE FROM scanReceipt WHERE (kioskId, scanId) IN (
                 SELECT kioskId, scanId FROM scanReceipt WHERE receivedAt < $1 LIMIT \(batch))
             """, now - Retention.scanReceipts),
            ("DELETE FROM ticketBlock WHERE id IN (SELECT id FROM ticketBlock WHERE createdAt < $1 LIMIT \(batch))",
             now - Retention.ticketBlocks),
        ]
        var changed = 0
        for step in steps {
            while true {
                var binds = PostgresBindings()
                binds.append(step.before)
                let count = try write { transaction in
                    let count = try transaction.execute(PostgresQuery(unsafeSQL: step.sql, binds: binds))
                    if step.sql.hasPrefix("DELETE FROM session") && count > 0 { transaction.changedCredentials() }
                    return count
                }
                changed += count
                if count < batch { break }
            }
        }
        return changed
    }

    // MARK: A customer's data

    func personalData(userId: UserID, now: Date) throws -> PersonalData? {
        try read { transaction in
            guard let user = try AppDatabase.user(id: userId, transaction.statements) else { return nil }
            let account = PersonalData.Account(user)
            let sessions = try transaction.rows("""
                SELECT createdAt, lastSeenAt FROM session WHERE userId = \(userId) ORDER BY createdAt
                """).map { PersonalData.Session(signedInAt: try $0[0].decode(Date.self), lastSeenAt: try $0[1].decode(Date.self)) }
            let devices = try transaction.rows("""
                SELECT endpoint, createdAt FROM pushSubscription WHERE userId = \(userId) ORDER BY createdAt
                """).map { row in
                PersonalData.Device(pushService: URL(string: try row[0].decode(String.self))?.host ?? "",
                                    addedAt: try row[1].decode(Date.self))
            }
            let managed = try transaction.rows("""
                SELECT s.name FROM managedStore m JOIN store s ON s.id = m.storeId WHERE m.userId = \(userId) ORDER BY s.name
                """).map { try $0[0].decode(String.self) }
            var departments: [ReservationID: [String]] = [:]
            for row in try transaction.rows("""
                SELECT rd.reservationId, d.name FROM reservationDepartment rd
                JOIN reservation r ON r.id = rd.reservationId JOIN department d ON d.id = rd.departmentId
                WHERE r.userId = \(userId) ORDER BY d.position
                """)
            {
                departments[try row[0].decode(ReservationID.self), default: []].append(try row[1].decode(String.self))
            }
            var messages: [ReservationID: [PersonalData.Message]] = [:]
            for row in try transaction.rows("""
                SELECT n.reservationId, n.kind, n.reason, n.createdAt, n.dispatchedAt FROM notice n
                JOIN reservation r ON r.id = n.reservationId WHERE r.userId = \(userId) ORDER BY n.createdAt
                """)
            {
                messages[try row[0].decode(ReservationID.self), default: []].append(PersonalData.Message(
                    kind: try row[1].decode(String.self), reason: try row[2].decode(String?.self),
                    createdAt: try row[3].decode(Date.self), sentAt: try row[4].decode(Date?.self)))
            }
            let visits = try transaction.rows("""
                SELECT r.\(unescaped: Self.reservationColumns.replacingOccurrences(of: ", ", with: ", r.")), r.pace,
                       s.name AS storeName
                FROM reservation r JOIN store s ON s.id = r.storeId WHERE r.userId = \(userId) ORDER BY r.createdAt
                """).map { row in
                let visit = try row.record(Reservation.self)
                return PersonalData.Visit(
                    store: try row[column: "storeName"].decode(String.self), kind: visit.kind.rawValue, number: visit.number,
                    people: visit.people, declaredMinutes: visit.residenceMinutes,
                    paceFromPastVisits: try row[column: "pace"].decode(Double?.self), travelMode: visit.travelMode?.rawValue,
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
                PersonalData.WaitingListPlace(try row.record(WaitlistEntry.self),
                                              store: try row[column: "storeName"].decode(String.self))
            }
            let emails = try transaction.rows("""
                SELECT \(unescaped: AppDatabase.mailColumns) FROM outboxMessage WHERE recipientKey = \(LookupKey.recipient(user.email))
                ORDER BY createdAt, id
                """).map { try $0.record(OutboxMessage.self) }.filter { AppDatabase.sameAddress($0.recipient, user.email) }
                .map { PersonalData.Email(subject: $0.subject, createdAt: $0.createdAt, sentAt: $0.sentAt) }
            let failures = try transaction.rows("""
                SELECT at, clientAddress FROM signInFailure WHERE account = \(LookupKey.account(user.email)) ORDER BY at
                """).map {
                PersonalData.FailedSignIn(at: try $0[0].decode(Date.self), clientAddress: try $0[1].decode(String.self))
            }
            return PersonalData(exportedAt: now, account: account, sessions: sessions, devices: devices,
                                storesManaged: managed, reservations: visits, waitingLists: waitingLists, emails: emails,
                                failedSignIns: failures)
        }
    }

    // MARK: Statistics

    func storeHours(storeId: StoreID, from: Int, to: Int) throws -> [HourTotals] {
        try read { transaction in
            try transaction.rows("""
                SELECT hour, \(unescaped: HourTotals.counterNames.joined(separator: ", ")) FROM storeHour
                WHERE storeId = \(storeId) AND hour BETWEEN \(from) AND \(to) ORDER BY hour
                """).map { row in
                HourTotals(hour: try row[0].decode(Int.self),
                           counters: try (1...HourTotals.counterNames.count).map { try row[$0].decode(Double.self) })
            }
        }
    }

    func departmentEntries(storeId: StoreID, from: Int, to: Int) throws -> [DepartmentEntries] {
        try read { transaction in
            try transaction.rows("""
                SELECT d.id, d.name, COALESCE(SUM(h.entries), 0)::bigint AS entries
                FROM department d LEFT JOIN storeDepartmentHour h
                  ON h.departmentId = d.id AND h.storeId = d.storeId AND h.hour BETWEEN \(from) AND \(to)
                WHERE d.storeId = \(storeId) GROUP BY d.id ORDER BY entries DESC, d.position
                """).map { row in
                DepartmentEntries(departmentId: try row[0].decode(Int64.self), name: try row[1].decode(String.self),
                                  entries: try row[2].decode(Int.self))
            }
        }
    }

    func loyalCustomers(storeId: StoreID, from: Date, to: Date) throws -> [LoyalCustomer] {
        try read { transaction in
            try transaction.rows("""
                SELECT u.displayName, COUNT(*), MAX(r.enteredAt) FROM "user" u
                JOIN reservation r ON r.userId = u.id AND r.storeId = \(storeId)
                WHERE u.loyaltyOptIn AND r.enteredAt IS NOT NULL AND r.enteredAt >= \(from) AND r.enteredAt < \(to)
                GROUP BY u.id ORDER BY u.id
                """).map { row in
                LoyalCustomer(name: try Sealed.open(row[0].decode(String.self)), visits: try row[1].decode(Int.self),
                              lastVisit: try row[2].decode(Date.self))
            }
        }.sorted(by: LoyalCustomer.mostVisitsFirst)
    }

    /// Every store's statistics and learned sums recomputed from the raw visits, as on SQLite
    /// (`StatisticsRebuild`), in one transaction.
    func rebuildStatistics() throws -> Int {
        try write { transaction in
            // Nothing else counts while the history is read and the totals replaced.
            try transaction.execute("LOCK TABLE reservation, storeHour, storeLoad IN SHARE ROW EXCLUSIVE MODE")
            var rebuild = StatisticsRebuild()
            for row in try transaction.rows("""
                SELECT id, storeId, kind, walkIn, people, residenceMinutes, travelMetres, status, createdAt, calledAt,
                       enteredAt, exitedAt, endedAt, expectedEntry, priority
                FROM reservation
                """)
            {
                let facts = try VisitFacts(
                    kind: ReservationKind(rawValue: row[2].decode(String.self)) ?? .lineUp, walkIn: row[3].decode(Bool.self),
                    people: row[4].decode(Int.self), residenceMinutes: row[5].decode(Int.self),
                    travelMetres: row[6].decode(Int?.self),
                    status: ReservationStatus(rawValue: row[7].decode(String.self)) ?? .done,
                    createdAt: row[8].decode(Date.self), calledAt: row[9].decode(Date?.self),
                    enteredAt: row[10].decode(Date?.self), exitedAt: row[11].decode(Date?.self),
                    endedAt: row[12].decode(Date?.self), expectedEntry: row[13].decode(Date?.self),
                    priority: row[14].decode(Bool.self))
                rebuild.add(id: try row[0].decode(Int64.self), storeId: try row[1].decode(StoreID.self), facts: facts)
            }
            let withDepartments = Set(try transaction.rows("SELECT DISTINCT reservationId FROM reservationDepartment")
                .map { try $0[0].decode(Int64.self) })
            let result = rebuild.fold(withDepartments: withDepartments)
            try transaction.execute("DELETE FROM storeHour")
            try transaction.execute("DELETE FROM storeDepartmentHour")
            for (store, totals) in result.hours { try Self.add(totals, storeId: store, transaction) }
            var departmentEntries: [[Int64]: Int] = [:]
            for row in try transaction.rows("""
                SELECT r.storeId, rd.departmentId, rd.reservationId FROM reservationDepartment rd
                JOIN reservation r ON r.id = rd.reservationId
                """)
            {
                if let hour = result.departmentHours[try row[2].decode(Int64.self)] {
                    departmentEntries[[try row[0].decode(Int64.self), try row[1].decode(Int64.self), Int64(hour)], default: 0] += 1
                }
            }
            for (key, entries) in departmentEntries {
                try transaction.execute("""
                    INSERT INTO storeDepartmentHour (storeId, departmentId, hour, entries)
                    VALUES (\(key[0]), \(key[1]), \(key[2]), \(entries))
                    """)
            }
            try transaction.execute(PostgresQuery(unsafeSQL: """
                UPDATE storeLoad SET \(AppDatabase.sumNames.map { "\($0) = 0" }.joined(separator: ", "))
                """))
            for (store, sums) in result.sums {
                var change = LearnedSums.Change()
                change.added = sums
                try Self.apply(change, storeId: store, transaction)
                transaction.changed(loadOf: store)
            }
            for storeId in try transaction.rows("SELECT storeId FROM storeLoad").map({ try $0[0].decode(StoreID.self) }) {
                transaction.changed(loadOf: storeId)
            }
            return result.hours.count
        }
    }

    /// Finished anonymous visits, written at once (the demo's history): one statement, the
    /// columns as arrays.
    func insertFinishedVisits(_ visits: [DemoData.FinishedVisit]) throws {
        guard !visits.isEmpty else { return }
        try write { transaction in
            try transaction.execute("""
                INSERT INTO reservation (storeId, kind, walkIn, day, number, people, residenceMinutes, status, createdAt,
                                         calledAt, enteredAt, exitedAt, endedAt)
                SELECT storeId, 'lineUp', walkIn, day, number, people, minutes, 'done', createdAt, enteredAt, enteredAt,
                       exitedAt, exitedAt
                FROM unnest(\(visits.map(\.storeId.rawValue)), \(visits.map(\.walkIn)), \(visits.map { Int64($0.day) }),
                            \(visits.map { Int64($0.number) }), \(visits.map { Int64($0.people) }),
                            \(visits.map { Int64($0.minutes) }), \(visits.map(\.created)), \(visits.map(\.entered)),
                            \(visits.map(\.exited)))
                    AS v(storeId, walkIn, day, number, people, minutes, createdAt, enteredAt, exitedAt)
                """)
        }
    }
}
