import Testing

@testable import CLupDomain

/// The demo city's search: words without case or accents, a house number, postcode and the
/// city's name not needed, the closest name first.
@Suite("Gazetteer")
struct GazetteerTests {
    static let torino = GeoPoint(latitude: 45.4618, longitude: 9.1858)
    static let gazetteer = Gazetteer(entries: [
        Gazetteer.Entry(name: "Via Torino, Milano", position: torino),
        Gazetteer.Entry(name: "Corso di Porta Torino Nuova, Milano", position: GeoPoint(latitude: 45.5, longitude: 9.2)),
        Gazetteer.Entry(name: "Città Studi", position: GeoPoint(latitude: 45.4781, longitude: 9.2275)),
    ], city: ["Milano", "Milan"])

    @Test("a street is found however it is typed, with or without number, postcode and city")
    func found() throws {
        for typed in ["Via Torino", "via torino 21", "Via Torino 21, 20123 Milano", "  VIA   TORINO  ", "torino", "v torino"] {
            #expect(try Self.gazetteer.find(typed)?.position == Self.torino, "\(typed)")
        }
        #expect(try Self.gazetteer.find("citta studi")?.name == "Città Studi")
        #expect(try Self.gazetteer.find("Porta Torino")?.name == "Corso di Porta Torino Nuova, Milano")
    }

    @Test("nothing is found for words no name has, nor for a number or the city alone")
    func notFound() throws {
        for typed in ["Atlantis", "Via Roma", "21", "Milano", "", "  ,  ", "torino atlantis"] {
            #expect(try Self.gazetteer.find(typed) == nil, "\(typed)")
        }
    }

    @Test("a search box's text is trimmed, cut to 200 characters, and nothing when empty")
    func query() {
        #expect(PlaceQuery.cleaned("  Via Torino \n") == "Via Torino")
        #expect(PlaceQuery.cleaned(String(repeating: "a", count: 500))?.count == 200)
        #expect(PlaceQuery.cleaned("   ") == nil)
    }
}
