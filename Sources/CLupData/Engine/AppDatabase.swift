import CLupDomain
import CLupSupport
import Foundation
import GRDB
import Synchronization

/// The application's database: migrations run on open; every read and write CLup makes is a
/// named method of one of its areas (`accounts`, `stores`, `reservations`, `doors`,
/// `waitingLists`, `notices`, `statistics`, `privacy`, `maintenance`), each in its folder, and
/// each write is one transaction. What is left on `AppDatabase` itself is the engines' own.
///
/// Two engines keep the rows: SQLite, embedded, the default (one machine, one file), and
/// PostgreSQL, for a deployment on several machines (`open(url:)`). Each named method is
/// written once, over `SQLTransaction`; what the engines do differently is a step of that
/// protocol, and their mechanics (this file and `Engine/` for SQLite, `PostgreSQL/`) hold
/// no transaction of their own.
public struct AppDatabase: Sendable {
    /// Where the rows are kept.
    let engine: Engine
    /// Each store's live state, kept up to date by the transactions that change it.
    public let board: StoreBoard
    /// Sessions and kiosk keys as last read, emptied by any change to them.
    let credentials: CredentialCache
    /// Stores' signing keys as last read.
    let signingKeyCache = SigningKeyCache()
    /// The maintenance windows as last read.
    let maintenanceCache = MaintenanceCache()

    enum Engine: Sendable {
        case sqlite(SQLiteEngine)
        case postgres(PostgresEngine)
    }

    /// The SQLite engine's parts: the database, the observer that keeps the board, and the
    /// group commit every write goes through.
    final class SQLiteEngine: Sendable {
        let writer: any DatabaseWriter
        /// Notes what each transaction changes, for the board and for the transaction itself.
        let observer: BoardObserver
        /// Writes the transactions that arrive together with one commit.
        let commits: GroupCommit
        /// The connection that checkpoints the WAL beside the writer (`checkpointAside`),
        /// once one is asked for.
        let checkpointer = Mutex<DatabaseQueue?>(nil)

        init(writer: any DatabaseWriter, observer: BoardObserver) {
            self.writer = writer
            self.observer = observer
            commits = GroupCommit(writer: writer)
        }
    }

    /// Wraps `writer`, brings its schema up to date, seals with `dataKey` what was written in
    /// clear before (`sealPersonalData`) and loads the board.
    init(_ writer: any DatabaseWriter, dataKey: DataKey) throws {
        try ProcessDataKey.install(dataKey)
        try Self.migrator.migrate(writer)
        try Self.sealPersonalData(writer, key: dataKey)
        board = StoreBoard()
        credentials = CredentialCache()
        let observer = BoardObserver(board: board, credentials: credentials)
        engine = .sqlite(SQLiteEngine(writer: writer, observer: observer))
        try writer.write { db in
            db.add(transactionObserver: observer, extent: .databaseLifetime)
            try board.reload(db)
            _ = board.swapDataVersion(try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0)
        }
    }

    /// Opens the PostgreSQL database at `url` (`postgres://user:password@host:port,…/database`),
    /// brings its schema up to date, seals with `dataKey` what was written in clear before,
    /// and loads the board.
    public static func open(url: String, dataKey: DataKey) throws -> AppDatabase {
        try ProcessDataKey.install(dataKey)
        return try AppDatabase(postgres: url)
    }

    /// `url` with its password hidden, for messages and logs.
    public static func redacted(url: String) -> String {
        PostgresLocation.redacted(url)
    }

    private init(postgres url: String) throws {
        board = StoreBoard()
        credentials = CredentialCache()
        engine = .postgres(try PostgresEngine(url: url, board: board, credentials: credentials))
    }

    /// The SQLite engine, for the methods written for it. A method written for SQLite only
    /// throws `PostgresEngine.Unsupported` on PostgreSQL rather than reach for SQLite.
    var sqlite: SQLiteEngine {
        get throws {
            switch engine {
            case .sqlite(let sqlite): return sqlite
            case .postgres: throw PostgresEngine.Unsupported()
            }
        }
    }

    /// The PostgreSQL engine, or nil on SQLite: for the copy from one engine to the other.
    var postgres: PostgresEngine? {
        if case .postgres(let postgres) = engine { return postgres }
        return nil
    }

    var writer: any DatabaseWriter { get throws { try sqlite.writer } }
    var observer: BoardObserver { get throws { try sqlite.observer } }

    /// The production database: a WAL-mode pool at `path`, created if missing, its personal
    /// data sealed with `dataKey` (kept outside it and its backups).
    public static func open(path: String, dataKey: DataKey) throws -> AppDatabase {
        try AppDatabase(DatabasePool(path: path, configuration: configuration), dataKey: dataKey)
    }

    /// How long a write waits for another process's write lock before it is rolled back and
    /// answered "busy, try again" (503): well inside nginx's 10 s, and short enough that the
    /// customer is told within 2 s. Inside the worker writes never wait on each other (one
    /// writer, group commits); only another process (`clup admin`, the backup's checkpoint)
    /// can hold the lock.
    public static let busyTimeout: TimeInterval = 1.5

    /// The size the WAL is cut back to (16 MB).
    public static let walSizeLimit = 16 << 20

    /// If the WAL file has grown past `walSizeLimit`, copies it into the database and truncates
    /// it to nothing (a TRUNCATE checkpoint). Returns the WAL's size before, or nil if there
    /// was nothing to do or readers kept the WAL busy.
    @discardableResult
    public func checkpointIfLarge() throws -> Int? {
        guard let pool = (try? writer) as? DatabasePool else { return nil }
        let wal = pool.path + "-wal"
        guard let size = (try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int,
              size > Self.walSizeLimit
        else { return nil }
        // A truncating checkpoint waits for readers to leave the WAL (a page being read, the
        // backup shipping it), holding up writes meanwhile: it waits a fifth of a second at
        // most, and a busy WAL is tried again at the next turn.
        let done = try pool.writeWithoutTransaction { db -> Bool in
            try db.execute(sql: "PRAGMA busy_timeout = 200")
            defer { try? db.execute(sql: "PRAGMA busy_timeout = \(Int(Self.busyTimeout * 1000))") }
            do {
                try db.checkpoint(.truncate)
                return true
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY {
                return false
            }
        }
        return done ? size : nil
    }

    /// Copies what the WAL holds into the database file (a PASSIVE checkpoint: it neither
    /// waits for nor holds up readers and writers) on a connection of its own, and from the
    /// first call on keeps the writer from doing it. SQLite's automatic checkpoint runs inside
    /// the commit that takes the WAL past 1,000 pages — on the one writer thread every write
    /// and scan waits for, syncing the database file there: 7 % of the writer's time under the
    /// benchmark's writes. The worker calls this a few times a second (`WorkerServices`); a
    /// process that never does keeps SQLite's own. Returns the WAL's frames and those copied.
    @discardableResult
    public func checkpointAside() throws -> (frames: Int, copied: Int)? {
        guard case .sqlite(let sqlite) = engine, let pool = sqlite.writer as? DatabasePool else { return nil }
        return try sqlite.checkpointer.withLock { connection in
            if connection == nil {
                var configuration = Configuration()
                configuration.busyMode = .timeout(Self.busyTimeout)
                connection = try DatabaseQueue(path: pool.path, configuration: configuration)
                try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
            }
            return try connection!.writeWithoutTransaction { db in
                let row = try Row.fetchOne(db, sql: "PRAGMA wal_checkpoint(PASSIVE)")
                return (row?[1] ?? 0, row?[2] ?? 0)
            }
        }
    }

    /// The writer's `wal_autocheckpoint` (pages), for tests.
    func writerAutocheckpoint() throws -> Int {
        try writer.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") ?? -1 }
    }

    /// A fresh in-memory database for tests: a real SQLite with the same schema and pragmas.
    /// Without a key, the process's, or `DataKey.scratch` (nothing in it outlives the process).
    public static func inMemory(dataKey: DataKey? = nil) throws -> AppDatabase {
        try AppDatabase(DatabaseQueue(configuration: configuration), dataKey: dataKey ?? ProcessDataKey.currentOrScratch())
    }

    /// A throwaway database at `path` for a simulated day (`clup simulate`): a WAL pool, as in
    /// production, but not synced to disk, since nothing in it outlives the run. Not in memory:
    /// an in-memory queue reads on its one connection, and GRDB guards each read with
    /// `PRAGMA query_only`, which makes SQLite prepare every statement again afterwards.
    public static func scratch(path: String) throws -> AppDatabase {
        var configuration = configuration
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = OFF") }
        return try AppDatabase(DatabasePool(path: path, configuration: configuration),
                               dataKey: ProcessDataKey.currentOrScratch())
    }

    /// Foreign keys are on by default in GRDB. `synchronous = FULL` makes a commit durable
    /// before it is acknowledged, so nothing a user saw confirmed is lost if the machine dies.
    static var configuration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // Each time the WAL starts over, it is cut back to this size (the disk it used under
            // a burst is given back); `checkpointIfLarge` makes it start over.
            try db.execute(sql: "PRAGMA journal_size_limit = \(Self.walSizeLimit)")
            // Pages read the board, not SQLite: a reader looks up a session or one customer's
            // reservations, and needs little of SQLite's page cache (2 MB each by default).
            if db.configuration.readonly { try db.execute(sql: "PRAGMA cache_size = -512") }
        }
        return configuration
    }

    var reader: any DatabaseReader { get throws { try writer } }

    /// Runs `work` as one write transaction (BEGIN IMMEDIATE), returning once it is durable.
    /// Transactions asked for at the same moment share one commit (see `GroupCommit`), so
    /// `work` must depend only on the database: it may be run again if another in its group
    /// fails.
    ///
    /// A request whose form carries a one-time key records it in the same transaction
    /// (`FormReply`): captured here, in the requesting thread, since the group's leader may
    /// run `work` on another.
    func write<T>(_ work: (Database) throws -> T) throws -> T {
        let commits = try sqlite.commits
        guard let reply = FormReply.current else { return try commits.write(work) }
        let now = Date()
        let result = try commits.write { db in
            try reply.record(SQLiteTransaction(db: db), now: now)
            return try work(db)
        }
        reply.committedWrite()
        return result
    }

    /// A store's live traffic inside the write transaction in progress, without reading the
    /// store's live rows: the board holds what has committed (every commit of this worker is
    /// applied before the next write begins, and another process's is caught by
    /// `data_version` here), and this transaction's own changes so far are read back by id.
    /// The queue at 10,000 waiting cost 12 ms to read from the table; this costs what the
    /// transaction changed.
    func transactionTraffic(storeId: StoreID, _ db: Database) throws -> LiveTraffic {
        let observer = try self.observer
        try ensureBoardCurrent(db)
        guard var entry = board.entry(storeId) else {
            return try Self.committedTraffic(storeId: storeId, now: Date(), SQLiteTransaction(db: db))
        }
        let pending = try observer.changedReservations(db)
        if !pending.isEmpty {
            // A row deleted in this transaction, whatever its store was, is gone from its queue;
            // another store's ticket is not in this queue; one no longer live leaves it.
            var gone: Set<ReservationID> = []
            var changed: [LiveReservation] = []
            for (id, row) in pending {
                if row.storeId == nil || (row.storeId == storeId && row.live == nil) { gone.insert(id) }
                if row.storeId == storeId, let live = row.live { changed.append(live) }
            }
            // Out first, in one copy of the queue; then the rest, in the copy.
            entry.remove(gone)
            for live in changed { entry.upsert(live) }
        }
        if observer.pendingRatios.contains(storeId), let load = try StoreLoad.find(storeId, db) {
            entry.model = load.model
        }
        return entry.live
    }

    /// The store as the board keeps it, inside a write transaction (see `transactionTraffic`).
    func transactionDefinition(storeId: StoreID, _ db: Database) throws -> StoreBoard.Definition? {
        try ensureBoardCurrent(db)
        // A transaction that changed a store (its rules, hours or departments) decides from the
        // rows: the board takes the change only as it commits.
        if try observer.storesChanged {
            return try Self.storeDetails(storeId, SQLiteTransaction(db: db)).first.map(StoreBoard.Definition.init)
        }
        return board.entry(storeId)?.definition
    }

    /// Reloads the board inside the transaction in progress if another process has committed
    /// since the last look.
    private func ensureBoardCurrent(_ db: Database) throws {
        let version = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
        guard board.swapDataVersion(version) != version else { return }
        credentials.clear()
        try board.reload(db)
        try observer.reloadedInTransaction = true
    }

    /// Reloads the board if another process wrote to the database since the last look
    /// (SQLite's `data_version` changes only for other connections' commits). The queue
    /// timer calls this; the worker's own writes keep the board up to date as they commit.
    public func refreshBoard() throws {
        switch engine {
        case .postgres(let postgres):
            try postgres.refreshBoard()
        case .sqlite(let sqlite):
            try sqlite.writer.write { db in
                let version = try Int.fetchOne(db, sql: "PRAGMA data_version") ?? 0
                guard board.swapDataVersion(version) != version else { return }
                credentials.clear()
                try board.reload(db)
            }
        }
    }
}

extension StoreLoad {
    /// The store's running totals, if the store exists: SQLite's board reads them inside a
    /// write (`transactionTraffic`).
    static func find(_ storeId: StoreID, _ db: Database) throws -> StoreLoad? {
        try StoreLoad.fetchOne(db.cachedStatement(sql: "SELECT * FROM storeLoad WHERE storeId = ?"), arguments: [storeId])
    }
}
