import CLupData
import CLupSupport
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The disk fills up under CLup: on a small filesystem of its own (a tmpfs mounted for the
/// test, so nothing else on the machine is touched), filled to the last byte while walk-in
/// tickets keep coming.
@Suite("A full disk, end to end", .serialized)
struct DiskFullEndToEndTests {
    /// Mounting needs root (CLup's test machines run as root, as the README's commands do).
    static let canMount: Bool = getuid() == 0

    @Test("writes are answered 503 \"cannot save\" and change nothing, reads go on, /healthz says why; freed, all recovers",
          .enabled(if: canMount, "mounting a small filesystem needs root"))
    func diskFull() throws {
        let mountPoint = NSTemporaryDirectory() + "clup-full-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        // 80 MB: room for the demo database, and past /healthz's 64 MB floor so it starts "ok".
        try Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=80m,mode=0755", "tmpfs", mountPoint])
        defer {
            _ = try? Self.run("/bin/umount", ["-l", mountPoint])
            try? FileManager.default.removeItem(atPath: mountPoint)
        }
        let stack = try Stack(directory: mountPoint + "/clup")
        let storeId = try EntranceEndToEndTests.store(stack, name: "Disco Pieno", capacity: 10_000, walkInPercent: 90)
        let key = try EntranceEndToEndTests.enrolKiosk(stack, store: storeId)
        func ticket() throws -> Stack.HTTPResponse {
            try stack.curl(["-H", "Authorization: Bearer \(key)", "-H", "Content-Type: application/json",
                            "--data-binary", #"{"people": 1, "residenceMinutes": 30}"#, stack.baseURL + "/api/v1/tickets"])
        }
        #expect(try ticket().status == 201)
        #expect(try stack.get("/healthz").status == 200)

        // Filled to the last byte.
        let filler = mountPoint + "/filler"
        FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        let block = Data(count: 1 << 20)
        while (try? handle.write(contentsOf: block)) != nil {}
        let small = Data(count: 4096)
        while (try? handle.write(contentsOf: small)) != nil {}
        try? handle.close()

        // Tickets keep coming: once SQLite cannot grow its files, each is refused with 503 and
        // Retry-After, never a 500, and changes nothing; pages that only read are still served.
        var statuses: [Int] = []
        var refusal: Stack.HTTPResponse?
        for _ in 0..<3_000 {
            let answer = try ticket()
            statuses.append(answer.status)
            if answer.status == 503 {
                refusal = answer
                break
            }
        }
        let refused = try #require(refusal, "no write was refused: \(Set(statuses))")
        #expect(Set(statuses).isSubset(of: [201, 503]))
        #expect(refused.header("Retry-After") == "60")
        #expect(refused.body.contains(#""code":"unavailable""#) && refused.body.contains("no room left to save"))
        let page = try stack.curl(["-H", "Cookie: clup_session=none", stack.baseURL + "/stores/\(storeId)"])
        #expect(page.status == 200 && page.body.contains("Disco Pieno"))
        let health = try stack.get("/healthz")
        #expect(health.status == 503 && health.body.contains(#""disk":"full""#))
        let issuedBefore = statuses.filter { $0 == 201 }.count + 1

        // Room again: the next ticket is issued, /healthz is well, and nothing was lost.
        try FileManager.default.removeItem(atPath: filler)
        #expect(try ticket().status == 201)
        try stack.waitUntil("/healthz is well again", seconds: 5) { (try? stack.get("/healthz").status) == 200 }
        let database = try DatabaseQueue(path: stack.database)
        #expect(try database.read { db in try String.fetchOne(db, sql: "PRAGMA integrity_check") } == "ok")
        let issued = try database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM reservation WHERE storeId = ?", arguments: [storeId]) ?? 0
        }
        #expect(issued == issuedBefore + 1)
        print("disk full: tickets issued before it: \(issuedBefore); then 503 at the full disk, reads served; freed: "
              + "issued again; integrity ok, \(issued) tickets in the database")
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let status = try ChildProcess.run(executable, arguments).status
        try #require(status == 0, "\(executable) \(arguments.joined(separator: " ")) failed")
        return status
    }
}
