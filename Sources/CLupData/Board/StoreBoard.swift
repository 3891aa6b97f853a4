import CLupDomain
import CLupSupport
import Foundation
import GRDB
import Synchronization

/// Each store's live state, kept in the worker instead of read and recomputed per request:
/// the store as registered (decoded once), its live reservations — queued, called, inside and
/// booked — its visit model (`VisitModel`), and, once asked for, its standing at an instant (status,
/// every waiting ticket's place and expected entry, a newcomer's wait).
///
/// It changes only when a transaction that changed a store commits: `BoardObserver` notes the
/// rows each transaction touches and, after its commit, on the writer's queue (so in commit
/// order, before the next write), reads them back and applies them. Time changes it through
/// the queue timer, whose transactions expire and call tickets like any other; and the timer
/// reloads it whole if another process wrote to the database (`refreshBoard`).
///
/// A standing is computed from memory and kept until the store changes or it is older than
/// `standingLifetime`, so a page reads each store in O(1).
public final class StoreBoard: Sendable {
    /// How old a store's standing may be when read: the live numbers a page shows are at most
    /// this old, unless the store changed, which recomputes them at once.
    public static let standingLifetime: TimeInterval = 1

    /// A store as registered, with its hours read as the domain evaluates them: replaced whole
    /// when the store is edited, shared (not copied) by every read of the board. The raw
    /// opening-interval rows are not kept: `openingHours` holds the same intervals.
    public final class Definition: Sendable {
        private let packed: PackedStore
        public var store: Store { packed.store }
        // Read without making the whole store, for passes over every store.
        public var id: StoreID { packed.id }
        var capacity: Int { Int(packed.capacity) }
        var position: GeoPoint { GeoPoint(latitude: packed.latitude, longitude: packed.longitude) }
        public var settings: StoreSettings { packed.settings }
        public let departments: [Department]
        public let openingHours: OpeningHours
        /// The days it stays closed, with why, in order (their days are in `openingHours` too).
        public let closures: [StoreClosure]
        /// The openings of its special days, with why, by day (their hours are in
        /// `openingHours` too).
        public let specialHours: [StoreSpecialHours]
        /// Made on demand: a calendar is the hours and the slot length, nothing more to keep.
        public var slotCalendar: SlotCalendar { SlotCalendar(hours: openingHours, slotMinutes: store.slotMinutes) }
        /// When the store was retired for good: it stays on the board for its managers'
        /// pages and statistics, but out of the grid that finds stores for shoppers.
        public let retiredAt: Date?
        public var isRetired: Bool { retiredAt != nil }

        init(_ details: StoreDetails) {
            packed = PackedStore(details.store)
            retiredAt = details.retiredAt
            departments = details.departments
            closures = details.closures
            specialHours = details.specialHours
            // Stores of a chain keep the same hours: one copy of each week serves them all.
            let hours = details.openingHours
            openingHours = OpeningHours(intervals: Self.weeks.intern(hours.intervals), timeZone: hours.timeZone,
                                        closedDays: hours.closedDays, specialDays: hours.specialDays)
        }

        private static let weeks = Interner<[OpeningInterval]>()
    }

    /// One store as the board keeps it.
    public struct Entry: Sendable {
        public var definition: Definition
        public var hours: OpeningHours { definition.openingHours }
        public var calendar: SlotCalendar { definition.slotCalendar }
        /// The live reservations in queue order, as the estimate reads them: first the
        /// queued, called and inside ones by `QueueKey` (`activeCount` of them; by id, but for
        /// priority tickets), then the booked ones
        /// (a week at most ahead) by slot start then id. One array, so a transaction or a
        /// standing reads it without joining two.
        var reservations: [LiveReservation] = []
        var activeCount = 0
        var active: ArraySlice<LiveReservation> { reservations[..<activeCount] }
        var booked: ArraySlice<LiveReservation> { reservations[activeCount...] }
        /// What the store's history says about its visits. Boxed, and shared while it is the
        /// standard one or a new store's (every store until it has history): the entry stays as
        /// small as with the single ratio it replaced, which matters at 100,000 stores.
        public var model: VisitModel {
            get { modelBox.model }
            set {
                modelBox = switch newValue {
                case .standard: .standard
                case .newStore: .newStore
                default: VisitModelBox(newValue)
                }
            }
        }
        private(set) var modelBox = VisitModelBox.standard
        /// Bumped by every change to the store, so a standing of an older version is not used.
        public var version = 0
        /// PostgreSQL: the store's version (`storeVersion`) at which this entry holds it exactly
        /// as committed — its definition, learned sums and live reservations — or -1 if that is
        /// not known (another worker's change not yet heard of, a read-back that saw later
        /// changes than its own). Never set on SQLite, whose board holds every commit.
        var exactAt: Int64 = -1
        /// Boxed: most stores are never asked for one, and the entry stays small.
        var kept: KeptStanding?
        var standing: StoreStanding? { kept?.standing }
        var standingVersion: Int { kept?.version ?? -1 }

        public var store: Store { definition.store }
        public var id: StoreID { definition.id }

        /// The store's live traffic, in queue order, as `AppDatabase.liveTraffic` reads it.
        public var live: LiveTraffic { LiveTraffic(live: reservations, model: model) }
    }

    struct State {
        var entries = EntryTable()
        var grid = StoreGrid()
    }

    private let state = Mutex(State())
    private let dataVersion = Mutex(-1)
    private let changeCount = Atomic<Int>(0)

    init() {}

    /// Counts the changes applied to the board (reloads included): what a page made from the
    /// board may keep, it keeps while this stays the same. Counted with the lock held, after the
    /// change: whoever reads a count and then reads the board sees at least that change.
    public var changes: Int { changeCount.load(ordering: .acquiring) }

    private func counted(_ state: inout State, _ change: (inout State) -> Void) {
        change(&state)
        changeCount.add(1, ordering: .releasing)
    }

    // MARK: Reading

    /// One store, or nil if there is none with that id.
    public func entry(_ id: StoreID) -> Entry? {
        state.withLock { $0.entries[id] }
    }

    public var storeCount: Int { state.withLock { $0.entries.count } }

    /// People inside and waiting over every store, for the operator's metrics: one pass over
    /// the live reservations, under the board's lock.
    func totals() -> TrafficTotals {
        state.withLock { state in
            var totals = TrafficTotals()
            for entry in state.entries.values {
                var inside = 0
                for reservation in entry.active {
                    if case .inside = reservation.state { inside += reservation.people } else { totals.waiting += reservation.people }
                }
                totals.stores += 1
                totals.inside += inside
                if inside >= entry.definition.capacity { totals.full += 1 }
            }
            return totals
        }
    }

    /// Every store, in id order.
    public func entries() -> [Entry] {
        state.withLock { state in state.entries.values.sorted { $0.id < $1.id } }
    }

    /// The `limit` stores nearest `point`, nearest first (ties by id), with their distances,
    /// found through the grid: the cost depends on how many stores are near, not on how many
    /// there are.
    public func nearest(to point: GeoPoint, limit: Int, excluding: StoreID? = nil) -> [(entry: Entry, metres: Double)] {
        state.withLock { state in
            state.grid.nearest(to: point, limit: limit, excluding: excluding).compactMap { found in
                state.entries[found.id].map { ($0, found.metres) }
            }
        }
    }

    /// The `limit` stores nearest `point` with their standings at `now` (see
    /// `standing(of:now:)`) and distances, nearest first: one lock for all of them, unless some
    /// standings must be computed afresh.
    public func nearestLive(to point: GeoPoint, limit: Int, now: Date, maxAge: TimeInterval = standingLifetime)
        -> [(entry: Entry, standing: StoreStanding, metres: Double)]
    {
        var found = state.withLock { state in
            state.grid.nearest(to: point, limit: limit).compactMap { near -> (Entry, StoreStanding?, Double)? in
                guard let entry = state.entries[near.id] else { return nil }
                return (entry, entry.freshStanding(now: now, maxAge: maxAge), near.metres)
            }
        }
        for index in found.indices where found[index].1 == nil {
            found[index].1 = standing(of: found[index].0.id, now: now, maxAge: maxAge)
        }
        return found.compactMap { entry, standing, metres in standing.map { (entry, $0, metres) } }
    }

    /// A store and its standing at `now` (see `standing(of:now:)`), or nil if there is no such
    /// store.
    public func live(_ id: StoreID, now: Date) -> (entry: Entry, standing: StoreStanding)? {
        guard let standing = standing(of: id, now: now), let entry = entry(id) else { return nil }
        return (entry, standing)
    }

    /// The store's standing at `now`: the kept one if the store has not changed since and it is
    /// younger than `standingLifetime` (and not from the future), else computed afresh and kept.
    public func standing(of id: StoreID, now: Date, maxAge: TimeInterval = standingLifetime) -> StoreStanding? {
        if let kept = state.withLock({ $0.entries[id]?.freshStanding(now: now, maxAge: maxAge) }) {
            return kept
        }
        guard let entry = entry(id) else { return nil }
        // Computed outside the lock: other stores are read meanwhile. Kept only if the store
        // is still at the version it was computed from.
        let standing = StoreStanding(live: entry.live, settings: entry.definition.settings, hours: entry.hours, now: now)
        state.withLock { state in
            guard state.entries[id]?.version == entry.version else { return }
            if let kept = state.entries[id]?.standing, state.entries[id]?.standingVersion == entry.version,
                kept.at > now
            { return }
            state.entries.update(id) { $0.kept = KeptStanding(standing: standing, version: entry.version) }
        }
        return standing
    }

    /// The standing kept for the store's present version, whatever its age (for tests).
    func keptStanding(of id: StoreID) -> StoreStanding? {
        state.withLock { state in
            guard let entry = state.entries[id], entry.standingVersion == entry.version else { return nil }
            return entry.standing
        }
    }

    /// Stores where advancing the queue at `now` would change something — a ticket to call,
    /// expire or send off, a visit to close, or a booking whose entry window has closed unused —
    /// each with the waiting customers its estimate says should leave now (`Departure.isDue`),
    /// in id order.
    public func queueWork(now: Date) -> [(storeId: StoreID, sendOff: [ReservationID])] {
        let entries = state.withLock { $0.entries.values }
        var work: [(storeId: StoreID, sendOff: [ReservationID])] = []
        for entry in entries {
            let settings = entry.definition.settings
            let lastEntry = now - Double(settings.entryAfterMinutes) * 60
            var due = entry.booked.first.map { if case .booked(let start) = $0.state { start < lastEntry } else { false } }
                ?? false
            var sendOff: [ReservationID] = []
            if !entry.active.isEmpty {
                let plan = QueueCaller.plan(live: entry.reservations, settings: settings,
                                            today: entry.hours.businessDay(at: now),
                                            isOpen: entry.hours.state(at: now).isOpen, now: now, model: entry.model)
                due = due || !(plan.call.isEmpty && plan.sendOff.isEmpty && plan.expire.isEmpty && plan.close.isEmpty)
                sendOff = departuresDue(entry, now: now)
            }
            if due || !sendOff.isEmpty { work.append((entry.id, sendOff)) }
        }
        return work.sorted { $0.storeId < $1.storeId }
    }

    /// Waiting customers of `entry` not yet told to leave whose expected entry, less their
    /// travel, is within `Departure.noticeMargin` of `now`.
    private func departuresDue(_ entry: Entry, now: Date) -> [ReservationID] {
        let travelling = entry.active.filter { $0.isWaiting && $0.travel > 0 && $0.leftAt == nil }
        guard !travelling.isEmpty, let standing = standing(of: entry.id, now: now) else { return [] }
        return travelling.compactMap { ticket in
            guard let entry = standing.standing(of: ticket.id)?.entry,
                Departure.isDue(entry: entry, travel: ticket.travel, now: now)
            else { return nil }
            return ticket.id
        }
    }

    // MARK: Changing

    /// Records SQLite's `data_version` as last seen; returns the one seen before.
    func swapDataVersion(_ version: Int) -> Int {
        dataVersion.withLock { seen in
            defer { seen = version }
            return seen
        }
    }

    func apply(_ changes: BoardChanges) {
        guard !changes.isEmpty else { return }
        state.withLock { state in counted(&state) { changes.apply(to: &$0) } }
    }

    /// PostgreSQL: store `id` as the board holds it, if that is exactly the store as committed
    /// at `version`.
    func entry(_ id: StoreID, exactAt version: Int64) -> Entry? {
        state.withLock { state in state.entries[id].flatMap { $0.exactAt == version ? $0 : nil } }
    }

    /// PostgreSQL: the versions this worker's commits give their stores.
    let commitsInFlight = CommitsInFlight()

    /// PostgreSQL: replaces store `entry.id`'s entry with `entry`, read whole as committed at
    /// `version` (under the store's lock), unless the board already holds a later version.
    func install(_ entry: Entry, at version: Int64) {
        state.withLock { state in
            guard let current = state.entries[entry.id], current.exactAt <= version else { return }
            counted(&state) { state in
                state.grid.remove(id: entry.id, at: current.definition.position)
                if !entry.definition.isRetired { state.grid.insert(id: entry.id, at: entry.definition.position) }
                state.entries.update(entry.id) { kept in
                    let standing = kept.kept
                    kept = entry
                    kept.kept = standing
                    kept.version = current.version + 1
                    kept.exactAt = version
                }
            }
        }
    }

    /// Replaces everything with what `db` holds.
    func reload(_ db: Database) throws {
        // The fresh board is built on this thread: what the page threads keep is no use to it.
        FreedMemory.giveBack()
        var fresh = State()
        // Sized once: growing a dictionary of a hundred thousand stores holds the old and the
        // new storage at once, several times over.
        fresh.entries.reserveCapacity(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM store") ?? 0)
        try AppDatabase.streamStoreDetails(db) { details in
            fresh.entries.insert(Entry(details: details))
            if details.retiredAt == nil { fresh.grid.insert(id: details.store.id, at: details.store.position) }
        }
        // A cursor, not an array: at 100,000 stores the rows alone would be 10 MB held at once,
        // beside the board being replaced.
        let loads = try StoreLoad.fetchCursor(db)
        while let load = try loads.next() { fresh.entries.update(load.storeId) { $0.model = load.model } }
        for (storeId, _, reservation) in try AppDatabase.liveRows(
            where: "status IN ('waiting', 'called', 'inside') OR status = 'booked'", arguments: [], db)
        {
            fresh.entries.update(storeId) { $0.upsert(reservation) }
        }
        state.withLock { state in counted(&state) { $0 = fresh } }
        DataMetrics.boardReloaded()
    }

    /// Reloads every store, its learned sums and its live reservations from PostgreSQL, in
    /// one snapshot.
    func reload(_ transaction: PostgresTransaction) throws {
        FreedMemory.giveBack()
        var fresh = State()
        let stores = try AppDatabase.storeDetails(nil, transaction.statements)
        fresh.entries.reserveCapacity(stores.count)
        for details in stores {
            fresh.entries.insert(Entry(details: details))
            if details.retiredAt == nil { fresh.grid.insert(id: details.store.id, at: details.store.position) }
        }
        for load in try PostgresEngine.storeLoads(transaction) {
            fresh.entries.update(load.storeId) { $0.model = load.model }
        }
        for (storeId, reservation) in try PostgresEngine.liveReservations(transaction) {
            fresh.entries.update(storeId) { $0.upsert(reservation) }
        }
        for (storeId, version) in try PostgresEngine.storeVersions(transaction) {
            fresh.entries.update(storeId) { $0.exactAt = version }
        }
        state.withLock { state in counted(&state) { $0 = fresh } }
        DataMetrics.boardReloaded()
    }
}

/// The board's stores by id: the entries in one array and a dictionary from id to position.
/// A dictionary of entries would keep a hundred thousand of them in 262,144 buckets of 56
/// bytes (15 MB); this keeps the buckets at 12 bytes and the entries packed (8 MB). Stores
/// are only added (a deletion reloads the board).
struct EntryTable {
    private var positions: [StoreID: Int32] = [:]
    private(set) var values: [StoreBoard.Entry] = []

    var count: Int { values.count }
    var ids: Dictionary<StoreID, Int32>.Keys { positions.keys }

    subscript(id: StoreID) -> StoreBoard.Entry? {
        positions[id].map { values[Int($0)] }
    }

    mutating func reserveCapacity(_ count: Int) {
        positions.reserveCapacity(count)
        values.reserveCapacity(count)
    }

    /// Adds the entry, or replaces the one with its store's id.
    mutating func insert(_ entry: StoreBoard.Entry) {
        if let position = positions[entry.id] {
            values[Int(position)] = entry
        } else {
            positions[entry.id] = Int32(values.count)
            values.append(entry)
        }
    }

    /// Changes the entry in place (its arrays are not copied), if there is one.
    mutating func update(_ id: StoreID, _ change: (inout StoreBoard.Entry) -> Void) {
        guard let position = positions[id] else { return }
        change(&values[Int(position)])
    }
}

/// One shared instance of each distinct value: equal arrays share their storage.
final class Interner<Value: Hashable & Sendable>: Sendable {
    private let values = Mutex<Set<Value>>([])

    func intern(_ value: Value) -> Value {
        values.withLock { values in
            if let existing = values.firstIndex(of: value) { return values[existing] }
            values.insert(value)
            return value
        }
    }
}

/// A store as the board keeps it: its settings as 32-bit integers and its zone as a number,
/// 112 bytes where a `Store` takes 160 (4.8 MB less at a hundred thousand stores). A `Store`
/// is made again on each read, which copies no text.
struct PackedStore: Sendable {
    let id: StoreID
    let name: String
    let address: String
    let phone: String
    let latitude: Double
    let longitude: Double
    // Validated far below 2^31 (capacity and slots up to 10,000, minutes up to an hour);
    // clamped, not trapped on, if the database ever held more.
    let capacity: Int32
    let walkInPercent: Int32
    let slotMinutes: Int32
    let slotCapacity: Int32
    let entryBeforeMinutes: Int32
    let entryAfterMinutes: Int32
    let callGraceMinutes: Int32
    let priorityEvery: Int32
    let zone: UInt16
    let largestParty: UInt8
    let priorityOnline: Bool

    init(_ store: Store) {
        id = store.id
        name = store.name
        address = store.address
        phone = store.phone
        latitude = store.latitude
        longitude = store.longitude
        capacity = Int32(clamping: store.capacity)
        walkInPercent = Int32(clamping: store.walkInPercent)
        slotMinutes = Int32(clamping: store.slotMinutes)
        slotCapacity = Int32(clamping: store.slotCapacity)
        entryBeforeMinutes = Int32(clamping: store.entryBeforeMinutes)
        entryAfterMinutes = Int32(clamping: store.entryAfterMinutes)
        callGraceMinutes = Int32(clamping: store.callGraceMinutes)
        priorityEvery = Int32(clamping: store.priorityEvery)
        zone = Store.zones.number(of: store.timeZone)
        largestParty = UInt8(clamping: store.largestParty)
        priorityOnline = store.priorityOnline
    }

    var settings: StoreSettings {
        StoreSettings(capacity: Int(capacity), walkInPercent: Int(walkInPercent), slotMinutes: Int(slotMinutes),
                      slotCapacity: Int(slotCapacity), entryBeforeMinutes: Int(entryBeforeMinutes),
                      entryAfterMinutes: Int(entryAfterMinutes), callGraceMinutes: Int(callGraceMinutes),
                      priority: PriorityLane(every: Int(priorityEvery), online: priorityOnline),
                      largestParty: Int(largestParty))
    }

    var store: Store {
        Store(id: id, name: name, address: address, phone: phone, latitude: latitude, longitude: longitude,
              capacity: Int(capacity), timeZone: Store.zones.name(numbered: zone), walkInPercent: Int(walkInPercent),
              slotMinutes: Int(slotMinutes), slotCapacity: Int(slotCapacity), entryBeforeMinutes: Int(entryBeforeMinutes),
              entryAfterMinutes: Int(entryAfterMinutes), callGraceMinutes: Int(callGraceMinutes),
              priorityEvery: Int(priorityEvery), priorityOnline: priorityOnline, largestParty: Int(largestParty))
    }
}

/// PostgreSQL: the version each of this worker's commits in flight gives a store it locked,
/// from just before the COMMIT until its changes are on the board. A write waiting for the
/// store's lock behind such a commit gets it as the COMMIT returns, before the committing
/// thread has applied its changes: finding the board one version behind, it waits for them
/// (microseconds) rather than read the store's rows.
final class CommitsInFlight: @unchecked Sendable {
    // @unchecked: `versions` is read and written with `condition` held.
    private let condition = NSCondition()
    private var versions: [StoreID: Int64] = [:]

    /// Notes the versions a commit about to be sent gives its stores.
    func expect(_ expected: [StoreID: Int64]) {
        guard !expected.isEmpty else { return }
        condition.withLock { versions.merge(expected) { $1 } }
    }

    /// The commit that expected `expected` is over, its changes applied or not.
    func settle(_ expected: [StoreID: Int64]) {
        guard !expected.isEmpty else { return }
        condition.withLock {
            for (id, version) in expected where versions[id] == version { versions[id] = nil }
            condition.broadcast()
        }
    }

    /// Waits, at most `timeout`, while one of this worker's commits in flight gives store `id`
    /// `version`.
    func wait(for id: StoreID, version: Int64, timeout: TimeInterval = 1) {
        condition.withLock {
            let deadline = Date() + timeout
            while versions[id] == version, condition.wait(until: deadline) {}
        }
    }
}

/// A standing and the version of the store it describes.
final class KeptStanding: @unchecked Sendable {
    // @unchecked: changed only with the board's lock held (a ticket joining or leaving the
    // queue changes it in place), and read only with it held.
    var standing: StoreStanding
    var version: Int

    init(standing: StoreStanding, version: Int) {
        self.standing = standing
        self.version = version
    }
}

extension StoreBoard.Entry {
    init(details: StoreDetails) {
        definition = StoreBoard.Definition(details)
    }

    init(definition: StoreBoard.Definition) {
        self.definition = definition
    }

    /// Adds or replaces `reservation` where its state puts it.
    mutating func upsert(_ reservation: LiveReservation) {
        // A queued ticket called, a called one let in: same place in the queue, no shifting.
        // A ticket's key never changes, so it is found by it.
        let key = reservation.queueKey
        let found = active.partitioningIndex { $0.queueKey >= key }
        if found < activeCount, reservations[found].id == reservation.id {
            if !reservation.isBooked {
                reservations[found] = reservation
                version += 1
                return
            }
            reservations.remove(at: found)
            activeCount -= 1
        } else if let index = bookedIndex(of: reservation) {
            reservations.remove(at: index)
        }
        if case .booked(let start) = reservation.state {
            let index = booked.partitioningIndex { entry in
                guard case .booked(let other) = entry.state else { return false }
                return (other, entry.id) > (start, reservation.id)
            }
            reservations.insert(reservation, at: index)
        } else {
            let index = active.partitioningIndex { $0.queueKey > key }
            reservations.insert(reservation, at: index)
            activeCount += 1
        }
        version += 1
    }

    /// Brings the kept standing along when the change just made (`upsert(joined)`) was a
    /// new waiting ticket joining the back of the queue, and the standing was current before
    /// it: the most common change, a line-up at a busy store, then costs O(log places) instead
    /// of a new simulation of the queue on the next read. Any other change leaves the standing
    /// behind its store's version, to be computed again when next read.
    mutating func extendStanding(with joined: LiveReservation) {
        guard joined.state == .waiting, let kept, kept.version == version - 1, active.last?.id == joined.id,
            kept.standing.lastWaitingKey.map({ joined.queueKey > $0 }) ?? true
        else { return }
        kept.standing.appendWaiting(joined, settings: store.settings, hours: hours)
        kept.version = version
    }

    /// Brings the kept standing along when the change just made (`remove`) took a waiting
    /// ticket out of the queue (a cancellation, an expiry), and the standing was current
    /// before it: only the tickets behind it are simulated again.
    mutating func shrinkStanding(without leaving: LiveReservation) {
        guard let kept, kept.version == version - 1 else { return }
        if kept.standing.removeWaiting(leaving.id, settings: store.settings, hours: hours) { kept.version = version }
    }

    /// Where `reservation` is among the bookings, if it is there. A booking's slot never
    /// changes (no statement sets `slotStart` once a reservation is made), so a reservation
    /// still booked is found at its slot by binary search: a new booking at a store with
    /// thousands of them went through every one. One booked no more (let in) is looked for
    /// among them all.
    private func bookedIndex(of reservation: LiveReservation) -> Int? {
        guard case .booked(let start) = reservation.state else {
            return booked.firstIndex { $0.id == reservation.id }
        }
        let index = booked.partitioningIndex { entry in
            guard case .booked(let other) = entry.state else { return false }
            return (other, entry.id) >= (start, reservation.id)
        }
        assert(index < reservations.count && reservations[index].id == reservation.id
               || !booked.contains { $0.id == reservation.id }, "a booking's slot changed")
        return index < reservations.count && reservations[index].id == reservation.id ? index : nil
    }

    /// Reservation `id` if it is waiting in the queue.
    func waitingTicket(_ id: ReservationID) -> LiveReservation? {
        guard let index = activeIndex(of: id), reservations[index].state == .waiting else { return nil }
        return reservations[index]
    }

    /// Where active reservation `id` is: found by binary search, since an ordinary ticket's
    /// key is its id; a priority ticket, placed elsewhere, by looking through them.
    private func activeIndex(of id: ReservationID) -> Int? {
        ordinaryIndex(of: id) ?? active.firstIndex { $0.id == id && $0.priority }
    }

    /// Where active reservation `id` is if it is in its place by id (not a priority ticket).
    private func ordinaryIndex(of id: ReservationID) -> Int? {
        let key = QueueKey(id)
        let index = active.partitioningIndex { $0.queueKey >= key }
        return index < activeCount && reservations[index].id == id ? index : nil
    }

    /// The kept standing if the store has not changed since it was computed, and it is not
    /// older than `maxAge` at `now` nor from after `now`.
    func freshStanding(now: Date, maxAge: TimeInterval) -> StoreStanding? {
        guard let standing, standingVersion == version, standing.at <= now,
            now.timeIntervalSince(standing.at) <= maxAge
        else { return nil }
        return standing
    }

    func contains(_ id: ReservationID) -> Bool {
        reservations.contains { $0.id == id }
    }

    /// Takes reservation `id` off the board: an ordinary ticket found by its id, then among the
    /// bookings, and only then among priority tickets, so a booking ending costs no look
    /// through the whole queue.
    mutating func remove(_ id: ReservationID) {
        if let index = ordinaryIndex(of: id) {
            removeActive(at: index)
        } else if let index = booked.firstIndex(where: { $0.id == id }) {
            reservations.remove(at: index)
            version += 1
        } else if let index = active.firstIndex(where: { $0.id == id && $0.priority }) {
            removeActive(at: index)
        }
    }

    /// Takes reservations `ids` off the board at once. Ordinary tickets are cut out in one copy
    /// of the array around them: a transaction's patched copy of a store's entry shares the
    /// array with the board, and taking one out of it (an exit) would copy all of it, then
    /// shift what came after.
    mutating func remove(_ ids: some Collection<ReservationID>) {
        var cuts: [Int] = []
        var others: [ReservationID] = []
        for id in ids {
            if let index = ordinaryIndex(of: id) { cuts.append(index) } else { others.append(id) }
        }
        defer { for id in others { remove(id) } }
        guard !cuts.isEmpty else { return }
        cuts.sort()
        var kept: [LiveReservation] = []
        kept.reserveCapacity(reservations.count - cuts.count)
        var from = 0
        for cut in cuts {
            kept.append(contentsOf: reservations[from..<cut])
            from = cut + 1
        }
        kept.append(contentsOf: reservations[from...])
        reservations = kept
        activeCount -= cuts.count
        version += cuts.count
    }

    private mutating func removeActive(at index: Int) {
        reservations.remove(at: index)
        activeCount -= 1
        version += 1
    }
}

/// What one transaction changed on the board.
struct BoardChanges: Sendable {
    /// Reservations as they now are (nil: no longer live), with their store (nil: deleted).
    var reservations: [(storeId: StoreID?, id: ReservationID, live: LiveReservation?)] = []
    var models: [StoreID: VisitModel] = [:]
    var stores: [StoreDetails] = []
    /// PostgreSQL: for each store the changes touch, the version the transaction they are
    /// gave it, and the version it was at when they were read back (each nil if not known).
    var versions: [StoreID: (committed: Int64?, seen: Int64?)] = [:]

    var isEmpty: Bool { reservations.isEmpty && models.isEmpty && stores.isEmpty && versions.isEmpty }

    mutating func merge(_ other: BoardChanges) {
        reservations += other.reservations
        models.merge(other.models) { $1 }
        stores += other.stores
        versions.merge(other.versions) { $1 }
    }

    /// Applies the changes. On PostgreSQL (`versions`), rows read back before the version the
    /// board holds a store exactly at are older than what it holds, and are left out; after
    /// them, the entry is exact at the version seen if it was already, or if it was exact at
    /// the one before and these are the changes of the transaction that made the version
    /// seen. Anything else leaves the entry not known exactly, until it is read whole.
    func apply(to state: inout StoreBoard.State) {
        let behind = Set(versions.compactMap { id, version in
            version.seen.map { (state.entries[id]?.exactAt ?? -1) > $0 } == true ? id : nil
        })
        for details in stores where !behind.contains(details.store.id) {
            let id = details.store.id
            if let entry = state.entries[id] {
                state.grid.remove(id: id, at: entry.definition.position)
                state.entries.update(id) { entry in
                    entry.definition = StoreBoard.Definition(details)
                    entry.version += 1
                }
            } else {
                state.entries.insert(StoreBoard.Entry(details: details))
            }
            if details.retiredAt == nil { state.grid.insert(id: id, at: details.store.position) }
        }
        for change in reservations where !(change.storeId.map(behind.contains) ?? false) {
            if let live = change.live, let storeId = change.storeId {
                state.entries.update(storeId) { entry in
                    entry.upsert(live)
                    entry.extendStanding(with: live)
                }
            } else if let storeId = change.storeId {
                state.entries.update(storeId) { entry in
                    let leaving = entry.waitingTicket(change.id)
                    entry.remove(change.id)
                    if let leaving { entry.shrinkStanding(without: leaving) }
                }
            } else {
                // A row gone from the table: its store is not known any more.
                for id in state.entries.ids where state.entries[id]?.contains(change.id) == true {
                    state.entries.update(id) { $0.remove(change.id) }
                }
            }
        }
        for (storeId, model) in models where !behind.contains(storeId) && state.entries[storeId]?.model != model {
            state.entries.update(storeId) { entry in
                entry.model = model
                entry.version += 1
            }
        }
        for (storeId, version) in versions where !behind.contains(storeId) {
            state.entries.update(storeId) { entry in
                guard let seen = version.seen else { return entry.exactAt = -1 }
                let madeBySeen = version.committed == seen && entry.exactAt >= 0 && entry.exactAt == seen - 1
                entry.exactAt = entry.exactAt == seen || madeBySeen ? seen : -1
            }
        }
    }
}

/// Notes the rows each transaction changes in the tables the board mirrors and, once it has
/// committed, reads them back and applies them to the board — on the writer's queue, so in
/// commit order and before the next write begins. Nothing is noted for a transaction that
/// rolls back. Every write path is covered, triggers and bulk updates included, without any
/// of them having to say what it changed.
final class BoardObserver: TransactionObserver, @unchecked Sendable {
    // @unchecked: GRDB calls an observer only on the writer's queue, one call at a time, so
    // these sets are never touched by two threads at once.
    let board: StoreBoard
    let credentials: CredentialCache
    private var credentialsChanged = false
    private var ratios: Set<StoreID> = []
    /// The board was reloaded inside the transaction in progress, so it holds that
    /// transaction's changes: if it rolls back, the board is read again.
    var reloadedInTransaction = false

    /// The reservations the transaction in progress has changed: those read back in it, as
    /// last read, and those changed since (to read again). SQLite reports every change of a
    /// row, so a row read back stays true until it is reported again. (GRDB holds back a
    /// savepoint's reports until it is released, which would leave a row read back inside one
    /// stale; no write uses a savepoint.)
    private var readBack: [ReservationID: ChangedReservation] = [:]
    private var unread: Set<ReservationID> = []

    /// Store loads the transaction in progress has changed so far (writer queue only).
    var pendingRatios: Set<StoreID> { ratios }

    /// A reservation the transaction in progress changed, as it now stands.
    struct ChangedReservation {
        /// Nil: the row was deleted.
        var storeId: StoreID?
        var userId: UserID?
        /// Nil once it has ended (or was deleted).
        var live: LiveReservation?
    }

    /// The reservations the transaction in progress has changed so far, in id order, as they
    /// now stand (writer queue only): what a transaction reads to see its own changes. Only
    /// those changed since the last call are read from the database, so a group of N
    /// reservations reads each row back once, not once for each later member.
    func changedReservations(_ db: Database) throws -> [(id: ReservationID, row: ChangedReservation)] {
        if !unread.isEmpty {
            for id in unread { readBack[id] = ChangedReservation() }
            for (storeId, id, userId, live) in try AppDatabase.liveRows(ids: unread, db) {
                readBack[id] = ChangedReservation(storeId: storeId, userId: userId, live: live)
            }
            unread = []
        }
        return readBack.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
    private var stores: Set<StoreID> = []
    private var storeRows: [String: Set<Int64>] = [:]
    private var storesDeleted = false
    /// Rows of a store's hours, closures or departments were deleted: their store cannot be
    /// read back, so the stores the transaction said it changed (`declare`) are read again, or
    /// the whole board if it said none.
    private var storeRowsDeleted = false
    private var declared: Set<StoreID> = []

    /// Whether the transaction in progress has changed a store, its hours, closed days or
    /// departments (writer queue only): the board takes them only as it commits.
    var storesChanged: Bool { !stores.isEmpty || !storeRows.isEmpty || storesDeleted || storeRowsDeleted }

    /// Notes that the transaction in progress changed store `id` (`SQLTransaction.changed(store:)`,
    /// which every write of a store's rows calls, as PostgreSQL's board feed needs it too).
    func declare(store id: StoreID) {
        declared.insert(id)
    }

    static let tables: Set<String> = ["reservation", "storeLoad", "store", "openingInterval", "department", "storeClosure",
                                      "specialHours", "storeRetirement"]
    static let credentialTables: Set<String> = ["session", "user", "kiosk"]

    init(board: StoreBoard, credentials: CredentialCache) {
        self.board = board
        self.credentials = credentials
    }

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        Self.tables.contains(eventKind.tableName) || Self.credentialTables.contains(eventKind.tableName)
    }

    func databaseDidChange(with event: DatabaseEvent) {
        if Self.credentialTables.contains(event.tableName) {
            credentialsChanged = true
            return
        }
        switch event.tableName {
        case "reservation": unread.insert(ReservationID(event.rowID))
        case "storeLoad": ratios.insert(StoreID(event.rowID))
        case "store":
            if event.kind == .delete { storesDeleted = true } else { stores.insert(StoreID(event.rowID)) }
        default:
            if event.kind == .delete { storeRowsDeleted = true } else { storeRows[event.tableName, default: []].insert(event.rowID) }
        }
    }

    func databaseWillCommit() throws {}

    func databaseDidCommit(_ db: Database) {
        defer { reset() }
        if credentialsChanged { credentials.clearCredentials() }
        do {
            if storesDeleted || (storeRowsDeleted && declared.isEmpty) {
                // Rare (a store removed, with its reservations): everything is read again.
                credentials.clear()
                try board.reload(db)
                return
            }
            var changes = BoardChanges()
            var storeIds = storeRowsDeleted ? stores.union(declared) : stores
            for (table, rowIDs) in storeRows {
                storeIds.formUnion(try StoreID.fetchAll(db, sql: "SELECT storeId FROM \(table) WHERE rowid IN (\(rowIDs.list))"))
            }
            for id in storeIds.sorted() {
                if let details = try AppDatabase.storeDetails(id, SQLiteTransaction(db: db)).first { changes.stores.append(details) }
            }
            if !readBack.isEmpty || !unread.isEmpty {
                var customers: Set<UserID> = []
                var gone = false
                for (id, row) in try changedReservations(db) {
                    if let userId = row.userId { customers.insert(userId) }
                    if row.storeId == nil { gone = true }
                    changes.reservations.append((row.storeId, id, row.live))
                }
                // Their customers' active reservations are read again; a reservation deleted,
                // whose customer cannot be read back, has everyone's read again.
                if !gone { credentials.forgetActiveReservations(of: customers) } else { credentials.clear() }
            }
            if !ratios.isEmpty {
                for storeId in ratios {
                    if let load = try StoreLoad.find(storeId, db) { changes.models[storeId] = load.model }
                }
            }
            board.apply(changes)
        } catch {
            // The commit stands; the board cannot be trusted, so it is read again whole.
            credentials.clear()
            try? board.reload(db)
        }
    }

    func databaseDidRollback(_ db: Database) {
        if reloadedInTransaction { try? board.reload(db) }
        reset()
    }

    private func reset() {
        credentialsChanged = false
        reloadedInTransaction = false
        readBack = [:]
        unread = []
        ratios = []
        stores = []
        storeRows = [:]
        storesDeleted = false
        storeRowsDeleted = false
        declared = []
    }
}

/// A whole number written into SQL as digits: a row id, or an id of ours.
protocol SQLInteger: Hashable {
    var sqlDigits: String { get }
}

extension Int64: SQLInteger {
    var sqlDigits: String { String(self) }
}

extension Identifier: SQLInteger {
    var sqlDigits: String { String(rawValue) }
}

extension Set where Element: SQLInteger {
    /// "1, 2, 3", for an `IN (…)` of integers (nothing else goes into it).
    var list: String { map(\.sqlDigits).joined(separator: ", ") }
}

extension RandomAccessCollection where Index == Int {
    /// The first index whose element satisfies `belongsInSecondPartition` (all before it do
    /// not), by binary search: the collection must be so partitioned.
    func partitioningIndex(where belongsInSecondPartition: (Element) -> Bool) -> Int {
        var low = startIndex
        var high = endIndex
        while low < high {
            let middle = (low + high) / 2
            if belongsInSecondPartition(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

/// A store's visit model on the heap, so a board entry holds a pointer to it (`Entry.model`).
final class VisitModelBox: Sendable {
    let model: VisitModel

    init(_ model: VisitModel) {
        self.model = model
    }

    static let standard = VisitModelBox(.standard)
    static let newStore = VisitModelBox(.newStore)
}
