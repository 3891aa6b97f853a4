import Foundation

/// A street or place a shopper typed, found: where distances are then measured from.
public struct FoundPlace: Sendable, Equatable {
    /// As the finder names it ("Via Torino, Milano").
    public var name: String
    public var position: GeoPoint

    public init(name: String, position: GeoPoint) {
        self.name = name
        self.position = position
    }
}

/// Finds a street address or a place by name: the demo's gazetteer, or a Nominatim-compatible
/// geocoder the operator runs or chooses.
public protocol PlaceFinder: Sendable {
    /// The best match for `query`, or nil if there is none; throws when the finder cannot be
    /// asked (a geocoder that does not answer).
    func find(_ query: String) throws -> FoundPlace?
}

/// What a search box may hold: at most 200 characters, trimmed; nil when empty.
public enum PlaceQuery {
    public static let longest = 200

    public static func cleaned(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        return String(trimmed.prefix(longest))
    }
}

/// A small list of a city's streets and places, searched on this server: nothing typed leaves
/// it. Words are compared without case or accents; a house number, a postcode and the city's
/// name are not needed to match ("via torino 21, 20123 milano" finds Via Torino).
public struct Gazetteer: PlaceFinder {
    public struct Entry: Sendable {
        public var name: String
        public var position: GeoPoint

        public init(name: String, position: GeoPoint) {
            self.name = name
            self.position = position
        }
    }

    public var entries: [Entry]
    /// The city's names, left out of a query ("Milano", "Milan").
    public var city: [String]

    public init(entries: [Entry], city: [String]) {
        self.entries = entries
        self.city = city.map(Self.fold)
    }

    /// Lower case, accents and punctuation gone, words split.
    static func words(_ text: String) -> [String] {
        fold(text).split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: Locale(identifier: "en_US_POSIX"))
    }

    public func find(_ query: String) throws -> FoundPlace? {
        let asked = Self.words(query).filter { word in !word.allSatisfy(\.isNumber) && !city.contains(word) }
        guard !asked.isEmpty else { return nil }
        // Every word asked is the start of a word of the name; the fewest words left over first
        // ("Torino" finds "Via Torino" before "Corso di Porta Torino Nuova").
        let matches = entries.compactMap { entry -> (Entry, Int)? in
            let named = Self.words(entry.name)
            guard asked.allSatisfy({ word in named.contains { $0.hasPrefix(word) } }) else { return nil }
            return (entry, named.count - asked.count)
        }
        return matches.min { $0.1 < $1.1 }.map { FoundPlace(name: $0.0.name, position: $0.0.position) }
    }
}
