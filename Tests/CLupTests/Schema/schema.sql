-- index department_on_storeId
CREATE INDEX "department_on_storeId" ON "department"("storeId");

-- index doorAction_at
CREATE INDEX doorAction_at ON doorAction(at);

-- index doorAction_kiosk
CREATE INDEX doorAction_kiosk ON doorAction(kioskId, at);

-- index doorAction_on_reservationId
CREATE INDEX "doorAction_on_reservationId" ON "doorAction"("reservationId");

-- index doorAction_on_storeId
CREATE INDEX "doorAction_on_storeId" ON "doorAction"("storeId");

-- index doorAction_on_userId
CREATE INDEX "doorAction_on_userId" ON "doorAction"("userId");

-- index doorAction_store
CREATE INDEX "doorAction_store" ON "doorAction"("storeId", "at");

-- index doorLease_store
CREATE INDEX doorLease_store ON doorLease(storeId);

-- index doorStaff_store
CREATE INDEX doorStaff_store ON doorStaff(storeId);

-- index emailToken_on_userId
CREATE INDEX "emailToken_on_userId" ON "emailToken"("userId");

-- index formReply_on_at
CREATE INDEX "formReply_on_at" ON "formReply"("at");

-- index groupManager_group
CREATE INDEX groupManager_group ON groupManager(groupId);

-- index kiosk_on_storeId
CREATE INDEX "kiosk_on_storeId" ON "kiosk"("storeId");

-- index mailPace_mark
CREATE INDEX mailPace_mark ON mailPace(mark);

-- index maintenanceNotice_pending
CREATE INDEX maintenanceNotice_pending ON maintenanceNotice(id) WHERE dispatchedAt IS NULL;

-- index maintenanceNotice_reservation
CREATE INDEX maintenanceNotice_reservation ON maintenanceNotice(reservationId);

-- index maintenanceWindow_ends
CREATE INDEX maintenanceWindow_ends ON maintenanceWindow(endsAt) WHERE cancelledAt IS NULL;

-- index managedStore_on_storeId
CREATE INDEX "managedStore_on_storeId" ON "managedStore"("storeId");

-- index managedStore_on_userId
CREATE INDEX "managedStore_on_userId" ON "managedStore"("userId");

-- index notice_on_reservationId
CREATE INDEX "notice_on_reservationId" ON "notice"("reservationId");

-- index notice_pending
CREATE INDEX "notice_pending" ON "notice"("id") WHERE "dispatchedAt" IS NULL;

-- index openingInterval_on_storeId
CREATE INDEX "openingInterval_on_storeId" ON "openingInterval"("storeId");

-- index outboxMessage_due
CREATE INDEX outboxMessage_due ON outboxMessage(priority, id) WHERE sentAt IS NULL;

-- index outboxMessage_pending
CREATE INDEX "outboxMessage_pending" ON "outboxMessage"("nextAttemptAt") WHERE "sentAt" IS NULL;

-- index outboxMessage_recipientKey
CREATE INDEX outboxMessage_recipientKey ON outboxMessage(recipientKey, createdAt);

-- index outboxMessage_requestedBy
CREATE INDEX outboxMessage_requestedBy ON outboxMessage(createdAt, requestedBy) WHERE requestedBy IS NOT NULL;

-- index outboxMessage_unsent_reservation
CREATE INDEX outboxMessage_unsent_reservation ON outboxMessage(reservationId)
    WHERE sentAt IS NULL AND reservationId IS NOT NULL;

-- index pushMessage_on_pushSubscriptionId
CREATE INDEX "pushMessage_on_pushSubscriptionId" ON "pushMessage"("pushSubscriptionId");

-- index pushMessage_pending
CREATE INDEX "pushMessage_pending" ON "pushMessage"("nextAttemptAt") WHERE "sentAt" IS NULL;

-- index pushSubscription_on_userId
CREATE INDEX "pushSubscription_on_userId" ON "pushSubscription"("userId");

-- index pushSubscription_user
CREATE INDEX pushSubscription_user ON pushSubscription(userId, id);

-- index reservationDepartment_on_departmentId
CREATE INDEX "reservationDepartment_on_departmentId" ON "reservationDepartment"("departmentId");

-- index reservationDepartment_on_reservationId
CREATE INDEX "reservationDepartment_on_reservationId" ON "reservationDepartment"("reservationId");

-- index reservation_booked
CREATE INDEX reservation_booked ON reservation(slotStart, storeId) WHERE status = 'booked';

-- index reservation_bookedByStore
CREATE INDEX reservation_bookedByStore ON reservation(storeId, slotStart, people, status)
    WHERE status = 'booked';

-- index reservation_entered
CREATE INDEX reservation_entered ON reservation(storeId, enteredAt) WHERE enteredAt IS NOT NULL;

-- index reservation_live
CREATE INDEX reservation_live ON reservation(storeId, id) WHERE status IN ('waiting', 'called', 'inside');

-- index reservation_oneActive
CREATE UNIQUE INDEX reservation_oneActive ON reservation(userId) WHERE status IN ('waiting', 'called', 'booked', 'inside');

-- index reservation_request
CREATE INDEX reservation_request ON reservation(storeId, requestKey) WHERE requestKey IS NOT NULL;

-- index reservation_unanswered
CREATE INDEX reservation_unanswered ON reservation(slotStart) WHERE status = 'booked' AND confirmedAt IS NULL;

-- index reservation_user
CREATE INDEX "reservation_user" ON "reservation"("userId", "storeId");

-- index scanReceipt_received
CREATE INDEX scanReceipt_received ON scanReceipt(receivedAt);

-- index session_on_userId
CREATE INDEX "session_on_userId" ON "session"("userId");

-- index signInFailure_account
CREATE INDEX "signInFailure_account" ON "signInFailure"("account", "at");

-- index signInFailure_client
CREATE INDEX "signInFailure_client" ON "signInFailure"("clientAddress", "at");

-- index storeChange_at
CREATE INDEX storeChange_at ON storeChange(at);

-- index storeChange_on_storeId
CREATE INDEX "storeChange_on_storeId" ON "storeChange"("storeId");

-- index storeChange_on_userId
CREATE INDEX "storeChange_on_userId" ON "storeChange"("userId");

-- index storeChange_store
CREATE INDEX "storeChange_store" ON "storeChange"("storeId", "at");

-- index storeClosure_on_storeId
CREATE INDEX "storeClosure_on_storeId" ON "storeClosure"("storeId");

-- index storeDepartmentHour_on_departmentId
CREATE INDEX "storeDepartmentHour_on_departmentId" ON "storeDepartmentHour"("departmentId");

-- index storeDepartmentHour_on_storeId
CREATE INDEX "storeDepartmentHour_on_storeId" ON "storeDepartmentHour"("storeId");

-- index storeGroupMember_group
CREATE INDEX storeGroupMember_group ON storeGroupMember(groupId);

-- index storeHour_on_storeId
CREATE INDEX "storeHour_on_storeId" ON "storeHour"("storeId");

-- index supportAction_at
CREATE INDEX supportAction_at ON supportAction(at);

-- index supportAction_customer
CREATE INDEX supportAction_customer ON supportAction(customerId);

-- index supportAction_reservation
CREATE INDEX supportAction_reservation ON supportAction(reservationId);

-- index supportAction_staff
CREATE INDEX supportAction_staff ON supportAction(staffId);

-- index ticketBlock_kiosk_day
CREATE UNIQUE INDEX ticketBlock_kiosk_day ON ticketBlock(kioskId, day);

-- index ticketBlock_store_day
CREATE INDEX ticketBlock_store_day ON ticketBlock(storeId, day);

-- index user_loyal
CREATE INDEX user_loyal ON user(id) WHERE loyaltyOptIn = 1;

-- index waitlistNotice_pending
CREATE INDEX waitlistNotice_pending ON waitlistNotice(id) WHERE dispatchedAt IS NULL;

-- index waitlist_oneOpen
CREATE UNIQUE INDEX waitlist_oneOpen ON waitlist(userId) WHERE status IN ('waiting', 'offered');

-- index waitlist_open
CREATE INDEX waitlist_open ON waitlist(storeId, slotStart, id) WHERE status IN ('waiting', 'offered');

-- index waitlist_user
CREATE INDEX waitlist_user ON waitlist(userId, id);

-- table dataKeyCheck
CREATE TABLE dataKeyCheck (id INTEGER PRIMARY KEY CHECK (id = 1), sealed TEXT NOT NULL);

-- table department
CREATE TABLE "department" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "name" TEXT NOT NULL CHECK ((LENGTH("name") >= 1) AND (LENGTH("name") <= 60)), "estimatedMinutes" INTEGER NOT NULL CHECK (("estimatedMinutes" >= 1) AND ("estimatedMinutes" <= 240)), "position" INTEGER NOT NULL, "retired" BOOLEAN NOT NULL DEFAULT 0, UNIQUE ("storeId", "name"));

-- table doorAction
CREATE TABLE "doorAction" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "reservationId" INTEGER REFERENCES "reservation"("id") ON DELETE SET NULL, "number" INTEGER, "action" TEXT NOT NULL CHECK ("action" IN ('recall', 'noShow', 'admit', 'letOut', 'leftUnscanned', 'scanRefused', 'offlineConflict', 'priority', 'offlineDoor', 'phoneIn')), "reason" TEXT NOT NULL CHECK (LENGTH("reason") <= 1200), "outcome" TEXT NOT NULL, "userId" INTEGER REFERENCES "user"("id") ON DELETE SET NULL, "at" DATETIME NOT NULL, "kioskId" INTEGER REFERENCES "kiosk"("id") ON DELETE SET NULL, "staffName" TEXT);

-- table doorLease
CREATE TABLE doorLease (
    kioskId INTEGER PRIMARY KEY REFERENCES kiosk(id) ON DELETE CASCADE,
    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
    version INTEGER NOT NULL DEFAULT 0,
    places INTEGER NOT NULL DEFAULT 0 CHECK (places >= 0),
    held INTEGER NOT NULL DEFAULT 0 CHECK (held >= places),
    renewedAt DATETIME);

-- table doorPin
CREATE TABLE doorPin (
    userId INTEGER PRIMARY KEY REFERENCES "user"(id) ON DELETE CASCADE,
    pinHash TEXT NOT NULL,
    setAt DATETIME NOT NULL);

-- table doorStaff
CREATE TABLE doorStaff (
    userId INTEGER NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
    addedAt DATETIME NOT NULL,
    PRIMARY KEY (userId, storeId));

-- table emailToken
CREATE TABLE "emailToken" ("tokenHash" TEXT PRIMARY KEY NOT NULL, "userId" INTEGER NOT NULL REFERENCES "user"("id") ON DELETE CASCADE, "purpose" TEXT NOT NULL CHECK ("purpose" IN ('confirm', 'reset', 'changeEmail')), "expiresAt" DATETIME NOT NULL, "usedAt" DATETIME, newEmail TEXT);

-- table formReply
CREATE TABLE "formReply" ("key" TEXT PRIMARY KEY NOT NULL CHECK (LENGTH("key") <= 64), "at" DATETIME NOT NULL, "location" TEXT CHECK (LENGTH("location") <= 2000));

-- table groupManager
CREATE TABLE groupManager (
    userId INTEGER NOT NULL REFERENCES "user"(id) ON DELETE CASCADE,
    groupId INTEGER NOT NULL REFERENCES storeGroup(id) ON DELETE CASCADE,
    PRIMARY KEY (userId, groupId));

-- table kiosk
CREATE TABLE "kiosk" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "label" TEXT NOT NULL CHECK ((LENGTH("label") >= 1) AND (LENGTH("label") <= 60)), "keyHash" TEXT NOT NULL UNIQUE, "createdAt" DATETIME NOT NULL, "revokedAt" DATETIME, role TEXT NOT NULL DEFAULT 'door' CHECK (role IN ('dispenser', 'door')));

-- table kioskContact
CREATE TABLE kioskContact (
    kioskId INTEGER PRIMARY KEY REFERENCES kiosk(id) ON DELETE CASCADE,
    seenAt DATETIME NOT NULL,
    version TEXT NOT NULL CHECK (length(version) <= 40),
    queued INTEGER NOT NULL CHECK (queued >= 0),
    clockOffsetMs INTEGER);

-- table mailPace
CREATE TABLE mailPace (
    client TEXT PRIMARY KEY CHECK (length(client) <= 64),
    mark DATETIME NOT NULL);

-- table maintenanceNotice
CREATE TABLE maintenanceNotice (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    windowId INTEGER NOT NULL REFERENCES maintenanceWindow(id) ON DELETE CASCADE,
    reservationId INTEGER NOT NULL REFERENCES reservation(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('scheduled', 'cancelled')),
    createdAt DATETIME NOT NULL,
    dispatchedAt DATETIME,
    UNIQUE (windowId, reservationId, kind));

-- table maintenanceWindow
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

-- table managedStore
CREATE TABLE "managedStore" ("userId" INTEGER NOT NULL REFERENCES "user"("id") ON DELETE CASCADE, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, PRIMARY KEY ("userId", "storeId"));

-- table notice
CREATE TABLE "notice" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "reservationId" INTEGER NOT NULL REFERENCES "reservation"("id") ON DELETE CASCADE, "kind" TEXT NOT NULL CHECK ("kind" IN ('leaveNow', 'yourTurn', 'reminder', 'cancelled', 'expired', 'autoCancelled')), "reason" TEXT, "createdAt" DATETIME NOT NULL, "dispatchedAt" DATETIME, emailOnly BOOLEAN NOT NULL DEFAULT 0 CHECK (emailOnly IN (0, 1)), UNIQUE ("reservationId", "kind"));

-- table openingInterval
CREATE TABLE "openingInterval" ("storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "weekday" INTEGER NOT NULL CHECK (("weekday" >= 1) AND ("weekday" <= 7)), "opens" INTEGER NOT NULL CHECK (("opens" >= 0) AND ("opens" < 1440)), "closes" INTEGER NOT NULL, PRIMARY KEY ("storeId", "weekday", "opens"), CHECK (closes > opens AND closes <= opens + 1440));

-- table outboxMessage
CREATE TABLE "outboxMessage" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "recipient" TEXT NOT NULL, "subject" TEXT NOT NULL, "body" TEXT NOT NULL, "createdAt" DATETIME NOT NULL, "attempts" INTEGER NOT NULL DEFAULT 0, "nextAttemptAt" DATETIME NOT NULL, "sentAt" DATETIME, "lastError" TEXT, recipientKey TEXT, requestedBy TEXT CHECK (length(requestedBy) <= 64), priority INTEGER NOT NULL DEFAULT 1 CHECK (priority BETWEEN 0 AND 3), reservationId INTEGER REFERENCES reservation(id) ON DELETE SET NULL, noticeKind TEXT
    CHECK (noticeKind IN ('leaveNow', 'yourTurn', 'reminder', 'cancelled', 'expired', 'autoCancelled')));

-- table pushMessage
CREATE TABLE "pushMessage" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "pushSubscriptionId" INTEGER NOT NULL REFERENCES "pushSubscription"("id") ON DELETE CASCADE, "payload" TEXT NOT NULL, "urgency" TEXT NOT NULL, "createdAt" DATETIME NOT NULL, "expiresAt" DATETIME NOT NULL, "attempts" INTEGER NOT NULL DEFAULT 0, "nextAttemptAt" DATETIME NOT NULL, "sentAt" DATETIME, "lastError" TEXT, noticeId INTEGER REFERENCES notice(id) ON DELETE SET NULL);

-- table pushSubscription
CREATE TABLE "pushSubscription" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "userId" INTEGER NOT NULL REFERENCES "user"("id") ON DELETE CASCADE, "endpoint" TEXT NOT NULL UNIQUE ON CONFLICT REPLACE CHECK ((LENGTH("endpoint") >= 10) AND (LENGTH("endpoint") <= 1000)), "p256dh" TEXT NOT NULL CHECK (LENGTH("p256dh") <= 200), "auth" TEXT NOT NULL CHECK (LENGTH("auth") <= 100), "createdAt" DATETIME NOT NULL, failures INTEGER NOT NULL DEFAULT 0);

-- table reservation
CREATE TABLE "reservation" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "userId" INTEGER REFERENCES "user"("id") ON DELETE SET NULL, "kind" TEXT NOT NULL CHECK ("kind" IN ('lineUp', 'booking')), "walkIn" BOOLEAN NOT NULL DEFAULT 0, "day" INTEGER NOT NULL, "number" INTEGER NOT NULL CHECK ("number" >= 1), "people" INTEGER NOT NULL CHECK ("people" BETWEEN 1 AND 8), "residenceMinutes" INTEGER NOT NULL CHECK (("residenceMinutes" >= 5) AND ("residenceMinutes" <= 240)), "travelMode" TEXT CHECK (("travelMode" IS NULL) OR ("travelMode" IN ('walking', 'car', 'transit'))), "slotStart" DATETIME, "status" TEXT NOT NULL CHECK ("status" IN ('waiting', 'called', 'booked', 'inside', 'done', 'cancelled', 'expired')), "createdAt" DATETIME NOT NULL, "calledAt" DATETIME, "enteredAt" DATETIME, "exitedAt" DATETIME, "endedAt" DATETIME, "requestKey" TEXT, "travelMetres" INTEGER CHECK (("travelMetres" IS NULL) OR (("travelMetres" >= 0) AND ("travelMetres" <= 1000000))), "leftAt" DATETIME, "remindedAt" DATETIME, "confirmedAt" DATETIME, "expectedEntry" DATETIME, "pace" DOUBLE, priority BOOLEAN NOT NULL DEFAULT 0, queuePosition INTEGER, UNIQUE ("storeId", "day", "number"), CHECK ((kind = 'booking') = (slotStart IS NOT NULL)), CHECK (NOT (walkIn AND (kind = 'booking' OR userId IS NOT NULL))), CHECK (exitedAt IS NULL OR enteredAt IS NOT NULL));

-- table reservationDepartment
CREATE TABLE "reservationDepartment" ("reservationId" INTEGER NOT NULL REFERENCES "reservation"("id") ON DELETE CASCADE, "departmentId" INTEGER NOT NULL REFERENCES "department"("id") ON DELETE CASCADE, PRIMARY KEY ("reservationId", "departmentId"));

-- table scanReceipt
CREATE TABLE scanReceipt (
    kioskId INTEGER NOT NULL REFERENCES kiosk(id) ON DELETE CASCADE,
    scanId TEXT NOT NULL CHECK (length(scanId) BETWEEN 16 AND 64),
    scannedAt DATETIME NOT NULL,
    receivedAt DATETIME NOT NULL,
    answer TEXT NOT NULL,
    PRIMARY KEY (kioskId, scanId)
) WITHOUT ROWID;

-- table session
CREATE TABLE "session" ("idHash" TEXT PRIMARY KEY NOT NULL, "userId" INTEGER NOT NULL REFERENCES "user"("id") ON DELETE CASCADE, "csrfToken" TEXT NOT NULL, "createdAt" DATETIME NOT NULL, "lastSeenAt" DATETIME NOT NULL);

-- table signInFailure
CREATE TABLE "signInFailure" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "account" TEXT NOT NULL, "clientAddress" TEXT NOT NULL, "at" DATETIME NOT NULL);

-- table specialHours
CREATE TABLE specialHours (
    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
    day INTEGER NOT NULL,
    opens INTEGER NOT NULL CHECK (opens BETWEEN 0 AND 1439),
    closes INTEGER NOT NULL CHECK (closes > opens AND closes <= opens + 1440),
    reason TEXT NOT NULL CHECK (length(reason) <= 100),
    PRIMARY KEY (storeId, day, opens));

-- table staffPin
CREATE TABLE staffPin (
    storeId INTEGER PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
    pinHash TEXT NOT NULL,
    setAt DATETIME NOT NULL,
    setBy INTEGER REFERENCES user(id) ON DELETE SET NULL
);

-- table store
CREATE TABLE "store" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL CHECK ((LENGTH("name") >= 1) AND (LENGTH("name") <= 100)), "address" TEXT NOT NULL CHECK ((LENGTH("address") >= 1) AND (LENGTH("address") <= 200)), "phone" TEXT NOT NULL CHECK (LENGTH("phone") <= 40), "latitude" DOUBLE NOT NULL CHECK (("latitude" >= -90) AND ("latitude" <= 90)), "longitude" DOUBLE NOT NULL CHECK (("longitude" >= -180) AND ("longitude" <= 180)), "capacity" INTEGER NOT NULL CHECK (("capacity" >= 1) AND ("capacity" <= 10000)), "timeZone" TEXT NOT NULL, "walkInPercent" INTEGER NOT NULL CHECK (("walkInPercent" >= 0) AND ("walkInPercent" <= 90)) DEFAULT 20, "slotMinutes" INTEGER NOT NULL CHECK ("slotMinutes" IN (10, 15, 20, 30, 60)) DEFAULT 15, "slotCapacity" INTEGER NOT NULL CHECK (("slotCapacity" >= 1) AND ("slotCapacity" <= 10000)) DEFAULT 1, "entryBeforeMinutes" INTEGER NOT NULL CHECK (("entryBeforeMinutes" >= 0) AND ("entryBeforeMinutes" <= 60)) DEFAULT 10, "entryAfterMinutes" INTEGER NOT NULL CHECK (("entryAfterMinutes" >= 0) AND ("entryAfterMinutes" <= 60)) DEFAULT 15, "callGraceMinutes" INTEGER NOT NULL CHECK (("callGraceMinutes" >= 1) AND ("callGraceMinutes" <= 60)) DEFAULT 10, priorityEvery INTEGER NOT NULL DEFAULT 0
    CHECK (priorityEvery BETWEEN 0 AND 10), priorityOnline BOOLEAN NOT NULL DEFAULT 0, largestParty INTEGER NOT NULL DEFAULT 2 CHECK (largestParty BETWEEN 1 AND 8));

-- table storeChange
CREATE TABLE "storeChange" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "userId" INTEGER REFERENCES "user"("id") ON DELETE SET NULL, "at" DATETIME NOT NULL, "field" TEXT NOT NULL, "before" TEXT NOT NULL, "after" TEXT NOT NULL);

-- table storeClosure
CREATE TABLE "storeClosure" ("storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "day" INTEGER NOT NULL, "reason" TEXT NOT NULL CHECK (LENGTH("reason") <= 100), PRIMARY KEY ("storeId", "day"));

-- table storeDepartmentHour
CREATE TABLE "storeDepartmentHour" ("storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "departmentId" INTEGER NOT NULL REFERENCES "department"("id") ON DELETE CASCADE, "hour" INTEGER NOT NULL, "entries" INTEGER NOT NULL DEFAULT 0, PRIMARY KEY ("storeId", "departmentId", "hour"));

-- table storeGroup
CREATE TABLE storeGroup (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 60),
    createdAt DATETIME NOT NULL);

-- table storeGroupMember
CREATE TABLE storeGroupMember (
    storeId INTEGER PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
    groupId INTEGER NOT NULL REFERENCES storeGroup(id) ON DELETE CASCADE);

-- table storeHour
CREATE TABLE "storeHour" ("storeId" INTEGER NOT NULL REFERENCES "store"("id") ON DELETE CASCADE, "hour" INTEGER NOT NULL, "entries" DOUBLE NOT NULL DEFAULT 0, "entryPeople" DOUBLE NOT NULL DEFAULT 0, "lineUps" DOUBLE NOT NULL DEFAULT 0, "walkIns" DOUBLE NOT NULL DEFAULT 0, "bookings" DOUBLE NOT NULL DEFAULT 0, "waitSeconds" DOUBLE NOT NULL DEFAULT 0, "waitCount" DOUBLE NOT NULL DEFAULT 0, "callSeconds" DOUBLE NOT NULL DEFAULT 0, "calls" DOUBLE NOT NULL DEFAULT 0, "doorSeconds" DOUBLE NOT NULL DEFAULT 0, "doorCount" DOUBLE NOT NULL DEFAULT 0, "exits" DOUBLE NOT NULL DEFAULT 0, "declaredSeconds" DOUBLE NOT NULL DEFAULT 0, "actualSeconds" DOUBLE NOT NULL DEFAULT 0, "personSeconds" DOUBLE NOT NULL DEFAULT 0, "peakInside" DOUBLE NOT NULL DEFAULT 0, "noShows" DOUBLE NOT NULL DEFAULT 0, "expiries" DOUBLE NOT NULL DEFAULT 0, "cancellations" DOUBLE NOT NULL DEFAULT 0, priorityEntries DOUBLE NOT NULL DEFAULT 0, priorityWaitSeconds DOUBLE NOT NULL DEFAULT 0, PRIMARY KEY ("storeId", "hour"));

-- table storeInside
CREATE TABLE storeInside (
    storeId INTEGER PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
    people INTEGER NOT NULL CHECK (people >= 0));

-- table storeLoad
CREATE TABLE "storeLoad" ("storeId" INTEGER PRIMARY KEY REFERENCES "store"("id") ON DELETE CASCADE, "measuredVisits" INTEGER NOT NULL DEFAULT 0, "declaredSeconds" DOUBLE NOT NULL DEFAULT 0, "actualSeconds" DOUBLE NOT NULL DEFAULT 0, "logRatioSum" DOUBLE NOT NULL DEFAULT 0, "logRatioSquares" DOUBLE NOT NULL DEFAULT 0, "loggedVisits" INTEGER NOT NULL DEFAULT 0, "calls" INTEGER NOT NULL DEFAULT 0, "noShows" INTEGER NOT NULL DEFAULT 0, "callToDoorSeconds" DOUBLE NOT NULL DEFAULT 0, "atHandEntries" INTEGER NOT NULL DEFAULT 0, "entries" DOUBLE NOT NULL DEFAULT 0, "entryErrorSum" DOUBLE NOT NULL DEFAULT 0, "entryErrorSquares" DOUBLE NOT NULL DEFAULT 0, "unscannedVisits" INTEGER NOT NULL DEFAULT 0, "visitsBeforeUnscanned" INTEGER NOT NULL DEFAULT 0);

-- table storeRetirement
CREATE TABLE storeRetirement (
    storeId INTEGER PRIMARY KEY REFERENCES store(id) ON DELETE CASCADE,
    retiredAt DATETIME NOT NULL,
    reason TEXT NOT NULL CHECK (length(reason) <= 200));

-- table storeSigningKey
CREATE TABLE storeSigningKey (
    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
    keyId INTEGER NOT NULL CHECK (keyId BETWEEN 1 AND 65535),
    createdAt DATETIME NOT NULL,
    retiresAt DATETIME,
    PRIMARY KEY (storeId, keyId)
) WITHOUT ROWID;

-- table supportAction
CREATE TABLE supportAction (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    staffId INTEGER REFERENCES "user"(id) ON DELETE SET NULL,
    customerId INTEGER REFERENCES "user"(id) ON DELETE SET NULL,
    email TEXT NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('lookup', 'cancel', 'close')),
    reservationId INTEGER REFERENCES reservation(id) ON DELETE SET NULL,
    reason TEXT NOT NULL,
    at DATETIME NOT NULL);

-- table ticketBlock
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

-- table user
CREATE TABLE "user" ("id" INTEGER PRIMARY KEY AUTOINCREMENT, "email" TEXT NOT NULL, "displayName" TEXT NOT NULL, "passwordHash" TEXT NOT NULL, "role" TEXT NOT NULL CHECK ("role" IN ('customer', 'staff', 'support', 'manager', 'admin')) DEFAULT 'customer', "emailConfirmedAt" DATETIME, "travelMode" TEXT NOT NULL CHECK ("travelMode" IN ('walking', 'car', 'transit')) DEFAULT 'walking', "loyaltyOptIn" BOOLEAN NOT NULL DEFAULT 0, "createdAt" DATETIME NOT NULL, "notifyEmail" BOOLEAN NOT NULL DEFAULT 1, "notifyPush" BOOLEAN NOT NULL DEFAULT 1, "language" TEXT NOT NULL CHECK ("language" IN ('en', 'it')) DEFAULT 'en', termsVersion INTEGER CHECK (termsVersion >= 1), termsAcceptedAt DATETIME, emailKey TEXT UNIQUE, pushLostAt DATETIME, lastSignInAt DATETIME, dormantWarnedAt DATETIME);

-- table waitlist
CREATE TABLE waitlist (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    storeId INTEGER NOT NULL REFERENCES store(id) ON DELETE CASCADE,
    userId INTEGER NOT NULL REFERENCES user(id) ON DELETE CASCADE,
    slotStart DATETIME NOT NULL,
    people INTEGER NOT NULL CHECK (people BETWEEN 1 AND 8),
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

-- table waitlistNotice
CREATE TABLE waitlistNotice (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    waitlistId INTEGER NOT NULL REFERENCES waitlist(id) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('offer', 'passed', 'closed')),
    createdAt DATETIME NOT NULL,
    dispatchedAt DATETIME,
    UNIQUE (waitlistId, kind)
);

-- table walkInContact
CREATE TABLE walkInContact (
    reservationId INTEGER PRIMARY KEY REFERENCES reservation(id) ON DELETE CASCADE,
    email TEXT NOT NULL,
    language TEXT NOT NULL CHECK (length(language) <= 8),
    createdAt DATETIME NOT NULL);

-- trigger reservation_capacity
CREATE TRIGGER reservation_capacity BEFORE UPDATE OF status ON reservation
WHEN NEW.status = 'inside' AND OLD.status <> 'inside'
BEGIN SELECT RAISE(ABORT, 'store full')
WHERE NEW.people + COALESCE((SELECT people FROM storeInside WHERE storeId = NEW.storeId), 0)
      > (SELECT capacity FROM store WHERE id = NEW.storeId); END;

-- trigger reservation_capacityOnInsert
CREATE TRIGGER reservation_capacityOnInsert BEFORE INSERT ON reservation
WHEN NEW.status = 'inside'
BEGIN SELECT RAISE(ABORT, 'store full')
WHERE NEW.people + COALESCE((SELECT people FROM storeInside WHERE storeId = NEW.storeId), 0)
      > (SELECT capacity FROM store WHERE id = NEW.storeId); END;

-- trigger reservation_insideOnDelete
CREATE TRIGGER reservation_insideOnDelete AFTER DELETE ON reservation
WHEN OLD.status = 'inside'
BEGIN UPDATE storeInside SET people = people - OLD.people WHERE storeId = OLD.storeId; END;

-- trigger reservation_insideOnInsert
CREATE TRIGGER reservation_insideOnInsert AFTER INSERT ON reservation
WHEN NEW.status = 'inside'
BEGIN INSERT INTO storeInside (storeId, people) VALUES (NEW.storeId, NEW.people)
      ON CONFLICT (storeId) DO UPDATE SET people = people + excluded.people; END;

-- trigger reservation_insideOnUpdate
CREATE TRIGGER reservation_insideOnUpdate AFTER UPDATE OF status, people, storeId ON reservation
WHEN OLD.status = 'inside' OR NEW.status = 'inside'
BEGIN
    UPDATE storeInside SET people = people - OLD.people
    WHERE storeId = OLD.storeId AND OLD.status = 'inside';
    INSERT INTO storeInside (storeId, people) SELECT NEW.storeId, NEW.people WHERE NEW.status = 'inside'
    ON CONFLICT (storeId) DO UPDATE SET people = people + excluded.people;
END;

-- trigger reservation_slotCapacity
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
END;

-- trigger store_load
CREATE TRIGGER store_load AFTER INSERT ON store
BEGIN INSERT INTO storeLoad(storeId) VALUES (NEW.id); END;

-- trigger store_signingKey
CREATE TRIGGER store_signingKey AFTER INSERT ON store
BEGIN INSERT INTO storeSigningKey (storeId, keyId, createdAt)
      VALUES (NEW.id, 1, strftime('%Y-%m-%d %H:%M:%f', 'now')); END;
