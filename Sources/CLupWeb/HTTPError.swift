import CLupData
import CLupDomain
import CLupText

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
    public static var notFound: HTTPError { HTTPError(404, tr("error.notFound")) }
    public static var payloadTooLarge: HTTPError { HTTPError(413, tr("error.tooLarge")) }

    /// What a storage failure means for the person, if it is one they should hear about:
    /// the disk full, or the database held by another writer past the wait. Either way the
    /// transaction was rolled back, so nothing was changed, and trying again later may work.
    public static func storage(_ error: any Error) -> HTTPError? {
        switch AppDatabase.storageFailure(error) {
        case .diskFull?:
            return HTTPError(503, tr("error.full"), headers: ["Retry-After": "60"], title: tr("error.fullTitle"))
        case .busy?:
            return HTTPError(503, tr("error.busy"), headers: ["Retry-After": "5"], title: tr("error.busyTitle"))
        case nil:
            return nil
        }
    }

    public static func methodNotAllowed(allowed: [HTTPMethod]) -> HTTPError {
        HTTPError(405, tr("error.method"),
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
