import CLupData
import CLupDomain
import CLupJobs
import CLupSupport
import Foundation

/// Everything a handler needs about one request: the request, who sent it, the form fields
/// (already CSRF-checked for a POST), the route's parameters, and the instant it is handled at.
struct RequestContext {
    var request: Request
    var visitor: Visitor
    var form: FormData
    var parameters: [String: String]
    var now: Date

    var secure: Bool { request.isHTTPS }

    /// A route parameter that must be a positive id, else 404.
    func id(_ name: String) throws(HTTPError) -> Int64 {
        guard let value = parameters[name].flatMap({ Int64($0) }), value > 0 else { throw .notFound }
        return value
    }
}
