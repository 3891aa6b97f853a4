#if canImport(Glibc)
import Glibc
#endif

/// A network a FastCGI peer may connect from: an address and a prefix length ("10.0.0.0/24",
/// "fd00::/8"), or one address ("10.0.0.5", a /32 or /128). An IPv4 peer reaching an IPv6
/// socket (`::ffff:10.0.0.5`) is matched as the IPv4 address it is.
public struct PeerNetwork: Sendable, Equatable, CustomStringConvertible {
    /// The network's address, 4 or 16 bytes.
    public let bytes: [UInt8]
    public let prefixLength: Int

    /// Reads "address" or "address/length"; nil if it is neither.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let bytes = Self.address(String(parts[0])) else { return nil }
        let length: Int
        if parts.count == 2 {
            guard let given = Int(parts[1]), (0...bytes.count * 8).contains(given), !parts[1].hasPrefix("+") else { return nil }
            length = given
        } else {
            length = bytes.count * 8
        }
        (self.bytes, self.prefixLength) = (bytes, length)
    }

    /// An IPv4 or IPv6 address's bytes; an IPv4-mapped IPv6 address as its IPv4 bytes.
    public static func address(_ text: String) -> [UInt8]? {
        var four = [UInt8](repeating: 0, count: 4)
        if inet_pton(AF_INET, text, &four) == 1 { return four }
        var sixteen = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, text, &sixteen) == 1 else { return nil }
        return unmapped(sixteen)
    }

    /// `bytes`, or the IPv4 address an IPv4-mapped IPv6 address carries.
    static func unmapped(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.count == 16, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return Array(bytes[12...])
        }
        return bytes
    }

    /// Whether the address `peer` (4 or 16 bytes) is in this network.
    public func contains(_ peer: [UInt8]) -> Bool {
        let peer = Self.unmapped(peer)
        guard peer.count == bytes.count else { return false }
        var left = prefixLength
        for (mine, theirs) in zip(bytes, peer) where left > 0 {
            let bits = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - bits))
            if mine & mask != theirs & mask { return false }
            left -= bits
        }
        return true
    }

    public var description: String {
        let address = Self.address(bytes: bytes) ?? "?"
        return prefixLength == bytes.count * 8 ? address : "\(address)/\(prefixLength)"
    }

    /// An address's text, from its 4 or 16 bytes.
    public static func address(bytes: [UInt8]) -> String? {
        let bytes = unmapped(bytes)
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var copy = bytes
        guard inet_ntop(bytes.count == 4 ? AF_INET : AF_INET6, &copy, &text, socklen_t(text.count)) != nil else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
