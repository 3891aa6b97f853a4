import Foundation
import Testing

@testable import CLupDomain

@Suite("Distance and travel time")
struct GeographyTests {
    @Test("one degree of latitude is about 111.2 km")
    func degreeOfLatitude() {
        let metres = GeoPoint(latitude: 45, longitude: 9).distance(to: GeoPoint(latitude: 46, longitude: 9))
        #expect(abs(metres - 111_195) < 50)
    }

    @Test("one degree of longitude shrinks with the cosine of the latitude")
    func degreeOfLongitude() {
        let metres = GeoPoint(latitude: 45, longitude: 9).distance(to: GeoPoint(latitude: 45, longitude: 10))
        #expect(abs(metres - 111_195 * cos(45 * Double.pi / 180)) < 200)
    }

    @Test("Duomo to Milano Centrale is about 2.5 km, the same both ways")
    func acrossMilan() {
        let centrale = GeoPoint(latitude: 45.4861, longitude: 9.2044)
        let there = GeoPoint.milanCentre.distance(to: centrale)
        #expect(there > 2_400 && there < 2_700)
        #expect(abs(there - centrale.distance(to: .milanCentre)) < 0.001)
        #expect(GeoPoint.milanCentre.distance(to: .milanCentre) == 0)
    }

    @Test("positions out of range or not numbers are refused")
    func validation() {
        #expect(GeoPoint(validLatitude: 45.1, longitude: 9.2) != nil)
        #expect(GeoPoint(validLatitude: 91, longitude: 9) == nil)
        #expect(GeoPoint(validLatitude: 45, longitude: -181) == nil)
        #expect(GeoPoint(validLatitude: .nan, longitude: 9) == nil)
        #expect(GeoPoint(validLatitude: 45, longitude: .infinity) == nil)
    }

    @Test("travel time by mode: detour, speed and fixed overhead", arguments: [
        (TravelMode.walking, 1_000.0, 975.0),  // 1.3 km at 4.8 km/h
        (TravelMode.car, 1_000.0, 529.09),  // 1.4 km at 22 km/h + 5 min parking
        (TravelMode.transit, 1_000.0, 712.5),  // 1.3 km at 16 km/h + 7 min to the stop and waiting
        (TravelMode.walking, 0.0, 0.0),
        (TravelMode.car, 0.0, 300.0),
    ])
    func travelTime(mode: TravelMode, metres: Double, seconds: Double) {
        #expect(abs(mode.travelTime(metres: metres) - seconds) < 0.01)
    }

    @Test("on foot is quickest round the corner, the car across town")
    func modesCross() {
        #expect(TravelMode.walking.travelTime(metres: 300) < TravelMode.car.travelTime(metres: 300))
        #expect(TravelMode.car.travelTime(metres: 8_000) < TravelMode.walking.travelTime(metres: 8_000))
        #expect(TravelMode.transit.travelTime(metres: 8_000) < TravelMode.walking.travelTime(metres: 8_000))
    }
}

@Suite("Numbers written for pages")
struct NumberTextTests {
    @Test("fixed decimals read as printf writes them, for the values pages show")
    func fixed() {
        for value in [0.0, 0.5, 1.25, 2.35, 9.99, 45.464172, 9.190361, -0.00001, -45.123456, 123_456.789] {
            for digits in [0, 1, 5] {
                #expect(NumberText.fixed(value, digits: digits) == String(format: "%.\(digits)f", value),
                        "\(value) to \(digits)")
            }
        }
    }

    @Test("two digits and clock times")
    func clock() {
        #expect(NumberText.twoDigits(0) == "00" && NumberText.twoDigits(7) == "07" && NumberText.twoDigits(42) == "42")
        #expect(NumberText.clock(hours: 8, minutes: 5) == "08:05")
        #expect(OpeningHours.clockText(26 * 60 + 30) == "02:30")
    }
}
