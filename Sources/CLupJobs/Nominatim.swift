import CLupDomain
import CLupSupport
import Foundation
import Synchronization

/// A Nominatim-compatible geocoder (OpenStreetMap's open-source one, run by the operator or
/// a provider), asked with `/search?q=…&format=jsonv2&limit=1`. Only what the shopper typed
/// is sent. Query fields in `baseURL` are kept (`countrycodes=it`, `viewbox=…&bounded=1`).
public struct NominatimFinder: PlaceFinder {
    public var baseURL: String
    /// Fetches a URL's body; curl by default, at most `timeout` seconds.
    public var fetch: @Sendable (URL) throws -> Data

    public init(baseURL: String, fetch: (@Sendable (URL) throws -> Data)? = nil) {
        self.baseURL = baseURL
        self.fetch = fetch ?? { try CurlFetch.get($0) }
    }

    /// The request's address for `query`.
    public func url(for query: String) throws -> URL {
        guard var components = URLComponents(string: baseURL), components.scheme == "https" || components.scheme == "http"
        else { throw GeocoderError(description: "the geocoder's address is not an http(s) URL: \(baseURL)") }
        components.path = (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path) + "/search"
        components.queryItems = (components.queryItems ?? []).filter { !["q", "format", "limit"].contains($0.name) }
            + [URLQueryItem(name: "q", value: query), URLQueryItem(name: "format", value: "jsonv2"),
               URLQueryItem(name: "limit", value: "1")]
        guard let url = components.url else { throw GeocoderError(description: "cannot make a search URL") }
        return url
    }

    public func find(_ query: String) throws -> FoundPlace? {
        let body = try fetch(try url(for: query))
        guard let results = try? JSONSerialization.jsonObject(with: body) as? [[String: Any]] else {
            throw GeocoderError(description: "the geocoder's answer is not a list of places")
        }
        guard let first = results.first else { return nil }
        guard let latitude = (first["lat"] as? String).flatMap(Double.init),
              let longitude = (first["lon"] as? String).flatMap(Double.init),
              let position = GeoPoint(validLatitude: latitude, longitude: longitude)
        else { throw GeocoderError(description: "the geocoder's place has no position") }
        let name = (first["display_name"] as? String) ?? (first["name"] as? String) ?? query
        return FoundPlace(name: String(name.prefix(200)), position: position)
    }
}

public struct GeocoderError: Error, CustomStringConvertible {
    public var description: String
}

/// A URL's body through curl: at most 2 s to connect and 4 s in all, so a geocoder that hangs
/// holds a page for seconds, not forever.
enum CurlFetch {
    static func get(_ url: URL) throws -> Data {
        let run = try ChildProcess.run(
            "/usr/bin/curl",
            ["--silent", "--show-error", "--fail", "--connect-timeout", "2", "--max-time", "4",
             "--proto", "=https,http", "--header", "User-Agent: CLup", "--header", "Accept: application/json",
             "--url", url.absoluteString])
        guard run.status == 0 else {
            throw GeocoderError(description: "the geocoder did not answer (curl exit \(run.status))")
        }
        return Data(run.output)
    }
}

/// Another finder asked off the page's thread, so that a slow or dead geocoder costs a page
/// at most `deadline`, never one of the worker's page threads for curl's four seconds:
///
/// - answers are kept for a day (at most `capacity` queries): the same street asked by many
///   shoppers is looked up once;
/// - a query not kept is looked up on a thread of its own, at most `lookups` at once (more
///   are refused at once), and one already on its way is waited for, not asked again;
/// - a page waits at most `deadline` for it, and at most `waiters` pages wait at once (give
///   fewer than the worker's page threads: the others serve other pages meanwhile); the
///   lookup goes on, and its answer is kept for the next page;
/// - after a failure, or a lookup past the deadline, the finder is not asked for `pause`:
///   pages say at once that search is unavailable.
public final class RememberingFinder: PlaceFinder {
    let finder: any PlaceFinder
    let capacity: Int
    let lifetime: TimeInterval
    let deadline: TimeInterval
    let pause: TimeInterval
    let lookups: Int
    let waiters: Int
    let clock: @Sendable () -> Date

    /// A lookup on its way: those who ask for the same query wait on it.
    final class Lookup: @unchecked Sendable {
        // @unchecked: `result` is written once, before `done` is left, and read after waiting on it.
        let done = DispatchGroup()
        var result: Result<FoundPlace?, any Error> = .failure(GeocoderError(description: "not answered"))
        init() { done.enter() }
    }

    private struct State {
        var kept: [String: (place: FoundPlace?, at: Date)] = [:]
        var pending: [String: Lookup] = [:]
        var resting: Date?
        var waiting = 0
    }

    private let state = Mutex(State())

    public init(_ finder: any PlaceFinder, capacity: Int = 1000, lifetime: TimeInterval = 86400, deadline: TimeInterval = 1,
                pause: TimeInterval = 30, lookups: Int = 4, waiters: Int = 2,
                clock: @escaping @Sendable () -> Date = { Date() })
    {
        self.finder = finder
        self.capacity = capacity
        self.lifetime = lifetime
        self.deadline = deadline
        self.pause = pause
        self.lookups = lookups
        self.waiters = waiters
        self.clock = clock
    }

    public func find(_ query: String) throws -> FoundPlace? {
        let key = query.lowercased()
        let now = clock()
        /// What this page does: take the answer kept, or wait for a lookup (started by it or
        /// already on its way), or, with `waiters` pages waiting already, not wait (starting the
        /// lookup for the next page if none is on its way).
        enum Step { case kept(FoundPlace?), wait(Lookup, start: Bool), noWait(start: Lookup?) }
        let step = try state.withLock { state -> Step in
            if let hit = state.kept[key], now.timeIntervalSince(hit.at) < lifetime { return .kept(hit.place) }
            if let resting = state.resting, now < resting {
                throw GeocoderError(
                    description: "the geocoder failed or was slow just now; not asked again before \(resting)")
            }
            let waits = state.waiting < waiters
            let lookup: Lookup
            let start: Bool
            if let pending = state.pending[key] {
                (lookup, start) = (pending, false)
            } else {
                guard state.pending.count < lookups else {
                    throw GeocoderError(description: "\(lookups) lookups are on their way already")
                }
                (lookup, start) = (Lookup(), true)
                state.pending[key] = lookup
            }
            guard waits else { return .noWait(start: start ? lookup : nil) }
            state.waiting += 1
            return .wait(lookup, start: start)
        }
        switch step {
        case .kept(let place):
            return place
        case .noWait(let lookup):
            if let lookup { begin(query, key: key, lookup) }
            throw GeocoderError(description: "\(waiters) pages are waiting for the geocoder already")
        case .wait(let lookup, let start):
            if start { begin(query, key: key, lookup) }
            let answered = lookup.done.wait(timeout: .now() + deadline) == .success
            state.withLock { $0.waiting -= 1 }
            guard answered else {
                rest(from: clock())
                throw GeocoderError(description: "the geocoder did not answer within \(deadline) s")
            }
            return try lookup.result.get()
        }
    }

    /// Starts `lookup` on a thread of its own, not the shared pool: it may block for curl's 4 s.
    private func begin(_ query: String, key: String, _ lookup: Lookup) {
        let thread = Thread { self.look(up: query, key: key, lookup) }
        thread.name = "geocoder"
        thread.start()
    }

    private func look(up query: String, key: String, _ lookup: Lookup) {
        let result = Result { try finder.find(query) }
        let now = clock()
        state.withLock { state in
            state.pending[key] = nil
            if case .success(let place) = result {
                if state.kept.count >= capacity { state.kept.removeAll() }
                state.kept[key] = (place, now)
            }
        }
        if case .failure = result { rest(from: now) }
        lookup.result = result
        lookup.done.leave()
    }

    private func rest(from now: Date) {
        state.withLock { state in state.resting = max(state.resting ?? now, now + pause) }
    }
}
