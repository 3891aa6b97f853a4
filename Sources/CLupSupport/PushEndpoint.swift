/// A browser's push subscription endpoint, checked as the sender will read it and kept in the
/// one form it is then sent to: the server posts only to a known push service, never to an
/// address a forged subscription names.
///
/// Accepted: `https://HOST[:443]/PATH[?QUERY]` where HOST is letters, digits, hyphens and dots
/// (each label 1–63 characters, not starting or ending with a hyphen) and one of `hosts` or a
/// subdomain of one; no userinfo, no other port, no fragment, no percent sign or other escape
/// in the host; PATH and QUERY only of URL characters, with `%` followed by two hex digits.
/// With `allowLoopback` (end-to-end tests), `http://127.0.0.1:PORT/…` too.
public enum PushEndpoint {
    public static let maxLength = 1000

    /// The endpoint re-serialised (lower-case host, no default port), or nil if it is not one.
    public static func canonical(_ text: String, hosts: [String], allowLoopback: Bool) -> String? {
        guard text.utf8.count <= maxLength, text.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7f })
        else { return nil }
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if allowLoopback, lowered.hasPrefix("http://127.0.0.1:") {
            scheme = "http"
        } else {
            return nil
        }
        let afterScheme = text.dropFirst(scheme.count + 3)
        guard let slash = afterScheme.firstIndex(of: "/") else { return nil }
        let authority = afterScheme[..<slash].lowercased()
        let rest = afterScheme[slash...]
        guard isPathAndQuery(rest) else { return nil }
        var host = Substring(authority)
        var port: Int?
        if let colon = authority.firstIndex(of: ":") {
            host = authority[..<colon]
            guard let number = Int(authority[authority.index(after: colon)...]), (1...65535).contains(number) else { return nil }
            port = number
        }
        if scheme == "http" {
            guard host == "127.0.0.1", let port else { return nil }
            return "http://127.0.0.1:\(port)" + rest
        }
        guard port == nil || port == 443, isLDH(host),
            hosts.contains(where: { host == $0 || host.hasSuffix("." + $0) })
        else { return nil }
        return "https://" + host + rest
    }

    static func isLDH(_ host: Substring) -> Bool {
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { label in
            (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        }
    }

    /// RFC 3986 path and query characters; `%` only as an escape of two hex digits; no fragment.
    static func isPathAndQuery(_ text: Substring) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@/?")
        var index = text.startIndex
        while index != text.endIndex {
            let character = text[index]
            if character == "%" {
                let first = text.index(after: index)
                guard first != text.endIndex, text[first].isHexDigit else { return false }
                let second = text.index(after: first)
                guard second != text.endIndex, text[second].isHexDigit else { return false }
                index = text.index(after: second)
                continue
            }
            guard allowed.contains(character) else { return false }
            index = text.index(after: index)
        }
        return true
    }
}
