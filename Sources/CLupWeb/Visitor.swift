import CLupData
import CLupDomain
import CLupSupport
import CLupText
import Foundation

/// Who is making a request: a guest or a signed-in person (with their session), a kiosk, and
/// the CSRF token their forms must carry. Resolved once per request, before any handler runs.
public struct Visitor: Sendable {
    public var user: User?
    public var session: UserSession?
    /// The enrolled kiosk this browser is, if any.
    public var kiosk: Kiosk?
    /// The token forms must carry: the session's when signed in, else the guest cookie's.
    public var csrfToken: String
    /// Cookies to add to the response (a session ended or begun).
    var cookies: [Cookie] = []
    /// A guest without a CSRF cookie gets a new token, sent as a cookie only with a page that
    /// has a form using it: a page without forms is then the same for every guest, and can
    /// be cached.
    var newGuestToken: Cookie?

    public static let anonymous = Visitor(csrfToken: "")

    /// How long a session lasts without use, and at most.
    public static let idleLifetime: TimeInterval = 7 * 24 * 3600
    public static let absoluteLifetime: TimeInterval = 30 * 24 * 3600
    /// `lastSeenAt` is written at most this often, so reading a page rarely writes.
    static let touchInterval: TimeInterval = 10 * 60

    /// Over HTTPS, cookie names take the `__Host-` prefix: the browser then only accepts them
    /// from this exact host, Secure, with Path=/ — a sibling domain cannot plant one.
    static func cookieName(_ base: String, secure: Bool) -> String {
        secure ? "__Host-" + base : base
    }

    static func sessionCookie(secure: Bool) -> String { cookieName("clup_session", secure: secure) }
    static func csrfCookie(secure: Bool) -> String { cookieName("clup_csrf", secure: secure) }
    static func kioskCookie(secure: Bool) -> String { cookieName("clup_kiosk", secure: secure) }

    init(csrfToken: String) {
        self.csrfToken = csrfToken
    }

    /// Reads the session, kiosk and guest CSRF cookies. An expired session is deleted and its
    /// cookie cleared; a missing guest token is created.
    static func resolve(_ request: Request, database: AppDatabase, now: Date) throws -> Visitor {
        let secure = request.isHTTPS
        var visitor = Visitor(csrfToken: "")
        if let token = request.cookies[sessionCookie(secure: secure)] {
            if Secrets.isWellFormed(token), let (session, user) = try database.accounts.session(idHash: Secrets.hash(token)) {
                let expired = now.timeIntervalSince(session.lastSeenAt) > idleLifetime
                    || now.timeIntervalSince(session.createdAt) > absoluteLifetime
                if expired {
                    try database.accounts.deleteSession(idHash: session.idHash)
                    visitor.cookies.append(endedSession(secure: secure))
                } else {
                    if now.timeIntervalSince(session.lastSeenAt) > touchInterval {
                        try database.accounts.touchSession(idHash: session.idHash, now: now)
                    }
                    visitor.user = user
                    visitor.session = session
                    visitor.csrfToken = session.csrfToken
                }
            } else {
                visitor.cookies.append(endedSession(secure: secure))
            }
        }
        if let key = request.cookies[kioskCookie(secure: secure)] {
            visitor.kiosk = try database.accounts.kiosk(key: key)
        }
        if visitor.session == nil {
            if let token = request.cookies[csrfCookie(secure: secure)], Secrets.isWellFormed(token) {
                visitor.csrfToken = token
            } else {
                visitor.csrfToken = Secrets.token()
                visitor.newGuestToken = Cookie(name: csrfCookie(secure: secure), value: visitor.csrfToken, maxAge: nil,
                                               secure: secure)
            }
        }
        return visitor
    }

    /// Refuses a state-changing request whose form does not carry this visitor's token.
    /// Compared in constant time; nothing has been changed when this throws.
    func checkCSRF(_ form: FormData) throws(HTTPError) {
        guard let sent = form["csrf"], !csrfToken.isEmpty, Secrets.constantTimeEquals(sent, csrfToken) else {
            throw HTTPError(403, tr("error.csrf"))
        }
    }

    /// The cookie that tells the browser to drop its session id.
    static func endedSession(secure: Bool) -> Cookie {
        Cookie(name: sessionCookie(secure: secure), value: "", maxAge: 0, secure: secure)
    }
}

extension HTTPError {
    public static var forbidden: HTTPError { HTTPError(403, tr("error.forbidden")) }

    /// Not an error for the person: a 303 to `location` (e.g. to sign in first).
    public static func redirect(to location: String) -> HTTPError {
        HTTPError(303, "", headers: ["Location": location])
    }
}

/// A path to return to after signing in: only a local path, never another site.
func safeNextPath(_ next: String?) -> String {
    guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"),
        !next.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    else { return "/" }
    return next
}
