import CLupData
import CLupDomain
import CLupText
import Foundation

/// Decoded `application/x-www-form-urlencoded` pairs, from a query string or a form body, in
/// the order sent. A key may repeat (checkboxes); `first` and `all` say which is meant.
public struct FormData: Sendable, Equatable {
    public private(set) var pairs: [(name: String, value: String)]

    public init(pairs: [(name: String, value: String)] = []) {
        self.pairs = pairs
    }

    public static func == (lhs: FormData, rhs: FormData) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The largest form any page sends (a store's hours and departments are a few kilobytes),
    /// the most fields, and the longest field: past them a body is refused before it is decoded.
    public static let maxBodyBytes = 64 * 1024
    public static let maxPairs = 300
    public static let maxFieldBytes = 16 * 1024

    /// Parses `a=1&b=x+y&c=%C3%A9`: `+` is a space, `%XX` a byte; the bytes must form UTF-8.
    /// Empty segments (`a=1&&b=2`) are skipped; a name without `=` has an empty value. More than
    /// `maxPairs` fields or a field over `maxFieldBytes` is refused with 413.
    public init<Bytes: Collection<UInt8>>(urlEncoded bytes: Bytes) throws(HTTPError) {
        var pairs: [(name: String, value: String)] = []
        for segment in bytes.split(separator: UInt8(ascii: "&"), maxSplits: Self.maxPairs, omittingEmptySubsequences: true) {
            guard pairs.count < Self.maxPairs, segment.count <= Self.maxFieldBytes else {
                throw HTTPError(413, tr("error.formTooLarge"))
            }
            let equals = segment.firstIndex(of: UInt8(ascii: "="))
            let name = try Self.decode(segment[..<(equals ?? segment.endIndex)])
            var value = ""
            if let equals { value = try Self.decode(segment[segment.index(after: equals)...]) }
            pairs.append((name, value))
        }
        self.pairs = pairs
    }

    public init(urlEncoded string: String) throws(HTTPError) {
        try self.init(urlEncoded: Array(string.utf8))
    }

    /// The largest upload a page takes (a chain's stores as CSV: 500 stores are about 100 KB).
    public static let maxUploadBytes = 2 * 1024 * 1024

    /// Parses a `multipart/form-data` body (RFC 7578) whose parts are separated by `boundary`:
    /// each part's name and its content as text. A file's content is read as UTF-8 (a leading
    /// byte-order mark dropped) or, failing that, as Windows-1252, which spreadsheets on
    /// Windows write by default; another field's must be UTF-8. More than `maxPairs` parts is
    /// refused with 413, a body not of this shape with 400.
    public init(multipart body: [UInt8], boundary: String) throws(HTTPError) {
        let delimiter = Array("--\(boundary)".utf8)
        let newline = Array("\r\n".utf8)
        let malformed = HTTPError.badRequest(tr("error.multipart"))
        guard !boundary.isEmpty, boundary.utf8.count <= 70, body.starts(with: delimiter) else { throw malformed }
        var pairs: [(name: String, value: String)] = []
        var index = delimiter.count
        while true {
            // After a delimiter: "--" ends the body, a line break starts a part.
            if body[index...].starts(with: Array("--".utf8)) { break }
            guard body[index...].starts(with: newline),
                  let headersEnd = body.firstRange(of: newline + newline, in: index + 2..<body.count),
                  let contentEnd = body.firstRange(of: newline + delimiter, in: headersEnd.upperBound..<body.count)
            else { throw malformed }
            guard pairs.count < Self.maxPairs else { throw HTTPError(413, tr("error.formTooLarge")) }
            let headers = String(decoding: body[(index + 2)..<headersEnd.lowerBound], as: UTF8.self)
            guard let disposition = Self.disposition(headers), let name = disposition["name"] else { throw malformed }
            let content = body[headersEnd.upperBound..<contentEnd.lowerBound]
            let value: String
            if disposition["filename"] != nil {
                guard let text = Self.uploadedText(content) else { throw HTTPError.badRequest(tr("error.utf8")) }
                value = text
            } else {
                guard let text = String(validating: content, as: UTF8.self) else { throw HTTPError.badRequest(tr("error.utf8")) }
                value = text
            }
            pairs.append((name, value))
            index = contentEnd.upperBound
        }
        self.pairs = pairs
    }

    /// A file's text as spreadsheets write it: UTF-8 (a byte-order mark dropped) or, failing
    /// that, Windows-1252; nil if it is neither. The web's upload and `clup admin` read files so.
    public static func uploadedText(_ bytes: some Collection<UInt8>) -> String? {
        let content = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes.dropFirst(0)
        return String(validating: content, as: UTF8.self) ?? String(data: Data(content), encoding: .windowsCP1252)
    }

    /// `form-data; name="file"; filename="stores.csv"` → name and filename, from a part's
    /// headers; nil without a `Content-Disposition: form-data` header.
    private static func disposition(_ headers: String) -> [String: String]? {
        for line in headers.split(separator: "\r\n") {
            let header = line.split(separator: ":", maxSplits: 1)
            guard header.count == 2, header[0].lowercased() == "content-disposition" else { continue }
            let parameters = header[1].split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parameters.first?.lowercased() == "form-data" else { return nil }
            var result: [String: String] = [:]
            for parameter in parameters.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2 else { continue }
                var value = String(pair[1])
                if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
                result[pair[0].lowercased()] = value
            }
            return result
        }
        return nil
    }

    /// The first value for `name`, or nil.
    public subscript(name: String) -> String? {
        pairs.first { $0.name == name }?.value
    }

    /// Every value for `name`, in order.
    public func all(_ name: String) -> [String] {
        pairs.filter { $0.name == name }.map(\.value)
    }

    /// Percent-decodes `input` and validates it as UTF-8. In form encoding `+` is a space; in a
    /// URL path it is itself.
    static func decode<Bytes: Collection<UInt8>>(_ input: Bytes, plusIsSpace: Bool = true) throws(HTTPError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(input.count)
        var index = input.startIndex
        while index != input.endIndex {
            let byte = input[index]
            switch byte {
            case UInt8(ascii: "+") where plusIsSpace:
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                let high = input.index(after: index)
                guard high != input.endIndex, input.index(after: high) != input.endIndex,
                    let h = hexValue(input[high]), let l = hexValue(input[input.index(after: high)])
                else { throw .badRequest(tr("error.percent")) }
                bytes.append(h << 4 | l)
                index = input.index(after: high)
            default:
                bytes.append(byte)
            }
            index = input.index(after: index)
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw .badRequest(tr("error.utf8"))
        }
        return string
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Encodes pairs for a query string or a form body (the inverse of parsing).
    public var urlEncoded: String {
        pairs.map { "\(Self.encode($0.name))=\(Self.encode($0.value))" }.joined(separator: "&")
    }

    static func encode(_ string: String) -> String {
        var out = ""
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: " "):
                out += "+"
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension Array where Element == UInt8 {
    /// Where `pattern` first occurs within `range`, or nil.
    fileprivate func firstRange(of pattern: [UInt8], in range: Range<Int>) -> Range<Int>? {
        guard let first = pattern.first, range.count >= pattern.count else { return nil }
        var index = range.lowerBound
        let last = range.upperBound - pattern.count
        while index <= last {
            guard let candidate = self[index...last].firstIndex(of: first) else { return nil }
            if self[candidate..<(candidate + pattern.count)].elementsEqual(pattern) {
                return candidate..<(candidate + pattern.count)
            }
            index = candidate + 1
        }
        return nil
    }
}
