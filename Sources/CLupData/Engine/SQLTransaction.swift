import CLupDomain
import Foundation
import GRDB

/// One transaction's statements, the same for both engines (`SQL`). A transaction is written
/// once over this protocol, in its area's file; what the engines do differently is a step of
/// its own here, never a branch in the transaction.
///
/// `AppDatabase.transaction` runs a write and `AppDatabase.reading` a read, on whichever
/// engine the database is (docs/architecture.md, "A new transaction").
protocol SQLTransaction {
    /// Runs `sql`; returns how many rows it changed.
    @discardableResult
    func execute(_ sql: SQL) throws -> Int

    /// Runs `sql`, whose result nothing reads, before the transaction's next statement:
    /// PostgreSQL sends it with that one, in the same round trip (a refusal is then thrown by
    /// that statement, failing the transaction all the same); SQLite runs it at once.
    func executeLater(_ sql: SQL) throws

    /// Runs `sql`, the INSERT of reservation `id`, as `executeLater` does; until it is sent, a
    /// change of the row may take its place (`replaceLater`).
    func insertLater(_ sql: SQL, reservation id: ReservationID) throws

    /// Puts `sql` in place of reservation `id`'s INSERT (`insertLater`) if that has not been
    /// sent; false if it has (always on SQLite, which runs each statement at once).
    func replaceLater(reservation id: ReservationID, with sql: SQL) -> Bool

    /// Every row `sql` returns.
    func rows(_ sql: SQL) throws -> [SQLRow]

    /// The rows each of `statements` returns, in order, for statements that do not depend on
    /// each other's results: PostgreSQL sends them in one round trip, SQLite runs them one by one.
    func rows(of statements: [SQL]) throws -> [[SQLRow]]

    /// Calls `body` with each row `sql` returns, one at a time where the engine can (SQLite's
    /// cursor): for passes over a whole history.
    func each(_ sql: SQL, _ body: (SQLRow) throws -> Void) throws

    /// Waits until no other transaction holds `key` in `space`, and holds it until this one
    /// ends. PostgreSQL takes an advisory transaction lock: two workers may decide the same
    /// thing at once. SQLite does nothing: its one writer already runs transactions one at a time.
    func serialize(_ key: String, in space: Int64) throws

    /// Notes what the transaction changed that the board or the credential cache mirrors.
    /// SQLite's observer sees every row changed by itself, and these do nothing there;
    /// PostgreSQL reads the rows named back after the commit and tells the other workers.
    func changedCredentials()
    func changed(store id: StoreID)
    func changed(reservation id: ReservationID, of storeId: StoreID)
    func changed(loadOf storeId: StoreID)

    /// Store `id` as a transaction deciding on its places reads it, or nil if there is no such
    /// store. SQLite's one writer keeps every other transaction out, and the board holds every
    /// commit: it is read from there, or from the rows once the transaction has changed a store
    /// (the board takes a change as it commits). PostgreSQL locks the store's row and its
    /// version's (`FOR UPDATE`) until the transaction ends — the writes of one store queue
    /// behind each other, those of different stores run side by side — and reads it from the
    /// board if the board holds the store as committed at that version, from its rows
    /// otherwise, once per transaction. `statements`, read under the lock, go with it: in the
    /// same round trip on PostgreSQL.
    func lockStore(_ id: StoreID, alongWith statements: [SQL]) throws
        -> (definition: StoreBoard.Definition?, answers: [[SQLRow]])

    /// Takes the customer's row before any store's, where a transaction will lock stores for
    /// them (a reservation replaced at another store): PostgreSQL's workers then always lock
    /// in the same order, customer first, and never wait for each other in a circle. Nothing
    /// on SQLite.
    func lockCustomer(_ id: UserID) throws

    /// The store's live traffic as committed, with this transaction's own changes: its queued,
    /// called and inside tickets, its bookings near `now`, and its visit model. SQLite reads
    /// the board and what the transaction changed; PostgreSQL too, under the store's lock, if
    /// the board holds the store as committed at the version locked, and the store's rows
    /// otherwise.
    func traffic(storeId: StoreID, now: Date) throws -> LiveTraffic

    /// The people inside the store now. SQLite keeps the count in `storeInside` (the trigger
    /// that guards capacity keeps it, migration 35); PostgreSQL's guard sums the rows under the
    /// store's lock, and so does this.
    func peopleInside(storeId: StoreID) throws -> Int

    /// Sets aside `count` reservation ids that the table will never give a reservation by
    /// itself, for a kiosk's block of tickets printed offline; returns the first. SQLite moves
    /// its `sqlite_sequence` past them; PostgreSQL its sequence, with the table locked against
    /// inserts meanwhile and the ids taken before their insert held off (`newReservationIdSQL`),
    /// so no other store's reservation takes an id inside the block.
    func setAsideReservationIds(_ count: Int) throws -> ReservationID

    /// Keeps every other transaction from writing `tables` until this one ends (a rebuild of
    /// what they hold): PostgreSQL locks them; SQLite's one writer does already.
    func lockTables(_ tables: [String]) throws

    /// The reservations this transaction has inserted, as they now are (`OwnReservations`).
    var own: OwnReservations { get }

    /// `date` as a read of it back from a row gives it: SQLite keeps text to the millisecond,
    /// PostgreSQL whole microseconds.
    func asStored(_ date: Date) -> Date

    /// A statement whose one value is a new reservation's id, read with what is read before its
    /// INSERT (`ReservationReads`), so that the INSERT need not be waited for
    /// (`AppDatabase.insert(taking:_:_:)`): PostgreSQL's sequence. Nil on SQLite, where an
    /// INSERT costs no round trip.
    var newReservationIdSQL: SQL? { get }
}

extension SQLTransaction {
    /// Store `id` under its lock (`lockStore(_:alongWith:)`), or nil if there is no such store.
    func lockStore(_ id: StoreID) throws -> StoreBoard.Definition? {
        try lockStore(id, alongWith: []).definition
    }

    /// The first row `sql` returns, or nil.
    func row(_ sql: SQL) throws -> SQLRow? {
        try rows(sql).first
    }

    /// Each row `sql` returns, as a record.
    func records<Record: SQLRecord>(_ sql: SQL, as type: Record.Type = Record.self) throws -> [Record] {
        try rows(sql).map { try $0.record(Record.self) }
    }

    /// The first row `sql` returns as a record, or nil.
    func record<Record: SQLRecord>(_ sql: SQL, as type: Record.Type = Record.self) throws -> Record? {
        try row(sql)?.record(Record.self)
    }

    /// The first column of every row `sql` returns.
    func column<Value: SQLResult>(_ sql: SQL, as type: Value.Type = Value.self) throws -> [Value?] {
        try rows(sql).map { try $0.value(0, as: Value.self) }
    }

    /// The first column of the first row `sql` returns, or nil.
    func value<Value: SQLResult>(_ sql: SQL, as type: Value.Type = Value.self) throws -> Value? {
        try row(sql)?.value(0, as: Value.self)
    }

    /// Whether `sql` returns a row.
    func exists(_ sql: SQL) throws -> Bool {
        try row(sql) != nil
    }
}

/// A SQLite transaction: GRDB's connection inside it, and the database it belongs to (for
/// the board, which the engine-specific steps read; nil where only statements are run, as
/// the board's observer runs them after a commit).
struct SQLiteTransaction: SQLTransaction {
    let db: Database
    var database: AppDatabase? = nil
    let own = OwnReservations()

    func execute(_ sql: SQL) throws -> Int {
        let (text, arguments) = sql.sqlite
        if sql.hasFixedText {
            try db.cachedStatement(sql: text).execute(arguments: arguments)
        } else {
            try db.execute(sql: text, arguments: arguments)
        }
        return db.changesCount
    }

    func executeLater(_ sql: SQL) throws {
        try execute(sql)
    }

    func insertLater(_ sql: SQL, reservation id: ReservationID) throws {
        try execute(sql)
    }

    func replaceLater(reservation id: ReservationID, with sql: SQL) -> Bool { false }

    func rows(of statements: [SQL]) throws -> [[SQLRow]] {
        try statements.map(rows)
    }

    func rows(_ sql: SQL) throws -> [SQLRow] {
        let (text, arguments) = sql.sqlite
        let statement = sql.hasFixedText ? try db.cachedStatement(sql: text) : try db.makeStatement(sql: text)
        return try Row.fetchAll(statement, arguments: arguments).map(SQLRow.init)
    }

    func each(_ sql: SQL, _ body: (SQLRow) throws -> Void) throws {
        let (text, arguments) = sql.sqlite
        let rows = try Row.fetchCursor(db, sql: text, arguments: arguments)
        while let row = try rows.next() { try body(SQLRow(row)) }
    }

    func serialize(_ key: String, in space: Int64) throws {}
    func lockTables(_ tables: [String]) throws {}
    func changedCredentials() {}

    /// Tells the board's observer, so that a store's hours, closures or departments deleted
    /// by this transaction reload that store rather than the whole board (a deleted row's
    /// store cannot be read back).
    func changed(store id: StoreID) {
        try? database?.observer.declare(store: id)
    }

    func changed(reservation id: ReservationID, of storeId: StoreID) {}
    func changed(loadOf storeId: StoreID) {}
    func lockCustomer(_ id: UserID) throws {}

    func asStored(_ date: Date) -> Date {
        Date.fromDatabaseValue(date.databaseText.databaseValue) ?? date
    }

    var newReservationIdSQL: SQL? { nil }

    func lockStore(_ id: StoreID, alongWith statements: [SQL]) throws
        -> (definition: StoreBoard.Definition?, answers: [[SQLRow]])
    {
        (try board.transactionDefinition(storeId: id, db), try rows(of: statements))
    }

    func traffic(storeId: StoreID, now: Date) throws -> LiveTraffic {
        try board.transactionTraffic(storeId: storeId, db)
    }

    func peopleInside(storeId: StoreID) throws -> Int {
        try value(AppDatabase.peopleInsideSQL(storeId: storeId)) ?? 0
    }

    func setAsideReservationIds(_ count: Int) throws -> ReservationID {
        let last = try value("""
            SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'reservation'), 0),
                       COALESCE((SELECT MAX(id) FROM reservation), 0))
            """, as: Int64.self) ?? 0
        try execute("DELETE FROM sqlite_sequence WHERE name = 'reservation'")
        try execute("INSERT INTO sqlite_sequence (name, seq) VALUES ('reservation', \(last + Int64(count)))")
        return ReservationID(rawValue: last + 1)
    }

    /// The database whose board the steps read: given wherever a transaction may decide.
    private var board: AppDatabase {
        guard let database else { preconditionFailure("a SQLite transaction that decides needs its database") }
        return database
    }
}

/// A PostgreSQL transaction as the transactions written once see it.
struct PostgresStatements: SQLTransaction {
    let transaction: PostgresTransaction

    func execute(_ sql: SQL) throws -> Int {
        try transaction.execute(sql)
    }

    func executeLater(_ sql: SQL) throws {
        try transaction.executeLater(sql)
    }

    func insertLater(_ sql: SQL, reservation id: ReservationID) throws {
        try transaction.executeLater(sql, replaceableAs: id)
    }

    func replaceLater(reservation id: ReservationID, with sql: SQL) -> Bool {
        transaction.replaceLater(id, with: sql)
    }

    func rows(_ sql: SQL) throws -> [SQLRow] {
        try transaction.rows(sql).map(SQLRow.init)
    }

    func rows(of statements: [SQL]) throws -> [[SQLRow]] {
        try transaction.batch(statements).map { $0.map(SQLRow.init) }
    }

    func each(_ sql: SQL, _ body: (SQLRow) throws -> Void) throws {
        for row in try rows(sql) { try body(row) }
    }

    func serialize(_ key: String, in space: Int64) throws {
        try transaction.execute("SELECT pg_advisory_xact_lock(hashtextextended(\(key), \(space)))")
    }

    func lockTables(_ tables: [String]) throws {
        try execute("LOCK TABLE \(unescaped: tables.joined(separator: ", ")) IN SHARE ROW EXCLUSIVE MODE")
    }

    func changedCredentials() { transaction.changedCredentials() }
    var own: OwnReservations { transaction.own }

    func asStored(_ date: Date) -> Date {
        Date(timeIntervalSince1970: PostgresParameter.epoch + Double(PostgresParameter.microseconds(date)) / 1_000_000)
    }

    /// Taken under a shared hold of `idLock`, until the transaction ends: a kiosk's block of
    /// ids (`setAsideReservationIds`) is set aside under its exclusive hold, and no id taken
    /// meanwhile can fall inside the block (the INSERT that took its id from the table's
    /// default waited for the table's lock instead).
    var newReservationIdSQL: SQL? {
        "SELECT nextval('reservation_id_seq') FROM pg_advisory_xact_lock_shared(\(Self.idLock))"
    }

    /// The advisory lock that keeps ids taken before their INSERT out of a kiosk's block.
    static let idLock: Int64 = 7_311_005

    func changed(store id: StoreID) { transaction.changed(store: id) }
    func changed(reservation id: ReservationID, of storeId: StoreID) { transaction.changed(reservation: id, of: storeId) }
    func changed(loadOf storeId: StoreID) { transaction.changed(loadOf: storeId) }

    /// Locks the store's row and its version's (`storeVersion`) in one statement, and reads
    /// the store from the board if the board holds it as committed at that version, from its
    /// rows otherwise.
    func lockStore(_ id: StoreID, alongWith statements: [SQL]) throws
        -> (definition: StoreBoard.Definition?, answers: [[SQLRow]])
    {
        if let locked = transaction.lockedStore(id) { return (locked, try rows(of: statements)) }
        var answers = try rows(of: ["""
            SELECT v.version FROM store s JOIN storeVersion v ON v.storeId = s.id WHERE s.id = \(id) FOR UPDATE
            """] + statements)
        guard let version = try answers.removeFirst().first?.value(0, as: Int64.self) else { return (nil, answers) }
        let definition: StoreBoard.Definition
        var known = transaction.board?.entry(id, exactAt: version)
        if known == nil, let board = transaction.board {
            board.commitsInFlight.wait(for: id, version: version)
            known = board.entry(id, exactAt: version)
        }
        DataMetrics.storeRead(fromBoard: known != nil)
        if let entry = known {
            definition = entry.definition
            if PostgresEngine.checksBoard.load(ordering: .relaxed) { try checkDefinition(definition) }
        } else {
            // The store and its live rows in one round trip, given to the board: the next
            // transaction on the store, and this one's `traffic`, find it there.
            let details = AppDatabase.storeDetailsStatements(id)
            let store = try rows(of: details + Self.liveStatements(id))
            guard let read = try AppDatabase.storeDetails(from: store.prefix(details.count)).first else { return (nil, answers) }
            definition = StoreBoard.Definition(read)
            if !transaction.hasChanged(id) {
                transaction.board?.install(try Self.entry(definition, from: store.dropFirst(details.count)), at: version)
            }
        }
        transaction.remember(locked: definition, at: version)
        return (definition, answers)
    }

    /// The statements that read a store's learned sums and every reservation of it not ended.
    private static func liveStatements(_ id: StoreID) -> [SQL] {
        ["SELECT * FROM storeLoad WHERE storeId = \(id)",
         """
         SELECT \(unescaped: AppDatabase.liveColumns) FROM reservation
         WHERE storeId = \(id) AND status IN ('waiting', 'called', 'inside', 'booked') ORDER BY id
         """]
    }

    /// The store's entry from what `liveStatements` returned.
    private static func entry(_ definition: StoreBoard.Definition, from answers: some Collection<[SQLRow]>) throws
        -> StoreBoard.Entry
    {
        var entry = StoreBoard.Entry(definition: definition)
        var answers = answers.makeIterator()
        if let load = try answers.next()?.first?.record(StoreLoad.self) { entry.model = load.model }
        for row in answers.next() ?? [] {
            if let live = try AppDatabase.live(row) { entry.upsert(live) }
        }
        return entry
    }

    /// Sent with the next statement: nothing reads what it returns.
    func lockCustomer(_ id: UserID) throws {
        try executeLater("SELECT id FROM \"user\" WHERE id = \(id) FOR UPDATE")
    }

    /// Under the store's lock, no other transaction can change the store until this one ends:
    /// if the board holds it as committed at the version locked, the board answers, with this
    /// transaction's own changes read back by id. Otherwise the store's live rows are read
    /// whole, and given to the board if this transaction has not changed the store.
    func traffic(storeId: StoreID, now: Date) throws -> LiveTraffic {
        guard let definition = transaction.lockedStore(storeId), let version = transaction.lockedVersion(storeId) else {
            return try AppDatabase.committedTraffic(storeId: storeId, now: now, self)
        }
        if var entry = transaction.board?.entry(storeId, exactAt: version) {
            try withOwnChanges(&entry)
            if PostgresEngine.checksBoard.load(ordering: .relaxed) {
                let rows = try storeRows(definition).live
                guard rows.live == entry.live.live, rows.model == entry.model else {
                    throw PostgresEngine.BoardDiverged(storeId: storeId, version: version)
                }
            }
            return entry.live
        }
        let entry = try storeRows(definition)
        if !transaction.hasChanged(storeId) { transaction.board?.install(entry, at: version) }
        return entry.live
    }

    /// The store's entry read from its rows: its learned sums and every reservation of it not
    /// ended, in one round trip.
    private func storeRows(_ definition: StoreBoard.Definition) throws -> StoreBoard.Entry {
        try Self.entry(definition, from: rows(of: Self.liveStatements(definition.id)))
    }

    /// `entry` with what this transaction has changed of its store so far: its reservations
    /// as they now are, and its learned sums.
    private func withOwnChanges(_ entry: inout StoreBoard.Entry) throws {
        let ids = transaction.changedReservations(of: entry.id)
        if !ids.isEmpty {
            // Those this transaction inserted are known as they now are; the rest are read.
            var found = ids.compactMap { own[$0]?.live }
            let unknown = ids.filter { own[$0] == nil }
            for row in unknown.isEmpty ? [] : try rows("""
                SELECT \(unescaped: AppDatabase.liveColumns) FROM reservation WHERE id \(PostgresEngine.among(unknown.map(\.rawValue)))
                """)
            {
                if let live = try AppDatabase.live(row) { found.append(live) }
            }
            let stillLive = Set(found.map(\.id))
            entry.remove(ids.filter { !stillLive.contains($0) })
            for live in found { entry.upsert(live) }
        }
        if transaction.changes.loads.contains(entry.id),
            let load = try record("SELECT * FROM storeLoad WHERE storeId = \(entry.id)", as: StoreLoad.self)
        {
            entry.model = load.model
        }
    }

    /// With `PostgresEngine.checksBoard` on: the store as the board gave it is the store as
    /// its rows have it.
    private func checkDefinition(_ definition: StoreBoard.Definition) throws {
        let rows = try AppDatabase.storeDetails(definition.id, self).first.map(StoreBoard.Definition.init)
        guard let rows, rows.store == definition.store, rows.openingHours == definition.openingHours,
            rows.closures == definition.closures, rows.specialHours == definition.specialHours,
            rows.departments == definition.departments
        else { throw PostgresEngine.BoardDiverged(storeId: definition.id, version: transaction.lockedVersion(definition.id) ?? -1) }
    }

    func setAsideReservationIds(_ count: Int) throws -> ReservationID {
        // The ids' hold first: a transaction holding it shared goes on to its INSERT, which
        // the table's lock would keep waiting.
        try execute("SELECT pg_advisory_xact_lock(\(Self.idLock))")
        try execute("LOCK TABLE reservation IN SHARE ROW EXCLUSIVE MODE")
        let last = try value("""
            SELECT GREATEST((SELECT last_value FROM reservation_id_seq), COALESCE((SELECT MAX(id) FROM reservation), 0))
            """, as: Int64.self) ?? 0
        try execute("SELECT setval('reservation_id_seq', \(last + Int64(count)))")
        return ReservationID(rawValue: last + 1)
    }

    func peopleInside(storeId: StoreID) throws -> Int {
        try value("""
            SELECT CAST(COALESCE(SUM(people), 0) AS BIGINT) FROM reservation WHERE storeId = \(storeId) AND status = 'inside'
            """) ?? 0
    }
}

extension PostgresTransaction {
    /// This transaction for the transactions written once (`SQLTransaction`).
    var statements: PostgresStatements { PostgresStatements(transaction: self) }
}

extension AppDatabase {
    /// Runs `work` as one write transaction on the database's engine, returning once it is
    /// durable: on SQLite through the group commit (`write`), on PostgreSQL through its pool,
    /// with the board brought up to date after the commit on both. A form's one-time key is
    /// recorded in the same transaction (`FormReply`).
    @discardableResult
    func transaction<T>(_ work: (any SQLTransaction) throws -> T) throws -> T {
        switch engine {
        case .sqlite: try write { db in try work(SQLiteTransaction(db: db, database: self)) }
        case .postgres(let postgres): try postgres.write { transaction in try work(transaction.statements) }
        }
    }

    /// Runs `work` as one read: a consistent snapshot for all its statements. A read of one
    /// statement (`oneStatement`) sees one committed state by itself; SQLite runs it without the
    /// transaction around it, whose BEGIN, COMMIT and schema check cost as much as a small read.
    func reading<T>(oneStatement: Bool = false, _ work: (any SQLTransaction) throws -> T) throws -> T {
        switch engine {
        case .sqlite(let sqlite) where oneStatement:
            try sqlite.writer.unsafeRead { db in try work(SQLiteTransaction(db: db, database: self)) }
        case .sqlite(let sqlite): try sqlite.writer.read { db in try work(SQLiteTransaction(db: db, database: self)) }
        case .postgres(let postgres):
            try postgres.read(snapshot: !oneStatement) { transaction in try work(transaction.statements) }
        }
    }

    /// Whether what `credentials` keeps is forgotten as soon as any worker changes it, so it
    /// may be kept at all. SQLite's observer sees every commit of the one worker, and another
    /// process's within a second (`refreshBoard`); PostgreSQL's workers hear each other's
    /// changes on the board feed, and keep nothing while they are not listening to it.
    var remembersCredentials: Bool {
        switch engine {
        case .sqlite: true
        case .postgres(let postgres): postgres.feed.isListening
        }
    }

    /// Whether `error` is the database refusing a statement with `message` (a trigger's
    /// RAISE, on either engine: "slot full", "store full").
    static func isRefusal(_ error: any Error, _ message: String) -> Bool {
        (error as? DatabaseError)?.message == message || (error as? PostgresEngine.Refused)?.message == message
    }

    /// Whether `error` is a unique index refusing a duplicate of `table`'s `column`: SQLite names
    /// the column in its message, PostgreSQL the index (`table_column`, in lower case).
    static func isDuplicate(_ error: any Error, table: String, column: String) -> Bool {
        if let error = error as? DatabaseError {
            return error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
                && (error.message ?? "").contains("\(table).\(column)")
        }
        if let error = error as? PostgresEngine.Refused {
            return error.sqlState == "23505" && error.constraint == "\(table)_\(column)".lowercased()
        }
        return false
    }
}
