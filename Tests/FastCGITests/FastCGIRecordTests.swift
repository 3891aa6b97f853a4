import Foundation
import Testing

@testable import FastCGI

@Suite("FastCGI records")
struct FastCGIRecordTests {
    static let limits = FastCGIConnectionState.Limits(maxParameterBytes: 4096, maxBodySize: 100)

    /// What nginx sends for one request: BEGIN_REQUEST, the parameters, the body.
    static func request(id: UInt16 = 1, keep: Bool = false, params: [(name: String, value: String)],
                        body: [UInt8] = [], paramChunk: Int = 65_528) -> [UInt8] {
        var bytes: [UInt8] = []
        FastCGIRecords.append(type: .beginRequest, requestID: id, content: [0, 1, keep ? 1 : 0, 0, 0, 0, 0, 0], to: &bytes)
        let encoded = FastCGIRecords.encodePairs(params)
        var rest = encoded[...]
        while !rest.isEmpty {
            FastCGIRecords.append(type: .params, requestID: id, content: rest.prefix(paramChunk), to: &bytes)
            rest = rest.dropFirst(paramChunk)
        }
        FastCGIRecords.append(type: .params, requestID: id, content: [], to: &bytes)
        FastCGIRecords.appendStream(type: .stdin, requestID: id, bytes: body, to: &bytes)
        return bytes
    }

    /// Feeds `bytes` in pieces of `piece` and collects every event.
    static func events(_ bytes: [UInt8], piece: Int = .max,
                       limits: FastCGIConnectionState.Limits = limits) throws(FastCGIProtocolError) -> [FastCGIConnectionState.Event] {
        var state = FastCGIConnectionState(limits: limits)
        var events: [FastCGIConnectionState.Event] = []
        var rest = bytes[...]
        repeat {
            state.append(rest.prefix(piece))
            rest = rest.dropFirst(piece)
            while let event = try state.next() {
                events.append(event)
                if case .request = event { state.answered() }
            }
        } while !rest.isEmpty
        return events
    }

    static func requests(_ events: [FastCGIConnectionState.Event]) -> [(FastCGIRequest, UInt16, Bool)] {
        events.compactMap { if case .request(let request, let id, let keep) = $0 { (request, id, keep) } else { nil } }
    }

    @Test("a request arrives whole however the bytes are cut", arguments: [1, 3, 7, 8, 9, 64, Int.max])
    func pieces(piece: Int) throws {
        let long = String(repeating: "x", count: 300)  // a 4-byte length
        let bytes = Self.request(params: [("REQUEST_METHOD", "POST"), ("HTTP_COOKIE", long), ("EMPTY", "")],
                                 body: Array("a=1&b=2".utf8), paramChunk: 50)
        let requests = Self.requests(try Self.events(bytes, piece: piece))
        try #require(requests.count == 1)
        let (request, id, keep) = requests[0]
        #expect(id == 1 && !keep)
        #expect(request.param("REQUEST_METHOD") == "POST")
        #expect(request.param("HTTP_COOKIE") == long)
        #expect(request.param("EMPTY") == "")
        #expect(request.body == Array("a=1&b=2".utf8))
        #expect(!request.bodyTooLarge)
    }

    @Test("a kept connection carries one request after another")
    func keptConnection() throws {
        let bytes = Self.request(id: 1, keep: true, params: [("N", "1")]) + Self.request(id: 2, keep: true, params: [("N", "2")])
        let requests = Self.requests(try Self.events(bytes))
        #expect(requests.map { $0.0.param("N") } == ["1", "2"])
        #expect(requests.map(\.1) == [1, 2])
        #expect(requests.allSatisfy { $0.2 })
    }

    @Test("lengths that add up past 2^31 are refused, not allocated (what aborted libfcgi)")
    func lengthOverflow() throws {
        // The bytes libfcgi aborted on: a parameter record that declares more than it sends.
        // Nothing is allocated from the lengths; the request waits for the rest, which never
        // comes, and the connection's end closes it.
        let finding = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/Findings/libfcgi-params-length-overflow")
        let reproducer = try [UInt8](Data(contentsOf: finding))
        #expect(Self.requests(try Self.events(reproducer)).isEmpty)

        // Both lengths at their largest (2^31 - 1 each), then the end of the parameters.

        var bytes: [UInt8] = []
        FastCGIRecords.append(type: .beginRequest, requestID: 1, content: [0, 1, 0, 0, 0, 0, 0, 0], to: &bytes)
        FastCGIRecords.append(type: .params, requestID: 1, content: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 65],
                              to: &bytes)
        FastCGIRecords.append(type: .params, requestID: 1, content: [], to: &bytes)
        #expect(throws: FastCGIProtocolError.malformedParameters) { try Self.events(bytes) }
        #expect(throws: FastCGIProtocolError.malformedParameters) {
            try FastCGIRecords.decodePairs([0x80, 0, 0][...])  // a 4-byte length cut short
        }
    }

    @Test("parameters past the limit close the connection")
    func tooManyParameters() {
        let bytes = Self.request(params: [("BIG", String(repeating: "y", count: 5000))], paramChunk: 1000)
        #expect(throws: FastCGIProtocolError.parametersTooLarge) { try Self.events(bytes) }
    }

    @Test("a body too large, declared or sent, is not kept and the connection is not kept either")
    func bodyTooLarge() throws {
        let declared = Self.request(keep: true, params: [("CONTENT_LENGTH", "101")])
        let first = Self.requests(try Self.events(declared))
        #expect(first.count == 1 && first[0].0.bodyTooLarge && first[0].0.body.isEmpty && !first[0].2)

        let sent = Self.request(keep: true, params: [("CONTENT_LENGTH", "10")], body: Array(repeating: 1, count: 150))
        let second = Self.requests(try Self.events(sent, piece: 16))
        #expect(second.count == 1 && second[0].0.bodyTooLarge && second[0].0.body.isEmpty && !second[0].2)

        let fits = Self.request(params: [("CONTENT_LENGTH", "100")], body: Array(repeating: 2, count: 100))
        #expect(Self.requests(try Self.events(fits)).first?.0.body.count == 100)
    }

    @Test("management records are answered: GET_VALUES with what is asked, anything else UNKNOWN_TYPE")
    func management() throws {
        var bytes: [UInt8] = []
        let asked = FastCGIRecords.encodePairs([("FCGI_MPXS_CONNS", ""), ("FCGI_NOT_A_VALUE", "")])
        FastCGIRecords.append(type: .getValues, requestID: 0, content: asked, to: &bytes)
        FastCGIRecords.append(type: .getValues, requestID: 0, content: [0x80], to: &bytes)  // malformed
        bytes += [1, 200, 0, 0, 0, 0, 0, 0]  // an unknown type
        let replies = try Self.events(bytes).compactMap { if case .reply(let bytes) = $0 { bytes } else { nil } }
        try #require(replies.count == 3)

        let values = try #require(try FastCGIRecords.record(in: replies[0][...]))
        #expect(values.type == FastCGIRecordType.getValuesResult.rawValue && values.requestID == 0)
        #expect(try FastCGIRecords.decodePairs(values.content) == ["FCGI_MPXS_CONNS": Array("0".utf8)])
        let none = try #require(try FastCGIRecords.record(in: replies[1][...]))
        #expect(none.type == FastCGIRecordType.getValuesResult.rawValue && none.content.isEmpty)
        let unknown = try #require(try FastCGIRecords.record(in: replies[2][...]))
        #expect(unknown.type == FastCGIRecordType.unknownType.rawValue && unknown.content.first == 200)
    }

    @Test("another role, and a second request while one is open, are refused with END_REQUEST")
    func refusals() throws {
        var bytes: [UInt8] = []
        FastCGIRecords.append(type: .beginRequest, requestID: 7, content: [0, 2, 0, 0, 0, 0, 0, 0], to: &bytes)  // authorizer
        FastCGIRecords.append(type: .beginRequest, requestID: 1, content: [0, 1, 0, 0, 0, 0, 0, 0], to: &bytes)
        FastCGIRecords.append(type: .beginRequest, requestID: 2, content: [0, 1, 0, 0, 0, 0, 0, 0], to: &bytes)
        let statuses = try Self.events(bytes).compactMap { event -> (UInt16, UInt8)? in
            guard case .reply(let reply) = event, let record = try? FastCGIRecords.record(in: reply[...]),
                  record.type == FastCGIRecordType.endRequest.rawValue else { return nil }
            return (record.requestID, record.content[record.content.startIndex + 4])
        }
        #expect(statuses.map(\.0) == [7, 2])
        #expect(statuses.map(\.1) == [FastCGIProtocolStatus.unknownRole.rawValue,
                                      FastCGIProtocolStatus.cantMultiplexConnection.rawValue])
    }

    @Test("an aborted request is never handed out")
    func abort() throws {
        var bytes = Array(Self.request(params: [("A", "1")]).prefix(40))  // begin and part of the parameters
        FastCGIRecords.append(type: .abortRequest, requestID: 1, content: [], to: &bytes)
        let events = try Self.events(bytes)
        #expect(Self.requests(events).isEmpty)
        #expect(events.contains { if case .aborted(1, false) = $0 { true } else { false } })
    }

    @Test("another protocol version closes the connection; a BEGIN_REQUEST too short is refused")
    func malformed() {
        #expect(throws: FastCGIProtocolError.unsupportedVersion(2)) { try Self.events([2, 1, 0, 1, 0, 0, 0, 0]) }
        var bytes: [UInt8] = []
        FastCGIRecords.append(type: .beginRequest, requestID: 1, content: [0, 1], to: &bytes)
        #expect(throws: FastCGIProtocolError.malformedBeginRequest) { try Self.events(bytes) }
    }

    @Test("a response leaves as STDOUT records of at most 65,535 bytes, an empty one, and END_REQUEST")
    func response() throws {
        let body = (0..<150_000).map { UInt8($0 % 251) }
        let response = FastCGIResponse(status: 200, headers: [("Content-Type", "text/plain")], body: body)
        let bytes = FastCGIServer.encode(response, requestID: 3, includeBody: true)
        var rest = bytes[...]
        var stdout: [UInt8] = []
        var types: [UInt8] = []
        while let record = try FastCGIRecords.record(in: rest) {
            #expect(record.requestID == 3 && record.content.count <= 65_535 && record.length % 8 == 0)
            types.append(record.type)
            if record.type == FastCGIRecordType.stdout.rawValue { stdout += record.content }
            rest = rest.dropFirst(record.length)
        }
        #expect(rest.isEmpty)
        #expect(types.last == FastCGIRecordType.endRequest.rawValue)
        #expect(types.dropLast().last == FastCGIRecordType.stdout.rawValue)
        #expect(stdout == Array(response.head.utf8) + body)

        // A HEAD answer: the same head, with the length of the body it leaves out.
        let head = FastCGIServer.encode(response, requestID: 3, includeBody: false)
        #expect(head.count < 200)
        #expect(String(decoding: head, as: UTF8.self).contains("Content-Length: 150000\r\n"))
    }
}
