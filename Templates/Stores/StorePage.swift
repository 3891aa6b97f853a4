import CLupPaths
import CLupText

/// One store: its live figures, address and phone, the week's hours and its departments.
public struct StorePage: Page {
    public struct Day: Sendable {
        public var name: String
        public var hours: String
        public var isToday: Bool

        public init(name: String, hours: String, isToday: Bool) {
            self.name = name
            self.hours = hours
            self.isToday = isToday
        }
    }

    public struct DepartmentRow: Sendable {
        public var name: String
        public var minutes: Int

        public init(name: String, minutes: Int) {
            self.name = name
            self.minutes = minutes
        }
    }

    public var card: StoreCard
    public var phone: String
    public var phoneHref: String
    public var timeZone: String
    public var days: [Day]
    public var departments: [DepartmentRow]
    public var backHref: String
    public var reserveHref: String
    public var positionLabel: String
    public var notice: String?

    public init(card: StoreCard, phone: String, phoneHref: String, timeZone: String, days: [Day],
                departments: [DepartmentRow], backHref: String, reserveHref: String, positionLabel: String,
                notice: String?)
    {
        self.card = card
        self.phone = phone
        self.phoneHref = phoneHref
        self.timeZone = timeZone
        self.days = days
        self.departments = departments
        self.backHref = backHref
        self.reserveHref = reserveHref
        self.positionLabel = positionLabel
        self.notice = notice
    }

    public func render(in frame: Frame) -> HTML {
        frame.site("""
            <p class="back"><a href="\(backHref)">← \(tr("store.allStores"))</a></p>
            \(Fragments.notice(notice))
            <section class="store-head">
              <h1><span class="light light-\(card.summary.light)" aria-hidden="true"></span> \(card.summary.name)</h1>
              <p class="status status-\(card.summary.light)">\(card.summary.statusLine)</p>
            </section>
            <p class="cta"><a class="button" href="\(reserveHref)">\(tr("store.reserve"))</a> <a class="button secondary" href="\(Paths.storeStats(card.summary.id))">\(tr("card.busyTimes"))</a></p>

            <dl class="facts">
              <div><dt>\(tr("store.estimatedWait"))</dt><dd>\(card.summary.wait)</dd></div>
              <div><dt>\(tr("store.peopleInside"))</dt><dd>\(tr("store.insideOf", ["inside": String(card.summary.peopleInside), "capacity": String(card.summary.capacity)]))</dd></div>
              <div><dt>\(tr("card.distance"))</dt><dd>\(tr("store.distanceFrom", ["distance": card.distance, "from": positionLabel]))</dd></div>
              <div><dt>\(tr("store.travelTime"))</dt><dd>\(card.travel)</dd></div>
            </dl>

            <section class="panel">
              <h2>\(tr("store.addressPhone"))</h2>
              <p>\(card.summary.address)</p>
              <p><a href="\(phoneHref)">\(phone)</a></p>
            </section>

            <section class="panel">
              <h2>\(tr("store.hours"))</h2>
              <table class="hours">
                <tbody>
                \(days.map { day in
                    "<tr\(if: day.isToday, " class=\"today\"")><th scope=\"row\">\(day.name)\(if: day.isToday, " (\(tr("store.todayMark")))")</th><td>\(day.hours)</td></tr>"
                })
                </tbody>
              </table>
              <p class="fine">\(tr("store.localTimes", ["zone": timeZone]))</p>
            </section>

            <section class="panel">
              <h2>\(tr("store.departments"))</h2>
              \(departments.isEmpty ? "<p>\(tr("store.noDepartments"))</p>" : departmentList)
            </section>
            """)
    }

    private var departmentList: HTML {
        """
        <p class="fine">\(tr("store.departmentsHint"))</p>
          <ul class="departments">
            \(departments.map { "<li><span>\($0.name)</span> <span class=\"minutes\">\(tr("unit.minutes", ["n": String($0.minutes)]))</span></li>" })
          </ul>
        """
    }
}
