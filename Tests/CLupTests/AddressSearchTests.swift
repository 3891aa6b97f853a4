import Foundation
import Logging
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupJobs
@testable import CLupWeb

/// The home page's search: a street or place found sorts the stores from there; one not found,
/// or a geocoder that does not answer, is said so, and the page still lists the stores.
@Suite("Finding a store by address")
struct AddressSearchTests {
    let database: AppDatabase
    let app: App

    init() throws {
        database = try Fixture.database()
        // One store on Via Torino, one far north; from the Duomo (the default) the north one is
        // not the nearest either, so the order shows where distances are measured from.
        try database.stores.createStore(Fixture.store("Bottega Torino", at: GeoPoint(latitude: 45.4620, longitude: 9.1855)),
                                 hours: Fixture.weekdayHours, departments: [])
        try database.stores.createStore(Fixture.store("Mercato Bicocca", at: GeoPoint(latitude: 45.5150, longitude: 9.2110)),
                                 hours: Fixture.weekdayHours, departments: [])
        app = try Fixture.app(database: database)
    }

    func names(_ html: String) -> [String] {
        html.matches(of: /<span class="store-name">([^<]+)</).map { String($0.1) }
    }

    @Test("a street found sorts the stores from it, and the pages name it")
    func streetFound() throws {
        let found = app.get("/?q=" + "viale sarca 223, 20126 milano".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        #expect(found.status == 303)
        let location = try #require(found.header("Location"))
        #expect(location == "/?lat=45.51630&lon=9.21020&near=Viale+Sarca%2C+Milano")
        let page = app.get(location).bodyText
        #expect(page.contains("From <strong>Viale Sarca, Milano</strong>"))
        #expect(names(page) == ["Mercato Bicocca", "Bottega Torino"])
        // Its links keep the name.
        #expect(page.contains("near=Viale+Sarca%2C+Milano"))
    }

    @Test("a named place found is chosen as from the list")
    func placeFound() {
        #expect(app.get("/?q=Bicocca").header("Location") == "/?place=bicocca")
        #expect(app.get("/?q=duomo").header("Location") == "/?place=duomo")
    }

    @Test("nothing found is said, with the text kept in the box, and the stores listed from where they were")
    func notFound() {
        let page = app.get("/?q=Atlantis%2012")
        #expect(page.status == 200)
        let html = page.bodyText
        #expect(html.contains("Nothing called “Atlantis 12” was found."))
        #expect(html.contains(#"<input id="q" name="q" type="search" maxlength="200" value="Atlantis 12""#))
        #expect(names(html) == ["Bottega Torino", "Mercato Bicocca"])
    }

    @Test("a geocoder that does not answer is said so, and the page still lists the stores")
    func geocoderDown() throws {
        struct Down: PlaceFinder {
            func find(_ query: String) throws -> FoundPlace? { throw GeocoderError(description: "no answer") }
        }
        let environment = AppEnvironment(database: database, now: { Fixture.wednesdayMorning }, logger: Logger(label: "test"),
                                         settings: SiteSettings(), tickets: Fixture.tickets, places: Down())
        let down = App(environment: environment, views: try Fixture.views())
        let html = down.get("/?q=Via%20Torino").bodyText
        #expect(html.contains("Address search is not available right now."))
        #expect(names(html).count == 2)
    }

    @Test("a name in the address is shown as text, and one with control characters is not used")
    func nearIsText() {
        let html = app.get("/?lat=45.46&lon=9.18&near=%3Cb%3EHere%3C%2Fb%3E").bodyText
        #expect(html.contains("From <strong>&lt;b&gt;Here&lt;/b&gt;</strong>"))
        let plain = app.get("/?lat=45.46&lon=9.18&near=Here%E2%80%AEereh").bodyText
        #expect(plain.contains("From <strong>the point you chose</strong>"))
    }

    @Test("a Nominatim-compatible geocoder is asked for one place, keeping the address's own fields")
    func nominatim() throws {
        let asked = LockedList()
        let finder = NominatimFinder(baseURL: "https://geo.example.org/nominatim/?countrycodes=it&format=xml") { url in
            asked.append(url.absoluteString)
            return Data(#"[{"lat": "45.4618", "lon": "9.1858", "display_name": "Via Torino, Municipio 1, Milano"}]"#.utf8)
        }
        let place = try #require(try finder.find("Via Torino 21"))
        #expect(place.name == "Via Torino, Municipio 1, Milano" && place.position == GeoPoint(latitude: 45.4618, longitude: 9.1858))
        #expect(asked.values
            == ["https://geo.example.org/nominatim/search?countrycodes=it&q=Via%20Torino%2021&format=jsonv2&limit=1"])
        let none = NominatimFinder(baseURL: "https://geo.example.org") { _ in Data("[]".utf8) }
        #expect(try none.find("Atlantis") == nil)
        let garbled = NominatimFinder(baseURL: "https://geo.example.org") { _ in Data("<html>".utf8) }
        #expect(throws: GeocoderError.self) { try garbled.find("x") }
        #expect(throws: GeocoderError.self) { try NominatimFinder(baseURL: "ftp://geo.example.org").url(for: "x") }
        // Asked once for the same street, whatever its case.
        let remembered = RememberingFinder(NominatimFinder(baseURL: "https://geo.example.org") { url in
            asked.append(url.absoluteString)
            return Data(#"[{"lat": "45.5", "lon": "9.2", "display_name": "Viale Monza"}]"#.utf8)
        })
        _ = try remembered.find("Viale Monza")
        _ = try remembered.find("viale monza")
        #expect(asked.values.count == 2)
    }

    /// A geocoder that answers only when let go (or fails, when told to), counting what it is asked.
    final class Hanging: PlaceFinder, @unchecked Sendable {
        // @unchecked: `asked` is a LockedList, `release` a semaphore, `fails` set before use.
        let release = DispatchSemaphore(value: 0)
        let asked = LockedList()
        var fails = false

        func find(_ query: String) throws -> FoundPlace? {
            asked.append(query)
            if fails { throw GeocoderError(description: "refused") }
            release.wait()
            return FoundPlace(name: query, position: GeoPoint(latitude: 45.5, longitude: 9.2))
        }
    }

    @Test("a geocoder that never answers costs a search its deadline at most, and holds no more than four lookups")
    func geocoderHangs() throws {
        let clock = TestClock()
        let geocoder = Hanging()
        let finder = RememberingFinder(geocoder, deadline: 0.5, pause: 30, clock: { clock.now })
        let answered = LockedList()
        let started = Date()
        // Twenty searches at once, each on a thread of its own as the worker's page threads are.
        let all = DispatchGroup()
        let gate = DispatchSemaphore(value: 0)
        for index in 0..<20 {
            all.enter()
            Thread {
                gate.wait()
                let began = Date()
                let outcome = (try? finder.find("Via Roma \(index)")).map { _ in "found" } ?? "unavailable"
                answered.append("\(outcome) \(Date().timeIntervalSince(began) < 1.5)")
                all.leave()
            }.start()
        }
        for _ in 0..<20 { gate.signal() }
        all.wait()
        // Every search answered, none found, each within its deadline (and a margin for a busy
        // machine); at most four lookups started, the rest refused at once.
        #expect(answered.values.count == 20 && answered.values.allSatisfy { $0 == "unavailable true" })
        #expect(Date().timeIntervalSince(started) < 3)
        let lookups = geocoder.asked.values.count
        #expect((1...4).contains(lookups))
        // Past the deadline the geocoder rests: not asked again for 30 s.
        #expect(throws: GeocoderError.self) { try finder.find("Via Roma 99") }
        #expect(geocoder.asked.values.count == lookups)
        // The late answers are kept: once it answers, the same searches need no lookup.
        for _ in 0..<lookups { geocoder.release.signal() }
        let asked = geocoder.asked.values
        let deadline = Date() + 5
        while asked.contains(where: { (try? finder.find($0)) == nil }), Date() < deadline { usleep(10_000) }
        #expect(try finder.find(asked[0])?.name == asked[0])
        #expect(try finder.find(asked[lookups - 1].uppercased())?.name == asked[lookups - 1])
        clock.advance(31)
        geocoder.release.signal()
        #expect(try finder.find("Via Roma 99")?.name == "Via Roma 99")
        #expect(geocoder.asked.values.count == lookups + 1)
    }

    @Test("pages past the waiters' limit do not wait, even for a query already on its way, and the count stays right")
    func waitersBounded() throws {
        let geocoder = Hanging()
        let finder = RememberingFinder(geocoder, deadline: 5, lookups: 4, waiters: 1)
        let first = DispatchSemaphore(value: 0)
        let answered = LockedList()
        Thread {
            answered.append((try? finder.find("Via Roma")).map { $0?.name ?? "none" } ?? "unavailable")
            first.signal()
        }.start()
        let deadline = Date() + 5
        while geocoder.asked.values.isEmpty, Date() < deadline { usleep(5_000) }
        // The one waiter's place is taken: the same query, and another, are answered at once.
        let started = Date()
        #expect(throws: GeocoderError.self) { try finder.find("Via Roma") }
        #expect(throws: GeocoderError.self) { try finder.find("Via Torino") }
        #expect(Date().timeIntervalSince(started) < 1)
        // The other query's lookup was started all the same, for the next page.
        while geocoder.asked.values.count < 2, Date() < deadline { usleep(5_000) }
        #expect(Set(geocoder.asked.values) == ["Via Roma", "Via Torino"])
        geocoder.release.signal()
        geocoder.release.signal()
        first.wait()
        #expect(answered.values == ["Via Roma"])
        // The waiter left: the next page may wait again, and finds the answers kept.
        #expect(try finder.find("via torino")?.name == "Via Torino")
    }

    @Test("a geocoder that fails is not asked again for a while, and the page says search is unavailable")
    func geocoderFailureRemembered() throws {
        let clock = TestClock()
        let geocoder = Hanging()
        geocoder.fails = true
        let finder = RememberingFinder(geocoder, pause: 30, clock: { clock.now })
        for _ in 0..<3 { #expect(throws: GeocoderError.self) { try finder.find("Via Torino") } }
        #expect(geocoder.asked.values.count == 1)
        clock.advance(31)
        #expect(throws: GeocoderError.self) { try finder.find("Via Torino") }
        #expect(geocoder.asked.values.count == 2)
        let environment = AppEnvironment(database: database, now: { Fixture.wednesdayMorning }, logger: Logger(label: "test"),
                                         settings: SiteSettings(), tickets: Fixture.tickets, places: finder)
        let html = App(environment: environment, views: try Fixture.views()).get("/?q=Via%20Torino").bodyText
        #expect(html.contains("Address search is not available right now."))
        #expect(geocoder.asked.values.count == 2)
    }
}
