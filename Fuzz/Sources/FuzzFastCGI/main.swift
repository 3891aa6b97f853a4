import FastCGI
import FuzzDriver

// Bytes as they come over the worker's socket, through CLup's FastCGI record layer
// (`FastCGIConnectionState`), which replaced libfcgi's (Fuzz/Findings/README.md). The first
// byte chooses how the rest is cut as it arrives; two properties must hold besides not
// crashing:
// - cut into pieces or whole, the bytes give the same events, or the same protocol error;
// - each request's answer, encoded as the worker sends it, reads back as the same bytes.
struct Outcome: Equatable {
    var events: [String] = []
    var error: FastCGIProtocolError?
}

func feed(_ bytes: ArraySlice<UInt8>, piece: Int) -> Outcome {
    var state = FastCGIConnectionState(limits: .init(maxParameterBytes: 64 * 1024, maxBodySize: 16 * 1024))
    var outcome = Outcome()
    var rest = bytes
    repeat {
        state.append(rest.prefix(piece))
        rest = rest.dropFirst(piece)
        do {
            while let event = try state.next() {
                switch event {
                case .request(let request, let id, let keep):
                    outcome.events.append("request \(id) \(keep) \(request.params.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }) \(request.body) \(request.bodyTooLarge)")
                    answerReadsBack(request, id: id)
                    state.answered()
                case .reply(let reply):
                    outcome.events.append("reply \(reply)")
                case .aborted(let id, let keep):
                    outcome.events.append("aborted \(id) \(keep)")
                }
            }
        } catch {
            outcome.error = error
            return outcome
        }
    } while !rest.isEmpty
    return outcome
}

/// The answer's STDOUT records carry the head and body exactly, then END_REQUEST ends it.
func answerReadsBack(_ request: FastCGIRequest, id: UInt16) {
    let response = FastCGIResponse(status: 200, headers: [("X", "y")], body: request.body)
    let encoded = FastCGIServer.encode(response, requestID: id, includeBody: true)
    var rest = encoded[...]
    var stdout: [UInt8] = []
    var ended = false
    while let record = try! FastCGIRecords.record(in: rest) {
        precondition(record.requestID == id && !ended)
        if record.type == FastCGIRecordType.stdout.rawValue { stdout += record.content }
        ended = record.type == FastCGIRecordType.endRequest.rawValue
        rest = rest.dropFirst(record.length)
    }
    precondition(rest.isEmpty && ended && stdout == Array(response.head.utf8) + request.body,
                 "the answer does not read back")
}

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = bytes(data, count)
    guard let first = input.first else { return 0 }
    let stream = input.dropFirst()
    let whole = feed(stream, piece: Int.max)
    let cut = feed(stream, piece: Int(first) + 1)
    precondition(whole == cut, "cut into pieces of \(Int(first) + 1), the bytes read differently")
    return 0
}

@_cdecl("FuzzFastCGI_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, testOneInput)
}
