import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupText
@testable import CLupWeb

/// Italian and English: the catalogues agree, every key the code uses exists, and a visitor
/// reads pages, errors and emails in their language.
@Suite("Languages")
struct LanguageTests {
    /// Keys the code builds from a value ("weekday.\(n)", "mode.\(rawValue)"): used, though no
    /// source names them whole.
    static let builtKeyPrefixes = ["weekday.", "month.short.", "mode.", "place.", "error.title.", "light.", "storeField.",
                                    "change.", "door.kind.", "door.refusal.", "door.status.", "door.action.",
                                    "mstats.column.", "kiosk.role.", "js.offlineRefusal.", "role.", "support.action.", "overview.column.", "groups.done."]

    static func sources() throws -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        for folder in ["Sources", "Templates"] {
            let root = URL(fileURLWithPath: Fixture.root).appendingPathComponent(folder)
            let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
            for case let url as URL in walker where url.pathExtension == "swift" && !url.path.contains("/Catalogues/") {
                files.append((url.path, try String(contentsOf: url, encoding: .utf8)))
            }
        }
        return files
    }

    @Test("both catalogues have the same keys, with the same placeholders")
    func cataloguesAgree() {
        let english = Catalogue.english, italian = Catalogue.italian
        #expect(english.count > 500)
        #expect(Set(english.keys).subtracting(italian.keys).sorted() == [])
        #expect(Set(italian.keys).subtracting(english.keys).sorted() == [])
        for (key, text) in english {
            let other = italian[key] ?? ""
            #expect(Catalogue.placeholders(text).sorted() == Catalogue.placeholders(other).sorted(), "\(key)")
            #expect(!other.isEmpty, "\(key) is empty in Italian")
        }
    }

    @Test("every key the code asks for exists, and every key in the catalogues is asked for")
    func keysUsed() throws {
        let sources = try Self.sources()
        let all = sources.map(\.text).joined(separator: "\n")
        let call = try Regex(#"tr\("([A-Za-z0-9.]+)"(, count:)?"#)
        var asked: Set<String> = []
        for (path, text) in sources {
            for match in text.matches(of: call) {
                let key = String(match.output[1].substring!)
                if match.output[2].substring != nil {
                    for form in [key + ".one", key + ".other"] {
                        #expect(Catalogue.english[form] != nil, "\(path) asks for \(form)")
                        asked.insert(form)
                    }
                } else {
                    #expect(Catalogue.english[key] != nil, "\(path) asks for \(key)")
                    asked.insert(key)
                }
            }
        }
        #expect(asked.count > 400)
        for key in Catalogue.english.keys where !asked.contains(key) {
            let named = all.contains("\"\(key)\"")
                || (key.hasSuffix(".one") || key.hasSuffix(".other")) && all.contains("\"\(key.split(separator: ".").dropLast().joined(separator: "."))\"")
                || Self.builtKeyPrefixes.contains { key.hasPrefix($0) }
            #expect(named, "\(key) is never used")
        }
    }

    @Test("the language is the one chosen on the device, else the browser's first that CLup speaks, else English")
    func choosing() {
        #expect(Language.preferred(acceptLanguage: "it-IT,it;q=0.9,en-US;q=0.8,en;q=0.7") == .it)
        #expect(Language.preferred(acceptLanguage: "en-GB,en;q=0.9,it;q=0.8") == .en)
        #expect(Language.preferred(acceptLanguage: "fr-FR,fr;q=0.9,it;q=0.8,en;q=0.5") == .it)
        #expect(Language.preferred(acceptLanguage: "de;q=1, en;q=0.2 , it ; q=0.4") == .it)
        #expect(Language.preferred(acceptLanguage: "fr") == nil)
        #expect(Language.preferred(acceptLanguage: "it;q=0") == nil)
        #expect(Language.preferred(acceptLanguage: "") == nil)
        let request = Request(method: .get, path: "/", headers: ["accept-language": "it-IT,it;q=0.9"])
        #expect(request.language == .it)
        var chosen = request
        chosen.cookies = ["lang": "en"]
        #expect(chosen.language == .en)
        chosen.cookies = ["lang": "xx"]
        #expect(chosen.language == .it)
        #expect(Request(method: .get, path: "/").language == .en)
    }

    @Test("words and numbers in each language: plurals, placeholders, decimal marks, weekdays")
    func formatting() {
        Language.$current.withValue(.it) {
            #expect(tr("people", count: 1) == "1 persona")
            #expect(tr("people", count: 3) == "3 persone")
            #expect(Numbers.grouped(2000) == "2.000")
            #expect(Formatting.distance(metres: 2345) == "2,3 km")
            #expect(Formatting.weekday(1) == "Lunedì")
            #expect(Formatting.date(LocalDate(text: "2026-12-25")!) == "Ven 25 dic 2026")
            #expect(tr("store.insideOf", ["inside": "3", "capacity": "40"]) == "3 su 40")
        }
        Language.$current.withValue(.en) {
            #expect(Numbers.grouped(2000) == "2,000")
            #expect(Formatting.distance(metres: 2345) == "2.3 km")
            #expect(Formatting.date(LocalDate(text: "2026-12-25")!) == "Fri 25 Dec 2026")
            #expect(tr("no.such.key") == "no.such.key")
        }
    }

    @Test("a visitor whose browser prefers Italian reads Italian, and can switch on every page")
    func pagesInItalian() throws {
        let database = try Fixture.database()
        let store = try database.stores.createStore(
            Fixture.store("Bottega Lingue", at: Place.milan[0].position), hours: Fixture.weekdayHours,
            departments: [("Panetteria", 10)])
        let app = try Fixture.app(database: database)
        let italian = Browser(app)
        italian.cookies["lang"] = "it"
        let home = try italian.get("/")
        #expect(home.status == 200)
        #expect(home.bodyText.contains("<html lang=\"it\">"))
        #expect(home.bodyText.contains("<h1>Negozi vicino a te</h1>"))
        #expect(home.bodyText.contains("hreflang=\"en\">English</a>"))
        #expect(!home.bodyText.contains("Stores near you"))
        let page = try italian.get("/stores/\(store.id)")
        #expect(page.bodyText.contains("Mettiti in fila o prenota una visita"))
        #expect(page.bodyText.contains("Lunedì"))
        // A request that cannot even be read is told so in its language.
        let unreadable = app.get("/stores/%ZZ", cookies: "lang=it")
        #expect(unreadable.status == 400 && unreadable.bodyText.contains("sequenza % non valida"))
        let missing = try italian.get("/no/such/page")
        #expect(missing.status == 404)
        #expect(missing.bodyText.contains("Pagina non trovata"))

        // The switch remembers the choice for a year and comes back to the page.
        let guest = Browser(app)
        let switched = try guest.get("/it?back=%2Fstores%2F\(store.id)")
        #expect(switched.status == 303)
        #expect(switched.header("Location") == "/stores/\(store.id)")
        #expect(switched.setCookie(named: "lang")?.hasPrefix("lang=it; Path=/; Max-Age=31536000") == true)
        #expect(try guest.get("/").bodyText.contains("<h1>Negozi vicino a te</h1>"))
        // Never to another site; an unknown language is refused.
        #expect(try Browser(app).get("/it?back=%2F%2Fevil.example").header("Location") == "/")
        #expect(try Browser(app).get("/en?back=https%3A%2F%2Fevil.example").header("Location") == "/")
        #expect(try Browser(app).get("/fr?back=%2F").status == 404)
    }

    @Test("emails go out in the account's language, chosen at sign-up and changed in the account")
    func emailsInTheAccountsLanguage() throws {
        let database = try Fixture.database()
        let app = try Fixture.app(database: database)
        let italian = Browser(app)
        italian.cookies["lang"] = "it"
        _ = try italian.get("/signup")
        let signUp = try italian.post("/signup", [("email", "lucia@example.com"), ("displayName", "Lucia"),
                                                   ("password", "mele pere e fichi"), ("passwordAgain", "mele pere e fichi"), ("terms", "accepted")])
        #expect(signUp.bodyText.contains("Controlla la tua email"))
        let user = try #require(try database.accounts.user(email: "lucia@example.com"))
        #expect(user.language == "it")
        let mail = try #require(try database.notices.mail(to: "lucia@example.com").last)
        #expect(mail.subject == "Conferma il tuo account CLup")
        #expect(mail.body.hasPrefix("Ciao,\n"))  // unconfirmed: greeted without the name it typed
    }
}
