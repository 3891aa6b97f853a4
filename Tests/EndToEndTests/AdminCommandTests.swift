import Foundation
import Testing

/// `clup admin` as an administrator types it: the real binary, in a folder of its own.
@Suite("Administration from the command line")
struct AdminCommandTests {
    /// Runs clup in `folder` with no CLUP_DATABASE; returns its exit status and what it printed.
    func clup(_ arguments: [String], in folder: URL) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Stack.clupBinary)
        process.arguments = arguments
        process.currentDirectoryURL = folder
        process.environment = ProcessInfo.processInfo.environment.filter { $0.key != "CLUP_DATABASE" }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test("without a database it says where it looked and creates nothing; an unknown address is named")
    func missingDatabase() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clup-admin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let missing = try clup(["admin", "assign-store", "--email", "boss@example.org", "--store", "1"], in: folder)
        #expect(missing.status == 1)
        #expect(missing.output.contains("Error: no database at clup.sqlite: set CLUP_DATABASE or pass --database"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)

        #expect(try clup(["migrate", "--database", "clup.sqlite"], in: folder).status == 0)
        let unknown = try clup(["admin", "assign-store", "--email", "boss@example.org", "--store", "1"], in: folder)
        #expect(unknown.status == 1)
        #expect(unknown.output.contains("Error: no account with that email address"))
    }

    @Test("edit-store: the form's checks, each naming its option; a change recorded as the administrator's; stats rebuilt")
    func editStore() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clup-admin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try clup(["migrate", "--database", "clup.sqlite"], in: folder).status == 0)
        #expect(try clup(["seed-demo", "--database", "clup.sqlite", "--weeks", "1"], in: folder).status == 0)

        let refused = try clup(["admin", "edit-store", "--database", "clup.sqlite", "--store", "1", "--capacity", "0",
                                "--walk-in-percent", "95"], in: folder)
        #expect(refused.status == 1)
        #expect(refused.output.contains("--capacity: Enter a number from 1 to 10000."))
        #expect(refused.output.contains("--walk-in-percent: Enter a number from 0 to 90."))
        let missing = try clup(["admin", "edit-store", "--database", "clup.sqlite", "--store", "999", "--capacity", "5"],
                               in: folder)
        #expect(missing.status == 1 && missing.output.contains("no store with id 999"))

        let changed = try clup(["admin", "edit-store", "--database", "clup.sqlite", "--store", "1", "--capacity", "55"],
                               in: folder)
        #expect(changed.status == 0 && changed.output.contains("changed capacity"))
        let again = try clup(["admin", "edit-store", "--database", "clup.sqlite", "--store", "1", "--capacity", "55"],
                             in: folder)
        #expect(again.output.contains("nothing changed"))
        let rebuilt = try clup(["admin", "rebuild-stats", "--database", "clup.sqlite"], in: folder)
        #expect(rebuilt.status == 0 && rebuilt.output.contains("store-hours of statistics"))
    }
}
