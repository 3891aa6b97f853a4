import Foundation
import GRDB
import Synchronization
import Testing
@testable import CLupData

@Suite struct ZZCaptureTmp {
    @Test func capture() throws {
        let names = AppDatabase.migrator.migrations
        let queue = try DatabaseQueue()
        let captured = Mutex<[String]>([])
        try queue.writeWithoutTransaction { db in
            db.trace(options: .statement) { event in
                if case .statement(let statement) = event { captured.withLock { $0.append(statement.sql) } }
            }
        }
        for (index, name) in names.enumerated() {
            captured.withLock { $0 = [] }
            try AppDatabase.migrator.migrate(queue, upTo: name)
            let statements = captured.withLock { $0 }.filter { sql in
                let upper = sql.uppercased()
                return !(upper.hasPrefix("PRAGMA") || upper.hasPrefix("SELECT") || upper.hasPrefix("BEGIN")
                    || upper.hasPrefix("COMMIT") || upper.hasPrefix("SAVEPOINT") || upper.hasPrefix("RELEASE")
                    || upper.hasPrefix("ROLLBACK") || sql.contains("grdb_migrations"))
            }
            try (statements.joined(separator: ";\n") + ";\n").write(toFile: "/tmp/mig-\(index + 1).sql", atomically: true, encoding: .utf8)
        }
    }
}
