/// A fragment of HTML that is safe to send: literal template text is taken as written, and
/// every `String` interpolated into it is escaped, so a store called `<script>` shows as text.
/// Raw markup gets in only through another `HTML` value or the explicit `unescaped:` label.
///
/// Only the types a page needs can be interpolated — text, numbers, fragments, optional and
/// repeated fragments — so a template that interpolates a whole model, a `Date` or a `Bool`
/// does not compile, where a Mustache template would print its description or nothing.
public struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public private(set) var text: String

    public init(unescaped text: String) {
        self.text = text
    }

    public init(stringLiteral value: String) {
        text = value
    }

    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
    }

    public static let empty = HTML(unescaped: "")

    public var description: String { text }

    /// Appends `other`: templates build a page into one buffer.
    public static func += (lhs: inout HTML, rhs: HTML) {
        lhs.text += rhs.text
    }

    /// Makes room for `count` bytes, so a page built piece by piece is not copied as it grows.
    public mutating func reserveCapacity(_ count: Int) {
        text.reserveCapacity(count)
    }

    /// The length in UTF-8 bytes.
    public var byteCount: Int { text.utf8.count }

    /// Fragments one after another.
    public static func joined(_ parts: some Sequence<HTML>) -> HTML {
        var html = HTML.empty
        for part in parts { html += part }
        return html
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text: String

        public init(literalCapacity: Int, interpolationCount: Int) {
            text = ""
            text.reserveCapacity(literalCapacity + interpolationCount * 16)
        }

        public mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// Text, escaped for element content and quoted attribute values alike.
        public mutating func appendInterpolation(_ value: String) {
            HTML.escape(value, into: &text)
        }

        // No overload takes `String?`: `\(optional.map { "<p>…</p>" })` must then be a fragment
        // (`HTML?`), never text that would show its own markup escaped. Optional text is
        // written `\(value ?? "")`.

        public mutating func appendInterpolation(_ value: Int) {
            text += String(value)
        }

        public mutating func appendInterpolation(_ value: Int64) {
            text += String(value)
        }

        public mutating func appendInterpolation(_ html: HTML) {
            text += html.text
        }

        /// A fragment if present; nothing if nil (`\(notice.map { … })`).
        public mutating func appendInterpolation(_ html: HTML?) {
            if let html { text += html.text }
        }

        /// `fragment` when `condition` holds, else nothing.
        public mutating func appendInterpolation(if condition: Bool, _ fragment: @autoclosure () -> HTML) {
            if condition { text += fragment().text }
        }

        /// Fragments one after another (`\(rows.map { … })`).
        public mutating func appendInterpolation(_ parts: [HTML]) {
            for part in parts { text += part.text }
        }

        /// One fragment per element, in order.
        public mutating func appendInterpolation<Elements: Sequence>(
            each elements: Elements, _ fragment: (Elements.Element) -> HTML
        ) {
            for element in elements { text += fragment(element).text }
        }
    }

    /// Escapes `&`, `<`, `>`, `"` and `'`, copying the runs between them whole: one pass over
    /// the UTF-8 bytes, and text without any of them (nearly all) is appended as it is.
    static func escape(_ value: String, into text: inout String) {
        var utf8 = value
        utf8.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices {
                let replacement: String
                switch bytes[index] {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case UInt8(ascii: "\""): replacement = "&quot;"
                case UInt8(ascii: "'"): replacement = "&#39;"
                default: continue
                }
                if runStart < index {
                    // Special characters are ASCII, so runs between them are whole UTF-8 sequences.
                    text += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<index]), as: UTF8.self)
                }
                text += replacement
                runStart = index + 1
            }
            if runStart == 0 {
                text += value
            } else if runStart < bytes.count {
                text += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart...]), as: UTF8.self)
            }
        }
    }
}
