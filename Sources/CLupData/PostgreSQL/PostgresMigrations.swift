import CLupSupport
import Foundation
import Logging

/// The PostgreSQL engine's schema, migration by migration. Like SQLite's, a migration that
/// has shipped is never edited: a change is a new migration at the end.
///
/// Migration 1 is SQLite's schema as it stood at its migration 25, written for PostgreSQL:
/// `bigint` for integers, `double precision`, `boolean`, `timestamptz` for dates, the account
/// table quoted (`user` is a reserved word), an email unique whatever its case (SQLite's
/// COLLATE NOCASE), and the same names otherwise, unquoted, so that PostgreSQL folds them to
/// lower case and the statements can spell them as SQLite's do.
enum PostgresMigrations {
    static let all: [(name: String, sql: String)] = [
        ("schema as of SQLite's migration 25", schema),
        ("mail that no longer matters is not sent (SQLite's 26)", """
            ALTER TABLE outboxMessage ADD COLUMN reservationId bigint REFERENCES reservation(id) ON DELETE SET NULL;
            ALTER TABLE outboxMessage ADD COLUMN noticeKind text
                CHECK (noticeKind IN ('leaveNow', 'yourTurn', 'reminder', 'cancelled', 'expired', 'autoCancelled'));
            CREATE INDEX outboxMessage_unsent_reservation ON outboxMessage(reservationId)
                WHERE sentAt IS NULL AND reservationId IS NOT NULL;
            """),
        ("terms of service accepted (SQLite's 27)", """
            ALTER TABLE "user" ADD COLUMN termsVersion bigint CHECK (termsVersion >= 1);
            ALTER TABLE "user" ADD COLUMN termsAcceptedAt timestamptz;
            """),
        ("personal data sealed at rest (SQLite's 28)", """
            ALTER TABLE "user" DROP CONSTRAINT user_email_check;
            ALTER TABLE "user" DROP CONSTRAINT user_displayname_check;
            DROP INDEX user_email;
            ALTER TABLE "user" ADD COLUMN emailKey text;
            CREATE UNIQUE INDEX user_emailKey ON "user"(emailKey);
            ALTER TABLE doorAction DROP CONSTRAINT dooraction_staffname_check;
            CREATE TABLE dataKeyCheck (id bigint PRIMARY KEY CHECK (id = 1), sealed text NOT NULL);
            """),
        ("scheduled maintenance (SQLite's 29)", """
            CREATE TABLE maintenanceWindow (
                id bigserial PRIMARY KEY,
                startsAt timestamptz NOT NULL,
                endsAt timestamptz NOT NULL,
                announceFrom timestamptz NOT NULL,
                timeZone text NOT NULL CHECK (length(timeZone) BETWEEN 1 AND 64),
                createdAt timestamptz NOT NULL,
                cancelledAt timestamptz,
                CHECK (endsAt > startsAt AND announceFrom <= startsAt)
            );
            CREATE INDEX maintenanceWindow_ends ON maintenanceWindow(endsAt) WHERE cancelledAt IS NULL;
            """),
        ("waiting lists for full slots (SQLite's 30)", """
            CREATE TABLE waitlist (
                id bigserial PRIMARY KEY,
                storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
                userId bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
                slotStart timestamptz NOT NULL,
                people bigint NOT NULL CHECK (people IN (1, 2)),
                residenceMinutes bigint NOT NULL CHECK (residenceMinutes BETWEEN 5 AND 240),
                status text NOT NULL CHECK (status IN ('waiting', 'offered', 'accepted', 'passed', 'left', 'closed')),
                createdAt timestamptz NOT NULL,
                offeredAt timestamptz,
                offerExpiresAt timestamptz,
                endedAt timestamptz,
                reservationId bigint REFERENCES reservation(id) ON DELETE SET NULL,
                requestKey text NOT NULL CHECK (length(requestKey) BETWEEN 16 AND 64),
                CHECK ((status = 'offered') = (offerExpiresAt IS NOT NULL AND endedAt IS NULL)
                       OR status NOT IN ('waiting', 'offered'))
            );
            CREATE UNIQUE INDEX waitlist_oneOpen ON waitlist(userId) WHERE status IN ('waiting', 'offered');
            CREATE INDEX waitlist_open ON waitlist(storeId, slotStart, id) WHERE status IN ('waiting', 'offered');
            CREATE INDEX waitlist_user ON waitlist(userId, id);
            CREATE TABLE waitlistNotice (
                id bigserial PRIMARY KEY,
                waitlistId bigint NOT NULL REFERENCES waitlist(id) ON DELETE CASCADE,
                kind text NOT NULL CHECK (kind IN ('offer', 'passed', 'closed')),
                createdAt timestamptz NOT NULL,
                dispatchedAt timestamptz,
                UNIQUE (waitlistId, kind)
            );
            CREATE INDEX waitlistNotice_pending ON waitlistNotice(id) WHERE dispatchedAt IS NULL;
            """),
        ("priority tickets (SQLite's 31)", """
            ALTER TABLE store ADD COLUMN priorityEvery bigint NOT NULL DEFAULT 0 CHECK (priorityEvery BETWEEN 0 AND 10);
            ALTER TABLE store ADD COLUMN priorityOnline boolean NOT NULL DEFAULT false;
            ALTER TABLE reservation ADD COLUMN priority boolean NOT NULL DEFAULT false;
            ALTER TABLE reservation ADD COLUMN queuePosition bigint;
            ALTER TABLE storeHour ADD COLUMN priorityEntries double precision NOT NULL DEFAULT 0;
            ALTER TABLE storeHour ADD COLUMN priorityWaitSeconds double precision NOT NULL DEFAULT 0;
            ALTER TABLE doorAction DROP CONSTRAINT dooraction_action_check;
            ALTER TABLE doorAction ADD CONSTRAINT dooraction_action_check CHECK (action IN
                ('recall', 'noShow', 'admit', 'letOut', 'leftUnscanned', 'scanRefused', 'offlineConflict', 'priority'));
            """),
        ("fewer reservation indexes to write, slot sums from one (SQLite's 32)", """
            DROP INDEX reservation_on_storeId;
            DROP INDEX reservation_bookedByStore;
            CREATE INDEX reservation_bookedByStore ON reservation(storeId, slotStart) INCLUDE (people)
                WHERE status = 'booked';
            """),
        ("entry errors measured in minutes over the root of the wait (SQLite's 33)", """
            UPDATE storeLoad SET entries = 0, entryErrorSum = 0, entryErrorSquares = 0;
            """),
        ("people inside summed from their index alone (SQLite's 34)", """
            DROP INDEX reservation_inside;
            CREATE INDEX reservation_inside ON reservation(storeId) INCLUDE (people) WHERE status = 'inside';
            """),
        ("mail a form asks for is paced per client (SQLite's 36)", """
            CREATE TABLE mailPace (
                client text PRIMARY KEY CHECK (length(client) <= 64),
                mark timestamptz NOT NULL
            );
            CREATE INDEX mailPace_mark ON mailPace(mark);
            """),
        ("notices whose push was lost go by email (SQLite's 37)", """
            ALTER TABLE pushMessage ADD COLUMN noticeId bigint REFERENCES notice(id) ON DELETE SET NULL;
            ALTER TABLE notice ADD COLUMN emailOnly boolean NOT NULL DEFAULT false;
            ALTER TABLE "user" ADD COLUMN pushLostAt timestamptz;
            """),
        ("door reasons sealed at rest (SQLite's 38)", """
            ALTER TABLE doorAction DROP CONSTRAINT dooraction_reason_check;
            ALTER TABLE doorAction ADD CONSTRAINT dooraction_reason_check CHECK (length(reason) <= 1200);
            """),
        ("an account's door actions and store changes found by its index, as on SQLite (the parity test)", """
            CREATE INDEX doorAction_on_userId ON doorAction(userId);
            CREATE INDEX storeChange_on_userId ON storeChange(userId);
            """),
        ("kiosks watched (SQLite's 39)", """
            CREATE TABLE kioskContact (
                kioskId bigint PRIMARY KEY REFERENCES kiosk(id) ON DELETE CASCADE,
                seenAt timestamptz NOT NULL,
                version text NOT NULL CHECK (length(version) <= 40),
                queued bigint NOT NULL CHECK (queued >= 0),
                clockOffsetMs bigint
            );
            """),
        ("parties as stores allow them (SQLite's 40)", """
            ALTER TABLE store ADD COLUMN largestParty bigint NOT NULL DEFAULT 2 CHECK (largestParty BETWEEN 1 AND 8);
            ALTER TABLE reservation DROP CONSTRAINT reservation_people_check;
            ALTER TABLE reservation ADD CONSTRAINT reservation_people_check CHECK (people BETWEEN 1 AND 8);
            ALTER TABLE waitlist DROP CONSTRAINT waitlist_people_check;
            ALTER TABLE waitlist ADD CONSTRAINT waitlist_people_check CHECK (people BETWEEN 1 AND 8);
            """),
        ("several doors admit offline, each within its lease (SQLite's 41)", """
            CREATE TABLE doorLease (
                kioskId bigint PRIMARY KEY REFERENCES kiosk(id) ON DELETE CASCADE,
                storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
                version bigint NOT NULL DEFAULT 0,
                places bigint NOT NULL DEFAULT 0 CHECK (places >= 0),
                held bigint NOT NULL DEFAULT 0 CHECK (held >= places),
                renewedAt timestamptz
            );
            CREATE INDEX doorLease_store ON doorLease(storeId);
            INSERT INTO doorLease (kioskId, storeId)
            SELECT MIN(id), storeId FROM kiosk WHERE role = 'door' AND revokedAt IS NULL GROUP BY storeId;
            ALTER TABLE doorAction DROP CONSTRAINT dooraction_action_check;
            ALTER TABLE doorAction ADD CONSTRAINT dooraction_action_check CHECK (action IN
                ('recall', 'noShow', 'admit', 'letOut', 'leftUnscanned', 'scanRefused', 'offlineConflict', 'priority',
                 'offlineDoor', 'phoneIn'));
            """),
        ("a walk-in's address for 'it is your turn', until the visit ends (SQLite's 42)", """
            CREATE TABLE walkInContact (
                reservationId bigint PRIMARY KEY REFERENCES reservation(id) ON DELETE CASCADE,
                email text NOT NULL,
                language text NOT NULL CHECK (length(language) <= 8),
                createdAt timestamptz NOT NULL
            );
            """),
        ("each store's version of what the board mirrors (PostgreSQL's own)", storeVersions),
        ("maintenance reaches the customers booked inside it (SQLite's 43)", """
            CREATE TABLE maintenanceNotice (
                id bigserial PRIMARY KEY,
                windowId bigint NOT NULL REFERENCES maintenanceWindow(id) ON DELETE CASCADE,
                reservationId bigint NOT NULL REFERENCES reservation(id) ON DELETE CASCADE,
                kind text NOT NULL CHECK (kind IN ('scheduled', 'cancelled')),
                createdAt timestamptz NOT NULL,
                dispatchedAt timestamptz,
                UNIQUE (windowId, reservationId, kind)
            );
            CREATE INDEX maintenanceNotice_pending ON maintenanceNotice(id) WHERE dispatchedAt IS NULL;
            CREATE INDEX maintenanceNotice_reservation ON maintenanceNotice(reservationId);
            """),
        ("retention as the operator sets it (SQLite's 44)", """
            ALTER TABLE "user" ADD COLUMN lastSignInAt timestamptz;
            ALTER TABLE "user" ADD COLUMN dormantWarnedAt timestamptz;
            UPDATE "user" SET lastSignInAt = COALESCE(
                (SELECT MAX(createdAt) FROM session WHERE session.userId = "user".id), createdAt);
            CREATE INDEX doorAction_at ON doorAction(at);
            CREATE INDEX storeChange_at ON storeChange(at);
            """),
        ("a customer moves their account to a new address (SQLite's 45)", """
            ALTER TABLE emailToken DROP CONSTRAINT emailtoken_purpose_check;
            ALTER TABLE emailToken ADD CONSTRAINT emailtoken_purpose_check
                CHECK (purpose IN ('confirm', 'reset', 'changeEmail'));
            ALTER TABLE emailToken ADD COLUMN newEmail text;
            """),
        ("door staff with accounts and PINs of their own (SQLite's 46)", """
            ALTER TABLE "user" DROP CONSTRAINT user_role_check;
            ALTER TABLE "user" ADD CONSTRAINT user_role_check CHECK (role IN ('customer', 'staff', 'manager', 'admin'));
            CREATE TABLE doorStaff (
                userId bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
                storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
                addedAt timestamptz NOT NULL,
                PRIMARY KEY (userId, storeId)
            );
            CREATE INDEX doorStaff_store ON doorStaff(storeId);
            CREATE TABLE doorPin (
                userId bigint PRIMARY KEY REFERENCES "user"(id) ON DELETE CASCADE,
                pinHash text NOT NULL,
                setAt timestamptz NOT NULL
            );
            """),
        ("support staff help customers, every action logged (SQLite's 47)", """
            ALTER TABLE "user" DROP CONSTRAINT user_role_check;
            ALTER TABLE "user" ADD CONSTRAINT user_role_check
                CHECK (role IN ('customer', 'staff', 'support', 'manager', 'admin'));
            CREATE TABLE supportAction (
                id bigserial PRIMARY KEY,
                staffId bigint REFERENCES "user"(id) ON DELETE SET NULL,
                customerId bigint REFERENCES "user"(id) ON DELETE SET NULL,
                email text NOT NULL,
                action text NOT NULL CHECK (action IN ('lookup', 'cancel', 'close')),
                reservationId bigint REFERENCES reservation(id) ON DELETE SET NULL,
                reason text NOT NULL,
                at timestamptz NOT NULL
            );
            CREATE INDEX supportAction_at ON supportAction(at);
            CREATE INDEX supportAction_customer ON supportAction(customerId);
            CREATE INDEX supportAction_staff ON supportAction(staffId);
            CREATE INDEX supportAction_reservation ON supportAction(reservationId);
            """),
        ("store groups (regions) and their managers (SQLite's 48)", """
            CREATE TABLE storeGroup (
                id bigserial PRIMARY KEY,
                name text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 60),
                createdAt timestamptz NOT NULL
            );
            CREATE TABLE storeGroupMember (
                storeId bigint PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
                groupId bigint NOT NULL REFERENCES storeGroup(id) ON DELETE CASCADE
            );
            CREATE INDEX storeGroupMember_group ON storeGroupMember(groupId);
            CREATE TABLE groupManager (
                userId bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
                groupId bigint NOT NULL REFERENCES storeGroup(id) ON DELETE CASCADE,
                PRIMARY KEY (userId, groupId)
            );
            CREATE INDEX groupManager_group ON groupManager(groupId);
            """),
        ("a store retired for good keeps its history (SQLite's 49)", """
            CREATE TABLE storeRetirement (
                storeId bigint PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
                retiredAt timestamptz NOT NULL,
                reason text NOT NULL CHECK (length(reason) <= 200)
            );
            """),
        ("hours of its own on a special day (SQLite's 50); a retirement raises the store's version", """
            CREATE TABLE specialHours (
                storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
                day bigint NOT NULL,
                opens bigint NOT NULL CHECK (opens BETWEEN 0 AND 1439),
                closes bigint NOT NULL CHECK (closes > opens AND closes <= opens + 1440),
                reason text NOT NULL CHECK (length(reason) <= 100),
                PRIMARY KEY (storeId, day, opens)
            );
            CREATE TRIGGER store_version AFTER INSERT OR UPDATE OR DELETE ON specialHours
                FOR EACH ROW EXECUTE FUNCTION store_version_of_row();
            CREATE TRIGGER store_version AFTER INSERT OR UPDATE OR DELETE ON storeRetirement
                FOR EACH ROW EXECUTE FUNCTION store_version_of_row();
            """),
        // A SQL-language function's body is parsed and planned again at every call (before
        // PostgreSQL 18); a PL/pgSQL one keeps its statements' plans for the connection. The
        // raise ran on every reservation's change: it is now the triggers' own statement.
        ("a store's version raised by a statement planned once per connection", """
            CREATE OR REPLACE FUNCTION store_version_of_row() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                target bigint := CASE WHEN TG_OP = 'DELETE' THEN OLD.storeId ELSE NEW.storeId END;
            BEGIN
                UPDATE storeVersion SET version = version + 1, changedBy = pg_current_xact_id()
                WHERE storeId = target AND changedBy IS DISTINCT FROM pg_current_xact_id();
                RETURN NULL;
            END $$;
            CREATE OR REPLACE FUNCTION store_version_of_store() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF TG_OP = 'INSERT' THEN
                    INSERT INTO storeVersion (storeId) VALUES (NEW.id);
                ELSE
                    UPDATE storeVersion SET version = version + 1, changedBy = pg_current_xact_id()
                    WHERE storeId = NEW.id AND changedBy IS DISTINCT FROM pg_current_xact_id();
                END IF;
                RETURN NULL;
            END $$;
            DROP FUNCTION store_version_raise(bigint);
            """),
        // The guard checks only a row going inside or a booking made: every other insert and
        // change of status (a line-up, a call, an end) called a PL/pgSQL function for nothing.
        ("the capacity guard called only for the rows it checks", """
            DROP TRIGGER reservation_capacity ON reservation;
            CREATE TRIGGER reservation_capacity BEFORE INSERT OR UPDATE OF status ON reservation
                FOR EACH ROW WHEN (NEW.status IN ('inside', 'booked')) EXECUTE FUNCTION reservation_capacity();
            """),
    ]

    /// Each store's version: raised once by every transaction that changes what the board
    /// keeps of the store — its row, hours, closures, departments, learned sums, or a live
    /// column of one of its reservations — and stamped with that transaction's id. A worker
    /// whose board holds a store as committed at the version it reads under the store's lock
    /// decides from the board, without reading the store's rows (`PostgresStatements.traffic`).
    /// The raise locks the version's row until the transaction ends, so the versions of one
    /// store are taken one transaction after another and each is one transaction's changes.
    private static let storeVersions = """
        CREATE TABLE storeVersion (
            storeId bigint PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
            version bigint NOT NULL DEFAULT 0,
            changedBy xid8
        );
        INSERT INTO storeVersion (storeId) SELECT id FROM store;

        CREATE FUNCTION store_version_raise(changed bigint) RETURNS void LANGUAGE sql AS $$
            UPDATE storeVersion SET version = version + 1, changedBy = pg_current_xact_id()
            WHERE storeId = changed AND changedBy IS DISTINCT FROM pg_current_xact_id()
        $$;
        CREATE FUNCTION store_version_of_row() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                PERFORM store_version_raise(OLD.storeId);
            ELSE
                PERFORM store_version_raise(NEW.storeId);
            END IF;
            RETURN NULL;
        END $$;
        CREATE FUNCTION store_version_of_store() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO storeVersion (storeId) VALUES (NEW.id);
            ELSE
                PERFORM store_version_raise(NEW.id);
            END IF;
            RETURN NULL;
        END $$;

        CREATE TRIGGER store_version AFTER INSERT OR UPDATE ON store
            FOR EACH ROW EXECUTE FUNCTION store_version_of_store();
        CREATE TRIGGER store_version AFTER INSERT OR DELETE OR UPDATE OF id, storeId, status, people, residenceMinutes,
            calledAt, enteredAt, slotStart, walkIn, number, day, travelMode, travelMetres, leftAt, pace, priority,
            queuePosition, createdAt ON reservation
            FOR EACH ROW EXECUTE FUNCTION store_version_of_row();
        CREATE TRIGGER store_version AFTER UPDATE ON storeLoad
            FOR EACH ROW EXECUTE FUNCTION store_version_of_row();
        CREATE TRIGGER store_version AFTER INSERT OR UPDATE OR DELETE ON openingInterval
            FOR EACH ROW EXECUTE FUNCTION store_version_of_row();
        CREATE TRIGGER store_version AFTER INSERT OR UPDATE OR DELETE ON storeClosure
            FOR EACH ROW EXECUTE FUNCTION store_version_of_row();
        CREATE TRIGGER store_version AFTER INSERT OR UPDATE OR DELETE ON department
            FOR EACH ROW EXECUTE FUNCTION store_version_of_row();
        """

    /// Brings the schema up to date; several workers starting at once take turns on an
    /// advisory lock, so each migration runs once.
    static func migrate(_ connection: PostgresConnection, schema: String?, logger: Logger) throws {
        let transaction = PostgresTransaction(connection: connection)
        try transaction.execute("BEGIN")
        do {
            try transaction.execute("SELECT pg_advisory_xact_lock(\(lockKey))")
            if let schema { try transaction.execute("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)") }
            try transaction.execute("""
                CREATE TABLE IF NOT EXISTS schemaMigration (
                    version bigint PRIMARY KEY, name text NOT NULL, appliedAt timestamptz NOT NULL DEFAULT now())
                """)
            let applied = try transaction.value("SELECT COALESCE(MAX(version), 0) FROM schemaMigration", as: Int.self) ?? 0
            guard applied <= all.count else {
                throw PostgresPool.Unreachable(description: """
                    the database's schema is at migration \(applied), newer than this worker's \(all.count): \
                    upgrade the worker
                    """)
            }
            for (index, migration) in all.enumerated().dropFirst(applied) {
                for statement in statements(of: migration.sql) {
                    try transaction.execute(unprepared: statement)
                }
                try transaction.execute(
                    "INSERT INTO schemaMigration (version, name) VALUES (\(index + 1), \(migration.name))")
            }
            let sealed = try sealPersonalData(transaction, key: ProcessDataKey.current)
            try transaction.execute("COMMIT")
            if sealed > 0 {
                // The plain values stay in the tables' dead rows until they are rewritten.
                try transaction.execute("VACUUM FULL \"user\", outboxMessage, doorAction, storeChange, signInFailure")
                logger.notice("sealed the personal data of \(sealed) rows written before, and rewrote their tables")
            }
        } catch {
            _ = try? transaction.execute("ROLLBACK")
            throw error
        }
    }

    /// Checks the process's data key against the database (recording it on first use) and
    /// seals the personal values of rows written in clear before (`PersonalColumns`), inside
    /// the migrations' transaction and lock. Returns how many rows it sealed.
    static func sealPersonalData(_ transaction: PostgresTransaction, key: DataKey) throws -> Int {
        if let check = try transaction.value("SELECT sealed FROM dataKeyCheck WHERE id = 1", as: String.self) {
            guard key.open(check) == PersonalColumns.checkText else { throw DataKeyError.wrongKey }
        } else {
            try transaction.execute("INSERT INTO dataKeyCheck (id, sealed) VALUES (1, \(key.seal(PersonalColumns.checkText)))")
        }
        var sealed = 0
        for table in PersonalColumns.tables {
            let assignments = table.written.enumerated().map { "\($0.element) = $\($0.offset + 1)" }.joined(separator: ", ")
            let update = "UPDATE \(table.name) SET \(assignments) WHERE id = $\(table.written.count + 1)"
            for row in try transaction.rows(SQL(stringLiteral: table.select())) {
                let id = try row[0].decode(Int64.self)
                let plain = try table.read.indices.map { try AppDatabase.decode(row[$0 + 1], as: String.self) ?? "" }
                let values = table.values(plain: plain, key: key).map { $0 as any SQLArgument } + [id]
                try transaction.execute(SQL(update.replacing(/\$\d+/, with: "?"), arguments: values))
                sealed += 1
            }
        }
        return sealed
    }

    /// A migration's statements, one by one (each is sent as a statement of its own): split at
    /// each `;` outside a `$$`-quoted function body, comment lines left out.
    static func statements(of sql: String) -> [String] {
        var statements: [String] = []
        var current = ""
        var inBody = false
        for line in sql.split(separator: "\n", omittingEmptySubsequences: false) {
            if !inBody && line.trimmingCharacters(in: .whitespaces).hasPrefix("--") { continue }
            for piece in line.split(separator: "$$", omittingEmptySubsequences: false).enumerated() {
                if piece.offset > 0 {
                    inBody.toggle()
                    current += "$$"
                }
                var text = Substring(piece.element)
                while !inBody, let end = text.firstIndex(of: ";") {
                    current += text[..<end]
                    statements.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
                    current = ""
                    text = text[text.index(after: end)...]
                }
                current += text
            }
            current += "\n"
        }
        if !current.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            statements.append(current.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return statements.filter { !$0.isEmpty }
    }

    /// The advisory lock the migrations hold: any number that no other part of CLup uses.
    static let lockKey = 7_311_001

    private static let schema = """
        CREATE TABLE store (
            id bigserial PRIMARY KEY,
            name text NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
            address text NOT NULL CHECK (length(address) BETWEEN 1 AND 200),
            phone text NOT NULL CHECK (length(phone) <= 40),
            latitude double precision NOT NULL CHECK (latitude BETWEEN -90 AND 90),
            longitude double precision NOT NULL CHECK (longitude BETWEEN -180 AND 180),
            capacity bigint NOT NULL CHECK (capacity BETWEEN 1 AND 10000),
            timeZone text NOT NULL,
            walkInPercent bigint NOT NULL DEFAULT 20 CHECK (walkInPercent BETWEEN 0 AND 90),
            slotMinutes bigint NOT NULL DEFAULT 15 CHECK (slotMinutes IN (10, 15, 20, 30, 60)),
            slotCapacity bigint NOT NULL DEFAULT 1 CHECK (slotCapacity BETWEEN 1 AND 10000),
            entryBeforeMinutes bigint NOT NULL DEFAULT 10 CHECK (entryBeforeMinutes BETWEEN 0 AND 60),
            entryAfterMinutes bigint NOT NULL DEFAULT 15 CHECK (entryAfterMinutes BETWEEN 0 AND 60),
            callGraceMinutes bigint NOT NULL DEFAULT 10 CHECK (callGraceMinutes BETWEEN 1 AND 60)
        );

        CREATE TABLE openingInterval (
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            weekday bigint NOT NULL CHECK (weekday BETWEEN 1 AND 7),
            opens bigint NOT NULL CHECK (opens >= 0 AND opens < 1440),
            closes bigint NOT NULL,
            PRIMARY KEY (storeId, weekday, opens),
            CHECK (closes > opens AND closes <= opens + 1440)
        );

        CREATE TABLE storeClosure (
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            day bigint NOT NULL,
            reason text NOT NULL CHECK (length(reason) <= 100),
            PRIMARY KEY (storeId, day)
        );

        CREATE TABLE department (
            id bigserial PRIMARY KEY,
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            name text NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
            estimatedMinutes bigint NOT NULL CHECK (estimatedMinutes BETWEEN 1 AND 240),
            position bigint NOT NULL,
            retired boolean NOT NULL DEFAULT false,
            UNIQUE (storeId, name)
        );
        CREATE INDEX department_on_storeId ON department(storeId);

        CREATE TABLE "user" (
            id bigserial PRIMARY KEY,
            email text NOT NULL CHECK (length(email) BETWEEN 3 AND 254),
            displayName text NOT NULL CHECK (length(displayName) BETWEEN 1 AND 60),
            passwordHash text NOT NULL,
            role text NOT NULL DEFAULT 'customer' CHECK (role IN ('customer', 'manager', 'admin')),
            emailConfirmedAt timestamptz,
            travelMode text NOT NULL DEFAULT 'walking' CHECK (travelMode IN ('walking', 'car', 'transit')),
            loyaltyOptIn boolean NOT NULL DEFAULT false,
            createdAt timestamptz NOT NULL,
            notifyEmail boolean NOT NULL DEFAULT true,
            notifyPush boolean NOT NULL DEFAULT true,
            language text NOT NULL DEFAULT 'en' CHECK (language IN ('en', 'it'))
        );
        CREATE UNIQUE INDEX user_email ON "user"(lower(email));
        CREATE INDEX user_loyal ON "user"(id) WHERE loyaltyOptIn;

        CREATE TABLE session (
            idHash text PRIMARY KEY,
            userId bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
            csrfToken text NOT NULL,
            createdAt timestamptz NOT NULL,
            lastSeenAt timestamptz NOT NULL
        );
        CREATE INDEX session_on_userId ON session(userId);

        CREATE TABLE emailToken (
            tokenHash text PRIMARY KEY,
            userId bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
            purpose text NOT NULL CHECK (purpose IN ('confirm', 'reset')),
            expiresAt timestamptz NOT NULL,
            usedAt timestamptz
        );
        CREATE INDEX emailToken_on_userId ON emailToken(userId);

        CREATE TABLE signInFailure (
            id bigserial PRIMARY KEY,
            account text NOT NULL,
            clientAddress text NOT NULL,
            at timestamptz NOT NULL
        );
        CREATE INDEX signInFailure_account ON signInFailure(account, at);
        CREATE INDEX signInFailure_client ON signInFailure(clientAddress, at);

        CREATE TABLE managedStore (
            userId bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            PRIMARY KEY (userId, storeId)
        );
        CREATE INDEX managedStore_on_storeId ON managedStore(storeId);

        CREATE TABLE kiosk (
            id bigserial PRIMARY KEY,
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            label text NOT NULL CHECK (length(label) BETWEEN 1 AND 60),
            keyHash text NOT NULL UNIQUE,
            createdAt timestamptz NOT NULL,
            revokedAt timestamptz,
            role text NOT NULL DEFAULT 'door' CHECK (role IN ('dispenser', 'door'))
        );
        CREATE INDEX kiosk_on_storeId ON kiosk(storeId);

        CREATE TABLE staffPin (
            storeId bigint PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
            pinHash text NOT NULL,
            setAt timestamptz NOT NULL,
            setBy bigint REFERENCES "user"(id) ON DELETE SET NULL
        );

        CREATE TABLE reservation (
            id bigserial PRIMARY KEY,
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            userId bigint REFERENCES "user"(id) ON DELETE SET NULL,
            kind text NOT NULL CHECK (kind IN ('lineUp', 'booking')),
            walkIn boolean NOT NULL DEFAULT false,
            day bigint NOT NULL,
            number bigint NOT NULL CHECK (number >= 1),
            people bigint NOT NULL CHECK (people IN (1, 2)),
            residenceMinutes bigint NOT NULL CHECK (residenceMinutes BETWEEN 5 AND 240),
            travelMode text CHECK (travelMode IS NULL OR travelMode IN ('walking', 'car', 'transit')),
            slotStart timestamptz,
            status text NOT NULL
                CHECK (status IN ('waiting', 'called', 'booked', 'inside', 'done', 'cancelled', 'expired')),
            createdAt timestamptz NOT NULL,
            calledAt timestamptz,
            enteredAt timestamptz,
            exitedAt timestamptz,
            endedAt timestamptz,
            requestKey text,
            travelMetres bigint CHECK (travelMetres IS NULL OR travelMetres BETWEEN 0 AND 1000000),
            leftAt timestamptz,
            remindedAt timestamptz,
            confirmedAt timestamptz,
            expectedEntry timestamptz,
            pace double precision,
            UNIQUE (storeId, day, number),
            CHECK ((kind = 'booking') = (slotStart IS NOT NULL)),
            CHECK (NOT (walkIn AND (kind = 'booking' OR userId IS NOT NULL))),
            CHECK (exitedAt IS NULL OR enteredAt IS NOT NULL)
        );
        CREATE INDEX reservation_on_storeId ON reservation(storeId);
        CREATE INDEX reservation_user ON reservation(userId, storeId);
        CREATE UNIQUE INDEX reservation_oneActive ON reservation(userId)
            WHERE status IN ('waiting', 'called', 'booked', 'inside');
        CREATE INDEX reservation_live ON reservation(storeId, id) WHERE status IN ('waiting', 'called', 'inside');
        CREATE INDEX reservation_inside ON reservation(storeId) WHERE status = 'inside';
        CREATE INDEX reservation_booked ON reservation(slotStart, storeId) WHERE status = 'booked';
        CREATE INDEX reservation_bookedByStore ON reservation(storeId, slotStart) WHERE status = 'booked';
        CREATE INDEX reservation_entered ON reservation(storeId, enteredAt) WHERE enteredAt IS NOT NULL;
        CREATE INDEX reservation_request ON reservation(storeId, requestKey) WHERE requestKey IS NOT NULL;
        CREATE INDEX reservation_unanswered ON reservation(slotStart) WHERE status = 'booked' AND confirmedAt IS NULL;

        CREATE TABLE reservationDepartment (
            reservationId bigint NOT NULL REFERENCES reservation(id) ON DELETE CASCADE,
            departmentId bigint NOT NULL REFERENCES department(id) ON DELETE CASCADE,
            PRIMARY KEY (reservationId, departmentId)
        );
        CREATE INDEX reservationDepartment_on_departmentId ON reservationDepartment(departmentId);

        CREATE TABLE notice (
            id bigserial PRIMARY KEY,
            reservationId bigint NOT NULL REFERENCES reservation(id) ON DELETE CASCADE,
            kind text NOT NULL
                CHECK (kind IN ('leaveNow', 'yourTurn', 'reminder', 'cancelled', 'expired', 'autoCancelled')),
            reason text,
            createdAt timestamptz NOT NULL,
            dispatchedAt timestamptz,
            UNIQUE (reservationId, kind)
        );
        CREATE INDEX notice_pending ON notice(id) WHERE dispatchedAt IS NULL;

        CREATE TABLE outboxMessage (
            id bigserial PRIMARY KEY,
            recipient text NOT NULL,
            subject text NOT NULL,
            body text NOT NULL,
            createdAt timestamptz NOT NULL,
            attempts bigint NOT NULL DEFAULT 0,
            nextAttemptAt timestamptz NOT NULL,
            sentAt timestamptz,
            lastError text,
            recipientKey text,
            requestedBy text CHECK (length(requestedBy) <= 64),
            priority bigint NOT NULL DEFAULT 1 CHECK (priority BETWEEN 0 AND 3)
        );
        CREATE INDEX outboxMessage_due ON outboxMessage(priority, id) WHERE sentAt IS NULL;
        CREATE INDEX outboxMessage_pending ON outboxMessage(nextAttemptAt) WHERE sentAt IS NULL;
        CREATE INDEX outboxMessage_recipientKey ON outboxMessage(recipientKey, createdAt);
        CREATE INDEX outboxMessage_requestedBy ON outboxMessage(createdAt, requestedBy) WHERE requestedBy IS NOT NULL;

        CREATE TABLE pushSubscription (
            id bigserial PRIMARY KEY,
            userId bigint NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
            endpoint text NOT NULL UNIQUE CHECK (length(endpoint) BETWEEN 10 AND 1000),
            p256dh text NOT NULL CHECK (length(p256dh) <= 200),
            auth text NOT NULL CHECK (length(auth) <= 100),
            createdAt timestamptz NOT NULL,
            failures bigint NOT NULL DEFAULT 0
        );
        CREATE INDEX pushSubscription_user ON pushSubscription(userId, id);

        CREATE TABLE pushMessage (
            id bigserial PRIMARY KEY,
            pushSubscriptionId bigint NOT NULL REFERENCES pushSubscription(id) ON DELETE CASCADE,
            payload text NOT NULL,
            urgency text NOT NULL,
            createdAt timestamptz NOT NULL,
            expiresAt timestamptz NOT NULL,
            attempts bigint NOT NULL DEFAULT 0,
            nextAttemptAt timestamptz NOT NULL,
            sentAt timestamptz,
            lastError text
        );
        CREATE INDEX pushMessage_on_pushSubscriptionId ON pushMessage(pushSubscriptionId);
        CREATE INDEX pushMessage_pending ON pushMessage(nextAttemptAt) WHERE sentAt IS NULL;

        CREATE TABLE storeChange (
            id bigserial PRIMARY KEY,
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            userId bigint REFERENCES "user"(id) ON DELETE SET NULL,
            at timestamptz NOT NULL,
            field text NOT NULL,
            before text NOT NULL,
            after text NOT NULL
        );
        CREATE INDEX storeChange_store ON storeChange(storeId, at);

        CREATE TABLE doorAction (
            id bigserial PRIMARY KEY,
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            reservationId bigint REFERENCES reservation(id) ON DELETE SET NULL,
            number bigint,
            action text NOT NULL CHECK (action IN
                ('recall', 'noShow', 'admit', 'letOut', 'leftUnscanned', 'scanRefused', 'offlineConflict')),
            reason text NOT NULL CHECK (length(reason) <= 200),
            outcome text NOT NULL,
            userId bigint REFERENCES "user"(id) ON DELETE SET NULL,
            at timestamptz NOT NULL,
            kioskId bigint REFERENCES kiosk(id) ON DELETE SET NULL,
            staffName text CHECK (length(staffName) <= 60)
        );
        CREATE INDEX doorAction_store ON doorAction(storeId, at);
        CREATE INDEX doorAction_kiosk ON doorAction(kioskId, at);
        CREATE INDEX doorAction_on_reservationId ON doorAction(reservationId);

        CREATE TABLE formReply (
            key text PRIMARY KEY CHECK (length(key) <= 64),
            at timestamptz NOT NULL,
            location text CHECK (length(location) <= 2000)
        );
        CREATE INDEX formReply_on_at ON formReply(at);

        CREATE TABLE scanReceipt (
            kioskId bigint NOT NULL REFERENCES kiosk(id) ON DELETE CASCADE,
            scanId text NOT NULL CHECK (length(scanId) BETWEEN 16 AND 64),
            scannedAt timestamptz NOT NULL,
            receivedAt timestamptz NOT NULL,
            answer text NOT NULL,
            PRIMARY KEY (kioskId, scanId)
        );
        CREATE INDEX scanReceipt_received ON scanReceipt(receivedAt);

        CREATE TABLE storeSigningKey (
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            keyId bigint NOT NULL CHECK (keyId BETWEEN 1 AND 65535),
            createdAt timestamptz NOT NULL,
            retiresAt timestamptz,
            PRIMARY KEY (storeId, keyId)
        );

        CREATE TABLE ticketBlock (
            id bigserial PRIMARY KEY,
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            kioskId bigint NOT NULL REFERENCES kiosk(id) ON DELETE CASCADE,
            day bigint NOT NULL,
            firstNumber bigint NOT NULL CHECK (firstNumber >= 1),
            firstReservationId bigint NOT NULL CHECK (firstReservationId >= 1),
            size bigint NOT NULL CHECK (size BETWEEN 1 AND 100),
            createdAt timestamptz NOT NULL
        );
        CREATE UNIQUE INDEX ticketBlock_kiosk_day ON ticketBlock(kioskId, day);
        CREATE INDEX ticketBlock_store_day ON ticketBlock(storeId, day);

        CREATE TABLE storeHour (
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            hour bigint NOT NULL,
            entries double precision NOT NULL DEFAULT 0,
            entryPeople double precision NOT NULL DEFAULT 0,
            lineUps double precision NOT NULL DEFAULT 0,
            walkIns double precision NOT NULL DEFAULT 0,
            bookings double precision NOT NULL DEFAULT 0,
            waitSeconds double precision NOT NULL DEFAULT 0,
            waitCount double precision NOT NULL DEFAULT 0,
            callSeconds double precision NOT NULL DEFAULT 0,
            calls double precision NOT NULL DEFAULT 0,
            doorSeconds double precision NOT NULL DEFAULT 0,
            doorCount double precision NOT NULL DEFAULT 0,
            exits double precision NOT NULL DEFAULT 0,
            declaredSeconds double precision NOT NULL DEFAULT 0,
            actualSeconds double precision NOT NULL DEFAULT 0,
            personSeconds double precision NOT NULL DEFAULT 0,
            peakInside double precision NOT NULL DEFAULT 0,
            noShows double precision NOT NULL DEFAULT 0,
            expiries double precision NOT NULL DEFAULT 0,
            cancellations double precision NOT NULL DEFAULT 0,
            PRIMARY KEY (storeId, hour)
        );

        CREATE TABLE storeDepartmentHour (
            storeId bigint NOT NULL REFERENCES store(id) ON DELETE CASCADE,
            departmentId bigint NOT NULL REFERENCES department(id) ON DELETE CASCADE,
            hour bigint NOT NULL,
            entries bigint NOT NULL DEFAULT 0,
            PRIMARY KEY (storeId, departmentId, hour)
        );
        CREATE INDEX storeDepartmentHour_on_departmentId ON storeDepartmentHour(departmentId);

        CREATE TABLE storeLoad (
            storeId bigint PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
            measuredVisits bigint NOT NULL DEFAULT 0,
            declaredSeconds double precision NOT NULL DEFAULT 0,
            actualSeconds double precision NOT NULL DEFAULT 0,
            logRatioSum double precision NOT NULL DEFAULT 0,
            logRatioSquares double precision NOT NULL DEFAULT 0,
            loggedVisits bigint NOT NULL DEFAULT 0,
            calls bigint NOT NULL DEFAULT 0,
            noShows bigint NOT NULL DEFAULT 0,
            callToDoorSeconds double precision NOT NULL DEFAULT 0,
            atHandEntries bigint NOT NULL DEFAULT 0,
            entries double precision NOT NULL DEFAULT 0,
            entryErrorSum double precision NOT NULL DEFAULT 0,
            entryErrorSquares double precision NOT NULL DEFAULT 0,
            unscannedVisits bigint NOT NULL DEFAULT 0,
            visitsBeforeUnscanned bigint NOT NULL DEFAULT 0
        );

        -- A new store starts with its learned sums at zero and its first signing key.
        CREATE FUNCTION store_created() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            INSERT INTO storeLoad (storeId) VALUES (NEW.id);
            INSERT INTO storeSigningKey (storeId, keyId, createdAt) VALUES (NEW.id, 1, now());
            RETURN NEW;
        END $$;
        CREATE TRIGGER store_created AFTER INSERT ON store FOR EACH ROW EXECUTE FUNCTION store_created();

        -- The engine's own guard on the two capacities, under the store's row lock so that two
        -- transactions cannot both see the last place free: the transactions decide first, in
        -- Swift, and this refuses what they should never have let through.
        CREATE FUNCTION reservation_capacity() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            limits store%ROWTYPE;
        BEGIN
            IF NEW.status = 'inside' AND (TG_OP = 'INSERT' OR OLD.status <> 'inside') THEN
                SELECT * INTO limits FROM store WHERE id = NEW.storeId FOR UPDATE;
                IF NEW.people + (SELECT COALESCE(SUM(people), 0) FROM reservation
                                 WHERE storeId = NEW.storeId AND status = 'inside' AND id <> NEW.id)
                   > limits.capacity THEN
                    RAISE EXCEPTION 'store full' USING ERRCODE = 'check_violation';
                END IF;
            END IF;
            IF TG_OP = 'INSERT' AND NEW.kind = 'booking' AND NEW.status = 'booked' THEN
                SELECT * INTO limits FROM store WHERE id = NEW.storeId FOR UPDATE;
                IF NEW.people + (SELECT COALESCE(SUM(people), 0) FROM reservation
                                 WHERE storeId = NEW.storeId AND status = 'booked' AND slotStart >= NEW.slotStart
                                   AND slotStart < NEW.slotStart + make_interval(mins => limits.slotMinutes::int))
                   > limits.slotCapacity THEN
                    RAISE EXCEPTION 'slot full' USING ERRCODE = 'check_violation';
                END IF;
            END IF;
            RETURN NEW;
        END $$;
        CREATE TRIGGER reservation_capacity BEFORE INSERT OR UPDATE OF status ON reservation
            FOR EACH ROW EXECUTE FUNCTION reservation_capacity();
        """
}
