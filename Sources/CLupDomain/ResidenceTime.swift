import Foundation

/// How long a customer says they will stay inside (R1): a preset, the sum of the departments
/// they will visit, or — once they have visited the store a few times — what they usually take.
public enum ResidenceTime {
    /// The choices offered (R1.1), in minutes.
    public static let presets = [15, 30, 45, 60, 75, 90, 105, 120]
    /// No visit is planned shorter than this, however few departments are chosen.
    public static let shortest = 15
    /// Nor longer than this, however many.
    public static let longest = 180
    /// What a visit is taken to last when nobody said (a ticket printed offline, first heard
    /// of at the door): the dispenser's preselected choice.
    public static let defaultMinutes = 30
    /// Visits needed before CLup proposes the customer's own median (R1.3).
    public static let visitsForHistory = 3

    /// From the departments' estimated minutes: their sum, rounded up to 5 minutes, kept
    /// between `shortest` and `longest`. Nil when none was chosen.
    public static func fromDepartments(_ minutes: [Int]) -> Int? {
        guard !minutes.isEmpty else { return nil }
        return clamp(roundUp(minutes.reduce(0, +)))
    }

    /// From the customer's actual visits to the store: the median, to the nearest 5 minutes.
    /// Nil until they have `visitsForHistory` visits.
    public static func fromVisits(_ durations: [TimeInterval]) -> Int? {
        guard durations.count >= visitsForHistory else { return nil }
        let sorted = durations.sorted()
        let middle = sorted.count / 2
        let median = sorted.count.isMultiple(of: 2) ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
        return clamp(Int((median / 60 / 5).rounded()) * 5)
    }

    /// Whether `minutes` is a residence time a form may carry.
    public static func isValid(_ minutes: Int) -> Bool {
        (shortest...longest).contains(minutes)
    }

    private static func roundUp(_ minutes: Int) -> Int { (minutes + 4) / 5 * 5 }
    private static func clamp(_ minutes: Int) -> Int { min(longest, max(shortest, minutes)) }
}
