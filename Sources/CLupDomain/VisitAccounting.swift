import Foundation

/// What a store's statistics and its wait estimate learn from a reservation: the one place
/// where a change of status is counted. The data layer calls `change(from:to:peopleInside:)`
/// each time it changes a reservation's status, and `clup admin rebuild-stats` folds the same
/// function over the history (`steps(of:)`), so what is kept as visits happen and what is
/// rebuilt from the raw visits agree by construction.
public enum VisitAccounting {
    /// A visit's time inside is spread over the hours it overlaps, up to this many: a longer
    /// one (a ticket never scanned out for a day) would otherwise fill a day of hours.
    public static let spreadHours = 8
    /// Each entry error measured weighs this much less than the next (about the last hundred
    /// entries count): a store's pace changes over weeks.
    public static let entryErrorDecay = 0.99

    /// What a reservation going from `old` to `new` adds: to the hours of the store's
    /// statistics, to its learned sums, and to its departments' entries (at `entryHour`).
    /// `peopleInside` is the number inside just after the change (an entry's peak).
    public static func change(from old: VisitFacts, to new: VisitFacts, peopleInside: Double) -> VisitChange {
        var change = VisitChange()
        func hour(of date: Date, _ update: (inout HourTotals) -> Void) {
            let hour = HourTotals.hour(of: date)
            if let index = change.hours.firstIndex(where: { $0.hour == hour }) {
                update(&change.hours[index])
            } else {
                var totals = HourTotals(hour: hour)
                update(&totals)
                change.hours.append(totals)
            }
        }
        let people = Double(new.people)
        if new.status == .called, old.status != .called, let called = new.calledAt {
            hour(of: called) { $0.calls += 1; $0.callSeconds += called.timeIntervalSince(new.createdAt) }
        }
        if new.status == .inside, old.status != .inside, let entered = new.enteredAt {
            hour(of: entered) { totals in
                totals.entries += 1
                totals.entryPeople += people
                if new.kind == .lineUp && !new.walkIn { totals.lineUps += 1 }
                if new.walkIn { totals.walkIns += 1 }
                if new.kind == .booking { totals.bookings += 1 }
                if new.kind == .lineUp {
                    totals.waitSeconds += entered.timeIntervalSince(new.createdAt)
                    totals.waitCount += 1
                    if new.priority {
                        totals.priorityEntries += 1
                        totals.priorityWaitSeconds += entered.timeIntervalSince(new.createdAt)
                    }
                }
                if let called = new.calledAt {
                    totals.doorSeconds += entered.timeIntervalSince(called)
                    totals.doorCount += 1
                }
                totals.peakInside = max(totals.peakInside, peopleInside)
            }
            change.entryHour = HourTotals.hour(of: entered)
            if [.waiting, .called].contains(old.status), let expected = new.expectedEntry {
                // How far the entry was from the one expected when the ticket was taken, in
                // minutes over √(expected wait + 10 min) (`VisitModel.entryError`).
                let error = VisitModel.entryError(expected: max(0, expected.timeIntervalSince(new.createdAt)),
                                                  real: max(0, entered.timeIntervalSince(new.createdAt)))
                change.learned.entryDecay = entryErrorDecay
                change.learned.added.entries = 1
                change.learned.added.entryErrorSum = error
                change.learned.added.entryErrorSquares = error * error
            }
        }
        if old.status == .called, [.inside, .expired].contains(new.status), let called = new.calledAt {
            change.learned.added.calls = 1
            if new.status == .expired { change.learned.added.noShows = 1 }
            // The way to the door, of those called where they were (at the kiosk, or with no
            // journey): one on the way is called as they are about to arrive.
            if new.status == .inside, let entered = new.enteredAt, new.travelMetres == nil {
                change.learned.added.atHandEntries = 1
                change.learned.added.callToDoorSeconds = max(0, entered.timeIntervalSince(called))
            }
        }
        if old.exitedAt == nil, let exited = new.exitedAt, let entered = new.enteredAt {
            let actual = exited.timeIntervalSince(entered)
            let declared = Double(new.residenceMinutes) * 60
            hour(of: entered) { totals in
                totals.exits += 1
                totals.declaredSeconds += declared
                totals.actualSeconds += actual
            }
            let first = HourTotals.hour(of: entered)
            for k in 0..<spreadHours {
                let start = Double(first + k) * 3600
                let end = exited.timeIntervalSince1970
                guard start < end else { break }
                let overlap = min(end, start + 3600) - max(entered.timeIntervalSince1970, start)
                hour(of: Date(timeIntervalSince1970: start)) { $0.personSeconds += people * overlap }
            }
            let logRatio = Foundation.log(max(1, actual) / max(60, declared))
            change.learned.added.measuredVisits = 1
            change.learned.added.declaredSeconds = declared
            change.learned.added.actualSeconds = actual
            change.learned.added.loggedVisits = 1
            change.learned.added.logRatioSum = logRatio
            change.learned.added.logRatioSquares = logRatio * logRatio
        }
        if [.expired, .cancelled].contains(new.status), old.status != new.status, let ended = new.endedAt {
            hour(of: ended) { totals in
                if new.status == .expired && new.kind == .booking { totals.noShows += 1 }
                if new.status == .expired && new.kind == .lineUp { totals.expiries += 1 }
                if new.status == .cancelled { totals.cancellations += 1 }
            }
        }
        return change
    }

    /// The states a reservation went through, from made to `final`, each with the time it
    /// was reached: what the history holds of its changes, for a rebuild to count again.
    public static func steps(of final: VisitFacts) -> [(at: Date, facts: VisitFacts)] {
        var state = final
        (state.calledAt, state.enteredAt, state.exitedAt, state.endedAt) = (nil, nil, nil, nil)
        state.status = final.kind == .booking ? .booked : .waiting
        var steps = [(at: final.createdAt, facts: state)]
        if let called = final.calledAt {
            state.status = .called
            state.calledAt = called
            steps.append((called, state))
        }
        if let entered = final.enteredAt {
            state.status = .inside
            state.enteredAt = entered
            steps.append((entered, state))
        }
        if final.status != state.status, let ended = final.endedAt ?? final.exitedAt {
            state.status = final.status
            state.exitedAt = final.exitedAt
            state.endedAt = final.endedAt
            steps.append((ended, state))
        }
        return steps
    }
}

/// A reservation as its store's statistics see it.
public struct VisitFacts: Sendable, Equatable {
    public var kind: ReservationKind
    public var walkIn: Bool
    public var people: Int
    public var residenceMinutes: Int
    /// How far away the customer was when they lined up (nil: at the store, or not known).
    public var travelMetres: Int?
    public var status: ReservationStatus
    public var createdAt: Date
    public var calledAt: Date?
    public var enteredAt: Date?
    public var exitedAt: Date?
    public var endedAt: Date?
    /// A line-up's expected entry when it was made.
    public var expectedEntry: Date?
    /// A priority ticket (`PriorityLane`).
    public var priority: Bool

    public init(kind: ReservationKind, walkIn: Bool = false, people: Int, residenceMinutes: Int,
                travelMetres: Int? = nil, status: ReservationStatus, createdAt: Date, calledAt: Date? = nil,
                enteredAt: Date? = nil, exitedAt: Date? = nil, endedAt: Date? = nil, expectedEntry: Date? = nil,
                priority: Bool = false)
    {
        self.priority = priority
        (self.kind, self.walkIn, self.people, self.residenceMinutes, self.travelMetres) =
            (kind, walkIn, people, residenceMinutes, travelMetres)
        (self.status, self.createdAt, self.calledAt, self.enteredAt, self.exitedAt, self.endedAt, self.expectedEntry) =
            (status, createdAt, calledAt, enteredAt, exitedAt, endedAt, expectedEntry)
    }

    /// In the store from this state on (a change into it adds the people, out of it takes them away).
    public var isInside: Bool { status == .inside }
}

/// What one change of status adds to its store's statistics.
public struct VisitChange: Sendable, Equatable {
    /// The hours it touches, each with what it adds (the peak is a maximum, not a sum).
    public var hours: [HourTotals] = []
    public var learned = LearnedSums.Change()
    /// The hour of an entry, counted for each department the customer said they would visit.
    public var entryHour: Int?

    public init() {}

    public var isEmpty: Bool { hours.isEmpty && learned.isEmpty && entryHour == nil }
}

/// A store's running sums for its wait estimate (`VisitModel`): visit lengths, calls and
/// their outcomes, and the entry errors, which fade (`VisitAccounting.entryErrorDecay`).
public struct LearnedSums: Sendable, Equatable {
    public var measuredVisits = 0.0
    public var declaredSeconds = 0.0
    public var actualSeconds = 0.0
    public var loggedVisits = 0.0
    public var logRatioSum = 0.0
    public var logRatioSquares = 0.0
    public var calls = 0.0
    public var noShows = 0.0
    public var callToDoorSeconds = 0.0
    public var atHandEntries = 0.0
    public var entries = 0.0
    public var entryErrorSum = 0.0
    public var entryErrorSquares = 0.0

    public init() {}

    /// What one change does to the sums: the entry errors kept weigh `entryDecay`, then
    /// `added` is added.
    public struct Change: Sendable, Equatable {
        public var entryDecay = 1.0
        public var added = LearnedSums()

        public init() {}

        public var isEmpty: Bool { entryDecay == 1 && added == LearnedSums() }
    }

    public mutating func apply(_ change: Change) {
        let added = change.added
        measuredVisits += added.measuredVisits
        declaredSeconds += added.declaredSeconds
        actualSeconds += added.actualSeconds
        loggedVisits += added.loggedVisits
        logRatioSum += added.logRatioSum
        logRatioSquares += added.logRatioSquares
        calls += added.calls
        noShows += added.noShows
        callToDoorSeconds += added.callToDoorSeconds
        atHandEntries += added.atHandEntries
        entries = entries * change.entryDecay + added.entries
        entryErrorSum = entryErrorSum * change.entryDecay + added.entryErrorSum
        entryErrorSquares = entryErrorSquares * change.entryDecay + added.entryErrorSquares
    }
}
