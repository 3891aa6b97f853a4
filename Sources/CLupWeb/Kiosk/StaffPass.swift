import CLupData
import CLupSupport
import Foundation

/// A member of staff signed in at a door kiosk with the store's staff PIN: kept by that
/// browser in a cookie for `idleTimeout`, renewed by each request of the door console, so an
/// unattended console locks itself within minutes.
///
/// The cookie is `kioskId.lapsesAt.name` and a signature under the server's secret over those
/// and the PIN's current hash: it is worthless on another kiosk, after it lapses, and as soon
/// as a manager changes the PIN. Nothing is stored per pass.
struct StaffPass: Equatable {
    var kioskId: Int64
    var staffName: String
    /// Whole seconds since 1970.
    var lapsesAt: Int64

    static let idleTimeout: TimeInterval = 5 * 60

    static func cookieName(secure: Bool) -> String { Visitor.cookieName("clup_staff", secure: secure) }

    init(kioskId: Int64, staffName: String, now: Date) {
        self.kioskId = kioskId
        self.staffName = staffName
        self.lapsesAt = Int64((now + Self.idleTimeout).timeIntervalSince1970)
    }

    private var message: String {
        "\(kioskId).\(lapsesAt).\(Secrets.base64url(Array(staffName.utf8)))"
    }

    /// The cookie's value, signed for the PIN whose hash is `pinHash`.
    func value(signer: TicketToken, pinHash: String) -> String {
        message + "." + signer.signature(of: message + "|" + pinHash)
    }

    /// The pass a cookie holds, if it was made for `kiosk` under the PIN whose hash is `pinHash`
    /// and has not lapsed.
    static func read(_ value: String, kiosk: Kiosk, pinHash: String, signer: TicketToken, now: Date) -> StaffPass? {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard value.utf8.count <= 1_000, parts.count == 4, let kioskId = Int64(parts[0]), kioskId == kiosk.id,
            let lapsesAt = Int64(parts[1]), Double(lapsesAt) > now.timeIntervalSince1970,
            let name = Secrets.base64urlBytes(String(parts[2])).flatMap({ String(bytes: $0, encoding: .utf8) }),
            signer.isSignature(String(parts[3]), of: parts[0...2].joined(separator: ".") + "|" + pinHash)
        else { return nil }
        var pass = StaffPass(kioskId: kioskId, staffName: name, now: now)
        pass.lapsesAt = lapsesAt
        return pass
    }

    /// The cookie that carries a pass renewed from `now`.
    static func cookie(kioskId: Int64, staffName: String, pinHash: String, signer: TicketToken, now: Date, secure: Bool)
        -> Cookie
    {
        let pass = StaffPass(kioskId: kioskId, staffName: staffName, now: now)
        var cookie = Cookie(name: cookieName(secure: secure), value: pass.value(signer: signer, pinHash: pinHash),
                            maxAge: Int(idleTimeout), secure: secure)
        cookie.sameSite = "Strict"
        return cookie
    }

    static func signedOut(secure: Bool) -> Cookie {
        Cookie(name: cookieName(secure: secure), value: "", maxAge: 0, secure: secure)
    }
}
