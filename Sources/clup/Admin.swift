import ArgumentParser
import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import CLupText
import CLupWeb
import Foundation

/// Administration from the command line: people with roles, store assignments, kiosks.
struct Admin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create managers and admins, register and edit stores, enrol and revoke kiosks, rebuild statistics.",
        subcommands: [CreateUser.self, CloseAccount.self, AssignStore.self, RemoveManager.self, EnrolKiosk.self, RevokeKiosk.self, ListKiosks.self, SetStaffPin.self,
                      RegisterStore.self, ImportStores.self, EditStore.self, SetHours.self, CloseDay.self, SpecialHours.self, ReopenDay.self, RebuildStats.self,
                      RotateSigningKey.self, CreateDataKey.self, ScheduleMaintenance.self, ListMaintenance.self,
                      CancelMaintenance.self])

    struct ScheduleMaintenance: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "schedule-maintenance",
            abstract: "Announce a time CLup will be down: every page, the kiosks and the device API show it beforehand.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var site: SiteOptions
        @Option(help: "Where nginx's own pages are, to name it on the 502 page (as `clup generate --output`).")
        var errorsDir: String? = ProcessInfo.processInfo.environment["CLUP_ERRORS_DIR"]
        @Option(help: "The day it starts, YYYY-MM-DD.") var day: String
        @Option(help: "Its start, HH:MM.") var from: String
        @Option(help: "Its end, HH:MM (at or before the start: the next day).") var until: String
        @Option(help: "The zone of these times (IANA name).") var timeZone = "Europe/Rome"
        @Option(help: "How many hours before to announce it (0–336).") var announceHours = "24"

        func run() throws {
            let request = MaintenanceWindow.Request(day: day, from: from, until: until, timeZone: timeZone,
                                                    announceHours: announceHours)
            switch MaintenanceWindow.window(request, now: Date()) {
            case .failure(let problem):
                throw ValidationError(Language.$current.withValue(.en) { "--\(Self.option(problem.field)): " + MaintenanceText.message(problem) })
            case .success(let window):
                let opened = try database.openExisting()
                let scheduled = try opened.maintenance.scheduleMaintenance(window, now: Date())
                try Self.rewritePages(errorsDir, site: site, database: opened)
                print("scheduled maintenance \(scheduled.id): \(Language.$current.withValue(.en) { MaintenanceText.describe(scheduled, now: Date()) })")
                let told = try opened.maintenance.customersTold(windowId: scheduled.id)
                print("\(told) customer(s) with a booking in it will be told by a running worker")
            }
        }

        /// nginx's own pages written again, when the deployment says where they are.
        static func rewritePages(_ directory: String?, site: SiteOptions, database: AppDatabase) throws {
            guard let directory else { return }
            try StaticPages(views: try site.views(), directory: directory).refresh(from: database, now: Date())
            print("rewrote nginx's pages in \(directory)")
        }

        /// The option a form field is typed as here.
        static func option(_ field: String) -> String {
            ["timeZone": "time-zone", "announceHours": "announce-hours"][field] ?? field
        }
    }

    struct ListMaintenance: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list-maintenance", abstract: "List the scheduled maintenance not over yet.")

        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let windows = try database.openExisting().maintenance.maintenanceWindows(now: Date())
            if windows.isEmpty { print("no maintenance is scheduled") }
            for window in windows {
                print("\(window.id)\t\(Language.$current.withValue(.en) { MaintenanceText.describe(window, now: Date()) })")
            }
        }
    }

    struct CancelMaintenance: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cancel-maintenance", abstract: "Cancel scheduled maintenance: pages stop announcing it.")

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var site: SiteOptions
        @Option(help: "Where nginx's own pages are, to take it off the 502 page (as `clup generate --output`).")
        var errorsDir: String? = ProcessInfo.processInfo.environment["CLUP_ERRORS_DIR"]
        @Option(help: "Its id, as list-maintenance shows it.") var id: Int64

        func run() throws {
            let opened = try database.openExisting()
            guard try opened.maintenance.cancelMaintenance(id: id, now: Date()) else {
                throw CommandError("no maintenance \(id) that is not over or cancelled already")
            }
            try ScheduleMaintenance.rewritePages(errorsDir, site: site, database: opened)
            print("cancelled maintenance \(id)")
        }
    }

    struct CreateDataKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-data-key",
            abstract: "Write a new data key, readable by its owner only, to seal personal data with.",
            discussion: """
                Names and email addresses are stored sealed with this key. Keep it outside the database's folder \
                and its backups, and keep a copy of it somewhere safe: without it the database cannot be read. \
                Point CLUP_DATA_KEY_FILE (or --data-key-file) at it.
                """)

        @Argument(help: "The file to write; an existing one is never replaced.") var file: String

        func run() throws {
            guard !FileManager.default.fileExists(atPath: file) else {
                throw CommandError("\(file) exists already: a key is never replaced (the data sealed with it would be lost)")
            }
            let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL, 0o600)
            guard descriptor >= 0 else { throw CommandError("cannot create \(file): \(String(cString: strerror(errno)))") }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try handle.write(contentsOf: Data((DataKey.newSecret() + "\n").utf8))
            try handle.synchronize()
            print("wrote a new data key to \(file)")
        }
    }

    struct RebuildStats: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rebuild-stats",
            abstract: "Recompute every store's hourly statistics from the raw visits (after an import, or to check them).")

        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let hours = try database.openExisting().statistics.rebuildStatistics()
            print("rebuilt \(hours) store-hours of statistics")
        }
    }

    struct CreateUser: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create-user",
            abstract: "Create a confirmed account with a role; prints a generated password once unless one is piped in.",
            discussion: """
                A password piped in (`printf '%s\\n' "$PASSWORD" | clup admin create-user …`, or from a file) is \
                used and never printed; --password-stdin waits for one from a terminal too.
                """)

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Email address.") var email: String
        @Option(help: "Display name.") var name: String
        @Option(help: "customer, support, manager or admin (door staff are named on a store's page).")
        var role: String = "manager"
        @Flag(help: "Read the password from standard input even from a terminal, instead of generating one.")
        var passwordStdin = false

        func run() throws {
            guard let role = Role(rawValue: role), role != .staff else {
                throw ValidationError("--role must be customer, support, manager or admin")
            }
            let given = passwordStdin ? readLine(strippingNewline: true) ?? "" : Self.pipedPassword()
            if let given, let weakness = PasswordHasher.weakness(of: given, email: email, displayName: name) {
                throw ValidationError(weakness.message)
            }
            let password = given ?? Secrets.token(bytes: 15)
            let user = try database.openExisting().accounts.createUser(
                // Made on someone's behalf: they accept the terms of service at their first sign-in.
                email: email, displayName: name, passwordHash: PasswordHasher().hash(password), role: role,
                acceptedTerms: nil, now: Date(), confirmation: nil)
            print("created \(role.rawValue) \(user.email) (id \(user.id))")
            if given == nil { print("password (shown once): \(password)") }
        }

        /// The first line of standard input when it is a pipe, a socket (as a program spawning
        /// this one may give it) or a file with a line in it (a pipe or socket is given a second
        /// to deliver one); nil from a terminal, /dev/null, or a pipe that brings nothing, so the
        /// command never waits on an input nobody will give.
        static func pipedPassword() -> String? {
            var info = stat()
            guard fstat(STDIN_FILENO, &info) == 0 else { return nil }
            let kind = info.st_mode & S_IFMT
            guard kind == S_IFIFO || kind == S_IFSOCK || kind == S_IFREG else { return nil }
            var ready = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 1000) > 0, let line = readLine(strippingNewline: true), !line.isEmpty else { return nil }
            return line
        }
    }

    struct AssignStore: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "assign-store", abstract: "Let a manager manage a store (a customer becomes a manager).")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "The manager's email address.") var email: String
        @Option(help: "Store id.") var store: StoreID

        func run() throws {
            try database.openExisting().accounts.assignStore(storeId: store, toManager: email, now: Date(), loggedAs: .commandLine)
            print("\(email) now manages store \(store)")
        }
    }

    struct CloseAccount: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "close-account",
            abstract: "Close an account that breaks the terms: deleted as its owner would delete it, and its owner told why.",
            discussion: """
                Its reservations not yet used are cancelled and go to the next customer; its visits \
                stay in the statistics, anonymous. Its owner is emailed the reason, in their language, \
                with a link to the terms. It cannot be undone.
                """)

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var site: SiteOptions
        @Option(help: "The account's email address.") var email: String
        @Option(help: "Why, as its owner reads it: what in the terms it broke (1–500 characters).") var reason: String

        func validate() throws {
            if let problem = ClosureLetter.problem(reason.trimmingCharacters(in: .whitespacesAndNewlines)) {
                throw ValidationError("--reason: \(problem)")
            }
        }

        func run() throws {
            let opened = try database.openExisting()
            guard let user = try opened.accounts.user(email: email) else { throw AccountError.noSuchUser }
            let letter = ClosureLetter(settings: site.settings)
            let reason = reason.trimmingCharacters(in: .whitespacesAndNewlines)
            try opened.accounts.deleteUser(id: user.id, now: Date(),
                                           farewell: { letter.write(to: $0, reason: reason, now: Date()) })
            print("closed the account of \(email); its owner is emailed why")
        }
    }

    struct RemoveManager: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove-manager",
            abstract: "Stop a manager managing a store (a manager of no other store becomes a customer).")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "The manager's email address.") var email: String
        @Option(help: "Store id.") var store: StoreID

        func run() throws {
            let opened = try database.openExisting()
            guard let user = try opened.accounts.user(email: email) else { throw AccountError.noSuchUser }
            guard try opened.accounts.removeManager(storeId: store, userId: user.id, now: Date(), loggedAs: .commandLine) else {
                throw ValidationError("\(email) does not manage store \(store)")
            }
            let role = try opened.accounts.user(email: email)?.role
            let demoted = role == .customer ? "; the account is a customer's again" : ""
            print("\(email) no longer manages store \(store)" + demoted)
        }
    }

    struct EnrolKiosk: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enrol-kiosk", abstract: "Enrol a kiosk for a store; prints its device key once.")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Store id.") var store: StoreID
        @Option(help: "A label staff recognise, e.g. \"Entrance left\".") var label: String
        @Option(help: """
            dispenser (customer-facing: tickets and the board only) or door (the scanner, the board, \
            the dispenser, and the staff console behind the store's staff PIN).
            """) var role: String

        func run() throws {
            guard let role = KioskRole(rawValue: role) else { throw ValidationError("--role must be dispenser or door") }
            let key = Secrets.token(bytes: 32)
            let kiosk = try database.openExisting().accounts.enrolKiosk(storeId: store, label: label, key: key, role: role, now: Date(),
                                                               loggedAs: .commandLine)
            print("kiosk \(kiosk.id) enrolled for store \(store) as a \(role.rawValue)")
            print("device key (shown once; only its hash is kept): \(key)")
        }
    }

    struct SetStaffPin: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-staff-pin",
            abstract: "Set the PIN staff give to open the door console on a store's door kiosks (read from standard input).")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Store id.") var store: StoreID

        func run() throws {
            let pin = readLine(strippingNewline: true) ?? ""
            guard StaffPin.isAcceptable(pin) else { throw ValidationError(StaffPin.rule) }
            try database.openExisting().accounts.setStaffPin(storeId: store, pinHash: PasswordHasher().hash(pin), by: nil, now: Date())
            print("staff PIN set for store \(store)")
        }
    }

    struct RevokeKiosk: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-kiosk", abstract: "Revoke a kiosk: its key stops working at once.")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Kiosk id.") var id: Int64

        func run() throws {
            guard try database.openExisting().accounts.revokeKiosk(id: id, now: Date()) else {
                throw ValidationError("no active kiosk with id \(id)")
            }
            print("kiosk \(id) revoked")
        }
    }

    struct RotateSigningKey: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-signing-key",
            abstract: "Sign a store's new ticket codes with a new key; codes signed before stay good for 7 days.",
            discussion: """
                Running workers sign with the new key within 30 seconds, and the store's kiosks \
                receive it with their next refresh. With --retire-now, codes signed with the \
                older keys are refused at once (when a key may have leaked): tickets already \
                printed stop working, and customers' ticket pages show the new code.
                """)

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Store id.") var store: StoreID
        @Flag(help: "Refuse codes signed with the older keys at once.") var retireNow = false

        func run() throws {
            let keyId = try database.openExisting().stores.rotateSigningKey(storeId: store, retireAtOnce: retireNow, now: Date())
            print("store \(store) now signs with key \(keyId)")
        }
    }

    struct ListKiosks: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list-kiosks", abstract: "List a store's kiosks.")

        @OptionGroup var database: DatabaseOptions
        @Option(help: "Store id.") var store: StoreID

        func run() throws {
            for kiosk in try database.openExisting().accounts.kiosks(storeId: store) {
                print("\(kiosk.id)\t\(kiosk.label)\t\(kiosk.role.rawValue)\t\(kiosk.revokedAt == nil ? "active" : "revoked")")
            }
        }
    }
}
