import CSodium

/// The few libsodium primitives CLup uses. libsodium is already required for argon2id, so it
/// also provides hashing and randomness instead of a second crypto library.
public enum Sodium {
    /// `sodium_init` is idempotent and thread-safe; the result is kept so it runs once.
    private static let initialized: Bool = sodium_init() >= 0

    /// Call before serving; a failure means no secure randomness and must stop start-up.
    public static func ensureInitialized() -> Bool { initialized }

    /// `count` bytes from the operating system's CSPRNG.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        precondition(initialized, "libsodium failed to initialize")
        var bytes = [UInt8](repeating: 0, count: count)
        randombytes_buf(&bytes, count)
        return bytes
    }

    /// SHA-256 digest.
    public static func sha256<Bytes: Collection<UInt8>>(_ input: Bytes) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        let bytes = Array(input)
        _ = crypto_hash_sha256(&digest, bytes, UInt64(bytes.count))
        return digest
    }
}

extension Collection<UInt8> {
    /// Lower-case hexadecimal.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(count * 2)
        for byte in self {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
