import CSodium
import Foundation

/// Unguessable tokens (session ids, CSRF tokens, emailed links, kiosk keys) and their stored
/// form. Only hashes of tokens that grant access are stored.
public enum Secrets {
    /// `bytes` random bytes as unpadded base64url: 128 bits by default, 22 characters.
    public static func token(bytes: Int = 16) -> String {
        base64url(Sodium.randomBytes(bytes))
    }

    /// What the database keeps instead of a token: its SHA-256, hex.
    public static func hash(_ token: String) -> String {
        Sodium.sha256(Array(token.utf8)).hexString
    }

    /// Compares in time independent of where the inputs differ.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.utf8)
        let b = Array(rhs.utf8)
        guard a.count == b.count else { return false }
        return a.isEmpty || sodium_memcmp(a, b, a.count) == 0
    }

    /// A token is only ever base64url; anything else in a cookie or link is refused before
    /// it reaches the database.
    public static func isWellFormed(_ token: String, minimumLength: Int = 22) -> Bool {
        token.utf8.count >= minimumLength && token.utf8.count <= 128
            && token.utf8.allSatisfy { byte in
                (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_")
            }
    }

    /// Unpadded base64url, by libsodium (Foundation's encoder and three replacements cost more
    /// than the random bytes on every guest's page).
    public static func base64url(_ bytes: [UInt8]) -> String {
        let variant = sodium_base64_VARIANT_URLSAFE_NO_PADDING
        let capacity = sodium_base64_encoded_len(bytes.count, variant)
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                _ = sodium_bin2base64(characters.baseAddress!, capacity, bytes, bytes.count, variant)
            }
            return capacity - 1  // without the terminating NUL
        }
    }
}

/// Passwords hashed with argon2id through libsodium's `crypto_pwhash_str`: a memory-hard
/// function, salted per password, parameters stored in the hash so they can be raised later.
public struct PasswordHasher: Sendable {
    /// OWASP's minimum for argon2id: 19 MiB and 2 iterations.
    public var memoryLimit: Int = 19 * 1024 * 1024
    public var operationsLimit: UInt64 = 2

    public init() {}

    public static let minimumLength = 8
    public static let maximumLength = 128

    public func hash(_ password: String) -> String {
        precondition(Sodium.ensureInitialized(), "libsodium failed to initialize")
        var output = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        // The UTF-8 length, not strlen: a password may contain U+0000.
        let length = UInt64(password.utf8.count)
        let status = password.withCString {
            crypto_pwhash_str_alg(&output, $0, length, operationsLimit, memoryLimit, crypto_pwhash_alg_argon2id13())
        }
        // Fails only when memory cannot be allocated; no hash must ever be stored empty.
        precondition(status == 0, "argon2id could not allocate its memory")
        return String(cString: output)
    }

    public func verify(_ password: String, against hash: String) -> Bool {
        let length = UInt64(password.utf8.count)
        return hash.withCString { stored in
            password.withCString { crypto_pwhash_str_verify(stored, $0, length) == 0 }
        }
    }

    /// A hash of a password nobody has, verified against when the account does not exist, so
    /// an unknown address takes as long to refuse as a wrong password.
    public static let decoy: String = PasswordHasher().hash(Secrets.token())

    /// Why a password is not acceptable (the pages word it in the reader's language).
    public enum Weakness: Sendable, Equatable {
        case tooShort(minimum: Int)
        case tooLong(maximum: Int)
        /// Among the most common passwords, tried first by attackers.
        case common
        /// Two different characters or fewer.
        case repetitive
        /// Contains the account's email address or is its name.
        case personal
    }

    /// Why `password` is not acceptable, or nil if it is.
    public static func weakness(of password: String, email: String = "", displayName: String = "") -> Weakness? {
        let length = password.count
        if length < minimumLength { return .tooShort(minimum: minimumLength) }
        if length > maximumLength { return .tooLong(maximum: maximumLength) }
        let folded = password.lowercased()
        if CommonPasswords.contains(folded) { return .common }
        if Set(folded).count <= 2 { return .repetitive }
        let address = email.lowercased()
        let local = address.split(separator: "@").first.map(String.init) ?? ""
        if !address.isEmpty && folded.contains(address) || local.count >= 4 && folded.contains(local)
            || folded == displayName.lowercased()
        {
            return .personal
        }
        return nil
    }
}
