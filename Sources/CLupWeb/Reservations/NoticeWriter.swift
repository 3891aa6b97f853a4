import CLupData
import CLupDomain
import CLupPaths
import CLupSupport
import Foundation

/// What each reservation notice says, by email and as a push message: what happened, the
/// times in the store's own zone, and what to do next, with a link to act on it.
public struct NoticeWriter: Sendable {
    let baseURL: String
    /// Signs a booking reminder's Confirm and Cancel links.
    let replies: TicketToken

    public init(settings: SiteSettings, tickets: TicketToken) {
        baseURL = settings.baseURL
        replies = tickets.derived(for: ReservationsArea.replyPurpose)
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

    public func render(_ subject: NoticeSubject) -> RenderedNotice {
        let reservation = subject.reservation
        let store = subject.store
        let now = subject.notice.createdAt
        func time(_ date: Date) -> String { Formatting.clock(date, now: now, timeZone: store.zone) }
        let ticketURL = baseURL + Paths.ticket(reservation.id)
        let greeting = "Hello \(subject.user.displayName),\n\n"
        let footer = "\n\n— CLup\n\nYou get these messages because you hold a reservation with CLup. Choose how "
            + "(email, this device) in your account: \(baseURL)\(Paths.account())#notifications\n"
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
                "Time to leave for \(store.name)",
                "It is time to leave for \(store.name), \(store.address): it takes you about \(journey). Your place "
                    + "is held for you while you travel, and you should go in around \(time(arrival)). We will tell "
                    + "you when it is your turn; show your code at the entrance.\n\nYour ticket: \(ticketURL)",
                "Leave now for \(store.name)",
                "About \(journey). Your place is held; you go in around \(time(arrival)).")
            urgency = "high"
            lifetime = max(300, travel)
        case .yourTurn:
            let deadline = reservation.callDeadline(at: store) ?? now
            text = (
                "It is your turn at \(store.name)",
                "It is your turn at \(store.name), \(store.address). Please go to the entrance and scan your code "
                    + "by \(time(deadline)), or the ticket expires and the place goes to the next customer.\n\n"
                    + "Your ticket and its code: \(ticketURL)",
                "It is your turn at \(store.name)",
                "Scan your code at the entrance by \(time(deadline)).")
            urgency = "high"
            lifetime = max(60, deadline.timeIntervalSince(now))
        case .reminder:
            let slot = reservation.slotStart ?? now
            let window = store.settings.entryWindow(slotStart: slot)
            let token = replies.token(for: reservation.id)
            let reply = baseURL + Paths.bookingReply(query: "t=\(token)&answer=")
            let answerBy = (reservation.remindedAt ?? now) + BookingReminder.replyWindow
            text = (
                "Your visit to \(store.name) at \(time(slot)): please confirm",
                "You booked a visit to \(store.name), \(store.address), at \(time(slot)) (enter between "
                    + "\(time(window.lowerBound)) and \(time(window.upperBound))). Will you come?\n\n"
                    + "Confirm: \(reply)confirm\nCancel: \(reply)cancel\n\nIf you do not confirm by "
                    + "\(time(answerBy)), the booking is cancelled and its place given to someone else.",
                "Your visit at \(time(slot)): please confirm",
                "\(store.name). Tap to confirm or cancel by \(time(answerBy)).")
            url = reply + "confirm"
            lifetime = BookingReminder.replyWindow
        case .cancelled:
            let why: String
            switch subject.notice.reason {
            case .replaced?: why = "You made a new reservation in its place."
            case .storeHoursChanged?:
                why = "The store changed its opening hours, and your slot (\(time(reservation.slotStart ?? now))) is no "
                    + "longer open. We are sorry: please choose another time."
            case .storeClosedThatDay?:
                why = reservation.slotStart.map { "The store is closed on the day of your slot (\(time($0))). We are sorry: "
                    + "please choose another day." } ?? "The store has closed for today. We are sorry: please come another day."
            default: why = "You cancelled it."
            }
            text = (
                "Your reservation at \(store.name) is cancelled",
                "Your reservation at \(store.name) (No. \(reservation.number)) is cancelled. \(why)\n\n"
                    + "To come another time: \(baseURL)\(Paths.store(store.id))",
                "Reservation cancelled",
                "\(store.name): \(why)")
        case .expired:
            let why: String
            switch subject.notice.reason {
            case .storeClosed?: why = "The store's day ended before your turn came."
            case .markedNoShow?: why = "The store's staff marked it as not used."
            case .missedWindow?:
                let end = store.settings.entryWindow(slotStart: reservation.slotStart ?? now).upperBound
                why = "Its entry window closed at \(time(end)) without a scan at the entrance."
            default:
                let deadline = reservation.callDeadline(at: store) ?? now
                why = "It was not scanned at the entrance by \(time(deadline)), so the place went to the next customer."
            }
            text = (
                "Your reservation at \(store.name) has expired",
                "Your reservation at \(store.name) (No. \(reservation.number)) has expired. \(why)\n\n"
                    + "To line up again or book a time: \(baseURL)\(Paths.store(store.id))",
                "Reservation expired",
                "\(store.name): \(why)")
        case .autoCancelled:
            text = (
                "Your booking at \(store.name) was cancelled",
                "Your booking at \(store.name) at \(time(reservation.slotStart ?? now)) was cancelled: it was not "
                    + "confirmed within an hour of our reminder, so its place went to someone else.\n\n"
                    + "To book again: \(baseURL)\(Paths.store(store.id))",
                "Booking cancelled",
                "\(store.name) at \(time(reservation.slotStart ?? now)): not confirmed in time.")
        }
        let payload = PushPayload(title: text.title, body: text.push, url: url, tag: "reservation-\(reservation.id)",
                                  renotify: true)
        let push = (try? JSONEncoder().encode(payload)).map { String(decoding: $0, as: UTF8.self) }
        return RenderedNotice(subject: text.subject, body: greeting + text.body + footer, push: push, urgency: urgency,
                              pushLifetime: lifetime)
    }
}
