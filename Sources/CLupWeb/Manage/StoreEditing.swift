import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// A manager edits the facts and rules of a store they manage: name, address, phone, capacity
/// and the reservation rules. Every field is checked, with the reason next to it; a change is
/// recorded field by field with who made it; the answer says what the new rules mean for the
/// reservations the store already holds (which stand).
extension ManageArea {
    /// The editable fields: name, label, hint, and the check of a value (nil: fine).
    struct EditField {
        var name: String
        var numeric: Bool
        var range: ClosedRange<Int>?
        var maxLength: Int
        /// The values allowed, chosen from a list (the slot length), and what to say otherwise.
        var choices: [Int]? = nil
        /// How each choice reads.
        var choiceWords = ChoiceWords.minutes
        /// A coordinate in degrees.
        var degrees: ClosedRange<Double>? = nil

        /// "Capacity (people inside at once)", in the current language.
        var label: String { tr("storeField.\(name)") }
        /// What the field means and allows.
        var hint: String { tr("storeField.\(name).hint") }

        /// The matching `clup admin edit-store` option: `walkInPercent` → `walk-in-percent`.
        var option: String { StoreFields.option(name) }

        enum ChoiceWords {
            case minutes, priority, yesNo

            func label(_ value: Int) -> String {
                switch self {
                case .minutes: tr("unit.minutes", ["n": String(value)])
                case .priority: PriorityText.policy(PriorityLane(every: value, online: false))
                case .yesNo: PriorityText.online(value == 1)
                }
            }
        }

        /// Only the phone may be left empty.
        var isRequired: Bool { name != "phone" }

        func problem(_ value: String) -> String? {
            if let degrees {
                guard let number = Double(value), number.isFinite, degrees.contains(number) else {
                    return tr("storeField.\(name).error")
                }
                return nil
            }
            if let choices {
                guard let number = Int(value), choices.contains(number) else { return tr("storeField.\(name).error") }
                return nil
            }
            if let range {
                guard let number = Int(value) else { return tr("field.wholeNumber") }
                guard range.contains(number) else {
                    return tr("field.numberRange", ["from": String(range.lowerBound), "to": String(range.upperBound)])
                }
                return nil
            }
            if value.isEmpty && isRequired { return tr("field.empty") }
            return ManageArea.textProblem(value, maxLength: maxLength)
        }
    }

    /// What is wrong with a line of text staff typed (a store's name, a closure's reason, a
    /// name at the door): too long, or holding control characters; nil if nothing.
    static func textProblem(_ value: String, maxLength: Int) -> String? {
        if value.count > maxLength { return tr("field.atMost", ["n": String(maxLength)]) }
        if !PlainText.isPrintable(value) { return tr("field.printable") }
        return nil
    }

    static let editFields = [
        EditField(name: "name", numeric: false, range: nil, maxLength: 100),
        EditField(name: "address", numeric: false, range: nil, maxLength: 200),
        EditField(name: "latitude", numeric: false, range: nil, maxLength: 20, degrees: -90...90),
        EditField(name: "longitude", numeric: false, range: nil, maxLength: 20, degrees: -180...180),
        EditField(name: "phone", numeric: false, range: nil, maxLength: 40),
        EditField(name: "capacity", numeric: true, range: 1...10_000, maxLength: 5),
        EditField(name: "walkInPercent", numeric: true, range: 0...90, maxLength: 2),
        EditField(name: "slotMinutes", numeric: true, range: nil, maxLength: 2, choices: StoreSettings.slotLengths),
        EditField(name: "slotCapacity", numeric: true, range: 1...10_000, maxLength: 5),
        EditField(name: "entryBeforeMinutes", numeric: true, range: 0...60, maxLength: 2),
        EditField(name: "entryAfterMinutes", numeric: true, range: 0...60, maxLength: 2),
        EditField(name: "callGraceMinutes", numeric: true, range: 1...60, maxLength: 2),
        EditField(name: "largestParty", numeric: true, range: 1...StoreSettings.partyLimit, maxLength: 1),
        EditField(name: "priorityEvery", numeric: true, range: nil, maxLength: 2,
                  choices: [0] + Array(PriorityLane.cycles), choiceWords: .priority),
        EditField(name: "priorityOnline", numeric: true, range: nil, maxLength: 1, choices: [0, 1], choiceWords: .yesNo),
    ]

    func editForm(_ context: ManagedStoreContext) throws -> Response {
        guard let definition = database.board.entry(context.storeId)?.definition else { throw HTTPError.notFound }
        var values = Dictionary(uniqueKeysWithValues: StoreEdit(definition.store).fields)
        values["departments"] = definition.departments.map { "\($0.name), \($0.estimatedMinutes)" }.joined(separator: "\n")
        return editPage(context, store: definition.store, values: values, errors: [:], status: 200)
    }

    func edit(_ context: ManagedStoreContext) throws -> Response {
        guard let store = database.board.entry(context.storeId)?.store else { throw HTTPError.notFound }
        var values: [String: String] = [:]
        var errors: [String: String] = [:]
        for field in Self.editFields {
            let value = (context.form[field.name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            values[field.name] = value
            errors[field.name] = field.problem(value)
        }
        // A form without the field (an older page, a script) leaves the departments alone.
        let departmentsSent = context.form["departments"] != nil
        values["departments"] = context.form["departments"] ?? ""
        let (departments, departmentError) = Self.departments(values["departments"] ?? "")
        errors["departments"] = departmentError
        guard errors.isEmpty else { return editPage(context, store: store, values: values, errors: errors, status: 422) }
        func number(_ name: String) -> Int { Int(values[name] ?? "") ?? 0 }
        let position = GeoPoint(latitude: Double(values["latitude"] ?? "") ?? 0,
                                longitude: Double(values["longitude"] ?? "") ?? 0)
        let edit = StoreEdit(
            name: values["name"] ?? "", address: values["address"] ?? "", position: position, phone: values["phone"] ?? "",
            capacity: number("capacity"), walkInPercent: number("walkInPercent"), slotMinutes: number("slotMinutes"),
            slotCapacity: number("slotCapacity"), entryBeforeMinutes: number("entryBeforeMinutes"),
            entryAfterMinutes: number("entryAfterMinutes"), callGraceMinutes: number("callGraceMinutes"),
            priorityEvery: number("priorityEvery"), priorityOnline: number("priorityOnline") == 1,
            largestParty: number("largestParty"))
        let outcome = try database.stores.editStore(store.id, to: edit, userId: context.user.id, now: context.now)
        let departmentsChanged = try departmentsSent
            && database.stores.replaceDepartments(storeId: store.id, with: departments, userId: context.user.id, now: context.now)
        let saved = outcome.changed.count + (departmentsChanged ? 1 : 0)
        let query = "saved=\(saved)&over=\(outcome.overCapacity)&overbooked=\(outcome.slotsOverBooked)"
        return .redirect(to: Paths.manageStore(store.id, query: query))
    }

    static func problems(in edit: StoreEdit) -> [(option: String, problem: String)] {
        let values = Dictionary(uniqueKeysWithValues: edit.fields)
        return editFields.compactMap { field in
            field.problem(values[field.name] ?? "").map { (field.option, $0) }
        }
    }

    /// What the last edit did, from the page's address after saving.
    static func editNotice(_ query: FormData) -> String? {
        guard let saved = query["saved"].flatMap(Int.init) else { return nil }
        guard saved > 0 else { return tr("edit.nothing") }
        var lines = [tr("edit.saved", count: saved)]
        if let over = query["over"].flatMap(Int.init), over > 0 {
            lines.append(tr("edit.overCapacity", ["people": Formatting.people(over)]))
        }
        if let overBooked = query["overbooked"].flatMap(Int.init), overBooked > 0 {
            lines.append(tr("edit.overBooked", count: overBooked))
        }
        return lines.joined(separator: " ")
    }

    private func editPage(_ context: ManagedStoreContext, store: Store, values: [String: String],
                          errors: [String: String], status: Int) -> Response
    {
        let fields = Self.editFields.map { field in
            StoreEditPage.Field(
                name: field.name, label: field.label, value: values[field.name] ?? "", hint: field.hint,
                numeric: field.numeric, required: field.isRequired, error: errors[field.name],
                options: field.choices.map { choices in
                    choices.map {
                        Choice(value: String($0), label: field.choiceWords.label($0), checked: String($0) == values[field.name])
                    }
                })
        } + [StoreEditPage.Field(
            name: "departments", label: tr("store.departments"), value: values["departments"] ?? "",
            hint: Self.departmentsHint + " " + tr("edit.departmentsHint"),
            numeric: false, required: false, error: errors["departments"], multiline: true)]
        var page = StoreEditPage(storeId: store.id.rawValue, storeName: store.name, fields: fields)
        page.map = (settings.tileURL, settings.tileAttribution)
        return views.page(title: tr("storeForm.editTitle", ["store": store.name]), section: .manage, context, page, status: status)
    }
}

/// The store form's checks, for an edit made elsewhere (`clup admin edit-store`).
public enum StoreFields {
    /// Each field's command-line option and its problem, by the same checks as the form's.
    public static func problems(in edit: StoreEdit) -> [(option: String, problem: String)] {
        ManageArea.problems(in: edit)
    }
}
