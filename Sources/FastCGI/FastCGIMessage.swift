/// One request as the web server handed it over: the CGI parameters and the body, owned, so the
/// value can cross threads.
///
/// Parameter values are kept as bytes: the web server passes the URI and headers as the client
/// sent them, and only the application knows which of them must be valid UTF-8.
public struct FastCGIRequest: Sendable {
    /// CGI parameters (`REQUEST_METHOD`, `QUERY_STRING`, `HTTP_COOKIE`, …) by name.
    public var params: [String: [UInt8]]
    /// The request body; empty when `bodyTooLarge` is set.
    public var body: [UInt8]
    /// The declared or actual body exceeded the configured limit; the body was not read.
    public var bodyTooLarge: Bool

    public init(params: [String: [UInt8]], body: [UInt8] = [], bodyTooLarge: Bool = false) {
        self.params = params
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }

    /// A parameter decoded as UTF-8, or nil when absent or not valid UTF-8.
    public func param(_ name: String) -> String? {
        params[name].flatMap { String(validating: $0, as: UTF8.self) }
    }
}

/// What the application answers: a status, headers in order (a name may repeat, as `Set-Cookie`
/// does) and the body bytes.
public struct FastCGIResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The CGI response head: a `Status:` line, the headers and the blank line that ends them.
    /// Header values are stripped of CR and LF so no value can inject a header of its own.
    ///
    /// The body's length goes with it (the whole body is known before anything is sent): nginx
    /// then passes it on instead of cutting the body into chunks, and a page it serves from its
    /// cache leaves in one `sendfile` without a last write for the closing chunk. A HEAD answer
    /// has the same head, its body left out. Not for 204 and 304, which have no body.
    public var head: String {
        var text = "Status: \(status) \(Self.reasonPhrase(status))\r\n"
        for header in headers {
            // By scalar: "\r\n" is a single Character, which a Character filter would miss.
            var value = String.UnicodeScalarView()
            value.append(contentsOf: header.value.unicodeScalars.filter { $0 != "\r" && $0 != "\n" })
            text += "\(header.name): \(String(value))\r\n"
        }
        if status != 204, status != 304 { text += "Content-Length: \(body.count)\r\n" }
        text += "\r\n"
        return text
    }

    /// The standard reason phrase, for the status line nginx builds from `Status:`.
    public static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        default: "Status \(status)"
        }
    }
}
