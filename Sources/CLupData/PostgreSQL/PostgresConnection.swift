import CLibpq
import Foundation

/// One connection to PostgreSQL through libpq, used by one thread at a time and called
/// synchronously on it: the statement is sent and the calling thread waits on the socket for
/// the answer, with no other thread in between. CLup's page threads block by design (one
/// request, one thread), so an event-loop client cost a hand-over to its loop and back for every
/// statement; here a statement costs one round trip and nothing else.
///
/// Statements whose text does not depend on their values are prepared once per connection
/// (`PostgresStatement.prepare`) and then only bound and run: the server parses and plans them
/// once. Values travel in binary, typed (`PostgresParameter`), and so do results.
final class PostgresConnection {
    /// libpq's connection; nil once closed.
    private var handle: OpaquePointer?
    /// The names of the statements prepared on this connection, by text and parameter types.
    private var prepared: [PreparedKey: String] = [:]
    private var namesGiven = 0
    /// Past this many, statements are run unnamed rather than prepared (a connection's
    /// prepared statements live as long as it does).
    static let mostPrepared = 512
    /// Milliseconds a transaction may sit waiting for its next statement before the server
    /// ends it (and its session), releasing its locks.
    static let abandonedTransaction = 3000

    private struct PreparedKey: Hashable {
        var text: String
        var types: [UInt32]

        init(_ statement: PostgresStatement) {
            text = statement.text
            types = statement.parameters.map(\.type)
        }
    }

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    deinit { close() }

    /// Whether the connection is closed or broken.
    var isClosed: Bool {
        guard let handle else { return true }
        return PQstatus(handle) != CONNECTION_OK
    }

    /// Closes the connection (at once: libpq sends a goodbye and closes the socket).
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
    }

    /// The socket, for waiting on notifications.
    var socket: Int32 { handle.map { PQsocket($0) } ?? -1 }

    /// The server could not be reached or did not take the connection.
    struct ConnectFailed: Error, CustomStringConvertible {
        var description: String
    }

    /// The connection broke under a statement (the server went away, the network dropped):
    /// nothing more can be sent on it.
    struct Lost: Error, CustomStringConvertible {
        var message: String
        var description: String { "the connection to PostgreSQL was lost: \(message)" }
    }

    /// Connects to `host`, and keeps the connection only if the server takes writes (libpq's
    /// `target_session_attrs=read-write`): a replica is refused with "session is read-only".
    static func connect(to host: PostgresLocation.Host, of location: PostgresLocation, timeout: Int) throws
        -> PostgresConnection
    {
        var parameters: [(String, String)] = [
            ("host", host.name), ("port", String(host.port)), ("user", location.user), ("dbname", location.database),
            ("connect_timeout", String(timeout)), ("target_session_attrs", "read-write"),
            ("application_name", "clup"), ("client_encoding", "UTF8"),
            // A peer lost without a reset is noticed within 20 s even while idle (the board
            // feed's listening connection is idle most of the time).
            ("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "2"),
        ]
        if let password = location.password { parameters.append(("password", password)) }
        // A worker lost in the middle of a transaction (its host gone, no reset sent) would
        // hold its row locks, a store's among them, until the server noticed the dead peer,
        // and every write to that store would wait. Between a transaction's statements a worker
        // waits for nothing, so a transaction left idle this long is ended by the server.
        var options = ["-c idle_in_transaction_session_timeout=\(Self.abandonedTransaction)"]
        if let schema = location.schema { options.append("-c search_path=\(schema)") }
        parameters.append(("options", options.joined(separator: " ")))
        parameters += location.tlsParameters
        let handle = withCStrings(parameters.map(\.0)) { keywords in
            withCStrings(parameters.map(\.1)) { values in PQconnectdbParams(keywords, values, 0) }
        }
        guard let handle else { throw ConnectFailed(description: "out of memory") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.message(PQerrorMessage(handle))
            PQfinish(handle)
            throw ConnectFailed(description: message)
        }
        // The server's notices ("relation … already exists, skipping") are not errors; libpq
        // would print each on stderr, the worker's log.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        return PostgresConnection(handle: handle)
    }

    /// libpq's message in a line: the reason after "connection to server at … failed:" (the
    /// caller names the host already), else its first line; the hints on the lines after
    /// ("Is the server running…?") are left out.
    static func message(_ text: UnsafePointer<CChar>?) -> String {
        let whole = text.map { String(cString: $0) } ?? ""
        let lines = whole.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        if let line = lines.last(where: { $0.contains("failed: ") }), let failed = line.range(of: "failed: ") {
            return String(line[failed.upperBound...])
        }
        return lines.first ?? "unknown error"
    }

    /// Runs `statement` and returns its result, or throws: the server's refusal as
    /// `PostgresEngine.Refused` (the connection stays usable), a broken connection as `Lost`, no
    /// answer by `deadline` as `PostgresTransaction.StatementTimedOut` (the connection is then
    /// closed: it may still deliver the late answer).
    func run(_ statement: PostgresStatement, deadline: ContinuousClock.Instant) throws -> PostgresResult {
        guard handle != nil else { throw Lost(message: "closed") }
        var preparing: String?
        let name = preparedName(statement, preparing: &preparing)
        if let preparing {
            try sendPrepare(statement, as: preparing)
            _ = try results(deadline: deadline)
            prepared[PreparedKey(statement)] = preparing
        }
        try send(statement, as: name)
        return try results(deadline: deadline)
    }

    /// Runs `statements` one after the other in one round trip (libpq's pipeline mode): they
    /// are all sent, then their results read. For statements whose values do not depend on
    /// each other's results, such as a transaction's BEGIN with its first statement, or its
    /// last statements with its COMMIT. After a statement the server refuses, the rest are not
    /// run, and the refusal is thrown once every answer is read.
    func run(pipeline statements: [PostgresStatement], deadline: ContinuousClock.Instant) throws -> [PostgresResult] {
        guard let handle else { throw Lost(message: "closed") }
        guard PQenterPipelineMode(handle) == 1 else { throw lost() }
        // For each answer to come: one of `statements`', or a preparation's (with its name).
        var answers: [(PreparedKey, String)?] = []
        var preparedHere: [(PreparedKey, String)] = []
        for statement in statements {
            var preparing: String?
            let name = preparedName(statement, preparing: &preparing, pending: preparedHere)
            if let preparing {
                try sendPrepare(statement, as: preparing)
                answers.append((PreparedKey(statement), preparing))
                preparedHere.append((PreparedKey(statement), preparing))
            }
            try send(statement, as: name)
            answers.append(nil)
        }
        guard PQpipelineSync(handle) == 1 else { throw lost() }
        var kept: [PostgresResult?] = []
        var refused: PostgresEngine.Refused?
        for preparation in answers {
            let (last, refusal) = try nextResults(deadline: deadline)
            refused = refused ?? refusal
            if let (key, name) = preparation {
                // Prepared, even if a statement after it was refused.
                if last != nil { prepared[key] = name }
            } else {
                kept.append(last)
            }
        }
        try waitUntilReadable(deadline: deadline)
        guard let sync = PQgetResult(handle) else { throw lost() }
        let synced = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
        PQclear(sync)
        guard synced, PQexitPipelineMode(handle) == 1 else { throw lost() }
        if let refused {
            if PQstatus(handle) != CONNECTION_OK || refused.sqlState == "0A000" { close() }
            throw refused
        }
        return try kept.map { result in
            guard let result else { throw Lost(message: "no result") }
            return result
        }
    }

    /// The name `statement` is prepared under on this connection, if it is; otherwise, if it
    /// is to be prepared and there is room, a new name, also set in `preparing` (the caller
    /// prepares it first); nil if it is run unnamed. `pending`: those being prepared in the
    /// same pipeline.
    private func preparedName(_ statement: PostgresStatement, preparing: inout String?,
                              pending: [(PreparedKey, String)] = []) -> String?
    {
        guard statement.prepare else { return nil }
        let key = PreparedKey(statement)
        if let known = prepared[key] ?? pending.first(where: { $0.0 == key })?.1 { return known }
        guard prepared.count + pending.count < Self.mostPrepared else { return nil }
        // Never a name given before: a preparation refused in a pipeline leaves a gap.
        namesGiven += 1
        preparing = "clup\(namesGiven)"
        return preparing
    }

    private func sendPrepare(_ statement: PostgresStatement, as name: String) throws {
        guard let handle else { throw Lost(message: "closed") }
        let types = statement.parameters.map(\.type)
        let sent = types.withUnsafeBufferPointer { types in
            PQsendPrepare(handle, name, statement.text, Int32(types.count), types.baseAddress)
        }
        guard sent == 1 else { throw lost() }
    }

    private func send(_ statement: PostgresStatement, as name: String?) throws {
        guard let handle else { throw Lost(message: "closed") }
        let parameters = statement.parameters
        let types = parameters.map(\.type)
        let sent = parameters.withValues { values, lengths, formats in
            if let name {
                PQsendQueryPrepared(handle, name, Int32(parameters.count), values, lengths, formats, 1)
            } else {
                types.withUnsafeBufferPointer { types in
                    PQsendQueryParams(handle, statement.text, Int32(parameters.count), types.baseAddress, values, lengths,
                                      formats, 1)
                }
            }
        }
        guard sent == 1 else { throw lost() }
    }

    /// Runs `text`, a statement without values (a migration's DDL, LISTEN), unprepared.
    func run(_ text: String, deadline: ContinuousClock.Instant) throws -> PostgresResult {
        try run(PostgresStatement(text: text, parameters: [], prepare: false), deadline: deadline)
    }

    /// Waits for the statement's results and returns the last; the first error, if any, thrown
    /// once all have been read (the connection is then ready for the next statement).
    private func results(deadline: ContinuousClock.Instant) throws -> PostgresResult {
        guard let handle else { throw Lost(message: "closed") }
        let (last, refused) = try nextResults(deadline: deadline)
        if let refused {
            // A refusal that came with the connection's end (the server shutting down), or one
            // of its prepared statements gone stale ("cached plan must not change result
            // type": another worker's migration changed a table under a `SELECT *`): the
            // connection is closed, and the next request opens a fresh one.
            if PQstatus(handle) != CONNECTION_OK || refused.sqlState == "0A000" { close() }
            throw refused
        }
        if PQstatus(handle) != CONNECTION_OK { throw lost() }
        guard let last else { throw Lost(message: "no result") }
        return last
    }

    /// Reads one statement's results, up to the end libpq marks with no result: the last, and
    /// the first refusal among them. A statement not run because one before it in a pipeline
    /// was refused has neither.
    private func nextResults(deadline: ContinuousClock.Instant) throws -> (PostgresResult?, PostgresEngine.Refused?) {
        guard let handle else { throw Lost(message: "closed") }
        var last: PostgresResult?
        var refused: PostgresEngine.Refused?
        while true {
            try waitUntilReadable(deadline: deadline)
            guard let result = PQgetResult(handle) else { break }
            let status = PQresultStatus(result)
            if status == PGRES_FATAL_ERROR {
                if refused == nil { refused = Self.refusal(result) }
                PQclear(result)
            } else if status == PGRES_BAD_RESPONSE {
                PQclear(result)
                throw lost()
            } else if status == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else {
                last = PostgresResult(result)
            }
        }
        return (last, refused)
    }

    /// Waits until libpq has a whole result to give (or none is coming).
    private func waitUntilReadable(deadline: ContinuousClock.Instant) throws {
        guard let handle else { throw Lost(message: "closed") }
        while PQisBusy(handle) == 1 {
            try wait(until: deadline)
            guard PQconsumeInput(handle) == 1 else { throw lost() }
        }
    }

    /// Waits until the socket has something to read, or throws at the deadline (closing the
    /// connection).
    private func wait(until deadline: ContinuousClock.Instant) throws {
        while true {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else {
                close()
                throw PostgresTransaction.StatementTimedOut()
            }
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw lost() }
        }
    }

    /// The connection's error as `Lost`, closing it.
    private func lost() -> Lost {
        let message = handle.map { Self.message(PQerrorMessage($0)) } ?? "closed"
        close()
        return Lost(message: message)
    }

    private static func refusal(_ result: OpaquePointer) -> PostgresEngine.Refused {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        return PostgresEngine.Refused(sqlState: field("C") ?? "", message: field("M") ?? "",
                                      constraint: field("n"))
    }

    /// Notifications received so far (LISTEN): reads what the socket holds without waiting.
    /// Throws `Lost` if the connection broke.
    func notifications() throws -> [(channel: String, payload: String)] {
        guard let handle else { throw Lost(message: "closed") }
        guard PQconsumeInput(handle) == 1 else { throw lost() }
        var found: [(String, String)] = []
        while let notification = PQnotifies(handle) {
            found.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        if PQstatus(handle) != CONNECTION_OK { throw lost() }
        return found
    }
}

/// `strings` as a NULL-terminated array of C strings, for as long as `body` runs.
private func withCStrings<T>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> T) -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}

/// A statement as PostgreSQL is sent it: `$n` placeholders and their values.
struct PostgresStatement {
    var text: String
    var parameters: [PostgresParameter]
    /// Whether to keep it prepared on the connection: its text is the same whatever its values.
    var prepare: Bool

    init(text: String, parameters: [PostgresParameter] = [], prepare: Bool = true) {
        self.text = text
        self.parameters = parameters
        self.prepare = prepare
    }
}

/// One value bound to a statement: its type (an OID) and its bytes in PostgreSQL's binary form,
/// or nil for NULL.
struct PostgresParameter {
    var type: UInt32
    var bytes: [UInt8]?

    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let int8: UInt32 = 20
    static let int2: UInt32 = 21
    static let int4: UInt32 = 23
    static let text: UInt32 = 25
    static let oid: UInt32 = 26
    static let float4: UInt32 = 700
    static let float8: UInt32 = 701
    static let bpchar: UInt32 = 1042
    static let varchar: UInt32 = 1043
    static let date: UInt32 = 1082
    static let timestamp: UInt32 = 1114
    static let timestamptz: UInt32 = 1184
    static let numeric: UInt32 = 1700
    static let name: UInt32 = 19

    /// PostgreSQL's epoch, 2000-01-01 00:00 UTC, in seconds since 1970.
    static let epoch: TimeInterval = 946_684_800

    init(type: UInt32, bytes: [UInt8]?) {
        self.type = type
        self.bytes = bytes
    }

    init(_ value: Int64) {
        self.init(type: Self.int8, bytes: withUnsafeBytes(of: value.bigEndian, Array.init))
    }

    init(_ value: Double) {
        self.init(type: Self.float8, bytes: withUnsafeBytes(of: value.bitPattern.bigEndian, Array.init))
    }

    init(_ value: Bool) {
        self.init(type: Self.bool, bytes: [value ? 1 : 0])
    }

    init(_ value: String) {
        self.init(type: Self.text, bytes: Array(value.utf8))
    }

    /// A `timestamptz`: microseconds since PostgreSQL's epoch (truncated, as the server keeps it).
    init(_ value: Date) {
        self.init(type: Self.timestamptz, bytes: withUnsafeBytes(of: Self.microseconds(value).bigEndian, Array.init))
    }

    /// `date` as a `timestamptz` keeps it: whole microseconds since PostgreSQL's epoch, truncated.
    static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 - epoch) * 1_000_000)
    }

    /// NULL, typed as a value of `type` would be.
    static func null(_ type: UInt32) -> PostgresParameter { PostgresParameter(type: type, bytes: nil) }
}

extension Array<PostgresParameter> {
    /// The values as libpq takes them: pointers, lengths and formats (all binary).
    fileprivate func withValues<T>(
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T
    ) -> T {
        guard !isEmpty else { return body(nil, nil, nil) }
        // One buffer for every value's bytes, pointed into.
        var storage: [UInt8] = []
        var offsets: [Int?] = []
        for parameter in self {
            if let bytes = parameter.bytes {
                offsets.append(storage.count)
                storage += bytes
            } else {
                offsets.append(nil)
            }
        }
        let lengths = map { Int32($0.bytes?.count ?? 0) }
        let formats = [Int32](repeating: 1, count: count)
        if storage.isEmpty { storage.append(0) }
        return storage.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let pointers = offsets.map { $0.map { base + $0 } }
            return pointers.withUnsafeBufferPointer { pointers in
                body(pointers.baseAddress, lengths, formats)
            }
        }
    }
}

/// A statement's result: its rows, each cell in PostgreSQL's binary form, kept until the last
/// row read from it is let go.
final class PostgresResult {
    private let result: OpaquePointer
    let rowCount: Int
    let columnCount: Int
    /// Column positions by name, lower case (as the schema's unquoted names are folded).
    let columns: [String: Int]

    fileprivate init(_ result: OpaquePointer) {
        self.result = result
        rowCount = Int(PQntuples(result))
        columnCount = Int(PQnfields(result))
        var columns: [String: Int] = [:]
        for index in 0..<columnCount {
            if let name = PQfname(result, Int32(index)) { columns[String(cString: name)] = columns[String(cString: name)] ?? index }
        }
        self.columns = columns
    }

    deinit { PQclear(result) }

    /// How many rows the statement changed (INSERT, UPDATE, DELETE), 0 for others.
    var changedRows: Int {
        Int(String(cString: PQcmdTuples(result))) ?? 0
    }

    var rows: [PostgresRow] { (0..<rowCount).map { PostgresRow(result: self, row: $0) } }

    fileprivate func cell(row: Int, column: Int) -> PostgresCell {
        let isNull = PQgetisnull(result, Int32(row), Int32(column)) == 1
        let length = Int(PQgetlength(result, Int32(row), Int32(column)))
        let bytes = isNull ? nil : UnsafeRawBufferPointer(start: PQgetvalue(result, Int32(row), Int32(column)), count: length)
        return PostgresCell(type: PQftype(result, Int32(column)), bytes: bytes, column: column)
    }

    fileprivate func columnName(_ index: Int) -> String {
        PQfname(result, Int32(index)).map { String(cString: $0) } ?? ""
    }
}

/// One row of a result, its cells by position or by column name.
struct PostgresRow {
    fileprivate let result: PostgresResult
    fileprivate let row: Int

    var count: Int { result.columnCount }

    subscript(index: Int) -> PostgresCell { result.cell(row: row, column: index) }

    /// The cell named `column` (spelled as in the statements; PostgreSQL folds it), if any.
    func cell(named column: String) -> PostgresCell? {
        result.columns[column.lowercased()].map { result.cell(row: row, column: $0) }
    }

    var columnNames: [String] { (0..<result.columnCount).map(result.columnName) }
}

/// One cell: its column's type, and its bytes in binary form (nil for NULL). The bytes belong to
/// the result, which the row the cell was taken from keeps: a cell is read at once, while its
/// row is at hand, and never kept (holding the result here too cost a retain and a release for
/// every cell read, thousands on a write that reads a store's queue).
struct PostgresCell {
    let type: UInt32
    let bytes: UnsafeRawBufferPointer?
    let column: Int

    /// The value as `Value`; NULL an error.
    func decode<Value: PostgresDecodable>(_ type: Value.Type = Value.self) throws -> Value {
        guard let bytes else {
            throw DecodingError.valueNotFound(Value.self, .init(codingPath: [], debugDescription: "column \(column) is NULL"))
        }
        return try Value(postgres: bytes, type: self.type)
    }

    /// The big-endian integer of `bytes`, of their size.
    static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        switch bytes.count {
        case 2: Int64(Int16(bigEndian: bytes.loadUnaligned(as: Int16.self)))
        case 4: Int64(Int32(bigEndian: bytes.loadUnaligned(as: Int32.self)))
        case 8: Int64(bigEndian: bytes.loadUnaligned(as: Int64.self))
        default: nil
        }
    }

    static func mismatch(_ value: Any.Type, _ type: UInt32) -> DecodingError {
        DecodingError.typeMismatch(value, .init(codingPath: [], debugDescription: "PostgreSQL type \(type)"))
    }
}

/// A value read from a cell's binary form.
protocol PostgresDecodable {
    init(postgres bytes: UnsafeRawBufferPointer, type: UInt32) throws
}

extension Int64: PostgresDecodable {
    init(postgres bytes: UnsafeRawBufferPointer, type: UInt32) throws {
        switch type {
        case PostgresParameter.int2, PostgresParameter.int4, PostgresParameter.int8, PostgresParameter.oid:
            guard let value = PostgresCell.integer(bytes) else { throw PostgresCell.mismatch(Int64.self, type) }
            self = value
        case PostgresParameter.numeric:
            guard let value = Numeric(bytes)?.integer else { throw PostgresCell.mismatch(Int64.self, type) }
            self = value
        default: throw PostgresCell.mismatch(Int64.self, type)
        }
    }
}

extension Int: PostgresDecodable {
    init(postgres bytes: UnsafeRawBufferPointer, type: UInt32) throws {
        self = Int(try Int64(postgres: bytes, type: type))
    }
}

extension Double: PostgresDecodable {
    init(postgres bytes: UnsafeRawBufferPointer, type: UInt32) throws {
        switch type {
        case PostgresParameter.float8 where bytes.count == 8:
            self = Double(bitPattern: UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self)))
        case PostgresParameter.float4 where bytes.count == 4:
            self = Double(Float(bitPattern: UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self))))
        case PostgresParameter.numeric:
            guard let value = Numeric(bytes)?.double else { throw PostgresCell.mismatch(Double.self, type) }
            self = value
        default:
            self = Double(try Int64(postgres: bytes, type: type))
        }
    }
}

extension Bool: PostgresDecodable {
    init(postgres bytes: UnsafeRawBufferPointer, type: UInt32) throws {
        guard type == PostgresParameter.bool, bytes.count == 1 else { throw PostgresCell.mismatch(Bool.self, type) }
        self = bytes[0] != 0
    }
}

extension String: PostgresDecodable {
    init(postgres bytes: UnsafeRawBufferPointer, type: UInt32) throws {
        switch type {
        case PostgresParameter.text, PostgresParameter.varchar, PostgresParameter.bpchar, PostgresParameter.name, 705:
            self = String(decoding: bytes, as: UTF8.self)
        default: throw PostgresCell.mismatch(String.self, type)
        }
    }
}

extension Date: PostgresDecodable {
    init(postgres bytes: UnsafeRawBufferPointer, type: UInt32) throws {
        switch type {
        case PostgresParameter.timestamptz, PostgresParameter.timestamp:
            guard let microseconds = PostgresCell.integer(bytes), bytes.count == 8 else {
                throw PostgresCell.mismatch(Date.self, type)
            }
            self = Date(timeIntervalSince1970: PostgresParameter.epoch + Double(microseconds) / 1_000_000)
        case PostgresParameter.date:
            guard let days = PostgresCell.integer(bytes), bytes.count == 4 else { throw PostgresCell.mismatch(Date.self, type) }
            self = Date(timeIntervalSince1970: PostgresParameter.epoch + Double(days) * 86_400)
        default: throw PostgresCell.mismatch(Date.self, type)
        }
    }
}

extension Data: PostgresDecodable {
    init(postgres bytes: UnsafeRawBufferPointer, type: UInt32) throws {
        guard type == PostgresParameter.bytea else { throw PostgresCell.mismatch(Data.self, type) }
        self = Data(bytes)
    }
}

/// A `numeric` in binary form: base-10000 digits with a weight and a sign (what `SUM` and `AVG`
/// of integers return).
private struct Numeric {
    var digits: [Int16]
    var weight: Int16
    var negative: Bool
    var scale: Int16

    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 8 else { return nil }
        func word(_ index: Int) -> Int16 { Int16(bigEndian: bytes.loadUnaligned(fromByteOffset: index * 2, as: Int16.self)) }
        let count = Int(word(0))
        guard count >= 0, bytes.count == 8 + count * 2 else { return nil }
        weight = word(1)
        let sign = UInt16(bitPattern: word(2))
        guard sign == 0 || sign == 0x4000 else { return nil }  // NaN and infinities are not numbers here
        negative = sign == 0x4000
        scale = word(3)
        digits = (0..<count).map { word(4 + $0) }
    }

    var double: Double {
        var value = 0.0
        for (index, digit) in digits.enumerated() {
            value += Double(digit) * pow(10_000, Double(Int(weight) - index))
        }
        return negative ? -value : value
    }

    /// The value if it is a whole number that fits.
    var integer: Int64? {
        var value: Int64 = 0
        for (index, digit) in digits.enumerated() {
            let power = Int(weight) - index
            if power < 0 {
                guard digit == 0 else { return nil }
                continue
            }
            var term = Int64(digit)
            for _ in 0..<power {
                let (product, overflow) = term.multipliedReportingOverflow(by: 10_000)
                guard !overflow else { return nil }
                term = product
            }
            let (sum, overflow) = value.addingReportingOverflow(term)
            guard !overflow else { return nil }
            value = sum
        }
        return negative ? -value : value
    }
}
