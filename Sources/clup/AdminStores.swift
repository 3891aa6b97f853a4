import ArgumentParser
import CLupData
import CLupDomain
import CLupWeb
import Foundation

/// Stores from the command line: the same checks, the same records and the same effects on
/// reservations as the management pages, the change recorded as an administrator's.
extension Admin {
    struct RegisterStore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "register-store",
            abstract: "Register a store, checked as the registration page checks it; it is closed until its hours are set.")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Name, as shoppers see it.") var name: String
        @Option(help: "Street, number, postcode and city.") var address: String
        @Option(help: "Latitude in degrees, e.g. 45.4642.") var latitude: String
        @Option(help: "Longitude in degrees, e.g. 9.1900.") var longitude: String
        @Option(help: "Phone (optional).") var phone = ""
        @Option(help: "IANA time zone its hours are written in.") var timeZone = "Europe/Rome"
        @Option(help: "People inside at once, 1–10,000.") var capacity: String
        @Option(help: "Share kept for walk-ins, 0–90 (%).") var walkInPercent = "20"
        @Option(help: "Booking slot length in minutes: 10, 15, 20, 30 or 60.") var slotMinutes = "15"
        @Option(help: "People per booking slot, 1–10,000 (default: about half of what the online places let in).")
        var slotCapacity: String?
        @Option(help: "Entry opens this many minutes before a slot, 0–60 (default 10).") var entryBeforeMinutes: String?
        @Option(help: "Entry closes this many minutes after a slot starts, 0–60 (default 15).") var entryAfterMinutes: String?
        @Option(help: "Minutes to reach the door when called, 1–60 (default 10).") var callGraceMinutes: String?
        @Option(help: "The most people one ticket or booking may be for, 1–8 (default 2).") var largestParty: String?
        @Option(help: "Departments, \"Bakery, 10\" each, separated by semicolons.") var departments = ""

        func run() throws {
            let given: [String: String?] = [
                "name": name, "address": address, "latitude": latitude, "longitude": longitude, "phone": phone,
                "timeZone": timeZone, "capacity": capacity, "walkInPercent": walkInPercent, "slotMinutes": slotMinutes,
                "slotCapacity": slotCapacity, "entryBeforeMinutes": entryBeforeMinutes,
                "entryAfterMinutes": entryAfterMinutes, "callGraceMinutes": callGraceMinutes,
                "largestParty": largestParty, "departments": departmentLines(departments),
            ]
            let values = given.compactMapValues { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }
            switch StoreFields.registration(values) {
            case .failure(let problems):
                throw CommandError(optionProblems(problems))
            case .success(let (new, departments)):
                let database = try database.openExisting()
                let store = try database.stores.createStore(new, hours: [], departments: departments)
                try database.stores.recordRegistration(storeId: store.id, userId: nil, now: Date())
                print("registered store \(store.id): \(store.name); closed until its hours are set (set-hours)")
            }
        }
    }

    struct ImportStores: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import-stores",
            abstract: "Register the stores of a CSV file, each checked as the registration page checks it: all of them, "
                + "or none and every problem by line.",
            discussion: """
                The first line names the columns: \(StoreImport.columns.joined(separator: ", ")) (required: \
                \(StoreImport.requiredColumns.joined(separator: ", "))). Departments are "Bakery, 10" separated by \
                semicolons; a weekday's hours are "08:00-13:00,15:00-20:00" or "closed".
                """)

        @OptionGroup var database: DatabaseOptions
        @Argument(help: "The CSV file (\"-\" for standard input).") var file: String
        @Flag(help: "Check the file and list what it would import; register nothing.") var dryRun = false

        func run() throws {
            let data = file == "-" ? FileHandle.standardInput.readDataToEndOfFile() : try Data(contentsOf: URL(fileURLWithPath: file))
            guard let text = FormData.uploadedText(data) else { throw CommandError("\(file): not text") }
            let database = try database.openExisting()
            switch StoreImport.check(text, existing: try database.stores.namesAndAddresses()) {
            case .refused(let problems):
                throw CommandError("nothing imported; \(problems.count) problem(s):\n"
                    + problems.map(\.description).joined(separator: "\n"))
            case .ready(let rows) where dryRun:
                for row in rows { print("line \(row.line): \(row.store.name), \(row.store.address)") }
                print("\(rows.count) store(s) ready to import; nothing imported (--dry-run)")
            case .ready(let rows):
                let stores = try database.stores.importStores(rows.map(\.registration), regions: rows.map(\.region), userId: nil,
                                                              now: Date())
                let closed = rows.filter(\.hours.isEmpty).count
                print("imported \(stores.count) store(s), ids \(stores.first!.id)–\(stores.last!.id)"
                    + (closed > 0 ? "; \(closed) closed until their hours are set (set-hours)" : ""))
            }
        }
    }

    struct EditStore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "edit-store",
            abstract: "Change a store's facts and rules, as its management page does (the change is recorded).")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Store id.") var store: StoreID
        @Option(help: "Name.") var name: String?
        @Option(help: "Address.") var address: String?
        @Option(help: "Latitude in degrees, -90–90.") var latitude: Double?
        @Option(help: "Longitude in degrees, -180–180.") var longitude: Double?
        @Option(help: "Phone (empty for none).") var phone: String?
        @Option(help: "People inside at once, 1–10,000.") var capacity: Int?
        @Option(help: "Share kept for walk-ins, 0–90 (%).") var walkInPercent: Int?
        @Option(help: "Booking slot length in minutes: 10, 15, 20, 30 or 60 (bookings made keep their time).")
        var slotMinutes: Int?
        @Option(help: "People per booking slot, 1–10,000.") var slotCapacity: Int?
        @Option(help: "Entry opens this many minutes before a slot, 0–60.") var entryBeforeMinutes: Int?
        @Option(help: "Entry closes this many minutes after a slot starts, 0–60.") var entryAfterMinutes: Int?
        @Option(help: "Minutes to reach the door when called, 1–60.") var callGraceMinutes: Int?
        @Option(help: "The most people one ticket or booking may be for, 1–8.") var largestParty: Int?
        @Option(help: "Priority lane: one priority call in every N, 1–10 (1: the next free place), 0 for none.")
        var priorityEvery: Int?
        @Option(help: "Whether customers may ask for a priority place when lining up online: yes or no.")
        var priorityOnline: String?
        @Option(help: "All its departments, \"Bakery, 10\" each, separated by semicolons (one left out is retired).")
        var departments: String?

        func run() throws {
            let database = try database.openExisting()
            guard let current = try database.stores.store(id: store) else { throw CommandError("no store with id \(store)") }
            var edit = StoreEdit(current)
            edit.name = name ?? edit.name
            edit.address = address ?? edit.address
            edit.position = GeoPoint(latitude: latitude ?? edit.position.latitude,
                                     longitude: longitude ?? edit.position.longitude)
            edit.phone = phone ?? edit.phone
            edit.capacity = capacity ?? edit.capacity
            edit.walkInPercent = walkInPercent ?? edit.walkInPercent
            edit.slotMinutes = slotMinutes ?? edit.slotMinutes
            edit.slotCapacity = slotCapacity ?? edit.slotCapacity
            edit.entryBeforeMinutes = entryBeforeMinutes ?? edit.entryBeforeMinutes
            edit.entryAfterMinutes = entryAfterMinutes ?? edit.entryAfterMinutes
            edit.callGraceMinutes = callGraceMinutes ?? edit.callGraceMinutes
            edit.largestParty = largestParty ?? edit.largestParty
            edit.priorityEvery = priorityEvery ?? edit.priorityEvery
            var problems: [String] = []
            switch priorityOnline {
            case nil: break
            case "yes": edit.priorityOnline = true
            case "no": edit.priorityOnline = false
            default: problems.append("--priority-online: answer yes or no")
            }
            problems += StoreFields.problems(in: edit).map { "--\($0.option): \($0.problem)" }
            let parsed = departments.map { StoreFields.departments(departmentLines($0)) }
            if let problem = parsed?.problem { problems.append("--departments: \(problem)") }
            guard problems.isEmpty else { throw CommandError(problems.joined(separator: "\n")) }
            let now = Date()
            let outcome = try database.stores.editStore(store, to: edit, userId: nil, now: now)
            var changed = outcome.changed
            if let list = parsed?.departments,
               try database.stores.replaceDepartments(storeId: store, with: list, userId: nil, now: now)
            {
                changed.append("departments")
            }
            print(changed.isEmpty ? "nothing changed" : "changed \(changed.joined(separator: ", "))")
            if outcome.overCapacity > 0 {
                print("\(outcome.overCapacity) more inside than the new capacity: nobody new enters until they leave")
            }
            if outcome.slotsOverBooked > 0 {
                print("\(outcome.slotsOverBooked) coming slots hold more bookings than the new limit: they stand")
            }
        }
    }

    struct SetHours: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-hours",
            abstract: "Set a store's weekly hours, as its hours page does; bookings the new hours no longer have are "
                + "cancelled and their customers told.",
            discussion: """
                Each day takes up to two openings, "08:00-13:00,15:00-20:00"; a closing earlier than the opening runs \
                past midnight ("18:00-02:00"); "closed", or a day left out, is closed. Every day is set: a day not \
                given is closed.
                """)

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Store id.") var store: StoreID
        @Option var monday = "closed"
        @Option var tuesday = "closed"
        @Option var wednesday = "closed"
        @Option var thursday = "closed"
        @Option var friday = "closed"
        @Option var saturday = "closed"
        @Option var sunday = "closed"

        func run() throws {
            let (intervals, errors) = StoreFields.week(text: [monday, tuesday, wednesday, thursday, friday, saturday, sunday])
            let problems = zip(Self.days, errors).compactMap { day, error in error.map { "--\(day): \($0)" } }
            guard problems.isEmpty else { throw CommandError(problems.joined(separator: "\n")) }
            let database = try database.openExisting()
            guard try database.stores.store(id: store) != nil else { throw CommandError("no store with id \(store)") }
            let cancelled = try database.stores.replaceHours(storeId: store, with: intervals, userId: nil, now: Date())
            print("hours set for store \(store); \(cancelled) booking(s) no longer in its hours cancelled")
        }

        static let days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    }

    /// Which stores a holiday or special hours are for: one, a region's, or every store.
    struct StoreChoice: ParsableArguments {
        @Option(help: "Store id.") var store: StoreID?
        @Option(help: "Every store of this region (its name), instead of --store.") var region: String?
        @Flag(help: "Every store (a national holiday), instead of --store.") var allStores = false

        func validate() throws {
            guard [store != nil, region != nil, allStores].filter({ $0 }).count == 1 else {
                throw ValidationError("give one of --store, --region or --all-stores")
            }
        }

        /// The stores chosen (nil: every store), or why not.
        func storeIds(_ database: AppDatabase) throws -> [StoreID]? {
            if let store {
                guard try database.stores.store(id: store) != nil else { throw CommandError("no store with id \(store)") }
                return [store]
            }
            guard let region else { return nil }
            guard let group = try database.stores.groups().first(where: { $0.name.lowercased() == region.lowercased() })
            else { throw CommandError("no region named \(region)") }
            return try database.stores.regions().filter { $0.value == group.id }.map(\.key).sorted()
        }

        var description: String { store.map { "store \($0)" } ?? region.map { "region \($0)" } ?? "every store" }
    }

    /// The stores, days and reason of a holiday or special hours, as the closures page takes them.
    struct StoreDays: ParsableArguments {
        @OptionGroup var stores: StoreChoice
        @Option(help: "The day, as 2026-12-25 (each store's own calendar).") var date: String
        @Option(help: "The last day of a run of days, up to 31 days (default: --date alone).") var until: String?
        @Option(help: "Why, as shoppers read it (optional).") var reason = ""

        /// The stores chosen (nil: every store) and the days, checked as the closures page
        /// checks them; the reason trimmed.
        func resolve(_ database: AppDatabase, now: Date) throws -> (storeIds: [StoreID]?, days: ClosedRange<Int>, reason: String) {
            let reason = reason.trimmingCharacters(in: .whitespaces)
            let storeIds = try stores.storeIds(database)
            let zone = try storeIds?.first.flatMap { try database.stores.store(id: $0)?.timeZone }
                ?? database.stores.storeListings().first?.store.timeZone ?? "Europe/Rome"
            let today = ZoneOffsets.day(of: now, in: TimeZone(identifier: zone) ?? .gmt)
            switch StoreFields.closure(date: date, until: until, reason: reason, today: today) {
            case .failure(let problems): throw CommandError(optionProblems(problems))
            case .success(let days): return (storeIds, days, reason)
            }
        }

        /// "2026-12-24", or "2026-12-24 to 2026-12-26".
        var range: String { until.map { "\(date) to \($0)" } ?? date }
    }

    struct CloseDay: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "close-day",
            abstract: "Close a store, a region's stores or every store on a day or a run of days (a holiday): those "
                + "days' bookings are cancelled and their customers told.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var target: StoreDays

        func run() throws {
            let database = try database.openExisting()
            let now = Date()
            let (storeIds, days, reason) = try target.resolve(database, now: now)
            let done = try database.stores.closeDays(storeIds: storeIds, days: days, reason: reason, userId: nil, now: now)
            let which = target.stores.description
            guard done.closed > 0 else { throw CommandError("\(which) is already closed on \(target.range)") }
            print("\(which) closed on \(target.range) (\(done.closed) closure(s)); \(done.cancelled) booking(s) cancelled")
        }
    }

    struct SpecialHours: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "special-hours",
            abstract: "Give a store, a region's stores or every store hours of their own on a day or a run of days (an "
                + "early closing on Christmas Eve), or their usual hours back: bookings outside them are cancelled "
                + "and their customers told.",
            discussion: """
                --hours takes one or two openings, "08:00-14:00" or "08:00-13:00,15:00-20:00", as set-hours does; \
                a day a store is closed stays closed. --usual gives --date its weekly hours back.
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var target: StoreDays
        @Option(help: "The openings that day, as \"08:00-14:00\".") var hours: String?
        @Flag(help: "Give --date its usual weekly hours back instead.") var usual = false

        func validate() throws {
            guard (hours == nil) == usual else { throw ValidationError("give --hours or --usual") }
        }

        func run() throws {
            let database = try database.openExisting()
            let now = Date()
            let (storeIds, days, reason) = try target.resolve(database, now: now)
            if usual {
                let ids = try storeIds ?? database.stores.storeListings().map(\.store.id)
                var cleared = 0
                for storeId in ids {
                    for day in days where try database.stores.clearSpecialHours(storeId: storeId, day: day, userId: nil, now: now) {
                        cleared += 1
                    }
                }
                print("\(cleared) store-day(s) keep their weekly hours on \(target.range) again")
                return
            }
            let openings: [(opens: Int, closes: Int)]
            do { openings = try StoreFields.dayOpenings(text: hours ?? "") } catch { throw CommandError("\(error)") }
            let done = try database.stores.setSpecialHours(storeIds: storeIds, days: days, openings: openings, reason: reason,
                                                           userId: nil, now: now)
            print("\(target.stores.description): special hours on \(target.range) (\(done.set) store-day(s), "
                + "\(done.closed) closed and left so, \(done.clashed) left as they were: their nights run into these "
                + "hours); \(done.cancelled) booking(s) cancelled")
        }
    }

    struct ReopenDay: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reopen-day", abstract: "Open a store again on a day it was closed, as its weekly hours say.")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Store id.") var store: StoreID
        @Option(help: "The day, as 2026-12-25.") var date: String

        func run() throws {
            guard let day = LocalDate(text: date)?.day else { throw CommandError("--date: enter a date, like 2026-12-25") }
            guard try database.openExisting().stores.reopenDay(storeId: store, day: day, userId: nil, now: Date()) else {
                throw CommandError("store \(store) is not closed on \(date)")
            }
            print("store \(store) opens on \(date) as its weekly hours say")
        }
    }
}

/// "Bakery, 10; Butcher, 15" as the form's lines.
private func departmentLines(_ text: String) -> String {
    text.split(separator: ";").joined(separator: "\n")
}

/// "--walk-in-percent: Enter a number from 0 to 90." per line, in option order.
private func optionProblems(_ problems: StoreFields.Problems) -> String {
    problems.errors.sorted { $0.key < $1.key }.map { "--\(StoreFields.option($0.key)): \($0.value)" }
        .joined(separator: "\n")
}
