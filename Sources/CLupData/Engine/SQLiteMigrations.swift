import GRDB

extension AppDatabase {
    /// The schema's history. Migrations are append-only: never edit one that has shipped,
    /// add a new one. Each says what it does in SQL written out here, never built from code
    /// that lives on and may change (a type's cases, a model's constant): a database made
    /// today and one upgraded from any version must get the same schema (`SchemaTests`,
    /// against `Tests/CLupTests/Schema/schema.sql`). The schema itself backs the rules (CHECK,
    /// UNIQUE, foreign keys).
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()

        migrator.registerMigration("v1: stores, opening hours, departments") { db in
            try db.create(table: "store") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("name", .text).notNull().check { length($0) >= 1 && length($0) <= 100 }
                t.column("address", .text).notNull().check { length($0) >= 1 && length($0) <= 200 }
                t.column("phone", .text).notNull().check { length($0) <= 40 }
                t.column("latitude", .double).notNull().check { $0 >= -90 && $0 <= 90 }
                t.column("longitude", .double).notNull().check { $0 >= -180 && $0 <= 180 }
                t.column("capacity", .integer).notNull().check { $0 >= 1 && $0 <= 10_000 }
                t.column("timeZone", .text).notNull()
            }
            try db.create(table: "openingInterval") { t in
                t.belongsTo("store", onDelete: .cascade).notNull()
                t.column("weekday", .integer).notNull().check { $0 >= 1 && $0 <= 7 }
                t.column("opens", .integer).notNull().check { $0 >= 0 && $0 < 1440 }
                t.column("closes", .integer).notNull()
                t.check(sql: "closes > opens AND closes <= opens + 1440")
                t.primaryKey(["storeId", "weekday", "opens"])
            }
            try db.create(table: "department") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("store", onDelete: .cascade).notNull()
                t.column("name", .text).notNull().check { length($0) >= 1 && length($0) <= 60 }
                t.column("estimatedMinutes", .integer).notNull().check { $0 >= 1 && $0 <= 240 }
                t.column("position", .integer).notNull()
                t.uniqueKey(["storeId", "name"])
            }
        }

        migrator.registerMigration("v2: accounts, sessions, email tokens, outbox, sign-in failures, roles, kiosks") { db in
            try db.create(table: "user") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("email", .text).notNull().unique(onConflict: .abort).collate(.nocase)
                    .check { length($0) >= 3 && length($0) <= 254 }
                t.column("displayName", .text).notNull().check { length($0) >= 1 && length($0) <= 60 }
                t.column("passwordHash", .text).notNull()
                t.column("role", .text).notNull().defaults(to: "customer")
                    .check { ["customer", "manager", "admin"].contains($0) }
                t.column("emailConfirmedAt", .datetime)
                t.column("travelMode", .text).notNull().defaults(to: "walking")
                    .check { ["walking", "car", "transit"].contains($0) }
                t.column("loyaltyOptIn", .boolean).notNull().defaults(to: false)
                t.column("createdAt", .datetime).notNull()
            }
            // The session id itself is never stored: only its SHA-256, so a copy of the
            // database cannot be used to sign in.
            try db.create(table: "session") { t in
                t.primaryKey("idHash", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("csrfToken", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("lastSeenAt", .datetime).notNull()
            }
            try db.create(table: "emailToken") { t in
                t.primaryKey("tokenHash", .text)
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.column("purpose", .text).notNull().check { ["confirm", "reset"].contains($0) }
                t.column("expiresAt", .datetime).notNull()
                t.column("usedAt", .datetime)
            }
            try db.create(table: "outboxMessage") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("recipient", .text).notNull()
                t.column("subject", .text).notNull()
                t.column("body", .text).notNull()
                t.column("createdAt", .datetime).notNull()
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("nextAttemptAt", .datetime).notNull()
                t.column("sentAt", .datetime)
                t.column("lastError", .text)
            }
            try db.create(index: "outboxMessage_pending", on: "outboxMessage", columns: ["nextAttemptAt"],
                          condition: Column("sentAt") == nil)
            // Failed sign-ins, by the address typed (known or not, so throttling says nothing
            // about which accounts exist) and by client address.
            try db.create(table: "signInFailure") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("account", .text).notNull()
                t.column("clientAddress", .text).notNull()
                t.column("at", .datetime).notNull()
            }
            try db.create(index: "signInFailure_account", on: "signInFailure", columns: ["account", "at"])
            try db.create(index: "signInFailure_client", on: "signInFailure", columns: ["clientAddress", "at"])
            try db.create(table: "managedStore") { t in
                t.belongsTo("user", onDelete: .cascade).notNull()
                t.belongsTo("store", onDelete: .cascade).notNull()
                t.primaryKey(["userId", "storeId"])
            }
            try db.create(table: "kiosk") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("store", onDelete: .cascade).notNull()
                t.column("label", .text).notNull().check { length($0) >= 1 && length($0) <= 60 }
                t.column("keyHash", .text).notNull().unique()
                t.column("createdAt", .datetime).notNull()
                t.column("revokedAt", .datetime)
            }
        }

        migrator.registerMigration("v3: reservation settings, reservations, store load") { db in
            try db.execute(sql: """
                -- Each store's reservation rules, with the defaults `StoreSettings` had when this shipped.
                ALTER TABLE "store" ADD COLUMN "walkInPercent" INTEGER NOT NULL CHECK (("walkInPercent" >= 0) AND ("walkInPercent" <= 90)) DEFAULT 20;
                ALTER TABLE "store" ADD COLUMN "slotMinutes" INTEGER NOT NULL CHECK ("slotMinutes" IN (10, 15, 20, 30, 60)) DEFAULT 15;
                ALTER TABLE "store" ADD COLUMN "slotCapacity" INTEGER NOT NULL CHECK (("slotCapacity" >= 1) AND ("slotCapacity" <= 10000)) DEFAULT 1;
                ALTER TABLE "store" ADD COLUMN "entryBeforeMinutes" INTEGER NOT NULL CHECK (("entryBeforeMinutes" >= 0) AND ("entryBeforeMinutes" <= 60)) DEFAULT 10;
                ALTER TABLE "store" ADD COLUMN "entryAfterMinutes" INTEGER NOT NULL CHECK (("entryAfterMinutes" >= 0) AND ("entryAfterMinutes" <= 60)) DEFAULT 15;
                ALTER TABLE "store" ADD COLUMN "callGraceMinutes" INTEGER NOT NULL CHECK (("callGraceMinutes" >= 1) AND ("callGraceMinutes" <= 60)) DEFAULT 10;
                -- The same formula as `StoreSettings.defaultSlotCapacity`.
                UPDATE store SET slotCapacity = MAX(1, (capacity - capacity * walkInPercent / 100) * slotMinutes / 120);
                -- Deleting an account keeps its visits for the store's statistics, anonymous. Ticket
                -- numbers are unique per store and day.
                CREATE TABLE "reservation" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "userId" INTEGER REFERENCES "user"("id") ON DELETE SET NULL, "kind" TEXT NOT NULL CHECK ("kind" IN ('lineUp', 'booking')), "walkIn" BOOLEAN NOT NULL DEFAULT 0, "day" INTEGER NOT NULL, "number" INTEGER NOT NULL CHECK ("number" >= 1), "people" INTEGER NOT NULL CHECK (("people" = 1) OR ("people" = 2)), "residenceMinutes" INTEGER NOT NULL CHECK (("residenceMinutes" >= 5) AND ("residenceMinutes" <= 240)), "travelMode" TEXT CHECK (("travelMode" IS NULL) OR ("travelMode" IN ('walking', 'car', 'transit'))), "slotStart" DATETIME, "status" TEXT NOT NULL CHECK ("status" IN ('waiting', 'called', 'booked', 'inside', 'done', 'cancelled', 'expired')), "createdAt" DATETIME NOT NULL, "calledAt" DATETIME, "enteredAt" DATETIME, "exitedAt" DATETIME, "endedAt" DATETIME, "requestKey" TEXT, UNIQUE ("storeId", "day", "number"), CHECK ((kind = 'booking') = (slotStart IS NOT NULL)), CHECK (NOT (walkIn AND (kind = 'booking' OR userId IS NOT NULL))), CHECK (exitedAt IS NULL OR enteredAt IS NOT NULL));
                CREATE INDEX "reservation_on_storeId" ON "reservation"("storeId");
                CREATE INDEX "reservation_on_userId" ON "reservation"("userId");
                -- One active reservation per customer (R13); walk-ins have no user and are exempt.
                CREATE UNIQUE INDEX reservation_oneActive ON reservation(userId) WHERE status IN ('waiting', 'called', 'booked', 'inside');
                -- What the wait estimate reads: queues and people inside, never the history.
                CREATE INDEX reservation_live ON reservation(storeId, id) WHERE status IN ('waiting', 'called', 'inside');
                CREATE INDEX reservation_booked ON reservation(slotStart, storeId) WHERE status = 'booked';
                CREATE INDEX "reservation_user" ON "reservation"("userId", "storeId");
                -- A slot never over its booking capacity (R16): the booking handler checks first to
                -- answer with alternatives; this is the schema's guarantee whatever writes.
                CREATE TRIGGER reservation_slotCapacity BEFORE INSERT ON reservation
                WHEN NEW.kind = 'booking' AND NEW.status = 'booked'
                BEGIN
                    SELECT RAISE(ABORT, 'slot full')
                    WHERE NEW.people + (SELECT COALESCE(SUM(people), 0) FROM reservation
                                        WHERE storeId = NEW.storeId AND slotStart = NEW.slotStart AND status = 'booked')
                          > (SELECT slotCapacity FROM store WHERE id = NEW.storeId);
                END;
                -- Each store's measured visits, for the wait estimate.
                CREATE TABLE "storeLoad" ("storeId" INTEGER PRIMARY KEY REFERENCES "store"("id") ON DELETE CASCADE, "measuredVisits" INTEGER NOT NULL DEFAULT 0, "declaredSeconds" DOUBLE NOT NULL DEFAULT 0, "actualSeconds" DOUBLE NOT NULL DEFAULT 0);
                INSERT INTO storeLoad(storeId) SELECT id FROM store;
                CREATE TRIGGER store_load AFTER INSERT ON store
                BEGIN INSERT INTO storeLoad(storeId) VALUES (NEW.id); END;
                CREATE TRIGGER reservation_measured AFTER UPDATE OF exitedAt ON reservation
                WHEN OLD.exitedAt IS NULL AND NEW.exitedAt IS NOT NULL AND NEW.enteredAt IS NOT NULL
                BEGIN
                    UPDATE storeLoad SET
                        measuredVisits = measuredVisits + 1,
                        declaredSeconds = declaredSeconds + NEW.residenceMinutes * 60,
                        actualSeconds = actualSeconds + (julianday(NEW.exitedAt) - julianday(NEW.enteredAt)) * 86400
                    WHERE storeId = NEW.storeId;
                END;
                """)
        }

        migrator.registerMigration("v4: the entrance's capacity, walk-in request keys") { db in
            // No store ever holds more people than its capacity (SPEC rules): the scan checks
            // first to answer with the count; this is the schema's guarantee whatever writes.
            // `status IN (…)` repeats the partial index's condition so SQLite can use it.
            let overCapacity = """
                SELECT RAISE(ABORT, 'store full')
                WHERE NEW.people + (SELECT COALESCE(SUM(people), 0) FROM reservation
                                    WHERE storeId = NEW.storeId AND status IN ('waiting', 'called', 'inside')
                                      AND status = 'inside')
                      > (SELECT capacity FROM store WHERE id = NEW.storeId);
                """
            try db.execute(sql: """
                CREATE TRIGGER reservation_capacity BEFORE UPDATE OF status ON reservation
                WHEN NEW.status = 'inside' AND OLD.status <> 'inside'
                BEGIN \(overCapacity) END;
                CREATE TRIGGER reservation_capacityOnInsert BEFORE INSERT ON reservation
                WHEN NEW.status = 'inside'
                BEGIN \(overCapacity) END;
                """)
            // A kiosk's ticket form sent twice (a double tap, a retry) prints one ticket.
            try db.execute(sql: """
                CREATE INDEX reservation_request ON reservation(storeId, requestKey) WHERE requestKey IS NOT NULL
                """)
        }

        migrator.registerMigration("v5: one store's bookings by slot") { db in
            // With only `reservation_booked (slotStart, storeId)`, SQLite answered "this store's
            // bookings around this time" through the index on storeId alone, reading the store's
            // whole history: the benchmark saw one store's estimate grow 30-fold from 10^4 to
            // 10^6 past visits. Two equalities (store, status) and a range on the slot beat that.
            try db.execute(sql: """
                CREATE INDEX reservation_bookedByStore ON reservation(storeId, slotStart) WHERE status = 'booked'
                """)
        }

        migrator.registerMigration("v6: travel, departures, booking replies, notifications, push subscriptions") { db in
            try db.execute(sql: """
                -- How far the customer was from the store when they lined up: with the means of
                -- transport, their travel time (changeable from the ticket).
                ALTER TABLE "reservation" ADD COLUMN "travelMetres" INTEGER CHECK (("travelMetres" IS NULL) OR (("travelMetres" >= 0) AND ("travelMetres" <= 1000000)));
                -- When the customer was told to leave for the store.
                ALTER TABLE "reservation" ADD COLUMN "leftAt" DATETIME;
                -- A booking's reminder, and the customer's answer to it.
                ALTER TABLE "reservation" ADD COLUMN "remindedAt" DATETIME;
                ALTER TABLE "reservation" ADD COLUMN "confirmedAt" DATETIME;
                ALTER TABLE "user" ADD COLUMN "notifyEmail" BOOLEAN NOT NULL DEFAULT 1;
                ALTER TABLE "user" ADD COLUMN "notifyPush" BOOLEAN NOT NULL DEFAULT 1;
                -- Reservation events to tell the customer about, written in the transaction that
                -- makes the event, at most one of each kind per reservation. Dispatching one turns
                -- it into an email in the outbox and a push message per subscribed browser, in one
                -- transaction.
                CREATE TABLE "notice" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "reservationId" INTEGER NOT NULL REFERENCES "reservation"("id") ON DELETE CASCADE, "kind" TEXT NOT NULL CHECK ("kind" IN ('leaveNow', 'yourTurn', 'reminder', 'cancelled', 'expired', 'autoCancelled')), "reason" TEXT, "createdAt" DATETIME NOT NULL, "dispatchedAt" DATETIME, UNIQUE ("reservationId", "kind"));
                CREATE INDEX "notice_on_reservationId" ON "notice"("reservationId");
                CREATE INDEX "notice_pending" ON "notice"("id") WHERE "dispatchedAt" IS NULL;
                -- Bookings awaiting a reminder or an answer to it, by slot.
                CREATE INDEX reservation_unanswered ON reservation(slotStart) WHERE status = 'booked' AND confirmedAt IS NULL;
                CREATE TABLE "pushSubscription" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "userId" INTEGER NOT NULL REFERENCES "user"("id") ON DELETE CASCADE, "endpoint" TEXT NOT NULL UNIQUE ON CONFLICT REPLACE CHECK ((LENGTH("endpoint") >= 10) AND (LENGTH("endpoint") <= 1000)), "p256dh" TEXT NOT NULL CHECK (LENGTH("p256dh") <= 200), "auth" TEXT NOT NULL CHECK (LENGTH("auth") <= 100), "createdAt" DATETIME NOT NULL);
                CREATE INDEX "pushSubscription_on_userId" ON "pushSubscription"("userId");
                CREATE TABLE "pushMessage" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "pushSubscriptionId" INTEGER NOT NULL REFERENCES "pushSubscription"("id") ON DELETE CASCADE, "payload" TEXT NOT NULL, "urgency" TEXT NOT NULL, "createdAt" DATETIME NOT NULL, "expiresAt" DATETIME NOT NULL, "attempts" INTEGER NOT NULL DEFAULT 0, "nextAttemptAt" DATETIME NOT NULL, "sentAt" DATETIME, "lastError" TEXT);
                CREATE INDEX "pushMessage_on_pushSubscriptionId" ON "pushMessage"("pushSubscriptionId");
                CREATE INDEX "pushMessage_pending" ON "pushMessage"("nextAttemptAt") WHERE "sentAt" IS NULL;
                """)
        }

        migrator.registerMigration("v7: departments chosen, statistics kept per store and hour") { db in
            try db.execute(sql: """
                -- The departments a customer said they would visit (the wizard's first step), for
                -- the stores' department influx.
                CREATE TABLE "reservationDepartment" ("reservationId" INTEGER NOT NULL REFERENCES "reservation"("id") ON DELETE CASCADE, "departmentId" INTEGER NOT NULL REFERENCES "department"("id") ON DELETE CASCADE, PRIMARY KEY ("reservationId", "departmentId"));
                CREATE INDEX "reservationDepartment_on_reservationId" ON "reservationDepartment"("reservationId");
                CREATE INDEX "reservationDepartment_on_departmentId" ON "reservationDepartment"("departmentId");
                -- Statistics per store and hour (hours since 1970, UTC: each maps to one local hour of
                -- any whole-hour zone), kept by the triggers below as visits happen.
                CREATE TABLE "storeHour" ("storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "hour" INTEGER NOT NULL, "entries" DOUBLE NOT NULL DEFAULT 0, "entryPeople" DOUBLE NOT NULL DEFAULT 0, "lineUps" DOUBLE NOT NULL DEFAULT 0, "walkIns" DOUBLE NOT NULL DEFAULT 0, "bookings" DOUBLE NOT NULL DEFAULT 0, "waitSeconds" DOUBLE NOT NULL DEFAULT 0, "waitCount" DOUBLE NOT NULL DEFAULT 0, "callSeconds" DOUBLE NOT NULL DEFAULT 0, "calls" DOUBLE NOT NULL DEFAULT 0, "doorSeconds" DOUBLE NOT NULL DEFAULT 0, "doorCount" DOUBLE NOT NULL DEFAULT 0, "exits" DOUBLE NOT NULL DEFAULT 0, "declaredSeconds" DOUBLE NOT NULL DEFAULT 0, "actualSeconds" DOUBLE NOT NULL DEFAULT 0, "personSeconds" DOUBLE NOT NULL DEFAULT 0, "peakInside" DOUBLE NOT NULL DEFAULT 0, "noShows" DOUBLE NOT NULL DEFAULT 0, "expiries" DOUBLE NOT NULL DEFAULT 0, "cancellations" DOUBLE NOT NULL DEFAULT 0, PRIMARY KEY ("storeId", "hour"));
                CREATE INDEX "storeHour_on_storeId" ON "storeHour"("storeId");
                CREATE TABLE "storeDepartmentHour" ("storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "departmentId" INTEGER NOT NULL REFERENCES "department"("id") ON DELETE CASCADE, "hour" INTEGER NOT NULL, "entries" INTEGER NOT NULL DEFAULT 0, PRIMARY KEY ("storeId", "departmentId", "hour"));
                CREATE INDEX "storeDepartmentHour_on_storeId" ON "storeDepartmentHour"("storeId");
                CREATE INDEX "storeDepartmentHour_on_departmentId" ON "storeDepartmentHour"("departmentId");
                CREATE TRIGGER reservation_statsEntry AFTER UPDATE OF status ON reservation
                WHEN NEW.status = 'inside' AND OLD.status <> 'inside' AND NEW.enteredAt IS NOT NULL
                BEGIN
                INSERT INTO storeHour (storeId, hour, entries, entryPeople, lineUps, walkIns, bookings, waitSeconds, waitCount, doorSeconds, doorCount, peakInside)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600), 1, NEW.people, NEW.kind = 'lineUp' AND NOT NEW.walkIn, NEW.walkIn, NEW.kind = 'booking', CASE WHEN NEW.kind = 'lineUp' THEN ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3) - ROUND((julianday(NEW.createdAt) - 2440587.5) * 86400.0, 3) ELSE 0 END, NEW.kind = 'lineUp', CASE WHEN NEW.calledAt IS NOT NULL THEN ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3) - ROUND((julianday(NEW.calledAt) - 2440587.5) * 86400.0, 3) ELSE 0 END, NEW.calledAt IS NOT NULL, (SELECT COALESCE(SUM(people), 0) FROM reservation WHERE storeId = NEW.storeId AND status = 'inside') WHERE true
                ON CONFLICT(storeId, hour) DO UPDATE SET entries = entries + excluded.entries, entryPeople = entryPeople + excluded.entryPeople, lineUps = lineUps + excluded.lineUps, walkIns = walkIns + excluded.walkIns, bookings = bookings + excluded.bookings, waitSeconds = waitSeconds + excluded.waitSeconds, waitCount = waitCount + excluded.waitCount, doorSeconds = doorSeconds + excluded.doorSeconds, doorCount = doorCount + excluded.doorCount, peakInside = MAX(peakInside, excluded.peakInside);
                INSERT INTO storeDepartmentHour (storeId, departmentId, hour, entries)
                SELECT NEW.storeId, departmentId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600), 1 FROM reservationDepartment WHERE reservationId = NEW.id
                ON CONFLICT(storeId, departmentId, hour) DO UPDATE SET entries = entries + 1;
                END;
                CREATE TRIGGER reservation_statsCall AFTER UPDATE OF status ON reservation
                WHEN NEW.status = 'called' AND OLD.status <> 'called' AND NEW.calledAt IS NOT NULL
                BEGIN
                INSERT INTO storeHour (storeId, hour, calls, callSeconds)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.calledAt) AS INTEGER) / 3600), 1, ROUND((julianday(NEW.calledAt) - 2440587.5) * 86400.0, 3) - ROUND((julianday(NEW.createdAt) - 2440587.5) * 86400.0, 3) WHERE true
                ON CONFLICT(storeId, hour) DO UPDATE SET calls = calls + excluded.calls, callSeconds = callSeconds + excluded.callSeconds;
                END;
                CREATE TRIGGER reservation_statsExit AFTER UPDATE OF exitedAt ON reservation
                WHEN OLD.exitedAt IS NULL AND NEW.exitedAt IS NOT NULL AND NEW.enteredAt IS NOT NULL
                BEGIN
                INSERT INTO storeHour (storeId, hour, exits, declaredSeconds, actualSeconds)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600), 1, NEW.residenceMinutes * 60.0, ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3) - ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3) WHERE true
                ON CONFLICT(storeId, hour) DO UPDATE SET exits = exits + excluded.exits, declaredSeconds = declaredSeconds + excluded.declaredSeconds, actualSeconds = actualSeconds + excluded.actualSeconds;
                INSERT INTO storeHour (storeId, hour, personSeconds)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 0, NEW.people * (MIN(ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 0) * 3600.0) + 3600.0) - MAX(ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 0) * 3600.0))) WHERE (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 0) * 3600.0) < ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3)
                ON CONFLICT(storeId, hour) DO UPDATE SET personSeconds = personSeconds + excluded.personSeconds;
                INSERT INTO storeHour (storeId, hour, personSeconds)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 1, NEW.people * (MIN(ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 1) * 3600.0) + 3600.0) - MAX(ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 1) * 3600.0))) WHERE (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 1) * 3600.0) < ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3)
                ON CONFLICT(storeId, hour) DO UPDATE SET personSeconds = personSeconds + excluded.personSeconds;
                INSERT INTO storeHour (storeId, hour, personSeconds)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 2, NEW.people * (MIN(ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 2) * 3600.0) + 3600.0) - MAX(ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 2) * 3600.0))) WHERE (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 2) * 3600.0) < ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3)
                ON CONFLICT(storeId, hour) DO UPDATE SET personSeconds = personSeconds + excluded.personSeconds;
                INSERT INTO storeHour (storeId, hour, personSeconds)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 3, NEW.people * (MIN(ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 3) * 3600.0) + 3600.0) - MAX(ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 3) * 3600.0))) WHERE (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 3) * 3600.0) < ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3)
                ON CONFLICT(storeId, hour) DO UPDATE SET personSeconds = personSeconds + excluded.personSeconds;
                INSERT INTO storeHour (storeId, hour, personSeconds)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 4, NEW.people * (MIN(ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 4) * 3600.0) + 3600.0) - MAX(ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 4) * 3600.0))) WHERE (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 4) * 3600.0) < ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3)
                ON CONFLICT(storeId, hour) DO UPDATE SET personSeconds = personSeconds + excluded.personSeconds;
                INSERT INTO storeHour (storeId, hour, personSeconds)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 5, NEW.people * (MIN(ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 5) * 3600.0) + 3600.0) - MAX(ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 5) * 3600.0))) WHERE (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 5) * 3600.0) < ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3)
                ON CONFLICT(storeId, hour) DO UPDATE SET personSeconds = personSeconds + excluded.personSeconds;
                INSERT INTO storeHour (storeId, hour, personSeconds)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 6, NEW.people * (MIN(ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 6) * 3600.0) + 3600.0) - MAX(ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 6) * 3600.0))) WHERE (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 6) * 3600.0) < ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3)
                ON CONFLICT(storeId, hour) DO UPDATE SET personSeconds = personSeconds + excluded.personSeconds;
                INSERT INTO storeHour (storeId, hour, personSeconds)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 7, NEW.people * (MIN(ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 7) * 3600.0) + 3600.0) - MAX(ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3), (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 7) * 3600.0))) WHERE (((CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600) + 7) * 3600.0) < ROUND((julianday(NEW.exitedAt) - 2440587.5) * 86400.0, 3)
                ON CONFLICT(storeId, hour) DO UPDATE SET personSeconds = personSeconds + excluded.personSeconds;
                END;
                CREATE TRIGGER reservation_statsEnd AFTER UPDATE OF status ON reservation
                WHEN NEW.status IN ('expired', 'cancelled') AND OLD.status <> NEW.status AND NEW.endedAt IS NOT NULL
                BEGIN
                INSERT INTO storeHour (storeId, hour, noShows, expiries, cancellations)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.endedAt) AS INTEGER) / 3600), NEW.status = 'expired' AND NEW.kind = 'booking', NEW.status = 'expired' AND NEW.kind = 'lineUp', NEW.status = 'cancelled' WHERE true
                ON CONFLICT(storeId, hour) DO UPDATE SET noShows = noShows + excluded.noShows, expiries = expiries + excluded.expiries, cancellations = cancellations + excluded.cancellations;
                END;
                -- Visits by store and entry time: the loyal customers' counts read a date range.
                CREATE INDEX reservation_entered ON reservation(storeId, enteredAt) WHERE enteredAt IS NOT NULL;
                """)
        }

        migrator.registerMigration("v8: people inside through an index of their own") { db in
            try db.execute(sql: """
                -- Counting a store's people inside went through `reservation_live`, which also holds
                -- its queue: at a store with 10,000 waiting, every entry's capacity check (and its
                -- statistics' peak) read 10,000 rows. This index holds the people inside only.
                CREATE INDEX reservation_inside ON reservation(storeId) WHERE status = 'inside';
                DROP TRIGGER reservation_capacity;
                DROP TRIGGER reservation_capacityOnInsert;
                CREATE TRIGGER reservation_capacity BEFORE UPDATE OF status ON reservation
                WHEN NEW.status = 'inside' AND OLD.status <> 'inside'
                BEGIN SELECT RAISE(ABORT, 'store full')
                WHERE NEW.people + (SELECT COALESCE(SUM(people), 0) FROM reservation
                                    WHERE storeId = NEW.storeId AND status = 'inside')
                      > (SELECT capacity FROM store WHERE id = NEW.storeId); END;
                CREATE TRIGGER reservation_capacityOnInsert BEFORE INSERT ON reservation
                WHEN NEW.status = 'inside'
                BEGIN SELECT RAISE(ABORT, 'store full')
                WHERE NEW.people + (SELECT COALESCE(SUM(people), 0) FROM reservation
                                    WHERE storeId = NEW.storeId AND status = 'inside')
                      > (SELECT capacity FROM store WHERE id = NEW.storeId); END;
                DROP TRIGGER reservation_statsEntry;
                CREATE TRIGGER reservation_statsEntry AFTER UPDATE OF status ON reservation
                WHEN NEW.status = 'inside' AND OLD.status <> 'inside' AND NEW.enteredAt IS NOT NULL
                BEGIN
                INSERT INTO storeHour (storeId, hour, entries, entryPeople, lineUps, walkIns, bookings, waitSeconds, waitCount, doorSeconds, doorCount, peakInside)
                SELECT NEW.storeId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600), 1, NEW.people, NEW.kind = 'lineUp' AND NOT NEW.walkIn, NEW.walkIn, NEW.kind = 'booking', CASE WHEN NEW.kind = 'lineUp' THEN ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3) - ROUND((julianday(NEW.createdAt) - 2440587.5) * 86400.0, 3) ELSE 0 END, NEW.kind = 'lineUp', CASE WHEN NEW.calledAt IS NOT NULL THEN ROUND((julianday(NEW.enteredAt) - 2440587.5) * 86400.0, 3) - ROUND((julianday(NEW.calledAt) - 2440587.5) * 86400.0, 3) ELSE 0 END, NEW.calledAt IS NOT NULL, (SELECT COALESCE(SUM(people), 0) FROM reservation WHERE storeId = NEW.storeId AND status = 'inside') WHERE true
                ON CONFLICT(storeId, hour) DO UPDATE SET entries = entries + excluded.entries, entryPeople = entryPeople + excluded.entryPeople, lineUps = lineUps + excluded.lineUps, walkIns = walkIns + excluded.walkIns, bookings = bookings + excluded.bookings, waitSeconds = waitSeconds + excluded.waitSeconds, waitCount = waitCount + excluded.waitCount, doorSeconds = doorSeconds + excluded.doorSeconds, doorCount = doorCount + excluded.doorCount, peakInside = MAX(peakInside, excluded.peakInside);
                INSERT INTO storeDepartmentHour (storeId, departmentId, hour, entries)
                SELECT NEW.storeId, departmentId, (CAST(strftime('%s', NEW.enteredAt) AS INTEGER) / 3600), 1 FROM reservationDepartment WHERE reservationId = NEW.id
                ON CONFLICT(storeId, departmentId, hour) DO UPDATE SET entries = entries + 1;
                END;
                -- The loyal-customer lists read only the customers who opted in.
                CREATE INDEX user_loyal ON user(id) WHERE loyaltyOptIn = 1;
                """)
        }

        migrator.registerMigration("v9: the door's log") { db in
            try db.execute(sql: """
                -- What staff did at the door, who did it and why, and every refused scan.
                CREATE TABLE "doorAction" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "reservationId" INTEGER REFERENCES "reservation"("id") ON DELETE SET NULL, "number" INTEGER, "action" TEXT NOT NULL CHECK ("action" IN ('recall', 'noShow', 'admit', 'letOut', 'leftUnscanned', 'scanRefused')), "reason" TEXT NOT NULL CHECK (LENGTH("reason") <= 200), "outcome" TEXT NOT NULL, "userId" INTEGER REFERENCES "user"("id") ON DELETE SET NULL, "at" DATETIME NOT NULL);
                CREATE INDEX "doorAction_on_storeId" ON "doorAction"("storeId");
                CREATE INDEX "doorAction_on_reservationId" ON "doorAction"("reservationId");
                CREATE INDEX "doorAction_on_userId" ON "doorAction"("userId");
                CREATE INDEX "doorAction_store" ON "doorAction"("storeId", "at");
                """)
        }

        migrator.registerMigration("v10: a store's changes") { db in
            // Every change to a store's facts and rules: who, when, which field, from and to.
            try db.create(table: "storeChange") { t in
                t.autoIncrementedPrimaryKey("id")
                t.belongsTo("store", onDelete: .cascade).notNull()
                t.belongsTo("user", onDelete: .setNull)
                t.column("at", .datetime).notNull()
                t.column("field", .text).notNull()
                t.column("before", .text).notNull()
                t.column("after", .text).notNull()
            }
            try db.create(index: "storeChange_store", on: "storeChange", columns: ["storeId", "at"])
        }

        migrator.registerMigration("v11: closed days, departments a store no longer has") { db in
            try db.create(table: "storeClosure") { t in
                t.belongsTo("store", onDelete: .cascade).notNull()
                t.column("day", .integer).notNull()
                t.column("reason", .text).notNull().check { length($0) <= 100 }
                t.primaryKey(["storeId", "day"])
            }
            // A department removed from a store keeps its row, so past visits' influx still
            // names it; the store's page and wizard no longer offer it.
            try db.alter(table: "department") { t in
                t.add(column: "retired", .boolean).notNull().defaults(to: false)
            }
            // A store's slot length may now change: bookings made before keep their time, off
            // the new grid, and count in the slot during which they start (as the booking
            // handler counts them), not only in one starting at the same instant.
            try db.execute(sql: """
                DROP TRIGGER reservation_slotCapacity;
                CREATE TRIGGER reservation_slotCapacity BEFORE INSERT ON reservation
                WHEN NEW.kind = 'booking' AND NEW.status = 'booked'
                BEGIN
                    SELECT RAISE(ABORT, 'slot full')
                    WHERE NEW.people + (
                        SELECT COALESCE(SUM(people), 0) FROM reservation
                        WHERE storeId = NEW.storeId AND status = 'booked' AND slotStart >= NEW.slotStart
                          AND slotStart < strftime('%Y-%m-%d %H:%M:%f', NEW.slotStart,
                                                   '+' || (SELECT slotMinutes FROM store WHERE id = NEW.storeId)
                                                   || ' minutes'))
                          > (SELECT slotCapacity FROM store WHERE id = NEW.storeId);
                END
                """)
        }

        migrator.registerMigration("v12: door actions from a kiosk's screen") { db in
            // A kiosk has no account: its door console records the kiosk and the name the member
            // of staff at its screen gave.
            try db.alter(table: "doorAction") { t in
                t.add(column: "kioskId", .integer).references("kiosk", onDelete: .setNull)
                t.add(column: "staffName", .text).check { length($0) <= 60 }
            }
        }

        migrator.registerMigration("v13: the language of an account's emails and notifications") { db in
            try db.alter(table: "user") { t in
                t.add(column: "language", .text).notNull().defaults(to: "en").check { ["en", "it"].contains($0) }
            }
        }

        migrator.registerMigration("v14: forms already done, by their one-time key") { db in
            try db.create(table: "formReply") { t in
                t.primaryKey("key", .text).check { length($0) <= 64 }
                t.column("at", .datetime).notNull().indexed()
                t.column("location", .text).check { length($0) <= 2000 }
            }
        }

        migrator.registerMigration("v15: what the wait estimate learns from visits and calls") { db in
            // Per store: the spread of ln(actual ÷ declared) over measured visits, and, of called
            // tickets that ended, how many never came and how long the others took to the door
            // (`VisitModel`). Kept by triggers, as the ratio is, from the visits ended from now on.
            try db.alter(table: "storeLoad") { t in
                t.add(column: "logRatioSum", .double).notNull().defaults(to: 0)
                t.add(column: "logRatioSquares", .double).notNull().defaults(to: 0)
                t.add(column: "loggedVisits", .integer).notNull().defaults(to: 0)
                t.add(column: "calls", .integer).notNull().defaults(to: 0)
                t.add(column: "noShows", .integer).notNull().defaults(to: 0)
                t.add(column: "callToDoorSeconds", .double).notNull().defaults(to: 0)
                t.add(column: "atHandEntries", .integer).notNull().defaults(to: 0)
                t.add(column: "entries", .double).notNull().defaults(to: 0)
                t.add(column: "entryErrorSum", .double).notNull().defaults(to: 0)
                t.add(column: "entryErrorSquares", .double).notNull().defaults(to: 0)
            }
            // A line-up's expected entry when made, and, as it enters, the error of that
            // estimate: ln((real wait + 5 min) ÷ (expected wait + 5 min)), in sums that forget
            // by 1 % an entry (about the last hundred count), so the ranges follow the
            // estimate as it learns rather than its first day.
            try db.alter(table: "reservation") { t in t.add(column: "expectedEntry", .datetime) }
            try db.execute(sql: """
                DROP TRIGGER reservation_measured;
                CREATE TRIGGER reservation_measured AFTER UPDATE OF exitedAt ON reservation
                WHEN OLD.exitedAt IS NULL AND NEW.exitedAt IS NOT NULL AND NEW.enteredAt IS NOT NULL
                BEGIN
                    UPDATE storeLoad SET
                        measuredVisits = measuredVisits + 1,
                        declaredSeconds = declaredSeconds + NEW.residenceMinutes * 60,
                        actualSeconds = actualSeconds + (julianday(NEW.exitedAt) - julianday(NEW.enteredAt)) * 86400,
                        loggedVisits = loggedVisits + 1,
                        logRatioSum = logRatioSum + ln(MAX(1.0, (julianday(NEW.exitedAt) - julianday(NEW.enteredAt)) * 86400)
                                                       / MAX(60.0, NEW.residenceMinutes * 60)),
                        logRatioSquares = logRatioSquares
                            + ln(MAX(1.0, (julianday(NEW.exitedAt) - julianday(NEW.enteredAt)) * 86400)
                                 / MAX(60.0, NEW.residenceMinutes * 60))
                            * ln(MAX(1.0, (julianday(NEW.exitedAt) - julianday(NEW.enteredAt)) * 86400)
                                 / MAX(60.0, NEW.residenceMinutes * 60))
                    WHERE storeId = NEW.storeId;
                END;
                CREATE TRIGGER reservation_entry_measured AFTER UPDATE OF status ON reservation
                WHEN NEW.status = 'inside' AND OLD.status IN ('waiting', 'called') AND NEW.expectedEntry IS NOT NULL
                    AND NEW.enteredAt IS NOT NULL
                BEGIN
                    UPDATE storeLoad SET
                        entries = entries * 0.99 + 1,
                        entryErrorSum = entryErrorSum * 0.99
                            + ln(MAX(0, julianday(NEW.enteredAt) - julianday(NEW.createdAt)) * 86400 + 300)
                            - ln(MAX(0, julianday(NEW.expectedEntry) - julianday(NEW.createdAt)) * 86400 + 300),
                        entryErrorSquares = entryErrorSquares * 0.99
                            + (ln(MAX(0, julianday(NEW.enteredAt) - julianday(NEW.createdAt)) * 86400 + 300)
                               - ln(MAX(0, julianday(NEW.expectedEntry) - julianday(NEW.createdAt)) * 86400 + 300))
                            * (ln(MAX(0, julianday(NEW.enteredAt) - julianday(NEW.createdAt)) * 86400 + 300)
                               - ln(MAX(0, julianday(NEW.expectedEntry) - julianday(NEW.createdAt)) * 86400 + 300))
                    WHERE storeId = NEW.storeId;
                END;
                CREATE TRIGGER reservation_call_ended AFTER UPDATE OF status ON reservation
                WHEN OLD.status = 'called' AND NEW.status IN ('inside', 'expired') AND NEW.calledAt IS NOT NULL
                BEGIN
                    UPDATE storeLoad SET
                        calls = calls + 1,
                        noShows = noShows + (NEW.status = 'expired'),
                        -- The way to the door, of those called where they were (at the kiosk, or
                        -- with no journey): one on the way is called as they are about to arrive.
                        atHandEntries = atHandEntries + (NEW.status = 'inside' AND NEW.enteredAt IS NOT NULL
                                                         AND NEW.travelMetres IS NULL),
                        callToDoorSeconds = callToDoorSeconds + CASE WHEN NEW.status = 'inside' AND NEW.enteredAt IS NOT NULL
                                                                     AND NEW.travelMetres IS NULL
                            THEN MAX(0, (julianday(NEW.enteredAt) - julianday(NEW.calledAt)) * 86400) ELSE 0 END
                    WHERE storeId = NEW.storeId;
                END;
                """)
        }

        migrator.registerMigration("v16: visits never scanned out") { db in
            // Per store: the visits the queue timer closed because nobody scanned out, and the
            // measured visits counted beside them, from now on: `measuredVisits` at this
            // migration is kept, so the rate is taken over the same visits.
            try db.alter(table: "storeLoad") { t in
                t.add(column: "unscannedVisits", .integer).notNull().defaults(to: 0)
                t.add(column: "visitsBeforeUnscanned", .integer).notNull().defaults(to: 0)
            }
            try db.execute(sql: "UPDATE storeLoad SET visitsBeforeUnscanned = measuredVisits")
        }

        migrator.registerMigration("v17: a customer's own pace") { db in
            // What the customer's past visits at the store said of their pace when they made
            // the reservation (`CustomerPace`); null for a first visit and a kiosk ticket.
            try db.alter(table: "reservation") { t in t.add(column: "pace", .double) }
        }

        migrator.registerMigration("v18: ranges measured on waits plus 20 minutes") { db in
            try db.execute(sql: """
                -- The ranges are the mean ± 1.28 standard deviations of ln((real wait + offset) ÷
                -- (expected wait + offset)). With an offset of 5 minutes, errors on the last minutes
                -- of a wait, where what is left is a few exits, weighed as much as errors on a long
                -- wait, and ranges shown at issue were too wide (README, "How right is the wait").
                -- The offset is now 20 minutes (1200 s), `VisitModel.errorOffset`. The sums start
                -- again: they were of another quantity, and they forget within about a hundred
                -- entries anyway.
                DROP TRIGGER reservation_entry_measured;
                UPDATE storeLoad SET entries = 0, entryErrorSum = 0, entryErrorSquares = 0;
                CREATE TRIGGER reservation_entry_measured AFTER UPDATE OF status ON reservation
                WHEN NEW.status = 'inside' AND OLD.status IN ('waiting', 'called') AND NEW.expectedEntry IS NOT NULL
                    AND NEW.enteredAt IS NOT NULL
                BEGIN
                    UPDATE storeLoad SET
                        entries = entries * 0.99 + 1,
                        entryErrorSum = entryErrorSum * 0.99 + (ln(MAX(0, julianday(NEW.enteredAt) - julianday(NEW.createdAt)) * 86400 + 1200)
                 - ln(MAX(0, julianday(NEW.expectedEntry) - julianday(NEW.createdAt)) * 86400 + 1200)),
                        entryErrorSquares = entryErrorSquares * 0.99 + (ln(MAX(0, julianday(NEW.enteredAt) - julianday(NEW.createdAt)) * 86400 + 1200)
                 - ln(MAX(0, julianday(NEW.expectedEntry) - julianday(NEW.createdAt)) * 86400 + 1200)) * (ln(MAX(0, julianday(NEW.enteredAt) - julianday(NEW.createdAt)) * 86400 + 1200)
                 - ln(MAX(0, julianday(NEW.expectedEntry) - julianday(NEW.createdAt)) * 86400 + 1200))
                    WHERE storeId = NEW.storeId;
                END;
                """)
        }

        migrator.registerMigration("v19: kiosk roles, the store's staff PIN, mail counted by mailbox, push failures") { db in
            // A kiosk is either a customer-facing dispenser (tickets and the board) or the door
            // (scanner, board, dispenser, and the staff console behind the staff PIN). Kiosks
            // enrolled before roles existed scanned at the door: they keep doing so.
            try db.execute(sql: """
                ALTER TABLE kiosk ADD COLUMN role TEXT NOT NULL DEFAULT 'door' CHECK (role IN ('dispenser', 'door'));
                CREATE TABLE staffPin (
                    storeId INTEGER PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
                    pinHash TEXT NOT NULL,
                    setAt DATETIME NOT NULL,
                    setBy INTEGER REFERENCES user(id) ON DELETE SET NULL
                );
                CREATE INDEX doorAction_kiosk ON doorAction(kioskId, at);
                -- Mail is capped per mailbox, not per spelling of its address (`MailAddress.key`),
                -- and mail that a form sends to an address without an account per client too.
                ALTER TABLE outboxMessage ADD COLUMN recipientKey TEXT;
                ALTER TABLE outboxMessage ADD COLUMN requestedBy TEXT CHECK (length(requestedBy) <= 64);
                UPDATE outboxMessage SET recipientKey = lower(trim(recipient));
                CREATE INDEX outboxMessage_recipientKey ON outboxMessage(recipientKey, createdAt);
                CREATE INDEX outboxMessage_requestedBy ON outboxMessage(createdAt, requestedBy) WHERE requestedBy IS NOT NULL;
                -- Attempts failed in a row: a subscription whose service never answers is dropped.
                ALTER TABLE pushSubscription ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
                CREATE INDEX pushSubscription_user ON pushSubscription(userId, id);
                -- Endpoints kept before they were checked as the sender reads them: one whose host
                -- part holds an escape, a userinfo or a port is dropped (its browser subscribes
                -- again when its owner turns notifications on).
                DELETE FROM pushSubscription WHERE endpoint LIKE 'https://%' AND (
                    instr(substr(endpoint, 9, instr(substr(endpoint, 9) || '/', '/') - 1), '%') > 0
                    OR instr(substr(endpoint, 9, instr(substr(endpoint, 9) || '/', '/') - 1), '@') > 0
                    OR instr(substr(endpoint, 9, instr(substr(endpoint, 9) || '/', '/') - 1), ':') > 0);
                """)
        }

        migrator.registerMigration("v20: mail sent by urgency") { db in
            try db.execute(sql: """
                -- `MailPriority`: 0 urgent ("leave now", "your turn"), 1 account mail, 2 reminders,
                -- 3 informational. Mail queued before this was in order of arrival; it keeps that
                -- order as account mail.
                ALTER TABLE outboxMessage ADD COLUMN priority INTEGER NOT NULL DEFAULT 1 CHECK (priority BETWEEN 0 AND 3);
                CREATE INDEX outboxMessage_due ON outboxMessage(priority, id) WHERE sentAt IS NULL;
                """)
        }

        migrator.registerMigration("v21: statistics counted in Swift") { db in
            try db.execute(sql: """
                -- Each change of a reservation's status is now counted by `VisitAccounting`, from
                -- the one place a status changes, and `clup admin rebuild-stats` folds the same
                -- function over the history: the rules are written once. The constraints stay
                -- triggers (capacity, slot capacity), and so does the store's row of sums.
                DROP TRIGGER reservation_statsEntry;
                DROP TRIGGER reservation_statsCall;
                DROP TRIGGER reservation_statsExit;
                DROP TRIGGER reservation_statsEnd;
                DROP TRIGGER reservation_measured;
                DROP TRIGGER reservation_entry_measured;
                DROP TRIGGER reservation_call_ended;
                """)
        }

        migrator.registerMigration("v22: stores' signing keys") { db in
            try db.execute(sql: """
                -- Ticket codes are signed with the store's Ed25519 key number `keyId`, which the
                -- server derives from its secret (`StoreKeys`): only the number is kept. A rotation
                -- adds the next number; the one before stays good until `retiresAt`, so codes
                -- already printed keep working. Every store has key 1 from the start.
                CREATE TABLE storeSigningKey (
                    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
                    keyId INTEGER NOT NULL CHECK (keyId BETWEEN 1 AND 65535),
                    createdAt DATETIME NOT NULL,
                    retiresAt DATETIME,
                    PRIMARY KEY (storeId, keyId)
                ) WITHOUT ROWID;
                INSERT INTO storeSigningKey (storeId, keyId, createdAt)
                SELECT id, 1, strftime('%Y-%m-%d %H:%M:%f', 'now') FROM store;
                CREATE TRIGGER store_signingKey AFTER INSERT ON store
                BEGIN INSERT INTO storeSigningKey (storeId, keyId, createdAt)
                      VALUES (NEW.id, 1, strftime('%Y-%m-%d %H:%M:%f', 'now')); END;
                """)
        }

        migrator.registerMigration("v23: scans kept by the kiosk's own id") { db in
            try db.execute(sql: """
                -- A kiosk names each scan (`scanId`) and says when it happened: a scan sent again
                -- (a retry, or the catch-up of scans made while CLup could not be reached) is
                -- answered with its first answer and applied once.
                CREATE TABLE scanReceipt (
                    kioskId INTEGER NOT NULL REFERENCES kiosk(id) ON DELETE CASCADE,
                    scanId TEXT NOT NULL CHECK (length(scanId) BETWEEN 16 AND 64),
                    scannedAt DATETIME NOT NULL,
                    receivedAt DATETIME NOT NULL,
                    answer TEXT NOT NULL,
                    PRIMARY KEY (kioskId, scanId)
                ) WITHOUT ROWID;
                CREATE INDEX scanReceipt_received ON scanReceipt(receivedAt);
                """)
        }

        migrator.registerMigration("v24: scans made offline that CLup did not accept") { db in
            try db.execute(sql: """
                -- A door kiosk that could not reach CLup lets people in and out by itself, and sends
                -- what it did later. What CLup cannot accept (a ticket cancelled meanwhile, one let in
                -- at two doors) is logged for staff as an `offlineConflict`, never dropped: the door
                -- log's kinds are a CHECK, so the table is made again with the new kind.
                CREATE TABLE doorAction_new ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "reservationId" INTEGER REFERENCES "reservation"("id") ON DELETE SET NULL, "number" INTEGER, "action" TEXT NOT NULL CHECK ("action" IN ('recall', 'noShow', 'admit', 'letOut', 'leftUnscanned', 'scanRefused', 'offlineConflict')), "reason" TEXT NOT NULL CHECK (LENGTH("reason") <= 200), "outcome" TEXT NOT NULL, "userId" INTEGER REFERENCES "user"("id") ON DELETE SET NULL, "at" DATETIME NOT NULL, "kioskId" INTEGER REFERENCES "kiosk"("id") ON DELETE SET NULL, "staffName" TEXT CHECK (LENGTH("staffName") <= 60));
                INSERT INTO doorAction_new (id, storeId, reservationId, number, action, reason, outcome, userId, at, kioskId, staffName)
                SELECT id, storeId, reservationId, number, action, reason, outcome, userId, at, kioskId, staffName FROM doorAction;
                DROP TABLE doorAction;
                ALTER TABLE doorAction_new RENAME TO doorAction;
                CREATE INDEX doorAction_kiosk ON doorAction(kioskId, at);
                CREATE INDEX "doorAction_on_reservationId" ON "doorAction"("reservationId");
                CREATE INDEX "doorAction_on_storeId" ON "doorAction"("storeId");
                CREATE INDEX "doorAction_on_userId" ON "doorAction"("userId");
                CREATE INDEX "doorAction_store" ON "doorAction"("storeId", "at");
                """)
        }

        migrator.registerMigration("v25: ticket blocks for printing offline") { db in
            try db.execute(sql: """
                -- A kiosk keeps a block of ticket numbers and reservation ids for the store's day,
                -- reserved while CLup answers, to print walk-in tickets when it does not: ticket i of
                -- a block is reservation firstReservationId + i, numbered firstNumber + i. The ids are
                -- taken from the reservation table's sequence and the numbers from the day's, so
                -- nothing else is given them; the reservation is made when CLup first hears of it.
                CREATE TABLE ticketBlock (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
                    kioskId INTEGER NOT NULL REFERENCES kiosk(id) ON DELETE CASCADE,
                    day INTEGER NOT NULL,
                    firstNumber INTEGER NOT NULL CHECK (firstNumber >= 1),
                    firstReservationId INTEGER NOT NULL CHECK (firstReservationId >= 1),
                    size INTEGER NOT NULL CHECK (size BETWEEN 1 AND 100),
                    createdAt DATETIME NOT NULL
                );
                CREATE UNIQUE INDEX ticketBlock_kiosk_day ON ticketBlock(kioskId, day);
                CREATE INDEX ticketBlock_store_day ON ticketBlock(storeId, day);
                """)
        }

        migrator.registerMigration("v26: mail that no longer matters is not sent") { db in
            try db.execute(sql: """
                -- A notice's email remembers its reservation and kind: a newer message about the
                -- same reservation supersedes it while unsent, and it is not sent once the
                -- reservation has moved past it (a "your turn" for a ticket already used).
                ALTER TABLE outboxMessage ADD COLUMN reservationId INTEGER REFERENCES reservation(id) ON DELETE SET NULL;
                ALTER TABLE outboxMessage ADD COLUMN noticeKind TEXT
                    CHECK (noticeKind IN ('leaveNow', 'yourTurn', 'reminder', 'cancelled', 'expired', 'autoCancelled'));
                CREATE INDEX outboxMessage_unsent_reservation ON outboxMessage(reservationId)
                    WHERE sentAt IS NULL AND reservationId IS NOT NULL;
                """)
        }

        migrator.registerMigration("v27: terms of service accepted") { db in
            try db.execute(sql: """
                -- The version of the terms of service the account accepted, and when; NULL: none
                -- yet (an account made by an administrator, or before there were terms).
                ALTER TABLE user ADD COLUMN termsVersion INTEGER CHECK (termsVersion >= 1);
                ALTER TABLE user ADD COLUMN termsAcceptedAt DATETIME;
                """)
        }

        migrator.registerMigration("v28: personal data sealed at rest") { db in
            try db.execute(sql: """
                -- Names and email addresses are stored sealed with the data key (`DataKey`), kept
                -- outside the database: "s1:" and a base64 text longer than the value, so the length
                -- CHECKs on them go (the pages check lengths before sealing). An account is found by
                -- `emailKey`, a keyed hash of its address, unique in place of the address. The
                -- tables are made again without the CHECKs, keeping their rows, ids and sequences.
                -- Rows already there are sealed the next time the database is opened with its key
                -- (`AppDatabase.sealPersonalData`): a migration holds no key.
                CREATE TABLE user_new ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "email" TEXT NOT NULL, "displayName" TEXT NOT NULL, "passwordHash" TEXT NOT NULL, "role" TEXT NOT NULL CHECK ("role" IN ('customer', 'manager', 'admin')) DEFAULT 'customer', "emailConfirmedAt" DATETIME, "travelMode" TEXT NOT NULL CHECK ("travelMode" IN ('walking', 'car', 'transit')) DEFAULT 'walking', "loyaltyOptIn" BOOLEAN NOT NULL DEFAULT 0, "createdAt" DATETIME NOT NULL, "notifyEmail" BOOLEAN NOT NULL DEFAULT 1, "notifyPush" BOOLEAN NOT NULL DEFAULT 1, "language" TEXT NOT NULL CHECK ("language" IN ('en', 'it')) DEFAULT 'en', termsVersion INTEGER CHECK (termsVersion >= 1), termsAcceptedAt DATETIME, emailKey TEXT UNIQUE);
                INSERT INTO user_new (id, email, displayName, passwordHash, role, emailConfirmedAt, travelMode, loyaltyOptIn, createdAt, notifyEmail, notifyPush, language, termsVersion, termsAcceptedAt)
                SELECT id, email, displayName, passwordHash, role, emailConfirmedAt, travelMode, loyaltyOptIn, createdAt, notifyEmail, notifyPush, language, termsVersion, termsAcceptedAt FROM user;
                UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'user') WHERE name = 'user_new';
                DROP TABLE user;
                ALTER TABLE user_new RENAME TO user;
                CREATE INDEX user_loyal ON user(id) WHERE loyaltyOptIn = 1;

                CREATE TABLE doorAction_new ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "reservationId" INTEGER REFERENCES "reservation"("id") ON DELETE SET NULL, "number" INTEGER, "action" TEXT NOT NULL CHECK ("action" IN ('recall', 'noShow', 'admit', 'letOut', 'leftUnscanned', 'scanRefused', 'offlineConflict')), "reason" TEXT NOT NULL CHECK (LENGTH("reason") <= 200), "outcome" TEXT NOT NULL, "userId" INTEGER REFERENCES "user"("id") ON DELETE SET NULL, "at" DATETIME NOT NULL, "kioskId" INTEGER REFERENCES "kiosk"("id") ON DELETE SET NULL, "staffName" TEXT);
                INSERT INTO doorAction_new (id, storeId, reservationId, number, action, reason, outcome, userId, at, kioskId, staffName)
                SELECT id, storeId, reservationId, number, action, reason, outcome, userId, at, kioskId, staffName FROM doorAction;
                UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'doorAction') WHERE name = 'doorAction_new';
                DROP TABLE doorAction;
                ALTER TABLE doorAction_new RENAME TO doorAction;
                CREATE INDEX doorAction_kiosk ON doorAction(kioskId, at);
                CREATE INDEX "doorAction_on_reservationId" ON "doorAction"("reservationId");
                CREATE INDEX "doorAction_on_storeId" ON "doorAction"("storeId");
                CREATE INDEX "doorAction_on_userId" ON "doorAction"("userId");
                CREATE INDEX "doorAction_store" ON "doorAction"("storeId", "at");

                -- A value sealed with the database's key when it was first opened with one: a worker
                -- given another key is stopped before it reads or writes anything.
                CREATE TABLE dataKeyCheck (id INTEGER PRIMARY KEY CHECK (id = 1), sealed TEXT NOT NULL);
                """)
        }

        migrator.registerMigration("v29: scheduled maintenance") { db in
            try db.execute(sql: """
                -- A time CLup is scheduled to be down or unreliable: pages announce it from
                -- announceFrom and say when CLup is back while it lasts. Cancelled ones stay, marked.
                CREATE TABLE maintenanceWindow (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    startsAt DATETIME NOT NULL,
                    endsAt DATETIME NOT NULL,
                    announceFrom DATETIME NOT NULL,
                    timeZone TEXT NOT NULL CHECK (length(timeZone) BETWEEN 1 AND 64),
                    createdAt DATETIME NOT NULL,
                    cancelledAt DATETIME,
                    CHECK (endsAt > startsAt AND announceFrom <= startsAt)
                );
                CREATE INDEX maintenanceWindow_ends ON maintenanceWindow(endsAt) WHERE cancelledAt IS NULL;
                """)
        }

        migrator.registerMigration("v30: waiting lists for full slots") { db in
            try db.execute(sql: """
                -- A customer waiting for a place in a full slot (`WaitingList`): in id order, offered a
                -- freed place until offerExpiresAt, then accepted (reservationId: the booking made),
                -- passed on, left, or closed when the slot came without a place. One open entry per
                -- customer.
                CREATE TABLE waitlist (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
                    userId INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
                    slotStart DATETIME NOT NULL,
                    people INTEGER NOT NULL CHECK (people IN (1, 2)),
                    residenceMinutes INTEGER NOT NULL CHECK (residenceMinutes BETWEEN 5 AND 240),
                    status TEXT NOT NULL CHECK (status IN ('waiting', 'offered', 'accepted', 'passed', 'left', 'closed')),
                    createdAt DATETIME NOT NULL,
                    offeredAt DATETIME,
                    offerExpiresAt DATETIME,
                    endedAt DATETIME,
                    reservationId INTEGER REFERENCES reservation(id) ON DELETE SET NULL,
                    requestKey TEXT NOT NULL CHECK (length(requestKey) BETWEEN 16 AND 64),
                    CHECK ((status = 'offered') = (offerExpiresAt IS NOT NULL AND endedAt IS NULL)
                           OR status NOT IN ('waiting', 'offered'))
                );
                CREATE UNIQUE INDEX waitlist_oneOpen ON waitlist(userId) WHERE status IN ('waiting', 'offered');
                CREATE INDEX waitlist_open ON waitlist(storeId, slotStart, id) WHERE status IN ('waiting', 'offered');
                CREATE INDEX waitlist_user ON waitlist(userId, id);

                -- What a waiting-list customer is told: a place offered, an offer passed on, the list
                -- closed. Dispatched like reservations' notices.
                CREATE TABLE waitlistNotice (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    waitlistId INTEGER NOT NULL REFERENCES waitlist(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('offer', 'passed', 'closed')),
                    createdAt DATETIME NOT NULL,
                    dispatchedAt DATETIME,
                    UNIQUE (waitlistId, kind)
                );
                CREATE INDEX waitlistNotice_pending ON waitlistNotice(id) WHERE dispatchedAt IS NULL;
                """)
        }

        migrator.registerMigration("v31: priority tickets") { db in
            try db.execute(sql: """
                -- A store's priority lane (`PriorityLane`): one priority call in every priorityEvery
                -- (0: no lane), and whether customers may ask for one online.
                ALTER TABLE store ADD COLUMN priorityEvery INTEGER NOT NULL DEFAULT 0
                    CHECK (priorityEvery BETWEEN 0 AND 10);
                ALTER TABLE store ADD COLUMN priorityOnline BOOLEAN NOT NULL DEFAULT 0;
                -- A priority ticket, placed when issued just before ticket queuePosition (NULL: by its
                -- own id, as every other ticket).
                ALTER TABLE reservation ADD COLUMN priority BOOLEAN NOT NULL DEFAULT 0;
                ALTER TABLE reservation ADD COLUMN queuePosition INTEGER;
                -- How the lane was used, by hour: priority tickets let in and their waits.
                ALTER TABLE storeHour ADD COLUMN priorityEntries DOUBLE NOT NULL DEFAULT 0;
                ALTER TABLE storeHour ADD COLUMN priorityWaitSeconds DOUBLE NOT NULL DEFAULT 0;

                -- Staff issuing a priority ticket is logged as a door action (without a reason: why
                -- someone cannot wait is theirs to keep).
                CREATE TABLE doorAction_new ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "reservationId" INTEGER REFERENCES "reservation"("id") ON DELETE SET NULL, "number" INTEGER, "action" TEXT NOT NULL CHECK ("action" IN ('recall', 'noShow', 'admit', 'letOut', 'leftUnscanned', 'scanRefused', 'offlineConflict', 'priority')), "reason" TEXT NOT NULL CHECK (LENGTH("reason") <= 200), "outcome" TEXT NOT NULL, "userId" INTEGER REFERENCES "user"("id") ON DELETE SET NULL, "at" DATETIME NOT NULL, "kioskId" INTEGER REFERENCES "kiosk"("id") ON DELETE SET NULL, "staffName" TEXT);
                INSERT INTO doorAction_new (id, storeId, reservationId, number, action, reason, outcome, userId, at, kioskId, staffName)
                SELECT id, storeId, reservationId, number, action, reason, outcome, userId, at, kioskId, staffName FROM doorAction;
                UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'doorAction') WHERE name = 'doorAction_new';
                DROP TABLE doorAction;
                ALTER TABLE doorAction_new RENAME TO doorAction;
                CREATE INDEX doorAction_kiosk ON doorAction(kioskId, at);
                CREATE INDEX "doorAction_on_reservationId" ON "doorAction"("reservationId");
                CREATE INDEX "doorAction_on_storeId" ON "doorAction"("storeId");
                CREATE INDEX "doorAction_on_userId" ON "doorAction"("userId");
                CREATE INDEX "doorAction_store" ON "doorAction"("storeId", "at");
                """)
        }

        migrator.registerMigration("v32: fewer reservation indexes to write, slot sums from one") { db in
            try db.execute(sql: """
                -- Every reservation written updates each of the table's indexes. These two only
                -- repeated the first column of others: UNIQUE (storeId, day, number) finds a store's
                -- rows, reservation_user (userId, storeId) a customer's.
                DROP INDEX reservation_on_storeId;
                DROP INDEX reservation_on_userId;
                -- A slot's booked people are summed on every booking, twice (the transaction's check
                -- and reservation_slotCapacity): with people and status in the index the sum reads
                -- the index alone, not each booking's row.
                DROP INDEX reservation_bookedByStore;
                CREATE INDEX reservation_bookedByStore ON reservation(storeId, slotStart, people, status)
                    WHERE status = 'booked';
                """)
        }

        migrator.registerMigration("v33: entry errors measured in minutes over the root of the wait") { db in
            try db.execute(sql: """
                -- An entry's error is now (real − expected wait, in minutes) ÷ √(expected wait in
                -- minutes + 10) (`VisitModel.entryError`), not a ratio of waits plus 20 minutes:
                -- the sums were of another quantity. They start again, and a store draws its
                -- ranges from the exits to wait for until 20 entries are measured.
                UPDATE storeLoad SET entries = 0, entryErrorSum = 0, entryErrorSquares = 0;
                """)
        }

        migrator.registerMigration("v34: people inside summed from their index alone") { db in
            try db.execute(sql: """
                -- An entry sums the store's people inside twice (reservation_capacity, and the
                -- hour's peak): through an index of ids only, each party's row was read for its
                -- people, and a store with thousands inside read thousands of rows per entry. With
                -- people (and the status the sums ask for: SQLite does not take it from the index's
                -- condition) in the index the sums read the index alone.
                DROP INDEX reservation_inside;
                CREATE INDEX reservation_inside ON reservation(storeId, people, status) WHERE status = 'inside';
                """)
        }

        migrator.registerMigration("v35: the people inside kept with the capacity guard") { db in
            let overCapacity = """
                SELECT RAISE(ABORT, 'store full')
                WHERE NEW.people + COALESCE((SELECT people FROM storeInside WHERE storeId = NEW.storeId), 0)
                      > (SELECT capacity FROM store WHERE id = NEW.storeId);
                """
            try db.execute(sql: """
                -- The capacity guard summed a store's people inside on every entry, through its
                -- index but still over every party inside. The guard now keeps that sum itself: the
                -- triggers below count each party into and out of `storeInside` in the statement
                -- that moves it, whatever writes, so the check reads one row.
                CREATE TABLE storeInside (
                    storeId INTEGER PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
                    people INTEGER NOT NULL CHECK (people >= 0));
                INSERT INTO storeInside (storeId, people)
                SELECT storeId, SUM(people) FROM reservation WHERE status = 'inside' GROUP BY storeId;
                CREATE TRIGGER reservation_insideOnInsert AFTER INSERT ON reservation
                WHEN NEW.status = 'inside'
                BEGIN INSERT INTO storeInside (storeId, people) VALUES (NEW.storeId, NEW.people)
                      ON CONFLICT (storeId) DO UPDATE SET people = people + excluded.people; END;
                CREATE TRIGGER reservation_insideOnUpdate AFTER UPDATE OF status, people, storeId ON reservation
                WHEN OLD.status = 'inside' OR NEW.status = 'inside'
                BEGIN
                    UPDATE storeInside SET people = people - OLD.people
                    WHERE storeId = OLD.storeId AND OLD.status = 'inside';
                    INSERT INTO storeInside (storeId, people) SELECT NEW.storeId, NEW.people WHERE NEW.status = 'inside'
                    ON CONFLICT (storeId) DO UPDATE SET people = people + excluded.people;
                END;
                CREATE TRIGGER reservation_insideOnDelete AFTER DELETE ON reservation
                WHEN OLD.status = 'inside'
                BEGIN UPDATE storeInside SET people = people - OLD.people WHERE storeId = OLD.storeId; END;
                DROP TRIGGER reservation_capacity;
                DROP TRIGGER reservation_capacityOnInsert;
                CREATE TRIGGER reservation_capacity BEFORE UPDATE OF status ON reservation
                WHEN NEW.status = 'inside' AND OLD.status <> 'inside'
                BEGIN \(overCapacity) END;
                CREATE TRIGGER reservation_capacityOnInsert BEFORE INSERT ON reservation
                WHEN NEW.status = 'inside'
                BEGIN \(overCapacity) END;
                -- Nothing else sums the people inside from the rows now (the hour's peak reads the
                -- kept count too), so the index is one fewer to write on every entry and exit.
                DROP INDEX reservation_inside;
                """)
        }

        migrator.registerMigration("v36: mail a form asks for is paced per client") { db in
            try db.execute(sql: """
                -- Mail to an address its sender may not own was capped at 10 an hour per client and
                -- 200 an hour for everyone, and dropped past that: a launch's sign-ups lost their
                -- confirmations. Each client now keeps a pace (`MailPace`): its mark is when its
                -- next mail would leave without the burst allowance; a mark in the past is deleted.
                CREATE TABLE mailPace (
                    client TEXT PRIMARY KEY CHECK (length(client) <= 64),
                    mark DATETIME NOT NULL);
                CREATE INDEX mailPace_mark ON mailPace(mark);
                """)
        }

        migrator.registerMigration("v37: notices whose push was lost go by email") { db in
            try db.execute(sql: """
                -- A browser that unsubscribed (404 or 410) took its pending push messages with it,
                -- and a customer who chose push only lost "it is your turn". Each push message now
                -- names its notice; when an account's last subscription goes, the notices it had
                -- not delivered are dispatched again by email (`emailOnly`), once, and the account
                -- remembers when (`pushLostAt`) so its ticket page can say so.
                ALTER TABLE pushMessage ADD COLUMN noticeId INTEGER REFERENCES notice(id) ON DELETE SET NULL;
                ALTER TABLE notice ADD COLUMN emailOnly BOOLEAN NOT NULL DEFAULT 0 CHECK (emailOnly IN (0, 1));
                ALTER TABLE user ADD COLUMN pushLostAt DATETIME;
                """)
        }

        migrator.registerMigration("v38: door reasons sealed at rest") { db in
            try db.execute(sql: """
                -- What staff type as a door action's reason may name people or hold a phone number:
                -- it is sealed with the data key now, like the staff name beside it, and a sealed
                -- reason of 200 characters is longer than the old check allowed. (Scan refusals
                -- and offline conflicts keep their reason codes in clear.)
                CREATE TABLE doorAction_new ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "reservationId" INTEGER REFERENCES "reservation"("id") ON DELETE SET NULL, "number" INTEGER, "action" TEXT NOT NULL CHECK ("action" IN ('recall', 'noShow', 'admit', 'letOut', 'leftUnscanned', 'scanRefused', 'offlineConflict', 'priority')), "reason" TEXT NOT NULL CHECK (LENGTH("reason") <= 1200), "outcome" TEXT NOT NULL, "userId" INTEGER REFERENCES "user"("id") ON DELETE SET NULL, "at" DATETIME NOT NULL, "kioskId" INTEGER REFERENCES "kiosk"("id") ON DELETE SET NULL, "staffName" TEXT);
                INSERT INTO doorAction_new (id, storeId, reservationId, number, action, reason, outcome, userId, at, kioskId, staffName)
                SELECT id, storeId, reservationId, number, action, reason, outcome, userId, at, kioskId, staffName FROM doorAction;
                UPDATE sqlite_sequence SET seq = (SELECT seq FROM sqlite_sequence WHERE name = 'doorAction') WHERE name = 'doorAction_new';
                DROP TABLE doorAction;
                ALTER TABLE doorAction_new RENAME TO doorAction;
                CREATE INDEX doorAction_kiosk ON doorAction(kioskId, at);
                CREATE INDEX "doorAction_on_reservationId" ON "doorAction"("reservationId");
                CREATE INDEX "doorAction_on_storeId" ON "doorAction"("storeId");
                CREATE INDEX "doorAction_on_userId" ON "doorAction"("userId");
                CREATE INDEX "doorAction_store" ON "doorAction"("storeId", "at");
                """)
        }

        migrator.registerMigration("v39: kiosks watched") { db in
            try db.execute(sql: """
                -- When each kiosk last reached CLup, the page or firmware it runs, how many scans
                -- or tickets it holds that it made offline, and how far its clock is off CLup's
                -- (CLup's time minus the kiosk's, as the kiosk measured it): a kiosk that goes
                -- silent in opening hours is flagged on the manager's page and in /metrics.
                CREATE TABLE kioskContact (
                    kioskId INTEGER PRIMARY KEY REFERENCES kiosk(id) ON DELETE CASCADE,
                    seenAt DATETIME NOT NULL,
                    version TEXT NOT NULL CHECK (length(version) <= 40),
                    queued INTEGER NOT NULL CHECK (queued >= 0),
                    clockOffsetMs INTEGER);
                """)
        }

        migrator.registerMigration("v40: parties as stores allow them") { db in
            // A party was one or two people; a store now sets its largest (2 unless it says
            // otherwise, up to 8). The two CHECKs on a party's size only widen, so every row
            // already meets them: they are rewritten in the schema as SQLite's documentation
            // allows for such a change, without copying the reservations.
            try db.execute(sql: """
                ALTER TABLE store ADD COLUMN largestParty INTEGER NOT NULL DEFAULT 2 CHECK (largestParty BETWEEN 1 AND 8);
                """)
            try widenChecks(db, migration: "v40", [
                ("reservation", #"CHECK (("people" = 1) OR ("people" = 2))"#, #"CHECK ("people" BETWEEN 1 AND 8)"#),
                ("waitlist", "CHECK (people IN (1, 2))", "CHECK (people BETWEEN 1 AND 8)"),
            ])
        }

        migrator.registerMigration("v41: several doors admit offline, each within its lease") { db in
            try db.execute(sql: """
                -- The door kiosks that let people in while CLup cannot be reached, each with its
                -- share of the store's free places (`DoorLease`): the newest grant (`places`), the
                -- most the door may hold until it acknowledges that grant (`held`), and when it
                -- last renewed. Until now the store's first door admitted offline: it still does.
                CREATE TABLE doorLease (
                    kioskId INTEGER PRIMARY KEY REFERENCES kiosk(id) ON DELETE CASCADE,
                    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
                    version INTEGER NOT NULL DEFAULT 0,
                    places INTEGER NOT NULL DEFAULT 0 CHECK (places >= 0),
                    held INTEGER NOT NULL DEFAULT 0 CHECK (held >= places),
                    renewedAt DATETIME);
                CREATE INDEX doorLease_store ON doorLease(storeId);
                INSERT INTO doorLease (kioskId, storeId)
                SELECT MIN(id), storeId FROM kiosk WHERE role = 'door' AND revokedAt IS NULL GROUP BY storeId;
                """)
            // Two new door actions: a door set to admit offline or not, a ticket for a phone call.
            try widenChecks(db, migration: "v41", [
                ("doorAction", "'offlineConflict', 'priority')", "'offlineConflict', 'priority', 'offlineDoor', 'phoneIn')"),
            ])
        }

        migrator.registerMigration("v42: a walk-in's address for 'it is your turn', until the visit ends") { db in
            try db.execute(sql: """
                -- The one thing a walk-in may leave at the dispenser: an address to be told it is
                -- their turn (sealed), in the language of the screen they used. Deleted once the
                -- visit ends, with the mail sent to it.
                CREATE TABLE walkInContact (
                    reservationId INTEGER PRIMARY KEY REFERENCES reservation(id) ON DELETE CASCADE,
                    email TEXT NOT NULL,
                    language TEXT NOT NULL CHECK (length(language) <= 8),
                    createdAt DATETIME NOT NULL);
                """)
        }

        migrator.registerMigration("v43: maintenance reaches the customers booked inside it") { db in
            try db.execute(sql: """
                -- A customer with a booking inside a maintenance window is told when it is
                -- scheduled, and told again if it is cancelled after that; dispatched by the
                -- worker like a reservation's notices.
                CREATE TABLE maintenanceNotice (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    windowId INTEGER NOT NULL REFERENCES maintenanceWindow(id) ON DELETE CASCADE,
                    reservationId INTEGER NOT NULL REFERENCES reservation(id) ON DELETE CASCADE,
                    kind TEXT NOT NULL CHECK (kind IN ('scheduled', 'cancelled')),
                    createdAt DATETIME NOT NULL,
                    dispatchedAt DATETIME,
                    UNIQUE (windowId, reservationId, kind));
                CREATE INDEX maintenanceNotice_pending ON maintenanceNotice(id) WHERE dispatchedAt IS NULL;
                CREATE INDEX maintenanceNotice_reservation ON maintenanceNotice(reservationId);
                """)
        }

        migrator.registerMigration("v44: retention as the operator sets it") { db in
            try db.execute(sql: """
                -- When an account was last signed in to, and when its owner was warned that it
                -- would be deleted as dormant. Accounts signed in before this knew only their
                -- sessions: the last one's start, else the account's creation.
                ALTER TABLE "user" ADD COLUMN lastSignInAt DATETIME;
                ALTER TABLE "user" ADD COLUMN dormantWarnedAt DATETIME;
                UPDATE "user" SET lastSignInAt = COALESCE(
                    (SELECT MAX(createdAt) FROM session WHERE session.userId = "user".id), createdAt);
                -- The door log and the stores' change logs are purged by age.
                CREATE INDEX doorAction_at ON doorAction(at);
                CREATE INDEX storeChange_at ON storeChange(at);
                """)
        }

        migrator.registerMigration("v45: a customer moves their account to a new address") { db in
            // A link to the new address moves the account when opened; the address waits,
            // sealed, with the link.
            try widenChecks(db, migration: "v45", [
                ("emailToken", "'confirm', 'reset')", "'confirm', 'reset', 'changeEmail')"),
            ])
            try db.execute(sql: "ALTER TABLE emailToken ADD COLUMN newEmail TEXT")
        }

        migrator.registerMigration("v46: door staff with accounts and PINs of their own") { db in
            // A door staff account runs the door console of the stores it is named for, and
            // nothing else; its owner signs in on those stores' door kiosks with a PIN of
            // their own, so the door log names them.
            try widenChecks(db, migration: "v46", [
                ("user", "'customer', 'manager', 'admin')", "'customer', 'staff', 'manager', 'admin')"),
            ])
            try db.execute(sql: """
                CREATE TABLE doorStaff (
                    userId INTEGER NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
                    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
                    addedAt DATETIME NOT NULL,
                    PRIMARY KEY (userId, storeId));
                CREATE INDEX doorStaff_store ON doorStaff(storeId);
                -- One PIN per person (argon2id), whichever of their stores' kiosks they use.
                CREATE TABLE doorPin (
                    userId INTEGER PRIMARY KEY REFERENCES "user"(id) ON DELETE CASCADE,
                    pinHash TEXT NOT NULL,
                    setAt DATETIME NOT NULL);
                """)
        }

        migrator.registerMigration("v47: support staff help customers, every action logged") { db in
            // Support staff look a customer up by address, cancel a reservation for them with
            // a reason they are told, and (administrators) close an account under the terms:
            // each look-up and action is logged with who, when and why. The address looked up
            // and the reason are sealed; the log outlives the account it names.
            try widenChecks(db, migration: "v47", [
                ("user", "'customer', 'staff', 'manager', 'admin')", "'customer', 'staff', 'support', 'manager', 'admin')"),
            ])
            try db.execute(sql: """
                CREATE TABLE supportAction (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    staffId INTEGER REFERENCES "user"(id) ON DELETE SET NULL,
                    customerId INTEGER REFERENCES "user"(id) ON DELETE SET NULL,
                    email TEXT NOT NULL,
                    action TEXT NOT NULL CHECK (action IN ('lookup', 'cancel', 'close')),
                    reservationId INTEGER REFERENCES reservation(id) ON DELETE SET NULL,
                    reason TEXT NOT NULL,
                    at DATETIME NOT NULL);
                CREATE INDEX supportAction_at ON supportAction(at);
                CREATE INDEX supportAction_customer ON supportAction(customerId);
                CREATE INDEX supportAction_staff ON supportAction(staffId);
                CREATE INDEX supportAction_reservation ON supportAction(reservationId);
                """)
        }

        migrator.registerMigration("v48: store groups (regions) and their managers") { db in
            try db.execute(sql: """
                -- A chain's stores in regions: a store is in one region at most, and a region's
                -- managers manage each of its stores, those added later too.
                CREATE TABLE storeGroup (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 60),
                    createdAt DATETIME NOT NULL);
                CREATE TABLE storeGroupMember (
                    storeId INTEGER PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
                    groupId INTEGER NOT NULL REFERENCES storeGroup(id) ON DELETE CASCADE);
                CREATE INDEX storeGroupMember_group ON storeGroupMember(groupId);
                CREATE TABLE groupManager (
                    userId INTEGER NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
                    groupId INTEGER NOT NULL REFERENCES storeGroup(id) ON DELETE CASCADE,
                    PRIMARY KEY (userId, groupId));
                CREATE INDEX groupManager_group ON groupManager(groupId);
                """)
        }

        migrator.registerMigration("v49: a store retired for good keeps its history") { db in
            try db.execute(sql: """
                -- A retired store takes nothing more: it leaves the shoppers' pages, its kiosks
                -- are revoked and its reservations cancelled; its visits stay for statistics.
                CREATE TABLE storeRetirement (
                    storeId INTEGER PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
                    retiredAt DATETIME NOT NULL,
                    reason TEXT NOT NULL CHECK (length(reason) <= 200));
                """)
        }

        migrator.registerMigration("v50: hours of its own on a special day") { db in
            try db.execute(sql: """
                -- The openings of a day on which a store keeps hours other than its weekday's (an
                -- early closing on Christmas Eve): one or two, as a weekday has; a closed day
                -- (storeClosure) wins over them.
                CREATE TABLE specialHours (
                    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
                    day INTEGER NOT NULL,
                    opens INTEGER NOT NULL CHECK (opens BETWEEN 0 AND 1439),
                    closes INTEGER NOT NULL CHECK (closes > opens AND closes <= opens + 1440),
                    reason TEXT NOT NULL CHECK (length(reason) <= 100),
                    PRIMARY KEY (storeId, day, opens));
                """)
        }

        return migrator
    }

    /// Rewrites CHECK constraints that only widen (`old` to `new` in `table`'s schema), as
    /// SQLite's documentation allows for a change every row already meets: no table copy.
    private static func widenChecks(_ db: Database, migration: String, _ changes: [(table: String, old: String, new: String)])
        throws
    {
        let version = try Int.fetchOne(db, sql: "PRAGMA schema_version") ?? 0
        try db.execute(sql: "PRAGMA writable_schema = ON")
        for (table, old, new) in changes {
            try db.execute(sql: "UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?",
                           arguments: [old, new, table])
            guard try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                                      arguments: [table])?.contains(new) == true
            else { throw DatabaseError(message: "\(migration): the \(table) table's check was not found") }
        }
        try db.execute(sql: "PRAGMA schema_version = \(version + 1)")
        try db.execute(sql: "PRAGMA writable_schema = OFF")
    }
}
