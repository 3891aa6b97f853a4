import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation
import Logging

// The guards the areas declare on their route groups. Each is written once here; a route
// gets one by being added to a group that declared it, never by a check in its handler.

extension Middleware where Input == RequestContext, Output == BrowserContext {
    /// The site's pages: resolves who is asking (session, kiosk and CSRF cookies) before
    /// anything else, adds the cookies that resolution set, and answers every error of the
    /// routes after it as a page in the site's layout — an `HTTPError` with its status and
    /// message, anything else as a 500 that reveals nothing (the details go to the log).
    static func pages(database: AppDatabase, views: Views, logger: Logger) -> Middleware {
        Middleware("session") { context, next in
            var visitor = Visitor.anonymous
            do {
                visitor = try Visitor.resolve(context.request, database: database, now: context.now)
                var response = try next(BrowserContext(base: context, visitor: visitor))
                // First, so a cookie the handler sets (a new session) overrides one cleared here.
                response.headers.insert(contentsOf: visitor.cookies.map { ("Set-Cookie", $0.headerValue) }, at: 0)
                return response
            } catch {
                let answer: HTTPError
                switch error {
                case let error as HTTPError: answer = error
                // The store went (an admin removed it) between the guard and the write.
                case StoreError.noSuchStore: answer = .notFound
                default:
                    logger.error("\(context.request.method.rawValue) \(context.request.path) failed: \(String(reflecting: error))")
                    answer = HTTPError.storage(error) ?? .internal
                }
                var response = views.errorResponse(answer, visitor: visitor)
                visitor.cookies.forEach { response.setCookie($0) }
                return response
            }
        }
    }
}

extension Middleware where Input == BrowserContext, Output == BrowserContext {
    /// Unsafe methods must carry the visitor's CSRF token in their form, checked in constant
    /// time before any handler runs; nothing has changed when this refuses.
    static let csrf = Middleware("csrf", methods: [.post, .put, .patch, .delete]) { context, next in
        var context = context
        if context.request.method.isUnsafe {
            // A browser that brought no token cookie and no session cannot pass: refused before
            // its body is decoded, so a large junk body costs nothing.
            if context.visitor.newGuestToken != nil { throw HTTPError(403, tr("error.csrf")) }
            context.form = try context.request.form()
            try context.visitor.checkCSRF(context.form)
        }
        return try next(context)
    }
}

extension Middleware where Input == BrowserContext, Output == BrowserContext {
    /// A form sent again with the one-time key of one already done gets that first answer
    /// (its redirect), or a page saying it was done; it is not done twice (`FormReply`).
    /// Forms with a request key of their own (a reservation, a kiosk ticket) are answered the
    /// same way by their own rules, and skip this.
    static func formReplies(database: AppDatabase, views: Views) -> Middleware {
        Middleware("replies", methods: [.post, .put, .patch, .delete]) { context, next in
            guard context.request.method.isUnsafe, context.form["requestKey"] == nil,
                  let key = context.form["formKey"], Secrets.isWellFormed(key, minimumLength: 22), key.utf8.count <= 64
            else { return try next(context) }
            func answerAgain(_ done: String?) -> Response {
                if let location = done { return .redirect(to: location) }
                return views.page(title: tr("replay.title"), context, MessagePage(
                    title: tr("replay.title"), lines: [tr("replay.line")], link: (tr("error.toStores"), Paths.home())))
            }
            if let done = try database.formReply(key: key) { return answerAgain(done) }
            let reply = FormReply(key: key)
            let response: Response
            do {
                response = try FormReply.$current.withValue(reply) { try next(context) }
            } catch is FormReply.AlreadyDone {
                // Sent twice at once: the other request does it; this one changed nothing.
                return answerAgain(try database.formReply(key: key) ?? nil)
            }
            guard reply.recorded else { return response }
            if response.headers.contains(where: { $0.name == "Set-Cookie" }) {
                try? database.forgetFormReply(key: key)
            } else if response.status == 303, let location = response.header("Location") {
                try? database.keepFormReply(key: key, location: location)
            }
            return response
        }
    }
}

extension Middleware where Input == BrowserContext, Output == KioskContext {
    /// An enrolled kiosk browser (its key is checked on every request, so a revoked key stops
    /// at once). Others are sent to the enrolment page (GET) or refused.
    static let kiosk = Middleware.check("kiosk") { context in
        guard let kiosk = context.visitor.kiosk else {
            if context.request.method.isSafe { throw HTTPError.redirect(to: Paths.kiosk()) }
            throw HTTPError(403, tr("error.notKiosk", ["path": Paths.kiosk.pattern]))
        }
        return KioskContext(browser: context, kiosk: kiosk)
    }
}

extension Middleware where Input == KioskContext, Output == KioskContext {
    /// A kiosk enrolled for the door. A customer-facing dispenser neither scans nor opens
    /// the staff's screens, whoever stands in front of it.
    static let doorKiosk = Middleware.check("doorKiosk") { context in
        guard context.kiosk.role.isAtTheDoor else { throw HTTPError(403, tr("kiosk.notAtTheDoor")) }
        return context
    }
}

extension Middleware where Input == KioskContext, Output == StaffContext {
    /// A member of staff signed in at this kiosk with their own current PIN while they are the
    /// store's door staff, or with the store's current shared PIN, within the pass's idle
    /// timeout; each request renews the pass. Others are sent to sign in (GET) or refused,
    /// changing nothing.
    static func staff(database: AppDatabase, signer: TicketToken) -> Middleware {
        Middleware("staff") { context, next in
            let name = StaffPass.cookieName(secure: context.secure)
            let storeId = context.kiosk.storeId
            var currentHash: String?
            guard let value = context.request.cookies[name],
                let pass = try StaffPass.read(value, kiosk: context.kiosk, pinHash: { person in
                    currentHash = if let person {
                        try database.accounts.doorPinHash(userId: person, storeId: storeId)
                    } else {
                        try database.accounts.staffPinHash(storeId: storeId)
                    }
                    return currentHash
                }, signer: signer, now: context.now),
                let pinHash = currentHash
            else {
                if context.request.method.isSafe { throw HTTPError.redirect(to: Paths.kioskStaff()) }
                throw HTTPError(403, tr("staff.signedOut"))
            }
            var response = try next(StaffContext(browser: context.browser, kiosk: context.kiosk, staffName: pass.staffName,
                                                 person: pass.person))
            if response.setCookie(named: name) == nil {  // unless the handler set or cleared it
                response.setCookie(pass.cookie(pinHash: pinHash, signer: signer, now: context.now, secure: context.secure))
            }
            return response
        }
    }
}

extension Middleware where Input == BrowserContext, Output == CustomerContext {
    /// Someone signed in. A guest asking for a page is sent to sign in and brought back; a
    /// form from an ended session is refused. An account that has not accepted the terms of
    /// service in force is sent to accept them first (a form of its is refused), except on
    /// its account pages, where it may still download its data or delete the account.
    static let signedIn = Middleware.check("signedIn") { context in
        guard let user = context.visitor.user else {
            if context.request.method.isSafe {
                throw HTTPError.redirect(to: Paths.signIn(query: FormData(pairs: [("next", context.request.path)]).urlEncoded))
            }
            throw HTTPError(403, tr("error.sessionEnded"))
        }
        let path = context.request.path
        if TermsOfService.mustAccept(user.termsVersion), path != Paths.termsAccept.pattern,
            path != Paths.account.pattern, !path.hasPrefix(Paths.account.pattern + "/"), path != Paths.signOutEverywhere.pattern
        {
            if context.request.method.isSafe {
                throw HTTPError.redirect(to: Paths.termsAccept(query: FormData(pairs: [("next", path)]).urlEncoded))
            }
            throw HTTPError(403, tr("terms.mustAccept"))
        }
        return CustomerContext(browser: context.browser, user: user)
    }
}

extension Middleware where Input == CustomerContext, Output == CustomerContext {
    /// An account whose email address is confirmed: only those may line up or book.
    /// An account not yet confirmed is sent, on a page it asks for, to the page that says how to
    /// confirm (an ordinary step, not an error); a form it sends is refused.
    static let confirmed = Middleware.check("confirmed") { context in
        guard context.user.isConfirmed else {
            if context.request.method.isSafe {
                let next = FormData(pairs: [("next", context.request.path)]).urlEncoded
                throw HTTPError.redirect(to: Paths.confirmFirst(query: next))
            }
            throw HTTPError(403, tr("error.unconfirmed"), title: tr("error.unconfirmedTitle"))
        }
        return context
    }
}

extension Middleware where Input == CustomerContext, Output == OwnedTicketContext {
    /// The owner of the reservation in the address. Anyone else gets the 404 an unknown id
    /// gets, so ids reveal nothing.
    static func reservationOwner(database: AppDatabase) -> Middleware {
        .check("reservationOwner") { context in
            guard let owned = try database.reservations.reservation(id: try context.id()), owned.reservation.userId == context.user.id
            else { throw HTTPError.notFound }
            return OwnedTicketContext(browser: context.browser, user: context.user, owned: owned)
        }
    }
}

extension Middleware where Input == CustomerContext, Output == OwnedWaitlistContext {
    /// The customer whose place on a waiting list is in the address; 404 to anyone else.
    static func waitlistOwner(database: AppDatabase) -> Middleware {
        .check("waitlistOwner") { context in
            guard let id = context.base.parameters["id"].flatMap({ Int64($0) }), id > 0,
                let place = try database.waitingLists.waitlistPlace(id: id), place.entry.userId == context.user.id
            else { throw HTTPError.notFound }
            return OwnedWaitlistContext(browser: context.browser, user: context.user, place: place)
        }
    }
}

extension Middleware where Input == CustomerContext, Output == ManagerContext {
    /// An account that opens `/manage`: a manager, an administrator, or door staff (whose
    /// store pages are kept behind `managerOfStore`, their consoles behind `doorOfStore`).
    static let manager = Middleware.check("manager") { context in
        guard context.user.role.opensManage else { throw HTTPError.forbidden }
        return ManagerContext(browser: context.browser, user: context.user)
    }
}

extension Middleware where Input == CustomerContext, Output == CustomerContext {
    /// Support staff (or an administrator): they look customers up to help them.
    static let support = Middleware.check("support") { context in
        guard context.user.role.helpsCustomers else { throw HTTPError.forbidden }
        return context
    }
}

extension Middleware where Input == ManagerContext, Output == ManagerContext {
    /// An admin: registering stores is theirs alone.
    static let admin = Middleware.check("admin") { context in
        guard context.user.role == .admin else { throw HTTPError.forbidden }
        return context
    }
}

extension Middleware where Input == ManagerContext, Output == ManagedStoreContext {
    /// The store in the address is one this manager manages (admins manage every store);
    /// another store's id gets a 403.
    static func managerOfStore(database: AppDatabase) -> Middleware {
        .check("managerOfStore") { context in
            let storeId: StoreID = try context.id()
            let allowed = try context.user.role == .admin || database.accounts.isManager(userId: context.user.id, of: storeId)
            guard allowed else {
                throw HTTPError.forbidden
            }
            return ManagedStoreContext(browser: context.browser, user: context.user, storeId: storeId)
        }
    }
}

extension Middleware where Input == ManagerContext, Output == ManagedStoreContext {
    /// The store in the address is one whose door this account runs: as its manager, as
    /// its door staff, or as an administrator; another store's id gets a 403.
    static func doorOfStore(database: AppDatabase) -> Middleware {
        .check("doorOfStore") { context in
            let storeId: StoreID = try context.id()
            let user = context.user
            let allowed = try user.role == .admin || database.accounts.isManager(userId: user.id, of: storeId)
                || database.accounts.isDoorStaff(userId: user.id, of: storeId)
            guard allowed else { throw HTTPError.forbidden }
            return ManagedStoreContext(browser: context.browser, user: user, storeId: storeId)
        }
    }
}

extension Middleware where Input == RequestContext, Output == RequestContext {
    /// The device API's errors: JSON `{code, message}` with a stable code, never a page.
    static func jsonErrors(logger: Logger) -> Middleware {
        Middleware("jsonErrors") { context, next in
            do {
                return try next(context)
            } catch let error as EntranceError {
                return DeviceArea.error(error)
            } catch let error as HTTPError {
                return DeviceArea.error(error)
            } catch {
                logger.error("\(context.request.method.rawValue) \(context.request.path) failed: \(String(reflecting: error))")
                if let storage = HTTPError.storage(error) {
                    var response = DeviceArea.error(EntranceError(503, "unavailable", storage.message))
                    for (name, value) in storage.headers.sorted(by: { $0.key < $1.key }) { response.headers.append((name, value)) }
                    return response
                }
                return DeviceArea.error(EntranceError(500, "internal", tr("api.internal")))
            }
        }
    }
}

extension Middleware where Input == RequestContext, Output == DeviceContext {
    /// A device sending its kiosk's key as `Authorization: Bearer <key>`. No cookies are read,
    /// so no other site can make a browser use the API: no CSRF token is needed.
    static func deviceKey(database: AppDatabase) -> Middleware {
        .check("deviceKey") { context in
            guard let header = context.request.headers["authorization"], header.lowercased().hasPrefix("bearer ") else {
                throw EntranceError(401, "unauthorized", tr("api.unauthorized"))
            }
            let key = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            guard let kiosk = try database.accounts.kiosk(key: key) else {
                throw EntranceError(401, "invalidKey", tr("api.invalidKey"))
            }
            return DeviceContext(base: context, kiosk: kiosk)
        }
    }
}

extension Middleware where Input == DeviceContext, Output == DeviceContext {
    /// The store in the address is the device's own.
    static let deviceOfStore = Middleware.check("deviceOfStore") { context in
        guard let id = context.base.parameters["id"].flatMap({ Int64($0) }), id > 0 else {
            throw EntranceError(404, "notFound", tr("api.noStore"))
        }
        guard StoreID(id) == context.kiosk.storeId else {
            throw EntranceError(403, "otherStore", tr("api.otherStore"))
        }
        return context
    }
}

extension HTTPMethod {
    /// GET and HEAD change nothing; every other method may.
    var isSafe: Bool { self == .get || self == .head || self == .options }
    var isUnsafe: Bool { !isSafe }
}
