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

        return migrator
    }
}
