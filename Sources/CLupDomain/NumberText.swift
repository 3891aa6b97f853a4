/// Numbers written for pages without Foundation's `String(format:)`, which goes through
/// `CVarArg` boxing and CoreFoundation and was the largest single cost of rendering the store
/// list.
public enum NumberText {
    /// "07", "12": at least two digits.
    public static func twoDigits(_ value: Int) -> String {
        value >= 0 && value < 10 ? "0" + String(value) : String(value)
    }

    /// "14:05" for minutes since midnight (or seconds, with `seconds: true`).
    public static func clock(hours: Int, minutes: Int) -> String {
        twoDigits(hours) + ":" + twoDigits(minutes)
    }

    /// `value` with exactly `digits` digits after the point, as `%.Nf` writes it (ties to even,
    /// a negative value that rounds to zero keeps its sign): `fixed(45.464172, digits: 5)` is
    /// "45.46417".
    public static func fixed(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return String(value) }
        var scale = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = (abs(value) * Double(scale)).rounded(.toNearestOrEven)
        guard scaled < 9.0e15 else { return String(value) }
        let units = Int(scaled)
        let whole = units / scale
        let fraction = units % scale
        var text = value.sign == .minus ? "-" : ""
        text += String(whole)
        guard digits > 0 else { return text }
        let fractionText = String(fraction)
        text += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        return text
    }
}
