import Foundation

/// The key rate limits count a client by: an IPv4 address as it is; an IPv6 address by its
/// /64 network, which one subscriber is commonly given whole (one machine can change its
/// interface identifier at will, so a per-address limit would not limit it). Anything that is
/// not an address (a test's name, an empty string) is kept as it is, cut to 64 characters.
public enum ClientAddress {
    public static func key(_ address: String) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return String(address.prefix(64)) }
        // An IPv4-mapped address (::ffff:a.b.c.d) is that IPv4 client.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff {
            return bytes[12...].map(String.init).joined(separator: ".")
        }
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
