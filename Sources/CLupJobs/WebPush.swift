import CLupSupport
import Crypto
import Foundation

/// Message encryption for Web Push (RFC 8291) in the `aes128gcm` content coding (RFC 8188):
/// the push service relays only ciphertext that the subscribed browser alone can read.
public enum WebPushEncryption {
    public enum Failure: Error, CustomStringConvertible {
        case badSubscriptionKey
        case tooLong

        public var description: String {
            switch self {
            case .badSubscriptionKey: "the subscription's keys are not a P-256 key and a 16-byte secret"
            case .tooLong: "the payload is too long for one push message"
            }
        }
    }

    /// The record size announced in the header: one record holds the whole message.
    static let recordSize: UInt32 = 4096

    /// `plaintext` encrypted for the browser with public key `p256dh` (uncompressed point) and
    /// secret `auth`. A fresh key pair and salt for every message, unless a test gives them.
    public static func encrypt(
        _ plaintext: [UInt8], p256dh: [UInt8], auth: [UInt8],
        serverKey: P256.KeyAgreement.PrivateKey = P256.KeyAgreement.PrivateKey(),
        salt: [UInt8] = Array(SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) })
    ) throws -> [UInt8] {
        // A record carries the plaintext, one delimiter byte and the 16-byte tag.
        guard plaintext.count + 1 + 16 <= Int(recordSize) - 86 else { throw Failure.tooLong }
        guard auth.count == 16, salt.count == 16,
            let browserKey = try? P256.KeyAgreement.PublicKey(x963Representation: p256dh)
        else { throw Failure.badSubscriptionKey }
        let serverPublic = Array(serverKey.publicKey.x963Representation)
        let shared = try serverKey.sharedSecretFromKeyAgreement(with: browserKey).withUnsafeBytes { Array($0) }
        // IKM = HKDF(salt: auth, ikm: ECDH secret, info: "WebPush: info" 0 ‖ ua_public ‖ as_public)
        let keyInfo = Array("WebPush: info".utf8) + [0] + p256dh + serverPublic
        let ikm = hkdf(salt: auth, inputKey: shared, info: keyInfo, count: 32)
        let key = hkdf(salt: salt, inputKey: ikm, info: Array("Content-Encoding: aes128gcm".utf8) + [0], count: 16)
        let nonce = hkdf(salt: salt, inputKey: ikm, info: Array("Content-Encoding: nonce".utf8) + [0], count: 12)
        let sealed = try AES.GCM.seal(plaintext + [2], using: SymmetricKey(data: key), nonce: AES.GCM.Nonce(data: nonce))
        let header = salt + bigEndian(recordSize) + [UInt8(serverPublic.count)] + serverPublic
        return header + Array(sealed.ciphertext) + Array(sealed.tag)
    }

    /// HKDF-SHA-256 with a single expansion block (every length used here is at most 32).
    static func hkdf(salt: [UInt8], inputKey: [UInt8], info: [UInt8], count: Int) -> [UInt8] {
        let prk = HMAC<SHA256>.authenticationCode(for: inputKey, using: SymmetricKey(data: salt))
        let okm = HMAC<SHA256>.authenticationCode(for: info + [1], using: SymmetricKey(data: Array(prk)))
        return Array(Array(okm).prefix(count))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }
}

/// The application server's identity towards push services (VAPID, RFC 8292): a P-256 key
/// pair, whose public half browsers subscribe with, and a contact address.
public struct VAPIDKey: Sendable {
    /// The private key's 32 bytes (Crypto's key type is not `Sendable`).
    private let raw: [UInt8]
    public let subject: String
    public let publicKey: String

    var key: P256.Signing.PrivateKey {
        // Checked valid when made.
        try! P256.Signing.PrivateKey(rawRepresentation: raw)
    }

    public enum Failure: Error, CustomStringConvertible {
        case badKey
        public var description: String { "the VAPID private key is not 32 bytes of base64url (a P-256 scalar)" }
    }

    /// From the private key's 32 bytes in base64url, as `clup` stores it. `publicKey` is the
    /// key browsers subscribe with (`applicationServerKey`): uncompressed, base64url.
    public init(privateKey: String, subject: String) throws {
        guard let bytes = Secrets.base64urlBytes(privateKey.trimmingCharacters(in: .whitespacesAndNewlines)),
            let key = try? P256.Signing.PrivateKey(rawRepresentation: bytes)
        else { throw Failure.badKey }
        raw = bytes
        self.subject = subject
        publicKey = Secrets.base64url(Array(key.publicKey.x963Representation))
    }

    /// A new key's private half, to store.
    public static func generatePrivateKey() -> String {
        Secrets.base64url(Array(P256.Signing.PrivateKey().rawRepresentation))
    }


    /// The `Authorization` header for a push to `endpoint`: a JWT (ES256) for the push
    /// service's origin, valid 12 hours, and the public key.
    public func authorization(for endpoint: URL, now: Date) throws -> String {
        guard let scheme = endpoint.scheme, let host = endpoint.host else { throw URLError(.badURL) }
        let audience = "\(scheme)://\(host)" + (endpoint.port.map { ":\($0)" } ?? "")
        func encode(_ object: [String: Any]) throws -> String {
            Secrets.base64url(Array(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])))
        }
        let claims: [String: Any] = ["aud": audience, "exp": Int(now.timeIntervalSince1970) + 12 * 3600, "sub": subject]
        let signingInput = try encode(["typ": "JWT", "alg": "ES256"]) + "." + encode(claims)
        let signature = try key.signature(for: Data(signingInput.utf8)).rawRepresentation
        return "vapid t=\(signingInput).\(Secrets.base64url(Array(signature))), k=\(publicKey)"
    }
}
