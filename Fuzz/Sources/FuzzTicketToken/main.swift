import CLupSupport
import FuzzDriver

// A QR code's text, as the scanner reads it: the verifier must refuse anything but a token it
// signed, without crashing, whatever the bytes.
let signer = try! TicketToken(secret: "a fuzzing secret, long enough to be a key")

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: bytes(data, count), as: UTF8.self)
    if let id = signer.reservationId(from: text) {
        // Accepted: only a token it made itself says so.
        precondition(signer.token(for: id) == text, "accepted a token it did not sign: \(text)")
    }
    _ = signer.derived(for: "booking-reply").reservationId(from: text)
    return 0
}

@_cdecl("FuzzTicketToken_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, testOneInput)
}
