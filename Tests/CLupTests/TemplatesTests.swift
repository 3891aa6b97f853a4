import CLupTemplates
import Foundation
import Testing

/// The typed templates on their own: text is escaped, markup is not, and no page of ordinary
/// content escapes its own markup (a fragment typed as text by mistake shows as `&lt;…`).
@Suite("Typed templates", .enabled(if: Fixture.engineFreePass))
struct TemplatesTests {
    let frame = Frame(title: "Title", stylesheet: "/assets/app.css", script: "/assets/app.js", icon: "/assets/icon.svg",
                      section: .stores, csrf: "token", userName: "Ada", isManager: true, unconfirmed: true)

    @Test("interpolated text is escaped; fragments, numbers and literals are not")
    func escaping() {
        let hostile = "<script>alert(\"x\")</script> & 'Co'"
        let html: HTML = "<p title=\"\(hostile)\">\(hostile) \(42) \(HTML(unescaped: "<b>ok</b>"))\(nil as HTML?)</p>"
        #expect(html.text == "<p title=\"&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39;\">"
            + "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;Co&#39; 42 <b>ok</b></p>")
        #expect(HTML("plain \("ünïcode ✓")").text == "plain ünïcode ✓")
    }

    /// One of every page, with ordinary content.
    var pages: [(String, any Page)] {
        let choices = [Choice(value: "1", label: "One", checked: true), Choice(value: "2", label: "Two", checked: false)]
        let facts = [Fact("Store", "Bottega"), Fact("People", "1 person")]
        let hidden = [HiddenField(name: "minutes", value: "30")]
        let rows = [SuggestionRow(name: "Mercato", detail: "700 m away", href: "/stores/2")]
        let code = QRDrawing(side: 25, path: "M4 4h7")
        let card = StoreCard(
            summary: StoreSummary(id: 1, name: "Bottega", address: "Via Roma 1", hoursToday: "08:00–21:00",
                                  openText: "Open until 21:00", peopleInside: 3, capacity: 10, wait: "No wait",
                                  light: "green", reason: "Short wait", latitude: "45.46", longitude: "9.19"),
            href: "/stores/1", distance: "450 m", travel: "6 min on foot")
        let progress = TicketProgress(status: "waiting", headline: "You are in the queue", detail: "Nobody is ahead.",
                                      live: true)
        let summary = TicketSummary(storeName: "Bottega", kind: "Line-up", when: "taken today at 10:00", number: 3)
        var signUp = SignUpPage(email: "a@b.c", displayName: "Ada")
        signUp.passwordError = "Too short."
        var account = AccountPage(email: "a@b.c", displayName: "Ada", confirmed: false, modes: choices, loyaltyOptIn: true)
        account.notice = "Saved."
        account.displayNameError = "Too long."
        return [
            ("home", HomePage(positionLabel: "Duomo", notice: "Note.", latitude: "45", longitude: "9", modePhrase: "on foot",
                              modeKey: "walking", stores: StoreList([card]), totalStores: 40, moreHref: "/?show=60", places: choices,
                              modes: [ModeLink(choice: choices[0], href: "/?mode=walking")], tileURL: "/t/{z}",
                              tileAttribution: "Tiles")),
            ("store", StorePage(card: card, phone: "+39 02 1", phoneHref: "tel:+39021", timeZone: "Europe/Rome",
                                days: [StorePage.Day(name: "Monday", hours: "08:00–21:00", isToday: true)],
                                departments: [StorePage.DepartmentRow(name: "Bakery", minutes: 5)], backHref: "/",
                                reserveHref: "/stores/1/reserve", positionLabel: "Duomo", notice: nil)),
            ("signup", signUp),
            ("signin", SignInPage(email: "a@b.c", next: "/account", error: "No match.")),
            ("confirm", ConfirmPage(token: "abc")),
            ("forgot", ForgotPage(email: "a@b.c", error: "Not an address.")),
            ("reset", ResetPage(token: "abc", error: "Too short.")),
            ("message", MessagePage(title: "Done", lines: ["One.", "Two."], link: ("Home", "/"))),
            ("terms", TermsPage(version: "Version 1.")),
            ("terms to accept", TermsAcceptPage(version: "Version 1.", changed: true, next: "/reservations")),
            ("error", ErrorPage(status: 404, title: "Page not found", message: "Not here.")),
            ("account", account),
            ("manage", ManagePage(stores: [ManagePage.Row(id: 1, name: "Bottega", address: "Via Roma 1")])),
            ("maintenance", MaintenancePage(
                windows: [MaintenancePage.Row(id: 1, text: "today at 02:00 – 04:00 (Europe/Rome)", underway: true)],
                values: ["day": "2026-12-01", "from": "02:00", "until": "04:00", "timeZone": "Europe/Rome",
                         "announceHours": "24"], errors: ["day": "Give the day as a date."], zones: ["Europe/Rome", "UTC"])),
            ("empty maintenance", MaintenancePage(windows: [], values: [:], errors: [:], zones: ["UTC"])),
            ("manage store", ManageStorePage(id: 1, name: "Bottega", address: "Via Roma 1", capacity: 10, peopleInside: 3,
                                             wait: "No wait", light: "green", reason: "Short wait",
                                             kiosks: [.init(id: 1, label: "Door", role: "door", enrolled: "today", revoked: false)])),
            ("step 1", ReservePage(storeName: "Bottega", storeHref: "/stores/1", action: "/stores/1/reserve/how",
                                   presets: choices, usual: choices[0], departments: choices, departmentsChosen: true,
                                   people: choices, timeError: "Choose.", peopleError: "Choose.", hidden: hidden)),
            ("step 2", HowPage(storeName: "Bottega", summary: "About 30 min", changeHref: "/x", recapAction: "/y",
                               queued: "Nobody is in the queue.",
                               lineUp: .init(estimate: "No wait.", modes: choices, hidden: hidden), refusal: "Closed.",
                               suggestions: rows, slotsHref: "/z", firstSlot: "today, 12:00–12:15")),
            ("step 3", SlotsPage(storeName: "Bottega", summary: "About 30 min", changeHref: "/x", action: "/y",
                                 days: [DayTab(label: "Today", href: "/d", current: true)],
                                 slots: [SlotChoice(value: "1", time: "12:00–12:15", state: "free", note: "2 places left")],
                                 notes: ["Bookings open 2 hours ahead."], closed: true, hidden: hidden)),
            ("step 4", RecapPage(facts: facts, notice: "You already have one.", hidden: hidden, action: "/r", backHref: "/b")),
            ("refused", RefusedPage(heading: "Full", message: "Every place is booked.", slotsHeading: "Other times",
                                    slots: rows, suggestions: rows, backHref: "/b", backLabel: "Back",
                                    waitlist: WaitlistJoinForm(action: "/w", hidden: hidden, waiting: 2, offerMinutes: 30))),
            ("waiting", WaitlistPage(storeName: "Bottega", facts: facts, state: .waiting(ahead: 2, leaveAction: "/l"),
                                     notice: "You can wait on one list at a time.")),
            ("offered", WaitlistPage(storeName: "Bottega", facts: facts,
                                     state: .offered(deadline: "10:30", acceptAction: "/a", declineAction: "/l",
                                                     replacing: "Bottega, Line-up today", blockedBy: nil), notice: nil)),
            ("offer blocked", WaitlistPage(storeName: "Bottega", facts: facts,
                                           state: .offered(deadline: "10:30", acceptAction: "/a", declineAction: "/l",
                                                           replacing: nil, blockedBy: "You are inside."), notice: nil)),
            ("waiting list over", WaitlistPage(storeName: "Bottega", facts: facts,
                                               state: .ended(message: "No place came free.", slotsHref: "/s"), notice: nil)),
            ("waiting list accepted", WaitlistPage(storeName: "Bottega", facts: facts,
                                                   state: .accepted(ticketHref: "/t"), notice: nil)),
            ("conflict", ConflictPage(active: summary, activeHref: "/reservations/3", storeName: "Bottega", hidden: hidden,
                                      action: "/r", canReplace: true)),
            ("ticket", TicketPage(storeName: "Bottega", number: 3, kind: "Line-up", progress: progress, facts: facts,
                                  code: code, pngHref: "/p", statusHref: "/s", cancelAction: "/c")),
            ("reservations", ReservationsPage(
                active: .init(summary: summary, progress: progress, href: "/reservations/3", cancelAction: "/c"),
                history: [.init(storeName: "Bottega", kind: "Line-up", when: "yesterday", outcome: "Cancelled", href: "/h")],
                cancelled: true,
                waitlist: WaitlistSummary(storeName: "Bottega", slot: "tomorrow, 10:00–10:15", status: "First.", href: "/w"))),
            ("kiosk enrol", KioskEnrolPage(error: "Not valid.")),
            ("kiosk home", KioskHomePage(storeName: "Bottega", label: "Door")),
            ("dispenser", DispenserPage(storeName: "Bottega", presets: choices, people: choices, requestKey: "k",
                                        waitText: "No wait right now.", error: "Closed.")),
            ("kiosk ticket", KioskTicketPage(storeName: "Bottega", storeAddress: "Via Roma 1", number: 3, facts: facts,
                                             called: true, headline: "Go in now.", code: code)),
            ("scanner", ScannerPage(storeName: "Bottega", report: ScanDisplay(result: "enter", headline: "ENTER",
                                                                              message: "Welcome."),
                                    peopleInside: 3, capacity: 10)),
            ("board", BoardPage(storeName: "Bottega", called: [3], next: [4, 5], peopleInside: 3, capacity: 10)),
            ("empty board", BoardPage(storeName: "Bottega", called: [], next: [], peopleInside: 0, capacity: 10)),
        ]
    }

    @Test("no page of ordinary content escapes its own markup, and each is one whole document")
    func pagesRenderTheirMarkup() {
        for (name, page) in pages {
            let html = page.render(in: frame).text
            #expect(!html.contains("&lt;") && !html.contains("&quot;") && !html.contains("&amp;"), "\(name)")
            #expect(html.hasPrefix("<!doctype html>") && html.hasSuffix("</html>"), "\(name)")
        }
    }
}
