import Testing

@testable import FastCGI

@Suite("FastCGI messages")
struct FastCGIMessageTests {
    @Test("the response head is a Status line, the headers in order, and a blank line")
    func head() {
        let response = FastCGIResponse(status: 404, headers: [
            ("Content-Type", "text/html"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
        ])
        #expect(response.head == "Status: 404 Not Found\r\nContent-Type: text/html\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\n\r\n")
    }

    @Test("a header value cannot inject a header of its own")
    func injection() {
        let response = FastCGIResponse(status: 303, headers: [("Location", "/x\r\nSet-Cookie: evil=1")])
        #expect(response.head == "Status: 303 See Other\r\nLocation: /xSet-Cookie: evil=1\r\n\r\n")
    }

    @Test("parameters decode as UTF-8 only when valid")
    func parameters() {
        let request = FastCGIRequest(params: ["A": Array("é".utf8), "B": [0xff]])
        #expect(request.param("A") == "é")
        #expect(request.param("B") == nil)
        #expect(request.param("C") == nil)
    }
}
