import CLupData
import CLupDomain
import GRDB
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

    /// What a storage failure means for the person, if it is one they should hear about:
    /// the disk full, or the database held by another writer past the wait. Either way the
    /// transaction was rolled back, so nothing was changed, and trying again later may work.
    public static func storage(_ error: any Error) -> HTTPError? {
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode {
        case .SQLITE_FULL:
            return HTTPError(503, "CLup has no room left to save anything just now. Nothing was changed: please try "
                + "again in a few minutes.", headers: ["Retry-After": "60"], title: "CLup cannot save just now")
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return HTTPError(503, "CLup is busy. Nothing was changed: please try again in a few seconds.",
                             headers: ["Retry-After": "5"], title: "CLup is busy")
        default:
            return nil
        }
    }

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
