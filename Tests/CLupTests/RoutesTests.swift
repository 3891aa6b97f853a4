import CLupPaths
import Foundation
import Testing

@testable import CLupData
@testable import CLupWeb

/// The route table: every route with the guards its group declared, and the table of paths
/// that builds both the router and every link.
@Suite("Routes, guards and paths")
struct RoutesTests {
    let app: App

    init() throws {
        app = try Fixture.app()
    }

    /// Every route and its guards. A route added without the guards its group needs, or a
    /// guard removed from a group, changes this listing and fails the test: update it only
    /// when the change is meant.
    static let expected = """
        GET /healthz
        GET /metrics
        GET / session
        GET /stores/{id} session
        GET /stores/{id}/stats session
        GET /signup session
        POST /signup session csrf replies
        GET /signin session
        POST /signin session csrf replies
        POST /signout session csrf replies
        GET /confirm session
        POST /confirm session csrf replies
        GET /forgot session
        POST /forgot session csrf replies
        GET /reset session
        POST /reset session csrf replies
        GET /privacy session
        GET /terms session
        GET /en session
        GET /it session
        POST /signout/everywhere session csrf replies signedIn
        POST /confirm/resend session csrf replies signedIn
        GET /confirm/first session signedIn
        GET /account session signedIn
        POST /account/profile session csrf replies signedIn
        POST /account/password session csrf replies signedIn
        POST /account/email session csrf replies signedIn
        POST /account/door-pin session csrf replies signedIn
        GET /confirm/email session
        POST /confirm/email session csrf replies
        POST /account/delete session csrf replies signedIn
        POST /account/notifications session csrf replies signedIn
        POST /account/push session csrf replies signedIn
        POST /account/push/remove session csrf replies signedIn
        GET /account/data session signedIn
        GET /terms/accept session signedIn
        POST /terms/accept session csrf replies signedIn
        GET /bookings/reply session
        POST /bookings/reply session csrf replies
        GET /stores/{id}/reserve session signedIn confirmed
        GET /stores/{id}/reserve/how session signedIn confirmed
        GET /stores/{id}/reserve/slots session signedIn confirmed
        GET /stores/{id}/reserve/recap session signedIn confirmed
        POST /stores/{id}/reservations session csrf replies signedIn confirmed
        POST /stores/{id}/waitlist session csrf replies signedIn confirmed
        GET /reservations session signedIn
        GET /reservations/{id} session signedIn reservationOwner
        GET /reservations/{id}/status session signedIn reservationOwner
        GET /reservations/{id}/qr.png session signedIn reservationOwner
        POST /reservations/{id}/cancel session csrf replies signedIn reservationOwner
        POST /reservations/{id}/travel session csrf replies signedIn reservationOwner
        POST /reservations/{id}/position session csrf replies signedIn reservationOwner
        POST /reservations/{id}/confirm session csrf replies signedIn reservationOwner
        GET /waitlist/{id} session signedIn waitlistOwner
        POST /waitlist/{id}/accept session csrf replies signedIn waitlistOwner
        POST /waitlist/{id}/leave session csrf replies signedIn waitlistOwner
        GET /manage session signedIn manager
        GET /manage/overview session signedIn manager
        GET /manage/overview.csv session signedIn manager
        GET /manage/overview.json session signedIn manager
        GET /manage/new-store session signedIn manager admin
        POST /manage/new-store session csrf replies signedIn manager admin
        GET /manage/import-stores session signedIn manager admin
        POST /manage/import-stores session csrf replies signedIn manager admin
        GET /manage/closures session signedIn manager admin
        POST /manage/closures session csrf replies signedIn manager admin
        GET /manage/maintenance session signedIn manager admin
        POST /manage/maintenance session csrf replies signedIn manager admin
        POST /manage/maintenance/cancel session csrf replies signedIn manager admin
        GET /manage/groups session signedIn manager admin
        POST /manage/groups session csrf replies signedIn manager admin
        GET /manage/groups/{id} session signedIn manager admin
        POST /manage/groups/{id}/stores session csrf replies signedIn manager admin
        POST /manage/groups/{id}/stores/remove session csrf replies signedIn manager admin
        POST /manage/groups/{id}/managers session csrf replies signedIn manager admin
        POST /manage/groups/{id}/managers/remove session csrf replies signedIn manager admin
        POST /manage/groups/{id}/rename session csrf replies signedIn manager admin
        POST /manage/groups/{id}/delete session csrf replies signedIn manager admin
        GET /manage/stores/{id} session signedIn manager managerOfStore
        GET /manage/stores/{id}/stats session signedIn manager managerOfStore
        GET /manage/stores/{id}/stats.csv session signedIn manager managerOfStore
        POST /manage/stores/{id}/staff-pin session csrf replies signedIn manager managerOfStore
        POST /manage/stores/{id}/door-staff session csrf replies signedIn manager managerOfStore
        POST /manage/stores/{id}/door-staff/remove session csrf replies signedIn manager managerOfStore
        POST /manage/stores/{id}/kiosks/revoke session csrf replies signedIn manager managerOfStore
        POST /manage/stores/{id}/kiosks session csrf replies signedIn manager managerOfStore
        GET /manage/stores/{id}/edit session signedIn manager managerOfStore
        POST /manage/stores/{id}/edit session csrf replies signedIn manager managerOfStore
        GET /manage/stores/{id}/hours session signedIn manager managerOfStore
        POST /manage/stores/{id}/hours session csrf replies signedIn manager managerOfStore
        POST /manage/stores/{id}/closures session csrf replies signedIn manager managerOfStore
        POST /manage/stores/{id}/special-hours session csrf replies signedIn manager managerOfStore
        GET /manage/stores/{id}/door session signedIn manager doorOfStore
        POST /manage/stores/{id}/door session csrf replies signedIn manager doorOfStore
        POST /manage/stores/{id}/door/priority session csrf replies signedIn manager doorOfStore
        POST /manage/stores/{id}/door/phone session csrf replies signedIn manager doorOfStore
        POST /manage/stores/{id}/door/offline session csrf replies signedIn manager doorOfStore
        POST /manage/stores/{id}/managers session csrf replies signedIn manager admin managerOfStore
        POST /manage/stores/{id}/managers/remove session csrf replies signedIn manager admin managerOfStore
        POST /manage/stores/{id}/retire session csrf replies signedIn manager admin managerOfStore
        GET /kiosk session
        POST /kiosk/enrol session csrf replies
        GET /kiosk/dispenser session kiosk watched
        POST /kiosk/tickets session csrf replies kiosk watched
        GET /kiosk/tickets/{id} session kiosk watched
        POST /kiosk/spares session csrf replies kiosk watched
        POST /kiosk/spares/printed session csrf replies kiosk watched
        GET /kiosk/board session kiosk watched
        GET /kiosk/scanner session kiosk watched doorKiosk
        POST /kiosk/scan session csrf replies kiosk watched doorKiosk
        GET /kiosk/scanner/state session kiosk watched doorKiosk
        POST /kiosk/scanner/lease session csrf replies kiosk watched doorKiosk
        GET /kiosk/staff session kiosk watched doorKiosk
        POST /kiosk/staff session csrf replies kiosk watched doorKiosk
        POST /kiosk/staff/sign-out session csrf replies kiosk watched doorKiosk
        GET /kiosk/door session kiosk watched doorKiosk staff
        POST /kiosk/door session csrf replies kiosk watched doorKiosk staff
        POST /kiosk/door/priority session csrf replies kiosk watched doorKiosk staff
        POST /kiosk/door/phone session csrf replies kiosk watched doorKiosk staff
        POST /kiosk/door/offline session csrf replies kiosk watched doorKiosk staff
        GET /support session signedIn support
        POST /support session csrf replies signedIn support
        POST /support/cancel session csrf replies signedIn support
        POST /support/close session csrf replies signedIn support
        GET /t session
        POST /api/v1/scan jsonErrors deviceKey watched
        POST /api/v1/tickets jsonErrors deviceKey watched
        POST /api/v1/ticket-block jsonErrors deviceKey watched
        POST /api/v1/tickets/offline jsonErrors deviceKey watched
        GET /api/v1/door/state jsonErrors deviceKey watched
        POST /api/v1/door/lease jsonErrors deviceKey watched
        GET /api/v1/stores/{id}/status jsonErrors deviceKey watched deviceOfStore
        """

    @Test("every route is listed with the guards it needs, and each is registered once")
    func listing() {
        let listing = app.routeTable.map { ([$0.method.rawValue, $0.pattern] + $0.guards).joined(separator: " ") }
        #expect(listing.joined(separator: "\n") == Self.expected)
        #expect(Set(listing).count == listing.count)
    }

    @Test("rules every route must keep, whatever is added later")
    func rules() {
        for route in app.routeTable {
            let name = "\(route.method.rawValue) \(route.pattern)"
            if route.pattern.hasPrefix("/api/") {
                #expect(route.guards.contains("deviceKey") && !route.guards.contains("session"), "\(name)")
            } else if ![Paths.health.pattern, Paths.metrics.pattern].contains(route.pattern) {
                #expect(route.guards.first == "session", "\(name)")
                #expect(route.guards.contains("csrf") == (route.method != .get), "\(name)")
            }
            if route.pattern.hasPrefix("/account") || route.pattern.hasPrefix("/reservations") {
                #expect(route.guards.contains("signedIn"), "\(name)")
            }
            if route.pattern.hasPrefix("/stores/{id}/reserv") { #expect(route.guards.contains("confirmed"), "\(name)") }
            if route.pattern.hasPrefix("/reservations/{id}") {
                #expect(route.guards.contains("reservationOwner"), "\(name)")
            }
            if route.pattern.hasPrefix("/manage") { #expect(route.guards.contains("manager"), "\(name)") }
            if route.pattern.hasPrefix("/support") { #expect(route.guards.contains("support"), "\(name)") }
            // A store's pages are its managers'; its door console also its door staff's.
            if route.pattern.hasPrefix("/manage/stores/{id}/door/") || route.pattern == "/manage/stores/{id}/door" {
                #expect(route.guards.contains("doorOfStore") && !route.guards.contains("managerOfStore"), "\(name)")
            } else if route.pattern.hasPrefix("/manage/stores/{id}") {
                #expect(route.guards.contains("managerOfStore"), "\(name)")
            }
            if route.pattern.hasPrefix("/kiosk/"), route.pattern != "/kiosk/enrol" {
                #expect(route.guards.contains("kiosk"), "\(name)")
            }
            // The scanner and the staff's screens are not on a customer-facing dispenser, and
            // the door console needs a member of staff signed in with the store's PIN.
            if ["/kiosk/scan", "/kiosk/staff", "/kiosk/door"].contains(where: route.pattern.hasPrefix) {
                #expect(route.guards.contains("doorKiosk"), "\(name)")
            }
            if route.pattern.hasPrefix("/kiosk/door") { #expect(route.guards.contains("staff"), "\(name)") }
        }
    }

    @Test("every path of the table is routed, and a link built from it routes back to it with its id")
    func pathsRoundTrip() throws {
        let patterns = Set(app.routeTable.map(\.pattern))
        #expect(patterns == Set(Paths.all.map(\.pattern)))
        for path in Paths.all {
            let (link, id): (String, String?) = switch path {
            case let fixed as FixedPath: (fixed(), nil)
            case let withId as IdPath: (withId(4_711), "4711")
            default: ("", nil)
            }
            let entries = app.routeTable.filter { $0.pattern == path.pattern }
            #expect(!entries.isEmpty, "\(path.pattern)")
            for entry in entries {
                let (matched, parameters) = try app.route(entry.method, link)
                #expect(matched.pattern == path.pattern, "\(link) → \(matched.pattern)")
                #expect(parameters["id"] == id, "\(link)")
            }
        }
        // A query string is appended, not mixed into the path.
        #expect(Paths.store(12, query: "place=duomo") == "/stores/12?place=duomo")
        #expect(Paths.account(query: "saved=profile") == "/account?saved=profile")
    }
}
