import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb


@Suite("QR codes and their signed tokens")
struct TicketTokenTests {
    let tokens = Fixture.tickets

    @Test("a token names its reservation, is 34 URL-safe characters, and verifies")
    func roundTrip() {
        for id: Int64 in [1, 255, 256, 1_234_567, Int64.max] {
            let token = tokens.token(for: id)
            #expect(token.count == 34)
            #expect(Secrets.isWellFormed(token))
            #expect(tokens.reservationId(from: token) == id)
        }
    }

    @Test("a changed byte, another secret's token, a truncated or garbage code are refused")
    func forgeries() throws {
        let token = tokens.token(for: 42)
        var bytes = try #require(Secrets.base64urlDecoded(token))
        bytes[1 + 7] ^= 1  // claim another reservation with the old MAC
        #expect(tokens.reservationId(from: Secrets.base64url(bytes)) == nil)
        let other = try TicketToken(secret: "another deployment's secret, also long")
        #expect(tokens.reservationId(from: other.token(for: 42)) == nil)
        #expect(tokens.reservationId(from: String(token.dropLast(2))) == nil)
        for garbage in ["", "42", "not a token!", String(repeating: "A", count: 34), "<script>"] {
            #expect(tokens.reservationId(from: garbage) == nil)
        }
    }

    @Test("the secret must be long enough")
    func shortSecret() {
        #expect(throws: TicketToken.SecretError.self) { try TicketToken(secret: "short") }
    }

    @Test("the QR code has a quiet zone, an SVG path of its dark modules, and a 1-bit PNG")
    func drawing() throws {
        let code = try QRCode(encoding: tokens.token(for: 7))
        #expect(code.size == 29)  // version 3 at level M holds 34 bytes
        #expect(code.svgSide == 37)
        #expect(code.isDark(x: 0, y: 0) && code.isDark(x: 6, y: 6) && !code.isDark(x: 7, y: 7))  // finder pattern
        #expect(code.svgPath.hasPrefix("M4 4h7v1h-7z"))
        #expect(code.svgPath.allSatisfy { $0.isNumber || "Mhvz- ".contains($0) })
        let png = code.png(scale: 4)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(Array(png[16..<24]) == [0, 0, 0, 148, 0, 0, 0, 148])  // 37 × 4 pixels square
        #expect(Array(png.suffix(12).prefix(8)) == [0, 0, 0, 0] + Array("IEND".utf8))
    }
}

@Suite("Random tokens")
struct SecretsTests {
    @Test("tokens are unpadded base64url of their bytes, and differ")
    func tokens() {
        let bytes: [UInt8] = [0xfb, 0xff, 0xbf, 0x00, 0x10, 0x83]
        #expect(Secrets.base64url(bytes) == "-_-_ABCD")
        #expect(Secrets.base64url([0xff]) == "_w" && Secrets.base64url([]) == "")
        let tokens = (0..<100).map { _ in Secrets.token() }
        #expect(Set(tokens).count == 100 && tokens.allSatisfy { $0.count == 22 && Secrets.isWellFormed($0) })
        #expect(Secrets.token(bytes: 32).count == 43)
    }
}
