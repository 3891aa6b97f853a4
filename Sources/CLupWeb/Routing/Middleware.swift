/// A step between the router and a handler, declared once on a group of routes: it may refuse
/// the request (by throwing), hand the handlers after it a richer context (`Output`: a signed-in
/// user, a kiosk…), and change their response (cookies, error pages).
struct Middleware<Input, Output>: Sendable {
    /// As the route listing shows it: `signedIn`, `csrf`…
    let name: String
    /// The methods it acts on; nil for every method. A guard that only checks unsafe methods
    /// (CSRF) lets the others through unchanged and is not listed for them.
    let methods: Set<HTTPMethod>?
    let run: @Sendable (Input, _ next: (Output) throws -> Response) throws -> Response

    init(_ name: String, methods: Set<HTTPMethod>? = nil,
         run: @escaping @Sendable (Input, _ next: (Output) throws -> Response) throws -> Response)
    {
        self.name = name
        self.methods = methods
        self.run = run
    }

    /// A guard: checks the request and derives the context the handlers get, or throws.
    static func check(_ name: String, _ derive: @escaping @Sendable (Input) throws -> Output) -> Middleware {
        Middleware(name) { input, next in try next(derive(input)) }
    }
}
