/// A language CLup speaks. Each request is answered in one: the visitor's choice (the `lang`
/// cookie), else the first of theirs CLup speaks (`Accept-Language`), else English. Emails and
/// notifications go out in the language of the account they are for.
///
/// The language of the work in hand is `Language.current`, bound once where a request is
/// answered or a message is written (`Language.$current.withValue(.it) { … }`), so formatting
/// and templates read it without every call passing it on.
public enum Language: String, CaseIterable, Sendable {
    case en
    case it

    @TaskLocal public static var current: Language = .en

    /// The language's own name, as the switch on every page offers it.
    public var autonym: String {
        switch self {
        case .en: "English"
        case .it: "Italiano"
        }
    }

    /// The catalogue of this language's texts.
    public var catalogue: [String: String] {
        switch self {
        case .en: Catalogue.english
        case .it: Catalogue.italian
        }
    }

    /// The language CLup speaks that `header` (an `Accept-Language` value) prefers most, by
    /// weight and then by order; nil if it names none of them. "it-IT,it;q=0.9,en;q=0.8" is
    /// Italian; "fr-FR,en;q=0.5" is English; "fr" is nil.
    public static func preferred(acceptLanguage header: String) -> Language? {
        var best: (language: Language, weight: Double)?
        for item in header.split(separator: ",").prefix(32) {
            let parts = item.split(separator: ";")
            guard let tag = parts.first?.trimmingSpaces.lowercased() else { continue }
            let primary = tag.split(separator: "-", maxSplits: 1).first.map(String.init) ?? tag
            guard let language = Language(rawValue: primary) else { continue }
            var weight = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.trimmingSpaces
                if pair.hasPrefix("q=") { weight = Double(pair.dropFirst(2)) ?? 0 }
            }
            guard weight > 0 else { continue }
            if best == nil || weight > best!.weight { best = (language, weight) }
        }
        return best?.language
    }
}

extension Substring {
    /// Without spaces and tabs at either end, cut by bytes (both are one byte in UTF-8): the
    /// header is read on most requests.
    fileprivate var trimmingSpaces: String {
        let blank: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        let bytes = utf8
        guard let first = bytes.firstIndex(where: { !blank($0) }), let last = bytes.lastIndex(where: { !blank($0) })
        else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}
