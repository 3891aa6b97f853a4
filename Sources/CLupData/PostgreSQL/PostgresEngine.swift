import CLupDomain
import Foundation
import Logging

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
        let (result, changes) = try pool.withConnection { connection in
            let transaction = PostgresTransaction(connection: connection)
            try transaction.execute("BEGIN")
            do {
                try reply?.record(transaction.statements, now: Date())
                let result = try work(transaction)
                if let payload = feed.payload(for: transaction.changes) {
                    try transaction.execute("SELECT pg_notify(\(feed.channel), \(payload))")
                }
                try transaction.execute("COMMIT")
                reply?.committedWrite()
                return (result, transaction.changes)
            } catch {
                _ = try? transaction.execute("ROLLBACK")
                throw error
            }
        }
        try apply(changes)
        return result
    }

    /// Brings the board up to date with a committed transaction's changes: the stores,
    /// reservations and learned sums it changed, read back as they now are; and forgets the
    /// sessions and kiosks if it changed any, and the active reservation of each customer whose
    /// reservation it changed.
    func apply(_ changes: PostgresTransaction.Changes) throws {
        if changes.credentials { credentials.clearCredentials() }
        if changes.everything { return try reloadBoard() }
        guard !changes.stores.isEmpty || !changes.reservations.isEmpty || !changes.loads.isEmpty else { return }
        let (boardChanges, customers) = try read { transaction in
            var boardChanges = BoardChanges()
            // The customers whose reservations changed; nil if one cannot be told (deleted).
            var customers: Set<UserID>? = []
            boardChanges.stores = try changes.stores.sorted().flatMap { try AppDatabase.storeDetails($0, transaction.statements) }
            if !changes.reservations.isEmpty {
                let ids = changes.reservations.keys.map(\.rawValue)
                var found: [ReservationID: LiveReservation?] = [:]
                // userId after the live columns, which `live` reads by position.
                for row in try transaction.rows("""
                    SELECT \(unescaped: AppDatabase.liveColumns), userId FROM reservation WHERE id \(in: ids)
                    """)
                {
                    let row = SQLRow(row)
                    found[try row.decode(0)] = .some(try AppDatabase.live(row))
                    if let userId = try row.value(18, as: UserID.self) { customers?.insert(userId) }
                }
                for (id, storeId) in changes.reservations.sorted(by: { $0.key < $1.key }) {
                    boardChanges.reservations.append((found[id] == nil ? nil : storeId, id, found[id] ?? nil))
                }
                if found.count < ids.count { customers = nil }
            }
            for storeId in changes.loads.sorted() {
                if let load = try transaction.row("SELECT * FROM storeLoad WHERE storeId = \(storeId)")?.record(StoreLoad.self) {
                    boardChanges.models[storeId] = load.model
                }
            }
            return (boardChanges, customers)
        }
        if let customers {
            if !customers.isEmpty { credentials.forgetActiveReservations(of: customers) }
        } else {
            // A reservation deleted cannot be traced to its customer: everyone's is read again.
            credentials.clear()
        }
        board.apply(boardChanges)
    }

    /// Runs `work` in a read-only transaction: one consistent snapshot for all its statements.
    /// Without `snapshot`, for a read of one statement (which sees one committed state by
    /// itself), no transaction is begun: its BEGIN and COMMIT were two of a session read's
    /// three round trips.
    func read<T>(snapshot: Bool = true, _ work: (PostgresTransaction) throws -> T) throws -> T {
        try pool.withConnection { connection in
            let transaction = PostgresTransaction(connection: connection)
            guard snapshot else { return try work(transaction) }
            try transaction.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            defer { _ = try? transaction.execute("COMMIT") }
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
    private let state = State()

    init(connection: PostgresConnection) {
        self.connection = connection
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
    }

    private final class State {
        var changes = Changes()
        /// The stores this transaction has locked, as read under the lock.
        var locked: [StoreID: StoreBoard.Definition] = [:]
    }

    var changes: Changes { state.changes }

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
    func lockedStore(_ id: StoreID) -> StoreBoard.Definition? { state.locked[id] }

    func remember(locked definition: StoreBoard.Definition) { state.locked[definition.id] = definition }

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
        try connection.run(statement, deadline: .now + Self.statementDeadline)
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
