import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import CLupText
import Foundation

/// What each reservation notice says, by email and as a push message: what happened, the
/// times in the store's own zone, and what to do next, with a link to act on it.
public struct NoticeWriter: Sendable {
    let baseURL: String
    /// Signs a booking reminder's Confirm and Cancel links.
    let replies: TicketToken
    /// A walk-in's ticket is followed by its code, not from an account.
    let follow: FollowCodes

    public init(settings: SiteSettings, tickets: TicketToken) {
        baseURL = settings.baseURL
        replies = tickets.derived(for: ReservationsArea.replyPurpose)
        follow = FollowCodes(signer: tickets.derived(for: FollowCodes.purpose))
    }

    /// The push payload the service worker shows: a title, a body, the page a tap opens, and a
    /// tag so a later notice about the same reservation replaces the earlier one on screen.
    struct PushPayload: Encodable {
        var title: String
        var body: String
        var url: String
        var tag: String
        var renotify: Bool
    }

    /// The notice in the language of the account it is for, or of the screen a walk-in used.
    public func render(_ subject: NoticeSubject) -> RenderedNotice {
        Language.$current.withValue(Language(rawValue: subject.language) ?? .en) { write(subject) }
    }

    /// A waiting-list notice in the language of the account it is for.
    public func renderWaitlist(_ subject: WaitlistNoticeSubject) -> RenderedNotice {
        Language.$current.withValue(Language(rawValue: subject.user.language) ?? .en) { write(subject) }
    }

    private func write(_ subject: WaitlistNoticeSubject) -> RenderedNotice {
        let entry = subject.entry
        let store = subject.store
        let now = subject.notice.createdAt
        func time(_ date: Date) -> String { Formatting.clock(date, now: now, timeZone: store.zone) }
        let link = baseURL + Paths.waitlist(entry.id)
        let slot = Formatting.slot(Slot(start: entry.slotStart, end: entry.slotStart + Double(store.slotMinutes) * 60),
                                   now: now, timeZone: store.zone)
        let deadline = time(entry.offerExpiresAt ?? now)
        let elsewhere = "\(baseURL)\(Paths.store(store.id))"
        var urgency = "normal"
        var lifetime: TimeInterval = 3600
        let text: (subject: String, body: String, title: String, push: String)
        switch subject.notice.kind {
        case .offer:
            text = (
                tr("notice.offer.subject", ["store": store.name, "time": slot, "deadline": deadline]),
                tr("notice.offer.body", ["store": store.name, "address": store.address, "time": slot,
                                         "deadline": deadline, "link": link]),
                tr("notice.offer.title", ["store": store.name]),
                tr("notice.offer.push", ["time": slot, "deadline": deadline]))
            urgency = "high"
            lifetime = max(60, (entry.offerExpiresAt ?? now).timeIntervalSince(now))
        case .passed:
            text = (
                tr("notice.passed.subject", ["store": store.name]),
                tr("notice.passed.body", ["store": store.name, "time": slot, "deadline": deadline, "link": elsewhere]),
                tr("notice.passed.title"),
                tr("notice.passed.push", ["store": store.name, "time": slot, "deadline": deadline]))
        case .closed:
            text = (
                tr("notice.closed.subject", ["store": store.name, "time": slot]),
                tr("notice.closed.body", ["store": store.name, "time": slot, "link": elsewhere]),
                tr("notice.closed.title"),
                tr("notice.closed.push", ["store": store.name, "time": slot]))
        }
        return rendered(text, url: link, tag: "waitlist-\(entry.id)", urgency: urgency, lifetime: lifetime,
                        user: subject.user)
    }

    /// A maintenance notice, for a customer booked inside the window, in their account's language.
    public func renderMaintenance(_ subject: MaintenanceNoticeSubject) -> RenderedNotice {
        Language.$current.withValue(Language(rawValue: subject.user.language) ?? .en) { write(subject) }
    }

    private func write(_ subject: MaintenanceNoticeSubject) -> RenderedNotice {
        let store = subject.store
        let now = subject.notice.createdAt
        let (from, until) = Formatting.span(subject.window, now: now)
        let when = Formatting.moment(subject.reservation.slotStart ?? now, now: now, timeZone: store.zone)
        let ticket = baseURL + Paths.ticket(subject.reservation.id)
        let values: KeyValuePairs<String, String> = ["store": store.name, "when": when, "from": from, "until": until,
                                                     "zone": subject.window.timeZone, "ticket": ticket]
        let text = switch subject.notice.kind {
        case .scheduled:
            (tr("notice.maintenance.subject", values), tr("notice.maintenance.body", values),
             tr("notice.maintenance.title"), tr("notice.maintenance.push", values))
        case .cancelled:
            (tr("notice.maintenanceOff.subject", values), tr("notice.maintenanceOff.body", values),
             tr("notice.maintenanceOff.title"), tr("notice.maintenanceOff.push", values))
        }
        return rendered(text, url: ticket, tag: "maintenance-\(subject.window.id)-\(subject.reservation.id)",
                        urgency: "normal", lifetime: max(3600, subject.window.startsAt.timeIntervalSince(now)),
                        user: subject.user)
    }

    /// The email and push payload of a notice's texts.
    private func rendered(_ text: (subject: String, body: String, title: String, push: String), url: String, tag: String,
                          urgency: String, lifetime: TimeInterval, user: User?, store: String = "") -> RenderedNotice
    {
        let greeting = user.map { tr("mail.hello", ["name": $0.displayName]) } ?? tr("mail.helloWalkIn")
        let why = user == nil ? tr("notice.footerWalkIn", ["store": store])
            : tr("notice.footer", ["link": "\(baseURL)\(Paths.account())#notifications"])
        let footer = "\n\n— CLup\n\n" + why + "\n"
        let payload = PushPayload(title: text.title, body: text.push, url: url, tag: tag, renotify: true)
        let push = (try? JSONEncoder().encode(payload)).map { String(decoding: $0, as: UTF8.self) }
        return RenderedNotice(subject: text.subject, body: greeting + "\n\n" + text.body + footer, push: push, urgency: urgency,
                              pushLifetime: lifetime)
    }

    private func write(_ subject: NoticeSubject) -> RenderedNotice {
        let reservation = subject.reservation
        let store = subject.store
        let now = subject.notice.createdAt
        func time(_ date: Date) -> String { Formatting.clock(date, now: now, timeZone: store.zone) }
        // A walk-in follows their ticket by its code; a customer opens it in their account.
        let ticketURL = subject.user == nil
            ? baseURL + Paths.follow(query: "code=" + follow.code(for: reservation.id)) : baseURL + Paths.ticket(reservation.id)
        var text: (subject: String, body: String, title: String, push: String)
        var url = ticketURL
        var urgency = "normal"
        var lifetime: TimeInterval = 3600
        switch subject.notice.kind {
        case .leaveNow:
            let travel = reservation.travel
            let journey = "\(Formatting.duration(travel)) \(reservation.travelMode?.phrase ?? "")"
            let arrival = (reservation.leftAt ?? now) + travel
            text = (
                tr("notice.leave.subject", ["store": store.name]),
                tr("notice.leave.body", ["store": store.name, "address": store.address, "journey": journey,
                                         "arrival": time(arrival), "ticket": ticketURL]),
                tr("notice.leave.title", ["store": store.name]),
                tr("notice.leave.push", ["journey": journey, "arrival": time(arrival)]))
            urgency = "high"
            lifetime = max(300, travel)
        case .yourTurn:
            let deadline = reservation.callDeadline(at: store) ?? now
            text = (
                tr("notice.turn.subject", ["store": store.name]),
                tr("notice.turn.body", ["store": store.name, "address": store.address, "deadline": time(deadline),
                                        "ticket": ticketURL]),
                tr("notice.turn.subject", ["store": store.name]),
                tr("notice.turn.push", ["deadline": time(deadline)]))
            urgency = "high"
            lifetime = max(60, deadline.timeIntervalSince(now))
        case .reminder:
            let slot = reservation.slotStart ?? now
            let window = store.settings.entryWindow(slotStart: slot)
            let token = replies.token(for: reservation.id.rawValue)
            let reply = baseURL + Paths.bookingReply(query: "t=\(token)&answer=")
            let answerBy = (reservation.remindedAt ?? now) + BookingReminder.replyWindow
            let when = Formatting.at(slot, now: now, timeZone: store.zone)
            text = (
                tr("notice.reminder.subject", ["store": store.name, "when": when]),
                tr("notice.reminder.body", ["store": store.name, "address": store.address, "when": when,
                                            "from": time(window.lowerBound), "to": time(window.upperBound),
                                            "confirm": reply + "confirm", "cancel": reply + "cancel",
                                            "answerBy": time(answerBy)]),
                tr("notice.reminder.title", ["when": when]),
                tr("notice.reminder.push", ["store": store.name, "answerBy": time(answerBy)]))
            url = reply + "confirm"
            lifetime = BookingReminder.replyWindow
        case .cancelled:
            let why: String
            switch subject.notice.reason {
            case .replaced?: why = tr("notice.why.replaced")
            case .storeHoursChanged?:
                why = tr("notice.why.hoursChanged", ["slot": time(reservation.slotStart ?? now)])
            case .storeClosedThatDay?:
                why = reservation.slotStart.map { tr("notice.why.closedDay", ["slot": time($0)]) }
                    ?? tr("notice.why.closedToday")
            case .specialHoursThatDay?:
                why = tr("notice.why.specialHours", ["slot": time(reservation.slotStart ?? now)])
            case .bySupport?: why = tr("notice.why.bySupport", ["reason": subject.supportReason ?? ""])
            case .storeRetired?: why = tr("notice.why.retired")
            default: why = tr("notice.why.youCancelled")
            }
            // Closed that day: the nearest stores open instead, by email (a push stays short).
            let instead = subject.alternatives.isEmpty ? "" : "\n\n" + tr("notice.openInstead") + "\n"
                + subject.alternatives.map {
                    "- \($0.store.name), \($0.store.address) (\(Formatting.distance(metres: $0.metres))): "
                        + "\(baseURL)\(Paths.store($0.store.id))"
                }.joined(separator: "\n")
            text = (
                tr("notice.cancelled.subject", ["store": store.name]),
                tr("notice.cancelled.body", ["store": store.name, "number": String(reservation.number), "why": why,
                                             "link": "\(baseURL)\(Paths.store(store.id))"]) + instead,
                tr("notice.cancelled.title"),
                "\(store.name): \(why)")
        case .expired:
            let why: String
            switch subject.notice.reason {
            case .storeClosed?: why = tr("notice.why.dayEnded")
            case .markedNoShow?: why = tr("notice.why.noShow")
            case .missedWindow?:
                let end = store.settings.entryWindow(slotStart: reservation.slotStart ?? now).upperBound
                why = tr("notice.why.missedWindow", ["time": time(end)])
            default:
                let deadline = reservation.callDeadline(at: store) ?? now
                why = tr("notice.why.notScanned", ["time": time(deadline)])
            }
            text = (
                tr("notice.expired.subject", ["store": store.name]),
                tr("notice.expired.body", ["store": store.name, "number": String(reservation.number), "why": why,
                                           "link": "\(baseURL)\(Paths.store(store.id))"]),
                tr("notice.expired.title"),
                "\(store.name): \(why)")
        case .autoCancelled:
            text = (
                tr("notice.unconfirmed.subject", ["store": store.name]),
                tr("notice.unconfirmed.body", ["store": store.name, "time": time(reservation.slotStart ?? now),
                                               "link": "\(baseURL)\(Paths.store(store.id))"]),
                tr("notice.unconfirmed.title"),
                tr("notice.unconfirmed.push", ["store": store.name, "time": time(reservation.slotStart ?? now)]))
        }
        return rendered(text, url: url, tag: "reservation-\(reservation.id)", urgency: urgency, lifetime: lifetime,
                        user: subject.user, store: store.name)
    }
}
