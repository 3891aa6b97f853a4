import CLupPaths

/// One registered route: what the router matches, the guards its group declared (for the
/// route listing), and the handler wrapped in those guards.
struct RouteEntry: Sendable {
    var method: HTTPMethod
    var pattern: String
    var guards: [String]
    var handle: @Sendable (RequestContext) throws -> Response
}

/// The routes of the app as the areas register them, at start-up. Matching is `Router`'s.
final class Routes {
    private(set) var entries: [RouteEntry] = []
    /// What answers a path no route matches (404) or a method it does not take (405), by
    /// prefix, longest first: the site's pages answer HTML, the device API JSON.
    private(set) var fallbacks: [(prefix: String, answer: @Sendable (RequestContext, HTTPError) -> Response)] = []

    /// The group every other is made from: no guard.
    var root: RouteGroup<RequestContext> {
        RouteGroup(routes: self, guards: [], chain: { context, handler in try handler(context) })
    }

    fileprivate func add(_ entry: RouteEntry) {
        precondition(!entries.contains { $0.method == entry.method && $0.pattern == entry.pattern },
                     "\(entry.method.rawValue) \(entry.pattern) is registered twice")
        entries.append(entry)
    }

    /// Paths under `prefix` that match no route are answered through `group`'s middleware,
    /// as its routes' errors are (so a 404 page knows who is signed in, and the API's is JSON).
    func fallback<Context>(prefix: String, through group: RouteGroup<Context>) {
        let chain = group.chain
        fallbacks.append((prefix, { context, error in
            (try? chain(context) { _ in throw error }) ?? Response.html("", status: error.status)
        }))
        fallbacks.sort { $0.prefix.count > $1.prefix.count }
    }
}

/// Routes that share their guards. `adding` declares a guard once for every route added to
/// the group it returns; the handlers of that group receive the guard's richer context, so a
/// handler that needs a signed-in user cannot be written without the guard that provides one.
struct RouteGroup<Context> {
    fileprivate let routes: Routes
    fileprivate let guards: [(name: String, methods: Set<HTTPMethod>?)]
    let chain: @Sendable (RequestContext, _ handler: (Context) throws -> Response) throws -> Response

    fileprivate init(routes: Routes, guards: [(name: String, methods: Set<HTTPMethod>?)],
                     chain: @escaping @Sendable (RequestContext, (Context) throws -> Response) throws -> Response)
    {
        self.routes = routes
        self.guards = guards
        self.chain = chain
    }

    /// A group whose routes pass through `middleware` after this group's own.
    func adding<Next>(_ middleware: Middleware<Context, Next>) -> RouteGroup<Next> {
        let outer = chain
        return RouteGroup<Next>(
            routes: routes, guards: guards + [(middleware.name, middleware.methods)],
            chain: { context, handler in try outer(context) { inner in try middleware.run(inner, handler) } })
    }

    func get(_ path: some RoutePath, _ handler: @escaping @Sendable (Context) throws -> Response) {
        on(.get, path, handler)
    }

    func post(_ path: some RoutePath, _ handler: @escaping @Sendable (Context) throws -> Response) {
        on(.post, path, handler)
    }

    func on(_ method: HTTPMethod, _ path: some RoutePath,
            _ handler: @escaping @Sendable (Context) throws -> Response)
    {
        let chain = self.chain
        routes.add(RouteEntry(
            method: method, pattern: path.pattern,
            guards: guards.filter { $0.methods?.contains(method) ?? true }.map(\.name),
            handle: { context in try chain(context, handler) }))
    }
}
