import CLupPaths
import CLupText
import Synchronization

/// A page of the site: a model that renders itself inside the frame every page shares.
public protocol Page {
    func render(in frame: Frame) -> HTML
}

/// A customer's active reservation, as the top of a shopper page shows it.
public struct ActiveTicket: Sendable {
    public var storeName: String
    public var number: Int
    /// "It is your turn: please go to the entrance".
    public var headline: String
    public var href: String
    /// Called: the customer should act now.
    public var urgent: Bool

    public init(storeName: String, number: Int, headline: String, href: String, urgent: Bool) {
        self.storeName = storeName
        self.number = number
        self.headline = headline
        self.href = href
        self.urgent = urgent
    }
}

/// Scheduled maintenance as the top of every page says it.
public struct MaintenanceBanner: Sendable {
    public var text: String
    /// Under way now, rather than coming.
    public var underway: Bool

    public init(text: String, underway: Bool) {
        self.text = text
        self.underway = underway
    }
}

/// Which navigation entry is current.
public enum Section: Sendable {
    case none, stores, reservations, account, manage, support
}

/// What the shared layouts need on every page: the title, fingerprinted assets, navigation,
/// who is signed in, and the CSRF token for the forms (sign out is a form in the header).
public struct Frame: Sendable {
    public var title: String
    public var stylesheet: String
    public var script: String
    public var icon: String
    public var section: Section
    /// The token every form of the page carries.
    public var csrf: String
    /// The signed-in person's name; nil for a guest.
    public var userName: String?
    public var isManager: Bool
    /// Support staff and administrators: a link to `/support`.
    public var isSupport = false
    /// Signed in with an address not yet confirmed: the banner asks to confirm it.
    public var unconfirmed: Bool
    /// The server's VAPID public key (base64url), for a browser to subscribe to push messages;
    /// nil where push is not configured.
    public var pushKey: String?
    /// The signed-in customer's active reservation, shown at the top of shopper pages so the
    /// code is one tap away at the door (RASD UC9).
    public var activeTicket: ActiveTicket?
    /// Scheduled maintenance announced or under way, in words: on every page and kiosk screen.
    public var maintenance: MaintenanceBanner?
    /// The query the language switch's links carry: the page to come back to (`back=…`,
    /// encoded as every query is, by `FormData`).
    public var languageSwitchQuery = "back=%2F"
    /// Whether the page rendered in this frame wrote the CSRF field (a form that POSTs).
    private let csrfWritten = CSRFUse()

    public init(title: String, stylesheet: String, script: String, icon: String, section: Section, csrf: String,
                userName: String?, isManager: Bool, unconfirmed: Bool, pushKey: String? = nil)
    {
        self.pushKey = pushKey
        self.title = title
        self.stylesheet = stylesheet
        self.script = script
        self.icon = icon
        self.section = section
        self.csrf = csrf
        self.userName = userName
        self.isManager = isManager
        self.unconfirmed = unconfirmed
    }

    /// The hidden fields every form that POSTs starts with: the CSRF token, and a key of its
    /// own so that sending it again (its answer lost) is not doing it again (`FormReply`).
    public var csrfField: HTML {
        csrfWritten.flag.store(true, ordering: .relaxed)
        return "<input type=\"hidden\" name=\"csrf\" value=\"\(csrf)\"><input type=\"hidden\" name=\"formKey\" value=\"\(Self.formKey())\">"
    }

    /// 132 random bits as 22 base64url characters: a form's one-time key.
    static func formKey() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8]()
        bytes.reserveCapacity(22)
        while bytes.count < 22 {
            var bits = generator.next()
            for _ in 0..<10 where bytes.count < 22 {
                bytes.append(formKeyAlphabet[Int(bits & 63)])
                bits >>= 6
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let formKeyAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// The page rendered in this frame has a form carrying the CSRF token, so the visitor must
    /// hold it as a cookie.
    public var usedCSRF: Bool { csrfWritten.flag.load(ordering: .relaxed) }

    private var pushKeyMeta: HTML {
        pushKey.map { "<meta name=\"clup-push-key\" content=\"\($0)\">" } ?? .empty
    }

    private func ticketBanner(_ ticket: ActiveTicket) -> HTML {
        """
        <aside class="active-ticket\(if: ticket.urgent, " urgent")" aria-label="\(tr("frame.yourReservation"))">
          <p><strong>\(ticket.storeName) · \(tr("ticket.numberShort", ["number": String(ticket.number)]))</strong> <span>\(ticket.headline)</span></p>
          <a class="button" href="\(ticket.href)">\(tr("frame.showCode"))</a>
        </aside>
        """
    }

    private func current(_ section: Section) -> HTML {
        self.section == section ? " aria-current=\"page\"" : .empty
    }

    /// The shopper's and manager's layout: header with navigation, banner, main, footer.
    public func site(head: HTML = .empty, _ content: HTML) -> HTML {
        var html: HTML = """
            <!doctype html>
            <html lang="\(Language.current.rawValue)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title) · CLup</title>
            <link rel="icon" href="\(icon)" type="image/svg+xml">
            <link rel="manifest" href="/manifest\(Language.current == .en ? "" : "." + Language.current.rawValue).webmanifest">
            <link rel="apple-touch-icon" href="/assets/icon-192.png">
            <meta name="theme-color" content="#14532d">
            \(if: userName != nil, pushKeyMeta)
            <link rel="stylesheet" href="\(stylesheet)">
            \(head)
            </head>
            <body>
            <a class="skip" href="#main">\(tr("frame.skip"))</a>
            <header class="site-header">
              <a class="brand" href="\(Paths.home())"><img src="\(icon)" alt="" width="28" height="28"> CLup</a>
              <nav aria-label="\(tr("frame.mainNav"))">
                <a href="\(Paths.home())"\(current(.stores))>\(tr("nav.stores"))</a>
                \(if: isManager, "<a href=\"\(Paths.manage())\"\(current(.manage))>\(tr("nav.manage"))</a>")
                \(if: isSupport, "<a href=\"\(Paths.support())\"\(current(.support))>\(tr("nav.support"))</a>")
                \(userName == nil ? signInLink : signedInLinks)
              </nav>
            </header>
            \(maintenance.map(maintenanceBanner))
            \(if: unconfirmed, confirmBanner)
            \(activeTicket.map(ticketBanner))
            <main id="main">

            """
        // Appended rather than interpolated: the content is copied once into the page.
        html.reserveCapacity(html.byteCount + content.byteCount + 400)
        html += content
        html += """

            </main>
            <footer class="site-footer">
              <p>\(tr("frame.tagline"))</p>
              <p><a href="\(Paths.privacy())">\(tr("nav.privacy"))</a> · <a href="\(Paths.terms())">\(tr("nav.terms"))</a> · \(languageSwitch)</p>
            </footer>
            \(scriptTexts)
            <script src="\(script)" defer></script>
            </body>
            </html>
            """
        return html
    }

    private var signInLink: HTML { "<a href=\"\(Paths.signIn())\">\(tr("nav.signIn"))</a>" }

    /// Links to this page in each other language; the choice is remembered on the device.
    private var languageSwitch: HTML {
        HTML.joined(Language.allCases.filter { $0 != Language.current }.map { language in
            return "<a class=\"language\" href=\"\(language.switchPath(query: languageSwitchQuery))\" lang=\"\(language.rawValue)\" hreflang=\"\(language.rawValue)\">\(language.autonym)</a>"
        })
    }

    /// The texts the page's script shows (geolocation, notifications, the scanner), in the
    /// page's language: data, not code, so the content security policy allows it.
    private var scriptTexts: HTML { Self.scriptTexts[Language.current] ?? .empty }

    /// Written once per language.
    private static let scriptTexts: [Language: HTML] = Dictionary(uniqueKeysWithValues: Language.allCases.map { language in
        let keys = ["js.locating", "js.locationOff", "js.locationFailed", "js.wait", "js.storePin", "js.newAt",
                    "js.notificationsOn", "js.notificationsBlocked", "js.asking", "js.notificationsFailed",
                    "js.ready", "js.scanPrompt", "js.noAnswer", "js.scanFailed", "js.useCamera", "js.stopCamera",
                    "js.noCamera", "js.offline", "js.sending", "js.offlineConflicts", "js.offlineRefused",
                    "js.offlineStopped", "js.clockFast", "js.clockSlow", "js.offlineEnter", "js.offlineExit",
                    "js.offlineWelcome", "js.offlineGoodbye", "js.boardLive", "js.boardSoundOn", "js.boardSoundOff",
                    "js.boardNobody", "js.boardNext", "js.boardCalling", "js.boardCallingMany", "js.moreTimeGiven",
                    "js.offlineRefused.headline", "js.offlineCopy", "js.printedWaiting", "js.noSpares",
                    "js.printedRefused", "js.printedStopped", "js.followStart", "js.followStop", "js.followUsed",
                    "js.followFailed", "js.followStopped", "js.followNoPosition", "js.leaseLeft", "js.liveStale"]
            + ["unknownCode", "otherStore", "notYetCalled", "expired", "tooEarly", "tooLate", "full", "ended",
               "notAuthority", "noDoorAdmits", "leaseUsed", "leaseEnded"].map { "js.offlineRefusal." + $0 }
        let json = Language.$current.withValue(language) {
            "{" + keys.map { "\"" + $0 + "\":" + jsonString(tr($0)) }.joined(separator: ",") + "}"
        }
        return (language, "<script type=\"application/json\" id=\"clup-texts\">\(HTML(unescaped: json))</script>")
    })

    /// `text` as a JSON string that is also safe inside a script element.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "<": out += "\\u003c"
            case ">": out += "\\u003e"
            case "&": out += "\\u0026"
            case "\n": out += "\\n"
            default:
                if scalar.value < 0x20 {
                    out += "\\u00" + (scalar.value < 16 ? "0" : "") + String(scalar.value, radix: 16)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    private var signedInLinks: HTML {
        """
        <a href="\(Paths.reservations())"\(current(.reservations))>\(tr("nav.reservations"))</a>
            <a href="\(Paths.account())"\(current(.account))>\(tr("nav.account"))</a>
            <form class="inline" method="post" action="\(Paths.signOut())">\(csrfField)<button type="submit" class="link">\(tr("nav.signOut"))</button></form>
        """
    }

    private func maintenanceBanner(_ banner: MaintenanceBanner) -> HTML {
        """
        <div class="banner maintenance\(if: banner.underway, " underway")" role="status"><p>\(banner.text)</p></div>
        """
    }

    private var confirmBanner: HTML {
        """
        <div class="banner" role="status">
          <p>\(tr("frame.confirmBanner"))</p>
          <form class="inline" method="post" action="\(Paths.resendConfirmation())">\(csrfField)<button type="submit" class="link">\(tr("frame.sendAgain"))</button></form>
        </div>
        """
    }

    /// The entrance kiosk's layout: the store's name in a slim header, no navigation.
    /// A kiosk screen. An enrolled kiosk's screens (not its menu) link back to the menu, so
    /// staff can switch a screen without typing an address.
    /// A kiosk's screen. No link leads from it to another screen: whoever stands in front of a
    /// customer-facing screen must not reach the staff's (staff open `/kiosk` by its address).
    public func kiosk(storeName: String?, head: HTML = .empty, _ content: HTML) -> HTML {
        """
        <!doctype html>
        <html lang="\(Language.current.rawValue)">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="robots" content="noindex">
        <title>\(title) · \(tr("kiosk.titleSuffix"))</title>
        <link rel="icon" href="\(icon)" type="image/svg+xml">
        <link rel="stylesheet" href="\(stylesheet)">
        \(head)
        </head>
        <body class="kiosk">
        <header class="kiosk-header no-print">
          <span class="brand"><img src="\(icon)" alt="" width="28" height="28"> CLup</span>
          <span class="kiosk-store">\(storeName ?? "")</span>
          \(languageSwitch)
        </header>
        \(maintenance.map(maintenanceBanner))
        <main id="main">
        \(content)
        </main>
        \(scriptTexts)
        <script src="\(script)" defer></script>
        </body>
        </html>
        """
    }
}

extension Language {
    /// The address that switches the pages to this language.
    public var switchPath: FixedPath {
        switch self {
        case .en: Paths.english
        case .it: Paths.italian
        }
    }
}

/// Records, across the copies of one frame, that its CSRF field was written.
private final class CSRFUse: Sendable {
    let flag = Atomic(false)
}
