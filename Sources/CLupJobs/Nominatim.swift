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

/// Another finder's answers, kept for a day (at most `capacity` queries): the same street
/// asked by many shoppers is looked up once.
public final class RememberingFinder: PlaceFinder {
    let finder: any PlaceFinder
    let capacity: Int
    let lifetime: TimeInterval
    private let kept = Mutex<[String: (place: FoundPlace?, at: Date)]>([:])

    public init(_ finder: any PlaceFinder, capacity: Int = 1000, lifetime: TimeInterval = 86400) {
        self.finder = finder
        self.capacity = capacity
        self.lifetime = lifetime
    }

    public func find(_ query: String) throws -> FoundPlace? {
        let key = query.lowercased()
        let now = Date()
        if let hit = kept.withLock({ $0[key] }), now.timeIntervalSince(hit.at) < lifetime { return hit.place }
        let place = try finder.find(query)
        kept.withLock { kept in
            if kept.count >= capacity { kept.removeAll() }
            kept[key] = (place, now)
        }
        return place
    }
}
