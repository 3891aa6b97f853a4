import CLupData
import CLupDomain
import CLupText
import Foundation

/// The pages nginx serves itself — 405, 413, 429, and 502 when the worker cannot answer — in
/// each language (502.html in English, 502.it.html in Italian), and the device API's 405 and
/// 413 as JSON. The 502 page names the next scheduled maintenance: a shopper who meets it
/// while the worker is stopped for one is told when CLup is back.
public struct StaticPages: Sendable {
    public let views: Views
    public let directory: String

    public init(views: Views, directory: String) {
        self.views = views
        self.directory = directory
    }

    /// Writes every page; returns their paths.
    @discardableResult
    public func write(maintenance: MaintenanceWindow?, now: Date) throws -> [String] {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var written: [String] = []
        for language in Language.allCases {
            try Language.$current.withValue(language) {
                let suffix = language == .en ? "" : "." + language.rawValue
                let unavailable = tr("static.502") + (maintenance.map { window in
                    let (from, until) = Formatting.span(window, now: now)
                    return " " + tr("static.maintenance", ["from": from, "until": until, "zone": window.timeZone])
                } ?? "")
                for (status, message) in [(405, tr("static.405")), (413, HTTPError.payloadTooLarge.message),
                                          (429, tr("static.429")), (502, unavailable)] {
                    let path = "\(directory)/\(status)\(suffix).html"
                    try views.errorPage(status: status, message: message).write(toFile: path, atomically: true, encoding: .utf8)
                    written.append(path)
                }
                // The device API's: JSON with a stable code, as its description promises.
                for (status, code, message) in [(405, "methodNotAllowed", tr("static.405")),
                                                 (413, "payloadTooLarge", HTTPError.payloadTooLarge.message)] {
                    let path = "\(directory)/\(status)\(suffix).json"
                    let body = try JSONSerialization.data(withJSONObject: ["code": code, "message": message],
                                                          options: [.sortedKeys])
                    try body.write(to: URL(fileURLWithPath: path))
                    written.append(path)
                }
            }
        }
        return written
    }

    /// Writes them again for the soonest maintenance in `database` not over at `now`.
    @discardableResult
    public func refresh(from database: AppDatabase, now: Date) throws -> [String] {
        try write(maintenance: try database.maintenanceWindows(now: now).first, now: now)
    }
}
