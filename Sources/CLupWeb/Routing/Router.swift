/// Maps a method and path to a route. Paths are matched segment by segment; a `{name}`
/// segment captures that segment. A path that matches under another method answers 405 with
/// `Allow`; no match answers 404.
public struct Router<Route: Sendable>: Sendable {
    private struct Entry: Sendable {
        var method: HTTPMethod
        var pattern: String
        var segments: [Substring]
        var route: Route
    }

    private var entries: [Entry] = []

    public init() {}

    public mutating func add(_ method: HTTPMethod, _ pattern: String, _ route: Route) {
        entries.append(Entry(method: method, pattern: pattern, segments: pattern.split(separator: "/"), route: route))
    }

    /// Every method and pattern added, in order (for checking the API's description).
    public var patterns: [(method: HTTPMethod, pattern: String)] { entries.map { ($0.method, $0.pattern) } }

    /// The route and captured parameters, or the 404/405 to answer.
    ///
    /// Only a path as the table writes it matches: `/signin/` or `//signin` is not `/signin`,
    /// so a limit nginx keys on the exact path (sign-in attempts) cannot be stepped around.
    public func match(method: HTTPMethod, path: String) throws(HTTPError) -> (route: Route, parameters: [String: String]) {
        guard path.hasPrefix("/"), path == "/" || !path.hasSuffix("/"), !path.contains("//") else { throw .notFound }
        let segments = path.split(separator: "/")
        var allowed: [HTTPMethod] = []
        for entry in entries {
            guard let parameters = Self.capture(entry.segments, in: segments) else { continue }
            // HEAD is answered as GET; nginx drops the body.
            if entry.method == method || (method == .head && entry.method == .get) {
                return (entry.route, parameters)
            }
            allowed.append(entry.method)
            if entry.method == .get { allowed.append(.head) }
        }
        if allowed.isEmpty { throw .notFound }
        throw .methodNotAllowed(allowed: allowed)
    }

    private static func capture(_ pattern: [Substring], in segments: [Substring]) -> [String: String]? {
        guard pattern.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, segments) {
            if expected.hasPrefix("{") && expected.hasSuffix("}") {
                parameters[String(expected.dropFirst().dropLast())] = String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }
}
