import Foundation
import Testing

/// The layers as docs/architecture.md's "What may import what" states them: each target's source files
/// import only what is listed here (besides the system's Foundation, Dispatch, Glibc and
/// Synchronization). The build (`--explicit-target-dependency-import-check error` in
/// `scripts/test`) refuses an import Package.swift does not declare; this refuses one the
/// layering does not allow, declared or not.
@Suite("Layers", .enabled(if: Fixture.engineFreePass))
struct LayersTests {
    static let system: Set<String> = ["Foundation", "Dispatch", "Glibc", "Synchronization"]

    /// Target → the modules it may import. Kept equal to the table in docs/architecture.md.
    static let allowed: [String: Set<String>] = [
        "CLupDomain": [],
        "CLupSupport": ["CSodium", "CQRencode", "CZlib", "CSpawn", "CMalloc", "CThread"],
        "CLupData": ["CLupDomain", "CLupSupport", "GRDB", "CLibpq", "Logging", "Metrics"],
        "CLupJobs": ["CLupDomain", "CLupData", "CLupSupport", "Crypto", "Logging", "Metrics"],
        "CLupSimulation": ["CLupDomain", "CLupData"],
        "CLupPaths": [],
        "CLupText": [],
        "CLupTemplates": ["CLupPaths", "CLupText"],
        "CLupWeb": ["CLupDomain", "CLupSupport", "CLupData", "CLupPaths", "CLupText", "CLupTemplates", "Logging",
                    "Metrics"],
        "FastCGI": ["CThread", "Logging"],
        "clup": ["CLupDomain", "CLupSupport", "CLupData", "CLupJobs", "CLupText", "CLupWeb", "CLupSimulation", "FastCGI",
                 "ArgumentParser", "Logging", "Metrics", "Prometheus"],
    ]

    /// Every module imported by the Swift files under `folder`.
    static func imports(under folder: String) throws -> Set<String> {
        let files = FileManager.default.enumerator(atPath: folder)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        var found: Set<String> = []
        for file in files {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for match in text.matches(of: /(?m)^(?:@testable )?import ([A-Za-z_]+)/) { found.insert(String(match.1)) }
        }
        return found
    }

    @Test("each target imports only what its layer allows; GRDB and libpq only in CLupData")
    func imports() throws {
        for (target, allowed) in Self.allowed {
            let folder = Fixture.root + (target == "CLupTemplates" ? "/Templates" : "/Sources/" + target)
            let found = try Self.imports(under: folder)
            #expect(!found.isEmpty || ["CLupPaths", "CLupText"].contains(target), "\(target) read no file")
            let leaks = found.subtracting(allowed).subtracting(Self.system)
            #expect(leaks.isEmpty, "\(target) imports \(leaks.sorted())")
        }
        // Every Swift target is listed.
        let targets = try FileManager.default.contentsOfDirectory(atPath: Fixture.root + "/Sources")
            .filter { !$0.hasPrefix("C") || $0.hasPrefix("CLup") }
        #expect(Set(targets).subtracting(Self.allowed.keys).isEmpty, "unlisted: \(Set(targets).subtracting(Self.allowed.keys))")
    }

    @Test("docs/architecture.md's table says the same as this test")
    func readme() throws {
        let readme = try String(contentsOfFile: Fixture.root + "/docs/architecture.md", encoding: .utf8)
        for (target, allowed) in Self.allowed {
            let ours = allowed.filter { $0.hasPrefix("CLup") || $0 == "FastCGI" }.map { $0.replacingOccurrences(of: "CLup", with: "") }
            let row = try #require(readme.split(separator: "\n").first { $0.hasPrefix("| `\(target)` |") }, "\(target)")
            let cell = String(row.split(separator: "|")[1])
            if cell.contains("all") { continue }
            for name in ours { #expect(cell.contains(name), "\(target): docs/architecture.md does not list \(name)") }
            if ours.isEmpty { #expect(cell.contains("nothing"), "\(target)") }
        }
    }
}
