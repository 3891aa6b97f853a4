import CSodium
import Foundation
import Synchronization

/// What a ticket's QR code says, signed with its store's Ed25519 key, so that a kiosk holding
/// only the store's public keys can tell offline which store a code is for, that it is
/// genuine, and what it allows: a line-up ticket, a walk-in ticket, or a booking and its slot.
///
/// Layout: version 2 (1 byte) · key id (2) · store id (4) · reservation id (6) · kind (1) ·
/// people (1) · ticket number (2) · slot start in minutes since 1970, 0 for none (4) ·
/// signature of the 21 bytes before it (64). 85 bytes, written in base32 (RFC 4648, no
/// padding): 136 characters from QR's alphanumeric set, a version 6 code (41 modules a side)
/// at level M.
public struct DoorCode: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case lineUp = 0
        case booking = 1
        case walkIn = 2
    }

    public var keyId: Int
    public var storeId: Int64
    public var reservationId: Int64
    public var kind: Kind
    public var people: Int
    public var number: Int
    /// A booking's slot, to the minute.
    public var slotStart: Date?

    static let version: UInt8 = 2
    static let payloadLength = 21
    static let signatureLength = Int(crypto_sign_BYTES)
    /// Characters of a code's text.
    public static let textLength = (payloadLength + signatureLength) * 8 / 5

    public init(keyId: Int, storeId: Int64, reservationId: Int64, kind: Kind, people: Int, number: Int,
                slotStart: Date? = nil)
    {
        (self.keyId, self.storeId, self.reservationId, self.kind) = (keyId, storeId, reservationId, kind)
        (self.people, self.number, self.slotStart) = (people, number, slotStart)
    }

    /// Whether the fields fit the layout (ids and numbers in range).
    var fits: Bool {
        (1...0xFFFF).contains(keyId) && (1...0xFFFF_FFFF).contains(storeId)
            && (1...0xFFFF_FFFF_FFFF).contains(reservationId) && (1...255).contains(people)
            && (0...0xFFFF).contains(number) && (slotStart.map { $0.timeIntervalSince1970 >= 60 } ?? true)
    }

    var payload: [UInt8] {
        var bytes: [UInt8] = [Self.version]
        func put(_ value: Int64, _ count: Int) {
            for shift in (0..<count).reversed() { bytes.append(UInt8(truncatingIfNeeded: value >> (shift * 8))) }
        }
        put(Int64(keyId), 2)
        put(storeId, 4)
        put(reservationId, 6)
        bytes.append(kind.rawValue)
        bytes.append(UInt8(people))
        put(Int64(number), 2)
        put(slotStart.map { Int64(($0.timeIntervalSince1970 / 60).rounded(.down)) } ?? 0, 4)
        return bytes
    }

    init?(payload bytes: ArraySlice<UInt8>) {
        guard bytes.count == Self.payloadLength, bytes.first == Self.version else { return nil }
        var at = bytes.startIndex + 1
        func take(_ count: Int) -> Int64 {
            defer { at += count }
            return bytes[at..<(at + count)].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        }
        keyId = Int(take(2))
        storeId = take(4)
        reservationId = take(6)
        guard let kind = Kind(rawValue: UInt8(take(1))) else { return nil }
        self.kind = kind
        people = Int(take(1))
        number = Int(take(2))
        let minutes = take(4)
        slotStart = minutes == 0 ? nil : Date(timeIntervalSince1970: Double(minutes) * 60)
        guard fits, (kind == .booking) == (slotStart != nil) else { return nil }
    }

    /// The code's fields and signature, if `text` is laid out as one; nothing is checked yet.
    public static func parse(_ text: String) -> (code: DoorCode, signed: [UInt8], signature: [UInt8])? {
        guard text.utf8.count == textLength, let bytes = Base32.decode(text),
            bytes.count == payloadLength + signatureLength,
            let code = DoorCode(payload: bytes[0..<payloadLength])
        else { return nil }
        return (code, Array(bytes[0..<payloadLength]), Array(bytes[payloadLength...]))
    }
}

/// Every store's signing keys: each derived from the server secret, the store's id and the
/// key's number, so no private key is ever stored, and only public keys leave the server
/// (to the store's kiosks). A store moves to a new key number when its keys are rotated.
public final class StoreKeys: Sendable {
    private let master: [UInt8]
    private let pairs = Mutex<[Pair: (public: [UInt8], secret: [UInt8])]>([:])

    private struct Pair: Hashable {
        var storeId: Int64
        var keyId: Int
    }

    /// Keys under `tickets`' secret, for a purpose of their own.
    public init(_ tickets: TicketToken) {
        master = tickets.derived(for: "store-signing-keys").keyBytes
    }

    private func pair(storeId: Int64, keyId: Int) -> (public: [UInt8], secret: [UInt8]) {
        let index = Pair(storeId: storeId, keyId: keyId)
        if let pair = pairs.withLock({ $0[index] }) { return pair }
        var seed = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        let message = Array("\(storeId)|\(keyId)".utf8)
        _ = crypto_auth_hmacsha256(&seed, message, UInt64(message.count), master)
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_PUBLICKEYBYTES))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_SECRETKEYBYTES))
        _ = crypto_sign_seed_keypair(&publicKey, &secretKey, seed)
        let pair = (public: publicKey, secret: secretKey)
        pairs.withLock { $0[index] = pair }
        return pair
    }

    /// The store's public key number `keyId` (32 bytes), as kiosks receive it.
    public func publicKey(storeId: Int64, keyId: Int) -> [UInt8] {
        pair(storeId: storeId, keyId: keyId).public
    }

    /// `code` signed with its store's key `code.keyId`, as the QR code's text.
    public func text(of code: DoorCode) -> String {
        precondition(code.fits, "a door code's fields out of range")
        let payload = code.payload
        var signature = [UInt8](repeating: 0, count: DoorCode.signatureLength)
        _ = crypto_sign_detached(&signature, nil, payload, UInt64(payload.count),
                                 pair(storeId: code.storeId, keyId: code.keyId).secret)
        return Base32.encode(payload + signature)
    }

    /// The code `text` says, if it is signed with its store's key `code.keyId` and `accepts`
    /// says that key is still good; nil otherwise.
    public func verify(_ text: String, accepts: (_ storeId: Int64, _ keyId: Int) -> Bool) -> DoorCode? {
        guard let (code, signed, signature) = DoorCode.parse(text), accepts(code.storeId, code.keyId) else { return nil }
        let publicKey = publicKey(storeId: code.storeId, keyId: code.keyId)
        guard crypto_sign_verify_detached(signature, signed, UInt64(signed.count), publicKey) == 0 else { return nil }
        return code
    }
}

/// RFC 4648 base32, upper case, without padding: every character is in QR's alphanumeric set,
/// which packs 5.5 bits a character against 8 for bytes.
public enum Base32 {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    public static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 8 + 4) / 5)
        var buffer = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | Int(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(alphabet[(buffer >> bits) & 31])
            }
        }
        if bits > 0 { out.append(alphabet[(buffer << (5 - bits)) & 31]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text`; nil if a character is not of the alphabet (lower case is read as
    /// upper case, as some scanners type it).
    public static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var buffer = 0
        var bits = 0
        for character in text.utf8 {
            let value: Int
            switch character {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): value = Int(character - UInt8(ascii: "A"))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): value = Int(character - UInt8(ascii: "a"))
            case UInt8(ascii: "2")...UInt8(ascii: "7"): value = Int(character - UInt8(ascii: "2")) + 26
            default: return nil
            }
            buffer = (buffer << 5 | value) & 0xFFFF
            bits += 5
            if bits >= 8 {
                bits -= 8
                out.append(UInt8((buffer >> bits) & 0xFF))
            }
        }
        return out
    }
}
