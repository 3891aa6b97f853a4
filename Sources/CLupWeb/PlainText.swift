/// Text people type that others read back — names, reasons, labels — must show as typed:
/// no control characters, no line or paragraph separators (U+2028, U+2029) that break a line
/// where a field shows one, and no bidirectional controls (U+202A–U+202E, U+2066–U+2069,
/// U+200E, U+200F, U+061C) that reorder what follows, so "Mario‮gnp.exe" cannot pass for
/// something else in a log, a list or an email. Nor other invisible format characters — a
/// zero-width space (U+200B), a byte order mark (U+FEFF), a word joiner, a soft hyphen — that
/// make "Ada" and "A​da" two names that look one; but the joiners that emoji sequences and
/// some scripts need (U+200C, U+200D) and emoji flags' tag characters are kept.
enum PlainText {
    static let bidiControls: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                                            0x2066, 0x2067, 0x2068, 0x2069]

    /// Format characters text needs: zero-width non-joiner and joiner, and tags (U+E0020–U+E007F).
    static func isNeededFormat(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0x200C || scalar.value == 0x200D || (0xE0020...0xE007F).contains(scalar.value)
    }

    static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: true
            case .format: !isNeededFormat(scalar)
            default: bidiControls.contains(scalar.value)
            }
        }
    }
}
