import Testing

@testable import FastCGI

@Suite("FastCGI messages")
struct FastCGIMessageTests {
    @Test("the response head is a Status line, the headers in order, and a blank line")
    func head() {
        let response = FastCGIResponse(status: 404, headers: [
            ("Content-Type", "text/html"), ("Set-Cookie", "a=1"), ("Set-Cookie", "b=2"),
        ])
        #expect(response.head
            == "Status: 404 Not Found\r\nContent-Type: text/html\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 0\r\n\r\n")
    }

    @Test("the head gives the body's length, so nginx need not send it in chunks; none for 204 and 304")
    func length() {
        let page = FastCGIResponse(status: 200, headers: [("Content-Type", "text/html")], body: Array("<p>é</p>".utf8))
        #expect(page.head == "Status: 200 OK\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\n")
        #expect(FastCGIResponse(status: 204).head == "Status: 204 No Content\r\n\r\n")
        #expect(FastCGIResponse(status: 304, headers: [("ETag", "\"1\"")]).head == "Status: 304 Not Modified\r\nETag: \"1\"\r\n\r\n")
    }

    @Test("a header value cannot inject a header of its own")
    func injection() {
        let response = FastCGIResponse(status: 303, headers: [("Location", "/x\r\nSet-Cookie: evil=1")])
        #expect(response.head == "Status: 303 See Other\r\nLocation: /xSet-Cookie: evil=1\r\nContent-Length: 0\r\n\r\n")
    }

    @Test("parameters decode as UTF-8 only when valid")
    func parameters() {
        let request = FastCGIRequest(params: ["A": Array("é".utf8), "B": [0xff]])
        #expect(request.param("A") == "é")
        #expect(request.param("B") == nil)
        #expect(request.param("C") == nil)
    }
}
