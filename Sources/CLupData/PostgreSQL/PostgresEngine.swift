import CLupDomain
import Foundation
import Logging
import Synchronization

/// The PostgreSQL engine: CLup's rows on a PostgreSQL server (a Patroni cluster in production),
/// reached through libpq, for a deployment whose workers run on several machines.
///
/// The rest of CLupData is synchronous — page threads call it and wait — so this engine is
/// too: each call takes a connection from a small pool, runs its statements one after the
/// other and waits for each answer on the calling thread (`PostgresConnection`).
///
/// Every write is one transaction at READ COMMITTED, and a write that decides on capacity
/// first locks the store's row (`SELECT … FOR UPDATE`): the writes of one store queue behind
/// each other, those of different stores run side by side, and none is ever aborted for a
/// conflict and retried, as SERIALIZABLE would do to every other line-up at a busy store.
/// The one-active-reservation rule is a unique index, so the engine enforces it whatever
/// the code does.
final class PostgresEngine: Sendable {
    /// What this engine does not do (the benchmark's measuring helpers, SQLite's own files):
    /// asked on PostgreSQL, it answers this instead of reaching for SQLite.
    struct Unsupported: Error, CustomStringConvertible {
        var description: String { "this is done on SQLite only, not on PostgreSQL" }
    }

    let location: PostgresLocation
    let pool: PostgresPool
    /// The board the writes keep up to date, as SQLite's `BoardObserver` does.
    let board: StoreBoard
    let credentials: CredentialCache
    /// The other workers' changes, as they commit them.
    let feed: BoardFeed

    /// Connects to `url`, brings the schema up to date (one worker at a time: the migrations
    /// hold an advisory lock), starts listening for the other workers' changes and loads `board`.
    init(url: String, board: StoreBoard, credentials: CredentialCache, connections: Int = 8,
         logger: Logger = Logger(label: "clup.postgres")) throws
    {
        location = try PostgresLocation(url: url)
        let engine = Weak<PostgresEngine>()
        // A connection lost under a request (the primary gone, the network cut) may have taken
        // the listening one with it unnoticed: listen again, to whichever node is primary now,
        // and read the board whole (a notice missed meanwhile would leave a signed-out session
        // remembered).
        pool = PostgresPool(location: location, size: connections, logger: logger,
                            lost: { engine.value?.feed.forget() })
        self.board = board
        self.credentials = credentials
        feed = BoardFeed(pool: pool, apply: { changes in
            do {
                try engine.value?.apply(changes)
            } catch {
                // The board cannot be trusted: read whole at the next refresh.
                engine.value?.feed.forget()
            }
        }, reload: { try? engine.value?.reloadBoard() })
        engine.value = self
        try pool.withConnection { connection in try PostgresMigrations.migrate(connection, schema: location.schema, logger: logger) }
        try feed.refresh()
    }

    /// Listens again if the listening connection was lost, reloading the board then; the
    /// queue timer calls this every second.
    func refreshBoard() throws {
        try feed.refresh()
    }

    deinit {
        feed.close()
        pool.shutdown()
    }

    /// Reads the whole board again, and forgets every remembered session, kiosk and active
    /// reservation (what changed meanwhile is not known).
    func reloadBoard() throws {
        credentials.clear()
        try read { transaction in try board.reload(transaction) }
    }

    /// Runs `work` in one transaction and returns once it has committed; rolls back if
    /// `work` throws. What the transaction said it changed (`PostgresTransaction.changed`)
    /// is then read back and applied to the board.
    ///
    /// A request whose form carries a one-time key records it in the same transaction, as on
    /// SQLite (`FormReply`): a second request with the key waits for the first's commit on the
    /// key's unique index, then finds it and is answered as a retry.
    @discardableResult
    func write<T>(_ work: (PostgresTransaction) throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try writeOnce(work)
            } catch let error as Refused where attempt < Self.attempts && error.isRetryable {
                // Two transactions waited for each other's locks (a replaced reservation at
                // another store): PostgreSQL rolled one back. It runs again, from the start.
                attempt += 1
            }
        }
    }

    /// How many times a write that lost a deadlock is run in all.
    static let attempts = 3

    /// Whether every decision the board answers (`PostgresStatements.traffic`, `lockStore`) is
    /// checked against the store's rows, failing the transaction with `BoardDiverged` if they
    /// differ: on in the test suites, so that a change a write forgets to note fails a test.
    static let checksBoard = Atomic(false)

    /// The board held a store as committed at a version, and the store's rows said otherwise.
    struct BoardDiverged: Error, CustomStringConvertible {
        var storeId: StoreID
        var version: Int64
        var description: String { "the board's store \(storeId) at version \(version) is not the store's rows" }
    }

    /// A statement the server refused: a constraint, a trigger's refusal, a deadlock lost.
    /// The transaction is rolled back and the connection stays usable. Its description is the
    /// server's message (never the detail, which may quote the row's values).
    struct Refused: Error, CustomStringConvertible {
        var sqlState: String
        var message: String
        var constraint: String?

        /// A deadlock or a serialization failure: the transaction was rolled back whole and
        /// may run again as it was.
        var isRetryable: Bool { ["40P01", "40001"].contains(sqlState) }

        var description: String { "PostgreSQL refused a statement (\(sqlState)): \(message)" }
    }

    private func writeOnce<T>(_ work: (PostgresTransaction) throws -> T) throws -> T {
        let reply = FormReply.current
        var inFlight: [StoreID: Int64] = [:]
        defer { board.commitsInFlight.settle(inFlight) }
        let (result, changes, own) = try pool.withConnection { connection in
            let transaction = PostgresTransaction(connection: connection, board: board)
            transaction.begin()
            do {
                try reply?.record(transaction.statements, now: Date())
                let result = try work(transaction)
                // The rows changed, read back, the notice and the COMMIT go in one round trip.
                let changes = transaction.changes
                let readBack = try ReadBack(changes, in: transaction, own: transaction.own)
                let announcement = announcement(of: changes)
                inFlight = transaction.versionsAfterCommit
                board.commitsInFlight.expect(inFlight)
                let answers = try transaction.commit(after: readBack.statements + (announcement.map { [$0.statement] } ?? []))
                reply?.committedWrite()
                var own = try readBack.rows(answers.prefix(readBack.statements.count))
                if let announcement, let answer = answers.last {
                    own?.changes.versions = try announcement.versions(answer, transaction)
                }
                return (result, changes, own)
            } catch {
                transaction.rollBack()
                throw error
            }
        }
        if changes.credentials { credentials.clearCredentials() }
        if changes.everything {
            try reloadBoard()
        } else if let own {
            apply(own.changes, customers: own.customers)
        }
        return result
    }

    /// The statement that tells the other workers what a transaction changed (`BoardFeed`),
    /// run just before its COMMIT, with the version each store it changed took
    /// (`storeVersion`); nil if there is nothing to tell. Its answer, read by `versions`, tells
    /// this worker's board what it learns of each store the changes touch: the version the
    /// transaction gave it, if it did, and the version its rows were read at, where the
    /// transaction holds the store's version (locked or raised: nobody else can change it
    /// before the commit). Nil: not known.
    private func announcement(of changes: PostgresTransaction.Changes) -> Announcement? {
        guard let payload = feed.payload(for: changes) else { return nil }
        let stores = changes.everything ? [] : changes.storeIds.map(\.rawValue).sorted()
        guard !stores.isEmpty, stores.count <= BoardFeed.versionedStores else {
            // Too many stores to carry their versions: each is left not known exactly.
            return Announcement(statement: "SELECT pg_notify(\(feed.channel), \(payload))",
                                stores: stores.map(StoreID.init(rawValue:)), readsVersions: false)
        }
        // [store, version, 1 if this transaction gave it] for each store; the notice carries the
        // versions this transaction gave.
        return Announcement(statement: """
            SELECT CAST(versions.every AS text)
            FROM (SELECT COALESCE(jsonb_agg(jsonb_build_array(storeId, version, CASE WHEN mine THEN 1 ELSE 0 END)),
                                  CAST('[]' AS jsonb)) AS every,
                         COALESCE(jsonb_agg(jsonb_build_array(storeId, version)) FILTER (WHERE mine),
                                  CAST('[]' AS jsonb)) AS given
                  FROM (SELECT storeId, version, COALESCE(changedBy = pg_current_xact_id_if_assigned(), false) AS mine
                        FROM storeVersion WHERE storeId \(PostgresEngine.among(stores))) AS stamped) AS versions,
                 LATERAL pg_notify(\(feed.channel),
                                   CAST(CAST(\(payload) AS jsonb) || jsonb_build_object('versions', versions.given) AS text))
            """, stores: stores.map(StoreID.init(rawValue:)), readsVersions: true)
    }

    private struct Announcement {
        var statement: SQL
        /// The stores the changes touch.
        var stores: [StoreID]
        /// Whether it reads their versions (a plain notice does not).
        var readsVersions: Bool

        func versions(_ rows: [PostgresRow], _ transaction: PostgresTransaction) throws
            -> [StoreID: (committed: Int64?, seen: Int64?)]
        {
            var versions = Dictionary(uniqueKeysWithValues: stores.map { ($0, (committed: Int64?.none, seen: Int64?.none)) })
            guard readsVersions, let text = try rows.first?[0].decode(String.self) else { return versions }
            // [[store, version, mine], …]: integers only, read in order, three at a time.
            let numbers = PostgresEngine.integers(in: text)
            for start in stride(from: 0, to: numbers.count - numbers.count % 3, by: 3) {
                let (storeId, version, mine) = (StoreID(rawValue: numbers[start]), numbers[start + 1], numbers[start + 2] == 1)
                guard mine || transaction.lockedVersion(storeId) != nil else { continue }
                versions[storeId] = (mine ? version : nil, version)
            }
            return versions
        }
    }

    /// `= value` for one value, `IN (…)` for several: a statement about one row keeps the same
    /// text, and stays prepared.
    static func among(_ values: [Int64]) -> SQL {
        values.count == 1 ? "= \(values[0])" : "\(in: values)"
    }

    /// Every integer in `text` (a JSON array of arrays of integers), in order.
    static func integers(in text: String) -> [Int64] {
        var numbers: [Int64] = []
        var current: Int64 = 0
        var digits = false
        var negative = false
        for byte in text.utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                current = current * 10 + Int64(byte - UInt8(ascii: "0"))
                digits = true
            } else {
                if digits { numbers.append(negative ? -current : current) }
                (current, digits, negative) = (0, false, byte == UInt8(ascii: "-"))
            }
        }
        if digits { numbers.append(negative ? -current : current) }
        return numbers
    }

    /// Brings the board up to date with another worker's committed changes (`BoardFeed`): the
    /// stores, reservations and learned sums it changed, read back as they now are, with the
    /// version each store is at in the same snapshot.
    func apply(_ changes: PostgresTransaction.Changes) throws {
        if changes.credentials { credentials.clearCredentials() }
        if changes.everything { return try reloadBoard() }
        let read = try read { transaction -> ChangedRows? in
            let readBack = try ReadBack(changes, in: transaction)
            guard !readBack.isEmpty else { return nil }
            let storeIds = changes.storeIds.map(\.rawValue).sorted()
            let answers = try transaction.batch(readBack.statements + ["""
                SELECT storeId, version FROM storeVersion WHERE storeId \(PostgresEngine.among(storeIds))
                """])
            var read = try readBack.rows(answers.dropLast())
            for row in answers.last ?? [] {
                let storeId = StoreID(rawValue: try row[0].decode(Int64.self))
                read?.changes.versions[storeId] = (changes.versions[storeId], try row[1].decode(Int64.self))
            }
            return read
        }
        if let read { apply(read.changes, customers: read.customers) }
    }

    /// What a transaction's changes are for the board, and the customers whose reservations
    /// they changed (nil if one cannot be told: a reservation deleted).
    private struct ChangedRows {
        var changes: BoardChanges
        var customers: Set<UserID>?
    }

    /// Reading back the stores, reservations and learned sums a transaction's changes name:
    /// inside the writing transaction, just before its commit (nobody else can change them
    /// before it), or after another worker's, in a snapshot. The stores are read at once (a
    /// store's edit is rare); the rest are `statements`, sent with others in one round trip.
    /// The reservations the writing transaction inserted it knows as they are (`own`).
    private struct ReadBack {
        let changes: PostgresTransaction.Changes
        private var stores: [StoreDetails] = []
        /// Reservations known without reading them: (live or nil once ended, customer).
        private var known: [ReservationID: (live: LiveReservation?, userId: UserID?)] = [:]
        private var readsReservations = false
        let statements: [SQL]

        init(_ changes: PostgresTransaction.Changes, in transaction: PostgresTransaction, own: OwnReservations? = nil) throws {
            self.changes = changes
            guard !changes.everything else {
                statements = []
                return
            }
            stores = try changes.stores.sorted().flatMap { try AppDatabase.storeDetails($0, transaction.statements) }
            var statements: [SQL] = []
            var unknown: [Int64] = []
            for id in changes.reservations.keys {
                if let row = own?[id] {
                    known[id] = (row.live, row.reservation.userId)
                } else {
                    unknown.append(id.rawValue)
                }
            }
            if !unknown.isEmpty {
                // userId after the live columns, which `live` reads by position.
                statements.append("""
                    SELECT \(unescaped: AppDatabase.liveColumns), userId FROM reservation
                    WHERE id \(PostgresEngine.among(unknown.sorted()))
                    """)
                readsReservations = true
            }
            for storeId in changes.loads.sorted() {
                statements.append("SELECT * FROM storeLoad WHERE storeId = \(storeId)")
            }
            self.statements = statements
        }

        var isEmpty: Bool { changes.everything || (changes.stores.isEmpty && statements.isEmpty && known.isEmpty) }

        /// The changes, from `answers`, the rows each of `statements` returned; nil if they
        /// name nothing.
        func rows(_ answers: some Collection<[PostgresRow]>) throws -> ChangedRows? {
            guard !isEmpty else { return nil }
            var read = ChangedRows(changes: BoardChanges(), customers: [])
            read.changes.stores = stores
            var answers = answers.makeIterator()
            if !changes.reservations.isEmpty {
                var found: [ReservationID: LiveReservation?] = [:]
                for (id, row) in known {
                    found[id] = .some(row.live)
                    if let userId = row.userId { read.customers?.insert(userId) }
                }
                for row in readsReservations ? answers.next() ?? [] : [] {
                    let row = SQLRow(row)
                    found[try row.decode(0)] = .some(try AppDatabase.live(row))
                    if let userId = try row.value(18, as: UserID.self) { read.customers?.insert(userId) }
                }
                for (id, storeId) in changes.reservations.sorted(by: { $0.key < $1.key }) {
                    read.changes.reservations.append((found[id] == nil ? nil : storeId, id, found[id] ?? nil))
                }
                if found.count < changes.reservations.count { read.customers = nil }
            }
            for storeId in changes.loads.sorted() {
                if let load = try answers.next()?.first?.record(StoreLoad.self) { read.changes.models[storeId] = load.model }
            }
            return read
        }
    }

    /// Applies changes read back to the board, and forgets the active reservations of the
    /// customers they concern (everyone's, if they cannot be told).
    private func apply(_ changes: BoardChanges, customers: Set<UserID>?) {
        if let customers {
            if !customers.isEmpty { credentials.forgetActiveReservations(of: customers) }
        } else {
            credentials.clear()
        }
        board.apply(changes)
    }

    /// Runs `work` in a read-only transaction: one consistent snapshot for all its statements.
    /// Without `snapshot`, for a read of one statement (which sees one committed state by
    /// itself), no transaction is begun: its BEGIN and COMMIT were two of a session read's
    /// three round trips.
    func read<T>(snapshot: Bool = true, _ work: (PostgresTransaction) throws -> T) throws -> T {
        try pool.withConnection { connection in
            let transaction = PostgresTransaction(connection: connection)
            guard snapshot else { return try work(transaction) }
            transaction.begin("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { _ = try? transaction.commit() }
            return try work(transaction)
        }
    }
}

extension PostgresEngine {
    /// What a PostgreSQL error means for the person waiting: the server out of disk, or busy —
    /// unreachable, restarting, failing over (a primary turned replica refuses writes), or a
    /// deadlock lost past the retries. Each is a transaction rolled back whole: nothing was
    /// changed, and trying again in a few seconds is the right advice.
    static func storageFailure(_ error: any Error) -> AppDatabase.StorageFailure? {
        if error is PostgresPool.Unreachable || error is PostgresTransaction.StatementTimedOut
            || error is PostgresConnection.Lost
        {
            return .busy
        }
        if let refused = error as? Refused {
            if refused.sqlState == "53100" { return .diskFull }
            // Deadlocks and serialization failures, the server shutting down or starting,
            // connections exhausted, a read-only transaction on a demoted primary.
            let busy = ["40P01", "40001", "57P01", "57P02", "57P03", "53300", "25006"]
            return busy.contains(refused.sqlState) ? .busy : nil
        }
        return nil
    }
}

/// One connection inside a transaction: statements run one at a time, each waited for.
struct PostgresTransaction {
    let connection: PostgresConnection
    /// The worker's board, for a write that decides from it (`PostgresStatements.traffic`);
    /// nil for reads and the migrations.
    let board: StoreBoard?
    private let state = State()

    init(connection: PostgresConnection, board: StoreBoard? = nil) {
        self.connection = connection
        self.board = board
    }

    /// What a transaction changed that the board or the credential cache mirrors: each write
    /// says so as it goes (PostgreSQL has no SQLite-style observer of every row changed).
    struct Changes {
        var stores: Set<StoreID> = []
        /// Reservations changed, with their store.
        var reservations: [ReservationID: StoreID] = [:]
        /// Stores whose learned sums changed.
        var loads: Set<StoreID> = []
        var credentials = false
        /// Too many to name: the whole board is read again.
        var everything = false
        /// Another worker's: the version each store took with its transaction (`storeVersion`),
        /// as its notice says.
        var versions: [StoreID: Int64] = [:]

        /// Every store whose board entry the changes touch.
        var storeIds: Set<StoreID> { stores.union(reservations.values).union(loads) }
    }

    private final class State {
        /// The BEGIN not yet sent: it goes with the transaction's first statement.
        var begin: PostgresStatement?
        /// Statements whose results nothing reads, not yet sent: they go with the next.
        var later: [PostgresStatement] = []
        /// Where in `later` each reservation's INSERT is that may still be replaced.
        var replaceable: [ReservationID: Int] = [:]
        var changes = Changes()
        /// The stores this transaction has locked, as read under the lock, with their version.
        var locked: [StoreID: (definition: StoreBoard.Definition, version: Int64)] = [:]
        let own = OwnReservations()
    }

    var changes: Changes { state.changes }

    /// The reservations this transaction has inserted, as they now are.
    var own: OwnReservations { state.own }

    /// Notes that the transaction changed store `id`'s row, hours, closures or departments
    /// (what it read of the store under its lock is read again at the next `lockStore`).
    func changed(store id: StoreID) {
        state.changes.stores.insert(id)
        state.locked[id] = nil
    }

    /// Notes that the transaction changed reservation `id` of store `storeId`.
    func changed(reservation id: ReservationID, of storeId: StoreID) { state.changes.reservations[id] = storeId }

    /// Notes that the transaction changed the store's learned sums.
    func changed(loadOf storeId: StoreID) { state.changes.loads.insert(storeId) }

    /// Notes that the transaction changed sessions, accounts or kiosks.
    func changedCredentials() { state.changes.credentials = true }

    /// Store `id` as this transaction read it when it locked it, if it has and has not
    /// changed it since: no other transaction can change it until this one ends.
    func lockedStore(_ id: StoreID) -> StoreBoard.Definition? { state.locked[id]?.definition }

    /// The version store `id` was at when this transaction locked it, if it has.
    func lockedVersion(_ id: StoreID) -> Int64? { state.locked[id]?.version }

    func remember(locked definition: StoreBoard.Definition, at version: Int64) {
        state.locked[definition.id] = (definition, version)
    }

    /// Whether this transaction has changed anything the board keeps of store `id`.
    func hasChanged(_ id: StoreID) -> Bool {
        state.changes.stores.contains(id) || state.changes.loads.contains(id)
            || state.changes.reservations.values.contains(id)
    }

    /// The version each store this transaction locked and changed will be at once it commits:
    /// the one after the version locked (the store's version is raised once per transaction).
    var versionsAfterCommit: [StoreID: Int64] {
        var versions: [StoreID: Int64] = [:]
        for id in state.changes.storeIds {
            if let locked = state.locked[id] { versions[id] = locked.version + 1 }
        }
        return versions
    }

    /// The reservations of store `id` this transaction has changed.
    func changedReservations(of id: StoreID) -> [ReservationID] {
        state.changes.reservations.compactMap { $0.value == id ? $0.key : nil }
    }


    /// The rows `sql` returns, each readable by column name or position.
    func rows(_ sql: SQL) throws -> [PostgresRow] {
        try answer(sql.postgres).rows
    }

    /// How long a statement may take before its connection is closed under it: a server that
    /// stopped answering (a machine lost without a reset, a commit waiting for a replica that
    /// is gone) must not hold the caller past nginx's 10 s. The statement fails, the
    /// transaction with it, and the person is told to try again.
    static let statementDeadline: Duration = .seconds(8)

    /// `statement`'s result, or its error: a refusal as `Refused`, a lost connection as
    /// `PostgresConnection.Lost`, no answer within `statementDeadline` as `StatementTimedOut`.
    private func answer(_ statement: PostgresStatement) throws -> PostgresResult {
        if state.begin != nil || !state.later.isEmpty { return try answers([statement])[0] }
        return try connection.run(statement, deadline: .now + Self.statementDeadline)
    }

    /// `statements`' results, all sent in one round trip, after the BEGIN and the statements
    /// still to go (`executeLater`).
    private func answers(_ statements: [PostgresStatement]) throws -> [PostgresResult] {
        let before = (state.begin.map { [$0] } ?? []) + state.later
        state.begin = nil
        state.later = []
        state.replaceable = [:]
        let results = try connection.run(pipeline: before + statements, deadline: .now + Self.statementDeadline)
        return Array(results.dropFirst(before.count))
    }

    /// Begins the transaction with `statement` (`BEGIN`, or `BEGIN` with its options), sent
    /// with the first statement that follows, in the same round trip.
    func begin(_ statement: String = "BEGIN") {
        state.begin = PostgresStatement(text: statement)
    }

    /// Runs `sql`, whose result nothing reads, with the transaction's next statement, in the
    /// same round trip. If the server refuses it, that statement throws the refusal. Past
    /// `mostLater` waiting, they are sent at once: a pipeline too long to fit in the sockets'
    /// buffers could leave the server and the worker each waiting for the other to read.
    func executeLater(_ sql: SQL) throws {
        state.later.append(sql.postgres)
        if state.later.count >= Self.mostLater { _ = try answers([]) }
    }

    static let mostLater = 64

    /// `executeLater`, for the INSERT of reservation `id`: until it is sent, `replaceLater`
    /// may put the row as the transaction has since changed it in its place.
    func executeLater(_ sql: SQL, replaceableAs id: ReservationID) throws {
        state.replaceable[id] = state.later.count
        try executeLater(sql)
    }

    /// Puts `sql` in place of reservation `id`'s INSERT, if it has not been sent; false if it has.
    func replaceLater(_ id: ReservationID, with sql: SQL) -> Bool {
        guard let index = state.replaceable[id] else { return false }
        state.later[index] = sql.postgres
        return true
    }

    /// The rows each of `statements` returns, all sent in one round trip.
    func batch(_ statements: [SQL]) throws -> [[PostgresRow]] {
        guard !statements.isEmpty else { return [] }
        return try answers(statements.map(\.postgres)).map(\.rows)
    }

    /// Commits after running `statements`, in one round trip; returns the rows each returned.
    /// A transaction that has sent nothing has nothing to commit.
    func commit(after statements: [SQL] = []) throws -> [[PostgresRow]] {
        guard state.begin == nil || !state.later.isEmpty || !statements.isEmpty else {
            state.begin = nil
            return []
        }
        return Array(try batch(statements + ["COMMIT"]).dropLast())
    }

    /// Rolls back what the server has begun; drops what was still to be sent.
    func rollBack() {
        state.later = []
        state.replaceable = [:]
        guard state.begin == nil else { return state.begin = nil }
        _ = try? execute("ROLLBACK")
    }

    /// The server did not answer a statement within `statementDeadline`.
    struct StatementTimedOut: Error, CustomStringConvertible {
        var description: String { "PostgreSQL did not answer within \(PostgresTransaction.statementDeadline.components.seconds) s" }
    }

    /// The first row `sql` returns, or nil.
    func row(_ sql: SQL) throws -> PostgresRow? {
        try rows(sql).first
    }

    /// Runs `sql` and returns how many rows it changed.
    @discardableResult
    func execute(_ sql: SQL) throws -> Int {
        try answer(sql.postgres).changedRows
    }

    /// Runs `text`, a statement of the program's own without values (DDL), unprepared.
    func execute(unprepared text: String) throws {
        _ = try connection.run(text, deadline: .now + Self.statementDeadline)
    }

    /// The single value of a one-row, one-column query (a count, an id); NULL is an error.
    func value<T: PostgresDecodable>(_ sql: SQL, as type: T.Type = T.self) throws -> T? {
        try row(sql).map { try $0[0].decode(T.self) }
    }
}

/// Where the PostgreSQL servers are: `postgres://user:password@host:port[,host:port…]/database`,
/// optionally `?schema=NAME` to keep CLup's tables in a schema of their own (created if
/// missing), and how the connection is encrypted: `sslmode=verify-full&sslrootcert=PATH`
/// checks that the server's certificate is signed by the operator's CA and names the host
/// connected to (libpq's modes; without one, `prefer`: encrypted if the server offers it,
/// unchecked). With several hosts (the nodes of a Patroni cluster), a connection goes to the
/// first that takes writes — the primary — with libpq's `target_session_attrs=read-write`.
struct PostgresLocation: Sendable, Equatable {
    struct Host: Sendable, Equatable {
        var name: String
        var port: Int
    }

    var hosts: [Host]
    var user: String
    var password: String?
    var database: String
    var schema: String?
    /// libpq's `sslmode`.
    var tlsMode = "prefer"
    /// The CA certificate file a `verify-ca` or `verify-full` connection checks the server's
    /// certificate against.
    var tlsRootCertificate: String?

    static let tlsModes = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"]

    /// The TLS settings as libpq's connection parameters.
    var tlsParameters: [(String, String)] {
        [("sslmode", tlsMode)] + (tlsRootCertificate.map { [("sslrootcert", $0)] } ?? [])
    }

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    init(url: String) throws {
        let schemes = ["postgres://", "postgresql://"]
        guard let scheme = schemes.first(where: { url.hasPrefix($0) }) else {
            throw Invalid(description: "a PostgreSQL URL starts with postgres:// (got \(Self.redacted(url)))")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        if let query = rest.firstIndex(of: "?") {
            for parameter in rest[rest.index(after: query)...].split(separator: "&") {
                let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
                switch (pair.first, pair.count) {
                case ("schema", 2):
                    guard pair[1].wholeMatch(of: /[a-z_][a-z0-9_]{0,62}/) != nil else {
                        throw Invalid(description: "a schema name is lower-case letters, digits and _ (got \(pair[1]))")
                    }
                    schema = pair[1]
                case ("sslmode", 2):
                    guard Self.tlsModes.contains(pair[1]) else {
                        throw Invalid(description: "sslmode is one of \(Self.tlsModes.joined(separator: ", ")) (got \(pair[1]))")
                    }
                    tlsMode = pair[1]
                case ("sslrootcert", 2):
                    let path = pair[1].removingPercentEncoding ?? pair[1]
                    guard path.hasPrefix("/") else {
                        throw Invalid(description: "sslrootcert is a CA certificate file's absolute path (got \(path))")
                    }
                    tlsRootCertificate = path
                default:
                    throw Invalid(description: """
                        unknown PostgreSQL URL parameter \(parameter) (schema=NAME, sslmode=MODE and sslrootcert=PATH are read)
                        """)
                }
            }
            if tlsMode.hasPrefix("verify"), tlsRootCertificate == nil {
                throw Invalid(description: "sslmode=\(tlsMode) needs sslrootcert=PATH, the CA certificate to check the server's against")
            }
            rest = rest[..<query]
        }
        guard let at = rest.lastIndex(of: "@") else {
            throw Invalid(description: "a PostgreSQL URL names its user: postgres://USER@HOST/DATABASE")
        }
        let credentials = rest[..<at]
        let place = rest[rest.index(after: at)...]
        let userAndPassword = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        user = String(userAndPassword[0]).removingPercentEncoding ?? String(userAndPassword[0])
        password = userAndPassword.count > 1 ? String(userAndPassword[1]).removingPercentEncoding : nil
        let hostsAndDatabase = place.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        database = hostsAndDatabase.count > 1 ? String(hostsAndDatabase[1]) : user
        hosts = try hostsAndDatabase[0].split(separator: ",").map { host in
            let parts = host.split(separator: ":")
            guard let name = parts.first, !name.isEmpty, parts.count <= 2 else {
                throw Invalid(description: "\(host) is not HOST or HOST:PORT")
            }
            guard let port = parts.count == 2 ? Int(parts[1]) : 5432, (1...65535).contains(port) else {
                throw Invalid(description: "\(host) has no valid port")
            }
            return Host(name: String(name), port: port)
        }
        guard !user.isEmpty, !hosts.isEmpty, !database.isEmpty else {
            throw Invalid(description: "a PostgreSQL URL needs a user, a host and a database")
        }
    }

    /// `url` with any password replaced, for messages and logs.
    static func redacted(_ url: String) -> String {
        url.replacing(/:[^:@\/]*@/, with: ":…@")
    }
}

/// A few connections to the primary, lent to one caller at a time. A connection that failed
/// is closed and not lent again; the next caller opens a new one, to whichever host is the
/// primary by then.
final class PostgresPool: @unchecked Sendable {
    let location: PostgresLocation
    let logger: Logger
    private let size: Int
    /// Called when a lent connection broke or timed out.
    private let lost: @Sendable () -> Void
    // Guarded by `condition`.
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var lent = 0
    private var closed = false

    /// How long opening a connection to one host may take.
    static let connectTimeout = 3

    init(location: PostgresLocation, size: Int, logger: Logger, lost: @escaping @Sendable () -> Void = {}) {
        self.location = location
        self.size = max(1, size)
        self.logger = logger
        self.lost = lost
    }

    /// The server could not be reached, or none of the hosts takes writes.
    struct Unreachable: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `body` with a connection of its own, waiting for one if all are lent.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try take()
        do {
            let result = try body(connection)
            give(back: connection)
            return result
        } catch {
            give(back: connection, failed: error)
            throw error
        }
    }

    private func take() throws -> PostgresConnection {
        condition.lock()
        while idle.isEmpty && lent >= size && !closed { condition.wait() }
        if closed {
            condition.unlock()
            throw Unreachable(description: "the connection pool is closed")
        }
        lent += 1
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        condition.unlock()
        do {
            return try openConnection()
        } catch {
            condition.lock()
            lent -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    private func give(back connection: PostgresConnection, failed error: (any Error)? = nil) {
        // A connection that broke, or that an error left in an unknown state, is not reused.
        let broke = error is PostgresConnection.Lost || error is PostgresTransaction.StatementTimedOut
        let reusable = !connection.isClosed && !broke
        condition.lock()
        lent -= 1
        if reusable && !closed { idle.append(connection) }
        condition.signal()
        condition.unlock()
        if !reusable { connection.close() }
        if broke { lost() }
    }

    /// A connection to the first host that takes writes: one of the pool's, or the caller's
    /// own outside it (the board feed's listening one).
    func openConnection() throws -> PostgresConnection {
        var failures: [String] = []
        for host in location.hosts {
            do {
                return try PostgresConnection.connect(to: host, of: location, timeout: Self.connectTimeout)
            } catch {
                let reason = "\(error)"
                failures.append(reason.contains("read-only") ? "\(host.name):\(host.port) is a replica"
                                                              : "\(host.name):\(host.port): \(reason)")
            }
        }
        throw Unreachable(description: "no PostgreSQL primary: " + failures.joined(separator: "; "))
    }

    /// Closes every idle connection and refuses new callers.
    func shutdown() {
        condition.lock()
        closed = true
        let connections = idle
        idle = []
        condition.broadcast()
        condition.unlock()
        for connection in connections { connection.close() }
    }
}

/// A reference that does not keep its object alive: the board feed's way back to its engine.
final class Weak<Object: AnyObject>: @unchecked Sendable {
    weak var value: Object?
}
