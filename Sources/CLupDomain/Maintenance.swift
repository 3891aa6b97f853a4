import Foundation

/// A time CLup is scheduled to be down or unreliable (an upgrade, a move), announced on every
/// page, on the kiosks and in the device API's status from `announceFrom`, and said to be under
/// way, with when CLup is back, while it lasts (RASD: maintenance is announced beforehand).
public struct MaintenanceWindow: Sendable, Equatable, Codable, Identifiable {
    public var id: Int64
    public var startsAt: Date
    public var endsAt: Date
    /// From when pages announce it.
    public var announceFrom: Date
    /// The zone its times were given in, and are shown in.
    public var timeZone: String

    public init(id: Int64, startsAt: Date, endsAt: Date, announceFrom: Date, timeZone: String) {
        self.id = id
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.announceFrom = announceFrom
        self.timeZone = timeZone
    }

    public enum Phase: String, Sendable, Equatable {
        /// Coming: pages say when it will be.
        case announced
        /// Now: pages say when CLup is back.
        case underway
    }

    /// Where the window stands at `now`; nil before its announcement and once it is over.
    public func phase(at now: Date) -> Phase? {
        if now >= endsAt || now < announceFrom { return nil }
        return now >= startsAt ? .underway : .announced
    }

    public var zone: TimeZone { TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")! }

    /// The window pages show at `now`, with its phase: one under way before any announced, and
    /// of those the soonest.
    public static func shown(_ windows: [MaintenanceWindow], at now: Date) -> (window: MaintenanceWindow, phase: Phase)? {
        let current = windows.compactMap { window in window.phase(at: now).map { (window, $0) } }
        return current.min { a, b in
            (a.1 == .underway ? 0 : 1, a.0.startsAt, a.0.id) < (b.1 == .underway ? 0 : 1, b.0.startsAt, b.0.id)
        }
    }

    /// How many hours before its start a window may be announced.
    public static let noticeHours = 0...336

    /// What an administrator asks for: a local day, two local times ("02:00", "04:00"; an end at
    /// or before the start is on the next day, so a window lasts a day at most), a zone, and how
    /// many hours before to announce it.
    public struct Request: Sendable, Equatable {
        public var day: String
        public var from: String
        public var until: String
        public var timeZone: String
        public var announceHours: String

        public init(day: String, from: String, until: String, timeZone: String, announceHours: String) {
            self.day = day
            self.from = from
            self.until = until
            self.timeZone = timeZone
            self.announceHours = announceHours
        }
    }

    /// Why a request cannot be scheduled, by field.
    public enum Problem: Error, Sendable, Equatable {
        case badDay
        case badTime(field: String)
        case unknownZone
        case badNotice
        case alreadyOver

        /// The form field it is about.
        public var field: String {
            switch self {
            case .badDay: "day"
            case .badTime(let field): field
            case .unknownZone: "timeZone"
            case .badNotice: "announceHours"
            case .alreadyOver: "until"
            }
        }
    }

    /// The window `request` asks for, or why not.
    public static func window(_ request: Request, now: Date) -> Result<MaintenanceWindow, Problem> {
        guard let zone = TimeZone(identifier: request.timeZone.trimmingCharacters(in: .whitespaces)) else {
            return .failure(.unknownZone)
        }
        guard let day = LocalDate(text: request.day.trimmingCharacters(in: .whitespaces))?.day else {
            return .failure(.badDay)
        }
        guard let from = OpeningHours.minutes(request.from.trimmingCharacters(in: .whitespaces)) else {
            return .failure(.badTime(field: "from"))
        }
        guard let until = OpeningHours.minutes(request.until.trimmingCharacters(in: .whitespaces)) else {
            return .failure(.badTime(field: "until"))
        }
        guard let hours = Int(request.announceHours.trimmingCharacters(in: .whitespaces)), noticeHours.contains(hours) else {
            return .failure(.badNotice)
        }
        let offsets = ZoneOffsets.table(for: zone, around: Date(timeIntervalSince1970: Double(day) * 86400))
        let startsAt = offsets.instant(localSeconds: day * 86400 + from * 60)
        let endsAt = offsets.instant(localSeconds: day * 86400 + (until > from ? until : until + 1440) * 60)
        guard endsAt > now else { return .failure(.alreadyOver) }
        return .success(MaintenanceWindow(id: 0, startsAt: startsAt, endsAt: endsAt,
                                          announceFrom: startsAt - Double(hours) * 3600, timeZone: zone.identifier))
    }
}
