import Foundation

/// What the device API takes as JSON, beyond what `JSONDecoder` checks: the media type is
/// `application/json` itself (parameters such as `charset=utf-8` allowed, not
/// `application/json-anything` nor another charset), the text is UTF-8 without a byte order
/// mark (RFC 8259 §8.1: `JSONDecoder` would also read UTF-16 and UTF-32, which the duplicate
/// check below does not), and no object names a key twice — `{"code": "A", "code": "B"}`
/// would mean one thing to this server and another to a proxy or a log reader in front of it.
enum StrictJSON {
    static func isJSONMediaType(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let parts = contentType.split(separator: ";", omittingEmptySubsequences: false)
        guard parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "application/json" else { return false }
        return parts.dropFirst().allSatisfy { parameter in
            let pair = parameter.split(separator: "=", maxSplits: 1)
                .map { $0.trimmingCharacters(in: CharacterSet.whitespaces.union(["\""])).lowercased() }
            return pair.first != "charset" || pair.last == "utf-8"
        }
    }

    /// Whether `body` is UTF-8 text with no byte order mark and no NUL (which JSON text never
    /// holds unescaped; UTF-16 and UTF-32 are full of them).
    static func isUTF8Text(_ body: [UInt8]) -> Bool {
        !body.starts(with: [0xEF, 0xBB, 0xBF]) && !body.contains(0) && String(validating: body, as: UTF8.self) != nil
    }

    /// The first key an object of `body` names twice, decoded (`"a"` and `"\u0061"` are one),
    /// or nil. Malformed JSON is left to the decoder to refuse.
    static func duplicateKey(in body: [UInt8]) -> String? {
        var objects: [Set<String>] = []  // keys seen, per object open around the cursor
        var containers: [UInt8] = []  // `{` or `[`
        var expectingKey = false
        var index = 0
        while index < body.count {
            let byte = body[index]
            switch byte {
            case UInt8(ascii: "{"):
                containers.append(byte)
                objects.append([])
                expectingKey = true
            case UInt8(ascii: "["):
                containers.append(byte)
                expectingKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if containers.popLast() == UInt8(ascii: "{") { _ = objects.popLast() }
                expectingKey = false
            case UInt8(ascii: ","):
                expectingKey = containers.last == UInt8(ascii: "{")
            case UInt8(ascii: "\""):
                var end = index + 1
                while end < body.count, body[end] != UInt8(ascii: "\"") {
                    end += body[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard end < body.count else { return nil }
                if expectingKey {
                    let raw = Data(body[index...end])
                    guard let key = try? JSONDecoder().decode(String.self, from: raw) else { return nil }
                    if objects[objects.count - 1].insert(key).inserted == false { return key }
                    expectingKey = false
                }
                index = end
            default:
                break
            }
            index += 1
        }
        return nil
    }
}
