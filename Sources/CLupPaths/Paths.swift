/// Every address of the site, in one table: the router registers routes with these values and
/// pages build links from them, so a link cannot drift from the route it points to. A route
/// test matches each one back through the router.
///
/// Patterns are written as the router reads them: `/`-separated segments, a `{name}` segment
/// capturing one segment. Every parameterised path here has exactly one parameter, an id.
public enum Paths {
    // Stores
    public static let home = FixedPath("/")
    public static let store = IdPath("/stores/{id}")
    public static let storeStats = IdPath("/stores/{id}/stats")
    public static let health = FixedPath("/healthz")
    /// Prometheus' scrape: this machine, or a bearer token.
    public static let metrics = FixedPath("/metrics")

    // Accounts
    public static let signUp = FixedPath("/signup")
    public static let signIn = FixedPath("/signin")
    public static let signOut = FixedPath("/signout")
    public static let signOutEverywhere = FixedPath("/signout/everywhere")
    public static let confirm = FixedPath("/confirm")
    public static let resendConfirmation = FixedPath("/confirm/resend")
    /// Where an account not yet confirmed is sent when it tries to reserve (`?next=` the page).
    public static let confirmFirst = FixedPath("/confirm/first")
    public static let forgot = FixedPath("/forgot")
    public static let reset = FixedPath("/reset")
    public static let account = FixedPath("/account")
    public static let accountProfile = FixedPath("/account/profile")
    public static let accountPassword = FixedPath("/account/password")
    public static let accountEmail = FixedPath("/account/email")
    public static let accountDoorPin = FixedPath("/account/door-pin")
    public static let confirmEmailChange = FixedPath("/confirm/email")
    public static let accountDelete = FixedPath("/account/delete")
    public static let accountNotifications = FixedPath("/account/notifications")
    /// This browser's push subscription: POST keeps it, POST to `…/remove` forgets it.
    public static let accountPush = FixedPath("/account/push")
    public static let accountPushRemove = FixedPath("/account/push/remove")
    /// "Download my data": everything CLup holds about the account, as JSON.
    public static let accountData = FixedPath("/account/data")
    /// What CLup stores about people, why, for how long and who sees it.
    public static let privacy = FixedPath("/privacy")
    /// The terms of service in force; `…/accept` asks an account to accept them.
    public static let terms = FixedPath("/terms")
    public static let termsAccept = FixedPath("/terms/accept")
    /// Switches the pages' language to the one the path names (`/it?back=/stores/3`) and
    /// remembers it in a cookie.
    public static let english = FixedPath("/en")
    public static let italian = FixedPath("/it")

    // Reservations: the wizard, tickets, my reservations
    public static let reserve = IdPath("/stores/{id}/reserve")
    public static let reserveHow = IdPath("/stores/{id}/reserve/how")
    public static let reserveSlots = IdPath("/stores/{id}/reserve/slots")
    public static let reserveRecap = IdPath("/stores/{id}/reserve/recap")
    public static let storeReservations = IdPath("/stores/{id}/reservations")
    public static let reservations = FixedPath("/reservations")
    public static let ticket = IdPath("/reservations/{id}")
    public static let ticketStatus = IdPath("/reservations/{id}/status")
    public static let ticketImage = IdPath("/reservations/{id}/qr.png")
    public static let ticketCancel = IdPath("/reservations/{id}/cancel")
    public static let ticketTravel = IdPath("/reservations/{id}/travel")
    /// Where the customer is now, sent by the ticket page's script with their consent (POST).
    public static let ticketPosition = IdPath("/reservations/{id}/position")
    public static let ticketConfirm = IdPath("/reservations/{id}/confirm")
    /// Joining a full slot's waiting list (POST), and a place on one: the page, accepting the
    /// place offered, leaving (declining an offer, too).
    public static let storeWaitlist = IdPath("/stores/{id}/waitlist")
    public static let waitlist = IdPath("/waitlist/{id}")
    public static let waitlistAccept = IdPath("/waitlist/{id}/accept")
    public static let waitlistLeave = IdPath("/waitlist/{id}/leave")
    /// A booking reminder's Confirm and Cancel links (a signed token, no sign-in needed).
    public static let bookingReply = FixedPath("/bookings/reply")

    // Managers
    /// Support staff look customers up and help them.
    public static let support = FixedPath("/support")
    public static let supportCancel = FixedPath("/support/cancel")
    public static let supportClose = FixedPath("/support/close")
    public static let manage = FixedPath("/manage")
    public static let manageStore = IdPath("/manage/stores/{id}")
    /// An admin registers a store.
    public static let manageNewStore = FixedPath("/manage/new-store")
    public static let manageImportStores = FixedPath("/manage/import-stores")
    /// Every store's live figures on one page (for a manager: theirs), and the same as CSV and JSON.
    public static let manageOverview = FixedPath("/manage/overview")
    public static let manageOverviewCSV = FixedPath("/manage/overview.csv")
    public static let manageOverviewJSON = FixedPath("/manage/overview.json")
    /// Regions of a chain's stores, and their managers.
    public static let manageGroups = FixedPath("/manage/groups")
    public static let manageGroup = IdPath("/manage/groups/{id}")
    public static let manageGroupStores = IdPath("/manage/groups/{id}/stores")
    public static let manageGroupStoreRemove = IdPath("/manage/groups/{id}/stores/remove")
    public static let manageGroupManagers = IdPath("/manage/groups/{id}/managers")
    public static let manageGroupManagerRemove = IdPath("/manage/groups/{id}/managers/remove")
    public static let manageGroupRename = IdPath("/manage/groups/{id}/rename")
    public static let manageGroupDelete = IdPath("/manage/groups/{id}/delete")
    public static let manageClosures = FixedPath("/manage/closures")
    /// An admin schedules maintenance (GET, POST), and cancels it (POST).
    public static let manageMaintenance = FixedPath("/manage/maintenance")
    public static let manageMaintenanceCancel = FixedPath("/manage/maintenance/cancel")
    public static let manageStoreStats = IdPath("/manage/stores/{id}/stats")
    public static let manageStoreStatsCSV = IdPath("/manage/stores/{id}/stats.csv")
    public static let manageStoreEdit = IdPath("/manage/stores/{id}/edit")
    public static let manageStoreHours = IdPath("/manage/stores/{id}/hours")
    /// Closing a store on a day, or opening it again (POST; listed on the hours page).
    public static let manageStoreClosures = IdPath("/manage/stores/{id}/closures")
    public static let manageStoreSpecialHours = IdPath("/manage/stores/{id}/special-hours")
    /// The door console: the store's lists, and actions by ticket number (POST).
    public static let manageStoreDoor = IdPath("/manage/stores/{id}/door")
    /// POST: a priority ticket issued from the door console (`PriorityLane`).
    public static let manageStoreDoorPriority = IdPath("/manage/stores/{id}/door/priority")
    /// Which doors let people in while offline (POST: one door, on or off).
    public static let manageStoreDoorOffline = IdPath("/manage/stores/{id}/door/offline")
    /// POST: an ordinary walk-in ticket for someone who phoned the store.
    public static let manageStoreDoorPhone = IdPath("/manage/stores/{id}/door/phone")
    /// POST: set the PIN staff give to open the door console on the store's door kiosks.
    public static let manageStoreStaffPin = IdPath("/manage/stores/{id}/staff-pin")
    /// POST (`kiosk`: its id): revoke one of the store's kiosks; its key stops working at once.
    public static let manageStoreKioskRevoke = IdPath("/manage/stores/{id}/kiosks/revoke")
    /// A manager enrols a kiosk; an administrator adds and removes a store's managers.
    public static let manageStoreKiosks = IdPath("/manage/stores/{id}/kiosks")
    public static let manageStoreManagers = IdPath("/manage/stores/{id}/managers")
    public static let manageStoreManagerRemove = IdPath("/manage/stores/{id}/managers/remove")
    public static let manageStoreRetire = IdPath("/manage/stores/{id}/retire")
    public static let manageStoreDoorStaff = IdPath("/manage/stores/{id}/door-staff")
    public static let manageStoreDoorStaffRemove = IdPath("/manage/stores/{id}/door-staff/remove")

    // The entrance kiosk
    public static let kiosk = FixedPath("/kiosk")
    public static let kioskEnrol = FixedPath("/kiosk/enrol")
    public static let kioskDispenser = FixedPath("/kiosk/dispenser")
    public static let kioskTickets = FixedPath("/kiosk/tickets")
    public static let kioskTicket = IdPath("/kiosk/tickets/{id}")
    /// The dispenser's spare tickets, for printing offline, and its report of those it printed.
    public static let kioskSpares = FixedPath("/kiosk/spares")
    public static let kioskSparesPrinted = FixedPath("/kiosk/spares/printed")
    public static let kioskScanner = FixedPath("/kiosk/scanner")
    public static let kioskScan = FixedPath("/kiosk/scan")
    /// JSON: what a door kiosk keeps to go on admitting while CLup cannot be reached.
    public static let kioskDoorState = FixedPath("/kiosk/scanner/state")
    /// POST: the door's lease on places for letting people in offline, renewed (`DoorLease`).
    public static let kioskDoorLease = FixedPath("/kiosk/scanner/lease")
    public static let kioskBoard = FixedPath("/kiosk/board")
    /// The door console on a kiosk's screen (POST: an action by ticket number).
    public static let kioskDoor = FixedPath("/kiosk/door")
    public static let kioskDoorPriority = FixedPath("/kiosk/door/priority")
    public static let kioskDoorOffline = FixedPath("/kiosk/door/offline")
    public static let kioskDoorPhone = FixedPath("/kiosk/door/phone")
    /// Staff sign in at a door kiosk with their name and the store's staff PIN (GET: the form).
    public static let kioskStaff = FixedPath("/kiosk/staff")
    public static let kioskStaffSignOut = FixedPath("/kiosk/staff/sign-out")
    /// A printed ticket followed from any phone, by the code on it (`?code=`): public.
    public static let follow = FixedPath("/t")

    // The device API
    public static let apiPrefix = "/api/"
    public static let apiScan = FixedPath("/api/v1/scan")
    public static let apiTickets = FixedPath("/api/v1/tickets")
    public static let apiStoreStatus = IdPath("/api/v1/stores/{id}/status")
    public static let apiTicketBlock = FixedPath("/api/v1/ticket-block")
    public static let apiOfflineTickets = FixedPath("/api/v1/tickets/offline")
    /// A door's state and lease, to go on admitting while CLup cannot be reached.
    public static let apiDoorState = FixedPath("/api/v1/door/state")
    public static let apiDoorLease = FixedPath("/api/v1/door/lease")
    /// Served by nginx from `Public/api/openapi.json`, not by a route.
    public static let apiDescription = "/api/openapi.json"

    /// Every routed path, for the round-trip test.
    public static let all: [any RoutePath] = [
        home, store, storeStats, health, metrics, signUp, signIn, signOut, signOutEverywhere, confirm, resendConfirmation, forgot, reset, confirmFirst,
        account, accountProfile, accountPassword, accountEmail, accountDoorPin, confirmEmailChange, accountDelete, accountNotifications, accountPush, accountPushRemove,
        accountData, privacy, terms, termsAccept, english, italian,
        reserve, reserveHow, reserveSlots, reserveRecap,
        storeReservations, reservations, ticket, ticketStatus, ticketImage, ticketCancel, ticketTravel, ticketPosition, ticketConfirm,
        storeWaitlist, waitlist, waitlistAccept, waitlistLeave,
        bookingReply, manage, manageStore, manageNewStore, manageImportStores, manageOverview, manageOverviewCSV, manageOverviewJSON, manageGroups, manageGroup, manageGroupStores, manageGroupStoreRemove, manageGroupManagers, manageGroupManagerRemove, manageGroupRename, manageGroupDelete, manageClosures, manageMaintenance, manageMaintenanceCancel, manageStoreStats, manageStoreStatsCSV, manageStoreDoor, manageStoreDoorPriority, manageStoreDoorOffline, manageStoreDoorPhone, manageStoreStaffPin, manageStoreKioskRevoke, manageStoreKiosks, manageStoreManagers, manageStoreManagerRemove, manageStoreRetire, manageStoreDoorStaff, manageStoreDoorStaffRemove, manageStoreEdit, manageStoreHours,
        manageStoreClosures, manageStoreSpecialHours, support, supportCancel, supportClose, kiosk,
        kioskEnrol, kioskDispenser, kioskTickets, kioskTicket, kioskSpares, kioskSparesPrinted, kioskScanner, kioskScan, kioskDoorState, kioskDoorLease, kioskBoard, kioskDoor,
        kioskDoorPriority, kioskDoorOffline, kioskDoorPhone,
        kioskStaff, kioskStaffSignOut, follow,
        apiScan, apiTickets, apiStoreStatus, apiTicketBlock, apiOfflineTickets, apiDoorState, apiDoorLease,
    ]
}

/// A path the router can register: its pattern.
public protocol RoutePath: Sendable {
    var pattern: String { get }
}

/// A path without parameters: the pattern is the link.
public struct FixedPath: RoutePath, CustomStringConvertible {
    public let pattern: String

    public init(_ pattern: String) {
        precondition(!pattern.contains("{"), "a fixed path has no parameter: \(pattern)")
        self.pattern = pattern
    }

    /// The link, with a query string if one is given (already encoded, without the `?`).
    public func callAsFunction(query: String = "") -> String {
        query.isEmpty ? pattern : pattern + "?" + query
    }

    public var description: String { pattern }
}

/// A path with one `{id}` segment: `Paths.store(12)` is `/stores/12`.
public struct IdPath: RoutePath {
    public let pattern: String
    private let prefix: Substring
    private let suffix: Substring

    public init(_ pattern: String) {
        guard let open = pattern.firstIndex(of: "{"), let close = pattern.firstIndex(of: "}"),
            pattern[close...].dropFirst().firstIndex(of: "{") == nil
        else { preconditionFailure("an id path has exactly one parameter: \(pattern)") }
        self.pattern = pattern
        prefix = pattern[..<open]
        suffix = pattern[pattern.index(after: close)...]
    }

    /// The link for `id`, with a query string if one is given (already encoded, without the `?`).
    public func callAsFunction(_ id: Int64, query: String = "") -> String {
        let path = String(prefix) + String(id) + suffix
        return query.isEmpty ? path : path + "?" + query
    }
}
