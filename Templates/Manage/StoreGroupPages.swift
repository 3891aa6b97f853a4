import CLupPaths
import CLupText

/// The chain's regions: each with its stores and managers, and the form that adds one.
public struct StoreGroupsPage: Page {
    public struct Row: Sendable {
        public var id: Int64
        public var name: String
        public var stores: Int
        public var managers: Int

        public init(id: Int64, name: String, stores: Int, managers: Int) {
            (self.id, self.name, self.stores, self.managers) = (id, name, stores, managers)
        }
    }

    public var groups: [Row]
    /// The name typed for a new region, and what is wrong with it.
    public var name = ""
    public var error: String?
    public var notice: String?

    public init(groups: [Row]) {
        self.groups = groups
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(Paths.manageOverview())">← \(tr("overview.title"))</a></p>
            <h1>\(tr("groups.title"))</h1>
            <p class="fine">\(tr("groups.lead"))</p>
            \(Fragments.notice(notice))
            <ul class="rows">
              \(groups.map { "<li><a href=\"\(Paths.manageGroup($0.id))\"><strong>\($0.name)</strong></a> <span class=\"fine\">\(tr("groups.counts", ["stores": String($0.stores), "managers": String($0.managers)]))</span></li>" as HTML })
            </ul>
            \(if: groups.isEmpty, "<p class=\"empty\">\(tr("groups.none"))</p>")
            <section class="panel">
              <h2>\(tr("groups.new"))</h2>
              <form method="post" action="\(Paths.manageGroups())" class="inline-form">
                \(frame.csrfField)
                <label>\(tr("groups.name"))
                  <input name="name" required maxlength="60" autocomplete="off" value="\(name)"\(Fragments.invalid(error, describedBy: "group-name-error"))>
                </label>
                <button type="submit">\(tr("groups.create"))</button>
              </form>
              \(Fragments.fieldError(error, id: "group-name-error"))
            </section>
            """)
    }
}

/// One region: its stores (each with a button that takes it out), the stores that can be put
/// in it, and its managers.
public struct StoreGroupPage: Page {
    public struct StoreRow: Sendable {
        public var id: Int64
        public var name: String
        public var address: String
        /// For a store that can be added: the region it is in now ("" for none).
        public var region: String

        public init(id: Int64, name: String, address: String, region: String = "") {
            (self.id, self.name, self.address, self.region) = (id, name, address, region)
        }
    }

    public var id: Int64
    public var name: String
    public var stores: [StoreRow]
    public var others: [StoreRow]
    public var managers: [ManageStorePage.ManagerRow]
    public var notice: String?
    public var managerEmail = ""
    public var managerError: String?
    /// The new name typed, and what is wrong with it.
    public var newName: String?
    public var nameError: String?

    public init(id: Int64, name: String, stores: [StoreRow], others: [StoreRow], managers: [ManageStorePage.ManagerRow]) {
        (self.id, self.name, self.stores, self.others, self.managers) = (id, name, stores, others, managers)
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(Paths.manageGroups())">← \(tr("groups.title"))</a></p>
            <h1>\(name)</h1>
            <p class="actions"><a href="\(Paths.manageOverview(query: "region=\(id)"))">\(tr("groups.overview"))</a></p>
            \(Fragments.notice(notice))
            <section class="panel" id="stores">
              <h2>\(tr("groups.stores"))</h2>
              \(if: stores.isEmpty, "<p>\(tr("groups.noStores"))</p>")
              <ul class="changes">
                \(stores.map { store in
                    "<li><a href=\"\(Paths.manageStore(store.id))\">\(store.name)</a> <span class=\"fine\">\(store.address)</span> <form method=\"post\" action=\"\(Paths.manageGroupStoreRemove(id))\" class=\"inline\">\(frame.csrfField)<input type=\"hidden\" name=\"store\" value=\"\(store.id)\"><button type=\"submit\" class=\"link\">\(tr("manage.managerRemove"))</button></form></li>" as HTML
                })
              </ul>
              \(if: !others.isEmpty, """
                  <form method="post" action="\(Paths.manageGroupStores(id))" class="stack">
                    \(frame.csrfField)
                    <fieldset class="store-picker">
                      <legend>\(tr("groups.addStores"))</legend>
                      \(others.map { store in
                          "<label class=\"check\"><input type=\"checkbox\" name=\"store\" value=\"\(store.id)\"> \(store.name) <span class=\"fine\">\(store.address)\(store.region.isEmpty ? "" : " · " + tr("groups.inRegion", ["region": store.region]))</span></label>" as HTML
                      })
                    </fieldset>
                    <button type="submit">\(tr("groups.addButton"))</button>
                  </form>
                  """)
            </section>
            <section class="panel" id="managers">
              <h2>\(tr("groups.managers"))</h2>
              <p class="fine">\(tr("groups.managersHelp"))</p>
              \(if: managers.isEmpty, "<p>\(tr("groups.noManagers"))</p>")
              <ul class="changes">
                \(managers.map { manager in
                    "<li>\(manager.name) · \(manager.email) <form method=\"post\" action=\"\(Paths.manageGroupManagerRemove(id))\" class=\"inline\">\(frame.csrfField)<input type=\"hidden\" name=\"user\" value=\"\(manager.userId)\"><button type=\"submit\" class=\"link\" data-confirm=\"\(tr("groups.managerRemoveQuestion", ["email": manager.email, "region": name]))\">\(tr("manage.managerRemove"))</button></form></li>" as HTML
                })
              </ul>
              <form method="post" action="\(Paths.manageGroupManagers(id))" class="inline-form">
                \(frame.csrfField)
                <label>\(tr("manage.managerEmail"))
                  <input type="email" name="email" required maxlength="254" autocomplete="off" value="\(managerEmail)"\(Fragments.invalid(managerError, describedBy: "group-manager-error"))>
                </label>
                <button type="submit">\(tr("manage.managerAdd"))</button>
              </form>
              \(Fragments.fieldError(managerError, id: "group-manager-error"))
            </section>
            <section class="panel" id="region">
              <h2>\(tr("groups.region"))</h2>
              <form method="post" action="\(Paths.manageGroupRename(id))" class="inline-form">
                \(frame.csrfField)
                <label>\(tr("groups.name"))
                  <input name="name" required maxlength="60" autocomplete="off" value="\(newName ?? name)"\(Fragments.invalid(nameError, describedBy: "group-rename-error"))>
                </label>
                <button type="submit" class="secondary">\(tr("groups.rename"))</button>
              </form>
              \(Fragments.fieldError(nameError, id: "group-rename-error"))
              <p class="fine">\(tr("groups.deleteHelp"))</p>
              <form method="post" action="\(Paths.manageGroupDelete(id))">
                \(frame.csrfField)
                <button type="submit" class="danger" data-confirm="\(tr("groups.deleteQuestion", ["region": name]))">\(tr("groups.delete"))</button>
              </form>
            </section>
            """)
    }
}
