/// Text people type that others read back — names, reasons, labels — must show as typed:
/// no control characters, no line or paragraph separators (U+2028, U+2029) that break a line
/// where a field shows one, and no bidirectional controls (U+202A–U+202E, U+2066–U+2069,
/// U+200E, U+200F, U+061C) that reorder what follows, so "Mario‮gnp.exe" cannot pass for
/// something else in a log, a list or an email.
enum PlainText {
    static let bidiControls: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                                            0x2066, 0x2067, 0x2068, 0x2069]

    static func isPrintable(_ text: String) -> Bool {
        !text.unicodeScalars.contains { scalar in
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator: true
            default: bidiControls.contains(scalar.value)
            }
        }
    }
}
