import CLupData
import CLupDomain
import CLupText
import Foundation
import Synchronization

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
        try write(maintenance: try database.maintenance.maintenanceWindows(now: now).first, now: now)
    }
}

/// Keeps one host's pages in step with the maintenance windows every worker shares: a worker
/// rewrites its pages when the soonest window is not the one they name (another worker, or
/// `clup admin`, changed it), and every `rewriteAfter` whatever happens, so their words for the
/// day ("today at 22:00") do not outlive the day.
public final class StaticPagesKeeper: Sendable {
    public let pages: StaticPages
    /// The longest a page goes unwritten.
    public static let rewriteAfter: TimeInterval = 600
    private let written = Mutex<(window: MaintenanceWindow?, at: Date)?>(nil)

    public init(pages: StaticPages) {
        self.pages = pages
    }

    /// Rewrites the pages if the soonest window in `database` is not the one they name, or
    /// they were written `rewriteAfter` ago; true if it wrote them.
    @discardableResult
    public func keep(from database: AppDatabase, now: Date) throws -> Bool {
        let soonest = try database.maintenance.maintenanceWindows(now: now).first
        if let last = written.withLock({ $0 }), last.window == soonest,
            now.timeIntervalSince(last.at) < Self.rewriteAfter, now >= last.at
        {
            return false
        }
        try pages.write(maintenance: soonest, now: now)
        written.withLock { $0 = (soonest, now) }
        return true
    }
}
