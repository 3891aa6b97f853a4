import CLupData
import CLupSupport
import CLupWeb
import Foundation
import FuzzDriver
import Logging

// A request as nginx hands it over FastCGI: its CGI parameters (method, path, query, cookies,
// headers) and its body, through the whole app over an in-memory database: parsing, routing,
// guards, forms, JSON. Any crash is a worker crash; a 500 is a failure too (every request
// must be answered for what it is, never "something went wrong").
//
// The input: NAME=VALUE entries, each ending with a NUL byte, until an empty one; the rest is
// the body.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().path
let app: App = {
    let database = try! AppDatabase.inMemory()
    let environment = AppEnvironment(
        database: database, now: { Date(timeIntervalSince1970: 1_795_000_000) }, logger: Logger(label: "fuzz"),
        settings: SiteSettings(baseURL: "https://clup.example.org"),
        tickets: try! TicketToken(secret: "a fuzzing secret, long enough to be a key"))
    return App(environment: environment, views: Views(assets: try! Assets(publicDirectory: root + "/Public")))
}()

@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = bytes(data, count)
    var params: [String: [UInt8]] = [:]
    var index = 0
    while index < input.count {
        guard let end = input[index...].firstIndex(of: 0) else { break }
        let entry = input[index..<end]
        index = end + 1
        if entry.isEmpty { break }
        if let equals = entry.firstIndex(of: UInt8(ascii: "=")) {
            params[String(decoding: entry[..<equals], as: UTF8.self)] = Array(entry[(equals + 1)...])
        }
    }
    let body = index < input.count ? Array(input[index...]) : []
    let response = app.respond(cgiParams: params, body: body, bodyTooLarge: false)
    precondition(response.status != 500, "500 for \(params.mapValues { String(decoding: $0, as: UTF8.self) })")
    return 0
}

@_cdecl("FuzzRequest_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(argc, argv, testOneInput)
}
