import Foundation

/// The form of an email address that rate limits compare: what one mailbox receives, however
/// the address was typed. Trimmed, Unicode-normalised (NFC), lower-cased whole (no provider
/// treats an address's case as two mailboxes), and without a `+tag` in the local part.
public enum MailAddress {
    public static func key(_ address: String) -> String {
        let lowered = address.trimmingCharacters(in: .whitespacesAndNewlines).precomposedStringWithCanonicalMapping
            .lowercased()
        guard let at = lowered.lastIndex(of: "@") else { return lowered }
        var local = lowered[..<at]
        if let plus = local.firstIndex(of: "+"), plus != local.startIndex { local = local[..<plus] }
        return String(local) + lowered[at...]
    }
}
