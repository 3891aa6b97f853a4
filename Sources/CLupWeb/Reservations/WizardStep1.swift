import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// Step 1: how long and how many.
extension ReservationsArea {
    func start(_ context: CustomerContext) throws -> Response {
        let details = try store(context)
        let usual = try usualMinutes(userId: context.user.id, storeId: details.store.id)
        var choice = VisitPlan.Choice(time: nil, departmentIds: [], people: nil)
        if let plan = try? VisitPlan.parse(context.request.query, largestParty: details.store.largestParty) {
            choice.time = ResidenceTime.presets.contains(plan.minutes) ? String(plan.minutes) : nil
            choice.people = plan.people
        }
        let page = ReservePage(details: details, choice: choice, usual: usual, shopper: shopper(context))
        return views.page(title: tr("wizard.reserveAt", ["store": details.store.name]), section: .stores, context, page)
    }
}

extension ReservePage {
    init(details: StoreBoard.Definition, choice: VisitPlan.Choice, usual: Int?, shopper: ShopperContext) {
        let id = details.store.id
        let time = choice.time ?? (usual != nil ? "usual" : "30")
        self.init(
            storeName: details.store.name, storeHref: Paths.store(id, query: shopper.query()),
            action: Paths.reserveHow(id),
            presets: ResidenceTime.presets.map { Choice(value: String($0), label: tr("unit.minutes", ["n": String($0)]), checked: time == String($0)) },
            usual: usual.map { Choice(value: "usual", label: tr("plan.usual", ["minutes": String($0)]), checked: time == "usual") },
            departments: details.departments.map { department in
                Choice(value: String(department.id), label: department.name + " · " + tr("unit.minutes", ["n": String(department.estimatedMinutes)]),
                       checked: choice.departmentIds.contains(department.id))
            },
            departmentsChosen: time == "departments",
            people: Choice.parties(upTo: details.store.largestParty, chosen: choice.people),
            timeError: choice.timeError, peopleError: choice.peopleError,
            hidden: ReservationsArea.hidden(shopper.fields))
    }
}
