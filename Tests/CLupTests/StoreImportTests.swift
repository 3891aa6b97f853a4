import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupWeb

/// An administrator registers a chain's stores from a CSV file: every problem by line and
/// nothing imported, or every store in one go.
@Suite("Importing stores")
struct StoreImportTests {
    let database: AppDatabase
    let app: App

    init() throws {
        database = try Fixture.database()
        app = try Fixture.app(database: database)
        for (email, role) in [("admin@example.org", Role.admin), ("boss@example.org", .manager)] {
            _ = try database.accounts.createUser(email: email, displayName: "Alba", passwordHash: Fixture.passwordHash,
                                                 role: role, now: Fixture.wednesdayMorning, confirmation: nil)
        }
    }

    func signedIn(_ email: String) throws -> Browser {
        let browser = Browser(app)
        try browser.signIn(email: email)
        try browser.get("/manage/import-stores")
        return browser
    }

    static let header = "name,address,latitude,longitude,capacity,walk-in-percent,departments,monday,Saturday"

    /// Store `number`'s line: every other one with hours, a few with departments.
    static func line(_ number: Int) -> String {
        let hours = number.isMultiple(of: 2) ? "\"08:00-13:00,15:00-20:00\",08:00-20:00" : ","
        let departments = number.isMultiple(of: 5) ? "\"Bakery, 10; Butcher, 15\"" : ""
        return "Market \(number),\"Via Roma \(number), Milano\",\(String(format: "%.3f", 45 + Double(number) / 1000)),9.19,40,,\(departments),\(hours)"
    }

    func csv(_ lines: [String]) -> [UInt8] {
        Array(([Self.header] + lines).joined(separator: "\r\n").utf8)
    }

    @Test("500 stores with 3 bad lines import nothing and name the 3 lines; without them 497 import in one go")
    func fiveHundred() throws {
        let admin = try signedIn("admin@example.org")
        var lines = (1...500).map(Self.line)
        // Lines of the file: the header is line 1, store n is on line n + 1.
        lines[39] = lines[39].replacingOccurrences(of: ",40,", with: ",0,")
        lines[200] = lines[200].replacingOccurrences(of: "45.201", with: "north")
        lines[449] = lines[449].replacingOccurrences(of: "08:00-20:00", with: "08:00-25:00")
        let refused = try admin.upload("/manage/import-stores", [("action", "import")],
                                       file: ("file", "stores.csv", csv(lines)))
        #expect(refused.status == 422)
        let problems = refused.bodyText.matches(of: /<li>(Line \d+: [^<]*)<\/li>/).map { String($0.1) }
        #expect(problems == [
            "Line 41: Capacity (people inside at once): Enter a number from 1 to 10000.",
            "Line 202: Latitude: Enter a latitude from -90 to 90, like 45.4642.",
            "Line 451: Saturday: “25:00” is not a time of day: hours run from 00 to 23. To close after midnight, give the "
                + "time on the next day (02:00): a closing earlier than the opening runs past midnight.",
        ])
        #expect(refused.bodyText.contains("Nothing was imported: 3 problems to mend"))
        #expect(database.board.entries().isEmpty)

        let good = [39, 200, 449].reversed().reduce(into: lines) { $0.remove(at: $1) }
        // A check first: the stores listed, nothing registered.
        let checked = try admin.upload("/manage/import-stores", [("action", "check")], file: ("file", "stores.csv", csv(good)))
        #expect(checked.status == 200)
        #expect(checked.bodyText.contains("497 stores are ready to import"))
        #expect(checked.bodyText.contains("Nothing has been imported yet. 249 have no opening hours"))
        #expect(checked.bodyText.contains("<td>Market 1</td><td>Via Roma 1, Milano</td>"))
        #expect(checked.bodyText.contains("… and 477 more."))
        #expect(database.board.entries().isEmpty)
        // The page's own button sends the checked file back to be imported.
        let text = try require(checked.bodyText.firstMatch(of: /name="csv" value="([^"]*)"/)).1
        let unescaped = String(text).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
            .replacingOccurrences(of: "&#39;", with: "'")
        let imported = try admin.upload("/manage/import-stores", [("csv", unescaped), ("action", "import")], file: nil)
        #expect(imported.status == 303)
        let location = try require(imported.header("Location"))
        #expect(location == "/manage?imported=497&closed=249")
        #expect(try admin.get(location).bodyText.contains(
            "497 stores imported. 249 have no opening hours yet: they show as closed until they are set."))

        let stores = database.board.entries().sorted { $0.store.id < $1.store.id }
        #expect(stores.count == 497)
        let second = try require(stores.first { $0.store.name == "Market 2" })
        #expect(second.store.address == "Via Roma 2, Milano" && second.store.capacity == 40
            && second.store.walkInPercent == StoreSettings(capacity: 40).walkInPercent)
        #expect(second.hours.intervals == [OpeningInterval(weekday: 1, opens: 480, closes: 780),
                                           OpeningInterval(weekday: 1, opens: 900, closes: 1200),
                                           OpeningInterval(weekday: 6, opens: 480, closes: 1200)])
        let fifth = try require(stores.first { $0.store.name == "Market 5" })
        #expect(fifth.definition.departments.map(\.name) == ["Bakery", "Butcher"] && fifth.hours.intervals.isEmpty)
        #expect(try database.stores.storeChanges(storeId: second.store.id).map(\.after) == ["registered"])

        // The same file again: every store is already there, and nothing is added.
        let again = try admin.upload("/manage/import-stores", [("action", "import")], file: ("file", "stores.csv", csv(good)))
        #expect(again.status == 422)
        #expect(again.bodyText.contains("Line 2: This store (the same name and address) is already registered, as store "))
        #expect(again.bodyText.contains("Nothing was imported: 497 problems to mend"))
        #expect(again.bodyText.contains("… and 297 more problems."))
        #expect(database.board.entries().count == 497)
    }

    @Test("the columns are checked before the lines: unknown, twice, missing")
    func columns() throws {
        let admin = try signedIn("admin@example.org")
        let refused = try admin.upload("/manage/import-stores", [("action", "check")], file: (
            "file", "stores.csv", Array("name,adress,latitude,longitude,Name\nMarket,Via Roma 1,45,9,Market\n".utf8)))
        #expect(refused.status == 422)
        let problems = refused.bodyText.matches(of: /<li>(Line \d+: [^<]*)<\/li>/).map { String($0.1) }
        #expect(problems.count == 3)
        #expect(problems[0].hasPrefix("Line 1: “adress” is not a column CLup knows. The columns are: name, address, "))
        #expect(problems[1] == "Line 1: The column “Name” is named twice.")
        #expect(problems[2] == "Line 1: Add the columns every store needs: address, capacity.")
        #expect(try admin.upload("/manage/import-stores", [("action", "check")], file: ("file", "empty.csv", []))
            .bodyText.contains("Choose a CSV file to send."))
    }

    @Test("a file as Italian Excel saves it: semicolons, decimal commas, Windows-1252; a repeated store, a short line")
    func spreadsheet() throws {
        let admin = try signedIn("admin@example.org")
        let text = """
            Nome;Address;Latitude;Longitude;Capacity;Time zone
            Caffè Centrale;Via Dante 2, Milano;45,46;9,18;30;Europe/Rome
            Caffè Centrale;Via Dante 2, Milano;45.46;9.18;30;Europe/Rome
            Drogheria;Via Po 3, Torino;45.07;7.69;25;Europe/Rome
            Drogheria;VIA PO 3,  Torino;45.07;7.69;25;Europe/Rome
            Forno;Via Larga 1
            """.replacingOccurrences(of: "\n", with: "\r\n")
        let latin1 = try require(text.data(using: .windowsCP1252))
        let refused = try admin.upload("/manage/import-stores", [("action", "check")],
                                       file: ("file", "negozi.csv", Array(latin1)))
        let problems = refused.bodyText.matches(of: /<li>(Line \d+: [^<]*)<\/li>/).map { String($0.1) }
        #expect(problems == [
            "Line 1: “Nome” is not a column CLup knows. The columns are: "
                + StoreImport.columns.joined(separator: ", ") + ".",
            "Line 1: Add the columns every store needs: name.",
        ])
        let named = text.replacingOccurrences(of: "Nome;", with: "Name;")
        let lines = try admin.upload("/manage/import-stores", [("action", "check")],
                                     file: ("file", "negozi.csv", Array(try require(named.data(using: .windowsCP1252)))))
        #expect(lines.bodyText.matches(of: /<li>(Line \d+: [^<]*)<\/li>/).map { String($0.1) } == [
            "Line 3: The same store (name and address) as on line 2.",
            "Line 5: The same store (name and address) as on line 4.",
            "Line 6: This line has 2 fields; the first line names 6 columns.",
        ])
        // The decimal commas stand: Italian spreadsheets write them.
        let fixed = named.components(separatedBy: "\r\n").enumerated().filter { ![2, 4, 5].contains($0.offset) }.map(\.element)
            .joined(separator: "\r\n")
        let done = try admin.upload("/manage/import-stores", [("action", "import")],
                                    file: ("file", "negozi.csv", Array(try require(fixed.data(using: .windowsCP1252)))))
        #expect(done.status == 303)
        #expect(Set(database.board.entries().map(\.store.name)) == ["Caffè Centrale", "Drogheria"])
        let caffe = try require(database.board.entries().first { $0.store.name == "Caffè Centrale" }).store
        #expect(caffe.latitude == 45.46 && caffe.longitude == 9.18)
    }

    @Test("only administrators import; a manager is refused and nothing is registered")
    func managersRefused() throws {
        let manager = try signedIn("boss@example.org")
        #expect(try manager.get("/manage/import-stores").status == 403)
        #expect(try manager.upload("/manage/import-stores", [("action", "import")],
                                   file: ("file", "stores.csv", csv([Self.line(1)]))).status == 403)
        let admin = try signedIn("admin@example.org")
        let page = try admin.get("/manage/import-stores")
        #expect(page.status == 200 && page.bodyText.contains("enctype=\"multipart/form-data\""))
        #expect(try admin.get("/manage").bodyText.contains("href=\"/manage/import-stores\""))
        #expect(database.board.entries().isEmpty)
    }

    @Test("a region column puts each store in its region, made once whatever its case; a long name is refused by line")
    func regions() throws {
        _ = try database.stores.createGroup(name: "Lombardia", now: Fixture.wednesdayMorning)
        let admin = try signedIn("admin@example.org")
        func file(_ regions: [String]) -> [UInt8] {
            Array((["name,address,latitude,longitude,capacity,region"] + regions.enumerated().map { index, region in
                "Negozio \(index),\"Via Po \(index), Torino\",45.07,7.68,30,\(region)"
            }).joined(separator: "\r\n").utf8)
        }
        let long = try admin.upload("/manage/import-stores", [("action", "import")],
                                    file: ("file", "stores.csv", file(["Piemonte", String(repeating: "x", count: 61)])))
        #expect(long.status == 422 && long.bodyText.contains("Line 3: Region: Use at most 60 characters."))
        #expect(try database.stores.groups().map(\.name) == ["Lombardia"])
        let imported = try admin.upload("/manage/import-stores", [("action", "import")],
                                        file: ("file", "stores.csv", file(["Piemonte", "lombardia", "PIEMONTE", ""])))
        #expect(imported.status == 303)
        let groups = try database.stores.groups()
        #expect(groups.map { "\($0.name): \($0.stores)" } == ["Lombardia: 1", "Piemonte: 2"])
        let regionOf = try database.stores.regions()
        #expect(regionOf.count == 3)
    }

    @Test("an import is one transaction: a store the database refuses takes the others with it")
    func allOrNothing() throws {
        func store(_ name: String, capacity: Int) -> AppDatabase.StoreRegistration {
            (NewStore(name: name, address: "Via \(name)", phone: "", position: GeoPoint(latitude: 45, longitude: 9),
                      capacity: capacity, timeZone: "Europe/Rome", settings: StoreSettings(capacity: max(capacity, 1))), [], [])
        }
        #expect(throws: (any Error).self) {
            try database.stores.importStores([store("A", capacity: 10), store("B", capacity: 10), store("C", capacity: 0)],
                                             userId: nil, now: Fixture.wednesdayMorning)
        }
        #expect(try database.stores.storeCount() == 0)
        let imported = try database.stores.importStores([store("A", capacity: 10), store("B", capacity: 12)], userId: nil,
                                                        now: Fixture.wednesdayMorning)
        #expect(imported.map(\.name) == ["A", "B"] && database.board.entries().count == 2)
    }

    @Test("CSV as spreadsheets write it: quotes, doubled quotes, line breaks in a field, CRLF, a byte-order mark")
    func reading() throws {
        let records = try CSV.records("\u{FEFF}a,b,c\r\n\"x, y\",\"say \"\"hi\"\"\",\"two\nlines\"\r\n\r\n 1 , 2 ,3")
        #expect(records == [CSV.Record(line: 1, fields: ["a", "b", "c"]),
                            CSV.Record(line: 2, fields: ["x, y", "say \"hi\"", "two\nlines"]),
                            CSV.Record(line: 4, fields: [""]),
                            CSV.Record(line: 5, fields: ["1", "2", "3"])])
        #expect(try CSV.records("a;b\n1,5;2") == [CSV.Record(line: 1, fields: ["a", "b"]),
                                                  CSV.Record(line: 2, fields: ["1,5", "2"])])
        #expect(throws: CSV.UnclosedQuote(line: 2)) { try CSV.records("a,b\n1,\"open\n2,3\n") }
    }

    @Test("a multipart body: fields and a file, a body of another shape refused")
    func multipart() throws {
        let body = Array("--XyZ\r\nContent-Disposition: form-data; name=\"csrf\"\r\n\r\ntoken\r\n--XyZ\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.csv\"\r\nContent-Type: text/csv\r\n\r\n\u{FEFF}a,b\r\n--X\r\n\r\n--XyZ--\r\n".utf8)
        let form = try FormData(multipart: body, boundary: "XyZ")
        #expect(form["csrf"] == "token" && form["file"] == "a,b\r\n--X\r\n")
        #expect(throws: HTTPError.self) { try FormData(multipart: Array("--XyZ\r\nno headers".utf8), boundary: "XyZ") }
        #expect(throws: HTTPError.self) { try FormData(multipart: body, boundary: "Other") }
    }
}
