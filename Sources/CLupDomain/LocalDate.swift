/// A calendar date with no zone: a store-local day number (days since 1970-01-01) read as
/// year, month and day, as a date field sends it and a person writes it.
public struct LocalDate: Sendable, Hashable, Comparable {
    public let day: Int

    public init(day: Int) {
        self.day = day
    }

    /// The date of "2026-12-25"; nil unless it is a real date in that form.
    public init?(text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let dayOfMonth = Int(parts[2]),
              (1...12).contains(month), (1...Self.days(inMonth: month, year: year)).contains(dayOfMonth)
        else { return nil }
        self.init(day: Self.dayNumber(year: year, month: month, day: dayOfMonth))
    }

    /// Year, month (1–12) and day of the month (1–31), by the proleptic Gregorian calendar.
    public var components: (year: Int, month: Int, day: Int) {
        // Days since 0000-03-01, counted in 400-year eras of 146,097 days (Hinnant's method).
        let shifted = day + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let dayOfMonth = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, dayOfMonth)
    }

    /// "2026-12-25", as a date field reads and writes it.
    public var text: String {
        let (year, month, day) = components
        return "\(year)-" + NumberText.twoDigits(month) + "-" + NumberText.twoDigits(day)
    }

    /// ISO weekday: 1 = Monday … 7 = Sunday.
    public var weekday: Int { ZoneOffsets.isoWeekday(day: day) }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.day < rhs.day }

    static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let year = month <= 2 ? year - 1 : year
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
