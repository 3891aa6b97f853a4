/// The text `key` names in the current language's catalogue, its `{placeholders}` filled
/// from `values` (values are plain text: pages escape them where they are written).
///
/// A key missing from the catalogue shows as itself, so it cannot pass unseen; the catalogue
/// tests check that every key used in the sources exists in every language.
public func tr(_ key: String, _ values: KeyValuePairs<String, String> = [:]) -> String {
    Catalogue.fill(Language.current.catalogue[key] ?? key, values)
}

/// The text of `count` things: `key.one` for exactly one, `key.other` for any other count;
/// `{n}` is the count.
public func tr(_ key: String, count: Int, _ values: KeyValuePairs<String, String> = [:]) -> String {
    let form = Language.current.catalogue[count == 1 ? key + ".one" : key + ".other"] ?? key
    return Catalogue.fill(Catalogue.fill(form, ["n": String(count)]), values)
}

/// Texts in every language CLup speaks: one catalogue per language (`English.swift`,
/// `Italian.swift`), from keys to texts with named `{placeholders}`.
public enum Catalogue {
    /// The text of `key` in the current language if the catalogue has one (for names that
    /// have a translation only sometimes, like a well-known place's).
    public static func text(_ key: String) -> String? {
        Language.current.catalogue[key]
    }

    /// The placeholders `{name}` of `text`, in order.
    public static func placeholders(_ text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            names.append(String(after[..<close]))
            rest = after[after.index(after: close)...]
        }
        return names
    }

    static func fill(_ text: String, _ values: KeyValuePairs<String, String>) -> String {
        guard !values.isEmpty, text.contains("{") else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 16)
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else {
                rest = rest[open...]
                break
            }
            let name = after[..<close]
            if let value = values.first(where: { $0.key == name })?.value {
                result += value
            } else {
                result += rest[open...close]
            }
            rest = after[after.index(after: close)...]
        }
        result += rest
        return result
    }
}

/// Numbers as the current language writes them.
public enum Numbers {
    /// "2,000" in English, "2.000" in Italian.
    public static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        let separator = Language.current == .it ? "." : ","
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += separator }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// A decimal already written with a point ("2.3"), with the language's decimal mark
    /// ("2,3" in Italian).
    public static func decimal(_ pointed: String) -> String {
        Language.current == .it ? pointed.replacingOccurrences(of: Character("."), with: Character(",")) : pointed
    }
}

extension String {
    fileprivate func replacingOccurrences(of target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
