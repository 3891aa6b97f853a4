import CLupData
import CLupDomain
import CLupSupport
import Foundation

/// URLs of the static files pages link to, fingerprinted with a digest of their content
/// (`/assets/app.3f9a0c12de.css`) so nginx can let browsers cache them for a year and a
/// changed file is fetched at once. nginx maps the fingerprinted name back to the file.
public struct Assets: Sendable {
    public let stylesheet: String
    public let script: String
    public let icon: String

    public enum LoadError: Error, CustomStringConvertible {
        case missing(String)
        public var description: String {
            switch self {
            case .missing(let path): "static asset not found: \(path)"
            }
        }
    }

    /// Reads and fingerprints the assets under `publicDirectory/assets`; a missing one stops
    /// start-up rather than producing pages with broken links.
    public init(publicDirectory: String) throws {
        func url(_ name: String) throws -> String {
            let path = "\(publicDirectory)/assets/\(name)"
            guard let data = FileManager.default.contents(atPath: path) else { throw LoadError.missing(path) }
            let fingerprint = Sodium.sha256(data).prefix(5).hexString
            let dot = name.lastIndex(of: ".") ?? name.endIndex
            return "/assets/\(name[..<dot]).\(fingerprint)\(name[dot...])"
        }
        stylesheet = try url("app.css")
        script = try url("app.js")
        icon = try url("icon.svg")
    }
}
