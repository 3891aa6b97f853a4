import CLupData
import CLupDomain
import CLupSupport
import Foundation

/// A member of staff signed in at a door kiosk, with a PIN of their own (`person`, their
/// account) or with the store's shared staff PIN and the name they typed: kept by that browser
/// in a cookie for `idleTimeout`, renewed by each request of the door console, so an
/// unattended console locks itself within minutes.
///
/// The cookie is `kioskId.lapsesAt.person.name` (person 0: the shared PIN) and a signature
/// under the server's secret over those and the PIN's current hash: it is worthless on another
/// kiosk, after it lapses, and as soon as the PIN changes — or, for a person, once they are no
/// longer the store's door staff. Nothing is stored per pass.
struct StaffPass: Equatable {
    var kioskId: Int64
    var staffName: String
    /// The account signed in with its own PIN; nil: the store's shared PIN.
    var person: UserID?
    /// Whole seconds since 1970.
    var lapsesAt: Int64

    static let idleTimeout: TimeInterval = 5 * 60

    static func cookieName(secure: Bool) -> String { Visitor.cookieName("clup_staff", secure: secure) }

    init(kioskId: Int64, staffName: String, person: UserID?, now: Date) {
        self.kioskId = kioskId
        self.staffName = staffName
        self.person = person
        self.lapsesAt = Int64((now + Self.idleTimeout).timeIntervalSince1970)
    }

    private var message: String {
        "\(kioskId).\(lapsesAt).\(person?.rawValue ?? 0).\(Secrets.base64url(Array(staffName.utf8)))"
    }

    /// The cookie's value, signed for the PIN whose hash is `pinHash`.
    func value(signer: TicketToken, pinHash: String) -> String {
        message + "." + signer.signature(of: message + "|" + pinHash)
    }

    /// The pass a cookie holds, if it was made for `kiosk` under the PIN whose hash
    /// `pinHash(person)` gives now (nil: no such PIN any more) and has not lapsed.
    static func read(_ value: String, kiosk: Kiosk, pinHash: (UserID?) throws -> String?, signer: TicketToken, now: Date)
        rethrows -> StaffPass?
    {
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard value.utf8.count <= 1_000, parts.count == 5, let kioskId = Int64(parts[0]), kioskId == kiosk.id,
            let lapsesAt = Int64(parts[1]), Double(lapsesAt) > now.timeIntervalSince1970,
            let personId = Int64(parts[2]), personId >= 0,
            let name = Secrets.base64urlBytes(String(parts[3])).flatMap({ String(bytes: $0, encoding: .utf8) })
        else { return nil }
        let person = personId == 0 ? nil : UserID(rawValue: personId)
        guard let hash = try pinHash(person),
            signer.isSignature(String(parts[4]), of: parts[0...3].joined(separator: ".") + "|" + hash)
        else { return nil }
        var pass = StaffPass(kioskId: kioskId, staffName: name, person: person, now: now)
        pass.lapsesAt = lapsesAt
        return pass
    }

    /// The cookie that carries this pass renewed from `now`.
    func cookie(pinHash: String, signer: TicketToken, now: Date, secure: Bool) -> Cookie {
        let pass = StaffPass(kioskId: kioskId, staffName: staffName, person: person, now: now)
        var cookie = Cookie(name: Self.cookieName(secure: secure), value: pass.value(signer: signer, pinHash: pinHash),
                            maxAge: Int(Self.idleTimeout), secure: secure)
        cookie.sameSite = "Strict"
        return cookie
    }

    static func signedOut(secure: Bool) -> Cookie {
        Cookie(name: cookieName(secure: secure), value: "", maxAge: 0, secure: secure)
    }
}
