import CLupPaths

/// The stores a manager manages (every store, for an admin).
public struct ManagePage: Page {
    public struct Row: Sendable {
        public var id: Int64
        public var name: String
        public var address: String

        public init(id: Int64, name: String, address: String) {
            self.id = id
            self.name = name
            self.address = address
        }
    }

    public var stores: [Row]

    public init(stores: [Row]) {
        self.stores = stores
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <h1>Your stores</h1>
            <ul class="rows">
              \(stores.map { "<li><a href=\"\(Paths.manageStore($0.id))\"><strong>\($0.name)</strong></a> <span class=\"fine\">\($0.address)</span></li>" })
            </ul>
            \(if: stores.isEmpty, "<p class=\"empty\">No stores are assigned to you yet. Ask an administrator to assign yours.</p>")
            """)
    }
}

/// One managed store: its live figures and its entrance kiosks.
public struct ManageStorePage: Page {
    public struct KioskRow: Sendable {
        public var id: Int64
        public var label: String
        public var enrolled: String
        public var revoked: Bool

        public init(id: Int64, label: String, enrolled: String, revoked: Bool) {
            self.id = id
            self.label = label
            self.enrolled = enrolled
            self.revoked = revoked
        }
    }

    public var id: Int64
    public var name: String
    public var address: String
    public var capacity: Int
    public var peopleInside: Int
    public var wait: String
    public var light: String
    public var reason: String
    public var kiosks: [KioskRow]
    public var bookings: [BookingRow] = []

    /// A booking coming up, and whether its customer confirmed it.
    public struct BookingRow: Sendable {
        public var slot: String
        public var number: Int
        public var people: Int
        public var answer: String

        public init(slot: String, number: Int, people: Int, answer: String) {
            self.slot = slot
            self.number = number
            self.people = people
            self.answer = answer
        }
    }

    public init(id: Int64, name: String, address: String, capacity: Int, peopleInside: Int, wait: String,
                light: String, reason: String, kiosks: [KioskRow])
    {
        self.id = id
        self.name = name
        self.address = address
        self.capacity = capacity
        self.peopleInside = peopleInside
        self.wait = wait
        self.light = light
        self.reason = reason
        self.kiosks = kiosks
    }

    /// "2 active", "1 active, 1 revoked", "none".
    public var kioskSummary: String {
        let revoked = kiosks.filter(\.revoked).count
        let active = kiosks.count - revoked
        if kiosks.isEmpty { return "none" }
        return revoked == 0 ? "\(active) active" : "\(active) active, \(revoked) revoked"
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(Paths.manage())">← Your stores</a></p>
            <h1><span class="light light-\(light)" aria-hidden="true"></span> \(name)</h1>
            <p class="fine">\(address) · <a href="\(Paths.store(id))">public page</a></p>
            <p><a class="button" href="\(Paths.manageStoreStats(id))">Statistics</a></p>
            <dl class="facts">
              <div><dt>Status</dt><dd>\(reason)</dd></div>
              <div><dt>People inside</dt><dd>\(peopleInside) of \(capacity)</dd></div>
              <div><dt>Estimated wait</dt><dd>\(wait)</dd></div>
              <div><dt>Kiosks</dt><dd>\(kioskSummary)</dd></div>
            </dl>
            <section class="panel">
              <h2>Entrance kiosks</h2>
              <p class="fine">Kiosks are enrolled and revoked by an administrator (<code>clup admin enrol-kiosk</code>). To set one up, open <a href="\(Paths.kiosk())">\(Paths.kiosk.pattern)</a> in the entrance browser and enter its device key: it then offers the ticket dispenser, the scanner and the “now calling” screen. Scanner and dispenser hardware use the <a href="\(Paths.apiDescription)">device API</a> with the same key.</p>
              <table class="hours">
                <thead><tr><th>#</th><th>Label</th><th>Enrolled</th><th>State</th></tr></thead>
                <tbody>
                \(kiosks.map { "<tr><td>\($0.id)</td><td>\($0.label)</td><td>\($0.enrolled)</td><td>\($0.revoked ? "revoked" : "active")</td></tr>" })
                </tbody>
              </table>
              \(if: kiosks.isEmpty, "<p>No kiosk is enrolled for this store.</p>")
            </section>
            <section class="panel">
              <h2>Bookings in the next 24 hours</h2>
              <p class="fine">Customers are reminded 2 hours before their slot and asked to confirm; a booking not confirmed within the hour is cancelled and its place freed.</p>
              <table class="hours">
                <thead><tr><th>Slot</th><th>No.</th><th>People</th><th>Confirmation</th></tr></thead>
                <tbody>
                \(bookings.map { "<tr><td>\($0.slot)</td><td>\($0.number)</td><td>\($0.people)</td><td>\($0.answer)</td></tr>" })
                </tbody>
              </table>
              \(if: bookings.isEmpty, "<p>No booking in the next 24 hours.</p>")
            </section>
            """)
    }
}
