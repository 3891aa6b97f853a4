import CLupData
import CLupDomain
import CLupPaths
import CLupTemplates
import CLupText
import Foundation

/// An admin registers a store: its name, address, position, phone, time zone, capacity, the
/// reservation rules (walk-in share, slot length and capacity, entry window, time to reach the
/// door when called), and its departments with their usual shopping times. Every
/// field is checked with its reason; the store then has no opening hours — it shows as closed
/// — and the admin is taken to its hours.
extension ManageArea {

    func newStoreForm(_ context: ManagerContext) throws -> Response {
        registrationPage(context, values: StoreFields.registrationDefaults, errors: [:], status: 200)
    }

    func registerStore(_ context: ManagerContext) throws -> Response {
        // A field the form did not send (an older page) takes its usual value.
        var values = StoreFields.registrationDefaults
        for name in StoreFields.registrationFields {
            if let value = context.form[name] { values[name] = value.trimmingCharacters(in: .whitespacesAndNewlines) }
        }
        switch StoreFields.registration(values) {
        case .failure(let problems):
            return registrationPage(context, values: values, errors: problems.errors, status: 422)
        case .success(let (new, departments)):
            let store = try database.stores.createStore(new, hours: [], departments: departments)
            try database.stores.recordRegistration(storeId: store.id, userId: context.user.id, now: context.now)
            return .redirect(to: Paths.manageStoreHours(store.id, query: "registered=1"))
        }
    }

    static var departmentsHint: String { tr("departments.hint") }

    /// "Bakery, 10" per line: a department and its usual shopping time in minutes.
    static func departments(_ text: String) -> ([(name: String, minutes: Int)], String?) {
        var departments: [(name: String, minutes: Int)] = []
        for (index, line) in text.split(whereSeparator: \.isNewline).enumerated() {
            let line = line.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            // Checked before the rest: each line is compared with those before it.
            guard departments.count < 50 else { return ([], tr("departments.tooMany")) }
            // The minutes follow the last comma: a name may hold commas of its own ("Fruit,
            // vegetables, 10"), as the edit form writes a seeded or registered one back.
            let comma = line.lastIndex(of: ",")
            let parts = comma.map { [line[..<$0], line[line.index(after: $0)...]].map { $0.trimmingCharacters(in: .whitespaces) } }
                ?? [line]
            guard parts.count == 2, let minutes = Int(parts[1]), (1...240).contains(minutes), (1...60).contains(parts[0].count),
                PlainText.isPrintable(parts[0])
            else {
                return ([], tr("departments.badLine", ["line": String(index + 1)]))
            }
            guard !departments.contains(where: { $0.name.lowercased() == parts[0].lowercased() }) else {
                return ([], tr("departments.twice", ["line": String(index + 1), "name": String(parts[0])]))
            }
            departments.append((parts[0], minutes))
        }
        return (departments, nil)
    }

    private func registrationPage(_ context: ManagerContext, values: [String: String], errors: [String: String],
                                  status: Int) -> Response
    {
        /// Labels as when editing; hints of their own where registering differs.
        func field(_ name: String, hint: String? = nil, numeric: Bool = false, required: Bool = true,
                   options: [Choice]? = nil, multiline: Bool = false) -> StoreEditPage.Field
        {
            StoreEditPage.Field(name: name, label: tr("storeField.\(name)"), value: values[name] ?? "",
                                hint: hint ?? tr("storeField.\(name).hint"), numeric: numeric,
                                required: required, error: errors[name], options: options, multiline: multiline)
        }
        let fields = [
            field("name"),
            field("address"),
            field("latitude"),
            field("longitude"),
            field("phone", required: false),
            field("timeZone", options: StoreFields.zoneChoices.map { Choice(value: $0, label: $0, checked: $0 == values["timeZone"]) }),
            field("capacity", numeric: true),
            field("walkInPercent", hint: tr("registration.walkInHint"), numeric: true),
            field("slotMinutes", hint: tr("registration.slotHint"), options: StoreSettings.slotLengths.map {
                      Choice(value: String($0), label: tr("unit.minutes", ["n": String($0)]), checked: String($0) == values["slotMinutes"])
                  }),
            field("slotCapacity", hint: tr("registration.slotCapacityHint"), numeric: true, required: false),
            field("entryBeforeMinutes", numeric: true),
            field("entryAfterMinutes", numeric: true),
            field("callGraceMinutes", numeric: true),
            field("largestParty", numeric: true),
            field("departments", hint: Self.departmentsHint, required: false, multiline: true),
        ]
        return views.page(title: tr("manage.register"), section: .manage, context,
                          StoreEditPage(storeId: 0, storeName: "", fields: fields, registering: true,
                                        map: (settings.tileURL, settings.tileAttribution)), status: status)
    }
}

extension StoreFields {
    /// The registration form's fields, as its names and `clup admin register-store`'s options
    /// (`walkInPercent` → `--walk-in-percent`) have them.
    public static let registrationFields = ["name", "address", "latitude", "longitude", "phone", "timeZone", "capacity",
                                            "walkInPercent", "slotMinutes", "slotCapacity", "entryBeforeMinutes",
                                            "entryAfterMinutes", "callGraceMinutes", "largestParty", "departments"]

    /// What a new store's form starts with (and the command's defaults): the rules' usual values.
    public static let registrationDefaults: [String: String] = {
        let usual = StoreSettings(capacity: 50)
        return ["timeZone": "Europe/Rome", "capacity": "50", "walkInPercent": String(usual.walkInPercent),
                "slotMinutes": String(usual.slotMinutes), "slotCapacity": "",
                "entryBeforeMinutes": String(usual.entryBeforeMinutes), "entryAfterMinutes": String(usual.entryAfterMinutes),
                "callGraceMinutes": String(usual.callGraceMinutes), "largestParty": String(usual.largestParty)]
    }()

    static let zoneChoices = TimeZone.knownTimeZoneIdentifiers.sorted()

    /// Each field's problem, by field name.
    public struct Problems: Error {
        public var errors: [String: String]
    }

    /// A store to register from its fields' text (trimmed), or each field's problem. Applies
    /// the edit form's checks to the fields they share.
    public static func registration(_ values: [String: String])
        -> Result<(NewStore, [(name: String, minutes: Int)]), Problems>
    {
        var errors: [String: String] = [:]
        // Fields left out take their usual value; an empty slot capacity is worked out.
        let values = registrationDefaults.merging(values.filter { $0.key != "slotCapacity" || !$0.value.isEmpty }) { $1 }
        for field in ManageArea.editFields where values[field.name].map({ field.name != "slotCapacity" || !$0.isEmpty }) ?? false {
            errors[field.name] = field.problem(values[field.name] ?? "")
        }
        if !zoneChoices.contains(values["timeZone"] ?? "") { errors["timeZone"] = tr("registration.zoneError") }
        let (departments, departmentError) = ManageArea.departments(values["departments"] ?? "")
        errors["departments"] = departmentError
        guard errors.isEmpty, let latitude = Double(values["latitude"] ?? ""),
              let longitude = Double(values["longitude"] ?? ""),
              let position = GeoPoint(validLatitude: latitude, longitude: longitude)
        else { return .failure(Problems(errors: errors)) }
        func number(_ name: String) -> Int? { Int(values[name] ?? "") }
        let capacity = number("capacity") ?? 1
        let usual = StoreSettings(capacity: capacity)
        let settings = StoreSettings(
            capacity: capacity, walkInPercent: number("walkInPercent") ?? usual.walkInPercent,
            slotMinutes: number("slotMinutes") ?? usual.slotMinutes, slotCapacity: number("slotCapacity"),
            entryBeforeMinutes: number("entryBeforeMinutes") ?? usual.entryBeforeMinutes,
            entryAfterMinutes: number("entryAfterMinutes") ?? usual.entryAfterMinutes,
            callGraceMinutes: number("callGraceMinutes") ?? usual.callGraceMinutes,
            largestParty: number("largestParty") ?? usual.largestParty)
        return .success((NewStore(name: values["name"] ?? "", address: values["address"] ?? "",
                                  phone: values["phone"] ?? "", position: position, capacity: capacity,
                                  timeZone: values["timeZone"] ?? "", settings: settings), departments))
    }

    /// `walkInPercent` → `walk-in-percent`: a field's command-line option.
    public static func option(_ field: String) -> String {
        field.reduce(into: "") { text, character in
            if character.isUppercase { text += "-" + character.lowercased() } else { text.append(character) }
        }
    }
}

extension StoreFields {
    /// Departments from "Bakery, 10" lines, or the problem with them.
    public static func departments(_ text: String) -> (departments: [(name: String, minutes: Int)], problem: String?) {
        let (departments, problem) = ManageArea.departments(text)
        return (departments, problem)
    }
}
