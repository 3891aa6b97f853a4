import GRDB

extension AppDatabase {
    /// The schema's history. Migrations are append-only: never edit one that has shipped,
    /// add a new one. The schema itself backs the rules (CHECK, UNIQUE, foreign keys).
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

        return migrator
    }
}
