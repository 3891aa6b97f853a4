import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// An administrator schedules maintenance and cancels it (`/manage/maintenance`). From the
/// time chosen before it, every page and kiosk screen and the device API's status announce
/// it; while it lasts they say when CLup is back (`Views.banner`).
extension ManageArea {
    static let maintenanceFields = ["day", "from", "until", "timeZone", "announceHours"]

    func maintenanceForm(_ context: ManagerContext) throws -> Response {
        // The zone the stores keep (the chain's), and tonight's usual quiet hours.
        let zone = Self.chainZone(database)
        let today = LocalDate(day: ZoneOffsets.day(of: context.now, in: zone))
        let values = ["day": today.text, "from": "02:00", "until": "04:00", "timeZone": zone.identifier, "announceHours": "24"]
        var page = try maintenancePage(context, values: values, errors: [:])
        page.notice = switch context.request.query["done"] {
        case "scheduled":
            tr("maintenance.scheduled") + (context.request.query["told"].flatMap(Int.init).map { told in
                told > 0 ? " " + tr("maintenance.scheduledTold", count: told) : ""
            } ?? "")
        case "cancelled": tr("maintenance.cancelled")
        case "gone": tr("maintenance.gone")
        default: nil
        }
        return views.page(title: tr("maintenance.title"), section: .manage, context, page)
    }

    func scheduleMaintenance(_ context: ManagerContext) throws -> Response {
        var values: [String: String] = [:]
        for name in Self.maintenanceFields { values[name] = (context.form[name] ?? "").trimmingCharacters(in: .whitespaces) }
        let request = MaintenanceWindow.Request(day: values["day"] ?? "", from: values["from"] ?? "",
                                                until: values["until"] ?? "", timeZone: values["timeZone"] ?? "",
                                                announceHours: values["announceHours"] ?? "")
        switch MaintenanceWindow.window(request, now: context.now) {
        case .failure(let problem):
            let page = try maintenancePage(context, values: values, errors: [problem.field: MaintenanceText.message(problem)])
            return views.page(title: tr("maintenance.title"), section: .manage, context, page, status: 422)
        case .success(let window):
            let scheduled = try database.maintenance.scheduleMaintenance(window, now: context.now)
            try staticPages?.refresh(from: database, now: context.now)
            let told = try database.maintenance.customersTold(windowId: scheduled.id)
            return .redirect(to: Paths.manageMaintenance(query: "done=scheduled&told=\(told)"))
        }
    }

    func cancelMaintenance(_ context: ManagerContext) throws -> Response {
        guard let id = context.form["window"].flatMap({ Int64($0) }) else { throw HTTPError.notFound }
        let cancelled = try database.maintenance.cancelMaintenance(id: id, now: context.now)
        try staticPages?.refresh(from: database, now: context.now)
        return .redirect(to: Paths.manageMaintenance(query: cancelled ? "done=cancelled" : "done=gone"))
    }

    private func maintenancePage(_ context: ManagerContext, values: [String: String], errors: [String: String]) throws
        -> MaintenancePage
    {
        let rows = try database.maintenance.maintenanceWindows(now: context.now).map { window in
            MaintenancePage.Row(id: window.id, text: MaintenanceText.describe(window, now: context.now),
                                underway: window.phase(at: context.now) == .underway)
        }
        return MaintenancePage(windows: rows, values: values, errors: errors, zones: StoreFields.zoneChoices)
    }
}

/// Maintenance in words, for the pages and `clup admin`.
public enum MaintenanceText {
    /// "Tue 1 Dec at 02:00 – 04:00 (Europe/Rome), announced Mon 30 Nov at 02:00".
    public static func describe(_ window: MaintenanceWindow, now: Date) -> String {
        let (from, until) = Formatting.span(window, now: now)
        return tr("maintenance.row", ["from": from, "until": until, "zone": window.timeZone,
                                      "announce": Formatting.moment(window.announceFrom, now: now, timeZone: window.zone)])
    }

    public static func message(_ problem: MaintenanceWindow.Problem) -> String {
        switch problem {
        case .badDay: tr("maintenance.badDay")
        case .badTime: tr("maintenance.badTime")
        case .unknownZone: tr("maintenance.unknownZone")
        case .badNotice: tr("maintenance.badNotice")
        case .alreadyOver: tr("maintenance.alreadyOver")
        }
    }
}
