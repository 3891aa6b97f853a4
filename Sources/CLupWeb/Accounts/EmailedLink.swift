import CLupSupport
import Foundation

/// The tokens of emailed links (`/confirm?token=`, `/reset?token=`, `/bookings/reply?t=`) must
/// not stay in an address, where access logs, the browser's history and `Referer` headers
/// keep them. The first GET moves the token into a short-lived cookie and redirects to the
/// same address without it; the page then reads it from the cookie. Those pages are sent with
/// `Referrer-Policy: no-referrer` and never stored by a cache.
enum EmailedLink {
    /// Long enough to read the page and choose a password; the link's own expiry still applies.
    static let cookieLifetime = 15 * 60

    static func cookieName(secure: Bool) -> String { Visitor.cookieName("clup_link", secure: secure) }

    /// For a GET whose query carries the token in `parameter`: the redirect to the clean address
    /// (other query fields kept), with the token in the cookie. Nil when there is no token there.
    static func stash(_ context: some BrowserRequest, parameter: String) -> Response? {
        let query = context.request.query
        guard let token = query[parameter], !token.isEmpty else { return nil }
        // Only a token's characters go into a header: anything else is no link of ours, and
        // the page then says it is not valid.
        let kept = Secrets.isWellFormed(token, minimumLength: 1) ? token : ""
        let rest = FormData(pairs: query.pairs.filter { $0.name != parameter }).urlEncoded
        var response = Response.redirect(to: context.request.path + (rest.isEmpty ? "" : "?" + rest))
        var cookie = Cookie(name: cookieName(secure: context.secure), value: kept,
                            maxAge: cookieLifetime, secure: context.secure)
        cookie.sameSite = "Lax"
        response.setCookie(cookie)
        protect(&response)
        return response
    }

    /// The token the link brought, kept by this browser.
    static func token(_ context: some BrowserRequest) -> String {
        context.request.cookies[cookieName(secure: context.secure)] ?? ""
    }

    /// No referrer from a page that holds a token, and no copy in any cache.
    static func protect(_ response: inout Response) {
        response.headers.removeAll { $0.name == "X-Accel-Expires" }
        response.headers.append(("Referrer-Policy", "no-referrer"))
        if response.header("Cache-Control") == nil { response.headers.append(("Cache-Control", "no-store")) }
    }
}
