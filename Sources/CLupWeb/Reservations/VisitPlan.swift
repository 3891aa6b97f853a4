import CLupData
import CLupDomain
import CLupTemplates
import CLupText
import Foundation

/// The visit being planned — how long and how many — as the wizard's pages pass it along in
/// their addresses, together with where the shopper measures travel from.
struct VisitPlan {
    var minutes: Int
    var people: Int
    /// The departments the customer ticked (for the store's department influx).
    var departments: [Int64] = []

    var residence: TimeInterval { Double(minutes) * 60 }

    /// "About 45 min · 2 people".
    var summary: String { tr("plan.summary", ["minutes": String(minutes), "people": Formatting.people(people)]) }

    var fields: [(name: String, value: String)] {
        [("minutes", String(minutes)), ("people", String(people))] + departments.map { ("department", String($0)) }
    }

    /// At most this many departments are carried along (a store lists a few dozen at most).
    static let departmentLimit = 50

    static func departmentIds(_ form: FormData) -> [Int64] {
        Array(Set(form.all("department").compactMap { Int64($0) }).sorted().prefix(departmentLimit))
    }

    /// From `minutes` and `people` fields, as every step after the first sends them, for a
    /// store that takes parties of up to `largestParty`.
    static func parse(_ form: FormData, largestParty: Int) throws(HTTPError) -> VisitPlan {
        guard let minutes = form["minutes"].flatMap({ Int($0) }), ResidenceTime.isValid(minutes) else {
            throw .badRequest(tr("plan.badLength", ["shortest": String(ResidenceTime.shortest),
                                                    "longest": String(ResidenceTime.longest)]))
        }
        guard let people = form["people"].flatMap({ Int($0) }), (1...largestParty).contains(people) else {
            throw .badRequest(tr("plan.badPeople", ["largest": String(largestParty)]))
        }
        return VisitPlan(minutes: minutes, people: people, departments: departmentIds(form))
    }

    /// What the first step's form sent: `time` (a preset, `usual` or `departments`), the
    /// checked `department` ids and `people`. Problems are reported per field.
    struct Choice {
        var time: String?
        var departmentIds: Set<Int64>
        var people: Int?
        var timeError: String?
        var peopleError: String?
        var plan: VisitPlan?
    }

    static func choose(_ form: FormData, departments: [Department], usual: Int?, largestParty: Int) -> Choice {
        var choice = Choice(time: form["time"], departmentIds: Set(form.all("department").compactMap { Int64($0) }))
        choice.people = form["people"].flatMap { Int($0) }.flatMap { (1...largestParty).contains($0) ? $0 : nil }
        if choice.people == nil {
            choice.peopleError = largestParty > 2 ? tr("plan.peopleErrorMany", ["largest": String(largestParty)])
                : tr("plan.peopleError")
        }
        var minutes: Int?
        switch choice.time {
        case "usual":
            minutes = usual
            if usual == nil { choice.timeError = tr("plan.timeError") }
        case "departments":
            let chosen = departments.filter { choice.departmentIds.contains($0.id) }
            minutes = ResidenceTime.fromDepartments(chosen.map(\.estimatedMinutes))
            if minutes == nil { choice.timeError = tr("plan.departmentsError") }
        case let value?:
            minutes = Int(value).flatMap { ResidenceTime.presets.contains($0) ? $0 : nil }
            if minutes == nil { choice.timeError = tr("plan.timeError") }
        case nil:
            choice.timeError = tr("plan.timeError")
        }
        if let minutes, let people = choice.people {
            let known = Set(departments.map(\.id))
            choice.plan = VisitPlan(minutes: minutes, people: people,
                                    departments: departmentIds(form).filter { known.contains($0) })
        }
        return choice
    }
}

extension ShopperContext {
    /// The position as form fields, so a GET form keeps it like a link does.
    var fields: [(name: String, value: String)] { positionFields }
}

extension Choice {
    /// How many people, for a store that takes parties of up to `largest`: "Just me", "Two of
    /// us", then "3 people"… with `chosen` (or one person) checked.
    static func parties(upTo largest: Int, chosen: Int?) -> [Choice] {
        (1...max(1, largest)).map { people in
            let label = switch people {
            case 1: tr("plan.justMe")
            case 2: tr("plan.twoOfUs")
            default: tr("people", count: people)
            }
            return Choice(value: String(people), label: label, checked: people == (chosen ?? 1))
        }
    }
}
