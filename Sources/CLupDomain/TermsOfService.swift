/// The terms of service in force: their version, and the day it took effect. Sign-up records
/// the version an account accepted; an account on an older one (or none: made by an
/// administrator, or before there were terms) is asked to accept this one when it signs in,
/// and cannot reserve or use its account pages until it has.
///
/// Publishing a new version: change the text (the `terms.*` entries of both catalogues),
/// raise `version`, set `effective`.
public enum TermsOfService {
    public static let version = 1
    /// The day the version took effect (YYYY-MM-DD).
    public static let effective = LocalDate(day: LocalDate.dayNumber(year: 2026, month: 11, day: 25))

    /// Whether an account that accepted `accepted` (nil: none) must accept the current terms.
    public static func mustAccept(_ accepted: Int?) -> Bool {
        (accepted ?? 0) < version
    }
}
