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

    /// Wrong PINs are throttled as sign-ins are (`SignInThrottle`), with the store's shared PIN
    /// or the person's own as the account and the kiosk as the client: per kiosk, five free in
    /// 15 minutes then a wait that doubles; per PIN across all kiosks, at most 100 an hour. Never by the
    /// kiosk's network address, which the shop's guest Wi-Fi may share with strangers'
    /// failed web sign-ins.
    public static func throttleAccount(storeId: Int64) -> String { "staff-pin:store:\(storeId)" }
    /// A person's own door PIN, across every kiosk of their stores.
    public static func throttleAccount(person: Int64) -> String { "staff-pin:person:\(person)" }
    public static func throttleClient(kioskId: Int64) -> String { "staff-pin:kiosk:\(kioskId)" }
}
