import CLupData
import CLupDomain
import CLupSupport
import Foundation
import Testing

/// `clup admin` as an administrator types it: the real binary, in a folder of its own.
@Suite("Administration from the command line")
struct AdminCommandTests {
    /// Runs clup in `folder` with no CLUP_DATABASE; returns its exit status and what it printed.
    /// `input` is piped to its standard input (nil: /dev/null). Its data key is the scratch
    /// key, in a file outside `folder` (which stays as the command leaves it).
    func clup(_ arguments: [String], in folder: URL, input: String? = nil) throws -> (status: Int32, output: String) {
        let key = NSTemporaryDirectory() + "clup-admin-tests.data-key"
        if !FileManager.default.fileExists(atPath: key) {
            try DataKey.scratchSecret.write(toFile: key, atomically: true, encoding: .utf8)
        }
        let outcome = try ChildProcess.run(
            Stack.clupBinary, arguments, input: input.map { Array($0.utf8) }, reading: .both,
            environment: ProcessInfo.processInfo.environment.filter { $0.key != "CLUP_DATABASE" }
                .merging(["CLUP_DATA_KEY_FILE": key]) { $1 },
            directory: folder.path)
        return (outcome.status, outcome.text)
    }

    /// A new empty folder to run `clup` in; the test removes it.
    static func emptyFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("clup-admin-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test("a data key is made readable by its owner only and never replaced; a missing or another one stops a command, saying why")
    func dataKey() throws {
        let folder = try Self.emptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = folder.appendingPathComponent("site.key").path
        #expect(try clup(["admin", "create-data-key", key], in: folder).status == 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: key)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let made = try String(contentsOfFile: key, encoding: .utf8)
        let again = try clup(["admin", "create-data-key", key], in: folder)
        #expect(again.status == 1 && again.output.contains("exists already"))
        #expect(try String(contentsOfFile: key, encoding: .utf8) == made)

        #expect(try clup(["migrate", "--database", "clup.sqlite", "--data-key-file", key], in: folder).status == 0)
        let other = try clup(["migrate", "--database", "clup.sqlite"], in: folder)
        #expect(other.status == 1 && other.output.contains("sealed with another data key"))
        let missing = try clup(["migrate", "--database", "clup.sqlite", "--data-key-file", "nowhere.key"], in: folder)
        #expect(missing.status == 1 && missing.output.contains("no data key at nowhere.key")
            && missing.output.contains("clup admin create-data-key nowhere.key"))
        #expect(try clup(["migrate", "--database", "clup.sqlite", "--data-key-file", key], in: folder).status == 0)
    }

    @Test("maintenance is scheduled, listed and cancelled from the command line; a bad option is named")
    func maintenance() throws {
        let folder = try Self.emptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try clup(["migrate", "--database", "clup.sqlite"], in: folder).status == 0)
        let bad = try clup(["admin", "schedule-maintenance", "--database", "clup.sqlite", "--day", "2099-12-01",
                            "--from", "02:00", "--until", "04:00", "--time-zone", "Mars/Olympus"], in: folder)
        #expect(bad.status != 0 && bad.output.contains("--time-zone: Choose a time zone from the list."))
        let scheduled = try clup(["admin", "schedule-maintenance", "--database", "clup.sqlite", "--day", "2099-12-01",
                                  "--from", "02:00", "--until", "04:00", "--announce-hours", "48"], in: folder)
        #expect(scheduled.status == 0 && scheduled.output.contains("scheduled maintenance 1:"))
        // nginx's 502 page names it, written by `generate --maintenance` or when scheduled with --errors-dir.
        let errors = folder.appendingPathComponent("errors").path
        let site = ["--public", Stack.root + "/Public"]
        #expect(try clup(["generate", "--maintenance", "--database", "clup.sqlite", "--output", errors] + site, in: folder)
            .status == 0)
        let announced = try String(contentsOfFile: errors + "/502.html", encoding: .utf8)
        #expect(announced.contains("Scheduled maintenance") && announced.contains("02:00 – 04:00 (Europe/Rome)"))
        #expect(scheduled.output.contains("02:00 – 04:00 (Europe/Rome)"))
        let listed = try clup(["admin", "list-maintenance", "--database", "clup.sqlite"], in: folder)
        #expect(listed.output.hasPrefix("1\t") && listed.output.contains("02:00 – 04:00 (Europe/Rome)"))
        #expect(try clup(["admin", "cancel-maintenance", "--database", "clup.sqlite", "--id", "1", "--errors-dir", errors]
            + site, in: folder).status == 0)
        #expect(!(try String(contentsOfFile: errors + "/502.html", encoding: .utf8)).contains("Scheduled maintenance"))
        let again = try clup(["admin", "cancel-maintenance", "--database", "clup.sqlite", "--id", "1"], in: folder)
        #expect(again.status == 1 && again.output.contains("no maintenance 1"))
        #expect(try clup(["admin", "list-maintenance", "--database", "clup.sqlite"], in: folder).output
            .contains("no maintenance is scheduled"))
    }

    @Test("without a database it says where it looked and creates nothing; an unknown address is named")
    func missingDatabase() throws {
        let folder = try Self.emptyFolder()
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

    @Test("create-user takes a piped password and never prints it; without one it prints a generated one; a weak one is refused")
    func createUserPassword() throws {
        let folder = try Self.emptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try clup(["migrate", "--database", "clup.sqlite"], in: folder).status == 0)
        func create(_ email: String, input: String?) throws -> (status: Int32, output: String) {
            try clup(["admin", "create-user", "--database", "clup.sqlite", "--email", email, "--name", "Boss"],
                     in: folder, input: input)
        }
        let piped = try create("piped@example.org", input: "a long chosen password\n")
        #expect(piped.status == 0 && piped.output.contains("created manager piped@example.org"))
        #expect(!piped.output.contains("password") && !piped.output.contains("a long chosen password"))
        let generated = try create("generated@example.org", input: nil)
        #expect(generated.status == 0 && generated.output.contains("password (shown once): "))
        let weak = try create("weak@example.org", input: "password\n")
        #expect(weak.status != 0 && !weak.output.contains("created"))
        // The piped password is the account's: it signs in with it.
        let database = try AppDatabase.open(path: folder.appendingPathComponent("clup.sqlite").path, dataKey: .scratch)
        let hash = try #require(try database.accounts.user(email: "piped@example.org")?.passwordHash)
        #expect(PasswordHasher().verify("a long chosen password", against: hash))
        #expect(try database.accounts.user(email: "weak@example.org") == nil)
        // The help says which commands create the database.
        let help = try clup(["admin", "create-user", "--help"], in: folder).output
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("the other commands need it to exist") && !help.contains("created if missing"))
    }

    @Test("edit-store: the form's checks, each naming its option; a change recorded as the administrator's; stats rebuilt")
    func editStore() throws {
        let folder = try Self.emptyFolder()
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

    @Test("assign-store, remove-manager and close-account: a manager of no store left is a customer again; mistakes are named")
    func managers() throws {
        let folder = try Self.emptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try clup(["migrate", "--database", "clup.sqlite"], in: folder).status == 0)
        func admin(_ arguments: [String], input: String? = nil) throws -> (status: Int32, output: String) {
            try clup(["admin"] + arguments.prefix(1) + ["--database", "clup.sqlite"] + arguments.dropFirst(), in: folder,
                     input: input)
        }
        for name in ["Bottega", "Mercato"] {
            #expect(try admin(["register-store", "--name", name, "--address", "Via Po 1, Milano", "--latitude", "45.46",
                               "--longitude", "9.19", "--capacity", "30"]).status == 0)
        }
        #expect(try admin(["create-user", "--email", "boss@example.org", "--name", "Boss"],
                          input: "a long chosen password\n").status == 0)
        #expect(try admin(["assign-store", "--email", "boss@example.org", "--store", "1"]).status == 0)
        #expect(try admin(["assign-store", "--email", "boss@example.org", "--store", "2"]).status == 0)

        let first = try admin(["remove-manager", "--email", "boss@example.org", "--store", "1"])
        #expect(first.status == 0 && first.output == "boss@example.org no longer manages store 1\n")
        let again = try admin(["remove-manager", "--email", "boss@example.org", "--store", "1"])
        #expect(again.status != 0 && again.output.contains("boss@example.org does not manage store 1"))
        let unknown = try admin(["remove-manager", "--email", "nobody@example.org", "--store", "2"])
        #expect(unknown.status == 1 && unknown.output.contains("Error: no account with that email address"))
        let last = try admin(["remove-manager", "--email", "boss@example.org", "--store", "2"])
        #expect(last.status == 0
            && last.output == "boss@example.org no longer manages store 2; the account is a customer's again\n")
        let database = try AppDatabase.open(path: folder.appendingPathComponent("clup.sqlite").path, dataKey: .scratch)
        #expect(try database.accounts.user(email: "boss@example.org")?.role == .customer)
        #expect(try database.stores.storeChanges(storeId: 2).first.map { "\($0.field) \($0.after)" } == "manager removed")

        // An account that breaks the terms is closed: deleted as its owner would delete it, and told why.
        let noReason = try admin(["close-account", "--email", "BOSS@example.org", "--reason", " "])
        #expect(noReason.status != 0 && noReason.output.contains("--reason: give the reason in 1 to 500 printable characters"))
        let closed = try admin(["close-account", "--email", "BOSS@example.org", "--reason",
                                "Forty bookings a day under one account, none of them used."])
        #expect(closed.status == 0 && closed.output == "closed the account of BOSS@example.org; its owner is emailed why\n")
        #expect(try database.accounts.user(email: "boss@example.org") == nil)
        let letter = try #require(try database.notices.mail(to: "boss@example.org").last)
        #expect(letter.subject == "Your CLup account is closed"
            && letter.body.contains("for this reason:\n\nForty bookings a day under one account, none of them used."))
        let gone = try admin(["close-account", "--email", "boss@example.org", "--reason", "Abuse."])
        #expect(gone.status == 1 && gone.output.contains("Error: no account with that email address"))
    }

    @Test("register-store, set-hours, close-day, reopen-day and edit-store's slots and departments: the pages' checks and effects")
    func storeCommands() throws {
        let folder = try Self.emptyFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(try clup(["migrate", "--database", "clup.sqlite"], in: folder).status == 0)
        func admin(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try clup(["admin"] + arguments.prefix(1) + ["--database", "clup.sqlite"] + arguments.dropFirst(), in: folder)
        }

        let refused = try admin(["register-store", "--name", "Bottega", "--address", "Via Po 1, Milano", "--latitude", "95",
                                 "--longitude", "9.19", "--capacity", "0", "--time-zone", "Mars/Olympus",
                                 "--departments", "Bakery"])
        #expect(refused.status == 1)
        for problem in ["--latitude: Enter a latitude from -90 to 90, like 45.4642.",
                        "--capacity: Enter a number from 1 to 10000.",
                        "--time-zone: Choose a time zone from the list.",
                        "--departments: Line 1: write a department's name"] {
            #expect(refused.output.contains(problem), "\(problem)")
        }
        let registered = try admin(["register-store", "--name", "Bottega", "--address", "Via Po 1, Milano",
                                    "--latitude", "45.46", "--longitude", "9.19", "--capacity", "30",
                                    "--departments", "Bakery, 10; Butcher, 15"])
        #expect(registered.status == 0 && registered.output.contains("registered store 1: Bottega; closed until its hours are set"))

        let badHours = try admin(["set-hours", "--store", "1", "--monday", "08:00-13:00,12:00-20:00", "--sunday", "22:00-09:00",
                                  "--tuesday", "8-20"])
        #expect(badHours.status == 1)
        #expect(badHours.output.contains("--monday: The two openings overlap."))
        #expect(badHours.output.contains("--tuesday: Write times as hours and minutes, like 08:00: “8” is not one."))
        let hours = try admin(["set-hours", "--store", "1", "--monday", "08:00-13:00,15:00-20:00", "--saturday", "18:00-02:00"])
        #expect(hours.status == 0 && hours.output.contains("hours set for store 1"))

        #expect(try admin(["close-day", "--store", "1", "--date", "2001-01-01"]).output.contains("--date: Choose today or a later day."))
        let christmas = "\(Calendar.current.component(.year, from: Date()) + 1)-12-25"
        let farAhead = try admin(["close-day", "--store", "1", "--date", christmas, "--reason", "Christmas"])
        #expect(farAhead.output.contains("--date: Choose a day within a year."))
        let soon = LocalDate(day: Int(Date().timeIntervalSince1970 / 86400) + 20).text
        let closed = try admin(["close-day", "--store", "1", "--date", soon, "--reason", "Stocktake"])
        #expect(closed.status == 0 && closed.output.contains("store 1 closed on \(soon) (1 closure(s)); 0 booking(s) cancelled"))
        #expect(try admin(["close-day", "--store", "1", "--date", soon]).output.contains("already closed on \(soon)"))

        let edited = try admin(["edit-store", "--store", "1", "--slot-minutes", "30", "--departments", "bakery, 12; Fish, 20"])
        #expect(edited.status == 0 && edited.output.contains("changed slotMinutes, departments"))
        #expect(try admin(["edit-store", "--store", "1", "--slot-minutes", "25"]).output
            .contains("--slot-minutes: Choose a slot length from the list."))

        let database = try AppDatabase.open(path: folder.appendingPathComponent("clup.sqlite").path, dataKey: .scratch)
        let details = try #require(try database.stores.storeDetails(id: 1))
        #expect(details.store.slotMinutes == 30)
        #expect(details.departments.map { "\($0.name) \($0.estimatedMinutes)" } == ["bakery 12", "Fish 20"])
        #expect(details.openingIntervals.map(\.interval) == [OpeningInterval(weekday: 1, opens: 480, closes: 780),
                                                              OpeningInterval(weekday: 1, opens: 900, closes: 1200),
                                                              OpeningInterval(weekday: 6, opens: 1080, closes: 1560)])
        #expect(details.closures.map(\.reason) == ["Stocktake"])
        let changes = try database.stores.storeChanges(storeId: 1).map(\.field)
        #expect(changes == ["departments", "slotMinutes", "closed", "hours", "store"])
        #expect(try database.stores.storeChanges(storeId: 1).allSatisfy { $0.by == nil })

        #expect(try admin(["reopen-day", "--store", "1", "--date", soon]).output.contains("opens on \(soon) as its weekly hours say"))
        #expect(try admin(["reopen-day", "--store", "1", "--date", soon]).output.contains("is not closed on \(soon)"))

        // Every store, a run of days: each day closed in each store's change log.
        let later = LocalDate(day: Int(Date().timeIntervalSince1970 / 86400) + 22).text
        #expect(try admin(["close-day", "--store", "1", "--all-stores", "--date", soon]).output
            .contains("give one of --store, --region or --all-stores"))
        #expect(try admin(["close-day", "--all-stores", "--date", soon, "--until", "2001-01-01"]).output
            .contains("--until: Choose the first day or a later one."))
        let run = try admin(["close-day", "--all-stores", "--date", soon, "--until", later, "--reason", "Strike"])
        #expect(run.status == 0 && run.output.contains("every store closed on \(soon) to \(later) (3 closure(s)); 0 booking(s) cancelled"))
        #expect(try database.stores.storeDetails(id: 1)?.closures.map(\.reason) == ["Strike", "Strike", "Strike"])

        // Special hours: one store's, a day closed left closed, checked as weekly hours, taken back.
        let eve = LocalDate(day: Int(Date().timeIntervalSince1970 / 86400) + 25).text
        #expect(try admin(["special-hours", "--store", "1", "--date", eve, "--hours", "8-12"]).output
            .contains("--hours: Write times as hours and minutes, like 08:00: “8” is not one."))
        #expect(try admin(["special-hours", "--region", "Nowhere", "--date", eve, "--hours", "08:00-12:00"]).output
            .contains("no region named Nowhere"))
        let special = try admin(["special-hours", "--store", "1", "--date", eve, "--hours", "08:00-12:00,15:00-19:00",
                                 "--reason", "Inventory"])
        #expect(special.status == 0 && special.output.contains(
            "store 1: special hours on \(eve) (1 store-day(s), 0 closed and left so, 0 left as they were"))
        #expect(try admin(["special-hours", "--all-stores", "--date", soon, "--hours", "08:00-12:00"]).output
            .contains("every store: special hours on \(soon) (0 store-day(s), 1 closed and left so, 0 left as they were"))
        #expect(try database.stores.storeDetails(id: 1)?.specialHours.map { "\($0.opens)-\($0.closes) \($0.reason)" }
            == ["480-720 Inventory", "900-1140 Inventory"])
        #expect(try admin(["special-hours", "--store", "1", "--date", eve, "--usual"]).output
            .contains("1 store-day(s) keep their weekly hours on \(eve) again"))
        #expect(try database.stores.storeDetails(id: 1)?.specialHours.isEmpty == true)
    }
}
