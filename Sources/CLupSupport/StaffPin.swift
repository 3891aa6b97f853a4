/// The PIN a store's staff give at a door kiosk to open its door console. Set by the store's
/// managers, kept as an argon2id hash (`PasswordHasher`) like a password; wrong PINs are
/// throttled per kiosk like sign-ins (`SignInThrottle`), so six digits are enough.
public enum StaffPin {
    public static let lengths = 6...12

    /// Digits only, so it is typed on any kiosk's keypad.
    public static func isAcceptable(_ pin: String) -> Bool {
        lengths.contains(pin.utf8.count) && pin.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    /// The rule, for the command line.
    public static let rule = "the staff PIN must be 6 to 12 digits"

    /// The throttle's account name for wrong PINs typed at one kiosk.
    public static func throttleAccount(kioskId: Int64) -> String { "staff-pin:kiosk:\(kioskId)" }
}
