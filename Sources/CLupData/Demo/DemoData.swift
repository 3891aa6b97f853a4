import CLupDomain
import CLupSupport
import Foundation
import GRDB

/// A realistic demo: 34 stores across Milan with plausible names, addresses and coordinates,
/// capacities from 20 to 200, varied opening hours (one store closed on the day the demo is
/// loaded, one open until 02:00) and 4 to 10 departments each.
///
/// Deterministic apart from "closed today", which depends on the clock passed in.
public enum DemoData {
    struct Site {
        var name: String
        var address: String
        var latitude: Double
        var longitude: Double
    }

    /// The demo city's streets (those of the demo stores, where each store stands) and named
    /// places, for the home page's search when no geocoder is configured: `scripts/run` works
    /// offline, and nothing typed leaves the server.
    public static let gazetteer = Gazetteer(
        entries: Place.milan.map { Gazetteer.Entry(name: $0.name, position: $0.position) }
            + landmarks.map { Gazetteer.Entry(name: $0.0, position: GeoPoint(latitude: $0.1, longitude: $0.2)) }
            + sites.map { site in
                // "Via Torino 21, 20123 Milano" → "Via Torino, Milano".
                let street = site.address.split(separator: ",").first.map(String.init) ?? site.address
                let name = street.split(separator: " ").filter { !$0.allSatisfy(\.isNumber) }.joined(separator: " ")
                return Gazetteer.Entry(name: name + ", Milano", position: GeoPoint(latitude: site.latitude, longitude: site.longitude))
            },
        city: ["Milano", "Milan", "MI"])

    /// Places people name that are neither a demo store's street nor one of the named points.
    static let landmarks: [(String, Double, Double)] = [
        ("Castello Sforzesco", 45.4705, 9.1794), ("Parco Sempione", 45.4728, 9.1761), ("Arco della Pace", 45.4756, 9.1726),
        ("Piazza Gae Aulenti", 45.4838, 9.1900), ("Piazza della Scala", 45.4672, 9.1900), ("Galleria Vittorio Emanuele II", 45.4657, 9.1900),
        ("Università Bocconi", 45.4504, 9.1893), ("Politecnico di Milano", 45.4781, 9.2273), ("Piazza Cordusio", 45.4654, 9.1866),
        ("Corso Vittorio Emanuele II", 45.4647, 9.1944), ("Via Dante", 45.4667, 9.1848), ("Via Montenapoleone", 45.4685, 9.1955),
    ]

    static let sites: [Site] = [
        Site(name: "Mercato Fresco Duomo", address: "Via Torino 21, 20123 Milano", latitude: 45.4618, longitude: 9.1858),
        Site(name: "Bottega Verde Brera", address: "Via Solferino 14, 20121 Milano", latitude: 45.4741, longitude: 9.1869),
        Site(name: "SuperSpesa Navigli", address: "Ripa di Porta Ticinese 39, 20143 Milano", latitude: 45.4508, longitude: 9.1741),
        Site(name: "Dispensa Porta Romana", address: "Corso di Porta Romana 112, 20122 Milano", latitude: 45.4522, longitude: 9.2018),
        Site(name: "Il Carrello Isola", address: "Via Pietro Borsieri 27, 20159 Milano", latitude: 45.4884, longitude: 9.1895),
        Site(name: "Mercato Fresco Centrale", address: "Via Vittor Pisani 16, 20124 Milano", latitude: 45.4826, longitude: 9.2017),
        Site(name: "Conviva Città Studi", address: "Via Giovanni Pascoli 48, 20133 Milano", latitude: 45.4787, longitude: 9.2246),
        Site(name: "SuperSpesa Lambrate", address: "Via Conte Rosso 9, 20134 Milano", latitude: 45.4842, longitude: 9.2366),
        Site(name: "Primavera Market Buenos Aires", address: "Corso Buenos Aires 77, 20124 Milano", latitude: 45.4808, longitude: 9.2093),
        Site(name: "Dispensa Porta Venezia", address: "Via Lazzaro Spallanzani 6, 20129 Milano", latitude: 45.4752, longitude: 9.2063),
        Site(name: "Bottega Verde Sempione", address: "Corso Sempione 32, 20154 Milano", latitude: 45.4790, longitude: 9.1711),
        Site(name: "Conviva CityLife", address: "Piazza Tre Torri 1, 20145 Milano", latitude: 45.4776, longitude: 9.1560),
        Site(name: "Il Carrello Lotto", address: "Piazzale Lotto 14, 20148 Milano", latitude: 45.4797, longitude: 9.1437),
        Site(name: "Mercato Fresco Bicocca", address: "Viale Sarca 223, 20126 Milano", latitude: 45.5163, longitude: 9.2102),
        Site(name: "SuperSpesa Niguarda", address: "Via Ornato 62, 20162 Milano", latitude: 45.5193, longitude: 9.1930),
        Site(name: "Primavera Market Bovisa", address: "Via Candiani 102, 20158 Milano", latitude: 45.5031, longitude: 9.1604),
        Site(name: "Dispensa Affori", address: "Via Cialdini 45, 20161 Milano", latitude: 45.5207, longitude: 9.1726),
        Site(name: "Conviva Lorenteggio", address: "Via Lorenteggio 151, 20147 Milano", latitude: 45.4530, longitude: 9.1336),
        Site(name: "Il Carrello Barona", address: "Via Santa Rita da Cascia 33, 20143 Milano", latitude: 45.4337, longitude: 9.1617),
        Site(name: "SuperSpesa Corvetto", address: "Viale Lucania 12, 20139 Milano", latitude: 45.4398, longitude: 9.2214),
        Site(name: "Bottega Verde Ortica", address: "Via San Faustino 60, 20134 Milano", latitude: 45.4729, longitude: 9.2446),
        Site(name: "Mercato Fresco Forlanini", address: "Viale Forlanini 38, 20134 Milano", latitude: 45.4608, longitude: 9.2398),
        Site(name: "Primavera Market Porta Genova", address: "Via Vigevano 18, 20144 Milano", latitude: 45.4541, longitude: 9.1716),
        Site(name: "Dispensa Sant'Ambrogio", address: "Via San Vittore 8, 20123 Milano", latitude: 45.4630, longitude: 9.1752),
        Site(name: "Il Carrello Paolo Sarpi", address: "Via Paolo Sarpi 44, 20154 Milano", latitude: 45.4805, longitude: 9.1777),
        Site(name: "Conviva Corso Como", address: "Corso Como 10, 20154 Milano", latitude: 45.4829, longitude: 9.1880),
        Site(name: "SuperSpesa Gorla", address: "Viale Monza 204, 20127 Milano", latitude: 45.5047, longitude: 9.2243),
        Site(name: "Mercato Fresco Turro", address: "Via Giacosa 20, 20127 Milano", latitude: 45.4972, longitude: 9.2228),
        Site(name: "Bottega Verde Quarto Oggiaro", address: "Via Amoretti 70, 20157 Milano", latitude: 45.5152, longitude: 9.1406),
        Site(name: "Dispensa Gallaratese", address: "Via Gallarate 155, 20151 Milano", latitude: 45.4966, longitude: 9.1202),
        Site(name: "Primavera Market Vigentino", address: "Via Ripamonti 190, 20141 Milano", latitude: 45.4327, longitude: 9.2044),
        Site(name: "Il Carrello Bocconi", address: "Viale Bligny 22, 20136 Milano", latitude: 45.4511, longitude: 9.1931),
        Site(name: "Conviva Maciachini", address: "Via Carlo Imbonati 2, 20159 Milano", latitude: 45.4976, longitude: 9.1852),
        Site(name: "SuperSpesa De Angeli", address: "Piazza Wagner 3, 20145 Milano", latitude: 45.4681, longitude: 9.1565),
    ]

    /// Named as the Milanese stores name them: a store's departments are its own words.
    static let departments: [(name: String, minutes: Int)] = [
        ("Frutta e verdura", 8), ("Panetteria", 5), ("Latticini e uova", 4), ("Pasta, riso e dispensa", 7),
        ("Macelleria", 8), ("Salumi e formaggi", 10), ("Surgelati", 5), ("Bevande", 5), ("Pescheria", 8),
        ("Casa e pulizia", 6), ("Cura della persona", 6), ("Vini e liquori", 6), ("Bio e salute", 6),
        ("Infanzia", 5), ("Animali", 4), ("Piatti pronti", 5),
    ]

    /// Hour patterns: `index` picks one so neighbouring stores differ.
    static func hours(pattern: Int) -> [OpeningInterval] {
        func days(_ weekdays: ClosedRange<Int>, _ opens: Int, _ closes: Int) -> [OpeningInterval] {
            weekdays.map { OpeningInterval(weekday: $0, opens: opens, closes: closes) }
        }
        switch pattern {
        case 0:  // Mon–Sat 08:00–21:00, Sunday morning
            return days(1...6, 8 * 60, 21 * 60) + days(7...7, 9 * 60, 13 * 60)
        case 1:  // every day 07:30–22:00
            return days(1...7, 7 * 60 + 30, 22 * 60)
        case 2:  // neighbourhood shop with a lunch break, closed Sunday
            return days(1...6, 8 * 60 + 30, 13 * 60) + days(1...6, 15 * 60 + 30, 19 * 60 + 30)
        default:  // Mon–Sat 08:30–20:30, Sunday 09:00–20:00
            return days(1...6, 8 * 60 + 30, 20 * 60 + 30) + days(7...7, 9 * 60, 20 * 60)
        }
    }

    /// The stores, with their hours and departments, as `seed` inserts them.
    static func stores(now: Date, timeZone: TimeZone)
        -> [AppDatabase.StoreRegistration]
    {
        // The same reading of "today" the store list makes, so the store is shown closed.
        let today = OpeningHours(intervals: [], timeZone: timeZone).weekday(at: now)
        return sites.enumerated().map { index, site in
            let capacity = 20 + (index * 53) % 181  // spread over 20…200
            var hours = hours(pattern: index % 4)
            if index == 7 {  // closed today, whatever day the demo is loaded
                hours.removeAll { $0.weekday == today }
            }
            if index == 8 {  // open late: 07:00 to 02:00 the next morning, every day
                hours = (1...7).map { OpeningInterval(weekday: $0, opens: 7 * 60, closes: 26 * 60) }
            }
            let departmentCount = 4 + (index * 5) % 7  // 4…10
            let offset = (index * 3) % departments.count
            let chosen = (0..<departmentCount).map { departments[(offset + $0 * 3) % departments.count] }
            let phone = String(format: "+39 02 %04d %04d", 1000 + (index * 7919) % 9000, 1000 + (index * 104_729) % 9000)
            let store = NewStore(
                name: site.name, address: site.address, phone: phone,
                position: GeoPoint(latitude: site.latitude, longitude: site.longitude),
                capacity: capacity, timeZone: timeZone.identifier)
            return (store, hours, chosen)
        }
    }

    /// Loads the demo into an empty database, in one transaction; returns how many stores were
    /// added (0 if the database already has stores, so running it twice changes nothing).
    @discardableResult
    /// Adds the demo stores to an empty database, with `weeks` of past visits; returns how
    /// many stores were added.
    public static func seed(_ database: AppDatabase, now: Date, timeZone: TimeZone, weeks: Int = 4) throws -> Int {
        let added = try database.stores.createStoresIfEmpty(stores(now: now, timeZone: timeZone))
        if added > 0, weeks > 0 { try pastVisits(database, now: now, weeks: weeks) }
        return added
    }

    /// Past visits at every store, so the statistics pages have something to show: more at
    /// lunch and after work, more on Saturdays, each visit 15 to 60 minutes after a short wait.
    /// Written as finished anonymous visits, then the statistics are rebuilt from them.
    /// Deterministic (a fixed seed).
    static func pastVisits(_ database: AppDatabase, now: Date, weeks: Int) throws {
        var random = SplitMix(state: 20_261_122)
        var visits: [FinishedVisit] = []
        for listing in try database.stores.storeListings() {
            let store = listing.store
            let zone = TimeZone(identifier: store.timeZone) ?? .current
            let opening = OpeningHours(intervals: listing.openingIntervals.map(\.interval), timeZone: zone)
            let today = Int(now.timeIntervalSince1970 / 86_400)
            for dayOffset in 1...(7 * weeks) {
                var number = 10_000
                for hour in 0..<24 {
                    let start = Date(timeIntervalSince1970: Double((today - dayOffset) * 86_400 + hour * 3600))
                    guard opening.state(at: start + 1800).isOpen else { continue }
                    let local = localHour(Int(start.timeIntervalSince1970) / 3600, in: zone)
                    let weekday = ZoneOffsets.isoWeekday(day: local.day)
                    let rush = [11: 1.6, 12: 2.0, 13: 1.4, 17: 1.5, 18: 2.0, 19: 1.5][local.hour] ?? 0.7
                    let count = Int(Double(store.capacity) / 10 * rush * (weekday == 6 ? 1.5 : 1)
                        * Double.random(in: 0.6...1.2, using: &random))
                    for _ in 0..<count {
                        let created = start + Double.random(in: 0..<3600, using: &random)
                        let entered = created + Double.random(in: 0...(rush > 1.5 ? 1200 : 300), using: &random)
                        let minutes = [15, 30, 30, 45, 60][Int.random(in: 0..<5, using: &random)]
                        let exited = entered + Double(minutes) * 60 * Double.random(in: 0.7...1.3, using: &random)
                        number += 1
                        let walkIn = Int.random(in: 0..<5, using: &random) == 0
                        let people = Int.random(in: 0..<4, using: &random) == 0 ? 2 : 1
                        visits.append(FinishedVisit(storeId: store.id, walkIn: walkIn, day: today - dayOffset, number: number,
                                                    people: people, minutes: minutes, created: created, entered: entered,
                                                    exited: exited))
                    }
                }
            }
        }
        try database.statistics.insertFinishedVisits(visits)
        try database.statistics.rebuildStatistics()
    }

    /// A visit of the demo's history: finished, anonymous, a line-up.
    struct FinishedVisit {
        var storeId: StoreID
        var walkIn: Bool
        var day: Int
        var number: Int
        var people: Int
        var minutes: Int
        var created: Date
        var entered: Date
        var exited: Date
    }

    /// SplitMix64: the demo's visits are the same on every machine.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
