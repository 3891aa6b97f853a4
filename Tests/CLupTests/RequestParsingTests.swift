import CLupText
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb

@Suite("Query, form and request decoding", .enabled(if: Fixture.engineFreePass))
struct RequestParsingTests {
    @Test("percent-escapes and + decode; pairs keep their order")
    func decoding() throws {
        let form = try FormData(urlEncoded: "name=Caff%C3%A8+%26+Pane&empty=&flag&q=a%2Bb")
        #expect(form["name"] == "Caffè & Pane")
        #expect(form["empty"] == "")
        #expect(form["flag"] == "")
        #expect(form["q"] == "a+b")
        #expect(form.pairs.map(\.name) == ["name", "empty", "flag", "q"])
    }

    @Test("repeated keys: the first for one value, all of them for a list")
    func repeatedKeys() throws {
        let form = try FormData(urlEncoded: "dept=1&dept=4&&dept=7")
        #expect(form["dept"] == "1")
        #expect(form.all("dept") == ["1", "4", "7"])
        #expect(form.all("missing").isEmpty)
    }

    @Test("invalid UTF-8 and malformed escapes are a 400 that says why",
          arguments: ["name=%FF", "name=%C3", "a=%zz", "a=%4", "%E2%82=x"])
    func malformed(query: String) {
        #expect {
            try FormData(urlEncoded: query)
        } throws: { error in
            (error as? HTTPError)?.status == 400 && !((error as? HTTPError)?.message.isEmpty ?? true)
        }
    }

    @Test("encoding and decoding round-trip")
    func roundTrip() throws {
        let original = FormData(pairs: [("place", "porta romana"), ("q", "a&b=c+é/ü")])
        #expect(try FormData(urlEncoded: original.urlEncoded) == original)
        #expect(original.urlEncoded == "place=porta+romana&q=a%26b%3Dc%2B%C3%A9%2F%C3%BC")
    }

    func cgi(_ pairs: [String: String]) -> [String: [UInt8]] {
        pairs.mapValues { Array($0.utf8) }
    }

    @Test("CGI parameters become a request: method, path, query, headers, cookies")
    func fromCGI() throws {
        let request = try Request(cgiParams: cgi([
            "REQUEST_METHOD": "GET", "DOCUMENT_URI": "/stores/3", "REQUEST_URI": "/stores/3?mode=car",
            "QUERY_STRING": "mode=car", "HTTP_USER_AGENT": "Test/1.0", "HTTP_ACCEPT_LANGUAGE": "it",
            "HTTP_COOKIE": "mode=car; other=\"x y\"; mode=walking", "REMOTE_ADDR": "10.1.2.3", "HTTPS": "on",
        ]), body: [])
        #expect(request.method == .get)
        #expect(request.path == "/stores/3")
        #expect(request.query["mode"] == "car")
        #expect(request.headers["user-agent"] == "Test/1.0")
        #expect(request.headers["accept-language"] == "it")
        #expect(request.cookies == ["mode": "car", "other": "x y"])
        #expect(request.remoteAddress == "10.1.2.3")
        #expect(request.isHTTPS)
    }

    @Test("cookies are trimmed of spaces at either end only, blank parts skipped; header names lower-cased with dashes")
    func cookieAndHeaderEdges() throws {
        #expect(Request.parseCookies("  a = 1 2 ;b=  ;  ; =x; c=\"\u{E9}t\u{E9}\" ;d;e= \u{1F600} ") == [
            "a": "1 2", "b": "", "c": "\u{E9}t\u{E9}", "d": "", "e": "\u{1F600}",
        ])
        #expect(Request.parseCookies("") == [:] && Request.parseCookies("   ") == [:])
        let request = try Request(cgiParams: cgi(["HTTP_X_FORWARDED_FOR": "10.0.0.1", "HTTP_ACCEPT_LANGUAGE": " it-IT ,\ten;q=0.5"]),
                                  body: [])
        #expect(request.headers == ["x-forwarded-for": "10.0.0.1", "accept-language": " it-IT ,\ten;q=0.5"])
        #expect(request.language == .it)
        #expect(Language.preferred(acceptLanguage: "\t fr ,  en-GB ;\tq=0.8 , it; q=0.5") == .en)
    }

    @Test("without DOCUMENT_URI the path is decoded from REQUEST_URI, where + stays +")
    func pathFromRequestURI() throws {
        let request = try Request(cgiParams: cgi(["REQUEST_URI": "/a%20b+c?x=1"]), body: [])
        #expect(request.path == "/a b+c")
        #expect(request.method == .get)
    }

    @Test("invalid UTF-8 in the path or query is a 400")
    func invalidBytes() {
        #expect(throws: HTTPError.self) {
            try Request(cgiParams: ["DOCUMENT_URI": [0x2f, 0xc3, 0x28]], body: [])
        }
        #expect(throws: HTTPError.self) {
            try Request(cgiParams: ["QUERY_STRING": [0x61, 0x3d, 0xff]], body: [])
        }
    }

    @Test("an unknown method is a 405")
    func unknownMethod() {
        #expect {
            try Request(cgiParams: cgi(["REQUEST_METHOD": "BREW"]), body: [])
        } throws: { ($0 as? HTTPError)?.status == 405 }
    }

    @Test("form bodies are read only when sent as url-encoded forms")
    func formBody() throws {
        var request = Request(method: .post, path: "/", body: Array("a=1&b=%C3%A9".utf8))
        #expect(throws: HTTPError.self) { try request.form() }
        request.headers["content-type"] = "application/x-www-form-urlencoded; charset=UTF-8"
        #expect(try request.form()["b"] == "é")
    }
}

@Suite("Routing", .enabled(if: Fixture.engineFreePass))
struct RouterTests {
    enum Route: Equatable { case home, store, storeEdit }

    var router: Router<Route> {
        var router = Router<Route>()
        router.add(.get, "/", .home)
        router.add(.get, "/stores/{id}", .store)
        router.add(.post, "/stores/{id}", .storeEdit)
        return router
    }

    @Test("a route matches with its captured segments")
    func matches() throws {
        let match = try router.match(method: .get, path: "/stores/42")
        #expect(match.route == .store)
        #expect(match.parameters == ["id": "42"])
        #expect(try router.match(method: .post, path: "/stores/42").route == .storeEdit)
        #expect(try router.match(method: .get, path: "/").route == .home)
    }

    @Test("HEAD is answered as GET")
    func head() throws {
        #expect(try router.match(method: .head, path: "/stores/1").route == .store)
    }

    @Test("no route is a 404; another method is a 405 naming the allowed ones")
    func errors() {
        #expect { try router.match(method: .get, path: "/nowhere") } throws: { ($0 as? HTTPError)?.status == 404 }
        #expect { try router.match(method: .get, path: "/stores/1/extra") } throws: { ($0 as? HTTPError)?.status == 404 }
        #expect {
            try router.match(method: .delete, path: "/stores/1")
        } throws: { error in
            let error = error as? HTTPError
            return error?.status == 405 && error?.headers["Allow"] == "GET, HEAD, POST"
        }
    }
}
