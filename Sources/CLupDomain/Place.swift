/// A named point a shopper can measure distances from without sharing their location: the
/// no-JavaScript alternative to geolocation and to picking a point on the map.
public struct Place: Sendable, Hashable {
    public var key: String
    public var name: String
    public var position: GeoPoint

    /// Well-known points across Milan, CLup's launch city. The first is the default.
    public static let milan: [Place] = [
        Place(key: "duomo", name: "Duomo (city centre)", position: .milanCentre),
        Place(key: "centrale", name: "Milano Centrale", position: GeoPoint(latitude: 45.4861, longitude: 9.2044)),
        Place(key: "garibaldi", name: "Porta Garibaldi", position: GeoPoint(latitude: 45.4846, longitude: 9.1874)),
        Place(key: "cadorna", name: "Cadorna", position: GeoPoint(latitude: 45.4683, longitude: 9.1756)),
        Place(key: "navigli", name: "Navigli (Darsena)", position: GeoPoint(latitude: 45.4524, longitude: 9.1775)),
        Place(key: "porta-romana", name: "Porta Romana", position: GeoPoint(latitude: 45.4512, longitude: 9.2030)),
        Place(key: "citta-studi", name: "Città Studi", position: GeoPoint(latitude: 45.4781, longitude: 9.2275)),
        Place(key: "loreto", name: "Loreto", position: GeoPoint(latitude: 45.4858, longitude: 9.2163)),
        Place(key: "bicocca", name: "Bicocca", position: GeoPoint(latitude: 45.5147, longitude: 9.2110)),
        Place(key: "san-siro", name: "San Siro", position: GeoPoint(latitude: 45.4781, longitude: 9.1240)),
        Place(key: "lorenteggio", name: "Lorenteggio", position: GeoPoint(latitude: 45.4528, longitude: 9.1340)),
        Place(key: "corvetto", name: "Corvetto", position: GeoPoint(latitude: 45.4405, longitude: 9.2226)),
    ]
}
