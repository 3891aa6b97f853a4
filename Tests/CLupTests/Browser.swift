import Foundation
import Logging

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

/// A clock tests move by hand.
final class TestClock: @unchecked Sendable {
    // @unchecked: `now` is guarded by `lock`.
    private let lock = NSLock()
    private var current: Date

    init(_ start: Date = Fixture.wednesdayMorning) {
        current = start
    }

    var now: Date { lock.withLock { current } }

    func advance(_ seconds: TimeInterval) {
        lock.withLock { current += seconds }
    }
}

/// Drives the app in-process the way a browser does: keeps cookies, and posts forms with the
/// CSRF token of the last page it loaded.
final class Browser {
    let app: App
    var cookies: [String: String] = [:]
    var address: String
    var https: Bool
    /// Headers sent with every request (as a kiosk's script sends its own).
    var headers: [String: String] = [:]
    private(set) var csrf: String?
    private(set) var last: Response?

    init(_ app: App, address: String = "192.0.2.10", https: Bool = false) {
        self.app = app
        self.address = address
        self.https = https
    }

    @discardableResult
    func get(_ target: String) throws -> Response {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = parts.count > 1 ? try FormData(urlEncoded: String(parts[1])) : FormData()
        return send(Request(method: .get, path: String(parts[0]), query: query))
    }

    /// Opens a link from an email as a browser does: an emailed link's token is moved into a
    /// cookie and the browser sent to the clean address (`EmailedLink`), which it follows.
    @discardableResult
    func open(_ link: String) throws -> Response {
        let first = try get(link)
        guard first.status == 303, let location = first.header("Location"), location.hasPrefix("/") else { return first }
        return try get(location)
    }

    /// The token a form on the last page would carry: the page's, else the guest cookie's.
    var formToken: String? { csrf ?? cookies[https ? "__Host-clup_csrf" : "clup_csrf"] }

    /// Posts `fields` plus the current CSRF token (unless `csrf` overrides it; nil omits it),
    /// asking for `accept` when given (as a page's script asks for JSON).
    @discardableResult
    func post(_ path: String, _ fields: [(String, String)] = [], csrf: String?? = .none, accept: String? = nil) throws
        -> Response
    {
        // Like a person who opened a page with a form first (a page without one sets no token).
        if formToken == nil { try get("/signin") }
        var pairs = fields.map { (name: $0.0, value: $0.1) }
        switch csrf {
        case .none: pairs.append(("csrf", formToken ?? ""))
        case .some(.some(let token)): pairs.append(("csrf", token))
        case .some(.none): break
        }
        var request = Request(method: .post, path: path, body: Array(FormData(pairs: pairs).urlEncoded.utf8))
        request.headers["content-type"] = "application/x-www-form-urlencoded"
        request.headers["accept"] = accept
        return send(request)
    }

    /// Posts `fields` and a file as `multipart/form-data`, as a form with a file input sends
    /// them, with the current CSRF token.
    @discardableResult
    func upload(_ path: String, _ fields: [(String, String)] = [], file: (name: String, filename: String, content: [UInt8])?)
        throws -> Response
    {
        if formToken == nil { try get("/signin") }
        let boundary = "----CLupTestBoundary7MA4YWxkTrZu0gW"
        var body: [UInt8] = []
        for (name, value) in fields + [("csrf", formToken ?? "")] {
            body += Array("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
        }
        if let file {
            body += Array(("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(file.name)\"; filename=\"\(file.filename)\"\r\n"
                + "Content-Type: text/csv\r\n\r\n").utf8)
            body += file.content + Array("\r\n".utf8)
        }
        body += Array("--\(boundary)--\r\n".utf8)
        var request = Request(method: .post, path: path, body: body)
        request.headers["content-type"] = "multipart/form-data; boundary=\(boundary)"
        return send(request)
    }

    private func send(_ request: Request) -> Response {
        var request = request
        for (name, value) in headers { request.headers[name] = value }
        request.cookies = cookies
        request.remoteAddress = address
        request.isHTTPS = https
        let response = app.respond(to: request)
        for header in response.headers where header.name == "Set-Cookie" {
            let pair = header.value.split(separator: ";")[0].split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(pair[0])
            let value = pair.count > 1 ? String(pair[1]) : ""
            if header.value.contains("Max-Age=0") { cookies[name] = nil } else { cookies[name] = value }
        }
        if let match = response.bodyText.firstMatch(of: /name="csrf" value="([^"]*)"/) {
            csrf = String(match.1)
        }
        last = response
        return response
    }

    /// Signs up and follows the confirmation link from the outbox.
    func signUpAndConfirm(email: String, name: String = "Ada", password: String = "correct horse battery") throws {
        try get("/signup")
        try post("/signup", [("email", email), ("displayName", name), ("password", password), ("passwordAgain", password), ("terms", "accepted")])
        let link = try require(Self.link(in: try app.environment.database.notices.mail(to: email).last, path: "/confirm"))
        try open(link)
        try post("/confirm", [("token", String(link.split(separator: "=").last ?? ""))])
    }

    @discardableResult
    func signIn(email: String, password: String = "correct horse battery") throws -> Response {
        try get("/signin")
        return try post("/signin", [("email", email), ("password", password)])
    }

    /// The `path?token=…` link in an email, made relative.
    static func link(in message: OutboxMessage?, path: String) -> String? {
        guard let body = message?.body, let match = body.firstMatch(of: /https?:\/\/[^\/\s]+(\/[a-z]+\?token=[A-Za-z0-9_-]+)/),
            match.1.hasPrefix(path)
        else { return nil }
        return String(match.1)
    }
}

/// `#require` outside a test body.
func require<T>(_ value: T?, _ message: String = "required value missing") throws -> T {
    guard let value else { throw RequireError(message: message) }
    return value
}

struct RequireError: Error { var message: String }
