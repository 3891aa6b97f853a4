import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// The manager's area: the stores they manage and, for each, its live figures, settings and
/// enrolled kiosks. Only managers and admins get in; a store's page only for a store they
/// manage (admins manage all); guessing another store's id gets a 403.
struct ManageArea {
    let database: AppDatabase
    let views: Views
    let settings: SiteSettings
    let codes: TicketCodes
    /// The codes to follow a walk-in's ticket, read to someone who phoned for one.
    let follow: FollowCodes
    /// Written again when maintenance changes, if the worker writes nginx's pages.
    var staticPages: StaticPages? = nil

    func addRoutes(to pages: RouteGroup<BrowserContext>) {
        let managers = pages.adding(.signedIn).adding(.manager)
        managers.get(Paths.manage, list)
        managers.get(Paths.manageOverview, overview)
        managers.get(Paths.manageOverviewCSV, overviewCSV)
        managers.get(Paths.manageOverviewJSON, overviewJSON)
        let admins = managers.adding(.admin)
        admins.get(Paths.manageNewStore, newStoreForm)
        admins.post(Paths.manageNewStore, registerStore)
        admins.get(Paths.manageImportStores, importForm)
        admins.post(Paths.manageImportStores, importStores)
        admins.get(Paths.manageClosures, chainClosuresForm)
        admins.post(Paths.manageClosures, changeChainClosures)
        admins.get(Paths.manageMaintenance, maintenanceForm)
        admins.post(Paths.manageMaintenance, scheduleMaintenance)
        admins.post(Paths.manageMaintenanceCancel, cancelMaintenance)
        admins.get(Paths.manageGroups, groupsPage)
        admins.post(Paths.manageGroups, createGroup)
        admins.get(Paths.manageGroup, groupPage)
        admins.post(Paths.manageGroupStores, addGroupStores)
        admins.post(Paths.manageGroupStoreRemove, removeGroupStore)
        admins.post(Paths.manageGroupManagers, addGroupManager)
        admins.post(Paths.manageGroupManagerRemove, removeGroupManager)
        admins.post(Paths.manageGroupRename, renameGroup)
        admins.post(Paths.manageGroupDelete, deleteGroup)
        let store = managers.adding(.managerOfStore(database: database))
        store.get(Paths.manageStore, self.store)
        store.get(Paths.manageStoreStats, stats)
        store.get(Paths.manageStoreStatsCSV, statsCSV)
        store.post(Paths.manageStoreStaffPin, setStaffPin)
        store.post(Paths.manageStoreDoorStaff, addDoorStaff)
        store.post(Paths.manageStoreDoorStaffRemove, removeDoorStaff)
        store.post(Paths.manageStoreKioskRevoke, revokeKiosk)
        store.post(Paths.manageStoreKiosks, enrolKiosk)
        store.get(Paths.manageStoreEdit, editForm)
        store.post(Paths.manageStoreEdit, edit)
        store.get(Paths.manageStoreHours, hoursForm)
        store.post(Paths.manageStoreHours, saveHours)
        store.post(Paths.manageStoreClosures, changeClosures)
        store.post(Paths.manageStoreSpecialHours, changeSpecialHours)
        // The door console: the store's managers and its door staff.
        let door = managers.adding(.doorOfStore(database: database))
        door.get(Paths.manageStoreDoor, self.door)
        door.post(Paths.manageStoreDoor, doorAction)
        door.post(Paths.manageStoreDoorPriority, doorPriority)
        door.post(Paths.manageStoreDoorPhone, doorPhone)
        door.post(Paths.manageStoreDoorOffline, doorOffline)
        let storeAdmins = admins.adding(.managerOfStore(database: database))
        storeAdmins.post(Paths.manageStoreManagers, addManager)
        storeAdmins.post(Paths.manageStoreManagerRemove, removeManager)
        storeAdmins.post(Paths.manageStoreRetire, retireStore)
    }

    func list(_ context: ManagerContext) throws -> Response {
        let user = context.user
        let stores = user.role == .admin
            ? database.board.entries().map(\.store) : try database.accounts.managedStores(userId: user.id)
        func row(_ store: Store) -> ManagePage.Row { ManagePage.Row(id: store.id.rawValue, name: store.name, address: store.address) }
        let retired = Set(stores.filter { database.board.entry($0.id)?.definition.isRetired == true }.map(\.id))
        var page = ManagePage(stores: stores.filter { !retired.contains($0.id) }.map(row))
        page.retired = stores.filter { retired.contains($0.id) }.map(row)
        if user.role != .admin {
            let managed = Set(stores.map(\.id))
            page.doors = try database.accounts.doorStores(userId: user.id).filter { !managed.contains($0.id) }.map(row)
        }
        page.canRegister = user.role == .admin
        page.canOverview = user.role == .admin || user.role == .manager
        if let imported = context.request.query["imported"].flatMap(Int.init), imported > 0 {
            let closed = context.request.query["closed"].flatMap(Int.init) ?? 0
            page.notice = tr("import.done", count: imported) + (closed > 0 ? " " + tr("import.doneClosed", count: closed) : "")
        }
        return views.page(title: tr("manage.yourStores"), section: .manage, context, page)
    }

    func store(_ context: ManagedStoreContext) throws -> Response {
        try storePage(context)
    }

    /// A new staff PIN for the store's door kiosks; passes made with the old one stop working.
    func setStaffPin(_ context: ManagedStoreContext) throws -> Response {
        let pin = context.form["pin"] ?? ""
        guard StaffPin.isAcceptable(pin) else {
            return try storePage(context, httpStatus: 422) { $0.staffPinError = tr("manage.staffPinBad") }
        }
        try database.accounts.setStaffPin(storeId: context.storeId, pinHash: PasswordHasher().hash(pin), by: context.user.id,
                                 now: context.now)
        return .redirect(to: Paths.manageStore(context.storeId, query: "pin=set"))
    }

    /// Takes one of the store's kiosks out of service: its key stops working at once, wherever
    /// the browser is. Another store's kiosk id is a 404.
    func revokeKiosk(_ context: ManagedStoreContext) throws -> Response {
        guard let id = context.form["kiosk"].flatMap({ Int64($0) }),
            try database.accounts.revokeKiosk(id: id, storeId: context.storeId, by: context.user.id, now: context.now)
        else { throw HTTPError.notFound }
        return .redirect(to: Paths.manageStore(context.storeId, query: "kiosk=revoked"))
    }

    /// Enrols a kiosk for the store and shows its device key, this once, with a QR code its
    /// scanner can read. A name missing or too long, or no role, shows the store page again.
    func enrolKiosk(_ context: ManagedStoreContext) throws -> Response {
        let label = (context.form["label"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        let role = context.form["role"].flatMap(KioskRole.init(rawValue:))
        let problem = label.isEmpty || label.count > 60 ? tr("manage.enrolLabelMissing")
            : role == nil ? tr("manage.enrolRoleMissing") : nil
        guard let role, problem == nil else {
            return try storePage(context, httpStatus: 422) { page in
                page.enrolLabel = label
                page.enrolRole = context.form["role"]
                page.enrolError = problem
            }
        }
        let key = Secrets.token(bytes: 32)
        let kiosk = try database.accounts.enrolKiosk(storeId: context.storeId, label: label, key: key, role: role, now: context.now,
                                            loggedAs: .user(context.user.id))
        let qr = try QRCode(encoding: key)
        var response = views.page(title: tr("manage.enrolledTitle", ["label": kiosk.label]), section: .manage, context,
                                  KioskEnrolledPage(storeId: context.storeId.rawValue, label: kiosk.label, key: key,
                                                    code: QRDrawing(side: qr.svgSide, path: qr.svgPath)))
        response.headers.append(("Referrer-Policy", "no-referrer"))
        return response
    }

    /// An administrator lets an account manage the store, by its email address.
    func addManager(_ context: ManagedStoreContext) throws -> Response {
        let email = String((context.form["email"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(254))
        func refused(_ message: String) throws -> Response {
            try storePage(context, httpStatus: 422) { page in
                page.managerEmail = email
                page.managerError = message
            }
        }
        do {
            guard try database.accounts.assignStore(storeId: context.storeId, toManager: email, now: context.now,
                                           loggedAs: .user(context.user.id))
            else { return try refused(tr("manage.managerAlready", ["email": email])) }
        } catch AccountError.noSuchUser {
            return try refused(tr("manage.managerNoAccount"))
        }
        // The address stays out of the URL (and so out of access logs).
        return .redirect(to: Paths.manageStore(context.storeId, query: "manager=added") + "#managers")
    }

    /// The store's managers name an account door staff of the store, by its email address.
    func addDoorStaff(_ context: ManagedStoreContext) throws -> Response {
        let email = String((context.form["email"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(254))
        func refused(_ message: String) throws -> Response {
            try storePage(context, httpStatus: 422) { page in
                page.doorStaffEmail = email
                page.doorStaffError = message
            }
        }
        do {
            guard try database.accounts.addDoorStaff(storeId: context.storeId, email: email, now: context.now,
                                                     loggedAs: .user(context.user.id))
            else { return try refused(tr("manage.doorStaffAlready", ["email": email])) }
        } catch AccountError.noSuchUser {
            return try refused(tr("manage.managerNoAccount"))
        }
        return .redirect(to: Paths.manageStore(context.storeId, query: "doorStaff=added") + "#door-staff")
    }

    /// The store's managers stop an account running its door.
    func removeDoorStaff(_ context: ManagedStoreContext) throws -> Response {
        guard let id = context.form["user"].flatMap({ Int64($0) }),
            try database.accounts.removeDoorStaff(storeId: context.storeId, userId: UserID(rawValue: id), now: context.now,
                                                  loggedAs: .user(context.user.id))
        else { throw HTTPError.notFound }
        return .redirect(to: Paths.manageStore(context.storeId, query: "doorStaff=removed") + "#door-staff")
    }

    /// An administrator retires the store for good, giving why; refused while people are inside.
    func retireStore(_ context: ManagedStoreContext) throws -> Response {
        let reason = (context.form["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if let problem = reason.isEmpty ? tr("retire.giveReason") : Self.textProblem(reason, maxLength: 200) {
            return try storePage(context, httpStatus: 422) { page in
                page.retireReason = reason
                page.retireError = problem
            }
        }
        switch try database.stores.retire(storeId: context.storeId, reason: reason, now: context.now,
                                          loggedAs: .user(context.user.id))
        {
        case .retired(let cancelled):
            return .redirect(to: Paths.manageStore(context.storeId, query: "retired=\(cancelled)"))
        case .peopleInside(let people):
            return try storePage(context, httpStatus: 409) { page in
                page.retireReason = reason
                page.retireError = tr("retire.peopleInside", count: people)
            }
        case .alreadyRetired:
            return .redirect(to: Paths.manageStore(context.storeId))
        }
    }

    /// An administrator stops an account managing the store.
    func removeManager(_ context: ManagedStoreContext) throws -> Response {
        guard let id = context.form["user"].flatMap({ Int64($0) }),
            try database.accounts.removeManager(storeId: context.storeId, userId: UserID(rawValue: id), now: context.now,
                                       loggedAs: .user(context.user.id))
        else { throw HTTPError.notFound }
        return .redirect(to: Paths.manageStore(context.storeId, query: "manager=removed") + "#managers")
    }

    /// The store's page; `adjust` adds what a refused form brings back (what was typed, why).
    private func storePage(_ context: ManagedStoreContext, httpStatus: Int = 200,
                           adjust: (inout ManageStorePage) -> Void = { _ in }) throws -> Response {
        guard let (entry, standing) = database.board.live(context.storeId, now: context.now) else {
            throw HTTPError.notFound
        }
        let store = entry.store
        let status = standing.status
        let health = Dictionary(uniqueKeysWithValues: try database.doors.kioskHealth(storeId: store.id, now: context.now)
            .map { ($0.id, $0) })
        let kiosks = try database.accounts.kiosks(storeId: store.id).map { kiosk in
            var row = ManageStorePage.KioskRow(
                id: kiosk.id, label: kiosk.label, role: tr("kiosk.role.\(kiosk.role.rawValue)"),
                enrolled: Formatting.clock(kiosk.createdAt, now: context.now, timeZone: store.zone),
                revoked: kiosk.revokedAt != nil)
            if let health = health[kiosk.id] {
                Self.describe(health, in: &row, hours: entry.hours, script: views.assets.script, now: context.now)
            }
            return row
        }
        var page = ManageStorePage(
            id: store.id.rawValue, name: store.name, address: store.address, capacity: store.capacity,
            peopleInside: status.peopleInside, wait: Formatting.wait(status.wait, range: status.waitRange), light: status.light.rawValue,
            reason: status.reason.text, kiosks: kiosks)
        let now = context.now
        page.notice = Self.storeNotice(context.request.query)
        page.staffPin = try database.accounts.staffPin(storeId: store.id).map {
            tr("manage.staffPinSetAt", ["time": Formatting.moment($0.setAt, now: now, timeZone: store.zone)])
        } ?? tr("manage.staffPinNone")
        page.kioskActions = try database.doors.doorLog(storeId: store.id, limit: 50, kiosksSince: now - 7 * 86400)
            .map { DoorConsole.logRow($0, time: Formatting.moment($0.at, now: now, timeZone: store.zone)) }
        page.changes = try database.stores.storeChanges(storeId: store.id, limit: 20).map { change in
            (Formatting.moment(change.at, now: now, timeZone: store.zone), change.by ?? tr("change.admin"),
             Self.changeText(change))
        }
        page.bookings = try database.reservations.bookings(storeId: store.id, from: now, to: now + 86400).map { booking in
            let answer: String
            if booking.confirmedAt != nil {
                answer = tr("reply.confirmed")
            } else if let reminded = booking.remindedAt {
                answer = tr("manage.asked", ["time": Formatting.clock(reminded + BookingReminder.replyWindow, now: now,
                                                                      timeZone: store.zone)])
            } else {
                answer = tr("manage.reminderAt", ["time": Formatting.clock((booking.slotStart ?? now) - BookingReminder.lead,
                                                                            now: now, timeZone: store.zone)])
            }
            return ManageStorePage.BookingRow(
                slot: Formatting.clock(booking.slotStart ?? now, now: now, timeZone: store.zone), number: booking.number,
                people: booking.people, answer: answer)
        }
        page.doorStaff = try database.accounts.doorStaff(storeId: store.id).map {
            ManageStorePage.DoorStaffRow(userId: $0.user.id.rawValue, email: $0.user.email, name: $0.user.displayName,
                                         hasPin: $0.hasPin)
        }
        if let retiredAt = entry.definition.retiredAt {
            page.retired = tr("retire.banner", ["time": Formatting.moment(retiredAt, now: now, timeZone: store.zone)])
        }
        page.canRetire = context.user.role == .admin && !entry.definition.isRetired
        if context.user.role == .admin {
            page.managers = try database.accounts.managers(storeId: store.id).map {
                ManageStorePage.ManagerRow(userId: $0.id.rawValue, email: $0.email, name: $0.displayName)
            }
        }
        adjust(&page)
        return views.page(title: store.name, section: .manage, context, page, status: httpStatus)
    }

    /// What the last action on the store page did, from the page's address.
    static func storeNotice(_ query: FormData) -> String? {
        if let notice = editNotice(query) ?? hoursNotice(query) { return notice }
        if query["pin"] == "set" { return tr("manage.staffPinDone") }
        if query["kiosk"] == "revoked" { return tr("manage.kioskRevoked") }
        if query["manager"] == "added" { return tr("manage.managerAdded") }
        if query["manager"] == "removed" { return tr("manage.managerRemoved") }
        if query["doorStaff"] == "added" { return tr("manage.doorStaffAdded") }
        if query["doorStaff"] == "removed" { return tr("manage.doorStaffRemoved") }
        if let cancelled = query["retired"].flatMap(Int.init) { return tr("retire.done", count: cancelled) }
        return nil
    }

    /// One recorded change in the reader's language: "Capacity: 40 → 50". The record keeps
    /// the field's column name and its values as stored; weekdays in recorded hours ("Mon
    /// 08:00–21:00") are read out in the reader's language.
    static func changeText(_ change: StoreChange) -> String {
        func value(_ text: String) -> String {
            switch change.field {
            case "hours":
                return text.split(separator: ",").map { part -> String in
                    let part = part.trimmingCharacters(in: .whitespaces)
                    guard let day = OpeningHours.weekdayNames.firstIndex(where: { part.hasPrefix($0.prefix(3) + " ") })
                    else { return part }
                    return Formatting.weekdayShort(day + 1) + part.dropFirst(3)
                }.joined(separator: ", ")
            case "store" where text == "registered": return tr("change.registered")
            case "store" where text == "retired": return tr("change.retired")
            case "kiosk" where text == "revoked": return tr("change.revoked")
            case "kiosk" where text == "enrolled": return tr("change.enrolled")
            case "manager" where text == "added": return tr("change.added")
            case "manager" where text == "removed": return tr("change.removed")
            case "doorStaff" where text == "added": return tr("change.added")
            case "doorStaff" where text == "removed": return tr("change.removed")
            case "staffPin" where text == "set": return tr("change.set")
            case "priorityEvery": return PriorityText.policy(PriorityLane(every: Int(text) ?? 0, online: false))
            case "priorityOnline": return PriorityText.online(text == "1")
            default: return text
            }
        }
        let field = Catalogue.text("change.\(change.field)") ?? change.field
        return "\(field): \(value(change.before)) → \(value(change.after))"
    }
}

extension ManageArea {
    /// A kiosk's last contact and what it said of itself, in words, flagged when it has been
    /// silent too long while the store is open.
    static func describe(_ kiosk: KioskHealth, in row: inout ManageStorePage.KioskRow, hours: OpeningHours,
                         script: String, now: Date)
    {
        guard let seenAt = kiosk.seenAt else {
            row.contact = tr("manage.neverSeen")
            return
        }
        let ago = max(0, now.timeIntervalSince(seenAt))
        if let silence = kiosk.silence(now: now, hours: hours) {
            row.silent = true
            row.contact = tr("manage.silentFor", ["time": Formatting.duration(silence)])
        } else {
            row.contact = ago < 60 ? tr("manage.seenJustNow") : tr("manage.seenAgo", ["time": Formatting.duration(ago)])
        }
        if kiosk.admitsOffline { row.reports.append(tr("manage.admitsOffline", ["holds": DoorConsole.holds(kiosk.heldPlaces)])) }
        if kiosk.queued > 0 { row.reports.append(tr("manage.heldOffline", count: kiosk.queued)) }
        row.reports.append(tr("manage.refusedToday", count: kiosk.refusedScans))
        if let offset = kiosk.clockOffsetMs, abs(offset) >= 60_000 {
            let minutes = String(Int((Double(abs(offset)) / 60_000).rounded()))
            row.reports.append(tr(offset < 0 ? "manage.clockFast" : "manage.clockSlow", ["minutes": minutes]))
        }
        if kiosk.version.wholeMatch(of: /[0-9a-f]{10}/) != nil {
            // A kiosk page's script fingerprint: the one pages link to now, or one before it.
            let current = script.contains(".\(kiosk.version).")
            row.reports.append(tr(current ? "manage.versionCurrent" : "manage.versionOlder", ["version": kiosk.version]))
        } else if !kiosk.version.isEmpty {
            row.reports.append(tr("manage.deviceVersion", ["version": kiosk.version]))
        }
    }
}
