import CSodium
import Foundation

/// The key personal data is sealed with at rest: names, email addresses and the mail written
/// to them are stored sealed, so the database file, its WAL and every backup of them are
/// unreadable without it. It lives in a file of its own (`CLUP_DATA_KEY_FILE`), outside the
/// database and its backups.
///
/// - Sealing is libsodium's XChaCha20-Poly1305 with a random 192-bit nonce per value: the same
///   name sealed twice gives two different texts, and a changed byte is refused, not misread.
/// - Look-ups (an account by its address, mail by recipient, sign-in failures by account)
///   go through a keyed BLAKE2b hash of the normalised value, so equal values still meet
///   in an index without the value being stored.
///
/// The two uses get independent subkeys derived from the file's secret.
public struct DataKey: Sendable, Equatable {
    private let sealing: [UInt8]
    private let lookups: [UInt8]

    /// What a sealed value begins with. Base64url never contains ':', so no sealed text is
    /// mistaken for another format and a future scheme can take "s2:".
    public static let sealedPrefix = "s1:"
    public static let lookupPrefix = "k1:"

    /// A key from a secret of at least 32 characters (the file's content, trimmed).
    public init(secret: String) throws {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count >= 32 else { throw KeyError.tooShort }
        precondition(Sodium.ensureInitialized(), "libsodium failed to initialize")
        // The secret may be any text; its keyed BLAKE2b digest is the master key.
        var master = [UInt8](repeating: 0, count: Int(crypto_kdf_KEYBYTES))
        let bytes = Array(trimmed.utf8)
        let personal = Array("clup data key v1".utf8)
        _ = crypto_generichash(&master, master.count, bytes, UInt64(bytes.count), personal, personal.count)
        sealing = Self.derive(from: master, id: 1, length: Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES))
        lookups = Self.derive(from: master, id: 2, length: Int(crypto_generichash_KEYBYTES))
        sodium_memzero(&master, master.count)
    }

    /// The key of databases that never outlive their process or hold anyone real: in memory,
    /// a simulation's scratch file, and the test suites' throwaway stacks. Its secret is no
    /// secret; a real database is always opened with a key from a file.
    public static let scratchSecret = "CLup scratch data key: never for a database that holds real people"
    public static let scratch = try! DataKey(secret: scratchSecret)

    /// A fresh random secret, in the form a key file holds.
    public static func newSecret() -> String {
        Secrets.base64url(Sodium.randomBytes(32))
    }

    /// The key in `path`; a missing, unreadable or short file is an error that says how to
    /// make one.
    public static func load(path: String) throws -> DataKey {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyError.missing(path)
        }
        do {
            return try DataKey(secret: String(decoding: data, as: UTF8.self))
        } catch KeyError.tooShort {
            throw KeyError.tooShortFile(path)
        }
    }

    public enum KeyError: Error, CustomStringConvertible, Equatable {
        case tooShort
        case tooShortFile(String)
        case missing(String)

        public var description: String {
            switch self {
            case .tooShort: "a data key must be at least 32 characters"
            case .tooShortFile(let path): "\(path): a data key must be at least 32 characters"
            case .missing(let path):
                "no data key at \(path). Create one, readable only by CLup, and keep it outside the database's "
                    + "folder and backups:\n  clup admin create-data-key \(path)"
            }
        }
    }

    private static func derive(from master: [UInt8], id: UInt64, length: Int) -> [UInt8] {
        var subkey = [UInt8](repeating: 0, count: length)
        let context = Array("clupdata".utf8CString)  // eight characters and the NUL
        _ = crypto_kdf_derive_from_key(&subkey, length, id, context, master)
        return subkey
    }

    /// `plain` sealed: "s1:" and the base64url of the nonce, the ciphertext and its tag.
    public func seal(_ plain: String) -> String {
        let message = Array(plain.utf8)
        let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        var output = Sodium.randomBytes(nonceLength)
        output.append(contentsOf: repeatElement(0, count: message.count + Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)))
        var written: UInt64 = 0
        output.withUnsafeMutableBufferPointer { buffer in
            let nonce = UnsafePointer(buffer.baseAddress!)
            _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                buffer.baseAddress! + nonceLength, &written, message, UInt64(message.count), nil, 0, nil, nonce, sealing)
        }
        return Self.sealedPrefix + Secrets.base64url(output)
    }

    /// The value `sealed` holds; nil if it is not a sealed text, or was sealed with another key,
    /// or was changed.
    public func open(_ sealed: String) -> String? {
        guard sealed.hasPrefix(Self.sealedPrefix),
              let bytes = Self.base64urlDecode(sealed.utf8.dropFirst(Self.sealedPrefix.utf8.count))
        else { return nil }
        let nonceLength = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
        let tagLength = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)
        guard bytes.count >= nonceLength + tagLength else { return nil }
        var plain = [UInt8](repeating: 0, count: bytes.count - nonceLength - tagLength)
        var length: UInt64 = 0
        let status = bytes.withUnsafeBufferPointer { buffer in
            crypto_aead_xchacha20poly1305_ietf_decrypt(
                &plain, &length, nil, buffer.baseAddress! + nonceLength, UInt64(bytes.count - nonceLength), nil, 0,
                buffer.baseAddress!, sealing)
        }
        guard status == 0 else { return nil }
        return String(decoding: plain.prefix(Int(length)), as: UTF8.self)
    }

    /// Whether `text` is a value sealed with this key.
    public func opens(_ text: String) -> Bool { open(text) != nil }

    /// The keyed hash `normalised` is found by: "k1:" and 32 bytes in base64url. Callers
    /// normalise first (an address lower-cased), so that equal values give equal hashes.
    public func lookup(_ normalised: String) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let bytes = Array(normalised.utf8)
        _ = crypto_generichash(&digest, digest.count, bytes, UInt64(bytes.count), lookups, lookups.count)
        return Self.lookupPrefix + Secrets.base64url(digest)
    }

    private static func base64urlDecode(_ text: Substring.UTF8View) -> [UInt8]? {
        let characters = Array(text)
        var output = [UInt8](repeating: 0, count: characters.count * 3 / 4 + 1)
        var length = 0
        let status = characters.withUnsafeBufferPointer { input in
            input.withMemoryRebound(to: CChar.self) { input in
                sodium_base642bin(&output, output.count, input.baseAddress, input.count, nil, &length, nil,
                                  sodium_base64_VARIANT_URLSAFE_NO_PADDING)
            }
        }
        guard status == 0 else { return nil }
        return Array(output.prefix(length))
    }
}
