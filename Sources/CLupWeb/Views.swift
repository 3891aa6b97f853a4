import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation
import Mustache

/// The page templates, all loaded and parsed at start-up: a missing or malformed template
/// stops the worker from starting instead of failing a request later.
public struct Views: Sendable {
    /// Every template the application renders. Pages extend `layout`.
    public enum Template: String, CaseIterable, Sendable {
        case layout
        case home
        case store
        case error
        case signup
        case signin
        case confirm
        case forgot
        case reset
        case message
        case account
        case manage
        case manageStore = "manage-store"
        case reserve
        case reserveHow = "reserve-how"
        case reserveSlots = "reserve-slots"
        case reserveRecap = "reserve-recap"
        case reserveRefused = "reserve-refused"
        case reserveConflict = "reserve-conflict"
        case ticket
        case reservations
        case kioskLayout = "kiosk-layout"
        case kioskEnrol = "kiosk-enrol"
        case kioskHome = "kiosk-home"
        case kioskDispenser = "kiosk-dispenser"
        case kioskTicket = "kiosk-ticket"
        case kioskScanner = "kiosk-scanner"
        case kioskBoard = "kiosk-board"
    }

    public enum LoadError: Error, CustomStringConvertible {
        case missing(String)
        case malformed(String, Error)

        public var description: String {
            switch self {
            case .missing(let path): "template not found: \(path)"
            case .malformed(let path, let error): "template \(path) does not parse: \(error)"
            }
        }
    }

    private let library: MustacheLibrary
    private let templates: [Template: MustacheTemplate]
    public let assets: Assets

    public init(templatesDirectory: String, assets: Assets) throws {
        var library = MustacheLibrary()
        var templates: [Template: MustacheTemplate] = [:]
        for template in Template.allCases {
            let path = "\(templatesDirectory)/\(template.rawValue).mustache"
            guard let data = FileManager.default.contents(atPath: path) else { throw LoadError.missing(path) }
            do {
                let parsed = try MustacheTemplate(string: String(decoding: data, as: UTF8.self))
                library.register(parsed, named: template.rawValue)
                templates[template] = parsed
            } catch {
                throw LoadError.malformed(path, error)
            }
        }
        self.library = library
        self.templates = templates
        self.assets = assets
    }

    /// Renders a page. The template sees `site` (assets, navigation, title) and `page` (the
    /// page's own view model). Values are HTML-escaped unless a template says otherwise.
    public func render<Model>(_ template: Template, title: String, section: Section = .none, visitor: Visitor,
                              page: Model) -> String
    {
        let context = PageContext(
            site: SiteContext(title: title, assets: assets, section: section, visitor: visitor), page: page)
        // Every case was loaded in init, so the lookup cannot fail.
        return templates[template]?.render(context, library: library) ?? ""
    }

    /// Which navigation entry is current.
    public enum Section: Sendable {
        case none, stores, reservations, account, manage
    }
}

/// The top-level rendering context.
struct PageContext<Model> {
    var site: SiteContext
    var page: Model
}

/// What the shared layout needs on every page: assets, navigation, who is signed in, and the
/// CSRF token for the forms (sign out is a form in the header).
struct SiteContext {
    var title: String
    var assets: Assets
    var storesCurrent: Bool
    var reservationsCurrent: Bool
    var accountCurrent: Bool
    var manageCurrent: Bool
    var csrf: String
    var signedIn: Bool
    var userName: String?
    var isManager: Bool
    var unconfirmed: Bool

    init(title: String, assets: Assets, section: Views.Section, visitor: Visitor) {
        self.title = title
        self.assets = assets
        storesCurrent = section == .stores
        reservationsCurrent = section == .reservations
        accountCurrent = section == .account
        manageCurrent = section == .manage
        csrf = visitor.csrfToken
        signedIn = visitor.user != nil
        userName = visitor.user?.displayName
        isManager = visitor.user.map { $0.role != .customer } ?? false
        unconfirmed = visitor.user.map { !$0.isConfirmed } ?? false
    }
}

// MARK: - Template fields

extension PageContext: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "site": site
        case "page": page
        default: nil
        }
    }
}

extension SiteContext: MustacheParent {
    func child(named key: String) -> Any? {
        switch key {
        case "title": title
        case "assets": assets
        case "storesCurrent": storesCurrent
        case "reservationsCurrent": reservationsCurrent
        case "accountCurrent": accountCurrent
        case "manageCurrent": manageCurrent
        case "csrf": csrf
        case "signedIn": signedIn
        case "userName": userName
        case "isManager": isManager
        case "unconfirmed": unconfirmed
        default: nil
        }
    }
}

extension Assets: MustacheParent {
    public func child(named key: String) -> Any? {
        switch key {
        case "stylesheet": stylesheet
        case "script": script
        case "icon": icon
        default: nil
        }
    }
}
