import CLupData
import CLupDomain
/// An error the person can act on: it carries the HTTP status and a message shown to them.
/// Anything thrown that is not an `HTTPError` becomes a generic 500 page; its details go to the
/// log only.
public struct HTTPError: Error, Sendable, Equatable {
    public var status: Int
    public var message: String
    /// Headers the error response must carry, e.g. `Allow` for 405.
    public var headers: [String: String]
    /// The page's heading when the refusal is an ordinary situation with its own name (the
    /// status code is then not shown); nil: the status's generic heading.
    public var title: String?

    public init(_ status: Int, _ message: String, headers: [String: String] = [:], title: String? = nil) {
        self.status = status
        self.message = message
        self.headers = headers
        self.title = title
    }

    public static func badRequest(_ message: String) -> HTTPError { HTTPError(400, message) }
    public static let notFound = HTTPError(404, "There is no page at this address. It may have moved, or the link may be mistyped.")
    public static let payloadTooLarge = HTTPError(413, "What you sent is larger than CLup accepts. Please send less and try again.")

    public static func methodNotAllowed(allowed: [HTTPMethod]) -> HTTPError {
        HTTPError(405, "This page cannot be used that way.",
                  headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")])
    }
}

public enum HTTPMethod: String, Sendable, Hashable, CaseIterable {
    case get = "GET"
    case head = "HEAD"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
    case options = "OPTIONS"
}
