import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupTemplates
import CLupText
import Foundation

/// The short code printed on a walk-in's ticket, and the public page it opens (`/t?code=…`):
/// how someone without a smartphone — or a relative, or any computer — follows that ticket's
/// turn. The code is the ticket's id and a keyed check (40 bits), in Crockford's base32, so it
/// is short to type, and nobody counting ids reaches another ticket's page.
struct FollowCodes: Sendable {
    let signer: TicketToken

    /// What the server's secret is derived for, to sign the codes.
    static let purpose = "follow"

    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    static let checkLength = 8

    /// How ticket `id` is followed from any phone: its code, the page's address under
    /// `baseURL` without its scheme (short to type), and the whole address with the code as a
    /// QR code.
    func block(for id: ReservationID, baseURL: String) throws -> KioskTicketPage.Follow {
        let code = code(for: id)
        let address = baseURL + Paths.follow()
        let qr = try QRCode(encoding: address + "?code=" + code)
        let shown = address.replacing(/^https?:\/\//, with: "")
        return KioskTicketPage.Follow(code: code, address: shown, qr: QRDrawing(side: qr.svgSide, path: qr.svgPath))
    }

    /// "7K2-Q9XM4TRB": the id, a dash, the check.
    func code(for id: ReservationID) -> String {
        Self.base32(UInt64(id.rawValue)) + "-" + check(id)
    }

    /// The ticket a code names, if its check is right. Case, spaces and dashes do not matter,
    /// and the letters people confuse with digits are read as those digits.
    func id(in text: String) -> ReservationID? {
        let cleaned = text.uppercased().compactMap { character -> Character? in
            switch character {
            case " ", "-", ".": return nil
            case "O": return "0"
            case "I", "L": return "1"
            default: return character
            }
        }
        guard cleaned.count > Self.checkLength, cleaned.count <= Self.checkLength + 13 else { return nil }
        var value: UInt64 = 0
        for character in cleaned.dropLast(Self.checkLength) {
            guard let digit = Self.alphabet.firstIndex(of: character), value <= (UInt64(Int64.max) >> 5) else { return nil }
            value = value << 5 | UInt64(digit)
        }
        guard value > 0, value <= UInt64(Int64.max) else { return nil }
        let id = ReservationID(Int64(value))
        guard Secrets.constantTimeEquals(String(cleaned.suffix(Self.checkLength)), check(id)) else { return nil }
        return id
    }

    private func check(_ id: ReservationID) -> String {
        let bytes = Secrets.base64urlBytes(signer.signature(of: "follow:\(id.rawValue)")) ?? []
        // 40 bits, 5 at a time.
        let bits = bytes.prefix(5).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return String((0..<Self.checkLength).reversed().map { Self.alphabet[Int(bits >> (UInt64($0) * 5) & 31)] })
    }

    private static func base32(_ value: UInt64) -> String {
        var value = value
        var digits: [Character] = []
        repeat {
            digits.append(alphabet[Int(value & 31)])
            value >>= 5
        } while value > 0
        return String(digits.reversed())
    }
}

/// `/t`: a printed ticket's page, public, by its code; without one (or a wrong one), the form
/// to type it in.
struct FollowArea {
    let database: AppDatabase
    let views: Views
    let codes: FollowCodes

    func addRoutes(to pages: RouteGroup<BrowserContext>) {
        pages.get(Paths.follow, follow)
    }

    /// How often the page asks again (a meta refresh without JavaScript, a reload with it).
    static let refreshSeconds = 30

    func follow(_ context: BrowserContext) throws -> Response {
        let typed = (context.request.query["code"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !typed.isEmpty else {
            return views.page(title: tr("follow.title"), context, FollowPage(code: "", ticket: nil, error: nil))
        }
        guard let id = codes.id(in: String(typed.prefix(40))),
              let ticket = try database.reservations.reservation(id: id)?.reservation, ticket.walkIn,
              let entry = database.board.entry(ticket.storeId)
        else {
            return views.page(title: tr("follow.title"), context,
                              FollowPage(code: String(typed.prefix(40)), ticket: nil, error: tr("follow.unknown")), status: 404)
        }
        let store = entry.store
        let now = context.now
        let zone = store.zone
        func clock(_ date: Date) -> String { Formatting.clock(date, now: now, timeZone: zone) }
        let status: String
        var detail: String?
        switch ticket.status {
        case .waiting:
            if let standing = database.board.standing(of: store.id, now: now)?.standing(of: ticket.id) {
                status = standing.peopleAhead == 0 ? tr("follow.next") : tr("follow.ahead", count: standing.peopleAhead)
                detail = standing.entry.map { tr("follow.expected", ["time": clock($0)]) }
            } else {
                status = tr("follow.waiting")
            }
        case .called:
            status = tr("follow.called", ["time": clock(ticket.callDeadline(at: store) ?? now)])
        case .inside: status = tr("follow.inside")
        case .done: status = tr("follow.done")
        case .expired: status = tr("follow.expired")
        case .cancelled: status = tr("follow.cancelled")
        case .booked: status = tr("follow.waiting")
        }
        let page = FollowPage(code: codes.code(for: ticket.id), ticket: FollowPage.Ticket(
            storeName: store.name, number: ticket.number, people: Formatting.people(ticket.people), status: status,
            detail: detail, called: ticket.status == .called, updated: clock(now),
            refreshSeconds: ticket.status.isActive ? Self.refreshSeconds : nil), error: nil)
        var response = views.page(title: tr("follow.ticketTitle", ["number": String(ticket.number)]), context, page)
        response.headers.append(("X-Robots-Tag", "noindex"))
        return response
    }
}
