import CLupData
import CLupDomain
import Foundation

/// What the application answers: status, headers in order (`Set-Cookie` may repeat), body.
public struct Response: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int = 200, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// An HTML page. Pages carry personal or live data, so shared caches must not keep them.
    public static func html(_ html: String, status: Int = 200) -> Response {
        Response(status: status, headers: [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Cache-Control", "no-store"),
        ], body: Array(html.utf8))
    }

    public static func json<Value: Encodable>(_ value: Value, status: Int = 200) -> Response {
        json(text: jsonText(value), status: status)
    }

    /// JSON already written (`jsonText`), as `json(_:)` answers it.
    static func json(text: String, status: Int = 200) -> Response {
        Response(status: status, headers: [
            ("Content-Type", "application/json"),
            ("Cache-Control", "no-store"),
        ], body: Array(text.utf8))
    }

    /// `value` as the JSON `json(_:)` sends: keys sorted.
    static func jsonText<Value: Encodable>(_ value: Value) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// 303 See Other: after a POST, the browser fetches `location` with GET.
    public static func redirect(to location: String) -> Response {
        Response(status: 303, headers: [("Location", location)])
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The `Set-Cookie` value for cookie `name`, if this response sets it (the last one wins,
    /// as in a browser).
    public func setCookie(named name: String) -> String? {
        headers.last { $0.name == "Set-Cookie" && $0.value.hasPrefix(name + "=") }?.value
    }

    public mutating func setCookie(_ cookie: Cookie) {
        headers.append(("Set-Cookie", cookie.headerValue))
    }
}

/// A `Set-Cookie` value with safe defaults: HttpOnly, SameSite=Lax, Path=/, and Secure
/// whenever the site is served over HTTPS.
public struct Cookie: Sendable, Equatable {
    public var name: String
    public var value: String
    public var maxAge: Int?
    public var secure: Bool
    public var httpOnly = true
    public var sameSite = "Lax"

    public init(name: String, value: String, maxAge: Int?, secure: Bool) {
        self.name = name
        self.value = value
        self.maxAge = maxAge
        self.secure = secure
    }

    public var headerValue: String {
        var parts = ["\(name)=\(value)", "Path=/"]
        if let maxAge { parts.append("Max-Age=\(maxAge)") }
        if secure { parts.append("Secure") }
        if httpOnly { parts.append("HttpOnly") }
        parts.append("SameSite=\(sameSite)")
        return parts.joined(separator: "; ")
    }
}
