import Foundation

/// Whether a party may join a store's queue now (R3, R6): only while the store is open, when
/// the expected wait is at most two hours, and when the visit would end by closing time.
public enum LineUpPolicy {
    public static let longestWait: TimeInterval = 2 * 3600

    public enum Decision: Sendable, Equatable {
        /// Expected to enter after `wait`, at `entry`.
        case accepted(wait: TimeInterval, entry: Date)
        case closed(opensAt: Date?)
        case waitTooLong(wait: TimeInterval?)
        case closesFirst(closes: Date, entry: Date)
    }

    /// The decision for a party that would wait `wait` (nil: could never enter) and stay
    /// `residence` seconds, at a store in `openState`.
    public static func decide(wait: TimeInterval?, residence: TimeInterval, openState: OpenState, now: Date)
        -> Decision
    {
        guard case .open(let closes) = openState else {
            if case .closed(let opensAt) = openState { return .closed(opensAt: opensAt) }
            return .closed(opensAt: nil)
        }
        guard let wait, wait <= longestWait else { return .waitTooLong(wait: wait) }
        let entry = now + wait
        if entry + residence > closes { return .closesFirst(closes: closes, entry: entry) }
        return .accepted(wait: wait, entry: entry)
    }
}

/// Other stores to offer when the chosen one cannot take the customer (G4, RASD §2.2.3): the
/// nearest to the chosen store that can, up to three.
public enum Suggestions {
    public static let limit = 3

    /// `candidates` that satisfy `acceptable`, excluding the chosen store, nearest to `origin`
    /// first (ties by id, so the order is stable). `acceptable` is asked of the nearest first
    /// and no more than needed, since it may cost a lookup.
    public static func nearest<Candidate>(
        to origin: GeoPoint, among candidates: [Candidate], excluding chosenId: StoreID,
        id: (Candidate) -> StoreID, position: (Candidate) -> GeoPoint, acceptable: (Candidate) throws -> Bool
    ) rethrows -> [(candidate: Candidate, metres: Double)] {
        let sorted = candidates.filter { id($0) != chosenId }
            .map { (candidate: $0, metres: origin.distance(to: position($0))) }
            .sorted { ($0.metres, id($0.candidate)) < ($1.metres, id($1.candidate)) }
        var result: [(candidate: Candidate, metres: Double)] = []
        for entry in sorted where result.count < limit {
            if try acceptable(entry.candidate) { result.append(entry) }
        }
        return result
    }
}
