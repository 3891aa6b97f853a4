import CSodium
import Foundation

/// The QR code's payload: a compact token naming a reservation, signed with the server's
/// secret (HMAC-SHA256, truncated to 128 bits), so codes can be neither guessed nor forged and
/// never carry a bare id.
///
/// Layout before base64url: version (1 byte) · reservation id (8 bytes, big-endian) · MAC
/// (16 bytes) — 34 characters, which keeps the code small enough to scan from a phone screen.
public struct TicketToken: Sendable {
    private let key: [UInt8]

    static let version: UInt8 = 1
    static let macLength = 16
    public static let minimumSecretLength = 32

    public enum SecretError: Error, CustomStringConvertible {
        case tooShort

        public var description: String {
            "the server secret must be at least \(TicketToken.minimumSecretLength) characters"
        }
    }

    /// The key is the SHA-256 of the configured secret, so any long enough text will do.
    public init(secret: String) throws(SecretError) {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count >= Self.minimumSecretLength else { throw .tooShort }
        key = Sodium.sha256(Array(trimmed.utf8))
    }

    private init(key: [UInt8]) {
        self.key = key
    }

    /// The key, for keys derived from it in this module (`StoreKeys`).
    var keyBytes: [UInt8] { key }

    /// Tokens of another purpose under the same secret (a booking reminder's reply links): a
    /// token of one purpose is never valid as one of another.
    public func derived(for purpose: String) -> TicketToken {
        TicketToken(key: Sodium.sha256(key + Array("|\(purpose)".utf8)))
    }

    /// The token for reservation `id`.
    public func token(for id: Int64) -> String {
        let payload = [Self.version] + Self.bytes(of: id)
        return Secrets.base64url(payload + mac(payload))
    }

    /// The reservation a token names, or nil if it was not made with this secret (or is not a
    /// token at all). The MAC is compared in constant time.
    public func reservationId(from token: String) -> Int64? {
        guard Secrets.isWellFormed(token, minimumLength: 1), let bytes = Secrets.base64urlDecoded(token),
            bytes.count == 9 + Self.macLength, bytes[0] == Self.version
        else { return nil }
        let payload = Array(bytes[0..<9])
        let expected = mac(payload)
        let given = Array(bytes[9...])
        guard sodium_memcmp(expected, given, Self.macLength) == 0 else { return nil }
        let id = payload[1...].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        return id > 0 ? id : nil
    }

    /// A 128-bit signature of `message` under this key, base64url: for short-lived values kept
    /// by a browser (a member of staff's pass at a kiosk) that must come back unchanged.
    public func signature(of message: String) -> String {
        Secrets.base64url(mac(Array(message.utf8)))
    }

    /// Whether `signature` is this key's signature of `message`, compared in constant time.
    public func isSignature(_ signature: String, of message: String) -> Bool {
        Secrets.constantTimeEquals(signature, self.signature(of: message))
    }

    private func mac(_ payload: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        _ = crypto_auth_hmacsha256(&out, payload, UInt64(payload.count), key)
        return Array(out.prefix(Self.macLength))
    }

    private static func bytes(of id: Int64) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: id >> ($0 * 8)) }
    }
}

extension Secrets {
    /// Decodes unpadded base64url (padding tolerated); nil if it is not.
    public static func base64urlBytes(_ text: String) -> [UInt8]? {
        let trimmed = text.hasSuffix("=") ? String(text.prefix { $0 != "=" }) : text
        guard trimmed.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            return nil
        }
        return base64urlDecoded(trimmed)
    }

    /// Decodes unpadded base64url; nil if it is not.
    static func base64urlDecoded(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64).map(Array.init)
    }
}
