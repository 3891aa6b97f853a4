import CLupDomain
import CLupPaths

extension IdPath {
    /// The link for a store, reservation or account: `Paths.store(store.id)`.
    func callAsFunction<Owner>(_ id: Identifier<Owner>, query: String = "") -> String {
        self(id.rawValue, query: query)
    }
}
