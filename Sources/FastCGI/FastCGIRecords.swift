/// The FastCGI 1.0 wire format, as a responder speaks it: records, name-value pairs, and one
/// connection's state fed the bytes that arrive on it.
///
/// Pure: no sockets and no C, so every byte a peer can send is read by bounds-checked Swift and
/// the whole layer is fuzzed on its own (`Fuzz/Sources/FuzzFastCGI`). It replaced libfcgi, whose
/// parser aborts on a parameter record whose lengths add up past 2^31 and leaks on unknown
/// management records (`Fuzz/Findings/README.md`).
///
/// What a responder that serves one request at a time on a connection needs: BEGIN_REQUEST
/// (responder role; other roles are refused with UNKNOWN_ROLE), the PARAMS and STDIN streams,
/// ABORT_REQUEST, GET_VALUES (answered), any other management record (answered UNKNOWN_TYPE),
/// and a second request on a busy connection (refused with CANT_MPX_CONN).
public enum FastCGIRecordType: UInt8, Sendable {
    case beginRequest = 1
    case abortRequest = 2
    case endRequest = 3
    case params = 4
    case stdin = 5
    case stdout = 6
    case stderr = 7
    case data = 8
    case getValues = 9
    case getValuesResult = 10
    case unknownType = 11
}

/// What the connection sends back when a request ends (END_REQUEST's protocol status).
public enum FastCGIProtocolStatus: UInt8, Sendable {
    case requestComplete = 0
    case cantMultiplexConnection = 1
    case overloaded = 2
    case unknownRole = 3
}

/// Why a connection is closed without an answer: the peer broke the protocol.
public enum FastCGIProtocolError: Error, Equatable, Sendable {
    case unsupportedVersion(UInt8)
    case malformedBeginRequest
    /// A name or value length runs past the end of the parameters.
    case malformedParameters
    /// The parameters of one request exceed `Limits.maxParameterBytes`.
    case parametersTooLarge
}

public enum FastCGIRecords {
    public static let headerLength = 8
    /// The largest content one record carries that needs no padding (a multiple of 8).
    static let maxAlignedContent = 65_528

    /// Appends one record (header, content, padding to a multiple of 8) to `output`.
    public static func append(type: FastCGIRecordType, requestID: UInt16, content: some Collection<UInt8>,
                              to output: inout [UInt8]) {
        let length = content.count
        precondition(length <= 65_535, "a record holds at most 65,535 bytes")
        let padding = (8 - length % 8) % 8
        output.append(contentsOf: [
            1, type.rawValue, UInt8(requestID >> 8), UInt8(requestID & 0xFF),
            UInt8(length >> 8), UInt8(length & 0xFF), UInt8(padding), 0,
        ])
        output.append(contentsOf: content)
        output.append(contentsOf: repeatElement(0, count: padding))
    }

    /// Appends a whole stream (STDOUT, PARAMS, STDIN): as many records as the bytes need, then the
    /// empty record that ends it.
    public static func appendStream(type: FastCGIRecordType, requestID: UInt16, bytes: some Collection<UInt8>,
                                    to output: inout [UInt8]) {
        appendRecords(type: type, requestID: requestID, bytes: bytes, to: &output)
        append(type: type, requestID: requestID, content: EmptyCollection(), to: &output)
    }

    /// Appends part of a stream: as many records as the bytes need, without the end.
    public static func appendRecords(type: FastCGIRecordType, requestID: UInt16, bytes: some Collection<UInt8>,
                                     to output: inout [UInt8]) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let chunk = rest.prefix(maxAlignedContent)
            append(type: type, requestID: requestID, content: chunk, to: &output)
            rest = rest[chunk.endIndex...]
        }
    }

    /// END_REQUEST with the application's exit status and the protocol status.
    public static func appendEndRequest(requestID: UInt16, appStatus: UInt32 = 0,
                                        protocolStatus: FastCGIProtocolStatus = .requestComplete,
                                        to output: inout [UInt8]) {
        let content: [UInt8] = [
            UInt8(appStatus >> 24), UInt8((appStatus >> 16) & 0xFF), UInt8((appStatus >> 8) & 0xFF),
            UInt8(appStatus & 0xFF), protocolStatus.rawValue, 0, 0, 0,
        ]
        append(type: .endRequest, requestID: requestID, content: content, to: &output)
    }

    /// One record read off the front of `bytes`.
    public struct Record: Sendable {
        public var type: UInt8
        public var requestID: UInt16
        public var content: ArraySlice<UInt8>
        /// Header, content and padding: how many bytes it took.
        public var length: Int
    }

    /// The record at the front of `bytes`, or nil if it has not all arrived.
    public static func record(in bytes: ArraySlice<UInt8>) throws(FastCGIProtocolError) -> Record? {
        guard bytes.count >= headerLength else { return nil }
        let base = bytes.startIndex
        guard bytes[base] == 1 else { throw .unsupportedVersion(bytes[base]) }
        let contentLength = Int(bytes[base + 4]) << 8 | Int(bytes[base + 5])
        let length = headerLength + contentLength + Int(bytes[base + 6])
        guard bytes.count >= length else { return nil }
        return Record(type: bytes[base + 1], requestID: UInt16(bytes[base + 2]) << 8 | UInt16(bytes[base + 3]),
                      content: bytes[(base + headerLength)..<(base + headerLength + contentLength)], length: length)
    }

    /// Name-value pairs: each length in one byte (below 128) or four (high bit set).
    public static func encodePairs(_ pairs: [(name: String, value: String)]) -> [UInt8] {
        var output: [UInt8] = []
        func appendLength(_ length: Int) {
            if length < 128 {
                output.append(UInt8(length))
            } else {
                output.append(contentsOf: [UInt8((length >> 24) | 0x80), UInt8((length >> 16) & 0xFF),
                                           UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)])
            }
        }
        for (name, value) in pairs {
            appendLength(name.utf8.count)
            appendLength(value.utf8.count)
            output.append(contentsOf: name.utf8)
            output.append(contentsOf: value.utf8)
        }
        return output
    }

    /// Reads name-value pairs. Lengths are read as `Int` (64 bits, so two 31-bit lengths cannot
    /// overflow when added) and checked against what is left before anything is sliced.
    public static func decodePairs(_ bytes: ArraySlice<UInt8>) throws(FastCGIProtocolError) -> [String: [UInt8]] {
        var pairs: [String: [UInt8]] = [:]
        var index = bytes.startIndex
        func readLength() throws(FastCGIProtocolError) -> Int {
            guard index < bytes.endIndex else { throw .malformedParameters }
            let first = bytes[index]
            if first & 0x80 == 0 {
                index += 1
                return Int(first)
            }
            guard bytes.endIndex - index >= 4 else { throw .malformedParameters }
            let length = Int(first & 0x7F) << 24 | Int(bytes[index + 1]) << 16 | Int(bytes[index + 2]) << 8
                | Int(bytes[index + 3])
            index += 4
            return length
        }
        while index < bytes.endIndex {
            let nameLength = try readLength()
            let valueLength = try readLength()
            guard bytes.endIndex - index >= nameLength + valueLength else { throw .malformedParameters }
            let name = String(decoding: bytes[index..<(index + nameLength)], as: UTF8.self)
            index += nameLength
            pairs[name] = Array(bytes[index..<(index + valueLength)])
            index += valueLength
        }
        return pairs
    }
}

/// One connection, from the responder's side: fed the bytes that arrive, it hands out whole
/// requests and the answers owed to management records, in order.
public struct FastCGIConnectionState: Sendable {
    public struct Limits: Sendable {
        /// The most parameter bytes one request may send (nginx sends a few kilobytes).
        public var maxParameterBytes: Int
        /// Bodies larger than this (declared or sent) are not kept: the request is handed out
        /// with `bodyTooLarge` and the connection is closed after the answer.
        public var maxBodySize: Int

        public init(maxParameterBytes: Int = 256 * 1024, maxBodySize: Int) {
            self.maxParameterBytes = maxParameterBytes
            self.maxBodySize = maxBodySize
        }
    }

    public enum Event: Sendable {
        /// A whole request to answer; then, unless `keepConnection`, close.
        case request(FastCGIRequest, requestID: UInt16, keepConnection: Bool)
        /// Bytes to send as they are (a management answer, or a refused request's end).
        case reply([UInt8])
        /// The web server gave up on the request in progress (ABORT_REQUEST); then, unless
        /// `keepConnection`, close.
        case aborted(requestID: UInt16, keepConnection: Bool)
    }

    /// The request being received.
    private struct Incoming {
        var id: UInt16
        var keepConnection: Bool
        var parameterBytes: [UInt8] = []
        var parameters: [String: [UInt8]]?
        var body: [UInt8] = []
        var bodyEnded = false
        var bodyTooLarge = false
    }

    private let limits: Limits
    private var buffer: [UInt8] = []
    private var start = 0
    private var incoming: Incoming?
    /// A request was handed out and not yet answered: nothing else is read until it is.
    private var handedOut = false

    public init(limits: Limits) {
        self.limits = limits
    }

    /// Bytes read from the connection.
    public mutating func append(_ bytes: some Collection<UInt8>) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next event the bytes so far make whole, or nil until more arrive.
    public mutating func next() throws(FastCGIProtocolError) -> Event? {
        while let record = try nextRecord() {
            if let event = try handle(type: record.type, requestID: record.requestID, content: record.content) {
                return event
            }
        }
        return nil
    }

    /// Takes one whole record off the buffer, or nil if it has not all arrived.
    private mutating func nextRecord() throws(FastCGIProtocolError) -> FastCGIRecords.Record? {
        guard let record = try FastCGIRecords.record(in: buffer[start...]) else { return nil }
        start += record.length
        return record
    }

    private mutating func handle(type rawType: UInt8, requestID: UInt16,
                                 content: ArraySlice<UInt8>) throws(FastCGIProtocolError) -> Event? {
        if requestID == 0 { return managementAnswer(type: rawType, content: content) }
        guard let type = FastCGIRecordType(rawValue: rawType) else { return nil }
        switch type {
        case .beginRequest:
            guard content.count >= 8 else { throw .malformedBeginRequest }
            let role = UInt16(content[content.startIndex]) << 8 | UInt16(content[content.startIndex + 1])
            let keepConnection = content[content.startIndex + 2] & 1 != 0
            if incoming != nil || handedOut {
                return refusal(requestID: requestID, status: .cantMultiplexConnection)
            }
            guard role == 1 else { return refusal(requestID: requestID, status: .unknownRole) }
            incoming = Incoming(id: requestID, keepConnection: keepConnection)
            return nil
        case .abortRequest:
            guard let current = incoming, current.id == requestID else { return nil }
            incoming = nil
            return .aborted(requestID: requestID, keepConnection: current.keepConnection)
        case .params:
            guard var current = incoming, current.id == requestID, current.parameters == nil else { return nil }
            if content.isEmpty {
                current.parameters = try FastCGIRecords.decodePairs(current.parameterBytes[...])
                current.parameterBytes = []
                if let declared = current.parameters?["CONTENT_LENGTH"].flatMap({ Int(String(decoding: $0, as: UTF8.self)) }),
                   declared > limits.maxBodySize {
                    current.bodyTooLarge = true
                }
            } else {
                guard current.parameterBytes.count + content.count <= limits.maxParameterBytes else {
                    throw .parametersTooLarge
                }
                current.parameterBytes.append(contentsOf: content)
            }
            incoming = current
            return completed()
        case .stdin:
            guard var current = incoming, current.id == requestID, !current.bodyEnded else { return nil }
            if content.isEmpty {
                current.bodyEnded = true
            } else if !current.bodyTooLarge {
                if current.body.count + content.count > limits.maxBodySize {
                    current.bodyTooLarge = true
                    current.body = []
                } else {
                    current.body.append(contentsOf: content)
                }
            }
            incoming = current
            return completed()
        case .endRequest, .stdout, .stderr, .data, .getValues, .getValuesResult, .unknownType:
            return nil  // not a responder's to receive on a request: ignored
        }
    }

    /// The request, once its parameters and body are in (or the body is known to be too large:
    /// it is then not waited for, and the connection is not kept).
    private mutating func completed() -> Event? {
        guard let current = incoming, let parameters = current.parameters,
              current.bodyEnded || current.bodyTooLarge else { return nil }
        incoming = nil
        handedOut = true
        let request = current.bodyTooLarge
            ? FastCGIRequest(params: parameters, bodyTooLarge: true)
            : FastCGIRequest(params: parameters, body: current.body)
        return .request(request, requestID: current.id,
                        keepConnection: current.keepConnection && !current.bodyTooLarge)
    }

    /// The request handed out has been answered: the connection may carry the next.
    public mutating func answered() {
        handedOut = false
    }

    private func refusal(requestID: UInt16, status: FastCGIProtocolStatus) -> Event {
        var output: [UInt8] = []
        FastCGIRecords.appendEndRequest(requestID: requestID, protocolStatus: status, to: &output)
        return .reply(output)
    }

    /// GET_VALUES is answered with what this responder does; any other management record with
    /// UNKNOWN_TYPE. A malformed GET_VALUES is answered with no values.
    private func managementAnswer(type: UInt8, content: ArraySlice<UInt8>) -> Event {
        var output: [UInt8] = []
        if type == FastCGIRecordType.getValues.rawValue {
            let asked = (try? FastCGIRecords.decodePairs(content)) ?? [:]
            let known: [String: String] = ["FCGI_MAX_CONNS": "1024", "FCGI_MAX_REQS": "1024", "FCGI_MPXS_CONNS": "0"]
            let answer = known.keys.sorted().filter { asked[$0] != nil }.map { (name: $0, value: known[$0]!) }
            FastCGIRecords.append(type: .getValuesResult, requestID: 0,
                                  content: FastCGIRecords.encodePairs(answer), to: &output)
        } else {
            FastCGIRecords.append(type: .unknownType, requestID: 0, content: [type, 0, 0, 0, 0, 0, 0, 0], to: &output)
        }
        return .reply(output)
    }
}
