import CLupDomain
import CLupText

/// A store's priority lane (`PriorityLane`) in words, as its settings, its tickets and its
/// change log say it.
enum PriorityText {
    /// "One priority call in every 3", "Called at the next free place", "No priority lane".
    static func policy(_ lane: PriorityLane) -> String {
        switch lane.every {
        case ...0: tr("priority.off")
        case 1: tr("priority.next")
        default: tr("priority.every", ["n": String(lane.every)])
        }
    }

    /// Whether customers may ask for a priority place online, in words.
    static func online(_ allowed: Bool) -> String {
        tr(allowed ? "priority.online.yes" : "priority.online.no")
    }
}
