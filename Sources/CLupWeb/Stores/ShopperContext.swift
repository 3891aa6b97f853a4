import CLupData
import CLupDomain
import Foundation

/// Where the shopper measures distances from and how they travel, read from the query string
/// and the `mode` cookie. Bad values do not fail the page: it falls back to the defaults and
/// says why in `notice`.
struct ShopperContext {
    var position: GeoPoint
    /// "Duomo (city centre)", "the point you chose".
    var positionLabel: String
    /// The named place in use, if the position is one.
    var placeKey: String?
    var mode: TravelMode
    /// The mode was chosen in this request and should be remembered.
    var modeChanged: Bool
    var notice: String?
    /// `query()`: the same for every link of a page, so encoded once.
    private(set) var positionQuery: String

    static let modeCookie = "mode"

    /// A signed-in person's default means of transport (their profile) applies unless the
    /// `mode` cookie or the query says otherwise.
    init(request: Request, settings: SiteSettings, user: User? = nil) {
        var notices: [String] = []
        let query = request.query
        position = settings.defaultPlace.position
        positionLabel = settings.defaultPlace.name
        placeKey = settings.defaultPlace.key
        if query["lat"] != nil || query["lon"] != nil {
            if let lat = query["lat"].flatMap(Double.init), let lon = query["lon"].flatMap(Double.init),
                let point = GeoPoint(validLatitude: lat, longitude: lon)
            {
                position = point
                positionLabel = "the point you chose"
                placeKey = nil
            } else {
                notices.append("That position could not be read, so distances are from \(positionLabel).")
            }
        } else if let key = query["place"] {
            if let place = settings.places.first(where: { $0.key == key }) {
                position = place.position
                positionLabel = place.name
                placeKey = place.key
            } else {
                notices.append("That place is not one we know, so distances are from \(positionLabel).")
            }
        }
        mode = request.cookies[Self.modeCookie].flatMap(TravelMode.init(rawValue:)) ?? user?.travelMode ?? .walking
        modeChanged = false
        if let requested = query["mode"] {
            if let chosen = TravelMode(rawValue: requested) {
                mode = chosen
                modeChanged = true
            } else {
                notices.append("That means of transport is not one we know, so times are \(mode.label.lowercased()).")
            }
        }
        notice = notices.isEmpty ? nil : notices.joined(separator: " ")
        positionQuery = ""
        positionQuery = FormData(pairs: positionFields).urlEncoded
    }

    /// The query that keeps this position (and optionally a mode and more fields) in links.
    func query(mode: TravelMode? = nil, extra: [(name: String, value: String)] = []) -> String {
        guard mode != nil || !extra.isEmpty else { return positionQuery }
        return FormData(pairs: positionFields + (mode.map { [("mode", $0.rawValue)] } ?? []) + extra).urlEncoded
    }

    /// The position as query fields: the named place, or the point.
    var positionFields: [(name: String, value: String)] {
        if let placeKey { return [("place", placeKey)] }
        return [("lat", NumberText.fixed(position.latitude, digits: 5)),
                ("lon", NumberText.fixed(position.longitude, digits: 5))]
    }

    /// Remembers the chosen mode for a year. A preference, not account state: it may be set
    /// on GET.
    func remember(in response: inout Response, secure: Bool) {
        guard modeChanged else { return }
        response.setCookie(Cookie(name: Self.modeCookie, value: mode.rawValue, maxAge: 365 * 24 * 3600, secure: secure))
    }
}
