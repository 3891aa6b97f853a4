import CLupData
import CLupDomain
import CLupText
import Foundation

/// Where the shopper measures distances from and how they travel, read from the query string,
/// else the `where` and `mode` cookies (the last ones chosen). Bad values do not fail the page:
/// it falls back to the defaults and says why in `notice`.
struct ShopperContext {
    var position: GeoPoint
    /// "Duomo (city centre)", "the point you chose".
    var positionLabel: String
    /// The named place in use, if the position is one.
    var placeKey: String?
    /// The street or place found by the search, if the position is its point ("Via Torino,
    /// Milano"): carried in links as `near`, so the pages name it.
    var nearName: String?
    var mode: TravelMode
    /// The mode was chosen in this request and should be remembered.
    var modeChanged: Bool
    /// The position was chosen in this request and differs from the one remembered.
    var positionChanged = false
    var notice: String?
    /// `query()`: the same for every link of a page, so encoded once.
    private(set) var positionQuery: String

    static let modeCookie = "mode"
    /// The last position chosen: a place's key, or "latitude:longitude" (a cookie's value may
    /// not hold a comma).
    static let positionCookie = "where"

    /// A signed-in person's default means of transport (their profile) applies unless the
    /// `mode` cookie or the query says otherwise.
    init(request: Request, settings: SiteSettings, user: User? = nil) {
        var notices: [String] = []
        let query = request.query
        let remembered = request.cookies[Self.positionCookie]
        typealias Where = (position: GeoPoint, label: String, key: String?)
        func place(_ key: String) -> Where? {
            settings.places.first { $0.key == key }.map { ($0.position, $0.localizedName, $0.key) }
        }
        func point(_ latitude: Double?, _ longitude: Double?) -> Where? {
            guard let latitude, let longitude, let point = GeoPoint(validLatitude: latitude, longitude: longitude)
            else { return nil }
            return (point, tr("where.point"), nil)
        }
        var chosen: Where = (settings.defaultPlace.position, settings.defaultPlace.localizedName, settings.defaultPlace.key)
        if query["lat"] != nil || query["lon"] != nil {
            if var asked = point(query["lat"].flatMap(Double.init), query["lon"].flatMap(Double.init)) {
                if let near = query["near"].flatMap(PlaceQuery.cleaned), PlainText.isPrintable(near) {
                    asked.label = near
                    nearName = near
                }
                chosen = asked
            } else {
                notices.append(tr("where.badPosition", ["place": chosen.label]))
            }
        } else if let key = query["place"] {
            if let asked = place(key) {
                chosen = asked
            } else {
                notices.append(tr("where.badPlace", ["place": chosen.label]))
            }
        } else if let remembered {
            // No position asked for: the last one chosen (a bad cookie is quietly ignored).
            let parts = remembered.split(separator: ":")
            if let kept = place(remembered) ?? (parts.count == 2 ? point(Double(parts[0]), Double(parts[1])) : nil) {
                chosen = kept
            }
        }
        (position, positionLabel, placeKey) = chosen
        mode = request.cookies[Self.modeCookie].flatMap(TravelMode.init(rawValue:)) ?? user?.travelMode ?? .walking
        modeChanged = false
        if let requested = query["mode"] {
            if let chosen = TravelMode(rawValue: requested) {
                mode = chosen
                modeChanged = true
            } else {
                notices.append(tr("where.badMode", ["mode": mode.phrase]))
            }
        }
        notice = notices.isEmpty ? nil : notices.joined(separator: " ")
        positionQuery = ""
        positionQuery = FormData(pairs: positionFields).urlEncoded
        // A place chosen in the form is remembered here; a point (the map, the browser's
        // position) by the page's script as it navigates. Answers to a point's address then
        // set no cookie, so nginx can keep sharing them with every guest who asks for it.
        positionChanged = notices.isEmpty && placeKey != nil && query["place"] != nil
            && positionCookieValue != (remembered ?? settings.defaultPlace.key)
    }

    /// The position as the `where` cookie keeps it.
    var positionCookieValue: String {
        placeKey ?? NumberText.fixed(position.latitude, digits: 5) + ":" + NumberText.fixed(position.longitude, digits: 5)
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
                ("lon", NumberText.fixed(position.longitude, digits: 5))] + (nearName.map { [("near", $0)] } ?? [])
    }

    /// Remembers the chosen mode and position for a year, on this device only. A preference,
    /// not account state: it may be set on GET. (nginx keys its cache of guests' pages on both.)
    func remember(in response: inout Response, secure: Bool) {
        if modeChanged {
            response.setCookie(Cookie(name: Self.modeCookie, value: mode.rawValue, maxAge: 365 * 24 * 3600, secure: secure))
        }
        if positionChanged {
            response.setCookie(Cookie(name: Self.positionCookie, value: positionCookieValue, maxAge: 365 * 24 * 3600,
                                      secure: secure))
        }
    }
}
