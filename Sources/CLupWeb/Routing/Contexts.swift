import CLupDomain
import CLupData
import Foundation

/// What every handler can read about its request, whatever group it is in.
protocol HandlerContext {
    var base: RequestContext { get }
}

extension HandlerContext {
    var request: Request { base.request }
    var now: Date { base.now }
    /// The request reached the web server over TLS, so cookies must be `Secure`.
    var secure: Bool { base.request.isHTTPS }

    /// A route parameter that must be a positive id, else 404: a store's, a reservation's or an
    /// account's, as the caller expects.
    func id<Owner>(_ name: String = "id") throws(HTTPError) -> Identifier<Owner> {
        guard let value = base.parameters[name].flatMap({ Int64($0) }), value > 0 else { throw .notFound }
        return Identifier(rawValue: value)
    }
}

/// The request, its route's parameters, and the instant it is handled at (read once, so every
/// figure on a page is for the same moment).
struct RequestContext: HandlerContext, Sendable {
    var request: Request
    var parameters: [String: String]
    var now: Date

    var base: RequestContext { self }
}

/// A request from a browser: who sent it (session, kiosk cookie, CSRF token) and its form
/// fields, already checked against the CSRF token for an unsafe method.
protocol BrowserRequest: HandlerContext {
    var browser: BrowserContext { get }
}

extension BrowserRequest {
    var base: RequestContext { browser.base }
    var visitor: Visitor { browser.visitor }
    var form: FormData { browser.form }
}

struct BrowserContext: BrowserRequest {
    var base: RequestContext
    var visitor: Visitor
    var form = FormData()

    var browser: BrowserContext { self }
}

/// A signed-in person: `user` is who they are.
struct CustomerContext: BrowserRequest {
    var browser: BrowserContext
    var user: User
}

/// A signed-in manager, administrator or member of door staff.
struct ManagerContext: BrowserRequest {
    var browser: BrowserContext
    var user: User
}

/// A manager acting on `storeId`, which they manage (admins manage every store); on the door
/// console, also door staff of the store (`doorOfStore`).
struct ManagedStoreContext: BrowserRequest {
    var browser: BrowserContext
    var user: User
    var storeId: StoreID
}

/// The customer who owns the reservation in the address.
struct OwnedTicketContext: BrowserRequest {
    var browser: BrowserContext
    var user: User
    var owned: ReservationWithStore
}

/// A customer's own place on a waiting list.
struct OwnedWaitlistContext: BrowserRequest {
    var browser: BrowserContext
    var user: User
    var place: WaitlistPlace
}

/// An enrolled kiosk browser, acting for `kiosk.storeId` only.
struct KioskContext: BrowserRequest {
    var browser: BrowserContext
    var kiosk: Kiosk
}

/// A member of staff signed in at a door kiosk (`StaffPass`): with their own PIN (`person`) or
/// the store's shared one.
struct StaffContext: BrowserRequest {
    var browser: BrowserContext
    var kiosk: Kiosk
    var staffName: String
    var person: UserID?

    /// Where the door console is open, and who acts there.
    var place: DoorConsole.Place { .kiosk(kiosk, staffName: staffName, person: person) }
}

/// A device authenticated by its kiosk's key (no cookies read).
struct DeviceContext: HandlerContext {
    var base: RequestContext
    var kiosk: Kiosk
}
