import Foundation

/// Fills `@NAME@` placeholders in an nginx configuration template, so the run script, the
/// end-to-end tests and the benchmark all serve CLup through one configuration.
public enum NginxConfig {
    public enum RenderError: Error, CustomStringConvertible {
        case unfilled([String])
        public var description: String {
            "nginx template placeholders without a value: " + unfilledNames.joined(separator: ", ")
        }
        var unfilledNames: [String] {
            switch self { case .unfilled(let names): names }
        }
    }

    /// Replaces every `@NAME@` with `values[NAME]`; a placeholder left without a value is an
    /// error rather than a broken configuration.
    public static func render(template: String, values: [String: String]) throws -> String {
        var text = template
        for (name, value) in values {
            text = text.replacingOccurrences(of: "@\(name)@", with: value)
        }
        let leftovers = text.matches(of: /@([A-Z][A-Z_]*)@/).map { String($0.1) }
        guard leftovers.isEmpty else { throw RenderError.unfilled(Array(Set(leftovers)).sorted()) }
        return text
    }

    /// The origin a tile URL template loads images from, for the Content-Security-Policy:
    /// `https://{s}.tile.example.org/{z}/{x}/{y}.png` → `https://*.tile.example.org`.
    public static func imageOrigin(ofTileURL url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "'self'" }
        let afterScheme = url[schemeEnd.upperBound...]
        let host = afterScheme.prefix { $0 != "/" }
        return url[..<schemeEnd.upperBound] + host.replacingOccurrences(of: "{s}", with: "*")
    }
}
