import CLupData
import CLupDomain
import CLupSupport
import CLupText
import Foundation

/// An HTTP request as the application sees it, independent of the transport: built from CGI
/// parameters (what nginx passes over FastCGI) or directly in tests.
public struct Request: Sendable {
    public var method: HTTPMethod
    /// The decoded path, without the query string, e.g. `/stores/12`.
    public var path: String
    public var query: FormData
    /// Header names in lower case (`user-agent`).
    public var headers: [String: String]
    public var cookies: [String: String]
    public var body: [UInt8]
    public var remoteAddress: String
    /// What rate limits count this client by (`ClientAddress.key`: an IPv6 client by its /64).
    public var client: String { ClientAddress.key(remoteAddress) }
    /// The client reached the web server over TLS, so cookies must be `Secure`.
    public var isHTTPS: Bool
    /// When nginx received the request (its `$msec`, as `CLUP_REQUEST_START`), by the machine's
    /// clock: how long the request waited for the worker.
    public var receivedAt: Date?

    public init(
        method: HTTPMethod, path: String, query: FormData = FormData(), headers: [String: String] = [:],
        cookies: [String: String] = [:], body: [UInt8] = [], remoteAddress: String = "127.0.0.1", isHTTPS: Bool = false
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.cookies = cookies
        self.body = body
        self.remoteAddress = remoteAddress
        self.isHTTPS = isHTTPS
    }

    /// Builds a request from CGI parameters. The method, path, query and cookies must be valid
    /// UTF-8 and well formed, else a 400 explains what is wrong; other headers are decoded
    /// leniently (they are only displayed or logged).
    public init(cgiParams params: [String: [UInt8]], body: [UInt8]) throws(HTTPError) {
        func strict(_ name: String) throws(HTTPError) -> String? {
            guard let bytes = params[name] else { return nil }
            guard let string = String(validating: bytes, as: UTF8.self) else {
                throw .badRequest(tr("error.utf8Request"))
            }
            return string
        }
        let methodName = try strict("REQUEST_METHOD") ?? "GET"
        guard let method = HTTPMethod(rawValue: methodName) else {
            throw HTTPError.methodNotAllowed(allowed: [.get, .head, .post])
        }
        // nginx's $document_uri is already percent-decoded and normalised; without it, decode
        // the path of REQUEST_URI.
        let path: String
        if let documentURI = try strict("DOCUMENT_URI") {
            path = documentURI
        } else {
            let uri = params["REQUEST_URI"] ?? Array("/".utf8)
            let rawPath = uri.split(separator: UInt8(ascii: "?"), maxSplits: 1, omittingEmptySubsequences: false)[0]
            path = try FormData.decode(rawPath, plusIsSpace: false)
        }
        var headers: [String: String] = [:]
        for (name, value) in params where name.hasPrefix("HTTP_") {
            headers[String(headerNameOf: name)] = String(decoding: value, as: UTF8.self)
        }
        if let contentType = params["CONTENT_TYPE"], !contentType.isEmpty {
            headers["content-type"] = String(decoding: contentType, as: UTF8.self)
        }
        self.init(
            method: method,
            path: path,
            query: try FormData(urlEncoded: params["QUERY_STRING"] ?? []),
            headers: headers,
            cookies: Self.parseCookies(try strict("HTTP_COOKIE") ?? ""),
            body: body,
            remoteAddress: params["REMOTE_ADDR"].map { String(decoding: $0, as: UTF8.self) } ?? "",
            isHTTPS: params["HTTPS"].map { String(decoding: $0, as: UTF8.self) == "on" } ?? false
        )
        receivedAt = params["CLUP_REQUEST_START"].flatMap { Double(String(decoding: $0, as: UTF8.self)) }
            .map { Date(timeIntervalSince1970: $0) }
    }

    /// The cookies nginx keys its cache of guests' pages on, besides the address.
    static let cacheKeyCookies: Set<String> = ["lang", "where", "mode"]

    /// Whether nginx's cache key and this worker read the same values of `cacheKeyCookies`.
    /// nginx matches cookie names in any case and also splits at commas; this worker reads the
    /// first exact name between semicolons. A header where those could differ — one of those
    /// names in another case or more than once, or a comma anywhere — makes a page that must
    /// not be shared: `Cookie: LANG=; lang=it` would otherwise store an Italian page under the
    /// key of an English one, for every guest.
    var cacheKeyCookiesAreUnambiguous: Bool {
        guard let header = headers["cookie"] else { return true }
        if header.contains(",") { return false }
        var seen: Set<String> = []
        for part in header.split(separator: ";") {
            let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingSpaces()
            let lowered = name.lowercased()
            guard Self.cacheKeyCookies.contains(lowered) else { continue }
            if name != lowered || !seen.insert(lowered).inserted { return false }
        }
        return true
    }

    /// `a=1; b=2` → ["a": "1", "b": "2"]; the first of repeated names wins, as browsers send
    /// the most specific cookie first.
    static func parseCookies(_ header: String) -> [String: String] {
        var cookies: [String: String] = [:]
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = pair[0].trimmingSpaces()
            guard !name.isEmpty, cookies[name] == nil else { continue }
            var value = pair.count > 1 ? pair[1].trimmingSpaces() : ""
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            cookies[name] = value
        }
        return cookies
    }

    /// The form fields of a POST body: `application/x-www-form-urlencoded` up to
    /// `FormData.maxBodyBytes`, or `multipart/form-data` (a page that uploads a file) up to
    /// `FormData.maxUploadBytes`.
    public func form() throws(HTTPError) -> FormData {
        let contentType = headers["content-type"] ?? ""
        let lowered = contentType.lowercased()
        if lowered.hasPrefix("multipart/form-data") {
            guard body.count <= FormData.maxUploadBytes else { throw HTTPError(413, tr("error.formTooLarge")) }
            let boundary = contentType.split(separator: ";").dropFirst().lazy
                .map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.lowercased().hasPrefix("boundary=") }
                .map { String($0.dropFirst("boundary=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
            return try FormData(multipart: body, boundary: boundary ?? "")
        }
        guard lowered.hasPrefix("application/x-www-form-urlencoded") else {
            throw HTTPError(415, tr("error.formType"))
        }
        guard body.count <= FormData.maxBodyBytes else { throw HTTPError(413, tr("error.formTooLarge")) }
        return try FormData(urlEncoded: body)
    }
}

extension Substring {
    /// Without the spaces at either end. Cut by bytes (a space is one byte in UTF-8, so the
    /// cut never splits a character): a cookie header is read on every request, and trimming
    /// by `Character` built two reversed copies of each name and value, a tenth of a
    /// signed-in page's time.
    fileprivate func trimmingSpaces() -> String {
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { $0 != UInt8(ascii: " ") }),
            let last = bytes.lastIndex(where: { $0 != UInt8(ascii: " ") })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}

extension String {
    /// `HTTP_ACCEPT_LANGUAGE` → `accept-language`: the header's name as written in lower case,
    /// from its CGI parameter's name, in one pass over its ASCII bytes.
    fileprivate init(headerNameOf parameter: String) {
        self.init(decoding: parameter.utf8.dropFirst(5).map { byte in
            switch byte {
            case UInt8(ascii: "_"): UInt8(ascii: "-")
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 32
            default: byte
            }
        }, as: UTF8.self)
    }
}

extension Request {
    /// The cookie that keeps the language a visitor chose (the switch: `/en`, `/it`).
    static let languageCookie = "lang"

    /// The language to answer in: the one chosen on this device, else the first of the
    /// browser's that CLup speaks, else English.
    var language: Language {
        Self.language(chosen: cookies[Self.languageCookie], acceptLanguage: headers["accept-language"])
    }

    /// The same, from raw CGI parameters, before the request is read (it may not be readable).
    static func language(cookieHeader: [UInt8]?, acceptLanguage: [UInt8]?) -> Language {
        language(chosen: parseCookies(cookieHeader.map { String(decoding: $0, as: UTF8.self) } ?? "")[languageCookie],
                 acceptLanguage: acceptLanguage.map { String(decoding: $0, as: UTF8.self) })
    }

    private static func language(chosen: String?, acceptLanguage: String?) -> Language {
        chosen.flatMap(Language.init(rawValue:)) ?? acceptLanguage.flatMap(Language.preferred(acceptLanguage:)) ?? .en
    }
}
