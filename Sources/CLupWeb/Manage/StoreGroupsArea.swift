import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// The chain's regions, for administrators: create one, put stores in it, and name the
/// managers who manage every store in it (`/manage/groups`).
extension ManageArea {
    func groupsPage(_ context: ManagerContext) throws -> Response {
        try groupsPage(context, name: "", error: nil)
    }

    /// A region's name from the form, or what is wrong with it.
    private static func groupName(_ form: FormData) -> (name: String, problem: String?) {
        let name = (form["name"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return (name, name.isEmpty ? tr("groups.giveName") : textProblem(name, maxLength: 60))
    }

    func createGroup(_ context: ManagerContext) throws -> Response {
        let (name, problem) = Self.groupName(context.form)
        if let problem { return try groupsPage(context, name: name, error: problem, status: 422) }
        do {
            let id = try database.stores.createGroup(name: name, now: context.now)
            return .redirect(to: Paths.manageGroup(id, query: "done=created"))
        } catch StoreGroupError.nameTaken {
            return try groupsPage(context, name: name, error: tr("groups.nameTaken", ["name": name]), status: 422)
        }
    }

    func groupPage(_ context: ManagerContext) throws -> Response {
        try groupPage(context, status: 200) { _ in }
    }

    /// Puts the stores ticked in the region (a store in another region moves).
    func addGroupStores(_ context: ManagerContext) throws -> Response {
        let group = try group(context)
        let ids = context.form.all("store").compactMap { Int64($0) }.map(StoreID.init(rawValue:))
        guard !ids.isEmpty else {
            return try groupPage(context, status: 422) { $0.notice = tr("groups.tickStores") }
        }
        let moved = try database.stores.addToGroup(group.id, storeIds: ids, now: context.now, loggedAs: .user(context.user.id))
        return .redirect(to: Paths.manageGroup(group.id, query: "added=\(moved)") + "#stores")
    }

    func removeGroupStore(_ context: ManagerContext) throws -> Response {
        let group = try group(context)
        guard let id = context.form["store"].flatMap({ Int64($0) }),
            try database.stores.removeFromGroup(group.id, storeId: StoreID(rawValue: id), now: context.now,
                                                loggedAs: .user(context.user.id))
        else { throw HTTPError.notFound }
        return .redirect(to: Paths.manageGroup(group.id, query: "done=storeRemoved") + "#stores")
    }

    func addGroupManager(_ context: ManagerContext) throws -> Response {
        let group = try group(context)
        let email = String((context.form["email"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines).prefix(254))
        func refused(_ message: String) throws -> Response {
            try groupPage(context, status: 422) { page in
                page.managerEmail = email
                page.managerError = message
            }
        }
        do {
            guard try database.stores.addGroupManager(group.id, email: email) else {
                return try refused(tr("groups.managerAlready", ["email": email]))
            }
        } catch AccountError.noSuchUser {
            return try refused(tr("manage.managerNoAccount"))
        }
        return .redirect(to: Paths.manageGroup(group.id, query: "done=managerAdded") + "#managers")
    }

    func removeGroupManager(_ context: ManagerContext) throws -> Response {
        let group = try group(context)
        guard let id = context.form["user"].flatMap({ Int64($0) }),
            try database.stores.removeGroupManager(group.id, userId: UserID(rawValue: id))
        else { throw HTTPError.notFound }
        return .redirect(to: Paths.manageGroup(group.id, query: "done=managerRemoved") + "#managers")
    }

    func renameGroup(_ context: ManagerContext) throws -> Response {
        let group = try group(context)
        let (name, problem) = Self.groupName(context.form)
        func refused(_ message: String) throws -> Response {
            try groupPage(context, status: 422) { page in
                page.newName = name
                page.nameError = message
            }
        }
        if let problem { return try refused(problem) }
        do {
            try database.stores.renameGroup(group.id, to: name, now: context.now, loggedAs: .user(context.user.id))
        } catch StoreGroupError.nameTaken {
            return try refused(tr("groups.nameTaken", ["name": name]))
        }
        return .redirect(to: Paths.manageGroup(group.id, query: "done=renamed"))
    }

    func deleteGroup(_ context: ManagerContext) throws -> Response {
        let group = try group(context)
        let left = try database.stores.deleteGroup(group.id, now: context.now, loggedAs: .user(context.user.id))
        return .redirect(to: Paths.manageGroups(query: "deleted=\(left)"))
    }

    /// The region in the address; a 404 if there is none.
    private func group(_ context: ManagerContext) throws -> StoreGroup {
        let id: Identifier<StoreGroup> = try context.id()
        guard let group = try database.stores.group(id: id.rawValue) else { throw HTTPError.notFound }
        return group
    }

    private func groupsPage(_ context: ManagerContext, name: String, error: String?, status: Int = 200) throws -> Response {
        var page = StoreGroupsPage(groups: try database.stores.groups().map {
            StoreGroupsPage.Row(id: $0.id, name: $0.name, stores: $0.stores, managers: $0.managers)
        })
        page.name = name
        page.error = error
        page.notice = context.request.query["deleted"].flatMap(Int.init).map { tr("groups.deleted", count: $0) }
        return views.page(title: tr("groups.title"), section: .manage, context, page, status: status)
    }

    private func groupPage(_ context: ManagerContext, status: Int, adjust: (inout StoreGroupPage) -> Void) throws -> Response {
        let group = try group(context)
        let regionOf = try database.stores.regions()
        let names = Dictionary(uniqueKeysWithValues: try database.stores.groups().map { ($0.id, $0.name) })
        let stores = database.board.entries().map(\.store)
        func row(_ store: Store) -> StoreGroupPage.StoreRow {
            StoreGroupPage.StoreRow(id: store.id.rawValue, name: store.name, address: store.address,
                                    region: regionOf[store.id].flatMap { names[$0] } ?? "")
        }
        var page = StoreGroupPage(
            id: group.id, name: group.name,
            stores: stores.filter { regionOf[$0.id] == group.id }.map(row),
            others: stores.filter { regionOf[$0.id] != group.id }.map(row),
            managers: try database.stores.groupManagers(group.id).map {
                ManageStorePage.ManagerRow(userId: $0.id.rawValue, email: $0.email, name: $0.displayName)
            })
        let query = context.request.query
        if let added = query["added"].flatMap(Int.init) {
            page.notice = tr("groups.added", count: added)
        } else if let done = query["done"], ["created", "storeRemoved", "managerAdded", "managerRemoved", "renamed"].contains(done) {
            page.notice = tr("groups.done.\(done)")
        }
        adjust(&page)
        return views.page(title: group.name, section: .manage, context, page, status: status)
    }
}
