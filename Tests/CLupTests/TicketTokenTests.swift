import Foundation
import Testing

@testable import CLupData
@testable import CLupDomain
@testable import CLupSupport
@testable import CLupWeb


@Suite("QR codes and their signed tokens", .enabled(if: Fixture.engineFreePass))
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

@Suite("Random tokens", .enabled(if: Fixture.engineFreePass))
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

@Suite("Door codes signed with the store's key", .enabled(if: Fixture.engineFreePass))
struct DoorCodeTests {
    let keys = StoreKeys(Fixture.tickets)
    let booking = DoorCode(keyId: 1, storeId: 7, reservationId: 123_456, kind: .booking, people: 2, number: 41,
                           slotStart: Fixture.date(2026, 11, 18, 10, 15))

    @Test("a code carries its store, reservation, kind, party, number and slot, verifies with the store's public key, and is 136 characters of QR's alphanumeric set")
    func roundTrip() throws {
        let text = keys.text(of: booking)
        #expect(text.count == DoorCode.textLength && DoorCode.textLength == 136)
        #expect(text.allSatisfy { "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".contains($0) })
        #expect(keys.verify(text) { _, _ in true } == booking)
        // Scanners that type lower case are read the same.
        #expect(keys.verify(text.lowercased()) { _, _ in true } == booking)
        let walkIn = DoorCode(keyId: 3, storeId: 1, reservationId: 1, kind: .walkIn, people: 1, number: 0)
        #expect(keys.verify(keys.text(of: walkIn)) { store, key in store == 1 && key == 3 } == walkIn)
        // The public key is what libsodium verifies with, and it is the same each time.
        #expect(keys.publicKey(storeId: 7, keyId: 1).count == 32)
        #expect(keys.publicKey(storeId: 7, keyId: 1) == StoreKeys(Fixture.tickets).publicKey(storeId: 7, keyId: 1))
        #expect(keys.publicKey(storeId: 7, keyId: 1) != keys.publicKey(storeId: 7, keyId: 2))
        #expect(keys.publicKey(storeId: 7, keyId: 1) != keys.publicKey(storeId: 8, keyId: 1))
        // A version 6 QR code: 41 modules a side, 49 with the quiet zone.
        #expect(try QRCode(encoding: text).size == 41)
    }

    @Test("a changed character, another store's or another deployment's key, a retired key and garbage are refused")
    func forgeries() throws {
        let text = keys.text(of: booking)
        var bytes = try #require(Base32.decode(text))
        bytes[12] ^= 1  // another reservation under the same signature
        #expect(keys.verify(Base32.encode(bytes)) { _, _ in true } == nil)
        bytes[12] ^= 1
        bytes[30] ^= 0x80  // a changed signature
        #expect(keys.verify(Base32.encode(bytes)) { _, _ in true } == nil)
        // Signed by store 8's key but claiming store 7.
        var forged = booking
        forged.storeId = 8
        var signedBy8 = try #require(Base32.decode(keys.text(of: forged)))
        signedBy8.replaceSubrange(3..<7, with: [0, 0, 0, 7])
        #expect(keys.verify(Base32.encode(signedBy8)) { _, _ in true } == nil)
        let other = StoreKeys(try TicketToken(secret: "another deployment's secret, also long"))
        #expect(keys.verify(other.text(of: booking)) { _, _ in true } == nil)
        #expect(keys.verify(text) { _, key in key != 1 } == nil)  // key 1 no longer accepted
        for garbage in ["", String(repeating: "A", count: 136), String(text.dropLast()), text + "A", "<script>"] {
            #expect(keys.verify(garbage) { _, _ in true } == nil)
        }
    }

    @Test("base32 round-trips every length, and refuses characters outside its alphabet")
    func base32() {
        for count in 0..<12 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 37 + 5) }
            #expect(Base32.decode(Base32.encode(bytes)) == bytes)
        }
        #expect(Base32.encode(Array("foobar".utf8)) == "MZXW6YTBOI")  // RFC 4648's example, unpadded
        #expect(Base32.decode("MZXW6YTBOI1") == nil && Base32.decode("MZ=") == nil)
    }
}
