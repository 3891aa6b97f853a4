import CLupDomain
import CLupSupport
import Foundation
import GRDB
import Synchronization

/// A store registered with CLup (R23), as stored: it always has its id.
public struct Store: Codable, Sendable, Hashable, Identifiable, FetchableRecord, PersistableRecord {
    public typealias ID = StoreID

    public var id: StoreID
    public var name: String
    public var address: String
    public var phone: String
    public var latitude: Double
    public var longitude: Double
    /// Most people allowed inside at once.
    public var capacity: Int
    /// IANA identifier of the zone the opening hours are written in.
    public var timeZone: String
    // Reservation rules: see `StoreSettings`.
    public var walkInPercent: Int
    public var slotMinutes: Int
    public var slotCapacity: Int
    public var entryBeforeMinutes: Int
    public var entryAfterMinutes: Int
    public var callGraceMinutes: Int
    /// The priority lane (`PriorityLane`): one priority call in every `priorityEvery` (0: none).
    public var priorityEvery: Int
    public var priorityOnline: Bool
    /// The most people one ticket or booking may be for (`StoreSettings.largestParty`).
    public var largestParty: Int

    public enum Columns {
        static let id = Column(CodingKeys.id)
    }

    public static let databaseTableName = "store"
    static let openingIntervals = hasMany(OpeningIntervalRecord.self)
    static let departments = hasMany(Department.self)
    static let closures = hasMany(StoreClosure.self, key: "closures")

    /// The store's reservation rules as the domain reads them.
    public var settings: StoreSettings {
        StoreSettings(capacity: capacity, walkInPercent: walkInPercent, slotMinutes: slotMinutes,
                      slotCapacity: slotCapacity, entryBeforeMinutes: entryBeforeMinutes,
                      entryAfterMinutes: entryAfterMinutes, callGraceMinutes: callGraceMinutes,
                      priority: PriorityLane(every: priorityEvery, online: priorityOnline), largestParty: largestParty)
    }

    public var position: GeoPoint { GeoPoint(latitude: latitude, longitude: longitude) }

    /// The store's zone; stores are validated on insert, so the fallback is never expected.
    /// One instance per zone name is shared by every store: a zone holds ICU calendars, and
    /// a fresh one per store cost kilobytes each for a hundred thousand stores.
    public var zone: TimeZone { Self.zones.zone(named: timeZone) }

    static let zones = ZoneDirectory()
}

/// Time zones by IANA name, made once each, and numbered in the order first seen (a name kept
/// as its number takes two bytes, not sixteen).
final class ZoneDirectory: Sendable {
    private struct Known {
        var zones: [String: (zone: TimeZone, number: UInt16)] = [:]
        var names: [String] = []
    }

    private let known = Mutex(Known())

    func zone(named name: String) -> TimeZone { entry(named: name).zone }

    /// The zone name's number (there are a few hundred names, far fewer than 65,536).
    func number(of name: String) -> UInt16 { entry(named: name).number }

    func name(numbered number: UInt16) -> String {
        known.withLock { $0.names[Int(number)] }
    }

    /// The zone named and its number, made and numbered the first time the name is asked for
    /// (outside the lock: making a zone loads its rules).
    private func entry(named name: String) -> (zone: TimeZone, number: UInt16) {
        if let entry = known.withLock({ $0.zones[name] }) { return entry }
        let zone = TimeZone(identifier: name) ?? .gmt
        return known.withLock { known in
            if let entry = known.zones[name] { return entry }
            let entry = (zone: zone, number: UInt16(known.names.count))
            known.zones[name] = entry
            known.names.append(name)
            return entry
        }
    }
}

/// A store about to be registered: everything but the id, which the database gives it
/// (GRDB's partial-record pattern), so a `Store` never has a missing id.
public struct NewStore: Codable, Sendable, Hashable, PersistableRecord {
    public var name: String
    public var address: String
    public var phone: String
    public var latitude: Double
    public var longitude: Double
    public var capacity: Int
    public var timeZone: String
    public var walkInPercent: Int
    public var slotMinutes: Int
    public var slotCapacity: Int
    public var entryBeforeMinutes: Int
    public var entryAfterMinutes: Int
    public var callGraceMinutes: Int
    public var priorityEvery: Int
    public var priorityOnline: Bool
    public var largestParty: Int

    public static let databaseTableName = Store.databaseTableName

    public init(name: String, address: String, phone: String, position: GeoPoint, capacity: Int, timeZone: String,
                settings: StoreSettings? = nil)
    {
        self.name = name
        self.address = address
        self.phone = phone
        self.latitude = position.latitude
        self.longitude = position.longitude
        self.capacity = capacity
        self.timeZone = timeZone
        let settings = settings ?? StoreSettings(capacity: capacity)
        walkInPercent = settings.walkInPercent
        slotMinutes = settings.slotMinutes
        slotCapacity = settings.slotCapacity
        entryBeforeMinutes = settings.entryBeforeMinutes
        entryAfterMinutes = settings.entryAfterMinutes
        callGraceMinutes = settings.callGraceMinutes
        priorityEvery = settings.priority.every
        priorityOnline = settings.priority.online
        largestParty = settings.largestParty
    }
}

/// One opening interval of a store (see `OpeningInterval` for the meaning of the minutes).
public struct OpeningIntervalRecord: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public var storeId: StoreID
    public var weekday: Int
    public var opens: Int
    public var closes: Int

    public enum Columns {
        static let storeId = Column(CodingKeys.storeId)
        static let weekday = Column(CodingKeys.weekday)
        static let opens = Column(CodingKeys.opens)
    }

    public static let databaseTableName = "openingInterval"

    public init(storeId: StoreID, interval: OpeningInterval) {
        self.storeId = storeId
        self.weekday = interval.weekday
        self.opens = interval.opens
        self.closes = interval.closes
    }

    public var interval: OpeningInterval { OpeningInterval(weekday: weekday, opens: opens, closes: closes) }
}

/// A department of a store, with the time a customer typically spends in it (R1.2).
public struct Department: Codable, Sendable, Hashable, Identifiable, FetchableRecord, PersistableRecord {
    public var id: Int64
    public var storeId: StoreID
    public var name: String
    public var estimatedMinutes: Int
    /// Order of display, as the aisles run.
    public var position: Int

    public enum Columns {
        static let storeId = Column(CodingKeys.storeId)
        static let position = Column(CodingKeys.position)
    }

    public static let databaseTableName = "department"
}

/// A day a store stays closed whatever its weekly hours say (a holiday, a stocktake).
public struct StoreClosure: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public var storeId: StoreID
    /// The store-local day number (days since 1970-01-01 on the store's clock).
    public var day: Int
    /// Why, as shoppers read it: "Christmas".
    public var reason: String

    public static let databaseTableName = "storeClosure"
}

/// One opening of a day on which a store keeps hours of its own (an early closing on
/// Christmas Eve) in place of its weekday's; a day has one or two.
public struct StoreSpecialHours: Codable, Sendable, Hashable, FetchableRecord, PersistableRecord {
    public var storeId: StoreID
    /// The store-local day number.
    public var day: Int
    /// Minutes after the day's local midnight, as `OpeningInterval`'s.
    public var opens: Int
    public var closes: Int
    /// Why, as shoppers read it: "Christmas Eve"; the same on each opening of the day.
    public var reason: String

    public static let databaseTableName = "specialHours"

    public init(storeId: StoreID, day: Int, interval: OpeningInterval, reason: String) {
        self.storeId = storeId
        self.day = day
        self.opens = interval.opens
        self.closes = interval.closes
        self.reason = reason
    }

    public var interval: OpeningInterval {
        OpeningInterval(weekday: ZoneOffsets.isoWeekday(day: day), opens: opens, closes: closes)
    }
}

/// A department about to be registered (the database gives it its id).
struct NewDepartment: Codable, Sendable, PersistableRecord {
    var storeId: StoreID
    var name: String
    var estimatedMinutes: Int
    var position: Int

    static let databaseTableName = Department.databaseTableName
}

/// A store fetched with its opening intervals.
public protocol StoreWithHours {
    var store: Store { get }
    var openingIntervals: [OpeningIntervalRecord] { get }
    var closures: [StoreClosure] { get }
    var specialHours: [StoreSpecialHours] { get }
}

extension StoreWithHours {
    /// The intervals as the domain evaluates them, in the store's zone, with its closed and
    /// special days.
    public var openingHours: OpeningHours {
        OpeningHours(intervals: openingIntervals.map(\.interval), timeZone: store.zone, closedDays: closures.map(\.day),
                     specialDays: Dictionary(grouping: specialHours, by: \.day).mapValues { $0.map(\.interval) })
    }

    /// The store's booking slots.
    public var slotCalendar: SlotCalendar {
        SlotCalendar(hours: openingHours, slotMinutes: store.slotMinutes)
    }
}

/// A store with its opening hours: what the store list needs.
public struct StoreListing: Decodable, Sendable, FetchableRecord, StoreWithHours {
    public var store: Store
    public var openingIntervals: [OpeningIntervalRecord]
    public var closures: [StoreClosure]
    public var specialHours: [StoreSpecialHours]
}

/// A store with everything its page shows.
public struct StoreDetails: Decodable, Sendable, FetchableRecord, StoreWithHours {
    public var store: Store
    public var openingIntervals: [OpeningIntervalRecord]
    /// Its closed days, past ones included (they change nothing).
    public var closures: [StoreClosure]
    /// The openings of its special days, past ones included, by day then opening.
    public var specialHours: [StoreSpecialHours] = []
    /// The departments it has now, in display order (not those it no longer has).
    public var departments: [Department]
    /// When it was retired for good (`Stores.retire`); nil while it trades.
    public var retiredAt: Date? = nil
}
