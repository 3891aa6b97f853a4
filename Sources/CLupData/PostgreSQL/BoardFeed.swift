import CLupDomain
import CLupSupport
import Foundation
import Synchronization

/// Keeps every worker's board in step with the others' writes. Each write transaction that
/// changes what the board mirrors says so with `pg_notify`, inside the transaction, so that
/// PostgreSQL delivers it only if the transaction commits. The channel is `clup_board`, or
/// `clup_board_SCHEMA` for a deployment in a schema of its own (notices reach the whole
/// database). Every worker listens on a connection of its own and reads the rows named back
/// from the primary, as the writing worker did after its commit. A listening connection that is lost (the primary
/// failed over, the network dropped) is opened again at the next `refresh`, and the board is
/// then reloaded whole, since notices sent meanwhile were lost with it.
final class BoardFeed: @unchecked Sendable {
    /// The channel: one per deployment (a schema's name is letters, digits and _ only).
    let channel: String
    /// Past this size a payload says "reload everything" instead (PostgreSQL's limit is 8000 bytes).
    static let largestPayload = 7000
    /// Up to this many stores changed, a notice carries the version each took (`storeVersion`),
    /// a few dozen bytes each, within PostgreSQL's limit; past it, none, and the other workers
    /// read those stores afresh when they next decide on them.
    static let versionedStores = 30

    /// This worker's name on the channel, so that it skips its own notices (it applied them
    /// when it committed).
    let worker = String(UUID().uuidString.prefix(8))
    /// The worker's name as a notice quotes it.
    private var ownName: String { "\"\(worker)\"" }
    private let pool: PostgresPool
    private let apply: @Sendable (PostgresTransaction.Changes) -> Void
    private let reload: @Sendable () -> Void
    /// The changes are read back here, one notice after another, never on the listening
    /// thread (reading back waits for answers).
    private let queue = DispatchQueue(label: "clup-board-feed")
    // Guarded by `lock`.
    private let lock = NSLock()
    private var listening: Listener?

    init(pool: PostgresPool, apply: @escaping @Sendable (PostgresTransaction.Changes) -> Void,
         reload: @escaping @Sendable () -> Void)
    {
        self.pool = pool
        channel = "clup_board" + (pool.location.schema.map { "_" + $0 } ?? "")
        self.apply = apply
        self.reload = reload
    }

    /// Stops listening and closes the connection, waiting until it is closed.
    func close() {
        let old = lock.withLock {
            defer { listening = nil }
            return listening
        }
        old?.stop()
    }

    /// Drops the listening connection, so that the next `refresh` listens again and reloads
    /// the board.
    func forget() {
        close()
    }

    /// Whether the listening connection is open.
    var isListening: Bool { lock.withLock { listening?.isListening ?? false } }

    /// Opens the listening connection if it is not open; reloads the board when it had to
    /// (re)open it. Called when the engine opens, and by the queue timer every second.
    func refresh() throws {
        guard !isListening else { return }
        close()
        let connection = try pool.openConnection()
        do {
            _ = try connection.run("LISTEN \(channel)", deadline: .now + PostgresTransaction.statementDeadline)
        } catch {
            connection.close()
            throw error
        }
        let listener = Listener(connection: connection) { [weak self] payload in
            guard let self, let changes = self.decode(payload) else { return }
            self.queue.async { self.apply(changes) }
        }
        lock.withLock { listening = listener }
        // Anything committed before the LISTEN took effect is read now.
        queue.sync { reload() }
    }

    /// A thread waiting on the listening connection's socket, handing each notice on as it
    /// arrives; it ends when the connection breaks or `stop` is called.
    private final class Listener: @unchecked Sendable {
        // @unchecked: `connection` is used by the thread alone once it has started; `stopped`
        // and `lost` are atomics; the wake-up pipe's ends are written once, before the thread.
        private let connection: PostgresConnection
        private let stopped = Atomic(false)
        private let lost = Atomic(false)
        private let done = DispatchSemaphore(value: 0)
        private var wake: [Int32] = [-1, -1]

        init(connection: PostgresConnection, deliver: @escaping @Sendable (String) -> Void) {
            self.connection = connection
            _ = pipe(&wake)
            let thread = Thread { [self] in
                ThreadName.set("clup-board-feed")
                run(deliver)
                self.connection.close()
                done.signal()
            }
            thread.start()
        }

        var isListening: Bool { !lost.load(ordering: .acquiring) && !stopped.load(ordering: .acquiring) }

        private func run(_ deliver: (String) -> Void) {
            while !stopped.load(ordering: .acquiring) {
                var descriptors = [pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
                                   pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
                let ready = poll(&descriptors, 2, 1000)
                if ready < 0 && errno != EINTR { break }
                if descriptors[1].revents != 0 { break }
                do {
                    for notification in try connection.notifications() { deliver(notification.payload) }
                } catch {
                    break
                }
            }
            lost.store(true, ordering: .releasing)
        }

        /// Ends the thread and waits until it has closed the connection.
        func stop() {
            stopped.store(true, ordering: .releasing)
            var byte: UInt8 = 1
            _ = write(wake[1], &byte, 1)
            done.wait()
            Foundation.close(wake[0])
            Foundation.close(wake[1])
        }
    }

    /// The notice a transaction sends with its changes, or nil if it changed nothing the board
    /// mirrors.
    func payload(for changes: PostgresTransaction.Changes) -> String? {
        guard !changes.stores.isEmpty || !changes.reservations.isEmpty || !changes.loads.isEmpty || changes.credentials
        else { return nil }
        // Written out rather than through JSONEncoder, once per commit: ids, a name of hex
        // digits and two flags, nothing to escape (`Notice` reads it).
        func list(_ ids: some Sequence<Int64>) -> String { "[" + ids.map(String.init).joined(separator: ",") + "]" }
        let pairs = changes.reservations.sorted { $0.key < $1.key }.map { "[\($0.key.rawValue),\($0.value.rawValue)]" }
        let text = """
            {"worker":"\(worker)","stores":\(list(changes.stores.map(\.rawValue).sorted())),\
            "reservations":[\(pairs.joined(separator: ","))],"loads":\(list(changes.loads.map(\.rawValue).sorted())),\
            "credentials":\(changes.credentials),"all":false}
            """
        guard text.utf8.count <= Self.largestPayload else {
            return #"{"worker":"\#(worker)","stores":[],"reservations":[],"loads":[],"credentials":true,"all":true}"#
        }
        return text
    }

    /// Another worker's changes, or nil for this worker's own (and for anything unreadable).
    private func decode(_ payload: String) -> PostgresTransaction.Changes? {
        // The worker's name is the one quoted value of a notice: one that has this worker's is
        // its own, and is not decoded (with one worker, every notice).
        guard !payload.contains(ownName),
            let notice = try? JSONDecoder().decode(Notice.self, from: Data(payload.utf8)), notice.worker != worker
        else { return nil }
        var changes = PostgresTransaction.Changes()
        changes.everything = notice.all
        changes.stores = Set(notice.stores.map(StoreID.init(rawValue:)))
        for pair in notice.reservations where pair.count == 2 {
            changes.reservations[ReservationID(pair[0])] = StoreID(pair[1])
        }
        changes.loads = Set(notice.loads.map(StoreID.init(rawValue:)))
        changes.credentials = notice.credentials
        // [store id, version] pairs: the version each store took with the transaction.
        changes.versions = Dictionary((notice.versions ?? []).filter { $0.count == 2 }.map { (StoreID(rawValue: $0[0]), $0[1]) }) {
            _, last in last
        }
        return changes
    }

    /// What travels on the channel: ids only, never anything personal.
    private struct Notice: Decodable {
        var worker: String
        var stores: [Int64]
        /// [reservation id, store id] pairs.
        var reservations: [[Int64]]
        var loads: [Int64]
        var credentials: Bool
        /// Too much to name: reload the whole board.
        var all: Bool
        /// [store id, version] pairs: the version each store took (added by the statement that
        /// sends the notice).
        var versions: [[Int64]]? = nil
    }
}
