import CLupPaths

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
            <p class="back"><a href="\(backHref)">← All stores</a></p>
            \(Fragments.notice(notice))
            <section class="store-head">
              <h1><span class="light light-\(card.summary.light)" aria-hidden="true"></span> \(card.summary.name)</h1>
              <p class="status status-\(card.summary.light)">\(card.summary.reason) · \(card.summary.openText)</p>
            </section>
            <p class="cta"><a class="button" href="\(reserveHref)">Line up or book a visit</a> <a class="button secondary" href="\(Paths.storeStats(card.summary.id))">Busy times</a></p>

            <dl class="facts">
              <div><dt>Estimated wait</dt><dd>\(card.summary.wait)</dd></div>
              <div><dt>People inside</dt><dd>\(card.summary.peopleInside) of \(card.summary.capacity)</dd></div>
              <div><dt>Distance</dt><dd>\(card.distance) from \(positionLabel)</dd></div>
              <div><dt>Travel time</dt><dd>\(card.travel)</dd></div>
            </dl>

            <section class="panel">
              <h2>Address and phone</h2>
              <p>\(card.summary.address)</p>
              <p><a href="\(phoneHref)">\(phone)</a></p>
            </section>

            <section class="panel">
              <h2>Opening hours</h2>
              <table class="hours">
                <tbody>
                \(days.map { day in
                    "<tr\(if: day.isToday, " class=\"today\"")><th scope=\"row\">\(day.name)\(if: day.isToday, " (today)")</th><td>\(day.hours)</td></tr>"
                })
                </tbody>
              </table>
              <p class="fine">Times are local (\(timeZone)).</p>
            </section>

            <section class="panel">
              <h2>Departments</h2>
              \(departments.isEmpty ? "<p>This store has not listed its departments.</p>" : departmentList)
            </section>
            """)
    }

    private var departmentList: HTML {
        """
        <p class="fine">Typical time spent in each, to help you plan your visit.</p>
          <ul class="departments">
            \(departments.map { "<li><span>\($0.name)</span> <span class=\"minutes\">\($0.minutes) min</span></li>" })
          </ul>
        """
    }
}
