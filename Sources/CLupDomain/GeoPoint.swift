import Foundation

/// A position on Earth in decimal degrees (WGS 84), as browsers and maps give it.
public struct GeoPoint: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Nil unless both coordinates are finite and in range, so a malformed query never
    /// becomes a position.
    public init?(validLatitude latitude: Double, longitude: Double) {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude),
            (-180...180).contains(longitude)
        else { return nil }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// Milan's cathedral square: where the city measures its distances from.
    public static let milanCentre = GeoPoint(latitude: 45.46417, longitude: 9.19036)

    private static let earthRadiusMetres = 6_371_008.8

    /// Great-circle distance in metres (haversine): accurate to well under 0.5% at city scale.
    public func distance(to other: GeoPoint) -> Double {
        let lat1 = latitude * .pi / 180
        let lat2 = other.latitude * .pi / 180
        let dLat = lat2 - lat1
        let dLon = (other.longitude - longitude) * .pi / 180
        let a = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * Self.earthRadiusMetres * asin(min(1, sqrt(a)))
    }
}
